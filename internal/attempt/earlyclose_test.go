package attempt

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/reqid"

	"github.com/whsim/whsim/internal/testnet"
)

// payloadTooLarge is what nginx answers a body past client_max_body_size
// before reading it, and then closes the connection; tooLargeKept says
// nothing of the close (the connection looks kept alive to net/http).
const (
	payloadTooLarge = "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
	tooLargeKept    = "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n"
)

// closingEarlyServer is a receiver that reads a call's head, answers
// answer and closes the connection with the body unread: the close is a
// reset, and the sender's write of the body fails after the answer came.
// Over TLS with tlsOn, and then the roots that trust it.
func closingEarlyServer(t *testing.T, answer string, tlsOn bool) (*url.URL, *x509.CertPool) {
	t.Helper()
	scheme, roots := "http", (*x509.CertPool)(nil)
	var conf *tls.Config
	if tlsOn {
		// httptest's certificate, for 127.0.0.1: the server itself is not
		// started.
		ts := httptest.NewUnstartedServer(http.NotFoundHandler())
		ts.StartTLS()
		roots = x509.NewCertPool()
		roots.AddCert(ts.Certificate())
		conf = &tls.Config{Certificates: ts.TLS.Certificates, NextProtos: []string{"http/1.1"}}
		ts.Close()
		scheme = "https"
	}
	ln := testnet.Serve(t, func(c net.Conn) {
		var rw io.ReadWriter = c
		if conf != nil {
			tc := tls.Server(c, conf)
			if tc.Handshake() != nil {
				return
			}
			rw = tc
		}
		if _, err := http.ReadRequest(bufio.NewReader(rw)); err != nil {
			return
		}
		io.WriteString(rw, answer)
	})
	u, _ := url.Parse(scheme + "://" + ln.Addr().String() + "/hook")
	return u, roots
}

// A receiver that answers 413 before it reads a large body, then closes
// the connection (nginx past client_max_body_size), has its 413 reported,
// as an answer, in the same words on every path. net/http's transport
// dropped that answer when the write of the body failed first and said
// "connection reset", a failure the receiver never had: it answered.
// Each delivery is on a new connection (the receiver closes every one),
// and several are made, since on net/http the write's failure and the
// answer race. An answer that does not say Connection: close leaves
// net/http taking the connection as kept alive: the next call still goes
// out on a new one, and is answered.
func TestAnswerBeforeTheBodyThenCloseIsTheAnswer(t *testing.T) {
	big := []byte(`{"x":"` + strings.Repeat("x", 64<<20) + `"}`)
	tmpl := &Template{Event: "A", Query: "businessType=A", Body: big}
	const deliveries = 8
	type outcome struct {
		status                            int
		statusLine, kind, err, unfinished string
	}
	var want *outcome // the default transport's, over plain HTTP
	for _, path := range []struct {
		name   string
		answer string
		tlsOn  bool
	}{
		{"", payloadTooLarge, false},
		{"no Connection: close/", tooLargeKept, false},
		{"tls/", payloadTooLarge, true},
		{"tls/no Connection: close/", tooLargeKept, true},
	} {
		for _, tt := range []struct {
			name    string
			netHTTP bool
			worker  bool // a run's worker (its buffer), else one delivery
		}{
			// The default transport: the fast path over plain HTTP (a
			// run's worker), net/http's over TLS.
			{"default transport", false, true},
			{"net/http, a run's worker", true, true},
			{"net/http, one delivery", true, false},
		} {
			t.Run(path.name+tt.name, func(t *testing.T) {
				u, roots := closingEarlyServer(t, path.answer, path.tlsOn)
				c, err := NewClient(ClientOptions{Timeout: time.Minute, Concurrency: 1, NetHTTP: tt.netHTTP, RootCAs: roots})
				if err != nil {
					t.Fatal(err)
				}
				d := &Deliverer{Client: c, Target: u}
				ids := reqid.NewIDs(1)
				var bb *Buf
				defer func() {
					if bb != nil {
						bb.Release()
					}
				}()
				for i := range deliveries {
					req := &Request{Event: tmpl.Event, Query: tmpl.Query, Seq: i + 1}
					req.FromTemplate(tmpl, ids.For(tmpl.Event), 0)
					var r *Result
					if tt.worker {
						r = d.DeliverWith(context.Background(), req, &bb)
					} else {
						r = d.Deliver(context.Background(), req)
					}
					a := r.Last()
					if a.Status != http.StatusRequestEntityTooLarge || a.Kind != "" {
						t.Fatalf("delivery %d: %s, want the receiver's 413", i+1, brief(a))
					}
					got := outcome{a.Status, a.StatusLine, a.Kind, a.Err, a.Unfinished()}
					if want == nil {
						want = &got
					} else if got != *want {
						t.Fatalf("delivery %d: %+v, want what the first path said: %+v", i+1, got, *want)
					}
				}
			})
		}
	}
}
