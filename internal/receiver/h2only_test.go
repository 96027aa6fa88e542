package receiver

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// A receiver that speaks HTTP/2 only (h2c with prior knowledge: nginx's
// "listen 80 http2" before 1.25.1, Envoy's and x/net's h2c listeners; or
// over TLS without an HTTP/1.1 fallback) answers listen's HTTP/1.1 call
// with its HTTP/2 connection preface, a SETTINGS frame (and a GOAWAY),
// and closes: it took the call's bytes for a bad preface and read no
// call. The forward said `malformed HTTP response "\x00\x00\x06\x04...";
// the call had gone out to the receiver (it may hold it)` and counted it
// sent (found by fw45). It says the receiver speaks HTTP/2 only and never
// got the call, and does not count it sent.
func TestForwardToAnHTTP2OnlyReceiver(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"http", "https"} {
		t.Run(scheme, func(t *testing.T) {
			t.Parallel()
			var serving, roots *tls.Config
			if scheme == "https" {
				serving, roots = testTLS()
			}
			ln := testnet.Serve(t, func(sock net.Conn) {
				c := sock
				if serving != nil {
					c = tls.Server(sock, serving)
				}
				br := bufio.NewReader(c)
				// The whole call in, read as no HTTP/2 server would (a
				// bad preface), so that the close resets none of it.
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				// SETTINGS (MAX_CONCURRENT_STREAMS 100), then GOAWAY
				// PROTOCOL_ERROR, as an HTTP/2 server given a bad preface.
				io.WriteString(c, "\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64"+
					"\x00\x00\x08\x07\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01")
				if tc, ok := c.(*tls.Conn); ok {
					tc.CloseWrite()
				}
				sock.(*net.TCPConn).CloseWrite()
				io.Copy(io.Discard, br)
			})
			u, _ := url.Parse(scheme + "://" + ln.Addr().String() + "/hook")
			client := newClient(16, 10*time.Second, roots)
			defer client.CloseIdleConnections()
			mem := &memRecorder{}
			obs := &observed{}
			rcv := New(Config{ForwardTo: u, Capture: mem, Client: client, Observe: obs.observe})
			w := httptest.NewRecorder()
			rcv.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader("one")))
			rcv.Close()
			f := mem.recs[0].Forward
			const want = "its HTTP/2 connection preface (a SETTINGS frame), not an HTTP/1.1 answer: it speaks HTTP/2 only, and never got the call"
			if f == nil || !strings.Contains(f.Error, want) || strings.Contains(f.Error, "may hold it") {
				t.Errorf("the forward's error %q, want it to say %q and not that the receiver may hold it", f.Error, want)
			}
			if !obs.calls[0].Unsent {
				t.Error("the call counted sent to a receiver that read none")
			}
			if w.Code != http.StatusBadGateway {
				t.Errorf("the sender got %d, want 502", w.Code)
			}
		})
	}
}
