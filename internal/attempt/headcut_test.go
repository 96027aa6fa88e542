package attempt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// transports are the ways a run's calls go out whose words and counts
// must agree: net/http's transport, the worker's fast path (a single
// send's, and WHSIM_TRANSPORT=goroutines's, a goroutine per connection),
// its body kept (check, -v: net/http's reader on the fast path's
// connection), and the event loops' lanes (load's closed runs), Linux
// only.
var transports = []string{"net/http", "worker", "worker keep", "lanes"}

// twoCalls makes two calls to srv on one transport, the second on the
// connection the first was answered on, and returns each one's last
// attempt; ok false where the transport is none of this system's.
func twoCalls(t *testing.T, srv *scriptServer, transport string) (got []Attempt, ok bool) {
	t.Helper()
	res, ok := calls(t, srv, transport, 2)
	for _, r := range res {
		got = append(got, r.Last())
	}
	return got, ok
}

// calls makes n calls to srv on one transport, one after another on one
// connection while it is kept, without retries, and returns their
// results; ok false where the transport is none of this system's.
func calls(t *testing.T, srv *scriptServer, transport string, n int) (got []*Result, ok bool) {
	t.Helper()
	got, _, ok = callsTo(t, srv.url().String(), transport, n, nil)
	return got, ok
}

// callsTo is calls to target, with after (when not nil) run after each
// call, before the next, with its result; it returns the Deliverer too.
func callsTo(t *testing.T, target, transport string, n int, after func(*Result)) (got []*Result, d *Deliverer, ok bool) {
	t.Helper()
	c, err := NewClient(ClientOptions{Timeout: callLimit(false), Concurrency: 1, NetHTTP: transport == "net/http"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	d = &Deliverer{Client: c, Target: u, KeepBody: transport == "worker keep"}
	next := func(r *Result) {
		got = append(got, &Result{OK: r.OK, Attempts: append([]Attempt(nil), r.Attempts...)})
		if after != nil {
			after(r)
		}
	}
	switch transport {
	case "lanes":
		ok := asLanes(context.Background(), d, templates("A", 1), n, next)
		return got, d, ok
	case "net/http":
		for range n {
			next(d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}))
		}
	default:
		asWorker(d, templates("A", 1), n, next)
	}
	return got, d, true
}

// A receiver that closes the connection in the middle of its answer's
// head (in a header line, in a header's value, in the status line, before
// the head's end) gave no whole answer: the call's connection was closed
// unanswered (KindClosed, counted with those), and the words say where
// the head was cut, on every transport alike, as listen --forward-to
// says it. net/http's reader takes the cut line for a whole one and
// refuses it, and both paths said "malformed answer: malformed MIME
// header: missing colon" of "Content-Le", "malformed HTTP status code"
// of "HTTP/1.1 2", and a bare "connection closed" of the others. A whole
// line refused stays a malformed answer.
func TestHeadCutShortIsNoWholeAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, answer, kind, words string
	}{
		{"in a header's name", "HTTP/1.1 200 OK\r\nContent-Le", KindClosed,
			`the receiver closed the connection in a header line of its answer's head, after 27 bytes ("HTTP/1.1 200 OK\r\nContent-Le"): no whole answer came`},
		{"in a header's value", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chun", KindClosed,
			`the receiver closed the connection in a header line of its answer's head, after 40 bytes ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chun"): no whole answer came`},
		{"in the status line", "HTTP/1.1 2", KindClosed,
			`the receiver closed the connection in the status line of its answer's head, after 10 bytes ("HTTP/1.1 2"): no whole answer came`},
		{"before the head's end", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", KindClosed,
			`the receiver closed the connection before the end of its answer's head, after 36 bytes ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"): no whole answer came`},
		{"after a 100 Continue", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-A", KindClosed,
			`the receiver closed the connection in a header line of its answer's head, after 45 bytes ("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-A"): no whole answer came`},
		{"a whole line refused", "HTTP/1.1 200 OK\r\nContent-Length 5\r\n", KindMalformed,
			`malformed answer: malformed MIME header: missing colon: "Content-Length 5"`},
		{"a whole line refused, then a cut one", "HTTP/1.1 200 OK\r\nno colon\r\nContent-Le", KindMalformed,
			`malformed answer: malformed MIME header: missing colon: "no colon"`},
	} {
		for _, tr := range transports {
			t.Run(fmt.Sprintf("%s/%s", tc.name, tr), func(t *testing.T) {
				t.Parallel()
				srv := newScriptServer(t, func(k int, _ []byte) (string, bool, bool, bool) {
					if k == 0 {
						return ok200, false, false, false
					}
					return tc.answer, true, false, false
				})
				got, ok := twoCalls(t, srv, tr)
				if !ok {
					t.Skip("no event loops here")
				}
				if len(got) != 2 || got[0].Status != 200 {
					t.Fatalf("got %d calls, the first %s; want two, the first answered 200", len(got), brief(got[0]))
				}
				a := got[1]
				if a.Status != 0 || a.Kind != tc.kind || ShortError(a) != tc.words {
					t.Errorf("the cut call: %s, said %q; want %s, said %q", brief(a), ShortError(a), tc.kind, tc.words)
				}
				if a.ClosedAsSent || a.EndedAfterSent {
					t.Errorf("the cut call says it may have been taken (as sent %v, after sent %v): an answer had begun", a.ClosedAsSent, a.EndedAfterSent)
				}
			})
		}
	}
}

// An answer's bytes, then the connection's end: the fast path's reader
// (readLean) and net/http's (the body kept) both say it is a head cut
// short, in the same words, or neither does; and what they say so of is
// no answer net/http reads whole.
func FuzzCutHeadSameOnBothReaders(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Le",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chun",
		"HTTP/1.1 2",
		"HTTP/1.1 200 OK\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length 5\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-A",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nX: a\r\n b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		said := func(keep bool) error {
			lim := capReader{r: strings.NewReader(answer)}
			lim.headStart()
			var resp http.Response
			var pre []byte
			_, err := (&Deliverer{KeepBody: keep}).readAnswer(bufio.NewReader(&lim), http.MethodPost, &resp, &pre, &lim)
			return err
		}
		lean, keep := said(false), said(true)
		var l, k headCutError
		leanCut, keepCut := errors.As(lean, &l), errors.As(keep, &k)
		if leanCut != keepCut || l != k {
			t.Fatalf("%q: the fast path said %v, net/http's reader %v", answer, lean, keep)
		}
		if leanCut {
			if resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(answer)), nil); err == nil && resp.StatusCode >= 200 {
				t.Fatalf("%q: said cut short (%v), and net/http reads a whole head", answer, lean)
			}
		}
	})
}

// Over TLS (HTTP/1.1: the receiver offers no h2), where net/http's path
// makes every call, a head the receiver's close cut says so the same way:
// the bytes are kept above the records.
func TestHeadCutShortOverTLS(t *testing.T) {
	t.Parallel()
	srv, roots := tlsScriptServer(t, func(k int, _ []byte) (string, bool, bool, bool) {
		if k == 0 {
			return ok200, false, false, false
		}
		return "HTTP/1.1 200 OK\r\nContent-Le", true, false, false
	})
	c, err := NewClient(ClientOptions{Timeout: callLimit(false), Concurrency: 1, RootCAs: roots})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	d := &Deliverer{Client: c, Target: srv.url()}
	var got []Attempt
	for range 2 {
		got = append(got, d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}).Last())
	}
	const want = `the receiver closed the connection in a header line of its answer's head, after 27 bytes ("HTTP/1.1 200 OK\r\nContent-Le"): no whole answer came`
	if got[0].Status != 200 || got[1].Kind != KindClosed || ShortError(got[1]) != want {
		t.Errorf("calls: %s, then %s said %q; want 200, then %s said %q", brief(got[0]), brief(got[1]), ShortError(got[1]), KindClosed, want)
	}
}
