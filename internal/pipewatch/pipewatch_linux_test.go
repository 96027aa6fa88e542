package pipewatch

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReaderGone: the channel closes once the pipe's reader is closed, as
// head -1 closes it, with nothing written after; a file that is no pipe
// is never watched.
func TestReaderGone(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	gone := ReaderGone(t.Context(), w)
	if gone == nil {
		t.Fatal("a pipe's write end is not watched")
	}
	select {
	case <-gone:
		t.Fatal("gone while the reader is still open")
	default:
	}
	r.Close()
	<-gone // waits for the event; the test's own timeout bounds a hang

	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if ReaderGone(t.Context(), f) != nil {
		t.Error("a regular file is watched")
	}
}
