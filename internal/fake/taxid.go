package fake

import (
	"errors"
	"strings"
)

// usccAlpha is the GB 32100 alphabet: I, O, S, V and Z are left out because
// they are easily misread.
const usccAlpha = "0123456789ABCDEFGHJKLMNPQRTUWXY"

// usccWeights are 3^(i-1) mod 31 for positions 1..17.
var usccWeights = [17]int{1, 3, 9, 27, 19, 26, 16, 17, 20, 29, 25, 13, 8, 24, 10, 30, 28}

var orgWeights = [8]int{3, 7, 9, 10, 5, 8, 4, 2}

var (
	errUSCCLen  = errors.New("uscc: need 17 characters before the check character")
	errUSCCChar = errors.New("uscc: character outside the GB 32100 alphabet")
	errOrgLen   = errors.New("org code: need 8 characters before the check character")
	errOrgChar  = errors.New("org code: character is not a digit or an upper-case letter")
)

// usccValue maps a character to its index in usccAlpha, or -1.
func usccValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'Y':
		return strings.IndexByte(usccAlpha, c)
	}
	return -1
}

// USCCCheck returns the GB 32100-2015 check character (position 18) for the
// first 17 characters of a unified social credit code.
func USCCCheck(first17 string) (byte, error) { return usccCheck(first17) }

func usccCheck[T string | []byte](first17 T) (byte, error) {
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
	return usccAlpha[(31-sum%31)%31], nil
}

// OrgCodeCheck returns the GB 11714 check character for an 8-character
// organisation code body. Letters count A=10 … Z=35, the full Latin alphabet,
// because old codes predate the USCC alphabet.
func OrgCodeCheck(first8 string) (byte, error) { return orgCheck(first8) }

func orgCheck[T string | []byte](first8 T) (byte, error) {
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

// ValidUSCC reports whether s is 18 characters whose organisation-code check
// (position 17) and USCC check (position 18) both hold. Early pilot codes fail
// this, so callers should treat false as a warning.
func ValidUSCC(s string) bool {
	if len(s) != 18 {
		return false
	}
	c, err := USCCCheck(s[:17])
	if err != nil || c != s[17] {
		return false
	}
	o, err := OrgCodeCheck(s[8:16])
	return err == nil && o == s[16]
}

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
			b[i] = usccAlpha[f.r.IntN(len(usccAlpha))]
		}
	} else {
		// Pre-2015 firms kept their numeric organisation code.
		appendPad(b[8:8], uint64(f.r.IntRange(5000_0000, 7999_9999)), 8)
	}
	b[16], _ = orgCheck(b[8:16])
	b[17], _ = usccCheck(b[:17])
	return string(b[:])
}
