package main

import (
	"bytes"
	"os"
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
	got, killed := runInterrupted(ts, syscall.SIGINT, delay, lookPath(ts, args[3]), args[4:], args[2], args[2]+".stderr")
	if killed || got != want {
		ts.Fatalf("%s exited %d after SIGINT (killed by it: %v), want %d", args[3], got, killed, want)
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
