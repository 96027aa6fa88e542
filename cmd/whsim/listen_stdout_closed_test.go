package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// listen | head -1: once the reader of stdout is gone, listen stops as
// Ctrl-C stops it, not killed by SIGPIPE (exit 141, no summary, a stale
// ready-file telling whsim ready it is up): the call that found stdout
// closed answered and recorded, the ready-file gone, the summary on
// stderr saying why, and exit 141 (documented; what pipefail scripts
// already expect of a program whose reader went away).
func TestListenStopsWhenStdoutIsClosed(t *testing.T) {
	dir := t.TempDir()
	ready, capFile := filepath.Join(dir, "url.txt"), filepath.Join(dir, "calls.ndjson")
	cmd := exec.Command("whsim", "listen", "--addr", "127.0.0.1:0", "--ready-file", ready, "--capture", capFile)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	// Not a pipe on Linux: listen watches one for its reader going away
	// and would stop before the second call; this test is about the
	// failed write.
	stdout, childOut := unwatchedStdout(t)
	defer stdout.Close()
	cmd.Stdout = childOut
	errs := startWithStderr(t, cmd)
	childOut.Close()
	if l := <-errs.lines; !strings.HasPrefix(l, "listening on ") {
		t.Fatalf("first stderr line %q", l)
	}
	u, err := os.ReadFile(ready)
	if err != nil {
		t.Fatal(err)
	}
	post := func(id string) int { return postReceipt(t, strings.TrimSpace(string(u)), id) }
	post("r1")
	// head -1: one line read, then the reader goes away.
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	if code := post("r2"); code != 200 {
		t.Errorf("the call after stdout closed was answered %d", code)
	}
	for range errs.lines {
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 141 {
		t.Errorf("exit %v, want status 141 (not killed by SIGPIPE)", err)
	}
	all := errs.text()
	if !strings.Contains(all, "listen stopped: stdout was closed") || !strings.Contains(all, "2 calls") {
		t.Errorf("stderr has no summary saying stdout was closed:\n%s", all)
	}
	if _, err := os.Stat(ready); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the ready-file is left behind (%v)", err)
	}
	b, err := os.ReadFile(capFile)
	if err != nil || strings.Count(string(b), "\n") != 2 {
		t.Errorf("capture holds %d records (%v), want the 2 calls", strings.Count(string(b), "\n"), err)
	}
}

// listen > /dev/full: a stdout that cannot be written (a full disk) stops
// listen as a closed one does, and exits 2, output it could not write, as
// every command's: listen went on answering calls it printed nowhere, and
// exited 0 at Ctrl-C without a word.
func TestListenStopsWhenStdoutCannotBeWritten(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	dir := t.TempDir()
	ready := filepath.Join(dir, "url.txt")
	cmd := exec.Command("whsim", "listen", "--addr", "127.0.0.1:0", "--ready-file", ready, "--output", "json")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.Stdout = full
	errs := startWithStderr(t, cmd)
	if l := <-errs.lines; !strings.HasPrefix(l, "listening on ") {
		t.Fatalf("first stderr line %q", l)
	}
	u, err := os.ReadFile(ready)
	if err != nil {
		t.Fatal(err)
	}
	if code := postReceipt(t, strings.TrimSpace(string(u)), "r1"); code != 200 {
		t.Errorf("the call was answered %d", code)
	}
	// listen stops by itself once it finds it cannot print the call (its
	// next flush): the test waits for that, its stderr ending. A SIGTERM
	// sent at once raced the print, and the run then read as a signal's.
	for range errs.lines {
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Errorf("exit %v, want status 2 (output it could not write)", err)
	}
	if all := errs.text(); !strings.Contains(all, "listen stopped: stdout could not be written (write /dev/stdout: no space left on device); 1 call") ||
		!strings.Contains(all, "not printed: the calls since it could not be written") {
		t.Errorf("stderr does not say stdout could not be written:\n%s", all)
	}
	if _, err := os.Stat(ready); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the ready-file is left behind (%v)", err)
	}
}
