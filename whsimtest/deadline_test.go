package whsimtest

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A receiver that holds a call (a lock never released, a database that
// never answers) under go test -timeout: the run stops before the
// timeout, says what it judged and names the call held, and every
// handler call has returned. Before, Check waited past the timeout, and
// go test's panic named only the test, ending the binary with no case
// said, nor the seed (without -v).
func TestRunStopsBeforeGoTestTimeout(t *testing.T) {
	t.Parallel()
	var in, out atomic.Int64
	held := make(chan struct{})
	var once atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in.Add(1)
		defer out.Add(1)
		if strings.Contains(r.URL.RawQuery, "ABANDON_RECEIVABLE_DOC") {
			if once.CompareAndSwap(false, true) {
				close(held)
			}
			<-r.Context().Done() // held until the sender gives up
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	// A deadline the run meets with its calls held: far short of the
	// calls' own time limit, so only the deadline can end them.
	rec := recordBefore("TestHeld", time.Now().Add(5*time.Second), func(t tb) {
		checkHandler(t, h, []Option{WithChecks("accepts-valid"), WithSeed(3), WithTimeout(time.Minute)})
	})
	// Check has returned: a call held was held before (it ends only with
	// the run). A run the deadline ended first, on a machine too loaded to
	// reach the held call within the deadline, fails here; waiting for
	// held then hung the test until go test's own -timeout.
	select {
	case <-held:
	default:
		t.Fatalf("the run ended before the handler held the ABANDON_RECEIVABLE_DOC call:\n%s", rec.said())
	}
	said := rec.said() + "\n" + strings.Join(rec.leaves(), "\n")
	// The wait for handler calls stops with the run (the doc's "the run
	// and that wait stop a little before the timeout"): the held call's
	// context ends at that moment, and its handler may still be returning
	// when Check does. Left so, the test says so; a handler call still
	// running that the test does not mention is left silently.
	var logged []string
	rec.walk(func(c *recorder) {
		c.mu.Lock()
		defer c.mu.Unlock()
		logged = append(logged, c.logs...)
	})
	if n := in.Load() - out.Load(); n != 0 && !strings.Contains(strings.Join(logged, "\n"), "handler call(s) still running, left to finish") {
		t.Errorf("%d handler calls still running after Check returned, and the test does not say so:\n%s", n, strings.Join(logged, "\n"))
	}
	if !strings.Contains(said, "go test's -timeout was near") {
		t.Errorf("the test does not say the run stopped before go test's -timeout:\n%s", said)
	}
	if !strings.Contains(said, "the handler had not answered 1 call(s) by then: POST /?businessType=ABANDON_RECEIVABLE_DOC (requestId ") {
		t.Errorf("the test does not name the call the handler held:\n%s", said)
	}
	if ok := rec.find("accepts-valid/CREATE_RECEIVABLE_DOC/described"); ok == nil || ok.failed {
		t.Errorf("the case answered before the held one is not a passing subtest:\n%s", said)
	}
	// The check the run ended in is no pass, whatever its cases said
	// before: its own subtest fails saying it was cut short.
	if c := rec.find("accepts-valid"); c == nil || !c.didFail() || !strings.Contains(strings.Join(c.errs, "\n"), "cut short: ") {
		t.Errorf("the check the run ended in does not fail as cut short: %+v\n%s", c, said)
	}
}

// A handler that answers its call on the connection it took over
// (Hijack), then never returns (a goroutine of the receiver's that
// leaks), holds Check's wait for its handler calls until go test's
// -timeout nears: the test fails naming the call, as the doc says, not
// passes because the wait was cut short. Before, it passed, with only
// a log line saying how many calls were "left to finish".
func TestWaitCutShortBeforeGoTestTimeoutFails(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	var taken atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.URL.RawQuery, "CREATE_RECEIVABLE_DOC") || !taken.CompareAndSwap(false, true) {
			w.WriteHeader(http.StatusOK)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
		<-release
	})
	rec := recordBefore("TestLeaks", time.Now().Add(5*time.Second), func(t tb) {
		checkHandler(t, h, []Option{WithChecks("accepts-valid"), WithSeed(3)})
	})
	said := rec.said()
	rec.walk(func(c *recorder) {
		c.mu.Lock()
		defer c.mu.Unlock()
		said += strings.Join(c.logs, "\n") + "\n"
	})
	if strings.Contains(said, "the run ended: go test's -timeout was near") {
		t.Fatalf("the run itself did not end before the deadline (a machine too loaded for 5s), so the wait was never reached:\n%s", said)
	}
	if !rec.didFail() {
		t.Errorf("the test passed with a handler call still running when the wait stopped before go test's -timeout:\n%s", said)
	}
	want := "whsimtest: the handler had not returned from 1 call(s) when go test's -timeout was near, so the wait for it stopped: POST /?businessType=CREATE_RECEIVABLE_DOC (requestId "
	if !strings.Contains(strings.Join(rec.errs, "\n"), want) {
		t.Errorf("the test does not fail naming the call whose handler did not return, want %q:\n%s", want, said)
	}
}
