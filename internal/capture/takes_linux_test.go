package capture

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenFileRefusesProcFiles: a file of /proc opens for writing and says
// it is a regular file, but takes no record; OpenFile refuses it before
// writing a byte, where a listen found it out only at its first call. A
// file on a disk is taken.
func TestOpenFileRefusesProcFiles(t *testing.T) {
	before, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, tc := range []struct {
		path   string
		refuse bool
		why    string // in the refusal; "" for any
	}{
		// Its owner may open it for writing, root or not.
		{"/proc/self/comm", true, "listen cannot append to it and fsync it (fsync: "},
		// Root opens it for writing; any other user's open is refused.
		{"/proc/version", true, ""},
		{filepath.Join(t.TempDir(), "calls.ndjson"), false, ""},
	} {
		f, _, err := OpenFile(tc.path, SyncNever)
		if f != nil {
			f.Close()
		}
		switch {
		case tc.refuse && (err == nil || !strings.Contains(err.Error(), tc.why)):
			t.Errorf("OpenFile(%s) = %v; want it refused (%q)", tc.path, err, tc.why)
		case !tc.refuse && err != nil:
			t.Errorf("OpenFile(%s) = %v; want it taken", tc.path, err)
		}
	}
	if after, _ := os.ReadFile("/proc/self/comm"); string(after) != string(before) {
		t.Errorf("/proc/self/comm was %q, now %q: OpenFile wrote to it", before, after)
	}
}
