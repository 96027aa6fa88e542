//go:build linux

package attempt

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// A receiver that resets the connection as a large body goes out (it read
// a little of it, then closed with SO_LINGER 0) fails every call the same
// way, whichever path made it and whichever system call met the reset
// first: a reset, of a call that may have been taken. The fast path said
// it three ways: its writer's call may take the reset (ECONNRESET, EPIPE)
// and leave its reader a close (EOF), "connection closed after the call
// went out"; and a write that failed after some of the call went out on a
// new connection was not counted as gone out, a bare "connection reset".
// A call none of whose bytes went out (its new connection reset before
// the first write, or refused) never says it may have been taken.
func TestResetMidBodyWordedOneWay(t *testing.T) {
	const calls = 6
	small := bigTemplate(0)
	big := bigTemplate(8 << 20) // far past the sockets' buffers
	for _, tc := range []struct {
		name string
		way  string // "net/http", "worker" (the fast path's single-call path), "lanes" (its event loops)
		pool [][]Template
		// keptAlive: the reset calls went out on kept-alive connections
		// (each after a small call the receiver answered).
		keptAlive bool
	}{
		{"net/http, new connections", "net/http", [][]Template{{big}}, false},
		{"net/http, kept-alive", "net/http", [][]Template{{small}, {big}}, true},
		{"fast path, new connections", "worker", [][]Template{{big}}, false},
		{"fast path, kept-alive", "worker", [][]Template{{small}, {big}}, true},
		{"event loops, new connections", "lanes", [][]Template{{big}}, false},
		{"event loops, kept-alive", "lanes", [][]Template{{small}, {big}}, true},
	} {
		// The reset comes after the call's head (most often while the
		// first write of the call is still under way), or after some of
		// its body was read (most often while its rest is written apart).
		for _, read := range []int64{0, 64 << 10} {
			t.Run(fmt.Sprintf("%s/%d body bytes read", tc.name, read), func(t *testing.T) {
				t.Parallel()
				u := resetMidBodyServer(t, read)
				got := deliverAll(t, tc.way, u, tc.pool, calls*len(tc.pool), nil)
				for i, r := range got {
					a := r.Last()
					if len(r.Request.Body) < len(big.Body) {
						if a.Status != http.StatusOK {
							t.Errorf("call %d (small): %s, want 200", i+1, failureLine(a))
						}
						continue
					}
					line := failureLine(a)
					if a.Kind != KindReset || !a.EndedAfterSent || a.ClosedAsSent != tc.keptAlive || !strings.Contains(line, "may have been taken") {
						t.Errorf("call %d: %q (kind %q, ended after sent %v, closed as sent %v); want a reset that may have been taken, closed as sent %v",
							i+1, line, a.Kind, a.EndedAfterSent, a.ClosedAsSent, tc.keptAlive)
					}
					if shown, note := TakenWords(a, a.Err); strings.Contains(shown+note, "closed") {
						t.Errorf("call %d: %q %q: a reset said as a close", i+1, shown, note)
					}
				}
			})
		}
	}

	// Nothing of the call went out: its new connection was reset before
	// the first write (the dial returns once the reset is in the socket),
	// or refused.
	for _, way := range []string{"net/http", "worker", "lanes"} {
		t.Run("reset before the first byte/"+way, func(t *testing.T) {
			t.Parallel()
			ln := testnet.Serve(t, func(c net.Conn) {
				c.(*net.TCPConn).SetLinger(0)
				c.Close()
			})
			u, _ := url.Parse("http://" + ln.Addr().String() + "/hook")
			for i, r := range deliverAll(t, way, u, [][]Template{{big}}, 3, waitReset) {
				a := r.Last()
				if line := failureLine(a); a.Kind != KindReset || a.EndedAfterSent || a.ClosedAsSent || strings.Contains(line, "taken") {
					t.Errorf("call %d: %q (kind %q, ended after sent %v); want a reset of a call that did not go out", i+1, line, a.Kind, a.EndedAfterSent)
				}
			}
		})
		t.Run("refused/"+way, func(t *testing.T) {
			t.Parallel()
			u, _ := url.Parse("http://127.0.0.1:1/hook") // nothing listens on port 1
			for i, r := range deliverAll(t, way, u, [][]Template{{big}}, 2, nil) {
				a := r.Last()
				if line := failureLine(a); a.Kind != KindRefused || a.EndedAfterSent || a.ClosedAsSent || strings.Contains(line, "taken") {
					t.Errorf("call %d: %q (kind %q, ended after sent %v); want refused", i+1, line, a.Kind, a.EndedAfterSent)
				}
			}
		})
	}
}

// failureLine is a failed attempt as send's line says it: its short error
// and, for a call that may have been taken, the note.
func failureLine(a Attempt) string {
	return strings.TrimSpace(ShortError(a) + " " + TakenNote(a))
}

// bigTemplate is a template whose body pads to n bytes past its requestId.
func bigTemplate(n int) Template {
	const head = `{"requestId":"`
	body := head + `00000000-0000-4000-8000-000000000000","pad":"` + strings.Repeat("x", n) + `"}`
	return Template{Event: "A", Query: "businessType=A", Body: []byte(body), IDOff: len(head)}
}

// resetMidBodyServer is a receiver that answers a call of a body under
// 1 MiB with a kept-alive 200, and resets the connection (SO_LINGER 0)
// once it read the first read bytes of a larger one's body.
func resetMidBodyServer(t *testing.T, read int64) *url.URL {
	ln := testnet.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			if req.ContentLength < 1<<20 {
				if _, err := io.Copy(io.Discard, req.Body); err != nil {
					return
				}
				if _, err := io.WriteString(c, ok200); err != nil {
					return
				}
				continue
			}
			if _, err := io.CopyN(io.Discard, req.Body, read); err != nil {
				return
			}
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
			return
		}
	})
	u, _ := url.Parse("http://" + ln.Addr().String() + "/hook")
	return u
}

// deliverAll makes n deliveries of pool's templates in turn to u, one
// after another on one connection at a time, by way ("net/http": net/http's
// transport; "worker": the fast path's worker; "lanes": its event loops),
// and returns their results. dialed, when set, runs on each connection the
// client dials before it is used.
func deliverAll(t *testing.T, way string, u *url.URL, pool [][]Template, n int, dialed func(*testing.T, net.Conn)) []*Result {
	t.Helper()
	if way != "net/http" && !fastPathOn() {
		t.Skip("the fast path is off (WHSIM_TRANSPORT)")
	}
	c, err := NewClient(ClientOptions{Timeout: time.Minute, Concurrency: 1, NetHTTP: way == "net/http"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	if dialed != nil {
		dt := c.Transport.(directTransport)
		dial := dt.DialContext
		dt.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err == nil {
				dialed(t, c)
			}
			return c, err
		}
	}
	d := &Deliverer{Client: c, Target: u}
	var got []*Result
	keep := func(r *Result) {
		// The request's body is the worker's buffer, written again by
		// its next call: kept here is its length's worth.
		cp := *r
		cp.Attempts = append([]Attempt(nil), r.Attempts...)
		cp.Request = &Request{Body: make([]byte, len(r.Request.Body))}
		got = append(got, &cp)
	}
	switch way {
	case "lanes":
		if !asLanes(context.Background(), d, pool, n, keep) {
			t.Fatal("no event loops")
		}
	default:
		asWorker(d, pool, n, keep)
	}
	if len(got) != n {
		t.Fatalf("%d results, want %d", len(got), n)
	}
	return got
}
