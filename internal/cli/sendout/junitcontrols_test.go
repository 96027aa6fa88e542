package sendout

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/term"
)

// A control character in an answer reads in send's JUnit failure as an
// escape, as check's JUnit shows it (termsafe.Excerpt for both): \v and
// \f were made spaces, hiding what the receiver sent. Every C0 control
// and a C1 one (NEL, which strings.Fields also took for a blank) is
// escaped, and the file is XML 1.0, which has no character for most of
// them, as xmllint reads it.
func TestDeliveryJUnitEscapesControls(t *testing.T) {
	for _, tt := range []struct {
		name, body, want string
	}{
		{"vertical tab", "a\vb", `a\x0bb`},
		{"form feed", "a\fb", `a\x0cb`},
		{"at the ends", "\vx\f", `\x0bx\x0c`},
		{"NUL and unit separator", "a\x00b\x1fc", `a\x00b\x1fc`},
		{"escape and DEL", "\x1b[2Jx\x7f", `\x1b[2Jx\x7f`},
		{"NEL", "a\u0085b", `a\u0085b`},
		{"line breaks and tab", "  a\r\n\tb\n", `a\r\n\tb`},
	} {
		res := &attempt.Result{Request: &attempt.Request{Seq: 1, Event: "E", RequestID: "id"},
			Attempts: []attempt.Attempt{{Status: 500, BodyPrefix: []byte(tt.body)}}}
		if got, want := (*delivery)(res).JUnit().Failure, "POST : 500: "+tt.want; got != want {
			t.Errorf("%s: failure %q, want %q", tt.name, got, want)
		}
		var out bytes.Buffer
		rep, err := term.New(term.JUnit, &out, term.Style{}, false)
		if err != nil {
			t.Fatal(err)
		}
		_ = rep.Case((*delivery)(res))
		if err := rep.Finish(SendSummary{Stats: &load.Stats{}, Name: "whsim send"}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Suites []struct {
				Cases []struct {
					Failure struct {
						Message string `xml:"message,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", tt.name, err, out.Bytes())
		}
		if len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 1 || doc.Suites[0].Cases[0].Failure.Message != "POST : 500: "+tt.want {
			t.Errorf("%s: the JUnit file reads %+v, want the failure %q", tt.name, doc, "POST : 500: "+tt.want)
		}
		xmllint(t, out.Bytes())
	}
}

// xmllint wants b to be well-formed XML 1.0 as libxml2 reads it (Go's
// decoder lets through characters XML 1.0 has none for).
func xmllint(t *testing.T, b []byte) {
	t.Helper()
	lint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("no xmllint on PATH")
	}
	file := filepath.Join(t.TempDir(), "junit.xml")
	cmd := exec.Command(lint, "--noout", file)
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("xmllint: %v\n%s\n%s", err, out, strings.TrimSpace(string(b)))
	}
}
