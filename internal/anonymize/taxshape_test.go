package anonymize

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/whsim/whsim/internal/taxid"
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

// A tax id field written as a JSON number (a valid all-digit unified
// social credit code, an old 15-digit number) gets a tax id's stand-in
// that is a JSON number too: digits only, both check characters valid,
// the same as the id's stand-in in text; no digit of it is copied from the
// original where the stand-in had a letter.
func TestATaxIDAsAJSONNumberGetsAValidNumericStandIn(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"911101087566012876", "913101157500107694"} {
		if !taxid.ValidUSCC(v) {
			t.Fatalf("%s: the test's id is not valid", v)
		}
		a := newTestAnonymizer(t, testKey)
		body := []byte(`{"businessType":4010,"data":{"taxCode":` + v + `,"comments":"","x":"税号` + v + `"}}`)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Data struct {
				TaxCode json.Number
				X       string
			}
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%s: %v in %s", v, err, out)
		}
		s := got.Data.TaxCode.String()
		if !allDigits(s) || !taxid.ValidUSCC(s) || s[:2] != v[:2] || s == v {
			t.Errorf("%s became %s: want another valid code of digits, %s first", v, s, v[:2])
		}
		if got.Data.X != "税号"+s {
			t.Errorf("%s: in text it became %q, in the field %s", v, got.Data.X, s)
		}
	}
}
