package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// sigint runs a program with its stdout in a file, sends it SIGINT (Ctrl-C)
// after a delay and checks its exit code within ten seconds:
// sigint <code> <delay> <stdout-file> <program> [args...]. Its stderr goes
// to <stdout-file>.stderr.
func sigint(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: sigint <code> <delay> <stdout-file> <program> [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	delay, err := time.ParseDuration(args[1])
	ts.Check(err)
	cmd := exec.Command(lookPath(ts, args[3]), args[4:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = scriptEnv(ts)
	out, err := os.Create(ts.MkAbs(args[2]))
	ts.Check(err)
	defer out.Close()
	errf, err := os.Create(ts.MkAbs(args[2] + ".stderr"))
	ts.Check(err)
	defer errf.Close()
	cmd.Stdout, cmd.Stderr = out, errf
	ts.Check(cmd.Start())
	time.Sleep(delay)
	ts.Check(cmd.Process.Signal(syscall.SIGINT))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		ts.Fatalf("%s did not stop within 10s of SIGINT", args[3])
	}
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", args[3], err)
	}
	if got != want {
		ts.Fatalf("%s exited %d after SIGINT, want %d", args[3], got, want)
	}
}

// lineCount sets a variable to the number of lines of a file (a capture's
// calls): linecount N calls.ndjson
func lineCount(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: linecount <name> <file>")
	}
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	ts.Setenv(args[0], strconv.Itoa(bytes.Count(b, []byte("\n"))))
}
