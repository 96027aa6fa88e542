package anonymize

import (
	"strings"

	"github.com/whsim/whsim/internal/taxid"
)

// Leak is something in the output that still identifies a person or a
// company: a value the run replaced elsewhere, or anything found by its
// shape (a tax id, a mobile number...) that is not one of the stand-ins it
// wrote.
type Leak struct {
	Line int // the output's line (1-based), for NDJSON and captures the record
	// Kind is "tax id", "mobile number", "landline number", "identity card
	// number", "bank card number", "bank account number", "street address",
	// "pinyin name", "email address", "remote address", "code" (a document
	// number after its label), or a class and " (replaced elsewhere)".
	Kind string
	// Text is the value with its middle masked: the report must not repeat
	// what it warns about.
	Text string
}

// identifierClass is the class of a run that looks like an identifier, or "".
func identifierClass(run string) class { return class(identifierKind(run)) }

func runChar(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' }

// identifierKind names what run looks like, or "".
func identifierKind(run string) string {
	switch {
	case taxid.ValidResidentID(run), residentIDLike(run) && !taxid.ValidUSCC(run):
		// A card whose check character is wrong (a typo in the ERP, a
		// digit misread from a scan) still names its holder by region,
		// birth date and sequence.
		return string(IDCard)
	case len(run) == 18 && usccLike(run) && (!allDigits(run) || taxid.ValidUSCC(run)):
		// Eighteen digits alone are a tax id only when its check characters
		// hold: a snowflake id, a list of sizes in groups (1200 3400 5600
		// 7800 90) or an order number has that shape too, and an id
		// rewritten as a tax id breaks what reads it. (Pilot codes that
		// fail the check carry letters: 91350100M….)
		return string(TaxID)
	case len(run) == 11 && allDigits(run) && run[0] == '1' && run[1] >= '3':
		return string(mobile)
	case bankCardLike(run) && run[:2] == "62":
		// Under another prefix, a card is taken in groups of four or
		// after its label only (variant.go, account.go): an id of 16 to
		// 19 digits that passes the check by chance is kept.
		return string(bankCard)
	}
	return ""
}

// residentIDLike reports whether s has the form of a resident identity
// card number whatever its check character: a province's code, 15 more
// digits of which 7-14 are a birth date, and a digit or X. A snowflake
// id or an order number of 18 digits seldom holds a date there.
func residentIDLike(s string) bool {
	if len(s) != 18 || !allDigits(s[:17]) || !isDigit(s[17]) && s[17] != 'X' || !province(s[:2]) {
		return false
	}
	y, m, d := s[6:10], s[10:12], s[12:14]
	return y >= "1900" && y <= "2099" && m >= "01" && m <= "12" && d >= "01" && d <= "31"
}

// province reports whether two digits are a province's code of GB/T 2260
// (71 Taiwan, 81 and 82 Hong Kong and Macao, 83 their residence permits).
func province(s string) bool {
	switch s[0] {
	case '1':
		return s[1] >= '1' && s[1] <= '5'
	case '2':
		return s[1] >= '1' && s[1] <= '3'
	case '3':
		return s[1] >= '1' && s[1] <= '7'
	case '4':
		return s[1] >= '1' && s[1] <= '6'
	case '5':
		return s[1] >= '0' && s[1] <= '4'
	case '6':
		return s[1] >= '1' && s[1] <= '5'
	case '7':
		return s[1] == '1'
	case '8':
		return s[1] >= '1' && s[1] <= '3'
	}
	return false
}

// mask hides the middle of s: three characters kept at each end of an ASCII
// value of more than six, one at each end of any other of more than two.
func mask(s string) string {
	rs := []rune(s)
	keep := 1
	if isASCII(s) {
		keep = 3
	}
	if len(rs) <= 2*keep {
		return strings.Repeat("*", len(rs))
	}
	return string(rs[:keep]) + strings.Repeat("*", len(rs)-2*keep) + string(rs[len(rs)-keep:])
}

// usccLike reports the shape of a unified social credit code, whether or not
// its check characters hold (early pilot codes fail them, some with letters
// outside the alphabet): the registering authority, a kind digit and a
// six-digit region.
func usccLike(s string) bool {
	return strings.IndexByte("123456789ANY", s[0]) >= 0 && s[1] >= '1' && s[1] <= '9' && allDigits(s[2:8])
}
