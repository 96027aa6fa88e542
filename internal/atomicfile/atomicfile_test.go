package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
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
