package anonymize

import (
	"context"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/taxid"
)

// A tax id or an identity card written in lower case (a system that
// lower-cases what it stores, a hand-typed …002x) is one id: its stand-in
// is the same wherever it stands, in whatever case, a valid id read in
// upper case, and written in the case the original was.
func TestLowerCaseTaxIDKeepsItsCaseAndItsStandIn(t *testing.T) {
	t.Parallel()
	const upper = "91310115MA1FL3XK9D"
	tests := []struct{ name, value string }{
		{"all lower case", "91310115ma1fl3xk9d"},
		{"mixed case", "91310115mA1fl3xk9d"},
		{"upper case", upper},
	}
	for _, tt := range tests {
		a := newTestAnonymizer(t, testKey)
		body := []byte(`{"businessType":4010,"data":{"taxCode":"` + tt.value + `","comments":"","x":"` + tt.value +
			`","buyerTaxNo":"` + tt.value + `","note":"税号 ` + tt.value + `"}}`)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Data map[string]string }
		mustUnmarshal(t, out, &got)
		s := got.Data["taxCode"]
		for _, k := range []string{"x", "buyerTaxNo"} {
			if got.Data[k] != s {
				t.Errorf("%s: taxCode became %s, %s became %s: one id, two stand-ins", tt.name, s, k, got.Data[k])
			}
		}
		if want := "税号 " + s; got.Data["note"] != want {
			t.Errorf("%s: the note became %q, want %q", tt.name, got.Data["note"], want)
		}
		if !taxid.ValidUSCC(strings.ToUpper(s)) || s[:2] != "91" {
			t.Errorf("%s: stand-in %s is no valid enterprise's code", tt.name, s)
		}
		for i := range len(s) {
			o, n := tt.value[i], s[i]
			if isLetter(o) && isLetter(n) && isLower(o) != isLower(n) {
				t.Errorf("%s: stand-in %s does not keep the case of %s", tt.name, s, tt.value)
				break
			}
		}
		if tt.value != upper && strings.ToUpper(s) == s && strings.ContainsFunc(s, func(r rune) bool { return r >= 'A' && r <= 'Z' }) {
			t.Errorf("%s: stand-in %s is all capitals", tt.name, s)
		}
		if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
			t.Errorf("%s: --check finds %v in %s", tt.name, leaks, out)
		}
		if leaks := a.check(context.Background(), body, 1); len(leaks) == 0 {
			t.Errorf("%s: --check finds no leak in the original %s", tt.name, body)
		}
	}
}
