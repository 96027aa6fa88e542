package validatecmd_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/clitest"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/term/tty"
)

// validate reading a terminal says so, else a user waits on a silent prompt.
func TestValidateTellsItReadsATerminal(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, isTTY := range []bool{true, false} {
		var out, errb bytes.Buffer
		a := &cmdutil.App{
			Streams:  cmdutil.Streams{In: strings.NewReader("{}\n"), InTTY: isTTY, Out: &out, Err: &errb},
			Now:      time.Now,
			ErrColor: tty.Colors(false),
		}
		clitest.Execute(context.Background(), a, []string{"validate"})
		said := strings.Contains(errb.String(), "reading payloads from stdin; Ctrl-D to end")
		if said != isTTY {
			t.Errorf("stdin a terminal %v: stderr %q", isTTY, errb.String())
		}
	}
}
