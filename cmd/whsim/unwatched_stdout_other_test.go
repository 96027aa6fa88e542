//go:build !linux

package main

import (
	"os"
	"testing"
)

// unwatchedStdout is a stdout for listen and the end a test reads it from:
// a pipe, which listen watches for its reader going away only on Linux.
func unwatchedStdout(t *testing.T) (read, write *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	return r, w
}
