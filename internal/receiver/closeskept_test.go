package receiver

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// A receiver that closes every kept-alive connection after its answer,
// without Connection: close, is seen to (net/http's reader finds an idle
// connection closed), and listen keeps no connection to it alive from
// then on: it sends each call on a connection of its own, saying
// Connection: close, and gives none of the calls a connection it kept.
// Kept, a connection the receiver was closing as the next call went out
// on it failed that call, which the receiver never read, as one it may
// hold (502), a forward in fifty and more at a concurrency of 2 (found
// by fw45).
//
// The receiver answers "one" and "two", each on a connection of its own.
// It closes one's at once, and waits until listen has taken that close
// (its reader found the idle connection closed, and closed it). It
// closes two's only once the next call's bytes are in it, unread: the
// race, made certain. "three" then must not go out on two's connection.
func TestForwardKeepsNoConnectionToAReceiverThatClosesThem(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"http", "https"} {
		t.Run(scheme, func(t *testing.T) {
			t.Parallel()
			srv := newCloseAfterServer(t, scheme)
			gateOne, gateTwo := srv.Gate("one"), srv.Gate("two")
			client := newClient(16, 10*time.Second, srv.roots)
			defer client.CloseIdleConnections()
			mem := &memRecorder{}
			var told atomic.Int32
			rcv := New(Config{ForwardTo: srv.url, Capture: mem, Client: client, ClosesKept: func(bool) { told.Add(1) }})
			var reused []bool
			threeCtx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
				GotConn: func(i httptrace.GotConnInfo) { reused = append(reused, i.Reused) },
			})
			codes := map[string]int{}
			var mu sync.Mutex
			forward := func(ctx context.Context, body string) {
				req := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(body)).WithContext(ctx)
				w := httptest.NewRecorder()
				rcv.ServeHTTP(w, req)
				mu.Lock()
				codes[body] = w.Code
				mu.Unlock()
			}
			var wg sync.WaitGroup
			wg.Go(func() { forward(context.Background(), "one") })
			wg.Go(func() { forward(context.Background(), "two") })
			srv.WaitRead("one")
			srv.WaitRead("two") // each on a connection of its own
			close(gateTwo)
			close(gateOne)
			wg.Wait()
			srv.WaitTaken("one") // listen's reader found one's connection closed
			forward(threeCtx, "three")
			rcv.Close()
			if len(reused) == 0 || !reused[0] {
				t.Fatalf("three was given connections %v (reused), want two's kept one first: the test tested nothing", reused)
			}
			for _, body := range []string{"one", "two", "three"} {
				if codes[body] != http.StatusOK {
					t.Errorf("%s: the sender got %d, want 200; records: %s", body, codes[body], forwardErrors(mem))
				}
				if n := srv.Calls(body); n != 1 {
					t.Errorf("the receiver read %s %d times, want once", body, n)
				}
			}
			if got := srv.closeAsked("three"); !got {
				t.Error("three went out without Connection: close, to a receiver that closes every connection: its connection was kept")
			}
			if n := told.Load(); n != 1 {
				t.Errorf("ClosesKept was called %d times, want once: listen says it once", n)
			}
		})
	}
}

// closeAfterServer is a receiver that reads one call on each connection,
// answers it with a bodyless 200 (no Connection: close) once its gate
// opens (at once for a call with none), and closes the connection (over
// TLS its close_notify first). The call "two" has its connection closed
// only once more bytes are in it, unread (the next call, which the
// receiver's close then resets), or listen closed it; every other call's
// at once, and the close is Taken once listen has closed its end too.
// It notes which calls asked for Connection: close.
type closeAfterServer struct {
	*testnet.CallLog
	url   *url.URL
	roots *tls.Config
	mu    sync.Mutex
	close map[string]bool
}

func newCloseAfterServer(t *testing.T, scheme string) *closeAfterServer {
	s := &closeAfterServer{CallLog: testnet.NewCallLog(), close: map[string]bool{}}
	var serving *tls.Config
	if scheme == "https" {
		serving, s.roots = testTLS()
	}
	ln := testnet.Serve(t, func(sock net.Conn) { s.serve(sock, serving) })
	s.url, _ = url.Parse(scheme + "://" + ln.Addr().String() + "/hook")
	return s
}

func (s *closeAfterServer) closeAsked(body string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.close[body]
}

func (s *closeAfterServer) serve(sock net.Conn, serving *tls.Config) {
	c := sock
	if serving != nil {
		c = tls.Server(sock, serving)
	}
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.close[string(body)] = req.Close
	s.mu.Unlock()
	gate, first := s.Arrived(string(body))
	if gate != nil {
		<-gate
	}
	if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"); err != nil {
		return
	}
	if string(body) == "two" {
		// Until the next call is in the socket, unread (the poller's
		// wait for it to be readable), or listen closed the connection.
		rc, err := sock.(*net.TCPConn).SyscallConn()
		if err != nil {
			return
		}
		rc.Read(func(uintptr) bool { return bufferedBytes(sock) > 0 || peerClosed(sock) })
		c.Close() // over TLS its close_notify, then a reset of the bytes unread
		return
	}
	if tc, ok := c.(*tls.Conn); ok {
		tc.CloseWrite() // the close_notify
	}
	sock.(*net.TCPConn).CloseWrite()
	io.Copy(io.Discard, br) // until listen closed its end
	if first {
		s.Taken(string(body))
	}
}
