package manpage

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRender(t *testing.T) {
	t.Parallel()
	p := Page{
		Name: "whsim-x", Short: "Do x", Long: "First -para.\n.dot line\n\n'second",
		Synopsis: "whsim x [--y]", Commands: []Entry{{"sub", "a sub"}},
		Options: []Option{{Shorthand: "e", Name: "event", Arg: "strings", Usage: `a \ b (default all)`}},
		Example: "  whsim x --y\n", SeeAlso: []string{"whsim", "whsim-x-sub"},
	}
	got := string(render(p, Header{Date: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), Source: "whsim v1", Section: "1"}))
	for _, want := range []string{
		`.TH "WHSIM-X" "1" "2026-11-22" "whsim v1" "whsim manual"` + "\n",
		".SH NAME\nwhsim\\-x \\- Do x\n",
		".B whsim x [\\-\\-y]\n",
		"First \\-para.\n\\&.dot line\n.PP\n\\&'second\n",
		".SH COMMANDS\n.TP\n\\fBsub\\fR\na sub\n",
		".TP\n\\fB\\-e\\fR, \\fB\\-\\-event\\fR \\fIstrings\\fR\na \\e b (default all)\n",
		".SH EXAMPLES\n.nf\n.RS 2\nwhsim x \\-\\-y\n.RE\n.fi\n",
		".SH SEE ALSO\n\\fBwhsim\\fR(1),\n\\fBwhsim\\-x\\-sub\\fR(1)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("page lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "INHERITED") {
		t.Errorf("an empty option list has a section:\n%s", got)
	}
}

func TestWriteDir(t *testing.T) {
	dir := t.TempDir()
	h := Header{Date: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Source: "whsim v1", Section: "1"}
	pages := []Page{{Name: "whsim", Short: "root"}, {Name: "whsim-send", Short: "send"}}
	if err := WriteDir(dir, pages, h); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		b, err := os.ReadFile(filepath.Join(dir, p.Name+".1"))
		if err != nil || !bytes.Equal(b, render(p, h)) {
			t.Errorf("%s.1: %q, %v", p.Name, b, err)
		}
	}
	if err := WriteDir(filepath.Join(dir, "missing"), pages, h); err == nil {
		t.Error("WriteDir into a missing directory succeeded")
	}
}
