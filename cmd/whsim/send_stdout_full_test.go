package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// send > /dev/full stops once it finds it cannot write what it reports
// (its first flush), exits 2, and its --junit says why in a case in
// error: it went on for every delivery it was given, though nothing it
// found could be said, and --junit listed the deliveries as all passed.
// 2000 calls at 200 a second take 10 s; the flush that fails comes after
// the first 200 ms.
func TestSendStopsWhenStdoutCannotBeWritten(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			junit := filepath.Join(t.TempDir(), "send.xml")
			// No --url: whsim's own receiver, in the same process.
			cmd := exec.Command("whsim", "send", "--event", "CREATE_RECEIVABLE_DOC", "--count", "2000", "--rate", "200",
				"--output", format, "--junit", junit)
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			cmd.Stdout = full
			errs := startWithStderr(t, cmd)
			err := errs.exited(t, cmd, time.Minute)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Errorf("exit %v, want status 2 (output it could not write)", err)
			}
			if all := errs.text(); !strings.Contains(all, "whsim: write /dev/stdout: no space left on device\n") {
				t.Errorf("stderr does not say stdout could not be written:\n%s", all)
			}
			b, err := os.ReadFile(junit)
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`<error message="stdout could not be written \(write /dev/stdout: no space left on device\): sending stopped there, \d+ sent \(\d+ of them cut short\), \d+ not started"`).Match(b) {
				t.Errorf("--junit does not say why the run stopped:\n%s", b[max(0, len(b)-1500):])
			}
		})
	}
}
