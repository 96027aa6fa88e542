//go:build unix

package ctxio

import (
	"context"
	"errors"
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
