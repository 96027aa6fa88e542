package attempt

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// unaskedServer is a receiver on raw TCP that answers each call with
// answer(conn, k, c): conn counts its connections, k the calls on one
// (both from 0).
func unaskedServer(t *testing.T, answer func(conn, k int, c net.Conn)) string {
	t.Helper()
	return unaskedServerOver(t, nil, answer)
}

// unaskedServerOver is unaskedServer, over TLS when conf is set (its
// URL then https): c is then the *tls.Conn, whose writes are records.
func unaskedServerOver(t *testing.T, conf *tls.Config, answer func(conn, k int, c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	scheme := "http"
	if conf != nil {
		ln, scheme = tls.NewListener(ln, conf), "https"
	}
	go func() {
		for conn := 0; ; conn++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(conn int) {
				defer c.Close()
				br := bufio.NewReader(c)
				for k := 0; ; k++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if _, err := io.Copy(io.Discard, req.Body); err != nil {
						return
					}
					answer(conn, k, c)
				}
			}(conn)
		}
	}()
	return scheme + "://" + ln.Addr().String() + "/hook"
}

func unaskedDeliverer(t *testing.T, target string) *Deliverer {
	t.Helper()
	return unaskedDelivererTrusting(t, target, nil)
}

// unaskedDelivererTrusting is unaskedDeliverer, trusting roots (nil: the
// system's).
func unaskedDelivererTrusting(t *testing.T, target string, roots *x509.CertPool) *Deliverer {
	t.Helper()
	cl, err := NewClient(ClientOptions{Timeout: 10 * time.Second, Concurrency: 1, RootCAs: roots})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.CloseIdleConnections)
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	return &Deliverer{Client: cl, Target: u, KeepBody: true, Trace: true}
}

const (
	answer200 = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	answer500 = "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
)

// A receiver that sends an HTTP/1.1 answer no call asked for, or bytes
// after its answer, on a kept-alive connection: the connection the
// answers were read on says so (Attempt.Conn), by the bytes' first line
// where they came apart from the answer; a 408 sent on an idle connection
// as the receiver closes it is no such answer.
func TestConnNotesBytesNoCallAskedFor(t *testing.T) {
	t.Parallel()
	type step struct{ more, wrote chan struct{} }
	for _, tc := range []struct {
		name string
		// answer writes the k-th answer on connection conn; apart, when
		// set, is written on connection 0 once the test has the first
		// answer (more), and the test waits for it (wrote).
		answer   func(k int) string
		apart    string
		status2  int
		first    string // the stray bytes' first line, "" when unseen
		unasked  bool
		sameConn bool // the second answer came on the first one's connection
		// followed1 and followed2 say the bytes came after the first
		// call's answer, or the second's, on its connection.
		followed1, followed2 bool
	}{
		{name: "answered twice, apart", answer: func(int) string { return answer200 }, apart: answer500,
			status2: 200, first: "HTTP/1.1 500 Internal Server Error", unasked: true, followed1: true},
		{name: "answered twice, one write", answer: func(int) string { return answer200 + answer500 },
			status2: 200, unasked: true, followed1: true, followed2: true},
		{name: "204 with a body", answer: func(int) string { return "HTTP/1.1 204 No Content\r\n\r\n" + answer500 },
			status2: 204, unasked: true, followed1: true, followed2: true},
		{name: "Content-Length short, apart", answer: func(int) string { return "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nok" },
			status2: 200, unasked: true, followed1: true, followed2: true},
		{name: "the next call's answer late", answer: func(k int) string {
			if k == 0 {
				return answer200
			}
			return answer500 + answer200 // the first call's second answer, then its own
		}, status2: 500, unasked: true, sameConn: true, followed2: true},
		{name: "408 on idle", answer: func(int) string { return answer200 }, apart: "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
			status2: 200},
	} {
		// Over TLS (HTTP/1.1, the receiver offering no h2) the same: the
		// bytes are looked at above the records.
		for _, overTLS := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, TLS %v", tc.name, overTLS), func(t *testing.T) {
				t.Parallel()
				st := step{make(chan struct{}), make(chan struct{})}
				var conf *tls.Config
				var roots *x509.CertPool
				if overTLS {
					conf, roots = http1TLS(t)
				}
				target := unaskedServerOver(t, conf, func(conn, k int, c net.Conn) {
					// One write each: over TLS one record, as a receiver's
					// answer written at once.
					if _, err := io.WriteString(c, tc.answer(k)); err != nil {
						return
					}
					if conn == 0 && k == 0 && tc.apart != "" {
						<-st.more
						_, _ = io.WriteString(c, tc.apart)
						if tc.apart[9:12] == "408" {
							c.(interface{ CloseWrite() error }).CloseWrite()
						}
						if err := testnet.WaitTaken(c); err != nil {
							t.Error(err)
						}
						close(st.wrote)
					}
				})
				d := unaskedDelivererTrusting(t, target, roots)
				r1 := d.Deliver(context.Background(), &Request{Event: "E", Body: []byte(`{}`)})
				a1 := r1.Last()
				if a1.Status == 0 || a1.Conn == nil {
					t.Fatalf("first call: %+v, want an answer on a watched connection", a1)
				}
				if tc.apart != "" {
					idleAgain(a1.Conn)
					close(st.more)
					<-st.wrote
				}
				a2 := d.Deliver(context.Background(), &Request{Event: "E", Body: []byte(`{}`)}).Last()
				if a2.Status != tc.status2 {
					t.Fatalf("second call got %d (%s), want %d", a2.Status, a2.Err, tc.status2)
				}
				if got := a2.Conn == a1.Conn; got != tc.sameConn {
					t.Fatalf("second answer on the first one's connection: %v, want %v", got, tc.sameConn)
				}
				a1.Conn.Settle()
				a2.Conn.Settle()
				first, seen := a1.Conn.Unasked()
				if seen != tc.unasked || first != tc.first {
					t.Fatalf("first connection: Unasked() = %q, %v; want %q, %v", first, seen, tc.first, tc.unasked)
				}
				// The bytes are blamed on the answer they followed: the last
				// read on the connection before they were found.
				if got := a1.Conn.Followed(a1.ConnCall); got != tc.followed1 {
					t.Errorf("bytes followed the first call's answer: %v, want %v", got, tc.followed1)
				}
				if got := a2.Conn.Followed(a2.ConnCall); got != tc.followed2 {
					t.Errorf("bytes followed the second call's answer: %v, want %v", got, tc.followed2)
				}
			})
		}
	}
}

// idleAgain waits until net/http has put c back idle after its answer
// and its reader waits on it again, or c closed: bytes the receiver writes
// from then on come to an idle connection. net/http does that on its
// reading goroutine once the caller read the answer whole, which may be
// after Deliver returned: bytes written before it are no bytes on an idle
// connection (Conn), and a call made before it gets a new connection, so
// a test of stray bytes tested nothing (about 1 run in 400 under -race on
// a loaded machine). It waits for the event (each change of waiting or
// closed kicks).
func idleAgain(c *Conn) {
	w := c.c
	for !w.closed.Load() && !(w.isIdle() && w.waiting.Load()) {
		<-w.kick
	}
}

// http1TLS is a TLS configuration for a test receiver on 127.0.0.1 that
// offers HTTP/1.1 alone in ALPN, and the roots that trust its
// certificate (httptest's).
func http1TLS(t *testing.T) (*tls.Config, *x509.CertPool) {
	t.Helper()
	ts := httptest.NewUnstartedServer(http.NotFoundHandler())
	ts.StartTLS()
	defer ts.Close()
	roots := x509.NewCertPool()
	roots.AddCert(ts.Certificate())
	return &tls.Config{Certificates: ts.TLS.Certificates, NextProtos: []string{"http/1.1"}}, roots
}

// A receiver that answers each call once has nothing noted on any
// connection, however its calls share them: copies sent at once, handed
// from one to the next by net/http as each answer ends, and calls made on
// the same client without whsim's hooks (check's probe).
func TestConnNotesNothingOnAReceiverThatAnswersOnce(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	d := unaskedDeliverer(t, srv.URL)
	var conns []*Conn
	for range 30 {
		var wg sync.WaitGroup
		res := make([]*Result, 8)
		for i := range res {
			wg.Go(func() {
				if i%3 == 2 {
					// A call of the client's own, no hooks: its answer is its.
					if resp, err := d.Client.Get(srv.URL); err == nil {
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
					return
				}
				res[i] = d.Deliver(context.Background(), &Request{Event: "E", Body: []byte(`{}`)})
			})
		}
		wg.Wait()
		for _, r := range res {
			if r != nil && r.Last().Conn != nil {
				conns = append(conns, r.Last().Conn)
			}
		}
	}
	for _, c := range conns {
		c.Settle()
		if first, seen := c.Unasked(); seen {
			t.Fatalf("a connection of a receiver that answers once noted %q", first)
		}
	}
}

// A run's worker counts the connections found holding bytes no call
// asked for (Deliverer.Unasked), on the fast path and on net/http's: not
// a 408 sent on an idle connection as the receiver closes it, nor a
// receiver that answers once.
func TestWorkerCountsConnectionsHoldingUnaskedBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		answer string
		apart  string // written on the first connection once its answer is read
		want   int64
	}{
		{name: "answered twice, apart", answer: answer200, apart: answer500, want: 1},
		{name: "answered twice, one write", answer: answer200 + answer500, want: 2},
		{name: "408 on idle", answer: answer200, apart: "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"},
		{name: "answered once", answer: answer200},
		// An answer that ends its connection: what follows it reaches no
		// call, on either path (the fast path counted it).
		{name: "answered twice, the first saying close", answer: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok" + answer500},
		{name: "an HTTP/1.0 answer, then more", answer: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok" + answer500},
	} {
		for _, netHTTP := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, net/http %v", tc.name, netHTTP), func(t *testing.T) {
				t.Parallel()
				more, wrote := make(chan struct{}), make(chan struct{})
				target := unaskedServer(t, func(conn, k int, c net.Conn) {
					if _, err := io.WriteString(c, tc.answer); err != nil {
						return
					}
					if conn == 0 && k == 0 && tc.apart != "" {
						<-more
						_, _ = io.WriteString(c, tc.apart)
						if err := testnet.WaitTaken(c); err != nil {
							t.Error(err)
						}
						close(wrote)
					}
				})
				cl, err := NewClient(ClientOptions{Timeout: 10 * time.Second, Concurrency: 1, NetHTTP: netHTTP})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(cl.CloseIdleConnections)
				u, _ := url.Parse(target)
				d := &Deliverer{Client: cl, Target: u}
				var bb *Buf
				t.Cleanup(func() {
					if bb != nil {
						bb.Release()
					}
				})
				r1 := d.DeliverWith(context.Background(), &Request{Event: "E", Body: []byte(`{}`)}, &bb)
				if !r1.OK {
					t.Fatalf("first call: %+v", r1.Last())
				}
				if c := r1.Last().Conn; c != nil && tc.apart != "" {
					idleAgain(c) // net/http's path
				}
				if tc.apart != "" {
					close(more)
					<-wrote
				}
				r := d.DeliverWith(context.Background(), &Request{Event: "E", Body: []byte(`{}`)}, &bb)
				if !r.OK {
					t.Fatalf("second call: %+v", r.Last())
				}
				if c := r.Last().Conn; c != nil {
					c.Settle() // its bytes, on net/http's path, seen before the count
				}
				if got := d.Unasked(); got != tc.want {
					t.Errorf("Unasked() = %d, want %d", got, tc.want)
				}
			})
		}
	}
}
