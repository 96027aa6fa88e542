//go:build linux

package attempt

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/reqid"
)

var portRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)

// outcome is what a test compares of a delivery: its attempts without
// their times, and with the sender's and receiver's ports as P.
func outcome(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ok=%v", r.OK)
	for _, a := range r.Attempts {
		a.Latency, a.Connect = 0, 0
		a.Err = portRE.ReplaceAllString(a.Err, "127.0.0.1:P")
		a.Header = nil
		s := a.Silent
		a.Silent = nil // a pointer: what it says is compared
		fmt.Fprintf(&b, " | %+v", a)
		if s != nil {
			fmt.Fprintf(&b, " silent %+v", *s)
		}
	}
	return b.String()
}

// The event loops make a delivery as the worker does, from the same code:
// for every way a receiver answers a call on a kept-alive connection (the
// loop's; the first call of a connection is made by the worker's path),
// the attempts are the same on both, errors and their words included,
// and the receiver reads each call once.
func TestLanesAnswerAsTheWorker(t *testing.T) {
	big := strings.Repeat("x", 64<<10)
	huge := strings.Repeat("y", MaxBodyRead+(64<<10))
	tests := []struct {
		name   string
		answer string
		close  bool // the receiver closes after the answer
		reset  bool
		stall  bool
	}{
		{"200", ok200, false, false, false},
		{"500 with a body kept", "HTTP/1.1 500 Oops\r\nContent-Length: 4\r\n\r\noops", false, false, false},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", false, false, false},
		{"to the close", "HTTP/1.1 200 OK\r\n\r\nthe body runs to the end", true, false, false},
		{"Connection: close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", true, false, false},
		{"closed after the answer", ok200, true, false, false},
		{"bytes after the answer", ok200 + ok200, false, false, false},
		{"204 with a body", "HTTP/1.1 204 No Content\r\n\r\n" + ok200, false, false, false},
		{"100 Continue first", "HTTP/1.1 100 Continue\r\n\r\n" + ok200, false, false, false},
		{"101 then no HTTP", "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", false, false, true},
		{"status 200X", "HTTP/1.1 200X OK\r\nContent-Length: 0\r\n\r\n", false, false, false},
		{"two Content-Lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nok", false, false, false},
		{"unsupported Transfer-Encoding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", false, false, false},
		{"a field folded", "HTTP/1.1 429 Slow\r\nRetry-After:\r\n 7\r\nContent-Length: 2\r\n\r\nok", false, false, false},
		{"a trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-Sum: 1\r\n\r\n", false, false, false},
		{"a 20 KiB field", "HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("l", 20<<10) + "\r\nContent-Length: 2\r\n\r\nok", false, false, false},
		{"head over maxHead", "HTTP/1.1 200 OK\r\n" + strings.Repeat("X-Filler: "+strings.Repeat("f", 1000)+"\r\n", 1100) + "Content-Length: 2\r\n\r\nok", false, false, false},
		{"64 KiB body", "HTTP/1.1 200 OK\r\nContent-Length: 65536\r\n\r\n" + big, false, false, false},
		{"body over MaxBodyRead", fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", len(huge)) + huge, false, false, false},
		{"429 Retry-After", "HTTP/1.1 429 Slow\r\nRetry-After: 7\r\nContent-Length: 0\r\n\r\n", false, false, false},
		{"redirect", "HTTP/1.1 307 Elsewhere\r\nLocation: /other\r\nContent-Length: 0\r\n\r\n", false, false, false},
		{"body cut short", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", true, false, false},
		{"head cut short", "HTTP/1.1 200 OK\r\nContent-", true, false, false},
		{"closed unanswered", "", true, false, false},
		{"reset unanswered", "", false, true, false},
		{"reset mid-answer", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", false, true, false},
		{"no answer in time", "", false, false, true},
		{"body not in time", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", false, false, true},
		{"long body not in time", "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + big[:40000], false, false, true},
		{"long body cut short", "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + big[:40000], true, false, false},
		{"status 999", "HTTP/1.1 999 Weird\r\nContent-Length: 2\r\n\r\nok", false, false, false},
		{"status 099", "HTTP/1.1 099 Weird\r\nContent-Length: 2\r\n\r\nok", false, false, false},
		{"no status line, then the close", "HELLO", true, false, false},
		{"a SETTINGS frame, then the close", "\x00\x00\x00\x04\x00\x00\x00\x00\x00", true, false, false},
		{"a SETTINGS frame, then nothing", "\x00\x00\x00\x04\x00\x00\x00\x00\x00", false, false, true},
		{"a Trailer naming Content-Length", "HTTP/1.1 200 OK\r\nTrailer: Content-Length\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", false, false, false},
		{"Connection: close, then more", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok" + ok200, false, false, false},
	}
	const calls = 3
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			outcomes := map[string][]string{}
			for _, way := range []string{"worker", "lanes"} {
				srv := newScriptServer(t, func(k int, _ []byte) (string, bool, bool, bool) {
					if k == 0 { // the connection's first call: the worker's path on both
						return ok200, false, false, false
					}
					return tt.answer, tt.close, tt.reset, tt.stall
				})
				c, err := newTestClient(ClientOptions{Timeout: callLimit(tt.stall), Concurrency: 1})
				if err != nil {
					t.Fatal(err)
				}
				d := &Deliverer{Client: c, Target: srv.url(), KeepFailed: true, Expect: func(s int) bool { return s == 200 }}
				report := func(r *Result) {
					outcomes[way] = append(outcomes[way], outcome(r))
					if tt.close && len(outcomes[way]) == 2 {
						// The next call starts once the receiver has
						// closed (an event, not a clock): a close that
						// comes after the look before a call is a race
						// no sender wins, on either path.
						srv.awaitClosed(t)
					}
				}
				if way == "worker" {
					asWorker(d, templates("A", 1), calls, report)
				} else if !asLanes(context.Background(), d, templates("A", 1), calls, report) {
					t.Skip("no event loops here")
				}
				if n := srv.got.Load(); n > calls {
					t.Errorf("%s: the receiver read %d calls, want at most %d (none sent twice)", way, n, calls)
				}
			}
			w, l := outcomes["worker"], outcomes["lanes"]
			if len(w) != calls || len(l) != calls {
				t.Fatalf("deliveries: worker %d, lanes %d, want %d each", len(w), len(l), calls)
			}
			for i := range calls {
				if w[i] != l[i] {
					t.Errorf("delivery %d:\nworker %s\nlanes  %s", i+1, w[i], l[i])
				}
			}
		})
	}
}

// manyLanes makes n deliveries of distinct requestIds on lanes of the
// event loops, and returns each one's outcome by requestId and how many
// were not started.
func manyLanes(t *testing.T, ctx context.Context, d *Deliverer, lanes, n int) (map[string]string, int) {
	t.Helper()
	ids := reqid.NewIDs(7)
	pool := templates("A", 1)
	var mu sync.Mutex
	taken, skipped := 0, 0
	got := map[string]string{}
	ran := d.RunLanes(ctx, Lanes{
		N: lanes,
		Take: func() []*Request {
			mu.Lock()
			defer mu.Unlock()
			if taken == n || ctx.Err() != nil {
				return nil
			}
			taken++
			req := &Request{Event: "A", Query: pool[0][0].Query, Seq: taken}
			req.FromTemplate(&pool[0][0], ids.For("A"), 0)
			return []*Request{req}
		},
		Over: func() bool { return ctx.Err() != nil },
		Done: func(_ int, r *Result) {
			mu.Lock()
			defer mu.Unlock()
			if _, dup := got[r.Request.RequestID]; dup {
				t.Errorf("%s reported twice", r.Request.RequestID)
			}
			got[r.Request.RequestID] = outcome(r)
		},
		Skip: func(_, k int) {
			mu.Lock()
			skipped += k
			mu.Unlock()
		},
	})
	if !ran {
		t.Skip("no event loops here")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got)+skipped != taken {
		t.Errorf("%d reported and %d not started of %d taken", len(got), skipped, taken)
	}
	return got, skipped
}

// Many lanes on a receiver that closes some connections after its
// answer and asks for a retry of some deliveries' first call: every
// delivery is reported once and succeeds after its retries, and the
// receiver reads one call per attempt made, but for those the receiver's
// close met as they went out (the #28 race a look cannot close: the
// close comes after it).
func TestLanesRetryAndRedial(t *testing.T) {
	var calls atomic.Int64
	var mu sync.Mutex
	seen := map[string]bool{}
	srv := newScriptServer(t, func(k int, body []byte) (string, bool, bool, bool) {
		mu.Lock()
		again := seen[string(body)]
		seen[string(body)] = true
		mu.Unlock()
		switch n := calls.Add(1); {
		case n%7 == 0 && !again:
			return "HTTP/1.1 503 Busy\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n", false, false, false
		case n%5 == 0:
			return ok200, true, false, false
		}
		return ok200, false, false, false
	})
	c, err := newTestClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	vs := &virtualSleep{}
	d := &Deliverer{Client: c, Target: srv.url(), Retries: 10, Backoff: DefaultBackoff(func() float64 { return 0 }), Sleep: vs.sleep}
	const n = 500
	got, skipped := manyLanes(t, context.Background(), d, 8, n)
	attempts, closedAsSent := 0, 0
	for id, o := range got {
		if !strings.HasPrefix(o, "ok=true") {
			t.Errorf("%s: %s", id, o)
		}
		attempts += strings.Count(o, " | ")
		closedAsSent += strings.Count(o, "as the call went out")
	}
	if len(got) != n || skipped != 0 {
		t.Errorf("%d delivered, %d not started, want %d and 0", len(got), skipped, n)
	}
	if r := srv.got.Load(); int(r) != attempts-closedAsSent {
		t.Errorf("the receiver read %d calls for %d attempts, %d of them met its close", r, attempts, closedAsSent)
	}
	if len(vs.waits) == 0 || attempts == n {
		t.Errorf("%d backoffs, %d attempts for %d deliveries: no retry was made", len(vs.waits), attempts, n)
	}
	t.Logf("%d attempts, %d retried after a 503, %d met the receiver's close", attempts, len(vs.waits)-closedAsSent, closedAsSent)
}

// Ctrl-C during a run on the loops ends the calls in flight as
// interrupted and starts none after: every delivery taken is reported
// once or counted as not started.
func TestLanesInterrupted(t *testing.T) {
	var calls atomic.Int64
	srv := newScriptServer(t, func(int, []byte) (string, bool, bool, bool) {
		if calls.Add(1) > 40 {
			return "", false, false, true // stalls until the test ends
		}
		return ok200, false, false, false
	})
	c, err := newTestClient(ClientOptions{Timeout: time.Minute, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: c, Target: srv.url()}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Once every lane waits on a stalled call (the receiver read
		// them), Ctrl-C.
		for range 44 {
			<-srv.read
		}
		cancel()
	}()
	got, _ := manyLanes(t, ctx, d, 4, 1000)
	interrupted := 0
	for _, o := range got {
		if strings.Contains(o, "Kind:interrupted") && strings.Contains(o, "context canceled") {
			interrupted++
		} else if !strings.HasPrefix(o, "ok=true") {
			t.Errorf("neither answered nor interrupted: %s", o)
		}
	}
	if interrupted != 4 {
		t.Errorf("%d deliveries interrupted, want the 4 in flight", interrupted)
	}
}

// A call larger than the socket's buffers is written whole on the loop,
// in as many writes as the buffers take.
func TestLanesWriteLargeCall(t *testing.T) {
	body := `{"requestId":"00000000-0000-4000-8000-000000000000","pad":"` + strings.Repeat("p", 16<<20) + `"}`
	var bytes atomic.Int64
	srv := newScriptServer(t, func(_ int, body []byte) (string, bool, bool, bool) {
		bytes.Add(int64(len(body)))
		return ok200, false, false, false
	})
	c, err := newTestClient(ClientOptions{Timeout: time.Minute, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: c, Target: srv.url()}
	pool := [][]Template{{{Event: "A", Query: "businessType=A", Body: []byte(body), IDOff: len(`{"requestId":"`)}}}
	var outcomes []string
	if !asLanes(context.Background(), d, pool, 3, func(r *Result) { outcomes = append(outcomes, outcome(r)) }) {
		t.Skip("no event loops here")
	}
	for i, o := range outcomes {
		if !strings.HasPrefix(o, "ok=true") {
			t.Errorf("call %d: %s", i+1, o)
		}
	}
	if got, want := bytes.Load(), int64(3*len(body)); got != want {
		t.Errorf("the receiver read %d bytes of body, want %d", got, want)
	}
}

// A request that says Connection: close (-H) ends its connection with its
// answer on every path (RFC 9112, 9.6): the next call goes on a new one. A receiver that honours it may close
// only after its answer went out, and a call written on that connection
// in the meantime would be lost.
func TestRequestConnectionCloseEndsTheConnection(t *testing.T) {
	for _, way := range []string{"worker", "lanes"} {
		t.Run(way, func(t *testing.T) {
			t.Parallel()
			var reused atomic.Int64
			srv := newScriptServer(t, func(k int, _ []byte) (string, bool, bool, bool) {
				if k > 0 {
					reused.Add(1)
				}
				return ok200, false, false, false // kept alive by the receiver
			})
			c, err := newTestClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1})
			if err != nil {
				t.Fatal(err)
			}
			d := &Deliverer{Client: c, Target: srv.url()}
			pool := templates("A", 1)
			pool[0][0].Header = http.Header{"Connection": {"keep-alive, Close"}}
			const calls = 6
			ok := 0
			report := func(r *Result) {
				if r.OK {
					ok++
				}
			}
			if way == "worker" {
				asWorker(d, pool, calls, report)
			} else if !asLanes(context.Background(), d, pool, calls, report) {
				t.Skip("no event loops here")
			}
			if ok != calls || reused.Load() != 0 {
				t.Errorf("%d of %d succeeded, %d calls on a connection used before; want all, none", ok, calls, reused.Load())
			}
		})
	}
}

// Bytes after an answer that ends its connection (Connection: close,
// HTTP/1.0) reach no call, and are no answer no call asked for, on the
// loops as on the worker's path and net/http's: the loops counted them,
// and the run failed saying its statuses may not be the calls' own.
func TestLanesCountNoBytesAfterAClosingAnswer(t *testing.T) {
	for _, closing := range []string{
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
	} {
		for _, way := range []string{"worker", "lanes"} {
			t.Run(way+"/"+closing[:8], func(t *testing.T) {
				t.Parallel()
				srv := newScriptServer(t, func(k int, _ []byte) (string, bool, bool, bool) {
					if k == 0 { // the connection's first call: the worker's path on both
						return ok200, false, false, false
					}
					return closing + ok200, false, false, false // more, kept open by the receiver
				})
				c, err := newTestClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1})
				if err != nil {
					t.Fatal(err)
				}
				d := &Deliverer{Client: c, Target: srv.url()}
				const calls = 6
				ok := 0
				report := func(r *Result) {
					if r.OK {
						ok++
					}
				}
				if way == "worker" {
					asWorker(d, templates("A", 1), calls, report)
				} else if !asLanes(context.Background(), d, templates("A", 1), calls, report) {
					t.Skip("no event loops here")
				}
				if ok != calls || d.Unasked() != 0 {
					t.Errorf("%d of %d succeeded, %d connections counted holding bytes no call asked for; want all, none", ok, calls, d.Unasked())
				}
			})
		}
	}
}

// The loops take an answer that comes before their call is written whole
// as the worker does (TestAnswerBeforeTheCallIsWritten): they watched
// only for room to write, and said the receiver closed the kept-alive
// connection as the call went out, or never answered in time.
func TestLanesAnswerBeforeTheCallIsWritten(t *testing.T) {
	pool := earlyPool()
	for _, tt := range earlyAnswers {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := newTestClient(ClientOptions{Timeout: earlyLimit(tt.status, tt.hold), Concurrency: 1})
			if err != nil {
				t.Fatal(err)
			}
			d := &Deliverer{Client: c, Target: earlyServer(t, tt.answer, tt.hold)}
			var got []Attempt
			if !asLanes(context.Background(), d, pool, 2, func(r *Result) { got = append(got, r.Last()) }) {
				t.Skip("no event loops here")
			}
			if a := got[1]; a.Status != tt.status || a.Kind != "" {
				t.Errorf("the large call: %s, want %d", brief(a), tt.status)
			}
		})
	}
}

// A lane holds as much of an answer as a head cut short is judged by on
// the other paths (cutHead), so that the loops say what they say.
func TestLaneHoldsAJudgedHead(t *testing.T) {
	if laneAnswer != maxHeadJudged {
		t.Fatalf("a lane holds %d bytes of an answer, a cut head is judged by %d", laneAnswer, maxHeadJudged)
	}
}
