package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// "-" is stdin, named <stdin>; a directory or a missing file is an error
// naming the file.
func TestReadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "p.json")
	os.WriteFile(file, []byte("{}"), 0o600)
	a := newApp(Streams{In: strings.NewReader("from stdin")}, Build{}, time.Now)
	tests := []struct{ name, shown, body, err string }{
		{name: "-", shown: stdinName, body: "from stdin"},
		{name: file, shown: file, body: "{}"},
		{name: dir, shown: dir, err: "read " + dir + ": is a directory"},
		{name: filepath.Join(dir, "nope"), shown: filepath.Join(dir, "nope"), err: "no such file"},
	}
	for _, tt := range tests {
		shown, body, err := a.readInput(context.Background(), tt.name)
		if shown != tt.shown || string(body) != tt.body || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("readInput(%q) = %q, %q, %v; want %q, %q, %s", tt.name, shown, body, err, tt.shown, tt.body, tt.err)
		}
	}
}
