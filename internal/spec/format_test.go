package spec

import (
	"regexp"
	"testing"
)

func TestValidAgreesWithPattern(t *testing.T) {
	inputs := map[Format][]string{
		UUID: {"123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000",
			"123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400g",
			"123e4567-e89b-12d3-a456-4266141740000", "123e4567-e89b-12d3-a456_426614174000", ""},
		CurrencyCode: {"CNY", "cny", "CN", "CNYY", "C1Y", "PRE", ""},
		Decimal2:     {"0.00", "-12.50", "1250.5", "12.500", "-.50", ".50", "1,250.50", "1e2.00", "--1.00", "12.5a", ""},
	}
	for f, ins := range inputs {
		// A line break before or after a value: Go's $ is the end of the
		// string, as ECMA-262's is, so the pattern refuses them.
		for _, in := range ins {
			for _, nl := range lineBreaks() {
				inputs[f] = append(inputs[f], in+nl, nl+in)
			}
		}
	}
	for f, ins := range inputs {
		re := regexp.MustCompile(f.Pattern())
		for _, in := range ins {
			want := re.MatchString(in)
			if got := Valid(f, in); got != want {
				t.Errorf("Valid(%s, %q) = %v, pattern %s says %v", f, in, got, f.Pattern(), want)
			}
			if got := Valid(f, []byte(in)); got != want {
				t.Errorf("Valid(%s, []byte(%q)) = %v, want %v", f, in, got, want)
			}
		}
	}
	if UnixMillis.Pattern() != "" || !Valid(UnixMillis, "x") {
		t.Errorf("a format without a pattern: Pattern %q, Valid false", UnixMillis.Pattern())
	}
}

// lineBreaks are the line terminators after which some regular expression
// dialect's $ still matches: "\n" (Python's re, PCRE, Perl, .NET, and
// Ruby's line anchors) and java.util.regex's others.
func lineBreaks() []string { return []string{"\n", "\r", "\r\n", "\u0085", "\u2028", "\u2029"} }

// TestFormatsAreExact: each string format has, beside its pattern, a
// constraint no dialect reads differently: a fixed length that every
// valid value has, or a character class that no valid value holds and
// that finds every line break.
func TestFormatsAreExact(t *testing.T) {
	valid := map[Format][]string{
		UUID:         {"123e4567-e89b-12d3-a456-426614174000", NewUUID(0, 0)},
		CurrencyCode: {"CNY", "USD"},
		Decimal2:     {"0.00", "-12.50", "1234567.89"},
	}
	for _, f := range []Format{UUID, CurrencyCode, Decimal2, UnixMillis} {
		if f.Pattern() == "" {
			if f.Len() != 0 || f.Foreign() != "" {
				t.Errorf("%s has no pattern but Len %d, Foreign %q", f, f.Len(), f.Foreign())
			}
			continue
		}
		if (f.Len() > 0) == (f.Foreign() != "") {
			t.Errorf("%s: Len %d, Foreign %q: want exactly one of them", f, f.Len(), f.Foreign())
		}
		if len(valid[f]) == 0 {
			t.Errorf("%s: no valid values to test", f)
		}
		for _, v := range valid[f] {
			if !Valid(f, v) {
				t.Fatalf("Valid(%s, %q) = false", f, v)
			}
			if f.Len() > 0 && len(v) != f.Len() {
				t.Errorf("%s: %q has length %d, Len says %d", f, v, len(v), f.Len())
			}
		}
		if f.Foreign() == "" {
			continue
		}
		foreign := regexp.MustCompile(f.Foreign())
		for _, v := range valid[f] {
			if foreign.MatchString(v) {
				t.Errorf("%s: Foreign %s finds a character in the valid %q", f, f.Foreign(), v)
			}
		}
		for _, nl := range lineBreaks() {
			if !foreign.MatchString(nl) {
				t.Errorf("%s: Foreign %s does not find %q", f, f.Foreign(), nl)
			}
		}
	}
}

func TestNewUUID(t *testing.T) {
	tests := []struct {
		hi, lo uint64
		want   string
	}{
		{0, 0, "00000000-0000-4000-8000-000000000000"},
		{^uint64(0), ^uint64(0), "ffffffff-ffff-4fff-bfff-ffffffffffff"},
		{0x0706050403020100, 0x0f0e0d0c0b0a0908, "00010203-0405-4607-8809-0a0b0c0d0e0f"},
	}
	for _, tt := range tests {
		got := NewUUID(tt.hi, tt.lo)
		if got != tt.want {
			t.Errorf("NewUUID(%#x, %#x) = %s, want %s", tt.hi, tt.lo, got, tt.want)
		}
		if !Valid(UUID, got) {
			t.Errorf("NewUUID gives %s, which Valid rejects", got)
		}
	}
}
