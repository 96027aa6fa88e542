package attempt

import (
	"context"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/reqid"
)

// An HTTP/2 receiver that answers 200 from a call's head and returns
// without reading the body (Go's server then resets the stream, NO_ERROR,
// which RFC 9113 8.1 lets it) never got the call whole: the delivery was
// counted succeeded on HTTP/2, while the same handler over HTTP/1.1 failed
// it ("answered before the body was sent whole"). It fails on HTTP/2 too
// now. One that answers first and then reads the body to its end passes.
func TestHTTP2AnsweredBeforeTheBodyWasSentWhole(t *testing.T) {
	tmpl := &Template{Event: "A", Query: "businessType=A", Body: bigBody()}
	want := BodyUnsentWords + " (its write of " + strconv.Itoa(len(tmpl.Body)) + " bytes cut: "
	for _, tt := range []struct {
		name     string
		readsOn  bool // the handler reads the body after its answer
		wantPass bool
	}{
		{"answers and reads none", false, false},
		{"answers and reads on", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			read := make(chan int64, 4)
			ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, "ok")
				w.(http.Flusher).Flush()
				var n int64
				if tt.readsOn {
					n, _ = io.Copy(io.Discard, r.Body)
				}
				read <- n
			}))
			ts.EnableHTTP2 = true
			ts.StartTLS()
			defer ts.Close()
			roots := x509.NewCertPool()
			roots.AddCert(ts.Certificate())
			u, _ := url.Parse(ts.URL + "/hook")
			c, err := NewClient(ClientOptions{Timeout: time.Minute, Concurrency: 1, RootCAs: roots})
			if err != nil {
				t.Fatal(err)
			}
			d := &Deliverer{Client: c, Target: u}
			ids := reqid.NewIDs(1)
			for i := range 2 {
				req := &Request{Event: tmpl.Event, Query: tmpl.Query, Seq: i + 1}
				req.FromTemplate(tmpl, ids.For(tmpl.Event), 0)
				r := d.Deliver(context.Background(), req)
				got := <-read
				a := r.Last()
				switch {
				case tt.wantPass && (!r.OK || got != int64(len(tmpl.Body))):
					t.Fatalf("delivery %d: ok %v, %s, unfinished %q, the receiver read %d bytes; want the 200, the body read whole", i+1, r.OK, brief(a), a.Unfinished(), got)
				case !tt.wantPass && (r.OK || a.Status != http.StatusOK || !strings.HasPrefix(a.Unfinished(), want)):
					t.Fatalf("delivery %d: ok %v, %s, unfinished %q; want a failure, the receiver's 200, unfinished %q…", i+1, r.OK, brief(a), a.Unfinished(), want)
				}
			}
		})
	}
}
