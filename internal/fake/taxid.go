package fake

import "github.com/whsim/whsim/internal/taxid"

// USCC draws an enterprise code whose two check characters are valid.
func (f *Faker) USCC() string {
	var b [18]byte
	b[0], b[1] = '9', '1'
	if f.r.IntN(100) < 3 {
		b[1] = '2' // 个体工商户
	}
	copy(b[2:8], f.choice(areaCodes))
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
