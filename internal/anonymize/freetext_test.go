package anonymize

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// anonymizeFreeText puts text in a field the spec does not have and
// anonymizes the payload: the body sent, the output, and what the field
// became.
func anonymizeFreeText(t *testing.T, a *anonymizer, text string) (body, out []byte, became string) {
	t.Helper()
	x, _ := json.Marshal(text)
	body = []byte(`{"businessType":4010,"data":{"comments":"","x":` + string(x) + `}}`)
	out, _, err := a.Payload(body)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Data map[string]any }
	mustUnmarshal(t, out, &got)
	became, _ = got.Data["x"].(string)
	return body, out, became
}

// checkAgrees says (as --check) that the output holds no leak and the
// original body held one: what anonymizing replaced, the check finds.
func checkAgrees(t *testing.T, a *anonymizer, name string, body, out []byte) {
	t.Helper()
	if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
		t.Errorf("%s: --check finds %v in the output %s", name, leaks, out)
	}
	if leaks := a.check(context.Background(), body, 1); len(leaks) == 0 {
		t.Errorf("%s: --check finds no leak in the original %s", name, body)
	}
}

// freeTextRow is a text a detector is to find in a free-text field (gone:
// what must not be left of it; want: what it became, as the test's
// matches reads it), or to leave as it is (gone "").
type freeTextRow struct {
	name, text string
	gone, want string
}

// checkFreeText anonymizes each row's text as a free-text field, each with
// an anonymizer of its own: a row to leave is left byte for byte; in a row
// to find, gone is no longer there, matches(result, want) holds, and
// --check finds nothing the run replaced.
func checkFreeText(t *testing.T, rows []freeTextRow, matches func(s, want string) bool) {
	t.Helper()
	for _, tt := range rows {
		a := newTestAnonymizer(t, testKey)
		body, out, s := anonymizeFreeText(t, a, tt.text)
		if tt.gone == "" {
			if s != tt.text {
				t.Errorf("%s: %q became %q", tt.name, tt.text, s)
			}
			continue
		}
		if strings.Contains(s, tt.gone) || !matches(s, tt.want) {
			t.Errorf("%s: %q became %q, want %q", tt.name, tt.text, s, tt.want)
		}
		checkAgrees(t, a, tt.name, body, out)
	}
}
