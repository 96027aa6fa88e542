//go:build unix

package capture

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A capture file has one writer: a second File on it is refused while the
// first is open, readers are not held up, and the lock goes with the
// first's Close.
func TestSecondWriterIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calls.ndjson")
	first, _, err := OpenFile(path, SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	rec := &Record{Time: time.Unix(1, 0).UTC(), Method: "POST", Path: "/"}
	rec.SetBody([]byte(`{}`))
	if _, err := first.Write(rec); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if _, _, err := OpenFile(path, SyncNever); !errors.Is(err, ErrLocked) {
		t.Fatalf("a second OpenFile: %v, want ErrLocked", err)
	}
	if st2, _ := os.Stat(path); st2.Size() != st.Size() {
		t.Errorf("the refused writer changed the file: %d bytes, was %d", st2.Size(), st.Size())
	}
	// A reader reads while the writer holds the lock.
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := NewReader(fh).Next()
	fh.Close()
	if err != nil || got.Path != "/" {
		t.Fatalf("reading a locked capture: %v, %v", got, err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, _, err := OpenFile(path, SyncNever)
	if err != nil {
		t.Fatalf("OpenFile after the first closed: %v", err)
	}
	second.Close()
}
