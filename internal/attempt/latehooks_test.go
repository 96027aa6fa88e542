package attempt

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"testing"
	"time"
)

// lateHooks is a transport that hands each call to next and, as the
// second call starts, runs the first call's trace hooks the way
// net/http's goroutines may run them after that call's round trip
// returned: its writer's WroteRequest (a write the receiver's close or
// the time limit ended), and its reader's GotFirstResponseByte (an
// answer whose first byte the reader took just as the call's time limit
// closed the connection), from a goroutine of its own, unordered with
// the second call.
type lateHooks struct {
	next   http.RoundTripper
	traces []*httptrace.ClientTrace
	fired  chan struct{}
}

// errLateWrite is the end of the first call's write, heard late.
var errLateWrite = errors.New("the first call's write, ended late")

func (l *lateHooks) RoundTrip(req *http.Request) (*http.Response, error) {
	l.traces = append(l.traces, httptrace.ContextClientTrace(req.Context()))
	if len(l.traces) == 2 {
		first := l.traces[0]
		first.WroteRequest(httptrace.WroteRequestInfo{Err: errLateWrite})
		go func() {
			defer close(l.fired)
			first.GotFirstResponseByte()
		}()
	}
	return l.next.RoundTrip(req)
}

// A try's trace hooks that net/http runs after its round trip returned
// note nothing of the worker's next try: that one's write is its own (a
// late WroteRequest of the last try's said a body sent whole was cut,
// and failed a call the receiver passed), and so is its connection (a
// late GotFirstResponseByte read it as net/http gave it to the next try:
// a data race, found by -race in a CI run under load). The first try
// fails on a connection the receiver closed unanswered, so that its
// hooks may still come; the retry reuses the worker's buffer.
func TestLateHooksOfATryLeaveTheNextAlone(t *testing.T) {
	var calls atomic.Int32
	srv := newScriptServer(t, func(int, []byte) (string, bool, bool, bool) {
		if calls.Add(1) == 1 {
			return "", true, false, false // closed unanswered
		}
		return ok200, false, false, false
	})
	c, err := newTestClient(ClientOptions{Timeout: time.Minute, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	late := &lateHooks{next: c.Transport, fired: make(chan struct{})}
	d := &Deliverer{
		Client: &http.Client{Transport: late}, Target: srv.url(), Retries: 1,
		Sleep: func(context.Context, time.Duration) error { return nil },
	}
	var res []*Result
	asWorker(d, templates("A", 1), 1, func(r *Result) {
		c := *r // the worker's Result is made anew for its next delivery
		res = append(res, &c)
	})
	<-late.fired
	if len(late.traces) != 2 {
		t.Fatalf("round trips: %d, want 2 (a failed try, then its retry)", len(late.traces))
	}
	r := res[0]
	if len(r.Attempts) != 2 || r.Attempts[0].Status != 0 {
		t.Fatalf("attempts: %+v, want a try unanswered, then its retry", r.Attempts)
	}
	if a := r.Last(); !r.OK || a.Status != 200 || a.Unfinished() != "" {
		t.Errorf("the retry: ok=%v status %d, unfinished %q; want a 200 with its body sent whole (no hook of the first try's)", r.OK, a.Status, a.Unfinished())
	}
}
