package attempt

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tlsScriptServer is a scriptServer over TLS (HTTP/1.1 only, as a
// receiver that offers no h2), and the roots that trust its certificate.
func tlsScriptServer(t *testing.T, script func(k int, body []byte) (string, bool, bool, bool)) (*scriptServer, *x509.CertPool) {
	t.Helper()
	// httptest's certificate, for 127.0.0.1: the server itself is not
	// started.
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.StartTLS()
	cert, roots := ts.TLS.Certificates[0], x509.NewCertPool()
	roots.AddCert(ts.Certificate())
	ts.Close()
	s := newScriptServer(t, script)
	s.ln.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}})
	s.tls = true
	go func() {
		for {
			c, err := s.ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return s, roots
}

// net/http sends a call again on a new connection, on its own, when a
// kept-alive one fails after the call went out and the call is one it
// deems safe to repeat (an Idempotency-Key or X-Idempotency-Key header):
// the receiver read a call whsim never counted, and the delivery's answer
// was the copy's. Whatever the header, over HTTP or HTTPS, each call the
// receiver reads is one of the delivery's attempts: the failed one is
// reported as such, and sent again only as a counted retry (--retries).
// A call nothing of which went out (the receiver closed the connection
// after its answer) is still made on a new connection, unseen.
func TestNetHTTPSendsNoUncountedCopy(t *testing.T) {
	headers := []struct {
		name   string
		header http.Header
	}{
		{"no header", nil},
		{"Idempotency-Key", http.Header{"Idempotency-Key": {"k"}}},
		{"X-Idempotency-Key", http.Header{"X-Idempotency-Key": {"k"}}},
	}
	hangUps := []struct {
		name        string
		reset, kind string
	}{
		{"reset", "reset", KindReset},
		{"closed", "close", KindClosed},
	}
	for _, scheme := range []string{"http", "https"} {
		for _, p := range paths[:3] { // direct, client.Do, a worker's
			for _, h := range headers {
				t.Run(scheme+"/"+p.name+"/"+h.name+"/closed after each answer", func(t *testing.T) {
					t.Parallel()
					closing := func(int, []byte) (string, bool, bool, bool) { return ok200, true, false, false }
					o := ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, FollowRedirects: p.follow, NetHTTP: true}
					var srv *scriptServer
					if scheme == "https" {
						srv, o.RootCAs = tlsScriptServer(t, closing)
					} else {
						srv = newScriptServer(t, closing)
					}
					c, err := NewClient(o)
					if err != nil {
						t.Fatal(err)
					}
					d := &Deliverer{Client: c, Target: srv.url()}
					const calls = 4
					next := func(r *Result) {
						if !r.OK || r.Tries() != 1 {
							t.Errorf("a call to a receiver that closed the connection after the last answer: %+v", r.Attempts)
							return
						}
						srv.awaitClosed(t) // the next call starts once the receiver has closed
					}
					if p.worker {
						pool := templates("A", 1)
						pool[0][0].Header = h.header
						asWorker(d, pool, calls, next)
					} else {
						for range calls {
							next(d.Deliver(context.Background(), &Request{Header: h.header, Body: []byte(`{}`)}))
						}
					}
					if got := srv.got.Load(); got != calls {
						t.Errorf("the receiver read %d calls, want %d", got, calls)
					}
				})
				for _, hu := range hangUps {
					for _, retries := range []int{0, 1} {
						name := strings.Join([]string{scheme, p.name, h.name, hu.name, "retries " + string(rune('0'+retries))}, "/")
						t.Run(name, func(t *testing.T) {
							t.Parallel()
							// The first call on a connection is answered and
							// the connection kept; a later one is read whole,
							// then the connection ends with no answer.
							script := func(k int, _ []byte) (string, bool, bool, bool) {
								if k == 0 {
									return ok200, false, false, false
								}
								return "", hu.reset == "close", hu.reset == "reset", false
							}
							o := ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, FollowRedirects: p.follow, NetHTTP: true}
							var srv *scriptServer
							if scheme == "https" {
								srv, o.RootCAs = tlsScriptServer(t, script)
							} else {
								srv = newScriptServer(t, script)
							}
							c, err := NewClient(o)
							if err != nil {
								t.Fatal(err)
							}
							d := &Deliverer{Client: c, Target: srv.url(), Retries: retries,
								Sleep: func(context.Context, time.Duration) error { return nil }}
							var results []*Result
							keep := func(r *Result) {
								cp := *r
								cp.Attempts = append([]Attempt(nil), r.Attempts...)
								results = append(results, &cp)
							}
							if p.worker {
								pool := templates("A", 1)
								pool[0][0].Header = h.header
								asWorker(d, pool, 2, keep)
							} else {
								for range 2 {
									keep(d.Deliver(context.Background(), &Request{Header: h.header, Body: []byte(`{}`)}))
								}
							}
							tries := 0
							for _, r := range results {
								tries += r.Tries()
							}
							if got := srv.got.Load(); got != int64(tries) {
								t.Errorf("the receiver read %d calls, the deliveries made %d attempts: %+v", got, tries, results[1].Attempts)
							}
							second := results[1]
							if first := second.Attempts[0]; first.Status != 0 || first.Kind != hu.kind {
								t.Errorf("the call the receiver read and %s without an answer is %+v, want kind %q", hu.name, first, hu.kind)
							}
							if want := retries + 1; second.Tries() != want || second.OK != (retries > 0) {
								t.Errorf("the second delivery made %d attempts (ok %v), want %d", second.Tries(), second.OK, want)
							}
						})
					}
				}
			}
		}
	}
}

// A connection given a copy of a call that went out refuses it, and
// net/http's writer closes it while its reader waits on it: whatever that
// reader then meets (the close, or over TLS the EOF of the receiver's
// close_notify in answer to ours) is the refusal, so that the round trip
// says the try's own failure whichever of the two errors it takes. It
// took the reader's "use of closed network connection" a few times in a
// hundred under load (TestNetHTTPSendsNoUncountedCopyOfAnEmptyCall).
func TestRefusedConnectionReadsAsTheRefusal(t *testing.T) {
	for _, tt := range []struct {
		name string
		end  func(wc *watchConn, server net.Conn)
	}{
		{"closed under the read", func(wc *watchConn, _ net.Conn) { wc.Close() }},
		{"ended by the receiver", func(_ *watchConn, server net.Conn) { server.Close() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client, server := net.Pipe()
			defer server.Close()
			wc := newWatchConn(client, nil)
			var refusal error = sentError{cause: syscall.ECONNRESET}
			wc.refuse.Store(&refusal)
			if _, err := wc.Write([]byte("POST")); err != refusal {
				t.Fatalf("the write of the copy: %v, want the refusal", err)
			}
			tt.end(wc, server)
			if _, err := wc.Read(make([]byte, 1)); err != refusal || Classify(err) != KindReset {
				t.Errorf("the read after the refusal: %v (kind %q), want the refusal, kind %q", err, Classify(err), KindReset)
			}
		})
	}
}

// callConn lets net/http have the body again only for a try none of
// which can have reached the receiver: nothing of it was begun before the
// read that met the connection's end returned (bytes begun after it, a
// TLS close_notify the close writes, are no part of the call), or an
// answer came (a redirect).
func TestCallConnResend(t *testing.T) {
	tests := []struct {
		name string
		// steps on the connection after it is given the call: "write" (a
		// byte of the call), "unwritten" (a write of the call that fails
		// having written nothing: the receiver's close came first),
		// "fail" (a read meets the receiver's close), "refused" (a write
		// on a connection found unfit), "answer".
		steps []string
		sent  bool
	}{
		{"nothing written", []string{"fail"}, false},
		{"written, then the read failed", []string{"write", "fail"}, true},
		{"a write that wrote nothing, then the read failed", []string{"unwritten", "fail"}, false},
		{"written, a write that wrote nothing, then the read failed", []string{"write", "unwritten", "fail"}, true},
		{"the read failed, then bytes of the close", []string{"fail", "write"}, false},
		{"the write refused", []string{"refused", "fail"}, false},
		{"answered, then a redirect", []string{"write", "answer", "fail"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, server := net.Pipe()
			defer server.Close()
			wc := newWatchConn(client, nil)
			go func() { _, _ = io.Copy(io.Discard, server) }()
			if _, err := wc.Write([]byte("earlier call")); err != nil {
				t.Fatal(err)
			}
			var call callConn
			call.got(httptrace.GotConnInfo{Conn: wc, Reused: true})
			for _, step := range tt.steps {
				switch step {
				case "write":
					// Begun, whether or not the receiver is still there.
					_, _ = wc.Write([]byte("POST / HTTP/1.1\r\n"))
				case "unwritten":
					server.Close()
					if n, err := wc.Write([]byte("POST / HTTP/1.1\r\n")); n != 0 || err == nil {
						t.Fatalf("a write after the receiver's close: %d, %v", n, err)
					}
				case "refused":
					wc.closed.Store(true) // net/http's reader met the receiver's close
					if wc.ready(context.Background()) {
						t.Fatal("a closed connection found ready")
					}
					if _, err := wc.Write([]byte("POST")); err != errUnfit {
						t.Fatalf("a write on an unfit connection: %v", err)
					}
				case "fail":
					server.Close()
					if _, err := wc.Read(make([]byte, 1)); err == nil {
						t.Fatal("a read of a closed connection did not fail")
					}
				case "answer":
					call.answered.Store(true)
				}
			}
			err := call.resend()
			if (err != nil) != tt.sent {
				t.Fatalf("resend() = %v, want refused %v", err, tt.sent)
			}
			if err != nil && Classify(err) != KindClosed {
				t.Errorf("the refusal %q is of kind %q, want %q", err, Classify(err), KindClosed)
			}
		})
	}
	// A connection that is none of NewClient's watched ones: not known.
	var call callConn
	call.got(httptrace.GotConnInfo{Conn: &net.TCPConn{}})
	if err := call.resend(); err != nil {
		t.Errorf("resend() on a connection not watched = %v", err)
	}
}

// A kept-alive TLS connection the receiver closed (close_notify, then its
// FIN) is found before a call is written on it, as a plain one is: the
// call goes on a new connection, never blamed on the receiver ("connection
// closed") when net/http had not yet read the close. Each call waits for
// the receiver's close; the race with net/http's read of it is run many
// times.
func TestTLSClosedConnectionFoundBeforeTheCall(t *testing.T) {
	srv, roots := tlsScriptServer(t, func(int, []byte) (string, bool, bool, bool) { return ok200, true, false, false })
	c, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, RootCAs: roots, NetHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: c, Target: srv.url()}
	const calls = 200
	failed := 0
	for range calls {
		r := d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
		if !r.OK || r.Tries() != 1 {
			failed++
			t.Logf("a call after the receiver closed its connection: %+v", r.Attempts)
			continue
		}
		srv.awaitClosed(t)
	}
	if failed > 0 {
		t.Errorf("%d of %d calls failed on a connection the receiver had closed", failed, calls)
	}
	if got := srv.got.Load(); got != calls-int64(failed) {
		t.Errorf("the receiver read %d calls, want %d", got, calls-failed)
	}
}

// A call with no body (a replayed GET) that a receiver read on a
// kept-alive connection and then closed or reset it without an answer
// was made again by net/http on a new connection: it asks for no body
// to do that, so GetBody could not refuse it, and the delivery was
// reported answered after one attempt while the receiver read two
// calls. The connection net/http gives the copy refuses it: the failed
// attempt is a failure, and a call is sent again only by --retries.
func TestNetHTTPSendsNoUncountedCopyOfAnEmptyCall(t *testing.T) {
	hangUps := []struct {
		name        string
		reset, kind string
	}{
		{"reset", "reset", KindReset},
		{"closed", "close", KindClosed},
	}
	for _, scheme := range []string{"http", "https"} {
		for _, p := range paths[:2] { // direct, client.Do: a worker's calls have a body
			for _, method := range []string{http.MethodGet, http.MethodPost} {
				for _, hu := range hangUps {
					for _, retries := range []int{0, 1} {
						name := strings.Join([]string{scheme, p.name, method, hu.name, "retries " + string(rune('0'+retries))}, "/")
						t.Run(name, func(t *testing.T) {
							t.Parallel()
							script := func(k int, _ []byte) (string, bool, bool, bool) {
								if k == 0 {
									return ok200, false, false, false
								}
								return "", hu.reset == "close", hu.reset == "reset", false
							}
							o := ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, FollowRedirects: p.follow}
							var srv *scriptServer
							if scheme == "https" {
								srv, o.RootCAs = tlsScriptServer(t, script)
							} else {
								srv = newScriptServer(t, script)
							}
							c, err := NewClient(o)
							if err != nil {
								t.Fatal(err)
							}
							d := &Deliverer{Client: c, Target: srv.url(), Retries: retries,
								Sleep: func(context.Context, time.Duration) error { return nil }}
							var header http.Header
							if method == http.MethodPost {
								header = http.Header{"Idempotency-Key": {"k"}}
							}
							first := d.Deliver(context.Background(), &Request{Method: method, Header: header})
							second := d.Deliver(context.Background(), &Request{Method: method, Header: header})
							if got, tries := srv.got.Load(), first.Tries()+second.Tries(); got != int64(tries) {
								t.Errorf("the receiver read %d calls, the deliveries made %d attempts: %+v", got, tries, second.Attempts)
							}
							if a := second.Attempts[0]; a.Status != 0 || a.Kind != hu.kind {
								t.Errorf("the call the receiver read and %s without an answer is %+v, want kind %q", hu.name, a, hu.kind)
							}
							if want := retries + 1; second.Tries() != want || second.OK != (retries > 0) {
								t.Errorf("the second delivery made %d attempts (ok %v), want %d", second.Tries(), second.OK, want)
							}
						})
					}
				}
			}
		}
	}
}

// A call read by the receiver on a kept-alive connection that then ends
// without an answer fails as the connection ended, on every path alike:
// a reset is "connection reset", a close "connection closed", and both
// say it happened as the call went out. The fast path called a reset
// "connection closed", so that one receiver's run counted "failed by
// error: connection closed×50" on the default transport and "connection
// reset×50" on WHSIM_TRANSPORT=net/http.
func TestClosedAsSentKeepsItsKindOnEveryPath(t *testing.T) {
	hangUps := []struct{ name, kind string }{{"reset", KindReset}, {"close", KindClosed}}
	for _, netHTTP := range []bool{false, true} {
		for _, p := range paths {
			for _, hu := range hangUps {
				t.Run(fmt.Sprintf("net/http %v/%s/%s", netHTTP, p.name, hu.name), func(t *testing.T) {
					t.Parallel()
					srv := newScriptServer(t, func(k int, _ []byte) (string, bool, bool, bool) {
						if k == 0 {
							return ok200, false, false, false
						}
						return "", hu.name == "close", hu.name == "reset", false
					})
					c, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, FollowRedirects: p.follow, NetHTTP: netHTTP})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(c.CloseIdleConnections)
					d := &Deliverer{Client: c, Target: srv.url(), KeepBody: p.keep}
					var last Attempt
					keep := func(r *Result) { last = r.Last() }
					if p.worker {
						asWorker(d, templates("A", 1), 2, keep)
					} else {
						for range 2 {
							keep(d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}))
						}
					}
					if last.Status != 0 || last.Kind != hu.kind || !last.ClosedAsSent {
						t.Errorf("the call the receiver read, then %s without an answer: kind %q, closed as sent %v (%s); want kind %q, closed as sent",
							hu.name, last.Kind, last.ClosedAsSent, last.Err, hu.kind)
					}
				})
			}
		}
	}
}
