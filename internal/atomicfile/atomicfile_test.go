package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
