package anonymize

import (
	"context"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/taxid"
)

// An identity card number whose check character is wrong (a typo in the
// ERP, a digit misread from a scan) is still that person's number: its
// region, birth date and sequence name them. It is replaced, as a valid
// one is, by a valid one; an 18-digit number with no birth date in it (a
// snowflake id, an order number) is kept.
func TestIdentityCardsWithAWrongCheckCharacterAreReplaced(t *testing.T) {
	t.Parallel()
	isCard := func(s, want string) bool {
		i := strings.Index(s, want)
		return i >= 0 && taxid.ValidResidentID(s[i+len(want):i+len(want)+18])
	}
	checkFreeText(t, []freeTextRow{
		{"bare", "身份证 110101199003071234", "110101199003071234", "身份证 "},
		{"after a colon, a wrong X", "证件号：33010619720101061X", "33010619720101061X", "证件号："},
		{"in lower case", "id 33010619720101061x ok", "33010619720101061", "id "},
		{"kept: no birth date", "订单 178456321456789123 已发货", "", ""},
		{"kept: no province", "批次 990101199003071234", "", ""},
	}, isCard)
}

// The same as a JSON number and as the value of a tax id's field (a sole
// trader files under the owner's card): the number is gone, and --check
// finds it in the original.
func TestIdentityCardsWithAWrongCheckCharacterInNumbersAndTaxIDs(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"businessType":4010,"data":{"idNo":440305198512120041}}`,
		`{"businessType":4010,"data":{"taxCode":"440305198512120041"}}`,
	} {
		a := newTestAnonymizer(t, testKey)
		out, _, err := a.Payload([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), "440305198512120041") {
			t.Errorf("%s: the card stayed: %s", body, out)
		}
		if i := strings.Index(string(out), `"taxCode":"`); i >= 0 && !taxid.ValidResidentID(string(out[i+11:i+29])) {
			t.Errorf("%s: want another identity card number (a sole trader's id stays one), got %s", body, out)
		}
		if leaks := a.check(context.Background(), []byte(body), 1); len(leaks) == 0 {
			t.Errorf("%s: --check finds nothing in the original", body)
		}
		if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
			t.Errorf("%s: --check finds %v in the output %s", body, leaks, out)
		}
	}
}
