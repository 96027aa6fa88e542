package anonymize

import (
	"context"
	"encoding/json"
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
