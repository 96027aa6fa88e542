package cmdutil

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A terminal that says TERM=dumb gets what a pipe gets: no colour and no
// progress line redrawn with \r\x1b[K, which it would show as text.
func TestDrawsOn(t *testing.T) {
	tests := []struct {
		tty  bool
		term string
		want bool
	}{
		{true, "xterm-256color", true},
		{true, "", true},
		{true, "dumb", false},
		{false, "xterm-256color", false},
		{false, "dumb", false},
	}
	for _, tt := range tests {
		if got := drawsOn(tt.tty, tt.term); got != tt.want {
			t.Errorf("drawsOn(%v, %q) = %v, want %v", tt.tty, tt.term, got, tt.want)
		}
	}
}

func TestOutputLost(t *testing.T) {
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	s := Streams{Out: out, Err: &bytes.Buffer{}}
	write := func(path string) error { return &fs.PathError{Op: "write", Path: path, Err: syscall.ENOSPC} }
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"a write to stdout", write(out.Name()), true},
		{"wrapped", fmt.Errorf("vegeta target x: %w", write(out.Name())), true},
		{"marked with a code", &ExitError{Code: ExitFailed, Err: write(out.Name())}, true},
		// --capture, --out: their commands say what such a failure means
		{"a write to another file", write(out.Name() + ".ndjson"), false},
		{"a read of stdout's name", &fs.PathError{Op: "read", Path: out.Name(), Err: syscall.EIO}, false},
		{"no path error", errors.New("write " + out.Name() + ": no space left on device"), false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		if got := s.OutputLost(tt.err); got != tt.want {
			t.Errorf("%s: OutputLost(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
