package main

import (
	"bytes"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

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
