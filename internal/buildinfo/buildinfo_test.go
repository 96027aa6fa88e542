package buildinfo

import (
	"strings"
	"testing"
)

// TestVersionFromSource: without -ldflags a build says dev (tests are built
// from source) and still names the Go version and platform.
func TestVersionFromSource(t *testing.T) {
	s := Build{}.String()
	if !strings.HasPrefix(s, "whsim dev (commit ") || !strings.Contains(s, " go1.") {
		t.Errorf("Build{}.String() = %q", s)
	}
	if s := (Build{Version: "v1.0.0"}).String(); !strings.HasPrefix(s, "whsim v1.0.0 (commit unknown, built unknown, go") {
		t.Errorf("partial ldflags: %q", s)
	}
}

func TestIsPseudoVersion(t *testing.T) {
	for v, want := range map[string]bool{
		"v0.0.0-20261122042457-1fb8174eae78":        true,
		"v0.0.0-20261122042457-1fb8174eae78+dirty":  true,
		"v1.2.4-0.20261122042457-1fb8174eae78":      true,
		"v1.2.4-rc.1.0.20261122042457-1fb8174eae78": true,
		"v1.2.3":        false,
		"v1.2.3+dirty":  false,
		"v1.2.3-rc.1":   false,
		"v1.2.3-beta-2": false,
		"(devel)":       false,
	} {
		if got := isPseudoVersion(v); got != want {
			t.Errorf("isPseudoVersion(%q) = %v, want %v", v, got, want)
		}
	}
}
