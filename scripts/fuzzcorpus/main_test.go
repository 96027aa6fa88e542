package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestParseCorpusFile(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantBody string
		wantArg  any
		wantErr  bool
	}{
		{"bytes and event", "go test fuzz v1\n[]byte(\"{\\\"a\\\":\\\"\\\\\\x1b\\\"}\")\nstring(\"CREATE_RECEIVABLE_DOC\")\n", "{\"a\":\"\\\x1b\"}", "CREATE_RECEIVABLE_DOC", false},
		{"unicode and empty event", "go test fuzz v1\n[]byte(\"{\\\"ן\\\":0\")\nstring(\"\")\n", "{\"ן\":0", "", false},
		{"int and bool", "go test fuzz v1\n[]byte(\"[1]\")\nint(64)\nbool(false)\n", "[1]", "64", false},
		{"negative int", "go test fuzz v1\n[]byte(\"x\")\nint(-3)\n", "x", "-3", false},
		{"string first", "go test fuzz v1\nstring(\"\\ufeff{}\")\n", "\ufeff{}", nil, false},
		{"no header", "[]byte(\"x\")\n", "", nil, true},
		{"not a literal", "go test fuzz v1\n[]byte(x)\n", "", nil, true},
		{"no values", "go test fuzz v1\n", "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			values, err := parseCorpusFile([]byte(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("parsed %q, want an error", values)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := values[0].([]byte); !bytes.Equal(got, []byte(tt.wantBody)) {
				t.Errorf("body %q, want %q", got, tt.wantBody)
			}
			if tt.wantArg == nil {
				if len(values) != 1 {
					t.Errorf("values %q, want one", values)
				}
				return
			}
			if values[1] != tt.wantArg {
				t.Errorf("second value %#v, want %#v", values[1], tt.wantArg)
			}
		})
	}
}

// TestRunOnTheRepositoryCorpus writes validate's own FuzzCheck corpus: every
// file becomes one input and one manifest line, sorted.
func TestRunOnTheRepositoryCorpus(t *testing.T) {
	corpus := filepath.Join("..", "..", "internal", "validate", "testdata", "fuzz", "FuzzCheck")
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var manifest bytes.Buffer
	if err := run(corpus, out, &manifest); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(manifest.Bytes(), []byte("\n")), []byte("\n"))
	if len(lines) != len(entries) {
		t.Fatalf("%d manifest lines for %d corpus files", len(lines), len(entries))
	}
	for i := 1; i < len(lines); i++ {
		if bytes.Compare(lines[i-1], lines[i]) >= 0 {
			t.Fatalf("manifest not sorted at line %d: %q after %q", i+1, lines[i], lines[i-1])
		}
	}
	for _, name := range lines {
		if _, err := os.Stat(filepath.Join(out, string(name))); err != nil {
			t.Errorf("no input written for %s: %v", name, err)
		}
	}
}
