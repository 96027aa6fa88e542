package attempt

import (
	"context"
	"crypto/x509"
	"fmt"
	"strings"
	"testing"
	"time"
)

// An answer that is no HTTP/1.x answer is a malformed answer on every path
// and transport alike, in the reader's words, and retried as a 5xx is (the
// receiver's fault, which a proxy in front of it may make of one answer
// and not the next): it was counted "error", a kind that said nothing,
// with its words only on the call's own line. Bytes no status line starts
// with, then the connection's end, are one too (the fast path said
// "connection closed" of them, net/http's path and -v "malformed HTTP
// response"); so is an HTTP/2 SETTINGS frame, however long the receiver
// then holds the connection (the fast path waited for a line's end and
// said "timeout").
func TestMalformedAnswerOnEveryPath(t *testing.T) {
	const settings = "\x00\x00\x00\x04\x00\x00\x00\x00\x00"
	for _, tc := range []struct {
		name, answer string
		close, stall bool
		want         string // ShortError's words, or what they hold
	}{
		{"two Content-Lengths", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\nok", false, false,
			`malformed answer: message cannot contain multiple Content-Length headers; got ["2" "5"]`},
		// Three digits below 100: 0 is whsim's word for no answer (600 to
		// 999 is an answer: TestStatusBeyond599IsAnAnswer).
		{"status 099", "HTTP/1.1 099 Weird\r\nContent-Length: 2\r\n\r\nok", false, false,
			`malformed answer: malformed HTTP status code "099 Weird"`},
		{"no status line", "HELLO\r\n\r\n", false, false,
			`malformed answer: malformed HTTP response "HELLO"`},
		{"a field without a colon", "HTTP/1.1 200 OK\r\nXA\r\nContent-Length: 2\r\n\r\nok", false, false,
			`malformed answer: malformed MIME header: missing colon: "XA"`},
		{"an unknown transfer coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nok", false, false,
			`malformed answer: unsupported transfer encoding: "gzip"`},
		{"a trailer announcing a framing field", "HTTP/1.1 200 OK\r\nTrailer: Content-Length\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", false, false,
			`malformed answer: bad trailer key "Content-Length"`},
		{"bytes, then the close", "HELLO", true, false,
			`malformed answer: malformed HTTP response "HELLO"`},
		{"a SETTINGS frame, then the close", settings, true, false, "SETTINGS frame"},
		{"a SETTINGS frame, then nothing", settings, false, true, "SETTINGS frame"},
	} {
		for _, netHTTP := range []bool{false, true} {
			for _, p := range paths {
				t.Run(fmt.Sprintf("%s/net/http %v/%s", tc.name, netHTTP, p.name), func(t *testing.T) {
					t.Parallel()
					srv := newScriptServer(t, func(int, []byte) (string, bool, bool, bool) {
						return tc.answer, tc.close, false, tc.stall
					})
					// The time limit only a stalled answer reaches.
					res := deliverOnce(t, srv.url().String(), once{p: p, timeout: time.Second, netHTTP: netHTTP, retries: 1})
					a := res.Last()
					if got := ShortError(a); a.Status != 0 || a.Kind != KindMalformed || !strings.Contains(got, tc.want) {
						t.Errorf("%s, said %q; want a malformed answer, said %q", brief(a), got, tc.want)
					}
					if res.OK || len(res.Attempts) != 2 {
						t.Errorf("ok %v after %d attempts, want a failure after 2 (retried)", res.OK, len(res.Attempts))
					}
				})
			}
		}
	}
}

// The connection an answer that is no HTTP/1.x answer came on carries no
// other call, on every path, over TLS too: Go 1.27's transport reads on a
// body closed unread and keeps its connection, so net/http's path sent
// the next call on the connection that had answered "HTTP/1.1 099 Weird",
// where the fast path opens a new one. The receiver here answers a
// connection's first call 200 and the others as the row says: each call
// after a malformed answer goes on a new connection and is answered 200.
func TestMalformedAnswerEndsItsConnection(t *testing.T) {
	for _, tc := range []struct{ name, answer string }{
		{"status 099", "HTTP/1.1 099 Weird\r\nContent-Length: 2\r\n\r\nok"},
		{"version 2.0", "HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\nok"},
		{"no status line", "HELLO\r\n\r\n"},
	} {
		for _, netHTTP := range []bool{false, true} {
			for _, p := range paths {
				for _, overTLS := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/net/http %v/%s/tls %v", tc.name, netHTTP, p.name, overTLS), func(t *testing.T) {
						t.Parallel()
						script := func(k int, _ []byte) (string, bool, bool, bool) {
							if k == 0 {
								return ok200, false, false, false
							}
							return tc.answer, false, false, false
						}
						srv, roots := newScriptServer(t, script), (*x509.CertPool)(nil)
						if overTLS {
							srv, roots = tlsScriptServer(t, script)
						}
						malformedConnEnds(t, srv, roots, netHTTP, p.worker, p.follow, p.keep)
					})
				}
			}
		}
	}
}

// malformedConnEnds makes six calls to srv, which answers each
// connection's first call 200 and the others malformed, and wants them
// answered in turn, each after a malformed answer on a new connection.
func malformedConnEnds(t *testing.T, srv *scriptServer, roots *x509.CertPool, netHTTP, worker, follow, keep bool) {
	c, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, FollowRedirects: follow, NetHTTP: netHTTP, RootCAs: roots})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	d := &Deliverer{Client: c, Target: srv.url(), KeepBody: keep}
	var got []string
	next := func(r *Result) {
		a := r.Last()
		if a.Status != 0 {
			got = append(got, fmt.Sprint(a.Status))
		} else {
			got = append(got, a.Kind)
		}
	}
	const calls = 6
	if worker {
		asWorker(d, templates("A", 1), calls, next)
	} else {
		for range calls {
			next(d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}))
		}
	}
	want := []string{"200", KindMalformed, "200", KindMalformed, "200", KindMalformed}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("calls got %q, want %q", got, want)
	}
}
