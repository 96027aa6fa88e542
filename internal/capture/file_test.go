package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestFileAppendsAfterTornLine(t *testing.T) {
	t.Parallel()
	for _, mode := range []Sync{SyncAlways, SyncInterval, SyncNever} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "c.ndjson")
			first := &Record{Time: time.Unix(1, 0).UTC(), Method: "POST", Path: "/", Query: "businessType=X"}
			first.SetBody([]byte(`{"a":1}`))
			whole, _ := Append(nil, first)
			// A crash mid-write leaves half a record without its newline.
			if err := os.WriteFile(path, append(whole, whole[:20]...), 0o644); err != nil {
				t.Fatal(err)
			}
			f, torn, err := OpenFile(path, mode)
			if err != nil || !torn {
				t.Fatalf("OpenFile: torn %v, err %v; want the torn line reported", torn, err)
			}
			second := &Record{Time: time.Unix(2, 0).UTC(), Method: "POST", Path: "/2"}
			second.SetBody([]byte{0xff})
			// After the whole record, the torn half and the newline that
			// ends it.
			if off, err := f.Write(second); err != nil || off != int64(len(whole)+20+1) {
				t.Fatalf("Write = %d, %v; want offset %d", off, err, len(whole)+21)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			fh, _ := os.Open(path)
			defer fh.Close()
			rd := NewReader(fh)
			var paths []string
			var torns []int
			for {
				r, err := rd.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				// The torn line, now terminated, is still the torn case
				// (a warning, skipped), not a bad line.
				var te *TornError
				if errors.As(err, &te) && te.Restarted {
					torns = append(torns, te.Line)
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				paths = append(paths, r.Path)
			}
			if strings.Join(paths, " ") != "/ /2" || len(torns) != 1 || torns[0] != 2 {
				t.Errorf("read %v with torn lines %v, want [/ /2] with line 2 torn", paths, torns)
			}
			// A clean file is not reported torn and gains no blank line:
			// the next record starts where the file ended.
			st, _ := os.Stat(path)
			f, torn, err = OpenFile(path, mode)
			if err != nil || torn {
				t.Fatalf("reopen: torn %v, err %v", torn, err)
			}
			if off, err := f.Write(second); err != nil || off != st.Size() {
				t.Errorf("Write after reopening = %d, %v; want offset %d", off, err, st.Size())
			}
			f.Close()
		})
	}
}

func TestFileCreatedPrivate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.ndjson")
	f, _, err := OpenFile(path, SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if _, _, err := OpenFile(path, "sometimes"); err == nil || !strings.Contains(err.Error(), `"sometimes"`) {
		t.Errorf("bad mode: %v", err)
	}
}

// Concurrent writers share writes (group commit): every record still lands
// whole, once, and each Write returns only after its own line is in the file.
func TestFileConcurrentWriters(t *testing.T) {
	t.Parallel()
	for _, mode := range []Sync{SyncAlways, SyncNever} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "c.ndjson")
			f, _, err := OpenFile(path, mode)
			if err != nil {
				t.Fatal(err)
			}
			const writers, each = 8, 100
			var wg sync.WaitGroup
			for w := range writers {
				wg.Go(func() {
					for i := range each {
						r := &Record{Time: time.Unix(1, 0).UTC(), Method: "POST", Path: fmt.Sprintf("/%d/%d", w, i)}
						r.SetBody(bytes.Repeat([]byte{'x'}, i*3))
						off, err := f.Write(r)
						if err != nil {
							t.Error(err)
							return
						}
						// Written means readable by anyone now, at the
						// offset Write said.
						b, err := os.ReadFile(path)
						if err != nil || off < 0 || off > int64(len(b)) {
							t.Errorf("%s: offset %d in %d bytes (%v)", r.Path, off, len(b), err)
							return
						}
						if got, err := NewReader(bytes.NewReader(b[off:])).Next(); err != nil || got.Path != r.Path {
							t.Errorf("%s not at offset %d once Write returned (%v)", r.Path, off, err)
							return
						}
					}
				})
			}
			wg.Wait()
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			fh, _ := os.Open(path)
			defer fh.Close()
			rd := NewReader(fh)
			seen := map[string]int{}
			for {
				r, err := rd.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				seen[r.Path]++
			}
			if len(seen) != writers*each {
				t.Errorf("%d distinct records, want %d", len(seen), writers*each)
			}
			for p, n := range seen {
				if n != 1 {
					t.Errorf("%s recorded %d times", p, n)
				}
			}
		})
	}
}

// A capture file deleted, replaced or moved away while open takes no more
// records: a record written to it would be acknowledged and lost.
func TestFileGoneFailsWrites(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		do   func(path string) error
	}{
		{"deleted", os.Remove},
		{"replaced", func(path string) error {
			other := path + ".new"
			if err := os.WriteFile(other, nil, 0o600); err != nil {
				return err
			}
			return os.Rename(other, path)
		}},
		{"moved away", func(path string) error { return os.Rename(path, path+".old") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "c.ndjson")
			f, _, err := OpenFile(path, SyncNever)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rec := &Record{Time: time.Unix(1, 0).UTC(), Method: "POST"}
			if _, err := f.Write(rec); err != nil {
				t.Fatal(err)
			}
			if err := tt.do(path); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * CheckEvery) // the next write checks
			for range 2 {
				if _, err := f.Write(rec); !errors.Is(err, ErrGone) {
					t.Errorf("write after the file was %s: %v, want ErrGone", tt.name, err)
				}
			}
			// The file moved away holds only what was acknowledged: a
			// refused record in it would claim the call was answered.
			if b, err := os.ReadFile(path + ".old"); err == nil {
				if n := bytes.Count(b, []byte("\n")); n != 1 {
					t.Errorf("the moved file holds %d records, want the 1 written before", n)
				}
			}
		})
	}
}

// A capture file listen creates is only safe from a crash once its name is
// on disk too: its directory is fsynced when the file is new (and records
// are to be fsynced), not when it already existed.
func TestOpenFileSyncsTheDirectoryOfANewFile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode   Sync
		exists bool
		want   bool
	}{
		{SyncAlways, false, true},
		{SyncInterval, false, true},
		{SyncNever, false, false},
		{SyncAlways, true, false},
		{SyncInterval, true, false},
	} {
		t.Run(fmt.Sprintf("%s/exists=%v", tc.mode, tc.exists), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "c.ndjson")
			if tc.exists {
				if err := os.WriteFile(path, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var synced []string
			f, _, err := openFile(path, tc.mode, func(d string) error {
				// The file is already there when its directory is synced.
				if _, err := os.Stat(path); err != nil {
					t.Errorf("directory synced before the file was created: %v", err)
				}
				synced = append(synced, d)
				return syncDir(d) // the real one works on a real directory
			})
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			var want []string
			if tc.want {
				want = []string{dir}
			}
			if fmt.Sprint(synced) != fmt.Sprint(want) {
				t.Errorf("directories synced: %q, want %q", synced, want)
			}
		})
	}
	// A failing directory fsync is the open's failure: --fsync always
	// must not acknowledge records in a file that may vanish.
	_, _, err := openFile(filepath.Join(t.TempDir(), "c.ndjson"), SyncAlways, func(string) error { return errors.New("EIO") })
	if err == nil || !strings.Contains(err.Error(), "syncing its directory: EIO") {
		t.Errorf("openFile with a failing directory fsync: %v, want the error", err)
	}
}

// A file deleted or moved away after its last look, with no write after
// it to notice: Close says it is gone, so that listen's stop does not call
// a capture whole whose path holds none of the calls it acknowledged (it
// printed "capture: c.ndjson" of a file that no longer was).
func TestCloseSaysTheFileIsGone(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		do   func(path string) error
		want error
	}{
		{"in place", func(string) error { return nil }, nil},
		{"deleted", os.Remove, ErrGone},
		{"moved away", func(path string) error { return os.Rename(path, path+".old") }, ErrGone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "c.ndjson")
			f, _, err := OpenFile(path, SyncNever)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(&Record{Time: time.Unix(1, 0).UTC(), Method: "POST"}); err != nil {
				t.Fatal(err)
			}
			if err := tt.do(path); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("Close after the file was %s: %v, want %v", tt.name, err, tt.want)
			}
		})
	}
}
