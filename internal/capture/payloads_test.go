package capture

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHoldsPayloads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for content, want := range map[string]bool{
		"\n  {\"requestId\":\"r\"}\n":          true,
		"[{}]":                                 true,
		`{"capture":1,"method":"POST"}` + "\n": false,
		"":                                     false,
		"hello\n":                              false,
	} {
		name := filepath.Join(dir, "f")
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := HoldsPayloads(f)
		f.Close()
		if err != nil || got != want {
			t.Errorf("HoldsPayloads(%q) = %v, %v; want %v", content, got, err, want)
		}
	}
}
