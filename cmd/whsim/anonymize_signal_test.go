package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/spec"
)

// anonymize of a large input stops on SIGINT and on SIGTERM, mid-run, with
// exit 130 (a 30 MB file once ran on for ten minutes through both): NDJSON
// between lines, and a single 40 MB document inside it. The signal goes
// once the run is known to be under way, whatever the machine's load: for
// NDJSON its first anonymized bytes arrive; a document is written whole at
// the end, so it goes once the whole file has been read (Linux's
// /proc/PID/fdinfo shows where the reading is).
func TestAnonymizeStopsOnSignals(t *testing.T) {
	var lines []byte
	var docs [][]byte
	for _, e := range spec.Events() {
		b, err := fixtures.Get(e.Name, spec.Described)
		if err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, c.Bytes()...), '\n')
		docs = append(docs, c.Bytes())
	}
	dir := t.TempDir()
	ndjson := writeBig(t, filepath.Join(dir, "big.ndjson"), nil, lines, nil, nil)
	doc := writeBig(t, filepath.Join(dir, "big.json"), []byte("["), bytes.Join(docs, []byte(",")), []byte(","), []byte("{}]"))
	for _, tt := range []struct {
		sig  syscall.Signal
		path string
	}{
		{syscall.SIGINT, ndjson}, {syscall.SIGTERM, ndjson}, {syscall.SIGINT, doc}, {syscall.SIGTERM, doc},
	} {
		t.Run(tt.sig.String()+"/"+filepath.Base(tt.path), func(t *testing.T) {
			cmd := exec.Command("whsim", "anonymize", "--key", "0123456789abcdef0123", "--check", tt.path)
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if tt.path == doc {
				waitRead(t, cmd.Process.Pid, tt.path)
			} else if _, err := io.ReadFull(out, make([]byte, 1)); err != nil {
				t.Fatalf("no output before the signal: %v (%s)", err, stderr.String())
			}
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				io.Copy(io.Discard, out)
				done <- cmd.Wait()
			}()
			select {
			case err = <-done:
			// The bound catches a run that goes on through the signal (once
			// ten minutes); a 40 MB document's last stage took 12 s after
			// SIGTERM in a CI rehearsal beside the race tests (1 s quiet).
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 30 s after %v", tt.sig)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Fatalf("exit %v after %v, want 130; stderr:\n%s", err, tt.sig, stderr.String())
			}
			// Said, not left to the exit code alone.
			if want := "whsim: interrupted (Ctrl-C or SIGTERM) in " + tt.path + ": stdout holds its output cut short\n"; stderr.String() != want {
				t.Errorf("stderr:\n%s\nwant\n%s", stderr.String(), want)
			}
		})
	}
}

// writeBig writes head, then body repeated (sep between) to 40 MB, then
// tail, and returns the path.
func writeBig(t *testing.T, path string, head, body, sep, tail []byte) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	w.Write(head)
	for n := 0; n < 40<<20; n += len(body) + len(sep) {
		w.Write(body)
		w.Write(sep)
	}
	w.Write(tail)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitRead waits until process pid has read the file at path to its end.
func waitRead(t *testing.T, pid int, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	if _, err := os.Stat(fds); err != nil {
		t.Skip("needs /proc to see the input read")
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		ents, _ := os.ReadDir(fds)
		for _, e := range ents {
			if target, _ := os.Readlink(filepath.Join(fds, e.Name())); target != path {
				continue
			}
			info, _ := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, e.Name()))
			var pos int64
			fmt.Sscanf(string(info), "pos:\t%d", &pos)
			if pos >= fi.Size() {
				return
			}
		}
	}
	t.Fatal("the input was not read within 60 s")
}
