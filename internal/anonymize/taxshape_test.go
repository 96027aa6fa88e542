package anonymize

import (
	"context"
	"encoding/json"
	"testing"
)

// Eighteen digits are a tax id only when its check characters hold: an id
// of eighteen digits, or sizes written in groups, are kept wherever they
// stand (a string, a JSON number, full-width); a tax id of digits alone
// whose checks hold, and one with letters, are replaced.
func TestEighteenDigitsAreATaxIDOnlyWhenTheCheckHolds(t *testing.T) {
	t.Parallel()
	const validDigits = "911101087566012876" // both check characters hold
	tests := []struct {
		name, value string // value: a JSON value
		replaced    bool
	}{
		{"a snowflake id", `"178456321456789123"`, false},
		{"a snowflake id as a number", `178456321456789123`, false},
		{"sizes in groups", `"尺寸 1200 3400 5600 7800 90 mm"`, false},
		{"full-width digits", `"编号` + toFullWidth("178456321456789123") + `"`, false},
		{"a tax id of digits", `"税号` + validDigits + `"`, true},
		{"a tax id of digits in groups", `"税号 9111 0108 7566 0128 76"`, true},
		{"a tax id of digits as a number", validDigits, true},
		{"a tax id with letters whose check fails", `"税号91330203MA2H3C4K5X"`, true},
	}
	for _, tt := range tests {
		a := newTestAnonymizer(t, testKey)
		body := []byte(`{"businessType":4010,"data":{"comments":"","x":` + tt.value + `}}`)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Data map[string]json.RawMessage }
		mustUnmarshal(t, out, &got)
		if kept := string(got.Data["x"]) == tt.value; kept == tt.replaced {
			t.Errorf("%s: %s became %s", tt.name, tt.value, got.Data["x"])
		}
		if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
			t.Errorf("%s: --check finds %v in %s", tt.name, leaks, out)
		}
		if leaks := a.check(context.Background(), body, 1); tt.replaced && len(leaks) == 0 {
			t.Errorf("%s: --check finds no leak in the original %s", tt.name, body)
		}
	}
}
