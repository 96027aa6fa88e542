//go:build linux

package attempt

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// A run's calls say whether they went out on a connection kept alive from
// an earlier call the receiver answered, on every path a run's worker
// takes: the fast path's own connection, its event loops (where a longer
// answer is read, and a larger call written, by a goroutine of their
// own), and net/http's (WHSIM_TRANSPORT=net/http). The fast path said it
// of no call, and check took a receiver that answers a connection's first
// call only for one that buckles under load. A call on a new connection,
// after the receiver or the sender ended the last, says it was not.
func TestRunCallsSayKeptAlive(t *testing.T) {
	const closing = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
	long := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", 2*laneAnswer, strings.Repeat("l", 2*laneAnswer))
	large := `{"requestId":"00000000-0000-4000-8000-000000000000","pad":"` + strings.Repeat("p", 16<<20) + `"}`
	tests := []struct {
		name string
		// later answers the calls on a connection after its first, which
		// gets ok200: its bytes, then whether the receiver closes the
		// connection, or holds the call unanswered.
		later       string
		close, hold bool
		every       bool   // later answers a connection's first call too
		closedFirst bool   // the next call starts once the receiver closed
		body        string // the calls' body; "" for a small one
		// want is each of three deliveries' status (or kind) and where
		// its call went out.
		want string
	}{
		{"answered", ok200, false, false, false, false, "", "200 kept=false, 200 kept=true, 200 kept=true"},
		{"held unanswered", "", false, true, false, false, "", "200 kept=false, timeout kept=true, 200 kept=false"},
		{"closed unanswered", "", true, false, false, false, "", "200 kept=false, connection closed kept=true, 200 kept=false"},
		{"Connection: close on every answer", closing, true, false, true, false, "", "200 kept=false, 200 kept=false, 200 kept=false"},
		{"closed after every answer", ok200, true, false, true, true, "", "200 kept=false, 200 kept=false, 200 kept=false"},
		{"a longer answer", long, false, false, false, false, "", "200 kept=false, 200 kept=true, 200 kept=true"},
		{"a call larger than the socket's buffers", ok200, false, false, false, false, large, "200 kept=false, 200 kept=true, 200 kept=true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, way := range []string{"worker", "lanes"} {
				srv := newScriptServer(t, func(k int, _ []byte) (string, bool, bool, bool) {
					if k == 0 && !tt.every {
						return ok200, false, false, false
					}
					return tt.later, tt.close, false, tt.hold
				})
				c, err := newTestClient(ClientOptions{Timeout: callLimit(tt.hold), Concurrency: 1})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(c.CloseIdleConnections)
				d := &Deliverer{Client: c, Target: srv.url()}
				pool := templates("A", 1)
				if tt.body != "" {
					pool[0][0].Body = []byte(tt.body)
				}
				var got []string
				report := func(r *Result) {
					a := r.Last()
					what := string(a.Kind)
					if a.Status != 0 {
						what = fmt.Sprint(a.Status)
					}
					got = append(got, fmt.Sprintf("%s kept=%v", what, a.KeptAlive))
					if tt.closedFirst {
						// An event, not a clock: a close after the look
						// before the next call is a race no sender wins.
						srv.awaitClosed(t)
					}
				}
				if way == "worker" {
					asWorker(d, pool, 3, report)
				} else if !asLanes(context.Background(), d, pool, 3, report) {
					continue // no event loops here (WHSIM_TRANSPORT)
				}
				if g := strings.Join(got, ", "); g != tt.want {
					t.Errorf("%s: %s, want %s", way, g, tt.want)
				}
			}
		})
	}
}
