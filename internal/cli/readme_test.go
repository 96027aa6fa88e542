package cli

import (
	"os"
	"strings"
	"testing"
)

// readmeMaxLines is the README's bound: a user's tour, under 400 lines
// (#31). The reference, the concepts and the measurements live in docs/,
// which the README points at; a section added to it is paid for by moving
// detail there.
const readmeMaxLines = 400

// The README stays a tour a user reads through: under readmeMaxLines
// lines, its quick start the first section. It grew past the bound once
// unnoticed (409 lines), as nothing measured it.
func TestReadmeIsAShortTour(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n >= readmeMaxLines {
		t.Errorf("README.md has %d lines, want under %d: move detail to docs/ and point at it", n, readmeMaxLines)
	}
	for _, line := range strings.Split(readme, "\n") {
		if name, ok := strings.CutPrefix(line, "## "); ok {
			if name != "Quick start" {
				t.Errorf("README.md's first section is %q, want the user's Quick start", name)
			}
			return
		}
	}
	t.Error("README.md has no ## section")
}
