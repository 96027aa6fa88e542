//go:build unix

package check

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/spec"
)

// TestCmdProbeKillsItsChildren: a probe command that times out, ignores
// SIGTERM and leaves children running is ended with every process it
// started, so that a run leaves nothing behind.
func TestCmdProbeKillsItsChildren(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	for i, run := range []string{
		// a child in the background, the shell waiting on another
		`(trap '' TERM; sleep 300) & echo $! > %s; trap '' TERM; sleep 300`,
		// the answer printed, a child left holding stdout
		`sleep 300 & echo $! > %s; echo '{"count":0}'`,
	} {
		pidFile := filepath.Join(dir, strconv.Itoa(i))
		p := &CmdProbe{Run: strings.ReplaceAll(run, "%s", pidFile), Timeout: 2 * time.Second}
		_, err := p.Ask(context.Background(), Question{Kind: spec.Invoice, Code: "X"})
		var pe *ProbeError
		if i == 0 && !errors.As(err, &pe) {
			t.Errorf("%s: %v, want a ProbeError", run, err)
		}
		b, rerr := os.ReadFile(pidFile)
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if rerr != nil || perr != nil {
			t.Fatalf("%s: no child pid: %v %v", run, rerr, perr)
		}
		// Killed is an event: wait for it (init reaps the orphan in its
		// own time), far less long than the child would live.
		for end := time.Now().Add(time.Minute); alive(pid); {
			if time.Now().After(end) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("%s: child %d still running after the question ended", run, pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// alive: the process exists and is not a zombie waiting to be reaped.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !os.IsNotExist(err)
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}
