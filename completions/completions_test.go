package completions

import (
	"bytes"
	"os"
	"testing"

	"github.com/whsim/whsim/internal/cli"
)

// TestScriptsUpToDate fails when a committed script differs from what the
// current command tree prints, so that the release never ships stale ones.
func TestScriptsUpToDate(t *testing.T) {
	for _, s := range Scripts() {
		t.Run(s.Shell, func(t *testing.T) {
			want, err := cli.CompletionScript(s.Shell)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(want, []byte("__complete")) {
				t.Fatalf("whsim completion %s printed no script:\n%s", s.Shell, want)
			}
			got, err := os.ReadFile(s.File)
			if err != nil {
				t.Fatalf("%v: run `go generate ./completions`", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("completions/%s is stale: it differs from `whsim completion %s`; run `go generate ./completions` and commit the result", s.File, s.Shell)
			}
		})
	}
}
