//go:build unix

package probe

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/spec"
)

// TestCmdProbeKillsItsChildren: a probe command that is interrupted (a
// timeout or Ctrl-C: exec's cancellation either way), ignores SIGTERM and
// leaves children running is ended with every process it started, and so
// is a child left behind by a command that answered, so that a run
// leaves nothing behind.
func TestCmdProbeKillsItsChildren(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	runs := []string{
		// a child in the background, the shell waiting on another
		`(trap '' TERM; sleep 300) & echo $! > %s.tmp; mv %s.tmp %s; trap '' TERM; sleep 300`,
		// the answer printed, a child left holding stdout
		`sleep 300 & echo $! > %s.tmp; mv %s.tmp %s; echo '{"count":0}'`,
	}
	// A child in a session (and so a process group) of its own, which
	// no group or session id leads back to: only Linux's /proc finds it.
	if _, err := exec.LookPath("setsid"); err == nil && runtime.GOOS == "linux" {
		runs = append(runs,
			// interrupted
			`setsid sh -c 'trap "" TERM; echo $$ > %s.tmp; mv %s.tmp %s; exec sleep 300' </dev/null >/dev/null 2>&1 & trap '' TERM; sleep 300`,
			// answered, the child gone its own way first
			`setsid sh -c 'echo $$ > %s.tmp; mv %s.tmp %s; exec sleep 300' </dev/null >/dev/null 2>&1 & while [ ! -e %s ]; do sleep 0.01; done; echo '{"count":0}'`)
	} else {
		t.Log("no setsid or no /proc: a child in a session of its own is not tried")
	}
	for i, run := range runs {
		pidFile := filepath.Join(dir, strconv.Itoa(i))
		p := &Cmd{Run: strings.ReplaceAll(run, "%s", pidFile), Timeout: time.Minute}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := p.Ask(ctx, Question{Kind: spec.Invoice, Code: "X"})
			done <- err
		}()
		// A poll for the child's pid file; a Question that ended before
		// the file was written fails the test rather than hang it.
		var pid int
		var err error
		ended := false
		for pid == 0 {
			if b, rerr := os.ReadFile(pidFile); rerr == nil {
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				break
			}
			select {
			case err = <-done:
				ended = true
				if _, rerr := os.Stat(pidFile); rerr != nil {
					cancel()
					t.Fatalf("%s: the Question ended (%v) before the child wrote its pid", run, err)
				}
			case <-time.After(10 * time.Millisecond):
			}
		}
		interrupted := i%2 == 0
		if interrupted {
			cancel()
		}
		if !ended {
			err = <-done
		}
		cancel()
		switch {
		case interrupted && !errors.Is(err, context.Canceled):
			t.Errorf("%s: %v, want context.Canceled", run, err)
		case !interrupted && err != nil:
			t.Errorf("%s: %v, want its answer", run, err)
		}
		// Killed is an event: wait for it (init reaps the orphan in its
		// own time), far less long than the child would live.
		for end := time.Now().Add(time.Minute); alive(pid); {
			if time.Now().After(end) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("%s: child %d still running after the Question ended", run, pid)
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
