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
	<-held
	if in.Load() != out.Load() {
		t.Errorf("%d handler calls still running after Check returned", in.Load()-out.Load())
	}
	said := rec.said() + "\n" + strings.Join(rec.leaves(), "\n")
	if !strings.Contains(said, "go test's -timeout was near") {
		t.Errorf("the test does not say the run stopped before go test's -timeout:\n%s", said)
	}
	if !strings.Contains(said, "the handler had not answered 1 call(s) by then: POST /?businessType=ABANDON_RECEIVABLE_DOC (requestId ") {
		t.Errorf("the test does not name the call the handler held:\n%s", said)
	}
	if ok := rec.find("accepts-valid/CREATE_RECEIVABLE_DOC/described"); ok == nil || ok.failed {
		t.Errorf("the case answered before the held one is not a passing subtest:\n%s", said)
	}
}
