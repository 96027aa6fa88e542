package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWrite(t *testing.T) {
	errWrite := errors.New("write failed")
	tests := []struct {
		name    string
		old     string // the file's content before, "" for none
		perm    os.FileMode
		write   func(io.Writer) error
		want    string // the content after
		wantErr error
	}{
		{name: "new file", perm: 0o600, want: "hello\n",
			write: func(w io.Writer) error { _, err := io.WriteString(w, "hello\n"); return err }},
		{name: "replaces", old: "old", perm: 0o644, want: "new",
			write: func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }},
		{name: "failure keeps the old file", old: "old", perm: 0o644, want: "old", wantErr: errWrite,
			write: func(w io.Writer) error { io.WriteString(w, "half"); return errWrite }},
		{name: "failure leaves no file", perm: 0o644, wantErr: errWrite,
			write: func(io.Writer) error { return errWrite }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.txt")
			if tt.old != "" {
				if err := os.WriteFile(path, []byte(tt.old), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := Write(path, tt.perm, tt.write)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Write = %v, want %v", err, tt.wantErr)
			}
			b, rerr := os.ReadFile(path)
			switch {
			case tt.want == "" && !errors.Is(rerr, os.ErrNotExist):
				t.Errorf("file exists (%q, %v), want none", b, rerr)
			case tt.want != "" && string(b) != tt.want:
				t.Errorf("file holds %q (%v), want %q", b, rerr, tt.want)
			}
			if err == nil {
				if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != tt.perm {
					t.Errorf("mode %v (%v), want %v", fi.Mode().Perm(), err, tt.perm)
				}
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != "out.txt" {
					t.Errorf("left behind: %s", e.Name())
				}
			}
		})
	}
}

func TestWriteMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "out.txt")
	called := false
	err := Write(path, 0o644, func(io.Writer) error { called = true; return nil })
	if !errors.Is(err, os.ErrNotExist) || called {
		t.Fatalf("Write = %v (write called: %v), want a not-exist error before writing", err, called)
	}
}

// An error names the file the caller gave, never the temporary file it
// never named ("--report: open dir/.whsim-3788329656.tmp: permission
// denied"), wherever the write wrapped it.
func TestWriteErrorNamesThePath(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		path  string
		write func(io.Writer) error
		want  string
	}{
		{"no directory", filepath.Join(dir, "missing", "out.txt"), func(io.Writer) error { return nil },
			"open " + filepath.Join(dir, "missing", "out.txt") + ": "},
		{"a write that fails", filepath.Join(dir, "out.txt"), func(w io.Writer) error {
			// As a full disk fails it, seen through what Write passes.
			w.(namedWriter).f.Close()
			_, err := w.Write([]byte("x"))
			return fmt.Errorf("input.ndjson: %w", err)
		}, "input.ndjson: write " + filepath.Join(dir, "out.txt") + ": "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Write(tt.path, 0o600, tt.write)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), ".whsim-") {
				t.Errorf("Write = %v, want an error starting %q", err, tt.want)
			}
		})
	}
}

// WriteAll renames none of its files into place before every one is
// written: a failure part way, or a directory where one goes, leaves each
// earlier file as it was and no temporary file behind.
func TestWriteAll(t *testing.T) {
	errWrite := errors.New("write failed")
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	tests := []struct {
		name    string
		dirAt   string // a directory made in the place of this file
		writes  map[string]func(io.Writer) error
		want    map[string]string // each file's content after
		wantErr error
	}{
		{name: "every file written",
			writes: map[string]func(io.Writer) error{"a": text("new a"), "b": text("new b"), "c": text("new c")},
			want:   map[string]string{"a": "new a", "b": "new b", "c": "new c"}},
		{name: "a failure part way leaves every file", wantErr: errWrite,
			writes: map[string]func(io.Writer) error{"a": text("new a"),
				"b": func(w io.Writer) error { io.WriteString(w, "half"); return errWrite }, "c": text("new c")},
			want: map[string]string{"a": "old a", "b": "old b", "c": "old c"}},
		{name: "a directory in a file's place is refused first", dirAt: "c", wantErr: syscall.EISDIR,
			writes: map[string]func(io.Writer) error{"a": text("new a"), "b": text("new b"), "c": text("new c")},
			want:   map[string]string{"a": "old a", "b": "old b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var files []File
			for _, name := range []string{"a", "b", "c"} {
				path := filepath.Join(dir, name)
				var err error
				if name == tt.dirAt {
					err = os.Mkdir(path, 0o755)
				} else {
					err = os.WriteFile(path, []byte("old "+name), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, File{Path: path, Perm: 0o644, Write: tt.writes[name]})
			}
			if err := WriteAll(files); !errors.Is(err, tt.wantErr) {
				t.Fatalf("WriteAll = %v, want %v", err, tt.wantErr)
			}
			for name, want := range tt.want {
				if b, err := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
					t.Errorf("%s holds %q (%v), want %q", name, b, err, want)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".whsim-*")); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}
