//go:build unix

package capture

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenAppendRefusesAFIFO: listen --capture naming a FIFO hung before
// it listened (the look at what the file held opened it for reading,
// which blocks until a writer comes, deaf to Ctrl-C). A capture is a file
// listen appends to, locks and fsyncs: anything else is refused at once.
func TestOpenAppendRefusesAFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "calls.ndjson")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	f, _, err := OpenAppend(context.Background(), fifo, SyncInterval)
	if err == nil {
		f.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "not a regular file (a FIFO)") {
		t.Errorf("OpenAppend(FIFO): %v, want a refusal saying it is a FIFO", err)
	}
}
