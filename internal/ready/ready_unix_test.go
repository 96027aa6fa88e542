//go:build unix

package ready

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheckRefusesAFIFO: a ready file is read back, and a FIFO in its
// place (no writer) blocked the open for good, deaf to Ctrl-C and SIGTERM
// (whsim ready, the image's health check, hung). Only a regular file is a
// ready file: refused at once, an error waiting will not change.
func TestCheckRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ready.url")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	_, err := Check(context.Background(), fifo)
	var nr *NotReady
	if err == nil || errors.As(err, &nr) || !strings.Contains(err.Error(), "not a regular file (a FIFO)") {
		t.Fatalf("Check error = %v (%T), want a non-NotReady error saying it is a FIFO", err, err)
	}
}
