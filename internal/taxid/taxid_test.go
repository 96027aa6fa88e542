package taxid

import (
	"fmt"
	"strings"
	"testing"
)

func TestValidUSCC(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"91350100M000100Y43", true}, // GB 32100 worked example
		{"91310115MA1FL3XK9D", true},
		{"91440300MA5EXY2B41", true},
		{"91110108756601279B", true},
		{"91330106MA27W8Q173", true},
		{"91350100M000100Y4Z", false}, // wrong USCC check
		{"91310115MA1FL3XK8D", false}, // wrong org-code check
		{"91310115MA1FL3XK9", false},
		{"91310115MA1FL3XK9DD", false},
		{"", false},
		{"91310115ma1fl3xk9d", false},
		{"91310115MA1FL3XO9D", false}, // O is not in the alphabet
		{"统一社会信用", false},             // 18 bytes, 6 characters
		{"９１３１０１１５MA1FL3XK9D", false},
	}
	for _, tt := range tests {
		if got := ValidUSCC(tt.in); got != tt.want {
			t.Errorf("ValidUSCC(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestUSCCCheck(t *testing.T) {
	tests := []struct {
		in      string
		want    byte
		wantErr bool
	}{
		{"91350100M000100Y4", '3', false},
		{"91310115MA1FL3XK9", 'D', false},
		{"91110108756601279", 'B', false},
		{"9135010M000100Y4", 0, true},
		{"91350100M000100Y4Z", 0, true},
		{"91350100M000100I4", 0, true},
		{"91350100M000100Z4", 0, true},
		{"91350100M000100y4", 0, true},
	}
	for _, tt := range tests {
		got, err := USCCCheck(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("USCCCheck(%q) = %q, %v; want %q, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	// Against the reference (weights as powers of 3, not the table), over
	// bodies that use every character of the alphabet in every position;
	// every check character must come out.
	seen := map[byte]bool{}
	body := make([]byte, 17)
	for i := range 100000 {
		n := uint64(i)*2654435761 + 12345
		for j := range body {
			body[j] = Alphabet[n%31]
			n = n/31 + uint64(i+j)*40503
		}
		s := string(body)
		c, err := USCCCheck(s)
		if err != nil || c != refUSCCCheck(s) {
			t.Fatalf("USCCCheck(%q) = %q, %v; reference %q", s, c, err, refUSCCCheck(s))
		}
		seen[c] = true
	}
	if len(seen) != 31 {
		t.Errorf("%d check characters seen, want all 31", len(seen))
	}
}

func TestOrgCodeCheck(t *testing.T) {
	tests := []struct {
		in      string
		want    byte
		wantErr bool
	}{
		{"75660127", '9', false},
		{"MA1FL3XK", '9', false},
		{"M000100Y", '4', false},
		{"MA27W8Q1", '7', false},
		{"7566012", 0, true},
		{"7566012a", 0, true},
		{"756601-7", 0, true},
	}
	for _, tt := range tests {
		got, err := OrgCodeCheck(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("OrgCodeCheck(%q) = %q, %v; want %q, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	// The 10 → X and 11 → 0 branches must both be reachable.
	seen := map[byte]bool{}
	for i := range 100000 {
		s := fmt.Sprintf("%08d", i*7919%100000000)
		c, _ := OrgCodeCheck(s)
		seen[c] = true
		if c != refOrgCheck(s) {
			t.Fatalf("OrgCodeCheck(%q) = %q, reference %q", s, c, refOrgCheck(s))
		}
	}
	if !seen['X'] || !seen['0'] {
		t.Errorf("check characters seen %v, want X and 0 among them", seen)
	}
}

// refUSCCCheck is an independent check: weights computed as powers of 3.
func refUSCCCheck(s string) byte {
	const alpha = "0123456789ABCDEFGHJKLMNPQRTUWXY"
	sum, w := 0, 1
	for i := 0; i < 17; i++ {
		sum += strings.IndexByte(alpha, s[i]) * w
		w = w * 3 % 31
	}
	return alpha[(31-sum%31)%31]
}

func refOrgCheck(s string) byte {
	w := []int{3, 7, 9, 10, 5, 8, 4, 2}
	sum := 0
	for i, c := range s[:8] {
		sum += w[i] * strings.IndexRune("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", c)
	}
	return "0123456789X0"[11-sum%11]
}

func TestCheck(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" passes; otherwise a part of the message
	}{
		{"91310115MA1FL3XK9D", ""},
		{"91310115MA1FL3XK9E", "check character E, want D (GB 32100)"},
		{"91310115MA1FL3XK8A", "organisation-code check character 8 is wrong (GB 11714)"},
		{"91310115MA1FL3XKOD", "not a unified social credit code: character 17 ('O') is outside the GB 32100 alphabet"},
		{"310115756601279", ""},
		{"310115756601278", "organisation-code check character 8, want 9 (GB 11714)"},
		{"12345678901234567890", ""},
		{"", ""},
		// Characters, not bytes: full-width digits and letters (as a
		// Chinese input method types them) make 18 characters that are
		// no code; six Chinese characters are 18 bytes but 6 characters.
		{"９１３１０１１５MA1FL3XK9D", "not a unified social credit code: character 1 ('９') is outside"},
		{"91310115MA1FL3XK9Ｄ", "not a unified social credit code: character 18 ('Ｄ') is outside"},
		// The character is named terminal-safe, as %q writes it.
		{"91310115MA1FL3XK\x1bD", "character 17 ('\\x1b') is outside"},
		// A length no taxpayer id has (domain notes §1: 15, 18 or 20
		// characters): a code cut short or with one too many. An empty
		// id is none given (a 普通发票 to a person has no buyer id).
		{"统一社会信用", "6 characters"},
		{"91310115MA1FL3XK9", "17 characters"},
		{"91310115MA1FL3XK9DD", "19 characters"},
		{"9131011", "7 characters"},
		{"1234567890123456789012", "22 characters"},
		// A sole trader (个体户) may file under the owner's resident
		// identity card number (GB 11643): 18 characters, no USCC.
		{"11010519491231002X", ""},
		{"110101199003077774", ""},
		{"110101199003077777", "check character 7, want U (GB 32100)"}, // its MOD 11-2 check is 4
		{"110101199013077778", "(GB 32100)"},                           // its MOD 11-2 check holds, but month 13 is no birth date
		// An identity card number with a wrong or lower-case check
		// character reads as one, not only as a wrong USCC: the message
		// gives the check character of each reading.
		{"110101199003077777", "want U (GB 32100), or 4 as a resident identity card number (GB 11643)"},
		{"11010519491231002x", "check character x, want B (GB 32100), or X as a resident identity card number (GB 11643)"},
		{"110105194912310021", "or X as a resident identity card number (GB 11643)"},
		{"３１０１１５７５６６０１２７９", "not a tax registration number"},
		{"１２３４５６７８９０１２３４５６７８９０", "not a taxpayer id"},
	}
	for _, tt := range tests {
		err := Check(tt.in)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Check(%q) = %v, want nil", tt.in, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("Check(%q) = %v, want an error with %q", tt.in, err, tt.want)
		}
	}
}

func TestValidResidentID(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"11010519491231002X", true},
		{"110101199003077774", true},
		{"110101199003077777", false}, // wrong check character
		{"110101199013077778", false}, // month 13 (the check character holds)
		{"110101189003077775", false}, // born in 1890 (the check character holds)
		{"11010519491231002x", false},
		{"1101051949123100", false},
		{"91110108756601279B", false}, // a USCC
	}
	for _, tt := range tests {
		if got := ValidResidentID(tt.in); got != tt.want {
			t.Errorf("ValidResidentID(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// A USCC, or an id that is no identity card number (a month 13), gets the
// GB 32100 reading alone.
func TestCheckNamesTheIdentityCardOnlyForOne(t *testing.T) {
	for _, in := range []string{"91310115MA1FL3XK9E", "110101199013077778"} {
		if err := Check(in); err == nil || strings.Contains(err.Error(), "GB 11643") {
			t.Errorf("Check(%q) = %v, want a GB 32100 error alone", in, err)
		}
	}
}
