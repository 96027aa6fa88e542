package anonymize

import (
	"strings"
	"testing"
)

func TestBankCardLike(t *testing.T) {
	t.Parallel()
	tests := []struct {
		run  string
		want bool
	}{
		{"6222021234567890128", true},   // UnionPay, 19 digits
		{"6217001234567893", true},      // UnionPay, 16 digits
		{"9558801234567890128", true},   // an older domestic card
		{"4111111111111111", true},      // the Visa test number
		{"5555555555554444", true},      // the Mastercard test number
		{"6222021234567890127", false},  // its check digit wrong
		{"1784563214567891233", false},  // a snowflake id that passes the check by chance
		{"2026031800012347", false},     // an order number of a date that passes it too
		{"6011000990139424", false},     // a Discover card: no Chinese bank's
		{"378282246310005", false},      // 15 digits
		{"25312000000123456789", false}, // a 数电 invoice number
		{"1742198400000", false},        // a millisecond time
		{"62220212345678901A", false},
	}
	for _, tt := range tests {
		if got := bankCardLike(tt.run); got != tt.want {
			t.Errorf("bankCardLike(%q) = %v, want %v", tt.run, got, tt.want)
		}
	}
}

// A bank card number in free text, however it is written, is replaced by
// another under the same issuer with a valid check digit, in the same
// form; the long numbers that name nobody are kept digit for digit.
func TestBankCardNumbersAreReplaced(t *testing.T) {
	t.Parallel()
	const card = "6222021234567890128"
	// Each row: its name, the text, what must not be left of it ("": the
	// text is kept), and what stays before it.
	checkFreeText(t, []freeTextRow{
		{"inside Chinese text", "请汇款至卡号" + card + "，户名张三", card, "请汇款至卡号"},
		{"in groups of four", "卡号 6222 0212 3456 7890 128 工行", "6222 0212 3456 7890 128", "卡号 "},
		{"with hyphens", "acct 6222-0212-3456-7890-128.", "6222-0212-3456-7890-128", "acct "},
		{"full-width", "卡号：" + toFullWidth(card), toFullWidth(card), "卡号："},
		{"full-width in groups", "卡号" + toFullWidth("6222") + "\u3000" + toFullWidth("0212") + "\u3000" + toFullWidth("3456") + "\u3000" + toFullWidth("7890") + "\u3000" + toFullWidth("128"), toFullWidth("0212") + "\u3000" + toFullWidth("3456"), "卡号"},
		{"16 digits", "card 6217001234567893", "6217001234567893", "card "},
		{"a Visa co-brand in groups", "信用卡 4367 4212 3456 7890 129", "4367 4212 3456 7890 129", "信用卡 "},
		{"a Visa co-brand after its label", "卡号：4111111111111111", "4111111111111111", "卡号："},
		{"an id of a card's shape", "orderId 4111111111111111", "", ""},
		{"an id of a card's shape, full-width", "批次" + toFullWidth("5555555555554444"), "", ""},
		{"a snowflake id", "id 1784563214567891233", "", ""},
		{"an order number of a date", "批次2026031800012347", "", ""},
		{"a digital invoice number", "数电票25312000000123456789", "", ""},
		{"a uuid of digits", "62220212-3456-7890-1280-123456789012", "", ""},
		// Its first three groups are a card's 16 digits, check and all.
		{"a uuid of digits holding a card", "62170012-3456-7893-1234-567890123456", "", ""},
		{"a millisecond time and an amount", "at 1742198400000 paid 6222021234.56", "", ""},
		// A card's four groups and one more that make no card: the card
		// is replaced, the group after it kept, and --check (checkFreeText
		// asks it) takes the stand-in and that group for no card of 17
		// digits, though the Luhn check passes them by chance. Found by
		// an44's fuzzing: --check exited 1 on its own output.
		{"a card in groups and one more group", "6217 1202 0206 7890 8", "1202 0206 7890", "6217 "},
	}, strings.HasPrefix)
}

// The stand-in is a card of the same issuer and length with a valid check
// digit, and the same card is the same stand-in wherever it stands.
func TestBankCardStandIn(t *testing.T) {
	t.Parallel()
	r := newTestReplacer(t, testKey)
	for _, card := range []string{"6222021234567890128", "6217001234567893", "4111111111111111"} {
		s := r.Replace(bankCard, card)
		if s == card || len(s) != len(card) || s[:6] != card[:6] || !bankCardLike(s) {
			t.Errorf("stand-in of %s: %s, want another valid card of its issuer and length", card, s)
		}
		if again := r.Replace(bankCard, card); again != s {
			t.Errorf("stand-in of %s: %s, then %s", card, s, again)
		}
	}
}
