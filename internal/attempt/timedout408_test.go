package attempt

import (
	"fmt"
	"testing"
)

// A receiver that answers 408 as it closes a kept-alive connection (its
// idle timeout: RFC 9110, 15.5.9; Node's and Apache's say Connection:
// close with it) never had the call that went out on it just then: the
// call is made again on a new connection, within its attempt, on every
// transport alike, and the 408 is never counted as its answer (it was the
// call's answer, a failure with --retries 0, and a counted retry with
// them). The receiver here answers each connection's first call 200 and
// the others 408 and closes: every call after the first meets the 408,
// and each is answered 200 on a new connection. A 408 on a new
// connection, or one that keeps its connection, stays the call's answer:
// the receiver said it of this call.
func TestKeptAlive408ClosingIsNoAnswer(t *testing.T) {
	const (
		closing = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
		keeping = "HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\n\r\n"
		n       = 3
	)
	for _, tc := range []struct {
		name        string
		first, next string // a connection's first answer, and the others
		close       bool
		want        string // each call's attempts' statuses, after the first call's
		read        int    // the calls the receiver read
	}{
		{"408 closing a kept connection", ok200, closing, true, "[200]", 1 + 2*(n-1)},
		{"408 on a new connection", closing, closing, true, "[408]", n},
		{"408 keeping the connection", ok200, keeping, false, "[408]", n},
	} {
		for _, tr := range transports {
			t.Run(fmt.Sprintf("%s/%s", tc.name, tr), func(t *testing.T) {
				t.Parallel()
				srv := newScriptServer(t, func(k int, _ []byte) (string, bool, bool, bool) {
					if k == 0 {
						return tc.first, tc.first == closing, false, false
					}
					return tc.next, tc.close, false, false
				})
				got, ok := calls(t, srv, tr, n)
				if !ok {
					t.Skip("no event loops here")
				}
				if len(got) != n {
					t.Fatalf("%d calls, want %d", len(got), n)
				}
				for i, r := range got[1:] {
					var statuses []int
					for _, a := range r.Attempts {
						statuses = append(statuses, a.Status)
					}
					if fmt.Sprint(statuses) != tc.want {
						t.Errorf("call %d: answers %v, want %s (%s)", i+2, statuses, tc.want, brief(r.Last()))
					}
				}
				if got := srv.got.Load(); got != int64(tc.read) {
					t.Errorf("the receiver read %d calls, want %d", got, tc.read)
				}
			})
		}
	}
}
