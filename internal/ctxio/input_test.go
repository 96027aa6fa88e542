package ctxio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// "-" is stdin; a directory or a missing file is an error naming the file.
func TestReadInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.json")
	if err := os.WriteFile(file, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, shown, body, err string }{
		{name: "-", shown: StdinName, body: "from stdin"},
		{name: file, shown: file, body: "{}"},
		{name: dir, shown: dir, err: "read " + dir + ": is a directory"},
		{name: filepath.Join(dir, "nope"), shown: filepath.Join(dir, "nope"), err: "open " + filepath.Join(dir, "nope") + ": no such file"},
	}
	for _, tt := range tests {
		body, err := ReadInput(context.Background(), tt.name, strings.NewReader("from stdin"))
		if string(body) != tt.body || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("ReadInput(%q) = %q, %v; want %q, %s", tt.name, body, err, tt.body, tt.err)
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
