package capture

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCountRecords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"":                      0,
		"{}\n":                  1,
		"{}\n{}\n{}\n":          3,
		"{}\n{}\n{\"capture\":": 2, // a torn last line is no record
		"{}\n\n{}\n":            2, // nor is a blank one
		"{}\n \t\r\n{}\r\n":     2, // white space alone is a blank line; a CR ends a record as a space does
		// A torn line mid-file (a crash, then a listen restarted on the
		// file), even one cut after a '}' of its body or just after a
		// string's backslash, is no record; nor is a line that is no JSON
		// object, or one with bytes after its object.
		"{}\n{\"capture\":1,\"body\":\"{\\\"a\\\":{}\n{}\n":        2,
		"{}\n{\"capture\":1,\"body\":\"x\\\n{}\n":                  2,
		"{}\n{\"capture\":1,\"headers\":{\"A\":[\"}\"]}\n{}\n":     2,
		"{}\nthis is garbage\n[1]\n{}x\n{}}\n{}\n":                 2,
		"{\"capture\":1,\"body\":\"\\\"}{\\\\\",\"headers\":{}}\n": 1, // escapes read as escapes
	} {
		got, err := countRecords(context.Background(), strings.NewReader(in))
		if err != nil || got != want {
			t.Errorf("CountRecords(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := countRecords(ctx, strings.NewReader(strings.Repeat("{}\n", 1<<20))); err == nil {
		t.Error("CountRecords ignores a cancelled context")
	}
}

// A record longer than the block countRecords reads is followed across
// blocks, an escape split by their boundary too (the body's \" pairs
// start at an odd offset, the block ends at an even one): whole, it is a
// record; cut short, it is not.
func TestCountRecordsAcrossBlocks(t *testing.T) {
	t.Parallel()
	rec := `{"capture":1,"body":"` + strings.Repeat(`\"`, 1<<20) + `"}`
	for in, want := range map[string]int64{
		rec + "\n{}\n":                   2,
		rec[:len(rec)-2] + "\n{}\n":      1,
		rec[:len(rec)-3] + "\n{}\n":      1,
		"{}\n" + rec + "\n" + rec + "\n": 3,
	} {
		if got, err := countRecords(context.Background(), strings.NewReader(in)); err != nil || got != want {
			t.Errorf("CountRecords(a %d-byte input ending %q) = %d, %v; want %d", len(in), in[len(in)-12:], got, err, want)
		}
	}
}

// HeldRecords counts an existing capture's records, and says nothing of a
// new, empty or unreadable one or of something that is not a file.
func TestHeldRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	held := filepath.Join(dir, "held.ndjson")
	empty := filepath.Join(dir, "empty.ndjson")
	if err := os.WriteFile(held, []byte("{}\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		n    int64
		ok   bool
	}{
		{held, 2, true},
		{empty, 0, false},
		{filepath.Join(dir, "new.ndjson"), 0, false},
		{dir, 0, false},
	} {
		if n, ok := heldRecords(context.Background(), tt.path); n != tt.n || ok != tt.ok {
			t.Errorf("HeldRecords(%s) = %d, %v; want %d, %v", filepath.Base(tt.path), n, ok, tt.n, tt.ok)
		}
	}
}

// OpenAppend says what the file held before the run: its records, and
// whether it ended torn.
func TestOpenAppend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		name, held string
		want       Appending
	}{
		{"new.ndjson", "", Appending{}},
		{"held.ndjson", "{\"capture\":1}\n{\"capture\":1}\n", Appending{Records: 2, Counted: true}},
		// A torn line is no record: readers skip it.
		{"torn.ndjson", "{\"capture\":1}\n{\"ca", Appending{Records: 1, Counted: true, Torn: true}},
		{"torn-first.ndjson", "{\"capture\":1,\"ti", Appending{Records: 0, Counted: true, Torn: true}},
		// A whole record without its newline (an editor dropped it) is
		// one, and no torn line.
		{"unended.ndjson", "{\"capture\":1}\n{\"capture\":1}", Appending{Records: 2, Counted: true}},
		{"blank.ndjson", "\n\n", Appending{Records: 0, Counted: true}},
	} {
		path := filepath.Join(dir, tt.name)
		if tt.held != "" {
			if err := os.WriteFile(path, []byte(tt.held), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		f, got, err := OpenAppend(context.Background(), path, SyncNever)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if _, _, err := OpenAppend(context.Background(), filepath.Join(dir, "missing", "x.ndjson"), SyncNever); err == nil {
		t.Error("OpenAppend made a file in a missing directory")
	}
}

// A file that holds payloads or is not JSON at all (a typo: --capture
// receipt.json) is refused before anything is written to it: appended
// records would mix two kinds in it, and its lines are no records to
// count.
func TestOpenAppendRefusesWhatIsNoCapture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct{ name, held, want string }{
		{"payload.json", `{"requestId":"r","businessType":5007,"data":{}}`, "holds payloads, not capture records"},
		{"pretty.json", "{\n  \"requestId\": \"r\",\n  \"businessType\": 5007\n}\n", "holds payloads, not capture records"},
		{"payloads.ndjson", "{\"businessType\":5007}\n{\"businessType\":5009}\n", "holds payloads, not capture records"},
		{"notes.txt", "hello world\n", "notes.txt"},
	} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.held), 0o600); err != nil {
			t.Fatal(err)
		}
		f, _, err := OpenAppend(context.Background(), path, SyncNever)
		if err == nil {
			f.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error saying %q", tt.name, err, tt.want)
		}
		if b, _ := os.ReadFile(path); string(b) != tt.held {
			t.Errorf("%s: changed to %q", tt.name, b)
		}
	}
}

// lastLineStart finds the last line however long it is: reading backwards
// a block at a time, across blocks.
func TestLastLineStart(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 150<<10)
	for _, tt := range []struct {
		name, content string
		want          int64
	}{
		{"one line", "abc", 0},
		{"two lines", "ab\ncd", 3},
		{"ends in a newline", "ab\n", 3},
		{"last line over a block", "ab\n" + long, 3},
		{"newline a block back", long + "\n" + long, int64(len(long)) + 1},
	} {
		path := filepath.Join(t.TempDir(), "c.ndjson")
		if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := lastLineStart(f, int64(len(tt.content)))
		f.Close()
		if err != nil || got != tt.want {
			t.Errorf("%s: %d, %v; want %d", tt.name, got, err, tt.want)
		}
	}
}
