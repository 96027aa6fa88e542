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
	"testing"
	"time"

	"github.com/whsim/whsim/internal/reqid"

	"github.com/whsim/whsim/internal/testnet"
)

// readingOnServer is a receiver that answers 200 from a call's head,
// then pauses (a receiver that answers first and does its reading later)
// and reads the body to its end, keeping the connection for the next
// call. read hears, for each call answered, whether its body was read
// whole.
func readingOnServer(t *testing.T, tlsOn bool, pause time.Duration) (*url.URL, *x509.CertPool, <-chan bool) {
	t.Helper()
	stop := make(chan struct{})
	scheme, roots := "http", (*x509.CertPool)(nil)
	var conf *tls.Config
	if tlsOn {
		ts := httptest.NewUnstartedServer(http.NotFoundHandler())
		ts.StartTLS()
		roots = x509.NewCertPool()
		roots.AddCert(ts.Certificate())
		conf = &tls.Config{Certificates: ts.TLS.Certificates, NextProtos: []string{"http/1.1"}}
		ts.Close()
		scheme = "https"
	}
	read := make(chan bool, 16)
	ln := testnet.Serve(t, func(c net.Conn) {
		var rw io.ReadWriter = c
		if conf != nil {
			tc := tls.Server(c, conf)
			if tc.Handshake() != nil {
				return
			}
			rw = tc
		}
		br := bufio.NewReader(rw)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			if _, err := io.WriteString(rw, answeredEarly); err != nil {
				return
			}
			select {
			case <-time.After(pause):
			case <-stop:
				return
			}
			n, err := io.Copy(io.Discard, req.Body)
			read <- err == nil && n == req.ContentLength
			if err != nil {
				return
			}
		}
	})
	t.Cleanup(func() { close(stop) }) // before Serve's, which waits for the handlers
	u, _ := url.Parse(scheme + "://" + ln.Addr().String() + "/hook")
	return u, roots, read
}

// A receiver that answers 200 from a call's head and then reads the body
// to its end got the call whole: the fast path waited for its write and
// passed it, while net/http's path and TLS (always net/http's) had the
// transport close the connection 50ms after the answer, the body's write
// under way, and failed the call as "answered before the body was sent
// whole", the body cut by whsim itself. The same receiver now passes on
// every path, and has every body whole. The receiver's pause is its
// slowness (longer than net/http's wait), no assertion: on a machine slow
// enough the old code could pass, the new one never fails for it.
func TestAnsweredEarlyThenReadOnIsWhole(t *testing.T) {
	tmpl := &Template{Event: "A", Query: "businessType=A", Body: bigBody()}
	const deliveries = 2
	for _, path := range []struct {
		name  string
		tlsOn bool
	}{{"plain", false}, {"tls", true}} {
		for _, tt := range []struct {
			name    string
			netHTTP bool
		}{{"default transport", false}, {"net/http", true}} {
			t.Run(path.name+"/"+tt.name, func(t *testing.T) {
				u, roots, read := readingOnServer(t, path.tlsOn, 300*time.Millisecond)
				c, err := NewClient(ClientOptions{Timeout: time.Minute, Concurrency: 1, NetHTTP: tt.netHTTP, RootCAs: roots})
				if err != nil {
					t.Fatal(err)
				}
				d := &Deliverer{Client: c, Target: u}
				ids := reqid.NewIDs(1)
				for i := range deliveries {
					req := &Request{Event: tmpl.Event, Query: tmpl.Query, Seq: i + 1}
					req.FromTemplate(tmpl, ids.For(tmpl.Event), 0)
					r := d.Deliver(context.Background(), req)
					if a := r.Last(); !r.OK || a.Status != http.StatusOK || a.Unfinished() != "" {
						t.Fatalf("delivery %d: ok %v, %s, unfinished %q; want the receiver's 200, the body sent whole", i+1, r.OK, brief(a), a.Unfinished())
					}
					if !<-read {
						t.Fatalf("delivery %d: the receiver read its body cut short", i+1)
					}
				}
			})
		}
	}
}
