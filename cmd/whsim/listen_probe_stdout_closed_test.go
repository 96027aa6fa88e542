package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listen --probe --output json | head -1: once the reader is gone, the
// probe's exactlyOnce line has no stdout either; listen exits 141 as any
// listen whose stdout was closed, its verdict on stderr. The line went to
// stdout itself, past the record of the failed write: exit 2 and "whsim:
// write /dev/stdout: broken pipe".
func TestListenProbeJSONWhenStdoutIsClosed(t *testing.T) {
	dir := t.TempDir()
	recvReady := filepath.Join(dir, "recv.txt")
	recv := exec.Command("docrecv", "careful", recvReady, filepath.Join(dir, "recv.log"))
	if err := recv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { recv.Process.Kill(); recv.Wait() }()
	// Polls for the event; the bound only guards against a hang.
	var recvURL []byte
	for deadline := time.Now().Add(time.Minute); len(recvURL) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("docrecv did not start")
		}
		recvURL, _ = os.ReadFile(recvReady)
	}
	base := strings.TrimSpace(string(recvURL))

	w := readerlessStdout(t) // the reader is gone before listen prints
	defer w.Close()
	cmd, errs, u := startListen(t, w, "--forward-to", base+"hook", "--probe", base+"probe?kind={kind}&code={code}&inv={invoiceCode}",
		"--settle", "0", "--output", "json")
	postCall(t, u, "0b4f3c2e-8a4b-4c1d-9e2f-3a5b6c7d8e9f")
	err := errs.exited(t, cmd, time.Minute) // listen stops by itself on the closed stdout
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 141 {
		t.Errorf("exit %v, want 141:\n%s", err, errs.text())
	}
	all := errs.text()
	if !strings.Contains(all, "exactly-once:") || strings.Contains(all, "broken pipe") {
		t.Errorf("stderr has no verdict, or a write error:\n%s", all)
	}
}
