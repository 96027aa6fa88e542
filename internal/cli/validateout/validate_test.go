package validateout

import (
	"context"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/validate"
)

// A validate line carries a file name, a payload's key and a message that
// may quote the payload: none of their control or bidi bytes reaches the
// terminal raw, and a name with a newline stays on its finding's line.
func TestPayloadTextIsTerminalSafe(t *testing.T) {
	v, err := validate.New(validate.Options{Shape: validate.ShapeAuto})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, body string
	}{
		{"plain", "a.json", `{"businessType":5009,"data":{}}`},
		{"escape in file", "a\x1b]0;pwned\x07.json", `{"businessType":5009,"data":{}}`},
		{"newline in file", "a\nb.json", `{"businessType":5009,"data":{}}`},
		{"escape in key", "a.json", `{"businessType":5009,"data":{"\u001b[2Jx":1}}`},
		{"bidi in value", "a.json", `{"businessType":"\u202eabc","data":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := validate.OpenFiles(context.Background(), []string{"-"}, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer fs.Close()
			var out []byte
			_, err = v.CheckFiles(context.Background(), fs, "", nil, func(c validate.Case) error {
				c.File = tc.file
				out = Payload(c).AppendText(out, &term.Style{})
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(out) == 0 {
				t.Fatal("no findings")
			}
			if strings.ContainsAny(string(out), "\x1b\x07\u202e") {
				t.Errorf("raw control bytes in %q", out)
			}
			for _, l := range lines {
				if !strings.HasPrefix(l, strings.SplitN(strings.ReplaceAll(tc.file, "\n", `\n`), "\x1b", 2)[0]) {
					t.Errorf("line %q does not start with its file", l)
				}
			}
		})
	}
}

// A run a signal stopped, or an input that could not be read, is no pass
// and no plain FAIL: its summary says interrupted or incomplete (with the
// error in JSON), beside the counts of what was checked.
func TestValidateSummaryInterrupted(t *testing.T) {
	t.Parallel()
	counts := validate.Summary{Payloads: 3, Failed: 1, Errors: 3, Warnings: 1}
	for _, tc := range []struct {
		name     string
		sum      ValidateSummary
		text, js string
	}{
		{"finished", ValidateSummary{Summary: counts},
			"FAIL: 3 payloads checked, 1 failed; 3 errors, 1 warning\n",
			`{"type":"summary","payloads":3,"failed":1,"errors":3,"warnings":1}` + "\n"},
		{"interrupted", ValidateSummary{Summary: counts, Interrupted: true},
			"interrupted: 3 payloads checked, 1 failed; 3 errors, 1 warning\n",
			`{"type":"summary","payloads":3,"failed":1,"errors":3,"warnings":1,"interrupted":true}` + "\n"},
		{"interrupted before a payload", ValidateSummary{Interrupted: true},
			"interrupted: 0 payloads checked, 0 failed; 0 errors, 0 warnings\n",
			`{"type":"summary","payloads":0,"failed":0,"errors":0,"warnings":0,"interrupted":true}` + "\n"},
		{"an input that could not be read", ValidateSummary{Summary: counts, Error: "<stdin>: read /dev/stdin: is a directory"},
			"incomplete: 3 payloads checked, 1 failed; 3 errors, 1 warning\n",
			`{"type":"summary","payloads":3,"failed":1,"errors":3,"warnings":1,"error":"\u003cstdin\u003e: read /dev/stdin: is a directory"}` + "\n"},
	} {
		if got := string(tc.sum.AppendText(nil, &term.Style{})); got != tc.text {
			t.Errorf("%s: text %q, want %q", tc.name, got, tc.text)
		}
		if got := string(tc.sum.AppendJSON(nil)); got != tc.js {
			t.Errorf("%s: JSON %q, want %q", tc.name, got, tc.js)
		}
	}
}
