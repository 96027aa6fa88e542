package attempt

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// readPath is a way an answer is read (paths).
type readPath struct {
	name           string
	worker, follow bool
	keep           bool
}

// paths are the ways an answer is read: net/http's transport called
// directly, Client.Do (redirects followed), and a worker's fast path with
// and without the body kept.
var paths = []readPath{
	{"direct", false, false, true},
	{"client.Do", false, true, true},
	{"raw keep", true, false, true},
	{"raw lean", true, false, false},
}

// once is how deliverOnce makes its delivery: on path p, within timeout,
// over net/http's transport when netHTTP (else as WHSIM_TRANSPORT says),
// with retries attempts after the first (no wait between them).
type once struct {
	p       readPath
	timeout time.Duration
	netHTTP bool
	retries int
}

// deliverOnce makes one delivery of {} to srvURL as o says and returns
// its whole result (a worker's, whose Result is reused, copied).
func deliverOnce(t *testing.T, srvURL string, o once) *Result {
	t.Helper()
	c, err := newTestClient(ClientOptions{Timeout: o.timeout, Concurrency: 1, FollowRedirects: o.p.follow, NetHTTP: o.netHTTP})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	u, err := url.Parse(srvURL)
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: c, Target: u, KeepBody: o.p.keep, Retries: o.retries,
		Sleep: func(context.Context, time.Duration) error { return nil }}
	if !o.p.worker {
		return d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
	}
	var res *Result
	asWorker(d, templates("A", 1), 1, func(r *Result) {
		res = &Result{OK: r.OK, Attempts: append([]Attempt(nil), r.Attempts...)}
	})
	return res
}

// A receiver answering 200 MiB, or without end, has MaxBodyRead of it read
// and no more: the attempt says the body was over, and the receiver's
// writes fail once the connection is closed. Counted in bytes the
// receiver got out, with a bound far above MaxBodyRead plus socket buffers.
func TestHugeAnswerReadOnlyToTheCap(t *testing.T) {
	const huge = 200 << 20
	bodies := []struct {
		name   string
		length bool // Content-Length: 200 MiB, else chunked without end
	}{{"content-length", true}, {"endless chunked", false}}
	for _, p := range paths {
		for _, b := range bodies {
			t.Run(p.name+"/"+b.name, func(t *testing.T) {
				var wrote atomic.Int64
				done := make(chan struct{}, 1)
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					defer func() { done <- struct{}{} }()
					if b.length {
						w.Header().Set("Content-Length", strconv.Itoa(huge))
					}
					chunk := make([]byte, 64<<10)
					for i := range chunk {
						chunk[i] = 'x'
					}
					for !b.length || wrote.Load() < huge {
						n, err := w.Write(chunk)
						wrote.Add(int64(n))
						if err != nil {
							return
						}
					}
				}))
				defer srv.Close()
				a := deliverOnce(t, srv.URL, once{p: p, timeout: time.Minute}).Last()
				if a.Status != 200 || !a.Oversized || a.BodyKind != "" || a.Kind != "" {
					t.Errorf("attempt %s, want 200 with the body over", brief(a))
				}
				select {
				case <-done:
				case <-time.After(time.Minute): // a guard, not a measure
					t.Fatalf("the receiver still writes after %d bytes: the answer is read on", wrote.Load())
				}
				if n := wrote.Load(); n > 64<<20 {
					t.Errorf("the receiver got %d bytes out, want the reading stopped near %d", n, MaxBodyRead)
				}
			})
		}
	}
}

// A body that stops coming, or comes a byte at a time, ends with the
// attempt's time limit: the status came, the body did not finish, on
// every path alike (the fast path once counted it a timeout with no
// answer, so -v changed the verdict).
func TestUnfinishedAnswerEndsWithTheTimeLimit(t *testing.T) {
	bodies := []struct {
		name string
		drip bool
	}{{"stalled", false}, {"drip", true}}
	for _, p := range paths {
		for _, b := range bodies {
			t.Run(p.name+"/"+b.name, func(t *testing.T) {
				t.Parallel() // each waits out its time limit
				release := make(chan struct{})
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Length", "100000")
					w.Write([]byte("partial"))
					w.(http.Flusher).Flush()
					for b.drip {
						select {
						case <-release:
							return
						case <-time.After(5 * time.Millisecond):
						}
						if _, err := w.Write([]byte("x")); err != nil {
							return
						}
						w.(http.Flusher).Flush()
					}
					<-release
				}))
				defer srv.Close()
				defer close(release)
				// The limit the unfinished body reaches; the head comes at
				// once, well inside it even on a busy machine.
				a := deliverOnce(t, srv.URL, once{p: p, timeout: time.Second}).Last()
				if a.Status != 200 || a.BodyKind != KindTimeout || a.Kind != "" {
					t.Errorf("attempt %s, want 200 with the body unfinished by the time limit", brief(a))
				}
			})
		}
	}
}

// An answer whose head never ends is cut at maxHead, on every path.
func TestEndlessHeadCut(t *testing.T) {
	for _, p := range paths {
		release := make(chan struct{})
		var wrote atomic.Int64
		srv := httptest.NewUnstartedServer(nil)
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, bw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			defer c.Close()
			bw.WriteString("HTTP/1.1 200 OK\r\n")
			line := []byte("X-Filler: 0123456789012345678901234567890123456789\r\n")
			for {
				n, err := bw.Write(line)
				wrote.Add(int64(n))
				if err != nil {
					return
				}
				select {
				case <-release:
					return
				default:
				}
			}
		})
		srv.Start()
		a := deliverOnce(t, srv.URL, once{p: p, timeout: time.Minute}).Last()
		close(release)
		srv.Close()
		if a.Status != 0 || a.Kind != KindMalformed {
			t.Errorf("%s: attempt %s, want a malformed answer for the head", p.name, brief(a))
		}
		if n := wrote.Load(); n > 64<<20 {
			t.Errorf("%s: the receiver got %d bytes of head out", p.name, n)
		}
	}
}

// Normal answers are read whole on every path, the connection kept.
func TestNormalAnswerUnchanged(t *testing.T) {
	for _, p := range paths {
		var conns atomic.Int64
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write(make([]byte, MaxBodyRead)) // at the cap, not over
		}))
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}
		srv.Start()
		c, _ := newTestClient(ClientOptions{Timeout: time.Minute, Concurrency: 1, FollowRedirects: p.follow})
		u, _ := url.Parse(srv.URL)
		d := &Deliverer{Client: c, Target: u, KeepBody: p.keep}
		var got []Attempt
		if p.worker {
			asWorker(d, templates("A", 1), 3, func(r *Result) { got = append(got, r.Last()) })
		} else {
			for range 3 {
				got = append(got, d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}).Last())
			}
		}
		srv.Close()
		for _, a := range got {
			if a.Status != 200 || a.Oversized || a.BodyKind != "" || a.Truncated || a.Kind != "" {
				t.Errorf("%s: attempt %s, want a plain 200", p.name, brief(a))
			}
		}
		if n := conns.Load(); n != 1 {
			t.Errorf("%s: %d connections for 3 calls, want 1 kept alive", p.name, n)
		}
	}
}

// brief is an attempt without its body, for test failures.
func brief(a Attempt) string {
	return fmt.Sprintf("{status %d kind %q err %q oversized %v bodyKind %q truncated %v}", a.Status, a.Kind, a.Err, a.Oversized, a.BodyKind, a.Truncated)
}

// An answer whose body ends before its declared length, or whose chunks
// are cut off, fails its delivery whatever its status and is tried again,
// on every path alike, its status kept; the answer after it is taken.
func TestUnfinishedAnswerFailsOnEveryPath(t *testing.T) {
	for _, cut := range []struct{ name, answer, why string }{
		{"short body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok", "answer cut short"},
		{"chunks cut off", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n5\r\nab", "answer cut short"},
		{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n", "answer body unreadable (invalid byte in chunk length)"},
	} {
		for _, p := range paths {
			t.Run(cut.name+"/"+p.name, func(t *testing.T) {
				t.Parallel()
				var calls atomic.Int64
				srv := newScriptServer(t, func(int, []byte) (string, bool, bool, bool) {
					if calls.Add(1) == 1 {
						return cut.answer, true, false, false
					}
					return ok200, false, false, false
				})
				c, err := newTestClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, FollowRedirects: p.follow})
				if err != nil {
					t.Fatal(err)
				}
				d := &Deliverer{Client: c, Target: srv.url(), KeepBody: p.keep, Retries: 1, Backoff: DefaultBackoff(nil),
					Sleep: func(context.Context, time.Duration) error { return nil }}
				var res *Result
				if p.worker {
					asWorker(d, templates("A", 1), 1, func(r *Result) { res = r })
				} else {
					res = d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
				}
				if len(res.Attempts) != 2 || !res.OK {
					t.Fatalf("ok %v after %d attempts, want ok after 2", res.OK, len(res.Attempts))
				}
				first := res.Attempts[0]
				if first.Status != 200 || first.Kind != "" || first.Unfinished() != cut.why {
					t.Errorf("first attempt %s (%q), want 200 with %q", brief(first), first.Unfinished(), cut.why)
				}
				if n := srv.got.Load(); n != 2 {
					t.Errorf("the receiver read %d calls, want 2", n)
				}
			})
		}
	}
}

// An answer's head is read up to maxHead on every path alike, however its
// lines fall: lines longer than the fast path's 4 KiB buffer are taken, as
// net/http takes them, and a head (the 1xx answers before it included, as
// net/http counts them) past maxHead is refused, as net/http refuses it,
// where the fast path read on to its whole answer's cap.
func TestHeadReadToMaxHeadOnEveryPath(t *testing.T) {
	field := func(n int) string { return "X-Filler: " + strings.Repeat("f", n) + "\r\n" }
	heads := []struct {
		name, answer string
		status       int // 0: refused
	}{
		{"a 5 KiB field", "HTTP/1.1 200 OK\r\n" + field(5000) + "Content-Length: 2\r\n\r\nok", 200},
		{"a 5 KiB reason", "HTTP/1.1 200 " + strings.Repeat("r", 5000) + "\r\nContent-Length: 2\r\n\r\nok", 200},
		{"a 500 KiB field", "HTTP/1.1 200 OK\r\n" + field(500<<10) + "Content-Length: 2\r\n\r\nok", 200},
		{"1.1 MiB of head", "HTTP/1.1 200 OK\r\n" + strings.Repeat(field(1000), 1100) + "Content-Length: 2\r\n\r\nok", 0},
		{"a 1.1 MiB field", "HTTP/1.1 200 OK\r\n" + field(1100<<10) + "Content-Length: 2\r\n\r\nok", 0},
		{"1xx heads over 1 MiB", strings.Repeat("HTTP/1.1 103 Early Hints\r\n"+field(1000)+"\r\n", 1100) + ok200, 0},
	}
	for _, p := range paths {
		for _, h := range heads {
			t.Run(p.name+"/"+h.name, func(t *testing.T) {
				t.Parallel()
				srv := newScriptServer(t, func(int, []byte) (string, bool, bool, bool) { return h.answer, false, false, false })
				a := deliverOnce(t, srv.url().String(), once{p: p, timeout: time.Minute}).Last()
				switch {
				case h.status == 0 && (a.Status != 0 || a.Kind != KindMalformed):
					t.Errorf("attempt %s, want the head refused as a malformed answer", brief(a))
				case h.status != 0 && (a.Status != h.status || a.Kind != "" || a.Unfinished() != ""):
					t.Errorf("attempt %s, want %d", brief(a), h.status)
				}
			})
		}
	}
}

// An answer whose body runs past MaxBodyRead ends its connection, on
// every path, over TLS too: Go 1.27's transport read on the body closed
// at the cap, when the rest was short (here a chunked body 100 KiB past
// it), and kept the connection for the next call. The receiver answers a
// connection's first call so, and any other 500.
func TestOversizedAnswerEndsItsConnection(t *testing.T) {
	chunk := strings.Repeat("x", 100<<10)
	var over strings.Builder
	over.WriteString("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
	for range (MaxBodyRead + 100<<10) / len(chunk) {
		fmt.Fprintf(&over, "%x\r\n%s\r\n", len(chunk), chunk)
	}
	over.WriteString("0\r\n\r\n")
	script := func(k int, _ []byte) (string, bool, bool, bool) {
		if k == 0 {
			return over.String(), false, false, false
		}
		return "HTTP/1.1 500 Reused\r\nContent-Length: 0\r\n\r\n", false, false, false
	}
	for _, netHTTP := range []bool{false, true} {
		for _, p := range paths {
			for _, overTLS := range []bool{false, true} {
				t.Run(fmt.Sprintf("net/http %v/%s/tls %v", netHTTP, p.name, overTLS), func(t *testing.T) {
					t.Parallel()
					srv, roots := newScriptServer(t, script), (*x509.CertPool)(nil)
					if overTLS {
						srv, roots = tlsScriptServer(t, script)
					}
					c, err := NewClient(ClientOptions{Timeout: time.Minute, Concurrency: 1, FollowRedirects: p.follow, NetHTTP: netHTTP, RootCAs: roots})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(c.CloseIdleConnections)
					d := &Deliverer{Client: c, Target: srv.url(), KeepBody: p.keep}
					var got []Attempt
					next := func(r *Result) { got = append(got, r.Last()) }
					if p.worker {
						asWorker(d, templates("A", 1), 3, next)
					} else {
						for range 3 {
							next(d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}))
						}
					}
					for i, a := range got {
						if a.Status != 200 || !a.Oversized || a.Kind != "" {
							t.Errorf("call %d: %s, want 200 with the body over, on a new connection", i+1, brief(a))
						}
					}
				})
			}
		}
	}
}

// An answer's kept start ends where a character ends: a body of Chinese
// text cut at MaxBodyPrefix bytes keeps no half of a character, which
// every excerpt would show as bytes the receiver never sent (\xe6\xb6).
// A byte that is not UTF-8 before the cut is kept as it came.
func TestBodyPrefixEndsOnACharacter(t *testing.T) {
	bodies := []struct {
		name, body, want string
	}{
		{"cut inside a character", strings.Repeat("很", 100), strings.Repeat("很", MaxBodyPrefix/3)},
		{"cut after a whole character", "ab" + strings.Repeat("很", 100), "ab" + strings.Repeat("很", (MaxBodyPrefix-2)/3)},
		{"a stray byte before the cut", strings.Repeat("a", MaxBodyPrefix-1) + "\xff" + "tail", strings.Repeat("a", MaxBodyPrefix-1) + "\xff"},
		{"shorter than the cut", "很好", "很好"},
	}
	for _, p := range paths {
		for _, b := range bodies {
			t.Run(p.name+"/"+b.name, func(t *testing.T) {
				t.Parallel()
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					io.Copy(io.Discard, r.Body)
					w.WriteHeader(http.StatusInternalServerError)
					io.WriteString(w, b.body)
				}))
				defer srv.Close()
				a := deliverOnce(t, srv.URL, once{p: p, timeout: 5 * time.Second}).Last()
				if a.Status != http.StatusInternalServerError {
					t.Fatalf("%s, want 500", brief(a))
				}
				if !p.keep && len(a.BodyPrefix) == 0 {
					return // a lean call keeps no body to show
				}
				if got := string(a.BodyPrefix); got != b.want {
					t.Errorf("BodyPrefix %q, want %q", got, b.want)
				}
			})
		}
	}
}
