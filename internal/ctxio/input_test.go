package ctxio

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// "-" is stdin; a directory or a missing file is an error naming the file.
func TestOpenInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.json")
	if err := os.WriteFile(file, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, shown, body, err string }{
		{name: "-", shown: stdinName, body: "from stdin"},
		{name: file, shown: file, body: "{}"},
		{name: dir, shown: dir, err: dir + ": is a directory"},
		{name: filepath.Join(dir, "nope"), shown: filepath.Join(dir, "nope"), err: filepath.Join(dir, "nope") + ": no such file"},
	}
	for _, tt := range tests {
		var body []byte
		r, err := OpenInput(context.Background(), tt.name, strings.NewReader("from stdin"))
		if err == nil {
			body, err = io.ReadAll(r)
			r.Close()
		}
		if string(body) != tt.body || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("OpenInput(%q) = %q, %v; want %q, %s", tt.name, body, err, tt.body, tt.err)
		}
		if got := InputName(tt.name); got != tt.shown {
			t.Errorf("InputName(%q) = %q, want %q", tt.name, got, tt.shown)
		}
	}
}

// A cancelled run reports the cancellation, not the open's error.
func TestOpenInputCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := OpenInput(ctx, filepath.Join(t.TempDir(), "nope"), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("OpenInput = %v, want context.Canceled", err)
	}
}

// OpenAll opens all or none: on a missing input the ones opened are closed
// and the error names the missing one once.
func TestOpenAll(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	rs, err := OpenAll(context.Background(), []string{good, "-"}, strings.NewReader("in"))
	if err != nil || len(rs) != 2 {
		t.Fatalf("OpenAll = %d, %v", len(rs), err)
	}
	if b, _ := io.ReadAll(rs[1]); string(b) != "in" {
		t.Errorf("stdin read %q", b)
	}
	missing := filepath.Join(dir, "missing")
	rs, err = OpenAll(context.Background(), []string{good, missing}, nil)
	if rs != nil || !errors.Is(err, os.ErrNotExist) || err.Error() != missing+": no such file or directory" {
		t.Errorf("OpenAll(missing) = %v, %v", rs, err)
	}
}
