package attempt

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/reqid"
)

// answeredEarly is a 200 a receiver gives from a call's head alone,
// before it reads the body, which it then never reads (closingEarlyServer
// closes the connection with it unread).
const answeredEarly = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

// bigBody is a body no socket's buffers take whole: 64 MiB (loopback's
// can hold tens of MiB).
func bigBody() []byte { return []byte(`{"x":"` + strings.Repeat("x", 64<<20) + `"}`) }

// A receiver that answers 200 before it reads a large body, then closes
// the connection, never got the call whole: the delivery was counted
// succeeded on every path, as its status said. It is a failure now, whose
// words say the body was not sent whole, the same on every path and
// transport, and decided once both the answer and the end of the body's
// write are known (the answer may come first).
func TestAnsweredBeforeTheBodyWasSentWhole(t *testing.T) {
	tmpl := &Template{Event: "A", Query: "businessType=A", Body: bigBody()}
	want := BodyUnsentWords + " (its write of " + strconv.Itoa(len(tmpl.Body)) + " bytes cut: "
	const deliveries = 4
	for _, path := range []struct {
		name  string
		tlsOn bool
	}{{"plain", false}, {"tls", true}} {
		for _, tt := range []struct {
			name    string
			netHTTP bool
			worker  bool // a run's worker (its buffer), else one delivery
		}{
			{"default transport, a run's worker", false, true},
			{"default transport, one delivery", false, false},
			{"net/http, a run's worker", true, true},
			{"net/http, one delivery", true, false},
		} {
			t.Run(path.name+"/"+tt.name, func(t *testing.T) {
				u, roots := closingEarlyServer(t, answeredEarly, path.tlsOn)
				c, err := NewClient(ClientOptions{Timeout: time.Minute, Concurrency: 1, NetHTTP: tt.netHTTP, RootCAs: roots})
				if err != nil {
					t.Fatal(err)
				}
				d := &Deliverer{Client: c, Target: u}
				ids := reqid.NewIDs(1)
				var bb *Buf
				defer func() {
					if bb != nil {
						bb.Release()
					}
				}()
				for i := range deliveries {
					req := &Request{Event: tmpl.Event, Query: tmpl.Query, Seq: i + 1}
					req.FromTemplate(tmpl, ids.For(tmpl.Event), 0)
					var r *Result
					if tt.worker {
						r = d.DeliverWith(context.Background(), req, &bb)
					} else {
						r = d.Deliver(context.Background(), req)
					}
					if !answeredEarlyFails(t, i+1, r, want) {
						return
					}
				}
			})
		}
	}
}

// answeredEarlyFails says whether r, the n-th delivery to a receiver that
// answered 200 before it read the body, then closed, failed as it should,
// and what is wrong with it if not (Errorf: a lane reports off the test's
// goroutine).
func answeredEarlyFails(t *testing.T, n int, r *Result, want string) bool {
	t.Helper()
	a := r.Last()
	if r.OK || a.Status != http.StatusOK || !strings.HasPrefix(a.Unfinished(), want) {
		t.Errorf("delivery %d: ok %v, %s, unfinished %q; want a failure, the receiver's 200, unfinished %q…", n, r.OK, brief(a), a.Unfinished(), want)
		return false
	}
	return true
}
