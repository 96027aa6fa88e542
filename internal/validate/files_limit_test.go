//go:build unix

package validate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fdChildEnv names the directory the child run of
// TestThreeHundredInputsUnderADescriptorLimit validates.
const fdChildEnv = "WHSIM_TEST_FD_LIMIT_DIR"

// validate opens its inputs one at a time: 300 files pass under a limit
// of 256 open descriptors. The limit is lowered in a child process (this
// test binary run again), never in the process running the other tests.
func TestThreeHundredInputsUnderADescriptorLimit(t *testing.T) {
	if dir := os.Getenv(fdChildEnv); dir != "" {
		validateUnderLimit(t, dir)
		return
	}
	dir := t.TempDir()
	for i := range 300 {
		body := fmt.Sprintf(`{"requestId":"r%d","businessType":5007,"data":{}}`, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%03d.json", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestThreeHundredInputsUnderADescriptorLimit$", "-test.v")
	cmd.Env = append(os.Environ(), fdChildEnv+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "checked 300 inputs") {
		t.Fatalf("the child under a 256-descriptor limit: %v\n%s", err, out)
	}
}

func validateUnderLimit(t *testing.T, dir string) {
	lim := syscall.Rlimit{Cur: 256, Max: 256}
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &cur); err == nil && cur.Max < lim.Max {
		lim = cur
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("setrlimit: %v", err)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(names) != 300 {
		t.Fatalf("%d inputs, %v", len(names), err)
	}
	fs, err := OpenFiles(context.Background(), names, nil)
	if err != nil {
		t.Fatalf("OpenFiles: %v", err)
	}
	defer fs.Close()
	v, err := New(Options{Shape: ShapeAuto})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	sum, err := v.CheckFiles(context.Background(), fs, "", nil, func(c Case) error {
		seen[c.File] = true
		return nil
	})
	if err != nil || sum.Payloads != 300 || len(seen) != 300 {
		t.Fatalf("CheckFiles: %d payloads from %d inputs, %v", sum.Payloads, len(seen), err)
	}
	t.Logf("checked %d inputs", len(seen))
}
