package main

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listen | head -1 with no call after the line head read: the reader's
// going away stops listen by itself, as the README's exit codes say. It
// stopped only at the next call's line, so with none listen sat on, its
// ready-file saying it was up and its pipeline never ending. The minute
// bounds only a hang; listen is waited for, not timed.
func TestListenStopsWhenStdoutsReaderGoesWithNoCallAfter(t *testing.T) {
	dir := t.TempDir()
	ready := filepath.Join(dir, "url.txt")
	cmd := exec.Command("whsim", "listen", "--addr", "127.0.0.1:0", "--ready-file", ready)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errs := startWithStderr(t, cmd)
	if l := <-errs.lines; !strings.HasPrefix(l, "listening on ") {
		t.Fatalf("first stderr line %q", l)
	}
	u, err := os.ReadFile(ready)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(strings.TrimSpace(string(u))+"?businessType=CREATE_RECEIVABLE_DOC", "application/json",
		strings.NewReader(`{"requestId":"r1","businessType":5007,"data":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	// head -1: one line read, then the reader goes away, and no call comes.
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	err = errs.exited(t, cmd, time.Minute)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 141 {
		t.Errorf("exit %v, want status 141", err)
	}
	if all := errs.text(); !strings.Contains(all, "listen stopped: stdout was closed") || !strings.Contains(all, "1 call") {
		t.Errorf("stderr has no summary saying stdout was closed:\n%s", all)
	}
	if _, err := os.Stat(ready); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the ready-file is left behind (%v)", err)
	}
}
