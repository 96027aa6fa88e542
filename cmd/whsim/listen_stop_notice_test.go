package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C's stop may wait on no call at all: here a connection whose head
// is still arriving holds it until the head's 5 s run out. Listen used to
// say "waiting for the calls in flight to be answered" of it after 500 ms,
// as of a held call; it says so now only while a call's handler runs. The
// head is still a call: recorded, printed and counted. The test waits for
// listen to end, an event.
func TestListenStopSaysItWaitsOnlyForCalls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ready, capPath := filepath.Join(dir, "url.txt"), filepath.Join(dir, "c.ndjson")
	cmd := exec.Command("whsim", "listen", "--addr", "127.0.0.1:0", "--ready-file", ready, "--capture", capPath)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	errs := startWithStderr(t, cmd)
	errs.waitLine(t, "listening on ")
	u, err := os.ReadFile(ready)
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(string(u)), "http://"), "/")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("POST /hook?businessType=CREATE_RECEIVABLE_DOC HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		for range errs.lines {
		}
		done <- cmd.Wait()
	}()
	select {
	case err = <-done:
	case <-time.After(time.Minute): // a guard: the head's 5 s end the stop
		t.Fatal("listen still running a minute after Ctrl-C")
	}
	if err != nil {
		t.Errorf("exit %v, want 0", err)
	}
	errOut := errs.text()
	if strings.Contains(errOut, "calls in flight") {
		t.Errorf("listen spoke of calls in flight while none was:\n%s", errOut)
	}
	if !strings.Contains(errOut, "listen stopped: 1 call ") {
		t.Errorf("the head is not counted:\n%s", errOut)
	}
	if data, err := os.ReadFile(capPath); err != nil || bytes.Count(data, []byte("\n")) != 1 {
		t.Errorf("--capture holds %q (%v), want the head's record", data, err)
	}
}
