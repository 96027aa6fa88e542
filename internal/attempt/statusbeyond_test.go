package attempt

import (
	"fmt"
	"testing"
	"time"
)

// A status line with three digits from 600 to 999 is well-formed (RFC
// 9112, 4: status-code = 3DIGIT) though no status HTTP defines: RFC 9110
// (15) has a client that gets one process it as a 5xx. So on every path,
// net/http's and the fast path alike, it is an answer with that status
// (not "a malformed answer", not "no answer"), failed and retried as a
// 5xx is, and the connection it came on carries the next call.
func TestStatusBeyond599IsAnAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		status       int
	}{
		{"600 X", "HTTP/1.1 600 X\r\nContent-Length: 2\r\n\r\nok", 600},
		{"999 without a reason", "HTTP/1.1 999\r\nContent-Length: 0\r\n\r\n", 999},
	} {
		for _, netHTTP := range []bool{false, true} {
			for _, p := range paths {
				t.Run(fmt.Sprintf("%s/net/http %v/%s", tc.name, netHTTP, p.name), func(t *testing.T) {
					t.Parallel()
					srv := newScriptServer(t, func(int, []byte) (string, bool, bool, bool) {
						return tc.answer, false, false, false
					})
					res := deliverOnce(t, srv.url().String(), once{p: p, timeout: 5 * time.Second, netHTTP: netHTTP, retries: 1})
					for i, a := range res.Attempts {
						if a.Status != tc.status || a.Kind != "" || a.Err != "" {
							t.Errorf("attempt %d: %s, want an answer with status %d", i+1, brief(a), tc.status)
						}
					}
					if res.OK || len(res.Attempts) != 2 {
						t.Errorf("ok %v after %d attempts, want a failure after 2 (retried as a 5xx)", res.OK, len(res.Attempts))
					}
					if n := srv.got.Load(); n != 2 {
						t.Errorf("the receiver read %d calls, want 2", n)
					}
				})
			}
		}
	}
}
