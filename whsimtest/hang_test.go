package whsimtest

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A handler that hangs on the first call until its request's context ends
// fails the test naming that call's case, as every other case that gets no
// answer is named by its subtest: "the handler gave the first call no
// answer" sent the reader to find which call was first.
func TestFirstCallHangingNamesItsCase(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	r := record("TestHangs", func(t tb) {
		checkHandler(t, h, []Option{WithChecks("accepts-valid"), WithTimeout(200 * time.Millisecond)})
	})
	want := "whsimtest: the handler gave the first call (accepts-valid/CREATE_PURCHASE_ORDER_INVOICE/described) no answer (timeout"
	if !strings.Contains(strings.Join(r.errs, "\n"), want) {
		t.Errorf("said %s\nwant %q", r.said(), want)
	}
}

// A handler that hangs on the first call and ignores its request's
// context: the run ends at once (the first call got no answer), and the
// wait for the handler call, cut short as go test's -timeout nears, fails
// the test naming the call. Before, the test logged "the run ended (go
// test's -timeout was near, so the run stopped before it (give go test a
// longer -timeout, or the calls a shorter WithTimeout))": the run had
// ended on the first call, long before, and no WithTimeout was too long.
func TestWaitForAHandlerIgnoringItsContextCutShortSaysWhy(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release })
	rec := recordBefore("TestIgnores", time.Now().Add(5*time.Second), func(t tb) {
		checkHandler(t, h, []Option{WithChecks("accepts-valid"), WithTimeout(200 * time.Millisecond)})
	})
	var logged []string
	rec.walk(func(c *recorder) {
		c.mu.Lock()
		defer c.mu.Unlock()
		logged = append(logged, c.logs...)
	})
	said := rec.said() + strings.Join(logged, "\n")
	want := "whsimtest: the handler had not returned from 1 call(s) when go test's -timeout was near, so the wait for it stopped: POST /?businessType=CREATE_PURCHASE_ORDER_INVOICE (requestId "
	if !strings.Contains(strings.Join(rec.errs, "\n"), want) {
		t.Errorf("the test does not fail naming the call whose handler did not return, want %q:\n%s", want, said)
	}
	if strings.Contains(said, "the run ended (go test's -timeout was near") {
		t.Errorf("the test says the run ended for go test's -timeout, though it ended on its first call:\n%s", said)
	}
}
