package main

import (
	"os"
	"syscall"
	"testing"
)

// unwatchedStdout is a stdout for listen and the end a test reads it from:
// a socket, whose write fails as a pipe's does (EPIPE) once the reader is
// closed, where listen on Linux watches only a pipe for its reader going
// away, which would stop it before the call a test needs it to print.
func unwatchedStdout(t *testing.T) (read, write *os.File) {
	t.Helper()
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(pair[0]), "stdout"), os.NewFile(uintptr(pair[1]), "child stdout")
}
