package probe

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
)

// TestKillMarkedMidExec: a marked process the scan first finds in the
// middle of an exec (no environment, no command line: what /proc shows
// for that moment) is looked at again and ended. The scan passed it over,
// and on a loaded machine a probe's setsid child, exec'ing its last
// command as the probe answered, outlived its Question
// (TestCmdProbeKillsItsChildren failed so).
func TestKillMarkedMidExec(t *testing.T) {
	t.Parallel()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	mark := envMark + "=" + newMark()
	cmd := exec.Command(sleep, "300")
	cmd.Env = append(os.Environ(), mark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dir := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/"
	var mu sync.Mutex
	midExecReads := map[string]bool{dir + "environ": true, dir + "cmdline": true}
	read := func(name string) ([]byte, error) {
		mu.Lock()
		empty := midExecReads[name]
		delete(midExecReads, name)
		mu.Unlock()
		if empty {
			return nil, nil
		}
		return os.ReadFile(name)
	}
	killMarkedIn(read, mark)
	// Ended by killMarkedIn, it died of SIGKILL, sent first; missed, it
	// dies of this SIGTERM.
	_ = cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("the marked process ended with %v, want SIGKILL: killMarked passed it over", err)
	}
	if len(midExecReads) != 0 {
		t.Errorf("%v never read: the scan did not come to the process", midExecReads)
	}
}
