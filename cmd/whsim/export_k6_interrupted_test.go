package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// export k6 --out DIR stopped by Ctrl-C while it writes leaves the files
// an earlier export wrote there as they were, and exits 130: it went on
// through the signal, replacing them, and exited 0; a full disk or a kill
// left data.json cut short beside a script.js that loads it. The signal
// goes once export is seen writing (its bytes reach the disk).
func TestExportK6InterruptedLeavesTheFiles(t *testing.T) {
	dir := t.TempDir()
	earlier := map[string]string{"script.js": "EARLIER script\n", "data.json": "EARLIER data\n", "testrun.yaml": "EARLIER testrun\n"}
	for name, text := range earlier {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// 100,000 calls: some 170 MB of data, seconds of writing.
	cmd := exec.Command("whsim", "export", "k6", "--url", "http://127.0.0.1:9/hook", "--event", "all", "--count", "25000", "--out", dir)
	interruptWhileWriting(t, cmd, dir)
	for name, text := range earlier {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != text {
			t.Errorf("%s holds %d bytes starting %q, want the earlier file", name, len(b), b[:min(len(b), 40)])
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".whsim-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
