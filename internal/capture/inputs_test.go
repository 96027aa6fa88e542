package capture

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestOpenInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	capt := write("capture.ndjson", `{"capture":1,"method":"POST"}`+"\n")
	plain := write("payloads.ndjson", `{"requestId":"r"}`+"\n")
	missing := filepath.Join(dir, "missing.ndjson")
	ins, closeAll, err := OpenInputs(context.Background(), []string{capt, capt, "-"}, strings.NewReader(""))
	if err != nil || len(ins) != 3 || ins[1].Name != capt || ins[2].Name != "<stdin>" {
		t.Fatalf("two captures and stdin: %v, %+v", err, ins)
	}
	closeAll()
	for _, in := range ins[:2] {
		if _, err := in.R.(*os.File).Stat(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s left open", in.Name)
		}
	}

	var pe *PayloadsError
	if _, _, err := OpenInputs(context.Background(), []string{capt, plain}, nil); !errors.As(err, &pe) || pe.Name != plain {
		t.Errorf("payloads: %v, want a *PayloadsError naming %s", err, plain)
	}
	_, _, err = OpenInputs(context.Background(), []string{capt, missing}, nil)
	if !errors.Is(err, os.ErrNotExist) || errors.As(err, &pe) || err.Error() != missing+": no such file or directory" {
		t.Errorf("missing file: %v, want it named once", err)
	}
}

// TestOpenInputsStopsWhereTheFileEnded: records appended after a capture
// was opened, as a listen that a replay feeds appends them, are not read,
// so replaying into the listen that writes the file ends.
func TestOpenInputsStopsWhereTheFileEnded(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "capture.ndjson")
	rec := `{"capture":1,"method":"POST","body":"{}","bodyEncoding":"utf8"}` + "\n"
	if err := os.WriteFile(p, []byte(rec+rec), 0o600); err != nil {
		t.Fatal(err)
	}
	ins, closeAll, err := OpenInputs(context.Background(), []string{p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(rec + rec + rec); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rd := ins[0].Reader()
	n := 0
	for {
		_, err := rd.Next()
		if err != nil {
			break
		}
		n++
	}
	if n != 2 {
		t.Errorf("read %d records, want the 2 the file held when opened", n)
	}
}

// heldWhenOpened reads a file as far as it was long, and one that says 0
// bytes (a file of /proc or /sys) to its end, its read error returned:
// read as empty, replay said "is empty" of files that hold text or cannot
// be read at all.
func TestHeldWhenOpened(t *testing.T) {
	t.Parallel()
	errRead := errors.New("input/output error")
	tests := []struct {
		name    string
		size    int64
		r       io.Reader
		want    string
		wantErr error
	}{
		{name: "as far as it was long", size: 3, r: strings.NewReader("abcdef"), want: "abc"},
		{name: "says 0 bytes, holds some", size: 0, r: strings.NewReader("Name:\twhsim\n"), want: "Name:\twhsim\n"},
		{name: "says 0 bytes, truly empty", size: 0, r: strings.NewReader(""), want: ""},
		{name: "says 0 bytes, cannot be read", size: 0, r: iotest.ErrReader(errRead), wantErr: errRead},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			held, err := heldWhenOpened(tt.r, sized(tt.size))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("heldWhenOpened = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if b, err := io.ReadAll(held); err != nil || string(b) != tt.want {
				t.Errorf("read %q (%v), want %q", b, err, tt.want)
			}
		})
	}
}

// sized is a regular file's stat of size bytes.
type sized int64

func (s sized) Name() string       { return "f" }
func (s sized) Size() int64        { return int64(s) }
func (s sized) Mode() os.FileMode  { return 0o644 }
func (s sized) ModTime() time.Time { return time.Time{} }
func (s sized) IsDir() bool        { return false }
func (s sized) Sys() any           { return nil }
