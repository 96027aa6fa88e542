package main

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// whsim ... -o json | head -1: the reader gone, the next write to stdout
// ends whsim by SIGPIPE, quietly, as it ends curl or gh; the --junit and
// --report it had not yet written said an earlier run's verdict (a CI job
// archived last build's PASS). They are written at the start, saying the
// run did not finish, and replaced at its end: the test reads one line,
// closes the pipe, and finds whsim ended by the signal with those files.
func TestReportsOfARunSIGPIPEEnded(t *testing.T) {
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	defer hook.Close()
	const bad = `{"requestId":"x","businessType":5007,"data":{}}` + "\n"
	for _, tc := range []struct {
		name   string
		args   []string
		report bool
	}{
		// Enough output that the pipe's buffer cannot take it all.
		{"validate", []string{"validate", "-o", "json", "many.ndjson"}, false},
		{"send", []string{"send", "--url", hook.URL, "--file", "many.ndjson", "-o", "json"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "many.ndjson"), []byte(strings.Repeat(bad, 4000)), 0o644); err != nil {
				t.Fatal(err)
			}
			junit, report := filepath.Join(dir, "j.xml"), filepath.Join(dir, "r.html")
			os.WriteFile(junit, []byte(`<testsuites name="OLD PASS"/>`), 0o644)
			os.WriteFile(report, []byte("OLD PASS"), 0o644)
			args := append(tc.args, "--junit", junit)
			if tc.report {
				args = append(args, "--report", report)
			}
			cmd := exec.Command("whsim", args...)
			cmd.Dir = dir
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			errs := startWithStderr(t, cmd)
			if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			stdout.Close() // head -1
			for range errs.lines {
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGPIPE {
				t.Fatalf("whsim ended %v, want by SIGPIPE", err)
			}
			if s := errs.text(); s != "" {
				t.Errorf("stderr %q, want nothing (ended quietly)", s)
			}
			b, _ := os.ReadFile(junit)
			if !strings.Contains(string(b), `<error message="whsim ended before it could report`) {
				t.Errorf("--junit holds:\n%s", b)
			}
			if tc.report {
				b, _ := os.ReadFile(report)
				if !strings.Contains(string(b), `"headline":"the run did not complete: whsim ended before it could report`) {
					t.Errorf("--report holds no INCOMPLETE page saying whsim did not finish (%d bytes; OLD PASS: %v)", len(b), strings.Contains(string(b), "OLD PASS"))
				}
			}
		})
	}
}
