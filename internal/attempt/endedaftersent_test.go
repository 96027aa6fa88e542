package attempt

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A call whose connection ended without an answer after it went out may
// have been taken, on a new connection as on a kept-alive one: a receiver
// that reads the call, then resets or closes, may hold it. Only the
// kept-alive one said so (ClosedAsSent), so a call reset on the run's
// first connection read as one the receiver never had. Whether it may
// have been taken is what went out, on every path; an answer, or a
// connection refused, is no such call.
func TestEndedAfterSent(t *testing.T) {
	const (
		answer = iota
		closeIt
		reset
	)
	for _, tc := range []struct {
		name string
		// first is what the receiver does with a connection's first call,
		// later with its later ones; calls is how many are made.
		first, later, calls int
		kind                string
		endedAfterSent      bool
		closedAsSent        bool
	}{
		{"a new connection reset after the call", reset, reset, 1, KindReset, true, false},
		{"a new connection closed after the call", closeIt, closeIt, 1, KindClosed, true, false},
		{"a kept-alive connection reset after the call", answer, reset, 2, KindReset, true, true},
		{"a kept-alive connection closed after the call", answer, closeIt, 2, KindClosed, true, true},
		{"answered", answer, answer, 2, "", false, false},
	} {
		for _, netHTTP := range []bool{false, true} {
			for _, p := range paths {
				t.Run(fmt.Sprintf("%s/net-http %v/%s", tc.name, netHTTP, p.name), func(t *testing.T) {
					t.Parallel()
					srv := newScriptServer(t, func(k int, _ []byte) (string, bool, bool, bool) {
						do := tc.first
						if k > 0 {
							do = tc.later
						}
						switch do {
						case closeIt:
							return "", true, false, false
						case reset:
							return "", false, true, false
						}
						return ok200, false, false, false
					})
					c, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, FollowRedirects: p.follow, NetHTTP: netHTTP})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(c.CloseIdleConnections)
					d := &Deliverer{Client: c, Target: srv.url(), KeepBody: p.keep}
					var last Attempt
					keep := func(r *Result) { last = r.Last() }
					if p.worker {
						asWorker(d, templates("A", 1), tc.calls, keep)
					} else {
						for range tc.calls {
							keep(d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}))
						}
					}
					if last.Kind != tc.kind || last.EndedAfterSent != tc.endedAfterSent || last.ClosedAsSent != tc.closedAsSent {
						t.Errorf("kind %q, ended after sent %v, closed as sent %v (%s); want %q, %v, %v",
							last.Kind, last.EndedAfterSent, last.ClosedAsSent, last.Err, tc.kind, tc.endedAfterSent, tc.closedAsSent)
					}
				})
			}
		}
	}
	// Nothing listening: refused before anything went out.
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		c, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1})
		if err != nil {
			t.Fatal(err)
		}
		srv := newScriptServer(t, func(int, []byte) (string, bool, bool, bool) { return ok200, false, false, false })
		u := srv.url()
		srv.ln.Close()
		a := (&Deliverer{Client: c, Target: u}).Deliver(context.Background(), &Request{Body: []byte(`{}`)}).Last()
		if a.Kind != KindRefused || a.EndedAfterSent || a.ClosedAsSent {
			t.Errorf("kind %q, ended after sent %v, closed as sent %v (%s); want refused, neither", a.Kind, a.EndedAfterSent, a.ClosedAsSent, a.Err)
		}
	})
}
