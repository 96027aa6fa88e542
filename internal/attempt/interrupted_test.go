package attempt

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// Ctrl-C while an answer's body is being read cuts the answer short: the
// delivery is interrupted, not a success on the strength of its status
// (it was counted "succeeded", ok true, with the deadline's "i/o timeout"
// for its error), on every path. The status stays, and why the answer is
// unfinished is said. Ctrl-C comes as the status is judged, once the head
// is read and before the body is, which a path asks only when it keeps
// the start of an unexpected answer's body alone (not with KeepBody,
// whose paths make the attempt by the same answered).
func TestInterruptedWhileTheBodyComesIsNoSuccess(t *testing.T) {
	const partial = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok" // 8 bytes of the body to come
	for _, p := range paths {
		if p.keep && !p.worker {
			p.keep = false // net/http's path, reading the body as send does without -v
		} else if p.keep {
			continue // the worker's path with KeepBody: no look at the status before the body
		}
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, func(int, []byte) (string, bool, bool, bool) { return partial, false, false, true })
			c, err := newTestClient(ClientOptions{Timeout: time.Minute, Concurrency: 1, FollowRedirects: p.follow})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			expect := func(status int) bool {
				once.Do(cancel)
				return status == 200
			}
			d := &Deliverer{Client: c, Target: srv.url(), KeepBody: p.keep, KeepFailed: true, Expect: expect}
			req := &Request{Event: "A", Query: "businessType=A", Body: []byte(`{}`), Seq: 1}
			var res *Result
			if p.worker {
				var bb *Buf
				res = d.DeliverWith(ctx, req, &bb)
				bb.Release()
			} else {
				res = d.Deliver(ctx, req)
			}
			a := res.Last()
			if res.OK || a.Kind != KindInterrupted || a.Status != 0 && a.Unfinished() == "" {
				t.Errorf("ok %v, attempt %s (unfinished %q), want interrupted and not ok", res.OK, brief(a), a.Unfinished())
			}
			if strings.Contains(a.Err, "timeout") {
				t.Errorf("error %q: Ctrl-C is no timeout", a.Err)
			}
		})
	}
}
