package fake

import "github.com/whsim/whsim/internal/taxid"

// USCC draws an enterprise code of some region whose two check characters
// are valid.
func (f *Faker) USCC() string { return f.usccIn(f.region(), f.r.IntN(100) < 3) }

// usccIn draws the unified social credit code of a company registered in
// one of r's districts: a 个体工商户 (92…) when sole, else an enterprise
// (91…), with both check characters valid.
func (f *Faker) usccIn(r *region, sole bool) string {
	var b [18]byte
	b[0], b[1] = '9', '1'
	if sole {
		b[1] = '2'
	}
	copy(b[2:8], f.choice(r.districts))
	if f.r.IntN(100) < 85 {
		// Post-2015 registrations: "MA" then six characters of the alphabet.
		b[8], b[9] = 'M', 'A'
		for i := 10; i < 16; i++ {
			b[i] = taxid.Alphabet[f.r.IntN(len(taxid.Alphabet))]
		}
	} else {
		// Pre-2015 firms kept their numeric organisation code.
		appendPad(b[8:8], uint64(f.r.IntRange(5000_0000, 7999_9999)), 8)
	}
	b[16], _ = taxid.OrgCodeCheck(b[8:16])
	b[17], _ = taxid.USCCCheck(b[:17])
	return string(b[:])
}
