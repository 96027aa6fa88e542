//go:build unix

package replaycmd

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestReopenFileLeavesAFIFO: a replay of a FIFO cut short counts nothing
// left in it (its rest cannot be read again), and must not open it again:
// with its writer gone the open blocked for good, deaf to Ctrl-C and
// SIGTERM, and the interrupted replay never ended.
func TestReopenFileLeavesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "calls.ndjson")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	if r, err := reopenFile(fifo); r != nil || err != nil {
		t.Errorf("reopenFile(FIFO) = %v, %v; want nothing to read again", r, err)
	}
}
