package main

import (
	"bytes"
	"net"
	"os"
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
	capPath := filepath.Join(t.TempDir(), "c.ndjson")
	var stdout bytes.Buffer
	cmd, errs, u := startListen(t, &stdout, "--capture", capPath)
	host, _, _ := strings.Cut(strings.TrimPrefix(u, "http://"), "/")
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
	err = errs.exited(t, cmd, time.Minute) // a guard: the head's 5 s end the stop
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
