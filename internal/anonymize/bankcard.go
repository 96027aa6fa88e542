package anonymize

import "github.com/whsim/whsim/internal/fake"

// A bank card number (a 收款账号 or 卡号 in a remark, an address line, a
// field the spec does not have) names its holder. It is found by its
// shape, as a mobile is, and the shape is narrow on purpose: amounts,
// times, invoice numbers, order numbers and ids are long runs of digits
// too, and one of them rewritten as a card would change what the capture
// means. A card number is 16 to 19 digits whose last is the Luhn check of
// the others (ISO/IEC 7812), issued under a prefix the cards of Chinese
// banks use: 62 (UnionPay), 4 and 5 (cards co-branded with Visa and
// Mastercard) and 9 (the older domestic cards, 9558...). A millisecond
// time has 13 digits, a 数电 invoice number 20, and a snowflake id, a
// nanosecond time or an order number of a date (2026...) starts with 1 or
// 2; a run of those that passes the Luhn check by chance is still kept.
// A run of digits alone is taken for a card under 62 only; under 4, 5 or 9
// it must be written in groups of four (4367 4212 3456 7890 129) or after
// its label (卡号, account.go), as an id of that shape is more common there
// than a card written bare. Corporate accounts (对公账户) carry no check
// digit and no issuer prefix: no shape tells them from an order number, and
// they are found after their label only (account.go).

// bankCardLike reports whether run is shaped as a bank card number.
func bankCardLike(run string) bool {
	if len(run) < 16 || len(run) > 19 || !allDigits(run) {
		return false
	}
	switch run[0] {
	case '4', '5', '9':
	case '6':
		if run[1] != '2' {
			return false
		}
	default:
		return false
	}
	return luhnDigit(run[:len(run)-1]) == run[len(run)-1]
}

// luhnDigit is the Luhn check digit of the digits of s.
func luhnDigit(s string) byte {
	sum := 0
	for i := range len(s) {
		d := int(s[len(s)-1-i] - '0')
		if i%2 == 0 { // doubled: the digit next to the check digit, then every other one
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return byte('0' + (10-sum%10)%10)
}

// bankCardStandIn draws another card number of v's length under v's
// first six digits (the issuer: the bank and the kind of card, which name
// nobody and which a receiver may route by), with a valid check digit.
// Anything else keeps its shape.
func bankCardStandIn(f *fake.Faker, v string) string {
	if !bankCardLike(v) {
		return sameShape(f, v, false)
	}
	r := f.Rand()
	b := []byte(v[:6])
	for len(b) < len(v)-1 {
		b = append(b, digits[r.IntN(len(digits))])
	}
	return string(append(b, luhnDigit(string(b))))
}
