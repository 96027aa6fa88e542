package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// replay of a capture it cannot read to the end (stdin a directory: the
// read fails once the first file's call was sent and answered 200) could
// not do what it was asked, exit 2, as send --file and validate say of an
// input they cannot read; it exited 1, which says the receiver failed. Its
// summary says what was not sent.
func TestReplayReadErrorIsNotTheReceivers(t *testing.T) {
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	defer hook.Close()
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls.ndjson")
	rec := `{"capture":1,"method":"POST","path":"/hook","query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Type":["application/json"]},"body":"{}","bodyEncoding":"utf8"}` + "\n"
	if err := os.WriteFile(calls, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	stdin, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	cmd := exec.Command("whsim", "replay", calls, "-", "--url", hook.URL, "-o", "json")
	cmd.Stdin = stdin
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Errorf("exit %v, want 2:\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var last struct {
		Summary struct {
			Sent, Succeeded int
			Incomplete      string
		}
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Summary.Sent != 1 || last.Summary.Succeeded != 1 ||
		!strings.Contains(last.Summary.Incomplete, "<stdin>") {
		t.Errorf("the last line is no summary of the call sent, incomplete for <stdin> (%v):\n%s", err, out)
	}
}
