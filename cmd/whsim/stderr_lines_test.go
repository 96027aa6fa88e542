package main

import (
	"bufio"
	"os/exec"
	"strings"
	"sync"
	"testing"
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
