package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// stderrLines is a started command's stderr read line by line: lines
// gives each line as it comes and is closed at its end; text is every line
// read so far (all of them once lines is closed).
type stderrLines struct {
	lines <-chan string
	mu    sync.Mutex
	all   strings.Builder
}

// startWithStderr starts cmd with its stderr read by a stderrLines; the
// process is killed when the test ends, if it still runs.
func startWithStderr(t *testing.T, cmd *exec.Cmd) *stderrLines {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string, 64)
	s := &stderrLines{lines: lines}
	go func() {
		for sc := bufio.NewScanner(stderr); sc.Scan(); {
			s.mu.Lock()
			s.all.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			lines <- sc.Text()
		}
		close(lines)
	}()
	return s
}

// waitLine reads lines up to the first that starts with prefix: the event
// a test waits for. It fails the test if stderr ends first.
func (s *stderrLines) waitLine(t *testing.T, prefix string) {
	t.Helper()
	for l := range s.lines {
		if strings.HasPrefix(l, prefix) {
			return
		}
	}
	t.Fatalf("the command ended without a line %q:\n%s", prefix, s.text())
}

func (s *stderrLines) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.all.String()
}

// startListen starts `whsim listen` on a free loopback port with a ready
// file and args, and returns once it listens: the command, its stderr and
// the URL the ready file gives. stdout, when not nil, takes its stdout.
func startListen(t *testing.T, stdout io.Writer, args ...string) (*exec.Cmd, *stderrLines, string) {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "url.txt")
	cmd := exec.Command("whsim", append([]string{"listen", "--addr", "127.0.0.1:0", "--ready-file", ready}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.Stdout = stdout
	errs := startWithStderr(t, cmd)
	errs.waitLine(t, "listening on ")
	u, err := os.ReadFile(ready)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, errs, strings.TrimSpace(string(u))
}

// exited reads the rest of cmd's stderr and returns its exit, failing the
// test if it still runs after bound: a guard against a hang, far above
// the wait the test expects.
func (s *stderrLines) exited(t *testing.T, cmd *exec.Cmd, bound time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		for range s.lines {
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(bound):
		t.Fatalf("still running %v later:\n%s", bound, s.text())
		return nil
	}
}

// postReceipt sends listen at base one small receipt call of requestId id
// and returns the status it was answered with, its body read.
func postReceipt(t *testing.T, base, id string) int {
	t.Helper()
	resp, err := http.Post(base+"?businessType=CREATE_RECEIVABLE_DOC", "application/json",
		strings.NewReader(`{"requestId":"`+id+`","businessType":5007,"data":{}}`))
	if err != nil {
		t.Fatalf("call %s: %v", id, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
