//go:build unix

package ctxio

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestOpenFIFOGivesWay(t *testing.T) {
	name := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(name, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := open(ctx, name); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Open = %v, want the context's error", err)
	}
	f, err := open(context.Background(), filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, os.ErrNotExist) || f != nil {
		t.Fatalf("Open(missing) = %v, %v", f, err)
	}
}

// Checked reads r as it is until ctx ends, then reads nothing more.

// Reading a FIFO whose writer never writes gives way to the context.
func TestOpenInputFIFOReadGivesWay(t *testing.T) {
	name := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(name, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	w := make(chan *os.File, 1)
	go func() {
		f, _ := os.OpenFile(name, os.O_WRONLY, 0) // a writer that never writes
		w <- f
	}()
	// Cancelled once the read is under way, not by a timer: a deadline
	// started before the open ran out during it on a loaded machine, and
	// the open, not the read, gave way.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := OpenInput(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if f := <-w; f != nil {
		defer f.Close()
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(r)
		done <- err
	}()
	cancel()
	wantGiveWay(t, done, context.Canceled)
}

// FileKind names what each kind of file that is not a regular one is, as
// the messages refusing --capture, --cacert, a ready file or a report say.
func TestFileKind(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, tt := range []struct{ path, want string }{
		{dir, "a directory"},
		{fifo, "a FIFO"},
		{os.DevNull, "a device"},
	} {
		fi, err := os.Stat(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := FileKind(fi.Mode()); got != tt.want {
			t.Errorf("FileKind(%s) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
