package inspectcmd_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/cli/clitest"
	"github.com/whsim/whsim/internal/cli/cmdutil"
)

func TestInspectUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", filepath.Join(dir, "missing.ndjson"), "--ui", "127.0.0.1:0"}, "missing.ndjson"},
		{[]string{"inspect"}, "wants 1 argument (a capture file), got 0"},
		{[]string{"inspect", filepath.Join(dir, "x"), "--origin", "ftp://x"}, "--origin"},
		// The call's path and query follow the origin in the commands the
		// page copies: one of its own would break them.
		{[]string{"inspect", filepath.Join(dir, "x"), "--origin", "http://x/base?q=1"}, `--origin "http://x/base?q=1": the call's path and query are added to it, so it takes none of its own (a query or fragment)`},
		{[]string{"inspect", filepath.Join(dir, "x"), "--origin", "http://x#f"}, `--origin "http://x#f": the call's path`},
		{[]string{"listen", "--addr", "127.0.0.1:0", "--ui", "nonsense"}, "--ui nonsense"},
		{[]string{"listen", "--addr", "127.0.0.1:8931", "--ui", "127.0.0.1:8931"}, "the webhook's address"},
	} {
		code, _, stderr := clitest.Run(t, tt.args...)
		if code != cmdutil.ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("whsim %s: exit %d, stderr %q; want %d and %q", strings.Join(tt.args, " "), code, stderr, cmdutil.ExitUsage, tt.want)
		}
	}
}

// --ui's words said ":0 picks a free port", and --ui :0 serves the page,
// the calls and their replay on every interface (a warning says so once
// it runs): the help names the loopback form, and what a bare :port
// does, as listen's --addr does.
func TestInspectUIFlagSaysWhatABarePortServes(t *testing.T) {
	t.Parallel()
	code, stdout, _ := clitest.Run(t, "inspect", "--help")
	if code != 0 || !strings.Contains(stdout, "(127.0.0.1:0 picks a free port; a bare :port serves every interface)") {
		t.Errorf("whsim inspect --help: exit %d, its --ui reads %q; want the loopback form and what a bare :port serves",
			code, lineOf(stdout, "--ui string"))
	}
}

// lineOf is the line of s that holds sub, "" when none does.
func lineOf(s, sub string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Contains(line, sub) {
			return line
		}
	}
	return ""
}
