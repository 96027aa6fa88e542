package anonymizecmd_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/clitest"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/term/tty"
)

// anonymize reading a terminal says so, as validate does: without a file
// it read stdin without a word, and a user waited on a silent prompt
// (found by ux46). Not said when stdin is no terminal (a pipe, a file),
// nor when only files are read.
func TestAnonymizeTellsItReadsATerminal(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	const said = "whsim: reading payloads or capture records from stdin; Ctrl-D to end\n"
	for _, tc := range []struct {
		args  []string
		isTTY bool
		want  bool
	}{
		{nil, true, true},
		{[]string{"-"}, true, true},
		{nil, false, false},
		{[]string{"in.json"}, true, false},
	} {
		if err := os.WriteFile("in.json", []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		a := &cmdutil.App{
			Streams:  cmdutil.Streams{In: strings.NewReader("{}\n"), InTTY: tc.isTTY, Out: &out, Err: &errb},
			Now:      time.Now,
			ErrColor: tty.Colors(false),
		}
		code := clitest.Execute(context.Background(), a, append([]string{"anonymize", "--key", "0123456789abcdef0123"}, tc.args...))
		if code != cmdutil.ExitOK {
			t.Fatalf("%q: exit %d: %s", tc.args, code, errb.String())
		}
		if got := strings.HasPrefix(errb.String(), said); got != tc.want {
			t.Errorf("%q, stdin a terminal %v: stderr %q, want the notice first %v", tc.args, tc.isTTY, errb.String(), tc.want)
		}
	}
}
