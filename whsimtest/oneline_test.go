package whsimtest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// A reproduce command is pasted from go test's output, where testing
// indents every line of a message after its first: a body's line break
// printed as it is came back with that indentation in the body, other
// bytes than the call sent (and, for a signed call, a signature that no
// longer matches). The command is one line, and run as go test shows it,
// it sends the body the call sent.
func TestReproduceSurvivesGoTestIndentation(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, b)
		mu.Unlock()
	}))
	defer srv.Close()
	rec := record("TestShop", func(t tb) { checkURL(t, srv.URL+"/hooks", []Option{WithChecks("rejects-malformed")}) })
	var c *recorder
	for _, name := range rec.failures() {
		if strings.HasSuffix(name, "/not-json") {
			c = rec.find(strings.TrimPrefix(name, "TestShop/"))
			break
		}
	}
	if c == nil || len(c.errs) != 1 {
		t.Fatalf("no failing not-json case: %s", rec.said())
	}
	_, cmd, ok := strings.Cut(c.errs[0], "\nreproduce: ")
	if !ok {
		t.Fatalf("no reproduce line in %q", c.errs[0])
	}
	if strings.Contains(cmd, "\n") {
		t.Errorf("the command spans lines, which go test indents: %q", cmd)
	}
	sh, errSh := exec.LookPath("sh")
	_, errCurl := exec.LookPath("curl")
	if errSh != nil || errCurl != nil {
		return // the line itself is checked above; running it needs sh and curl
	}
	mu.Lock()
	bodies = nil
	mu.Unlock()
	// As pasted from a go test -v log: each line after the first indented.
	pasted := strings.ReplaceAll(cmd, "\n", "\n        ")
	if out, err := exec.Command(sh, "-c", pasted).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", pasted, err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []byte("this is not JSON\n"); len(bodies) != 1 || !bytes.Equal(bodies[0], want) {
		t.Errorf("the command sent %q, want %q", bodies, want)
	}
}

// A body too large to print stands as BODY_FILE in its command, whose
// note said to "rerun with --save-cases DIR": an option whsimtest does
// not have. The note names the whsim check command that writes it, with
// this run's seed, ending the line so that it runs as printed.
func TestLargeBodyNoteNamesACommandThatSavesIt(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b, _ := io.ReadAll(r.Body); len(b) > 4<<10 {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
		}
	}))
	defer srv.Close()
	rec := record("TestShop", func(t tb) {
		checkURL(t, srv.URL+"/hooks", []Option{WithChecks("accepts-valid"), WithSeed(7)})
	})
	var c *recorder
	for _, name := range rec.failures() {
		if strings.HasSuffix(name, "/large-300-lines") {
			c = rec.find(strings.TrimPrefix(name, "TestShop/"))
			break
		}
	}
	if c == nil || len(c.errs) != 1 {
		t.Fatalf("no failing large-300-lines case: %s", rec.said())
	}
	_, cmd, ok := strings.Cut(c.errs[0], "\nreproduce: ")
	if !ok || !strings.Contains(cmd, "BODY_FILE") {
		t.Fatalf("no reproduce line sending BODY_FILE in %q", c.errs[0])
	}
	if strings.Contains(cmd, "--save-cases DIR") {
		t.Errorf("the note names a flag whsimtest does not have: %q", cmd)
	}
	want := ": whsim check --url '" + srv.URL + "/hooks' --seed 7 --save-cases whsim-cases --checks accepts-valid"
	if !strings.HasSuffix(cmd, want) {
		t.Errorf("the note does not end with the command that saves the body:\n%s\nwant it ending %q", cmd, want)
	}
}
