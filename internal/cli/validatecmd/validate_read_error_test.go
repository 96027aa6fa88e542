package validatecmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/clitest"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/term/tty"
)

// failingAfter is stdin that gives its payloads, then an I/O error: a
// pipe or disk that fails mid-run.
type failingAfter struct{ r io.Reader }

func (f *failingAfter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, syscall.EIO
	}
	return n, err
}

// An input that cannot be read, mid-run or named as a directory, ends the
// run with exit 2 and stdout still one document that says so: -o json's
// lines end with the summary, its "error" saying why (it ended after the
// last finding, no summary at all); text's with a summary line that is no
// verdict ("incomplete"), but none when no payload was checked; -o junit
// one case in error (it wrote nothing).
func TestValidateReadErrorEndsWithItsSummary(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	const bad = `{"requestId":"x","businessType":5007,"data":{}}` + "\n"
	cases := []struct {
		name string
		args []string
		// check says what is wrong with stdout, "" when nothing is.
		check func(stdout string) string
	}{
		{"json, stdin failing after a payload", []string{"-o", "json", "-"}, func(out string) string {
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			for _, l := range lines {
				if !json.Valid([]byte(l)) {
					return "a line that is no JSON: " + l
				}
			}
			var sum struct {
				Type     string
				Payloads int
				Error    string
			}
			json.Unmarshal([]byte(lines[len(lines)-1]), &sum)
			if sum.Type != "summary" || sum.Payloads != 1 || !strings.Contains(sum.Error, "<stdin>") || !strings.Contains(sum.Error, "input/output error") {
				return "the last line is no summary of 1 payload with the error"
			}
			return ""
		}},
		{"text, stdin failing after a payload", []string{"-"}, func(out string) string {
			if !strings.HasSuffix(out, "\nincomplete: 1 payload checked, 1 failed; 4 errors, 0 warnings\n") {
				return "no summary line saying incomplete"
			}
			return ""
		}},
		{"junit, stdin failing after a payload", []string{"-o", "junit", "-"}, func(out string) string {
			var doc struct {
				Errors int `xml:"errors,attr"`
			}
			if err := xml.Unmarshal([]byte(out), &doc); err != nil || doc.Errors != 1 || !strings.Contains(out, "input/output error") {
				return "no JUnit document with one case in error saying why"
			}
			return ""
		}},
		{"json, a directory", []string{"-o", "json", "."}, func(out string) string {
			if !strings.HasPrefix(out, `{"type":"summary","payloads":0,`) || !strings.Contains(out, `"error":".: `) || strings.Count(out, "\n") != 1 {
				return "not one summary line with the error"
			}
			return ""
		}},
		{"text, a directory", []string{"."}, func(out string) string {
			if out != "" {
				return "a line where no payload was checked"
			}
			return ""
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			a := &cmdutil.App{
				Streams:  cmdutil.Streams{In: &failingAfter{strings.NewReader(bad)}, Out: &out, Err: &errb},
				Now:      time.Now,
				ErrColor: tty.Colors(false),
			}
			code := clitest.Execute(context.Background(), a, append([]string{"validate"}, tc.args...))
			if code != cmdutil.ExitUsage {
				t.Errorf("exit %d, want %d", code, cmdutil.ExitUsage)
			}
			if why := tc.check(out.String()); why != "" {
				t.Errorf("stdout: %s:\n%s\nstderr:\n%s", why, out.String(), errb.String())
			}
		})
	}
}
