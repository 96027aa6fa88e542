//go:build unix

package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A path that is a link, a FIFO or a device is written through, never
// replaced by a regular file: --junit /dev/stdout, run as root, once turned
// /dev/stdout into a file, and --report /dev/full said "report written"
// and exited 0 (the rename replaced the device).
func TestWriteThrough(t *testing.T) {
	write := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	t.Run("link", func(t *testing.T) {
		dir := t.TempDir()
		target, link := filepath.Join(dir, "target.txt"), filepath.Join(dir, "link.txt")
		if err := os.WriteFile(target, []byte("old content, longer than the new"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if err := Write(link, 0o600, write); err != nil {
			t.Fatalf("Write = %v", err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
		}
		if b, _ := os.ReadFile(target); string(b) != "new" {
			t.Errorf("the link's target holds %q, want %q", b, "new")
		}
	})
	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "out.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no FIFO here:", err)
		}
		// A reader that does not block opening: Write's open then finds
		// it, and "new" fits in the pipe's buffer.
		r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if err := Write(fifo, 0o600, write); err != nil {
			t.Fatalf("Write = %v", err)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err)
		}
		b := make([]byte, 16)
		if n, _ := r.Read(b); string(b[:n]) != "new" {
			t.Errorf("the FIFO's reader got %q, want %q", b[:n], "new")
		}
	})
}
