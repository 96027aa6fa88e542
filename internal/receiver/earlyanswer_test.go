package receiver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// earlyBackend is a receiver on raw TCP that answers 200 from a call's
// head, before it reads the body; then, with readOn, pauses (a receiver
// that does its reading later, longer than net/http's 50ms wait) and reads
// the body to its end, else resets the connection with the body unread.
// read hears, for each call, whether its body was read whole.
func earlyBackend(t *testing.T, readOn bool) (*url.URL, <-chan bool) {
	t.Helper()
	stop := make(chan struct{})
	read := make(chan bool, 16)
	ln := testnet.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"); err != nil {
				return
			}
			if !readOn {
				read <- false
				c.(*net.TCPConn).SetLinger(0) // a reset: the body unread
				return
			}
			select {
			case <-time.After(300 * time.Millisecond):
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
	u, _ := url.Parse("http://" + ln.Addr().String() + "/hook")
	return u, read
}

// A receiver behind listen --forward-to that answers 200 from a call's
// head and reads the body after got it cut: net/http's client, given the
// answer with the write under way, closed the connection 50ms later, and
// listen passed the 200 on (a receiver reading 16 MiB on had read 4 MiB of
// it). One that answered 200 and reset the connection with the body unread
// had its 200 passed on too. The first now gets the call whole and its 200
// passed on; the second's sender gets listen's 502. Both are recorded.
func TestForwardAnsweredBeforeTheBodyWasSentWhole(t *testing.T) {
	t.Parallel()
	body := `{"pad":"` + strings.Repeat("x", 32<<20) + `"}`
	for _, tt := range []struct {
		name   string
		readOn bool
	}{{"answers first, reads on", true}, {"answers first, resets", false}} {
		t.Run(tt.name, func(t *testing.T) {
			u, read := earlyBackend(t, tt.readOn)
			srv, _, mem := start(t, Config{ForwardTo: u, MaxBody: 64 << 20})
			for i := range 2 {
				status := post(t, srv, ev, body).StatusCode
				whole := <-read
				switch {
				case tt.readOn && (status != http.StatusOK || !whole):
					t.Errorf("call %d: the sender got %d, the receiver read the body whole: %v; want the receiver's 200, the body whole", i+1, status, whole)
				case !tt.readOn && status == http.StatusOK:
					t.Errorf("call %d: the sender got the receiver's 200 for a call it never got whole; want listen's 502", i+1)
				}
			}
			srv.Close()
			if len(mem.recs) != 2 {
				t.Errorf("%d records, want 2: every call is recorded", len(mem.recs))
			}
		})
	}
}
