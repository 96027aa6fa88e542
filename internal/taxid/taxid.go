// Package taxid holds the check-character rules of Chinese taxpayer ids: the
// unified social credit code (GB 32100-2015) and the organisation code inside
// it (GB 11714). The generator draws ids that pass them and the validator
// checks received ids against them.
package taxid

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Alphabet is the GB 32100 alphabet: I, O, S, V and Z are left out because
// they are easily misread.
const Alphabet = "0123456789ABCDEFGHJKLMNPQRTUWXY"

// usccWeights are 3^(i-1) mod 31 for positions 1..17.
var usccWeights = [17]int{1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28}

var orgWeights = [8]int{3, 7, 9, 10, 5, 8, 4, 2}

var (
	errUSCCLen  = errors.New("uscc: need 17 characters before the check character")
	errUSCCChar = errors.New("uscc: character outside the GB 32100 alphabet")
	errOrgLen   = errors.New("org code: need 8 characters before the check character")
	errOrgChar  = errors.New("org code: character is not a digit or an upper-case letter")

	errResidentLen  = errors.New("resident id: need 17 digits before the check character")
	errResidentChar = errors.New("resident id: character is not a digit")
)

// usccValue maps a character to its index in Alphabet, or -1.
func usccValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'Y':
		return strings.IndexByte(Alphabet, c)
	}
	return -1
}

// outsideAlphabet says which character of s is the first outside the
// GB 32100 alphabet, and where: validate shows the message to a person,
// who looks for the character, not for USCCCheck's error.
func outsideAlphabet(s string) string {
	for i, r := range []rune(s) {
		if r > 0x7f || usccValue(byte(r)) < 0 {
			return fmt.Sprintf("character %d (%q) is outside the GB 32100 alphabet (digits, and capital letters but I, O, S, V and Z)", i+1, r)
		}
	}
	return "a character is outside the GB 32100 alphabet"
}

// USCCCheck returns the GB 32100-2015 check character (position 18) for the
// first 17 characters of a unified social credit code.
func USCCCheck[T string | []byte](first17 T) (byte, error) {
	if len(first17) != 17 {
		return 0, errUSCCLen
	}
	sum := 0
	for i := range 17 {
		v := usccValue(first17[i])
		if v < 0 {
			return 0, errUSCCChar
		}
		sum += v * usccWeights[i]
	}
	return Alphabet[(31-sum%31)%31], nil
}

// OrgCodeCheck returns the GB 11714 check character for an 8-character
// organisation code body. Letters count A=10 … Z=35, the full Latin alphabet,
// because old codes predate the USCC alphabet.
func OrgCodeCheck[T string | []byte](first8 T) (byte, error) {
	if len(first8) != 8 {
		return 0, errOrgLen
	}
	sum := 0
	for i := range 8 {
		c := first8[i]
		var v int
		switch {
		case c >= '0' && c <= '9':
			v = int(c - '0')
		case c >= 'A' && c <= 'Z':
			v = int(c-'A') + 10
		default:
			return 0, errOrgChar
		}
		sum += v * orgWeights[i]
	}
	switch c := 11 - sum%11; c {
	case 10:
		return 'X', nil
	case 11:
		return '0', nil
	default:
		return byte('0' + c), nil
	}
}

// ResidentIDCheck returns the check character (position 18) of a resident
// identity card number (GB 11643): ISO 7064 MOD 11-2 over its first 17
// digits.
func ResidentIDCheck[T string | []byte](first17 T) (byte, error) {
	if len(first17) != 17 {
		return 0, errResidentLen
	}
	w := [17]int{7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2}
	sum := 0
	for i := range 17 {
		c := first17[i]
		if c < '0' || c > '9' {
			return 0, errResidentChar
		}
		sum += int(c-'0') * w[i]
	}
	return "10X98765432"[sum%11], nil
}

// ValidResidentID reports whether s is a resident identity card number
// (GB 11643): 17 digits, of which 7-14 are a plausible birth date, and
// their check character.
func ValidResidentID(s string) bool {
	c, ok := residentCheck(s)
	return ok && c == s[17]
}

// residentCheck returns the check character s would have as a resident
// identity card number, and whether it reads as one but for that
// character: 18 bytes, 17 digits of which 7-14 are a plausible birth date.
func residentCheck(s string) (byte, bool) {
	if len(s) != 18 {
		return 0, false
	}
	y := s[6:10]
	if y < "1900" || y > "2099" || s[10:12] < "01" || s[10:12] > "12" || s[12:14] < "01" || s[12:14] > "31" {
		return 0, false
	}
	c, err := ResidentIDCheck(s[:17])
	return c, err == nil
}

// residentReading is what the check character of s should be if s is a
// resident identity card number, for an error about s as a USCC: a sole
// trader's id with a mistyped (or lower-case x) check character is read
// as a USCC too, and an error naming GB 32100 alone sends its reader to
// the wrong standard. "" when s does not read as one.
func residentReading(s string) string {
	if c, ok := residentCheck(s); ok {
		return fmt.Sprintf(", or %c as a resident identity card number (GB 11643)", c)
	}
	return ""
}

// ValidUSCC reports whether s is 18 characters whose organisation-code check
// (position 17) and USCC check (position 18) both hold. Early pilot codes fail
// this, so callers should treat false as a warning.
func ValidUSCC(s string) bool {
	return len(s) == 18 && utf8.RuneCountInString(s) == 18 && Check(s) == nil
}

// Check checks the check characters of an 18-character unified social credit
// code, or of the organisation code inside a 15-character tax registration
// number. A resident identity card number, under which a sole trader (个体户)
// may file, passes, as does a 20-character id (an identity card number and
// two digits), whose check is not known. Any other length is no taxpayer id
// (domain notes §1: 15, 18 or 20 characters), except none at all: an empty
// id is one not given, as on a 普通发票 issued to a person. The error says
// which character is wrong and by which standard, or what the id is not.
func Check(s string) error {
	// The lengths are in characters: full-width digits (a Chinese input
	// method's) make 18 characters of more bytes, six Chinese characters
	// 18 bytes.
	n := utf8.RuneCountInString(s)
	switch {
	case n == 18 && len(s) != 18:
		return fmt.Errorf("%q is 18 characters but not a unified social credit code: %s", s, outsideAlphabet(s))
	case n == 18 && ValidResidentID(s):
		// A sole trader's taxpayer id may be the owner's identity card
		// number: 18 characters, and no USCC.
	case n == 18:
		want, err := USCCCheck(s[:17])
		if err != nil {
			return fmt.Errorf("%q is 18 characters but not a unified social credit code: %s", s, outsideAlphabet(s))
		}
		if want != s[17] {
			return fmt.Errorf("%q: check character %c, want %c (GB 32100)%s", s, s[17], want, residentReading(s))
		}
		if o, err := OrgCodeCheck(s[8:16]); err != nil || o != s[16] {
			return fmt.Errorf("%q: organisation-code check character %c is wrong (GB 11714)%s", s, s[16], residentReading(s))
		}
	case n == 15 && len(s) != 15:
		return fmt.Errorf("%q is 15 characters but not a tax registration number: a character is not ASCII (full-width?)", s)
	case n == 15:
		if o, err := OrgCodeCheck(s[6:14]); err == nil && o != s[14] {
			return fmt.Errorf("%q: organisation-code check character %c, want %c (GB 11714)", s, s[14], o)
		}
	case n == 20 && len(s) != 20:
		return fmt.Errorf("%q is 20 characters but not a taxpayer id: a character is not ASCII (full-width?)", s)
	case n != 20 && n != 0:
		return fmt.Errorf("%q is %d characters: a taxpayer id has 15 (tax registration number), 18 (unified social credit code, resident identity card number) or 20", s, n)
	}
	return nil
}
