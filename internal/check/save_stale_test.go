package check

import (
	"os"
	"path/filepath"
	"testing"
)

// RemoveStaleResults removes an earlier run's results file, and a link
// planted in its place (never what the link points to); nothing there, or
// a directory of that name, is no error and is left as it is.
func TestRemoveStaleResults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		make func(t *testing.T, dir string) // what is in dir before
		gone bool                           // ResultsFile is gone after
	}{
		{"a file", func(t *testing.T, dir string) { writeStale(t, filepath.Join(dir, ResultsFile)) }, true},
		{"nothing", func(*testing.T, string) {}, true},
		{"a link", func(t *testing.T, dir string) {
			writeStale(t, filepath.Join(dir, "target"))
			if err := os.Symlink("target", filepath.Join(dir, ResultsFile)); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"a directory", func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, ResultsFile, "x"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.make(t, dir)
			if err := RemoveStaleResults(dir); err != nil {
				t.Fatal(err)
			}
			_, err := os.Lstat(filepath.Join(dir, ResultsFile))
			if gone := os.IsNotExist(err); gone != tc.gone {
				t.Errorf("gone %v (%v), want %v", gone, err, tc.gone)
			}
			if tc.name == "a link" {
				if _, err := os.Stat(filepath.Join(dir, "target")); err != nil {
					t.Errorf("the link's target: %v", err)
				}
			}
		})
	}
	if err := RemoveStaleResults(filepath.Join(t.TempDir(), "no such dir")); err != nil {
		t.Errorf("no directory: %v", err)
	}
}

func writeStale(t *testing.T, name string) {
	t.Helper()
	if err := os.WriteFile(name, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}
