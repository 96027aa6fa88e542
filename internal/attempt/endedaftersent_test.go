package attempt

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// A call whose connection ended without an answer after it went out may
// have been taken, on a new connection as on a kept-alive one: a receiver
// that reads the call, then resets or closes, may hold it. Only the
// kept-alive one said so (ClosedAsSent), so a call reset on the run's
// first connection read as one the receiver never had. Whether it may
// have been taken is what went out, on every path; an answer, or a
// connection refused, is no such call.
func TestEndedAfterSent(t *testing.T) {
	const (
		answer = iota
		closeIt
		reset
	)
	for _, tc := range []struct {
		name string
		// first is what the receiver does with a connection's first call,
		// later with its later ones; calls is how many are made.
		first, later, calls int
		kind                string
		endedAfterSent      bool
		closedAsSent        bool
	}{
		{"a new connection reset after the call", reset, reset, 1, KindReset, true, false},
		{"a new connection closed after the call", closeIt, closeIt, 1, KindClosed, true, false},
		{"a kept-alive connection reset after the call", answer, reset, 2, KindReset, true, true},
		{"a kept-alive connection closed after the call", answer, closeIt, 2, KindClosed, true, true},
		{"answered", answer, answer, 2, "", false, false},
	} {
		for _, netHTTP := range []bool{false, true} {
			for _, p := range paths {
				t.Run(fmt.Sprintf("%s/net-http %v/%s", tc.name, netHTTP, p.name), func(t *testing.T) {
					t.Parallel()
					srv := newScriptServer(t, func(k int, _ []byte) (string, bool, bool, bool) {
						do := tc.first
						if k > 0 {
							do = tc.later
						}
						switch do {
						case closeIt:
							return "", true, false, false
						case reset:
							return "", false, true, false
						}
						return ok200, false, false, false
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
						asWorker(d, templates("A", 1), tc.calls, keep)
					} else {
						for range tc.calls {
							keep(d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}))
						}
					}
					if last.Kind != tc.kind || last.EndedAfterSent != tc.endedAfterSent || last.ClosedAsSent != tc.closedAsSent {
						t.Errorf("kind %q, ended after sent %v, closed as sent %v (%s); want %q, %v, %v",
							last.Kind, last.EndedAfterSent, last.ClosedAsSent, last.Err, tc.kind, tc.endedAfterSent, tc.closedAsSent)
					}
				})
			}
		}
	}
	// Nothing listening: refused before anything went out.
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		c, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1})
		if err != nil {
			t.Fatal(err)
		}
		srv := newScriptServer(t, func(int, []byte) (string, bool, bool, bool) { return ok200, false, false, false })
		u := srv.url()
		srv.ln.Close()
		a := (&Deliverer{Client: c, Target: u}).Deliver(context.Background(), &Request{Body: []byte(`{}`)}).Last()
		if a.Kind != KindRefused || a.EndedAfterSent || a.ClosedAsSent {
			t.Errorf("kind %q, ended after sent %v, closed as sent %v (%s); want refused, neither", a.Kind, a.EndedAfterSent, a.ClosedAsSent, a.Err)
		}
	})
}

// A new connection the receiver resets while the call's body is still
// going out fails as a reset that may have been taken, over HTTP and
// HTTPS alike. net/http reports its writer's error before its reader's
// (it counts a failed write of the body as the body's read), and the
// writer, on a connection net/http had closed on the reader's reset,
// was refused as on a kept-alive connection found unfit: in most calls
// the failure said "kept-alive connection closed by the receiver or
// holding bytes no call asked for", of no kind, and not that the call
// may have been taken. A TLS receiver that says close_notify before its
// reset (a server's close of a handler that died) may be read as having
// closed: then the call's writes said "use of closed network
// connection", of no kind either.
func TestResetAsTheBodyGoesOut(t *testing.T) {
	// Far past the socket buffers: the receiver's reset comes while the
	// body is being written.
	body := []byte(`{"x":"` + strings.Repeat("x", 16<<20) + `"}`)
	for _, end := range []string{"http reset", "https reset", "https close_notify, reset"} {
		for _, p := range paths[:2] { // a call's own, through net/http
			t.Run(end+"/"+p.name, func(t *testing.T) {
				t.Parallel()
				u, roots := headThenResetServer(t, end != "http reset", strings.Contains(end, "close_notify"))
				c, err := newTestClient(ClientOptions{Timeout: time.Minute, Concurrency: 1, FollowRedirects: p.follow, RootCAs: roots})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(c.CloseIdleConnections)
				d := &Deliverer{Client: c, Target: u}
				for i := range 8 {
					a := d.Deliver(context.Background(), &Request{Body: body}).Last()
					closed := a.Kind == KindClosed && strings.Contains(end, "close_notify")
					if a.Status != 0 || a.Kind != KindReset && !closed || !a.EndedAfterSent || a.ClosedAsSent || strings.Contains(a.Err, "kept-alive") {
						t.Errorf("call %d: kind %q, ended after sent %v, closed as sent %v (%s); want a reset after the call went out, on a new connection",
							i+1, a.Kind, a.EndedAfterSent, a.ClosedAsSent, a.Err)
					}
				}
			})
		}
	}
}

// headThenResetServer is a receiver that reads a call's head, then resets
// the connection with the body unread; over TLS with roots that trust it,
// and with close_notify said before the reset when notify is set.
func headThenResetServer(t *testing.T, overTLS, notify bool) (*url.URL, *x509.CertPool) {
	t.Helper()
	scheme, roots, conf := "http", (*x509.CertPool)(nil), (*tls.Config)(nil)
	if overTLS {
		ts := httptest.NewUnstartedServer(http.NotFoundHandler())
		ts.StartTLS()
		cert := ts.TLS.Certificates[0]
		roots = x509.NewCertPool()
		roots.AddCert(ts.Certificate())
		ts.Close()
		conf, scheme = &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}}, "https"
	}
	raw := testnet.Serve(t, func(c net.Conn) {
		if conf != nil {
			sc := tls.Server(c, conf)
			defer sc.Close() // close_notify first when notify is set
			c = sc
		}
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		tc := c
		if s, ok := c.(*tls.Conn); ok {
			tc = s.NetConn()
		}
		tc.(*net.TCPConn).SetLinger(0)
		if !notify {
			tc.Close()
		}
	})
	u, _ := url.Parse(scheme + "://" + raw.Addr().String() + "/hook")
	return u, roots
}
