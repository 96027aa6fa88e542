package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// generate --out FILE stopped by Ctrl-C (exit 130) leaves FILE as it was:
// it left the payloads made by then in its place (with -o json an array
// never closed), which a later send --file took as the whole set. The
// signal goes once generate is seen writing (its bytes reach the disk).
func TestGenerateOutInterruptedLeavesTheFile(t *testing.T) {
	for _, format := range []string{"ndjson", "json"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "load."+format)
			const earlier = "EARLIER RUN\n"
			if err := os.WriteFile(out, []byte(earlier), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("whsim", "generate", "--event", "all", "--count", "1000000", "--out", out)
			errs := interruptWhileWriting(t, cmd, dir)
			if b, _ := os.ReadFile(out); string(b) != earlier {
				t.Errorf("--out holds %d bytes starting %q, want the earlier file", len(b), b[:min(len(b), 40)])
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".whsim-*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
			if s := errs.text(); strings.Contains(s, "wrote ") {
				t.Errorf("stderr says it wrote the file:\n%s", s)
			}
		})
	}
}

// interruptWhileWriting starts cmd, sends it SIGINT once it is seen
// writing in dir (generateWriting: a poll for the event, its bound only
// against a hang) and checks that it exits 130; its stderr is returned.
func interruptWhileWriting(t *testing.T, cmd *exec.Cmd, dir string) *stderrLines {
	t.Helper()
	errs := startWithStderr(t, cmd)
	for deadline := time.Now().Add(time.Minute); !generateWriting(dir); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s was not seen writing:\n%s", cmd.Args[1], errs.text())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := errs.exited(t, cmd, time.Minute)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit %v, want 130", err)
	}
	return errs
}

// generateWriting says whether a file in dir other than the earlier one has
// grown past 64 KiB, or the earlier one has: generate is under way.
func generateWriting(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Size() > 64<<10 {
			return true
		}
	}
	return false
}
