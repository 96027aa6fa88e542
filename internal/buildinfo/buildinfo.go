// Package buildinfo says which whsim a binary is: its version, commit and
// build date, from -ldflags or else from what the go command stamped.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Build describes the binary; release builds set it through -ldflags.
type Build struct {
	Version, Commit, Date string
}

// String is the text of --version and of `whsim version`: the one place a
// build is formatted as text.
func (b Build) String() string {
	i := b.Resolve()
	commit := i.Commit
	if i.Modified {
		commit += "+dirty"
	}
	return fmt.Sprintf("whsim %s (commit %s, built %s, %s %s/%s)", i.Version, commit, i.Date,
		i.Go, i.OS, i.Arch)
}

// Info is a Build completed from what the binary knows about itself;
// `whsim version --output json` prints it.
type Info struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Date     string `json:"date"`
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// Resolve fills in what the linker did not set. A release build has all
// three from -ldflags. `go install ...@v1.2.3` has none, but the module
// version is in the build info. A build from a clone is "dev", with the
// commit and its time when the go command stamped them (-buildvcs); since
// Go 1.24 it also stamps a pseudo-version from the commit, which says no
// more than the commit does and would read like a release.
func (b Build) Resolve() Info {
	i := Info{Version: b.Version, Commit: b.Commit, Date: b.Date,
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if i.Version == "" {
		i.Version = "dev"
		if info, ok := debug.ReadBuildInfo(); ok {
			fromClone := false
			for _, s := range info.Settings {
				switch {
				case s.Key == "vcs.revision":
					fromClone = true
					if i.Commit == "" {
						i.Commit = s.Value
					}
				case s.Key == "vcs.time" && i.Date == "":
					i.Date = s.Value
				case s.Key == "vcs.modified":
					i.Modified = s.Value == "true"
				}
			}
			if v := info.Main.Version; v != "" && v != "(devel)" && !(fromClone && isPseudoVersion(v)) {
				i.Version = v
			}
		}
	}
	if i.Commit == "" {
		i.Commit = "unknown"
	}
	if i.Date == "" {
		i.Date = "unknown"
	}
	return i
}

// isPseudoVersion reports whether v is a Go pseudo-version
// (v0.0.0-20261122042457-1fb8174eae78, v1.2.4-0.2026…-…, optionally +dirty):
// its last two dash-separated parts are a 14-digit time and a 12-digit hash.
func isPseudoVersion(v string) bool {
	v, _, _ = strings.Cut(v, "+")
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return false
	}
	hash, stamp := parts[len(parts)-1], parts[len(parts)-2]
	if len(stamp) < 14 || len(hash) != 12 {
		return false
	}
	stamp = stamp[len(stamp)-14:]
	return strings.Trim(stamp, "0123456789") == "" && strings.Trim(hash, "0123456789abcdef") == ""
}
