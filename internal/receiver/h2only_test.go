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
	"sync"
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

// A receiver that writes bytes past an answer's Content-Length later than
// the answer (a second write) on a kept-alive connection: the next call
// given the connection reads them as the start of its answer, and its
// forward failed as `malformed HTTP version "EXTRAHTTP/1.1"` (net/http's)
// "; the call had gone out to the receiver (it may hold it)", half the
// calls at a concurrency of 2 against such a receiver, which read and
// answered each (found by fw45); the calls failed so were sent again by
// their senders, to a receiver that held them. The error says the bytes before the
// status line came after the receiver's answer to an earlier call, and
// that the call had gone out (the receiver may hold it: the status line
// after them may be more stray bytes, not its answer to this call), and
// listen keeps no connection to such a receiver alive from then on.
func TestForwardStrayBytesBeforeAnAnswer(t *testing.T) {
	t.Parallel()
	answered := make(chan struct{})
	var answeredOnce sync.Once
	ln := testnet.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for i := 0; ; i++ {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.Copy(io.Discard, req.Body)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			if i > 0 {
				continue
			}
			// The next call is in the socket before the stray bytes
			// go: the reader takes them for its answer's start.
			answeredOnce.Do(func() { close(answered) })
			rc, err := c.(*net.TCPConn).SyscallConn()
			if err != nil {
				return
			}
			rc.Read(func(uintptr) bool { return bufferedBytes(c) > 0 || peerClosed(c) })
			io.WriteString(c, "EXTRA")
		}
	})
	u, _ := url.Parse("http://" + ln.Addr().String() + "/hook")
	client := newClient(16, 10*time.Second, nil)
	defer client.CloseIdleConnections()
	mem := &memRecorder{}
	rcv := New(Config{ForwardTo: u, Capture: mem, Client: client})
	codes := make([]int, 4)
	for i, body := range []string{"one", "two", "three", "four"} {
		w := httptest.NewRecorder()
		rcv.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(body)))
		codes[i] = w.Code
	}
	rcv.Close()
	<-answered
	// Once seen, no connection to the receiver is kept: its stray
	// bytes fail no later call (four went on three's kept connection,
	// and failed as two did).
	if codes[2] != http.StatusOK || codes[3] != http.StatusOK {
		t.Errorf("the senders of three and four got %v, want 200 each; records: %s", codes[2:], forwardErrors(mem))
	}
	f := mem.recs[1].Forward
	const want = `the receiver's bytes for this call began with 5 bytes no call asked for ("EXTRA"), then a status line 200: bytes that came after its answer to an earlier call on this kept-alive connection`
	if f == nil || !strings.Contains(f.Error, want) || !strings.HasSuffix(f.Error, mayHold) {
		t.Errorf("the second forward's error %q, want it to say %q, and %q", f.Error, want, mayHold)
	}
}
