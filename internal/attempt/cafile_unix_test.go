//go:build unix

package attempt

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCAFileNotARegularFile: --cacert naming a FIFO blocked the open for
// good, deaf to Ctrl-C and SIGTERM; a device (/dev/zero) would be read
// without end. Only a regular file is a CA file: refused at once.
func TestCAFileNotARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ca.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	for name, want := range map[string]string{fifo: "not a regular file (a FIFO)", "/dev/zero": "not a regular file (a device)"} {
		_, err := newTestClient(ClientOptions{CAFile: name})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
	}
}
