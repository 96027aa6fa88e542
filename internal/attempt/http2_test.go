package attempt

import (
	"context"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

// A receiver that speaks HTTP/2 over TLS (Go's, nginx's with http2 on)
// answers in HTTP/2: its answer is taken, as any sender's HTTP client
// takes it. Every call to one failed as `malformed HTTP version
// "HTTP/2.0"`, the words for an HTTP/1 answer that says it is HTTP/2,
// while the receiver had read and answered each.
func TestHTTP2AnswerTaken(t *testing.T) {
	read := make(chan string, 100)
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		read <- r.Proto
		_, _ = io.WriteString(w, "ok")
	}))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	defer ts.Close()
	roots := x509.NewCertPool()
	roots.AddCert(ts.Certificate())
	u, _ := url.Parse(ts.URL + "/hook")
	for _, p := range paths[:3] {
		t.Run(p.name, func(t *testing.T) {
			c, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, RootCAs: roots, FollowRedirects: p.follow})
			if err != nil {
				t.Fatal(err)
			}
			d := &Deliverer{Client: c, Target: u, KeepBody: p.keep}
			check := func(r *Result) {
				if a := r.Last(); !r.OK || a.Status != 200 || r.Tries() != 1 {
					t.Errorf("an HTTP/2 receiver's 200: %+v", r.Attempts)
				}
				if proto := <-read; proto != "HTTP/2.0" {
					t.Errorf("the call went as %s, want HTTP/2.0", proto)
				}
			}
			if p.worker {
				asWorker(d, templates("A", 1), 2, check)
			} else {
				for range 2 {
					check(d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}))
				}
			}
		})
	}
}
