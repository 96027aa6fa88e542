package load

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
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/testnet"
)

// A receiver that answers each call twice (a 200, then a 500 no call
// asked for) leaves every connection of a run holding bytes no call asked
// for, those still open at the run's end among them: Run's count of them
// (Stats.Unasked, send's "answers no call asked for") is one per call, on
// every transport, whether the second answer came in the read of the
// first or after it. On net/http's path the bytes of a connection idle at
// the run's end were counted only when net/http's reader looked at it
// again (it closes one with bytes left in its buffer), which could come
// after Run read the count: 2 of 3 under -race (send_stray_answer).
func TestRunCountsEveryStrayAnswer(t *testing.T) {
	// As many workers as calls, the receiver answering none before it
	// has them all, and each report waiting until every call was answered
	// twice: each call has a connection of its own, none taken by another
	// call before its second answer came, and every one is open and idle
	// at the run's end, holding it.
	const calls = 16
	for _, tc := range []struct {
		transport string
		apart     bool // the 500 written once the 200 was taken
		overTLS   bool // HTTP/1.1 over TLS: net/http's path
	}{
		{attempt.TransportNetHTTP, false, false}, {attempt.TransportNetHTTP, true, false},
		{attempt.TransportGoroutines, false, false}, {attempt.TransportGoroutines, true, false},
		{"", false, false}, {"", true, false}, // the event loops, where the system has them
		{"", false, true}, {"", true, true},
	} {
		name := tc.transport
		if name == "" {
			name = "loops"
		}
		if tc.overTLS {
			name = "tls"
		}
		if tc.apart {
			name += "/apart"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if tc.apart && runtime.GOOS != "linux" {
				t.Skip("no look at what a socket holds here (testnet.WaitTaken, peekBytes)")
			}
			conf, roots := http1TLS(t)
			var mu sync.Mutex
			arrived, answered := 0, 0
			had, all := make(chan struct{}), make(chan struct{})
			ln := testnet.Serve(t, func(sock net.Conn) {
				c := sock
				if tc.overTLS {
					c = tls.Server(sock, conf)
				}
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if _, err := io.Copy(io.Discard, req.Body); err != nil {
						return
					}
					mu.Lock()
					if arrived++; arrived == calls {
						close(had)
					}
					mu.Unlock()
					<-had
					const ok, oops = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n"
					if !tc.apart {
						_, err = io.WriteString(c, ok+oops)
					} else if _, err = io.WriteString(c, ok); err == nil {
						if err = testnet.WaitTaken(sock); err == nil {
							_, err = io.WriteString(c, oops)
						}
					}
					if err == nil {
						err = testnet.WaitTaken(sock) // in the client's socket
					}
					if err != nil {
						t.Error(err)
					}
					mu.Lock()
					if answered++; answered == calls {
						close(all)
					}
					mu.Unlock()
				}
			})
			scheme := "http"
			if tc.overTLS {
				scheme = "https"
			}
			u, _ := url.Parse(scheme + "://" + ln.Addr().String() + "/hook")
			c, err := attempt.NewClient(attempt.ClientOptions{Timeout: 10 * time.Second, Concurrency: calls, RootCAs: roots,
				NetHTTP: tc.transport == attempt.TransportNetHTTP, Goroutines: tc.transport == attempt.TransportGoroutines})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.CloseIdleConnections)
			d := &attempt.Deliverer{Client: c, Target: u}
			feed := NewFeed([][][]attempt.Template{templates("A", 1)}, calls, 0, false, 1)
			st := Run(context.Background(), d, feed.Next, RunOptions{Concurrency: calls}, func(*attempt.Result) { <-all })
			if st.Succeeded != calls {
				t.Fatalf("%d of %d calls succeeded: %+v", st.Succeeded, calls, st)
			}
			if st.Unasked != calls {
				t.Errorf("Unasked = %d, want %d (one per call answered twice): %+v", st.Unasked, calls, st)
			}
		})
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
