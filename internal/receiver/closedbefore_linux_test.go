package receiver

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// A plain receiver that answers a call and closes the kept-alive
// connection (its FIN, no Connection: close) just after listen's look
// before the next call found it open: the next call's bytes meet a
// closed socket, which resets them, none of them acknowledged: the
// receiver never read the call, and it goes again on a new connection,
// read once. It was answered 502 "read: connection reset by peer; ...
// it may hold it", about one run in forty of 40 calls at send -c 8
// against a receiver that closes after every answer (found by fw46).
// One that closed its sending side only (a half close), and read the
// call, acknowledged its bytes: it may hold it, and it is not sent again.
// The race is made certain: the receiver closes once listen's look found
// the connection open (its hook), and listen writes once the FIN came.
func TestForwardClosedBeforeTheCallUnacked(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		halfClose bool // the receiver shuts its sending side and reads on
		code      int  // the sender of "two"'s
		reads     int32
	}{
		{"closed, the call reset unread", false, http.StatusOK, 1},
		{"half closed, the call read", true, http.StatusBadGateway, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			closeNow := make(chan struct{})
			var reads atomic.Int32 // of "two"
			readTwo := make(chan struct{})
			ln := testnet.Serve(t, func(sock net.Conn) {
				br := bufio.NewReader(sock)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					b, _ := io.ReadAll(req.Body)
					if string(b) == "two" {
						reads.Add(1)
						if tt.halfClose {
							close(readTwo)
							return // read whole, and no answer: listen's EOF
						}
					}
					io.WriteString(sock, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
					if string(b) == "one" {
						<-closeNow
						if tt.halfClose {
							sock.(*net.TCPConn).CloseWrite()
							continue // reads "two" on
						}
						sock.Close()
						return
					}
				}
			})
			u, _ := url.Parse("http://" + ln.Addr().String() + "/hook")
			client := newClient(16, 10*time.Second, nil)
			defer client.CloseIdleConnections()
			tr := client.Transport.(*http.Transport)
			dial := tr.DialContext
			var hooked atomic.Bool
			var wrote sync.Once
			readOnce := make(chan struct{}) // closed as two has been answered or reset
			tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := dial(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				cc := c.(*countedConn)
				if hooked.CompareAndSwap(false, true) {
					// The first connection's: once listen's look found it
					// open, the receiver closes, and the call is written
					// once its FIN came.
					rc, _ := cc.Conn.(*net.TCPConn).SyscallConn()
					cc.lookedOpen = func() {
						close(closeNow)
						rc.Read(func(uintptr) bool { return peerClosed(cc.Conn) })
						// net/http's reader, which found the FIN, is held
						// (readFailed) until two's bytes met the receiver's
						// socket: reset (closed), or read (half closed).
						go func() {
							if tt.halfClose {
								<-readTwo
							} else {
								rc.Read(func(uintptr) bool { return stateOf(cc.Conn) == tcpClose })
							}
							wrote.Do(func() { close(readOnce) })
						}()
					}
					cc.readFailed = func() { <-readOnce }
				}
				return c, nil
			}
			mem := &memRecorder{}
			rcv := New(Config{ForwardTo: u, Capture: mem, Client: client})
			codes := make([]int, 2)
			for i, body := range []string{"one", "two"} {
				w := httptest.NewRecorder()
				rcv.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(body)))
				codes[i] = w.Code
			}
			rcv.Close()
			if len(mem.recs) != 2 || mem.recs[1].Forward == nil {
				t.Fatalf("%d records", len(mem.recs))
			}
			if f := mem.recs[1].Forward; codes[1] != tt.code || (tt.code == http.StatusBadGateway && !strings.Contains(f.Error, mayHold)) {
				t.Errorf("two's sender got %d, want %d; its forward: %+v", codes[1], tt.code, f)
			}
			if n := reads.Load(); n != tt.reads {
				t.Errorf("the receiver read two %d times, want %d", n, tt.reads)
			}
		})
	}
}
