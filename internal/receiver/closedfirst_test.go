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

// A forward given a kept-alive connection whose close by the receiver
// came before the call was written goes on a new connection, over http
// and https. The receiver answers with a bodyless 200, no Connection:
// close, and closes (close_notify over TLS, then its FIN); a forward
// given the connection before net/http's reader read that close wrote
// its call into it and failed as one the receiver may hold ("EOF; the
// call had gone out to the receiver"), though the receiver had closed
// first and never read it: one forward in ten, or more, at a concurrency
// of 2 against such a receiver over https.
//
// The test holds net/http's reader after the first answer (its
// PutIdleConn hook waits) while the receiver closes, until the second
// forward is given the connection; the reader's next read of the socket
// then waits until the second forward's call was written to it, or the
// connection closed (or, readerFirst, the second forward waits until the
// reader has closed the connection). The first forward's answer was handed over by then:
// a connection closed before that would fail it.
func TestForwardOnAConnectionClosedFirst(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		scheme string
		// readerFirst has net/http's reader find the close before the
		// second forward's call is written: over TLS, net/http's close
		// then wrote a close_notify, which was counted as the call's
		// bytes, and the forward failed as one that had gone out.
		readerFirst bool
	}{{"http", false}, {"https", false}, {"http", true}, {"https", true}} {
		scheme := tt.scheme
		name := scheme
		if tt.readerFirst {
			name += ", the reader finds the close first"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := newClosingServer(t, scheme)
			closeOne := srv.Gate("one")
			mem := &memRecorder{}
			client := newClient(16, 10*time.Second, srv.roots)
			defer client.CloseIdleConnections()
			tr := client.Transport.(*http.Transport)
			dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				g := &gatedSock{TCPConn: c.(*net.TCPConn), wrote: make(chan struct{}), closed: make(chan struct{})}
				return &countedConn{Conn: g, kick: make(chan struct{}, 1)}, nil
			}
			tr.DialContext = dial
			tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
				return dialTLS(ctx, dial, srv.roots, network, addr)
			}
			rcv := New(Config{ForwardTo: srv.url, Capture: mem, Client: client})

			idle, oneDone, given, twoDone := make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
			oneCtx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
				PutIdleConn: func(err error) {
					if err != nil {
						return
					}
					close(closeOne)
					srv.WaitTaken("one") // the receiver's close is in listen's socket
					close(idle)
					select {
					case <-given:
					case <-twoDone:
					}
				},
			})
			var reused []bool
			twoCtx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
				GotConn: func(i httptrace.GotConnInfo) {
					reused = append(reused, i.Reused)
					if len(reused) > 1 {
						return
					}
					c := i.Conn
					if t, ok := c.(interface{ NetConn() net.Conn }); ok {
						c = t.NetConn()
					}
					cc, ok := c.(*countedConn)
					if !ok || !i.Reused {
						close(given)
						return
					}
					g := cc.Conn.(*gatedSock)
					if !tt.readerFirst {
						g.armed.Store(true)
						close(given)
						return
					}
					close(given)
					<-g.closed // net/http's reader read the close, and closed the connection
				},
			})
			codes := make([]int, 2)
			forward := func(ctx context.Context, body string, code *int) {
				req := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(body)).WithContext(ctx)
				w := httptest.NewRecorder()
				rcv.ServeHTTP(w, req)
				*code = w.Code
			}
			var wg sync.WaitGroup
			wg.Go(func() { defer close(oneDone); forward(oneCtx, "one", &codes[0]) })
			select {
			case <-idle:
			case <-oneDone:
				t.Fatal("the first answer's connection was not put back idle")
			}
			wg.Go(func() { defer close(twoDone); forward(twoCtx, "two", &codes[1]) })
			wg.Wait()
			rcv.Close()
			if len(reused) == 0 || !reused[0] {
				t.Fatalf("the second forward was given connections %v (reused), want the kept-alive one first: the test tested nothing", reused)
			}
			for i, code := range codes {
				if code != http.StatusOK {
					t.Errorf("forward %d: the sender got %d, want 200 (the receiver never read it on the closed connection); records: %s", i+1, code, forwardErrors(mem))
				}
			}
			for _, body := range []string{"one", "two"} {
				if n := srv.Calls(body); n != 1 {
					t.Errorf("the receiver read %q %d times, want once", body, n)
				}
			}
		})
	}
}

// gatedSock is a socket of listen's forward client whose reads, once it
// is armed, wait until a write on it returned bytes, or it is closed.
type gatedSock struct {
	*net.TCPConn
	armed             atomic.Bool
	wroteOnce, closes sync.Once
	wrote, closed     chan struct{}
}

func (g *gatedSock) Read(p []byte) (int, error) {
	if g.armed.Load() {
		select {
		case <-g.wrote:
		case <-g.closed:
		}
	}
	return g.TCPConn.Read(p)
}

func (g *gatedSock) Write(p []byte) (int, error) {
	n, err := g.TCPConn.Write(p)
	if n > 0 && g.armed.Load() {
		g.wroteOnce.Do(func() { close(g.wrote) })
	}
	return n, err
}

func (g *gatedSock) Close() error {
	g.closes.Do(func() { close(g.closed) })
	return g.TCPConn.Close()
}

// closingServer is a receiver that reads one call on each connection,
// answers it with a bodyless 200 (no Connection: close) and, once the
// call's gate opens (at once for a call with none), closes the connection
// (over TLS, its close_notify first), reading nothing more. It tells of
// each close the client has taken (testnet.WaitTaken), by the call's
// body.
type closingServer struct {
	*testnet.CallLog
	url   *url.URL
	roots *tls.Config // the client's, over https
}

func newClosingServer(t *testing.T, scheme string) *closingServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &closingServer{CallLog: testnet.NewCallLog()}
	var serving *tls.Config
	if scheme == "https" {
		serving, s.roots = testTLS()
	}
	s.url, _ = url.Parse(scheme + "://" + ln.Addr().String() + "/hook")
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c, serving)
		}
	}()
	return s
}

func (s *closingServer) serve(sock net.Conn, serving *tls.Config) {
	defer sock.Close()
	c := sock
	if serving != nil {
		c = tls.Server(sock, serving)
	}
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	gate, first := s.Arrived(string(body))
	if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"); err != nil {
		return
	}
	if gate != nil {
		<-gate
	}
	if tc, ok := c.(*tls.Conn); ok {
		tc.CloseWrite() // the close_notify
	}
	sock.(*net.TCPConn).CloseWrite()
	testnet.WaitTaken(sock)
	if first {
		s.Taken(string(body))
	}
}

// A receiver over https that closes a kept-alive connection after its
// answer (close_notify, no Connection: close) while listen's next call on
// it is in its socket, unread: the close_notify came first, then the
// reset its socket sends for the bytes it never read. The forward failed
// as "EOF; the call had gone out to the receiver (it may hold it)", one
// forward in eight at a concurrency of 2 against such a receiver, though
// it never read the call; then it was said never got and answered 502.
// It is made again on a new connection, as a call none of which went out
// is (found by fw45): the sender gets the receiver's answer, and the
// receiver reads the call once. One that read the call whole and then
// closed without an answer (no reset) may hold it: said so, counted sent,
// not made again.
func TestForwardClosedUnreadOverTLS(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		readsTwo bool // the receiver reads the second call whole before it closes
		code     int  // the second call's sender's
		want     string
		sent     bool
	}{
		{"closed with the call unread", false, http.StatusOK, "", true},
		{"closed after reading the call", true, http.StatusBadGateway, mayHold, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			serving, roots := testTLS()
			var readTwo atomic.Int32
			var conns atomic.Int32
			ln := testnet.Serve(t, func(sock net.Conn) {
				c := tls.Server(sock, serving)
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				if b, _ := io.ReadAll(req.Body); string(b) == "two" {
					readTwo.Add(1)
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
				if conns.Add(1) > 1 {
					io.Copy(io.Discard, br) // a call made again: until listen closes
					return
				}
				if tt.readsTwo {
					if req, err := http.ReadRequest(br); err == nil {
						io.Copy(io.Discard, req.Body)
						readTwo.Add(1)
					}
				} else {
					// Until the next call is in the socket, unread: the
					// poller's wait for it to be readable, nothing read.
					rc, err := sock.(*net.TCPConn).SyscallConn()
					if err != nil {
						return
					}
					rc.Read(func(uintptr) bool { return bufferedBytes(sock) > 0 || peerClosed(sock) })
				}
				c.Close() // close_notify, then the socket's close
			})
			u, _ := url.Parse("https://" + ln.Addr().String() + "/hook")
			mem := &memRecorder{}
			client := newClient(16, 10*time.Second, roots)
			defer client.CloseIdleConnections()
			obs := &observed{}
			rcv := New(Config{ForwardTo: u, Capture: mem, Client: client, Observe: obs.observe})
			codes := make([]int, 2)
			for i, body := range []string{"one", "two"} {
				w := httptest.NewRecorder()
				rcv.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(body)))
				codes[i] = w.Code
			}
			rcv.Close()
			if len(mem.recs) != 2 {
				t.Fatalf("%d records", len(mem.recs))
			}
			// Unread, the call is known never got however late the
			// receiver's reset comes after its close_notify (listen
			// waits for the reset or the FIN, not for a time): before
			// fw45 it was said held 2 runs in 10 when quiet.
			f := mem.recs[1].Forward
			if codes[1] != tt.code {
				t.Errorf("the second call's sender got %d, want %d; its forward: %+v", codes[1], tt.code, f)
			}
			if len(obs.calls) == 2 && obs.calls[1].Unsent == tt.sent {
				t.Errorf("the second call counted sent: %v, want %v", !obs.calls[1].Unsent, tt.sent)
			}
			switch {
			case f == nil:
				t.Error("the second call has no forward")
			case tt.want == "" && f.Error != "":
				t.Errorf("the second forward failed: %q", f.Error)
			case !strings.Contains(f.Error, tt.want):
				t.Errorf("the second forward's error %q, want it to say %q", f.Error, tt.want)
			}
			if n := readTwo.Load(); n != 1 {
				t.Errorf("the receiver read the second call %d times, want once", n)
			}
		})
	}
}

// mayHold is a forward's words for a call that went out and got no answer.
const mayHold = "the call had gone out to the receiver (it may hold it)"

// A receiver over https whose reset, after its close_notify and with the
// next call unread in its socket, comes late (its process held between
// the close_notify and the close, as on a loaded machine) never read the
// call: it is known so, however late the reset came, and the call is made
// again on a new connection. listen waited 200ms for it, then said "it
// may hold it" and counted the call sent. The
// receiver here resets only once listen's look found no reset yet (its
// judging hook), or listen closed the connection.
func TestForwardClosedUnreadResetLate(t *testing.T) {
	t.Parallel()
	serving, roots := testTLS()
	judging := make(chan struct{})
	var judgingOnce sync.Once
	var reads atomic.Int32 // of "two"
	ln := testnet.Serve(t, func(sock net.Conn) {
		if !answerThenCloseNotify(sock, serving, &reads) {
			return
		}
		select {
		case <-judging:
		case <-listenClosed(sock):
		}
		sock.Close() // the call unread: a reset
	})
	u, _ := url.Parse("https://" + ln.Addr().String() + "/hook")
	client := newClient(16, 10*time.Second, roots)
	defer client.CloseIdleConnections()
	tr := client.Transport.(*http.Transport)
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c.(*countedConn).judging = func() { judgingOnce.Do(func() { close(judging) }) }
		return c, nil
	}
	tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return dialTLS(ctx, tr.DialContext, roots, network, addr)
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
	if len(mem.recs) != 2 {
		t.Fatalf("%d records", len(mem.recs))
	}
	// Known never read, the call is made again on a new connection.
	if f := mem.recs[1].Forward; codes[1] != http.StatusOK || f == nil || f.Error != "" {
		t.Errorf("the second call's sender got %d, want 200; its forward: %+v", codes[1], f)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("the receiver read the second call %d times, want once", n)
	}
}

// A receiver over https that sends its close_notify after its answer,
// with the next call unread in its socket, and then neither closes nor
// resets (until listen closes the connection): listen treats the
// connection as closed after closeNotifyGrace, the call one the receiver
// may hold (502, not sent again). It waited for a reset or a FIN up to
// the forward's time limit (30 s), which held the call and listen's stop
// (found by fw46). The forward's limit here is 10 minutes and the
// sender waits until the test's own deadline: the call is answered
// while both are far away, and says it was not answered in time by
// neither (the receiver still held the connection when listen closed it).
func TestForwardCloseNotifyHeldNotWaitedFor(t *testing.T) {
	t.Parallel()
	serving, roots := testTLS()
	var reads atomic.Int32 // of "two"
	ln := testnet.Serve(t, func(sock net.Conn) {
		if !answerThenCloseNotify(sock, serving, &reads) {
			return
		}
		<-listenClosed(sock)
		sock.Close()
	})
	u, _ := url.Parse("https://" + ln.Addr().String() + "/hook")
	client := newClient(16, 10*time.Minute, roots)
	defer client.CloseIdleConnections()
	mem := &memRecorder{}
	rcv := New(Config{ForwardTo: u, Capture: mem, Client: client})
	ctx := context.Background()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-5*time.Second))
		defer cancel()
	}
	codes := make([]int, 2)
	for i, body := range []string{"one", "two"} {
		w := httptest.NewRecorder()
		rcv.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(body)).WithContext(ctx))
		codes[i] = w.Code
	}
	if ctx.Err() != nil {
		t.Fatal("the second call was held until the test's own deadline: listen waited for the receiver's reset or FIN after its close_notify")
	}
	rcv.Close()
	if len(mem.recs) != 2 {
		t.Fatalf("%d records", len(mem.recs))
	}
	// Its bytes went out before the close_notify was read, and no reset
	// came: the receiver may hold it, as far as listen can tell.
	f := mem.recs[1].Forward
	if codes[1] != http.StatusBadGateway || f == nil || !strings.Contains(f.Error, mayHold) || strings.Contains(f.Error, "did not answer within") {
		t.Errorf("the second call's sender got %d, want 502 saying %q; its forward: %+v", codes[1], mayHold, f)
	}
	if n := reads.Load(); n != 0 {
		t.Errorf("the receiver read the second call %d times, want never (not sent again)", n)
	}
}

// listenClosed is closed once the client closed its end of sock (its FIN
// or reset came), which is not read.
func listenClosed(sock net.Conn) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		rc, err := sock.(*net.TCPConn).SyscallConn()
		if err != nil {
			return
		}
		rc.Read(func(uintptr) bool { return peerClosed(sock) })
	}()
	return done
}

// answerThenCloseNotify is the TLS receiver of the close_notify tests: it
// answers one call 200 (counting a body "two" in reads), waits until the
// next call is in its socket, unread, and sends its close_notify, the
// socket left open. It says whether it got that far.
func answerThenCloseNotify(sock net.Conn, serving *tls.Config, reads *atomic.Int32) bool {
	c := tls.Server(sock, serving)
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return false
	}
	if b, _ := io.ReadAll(req.Body); string(b) == "two" {
		reads.Add(1)
	}
	io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	rc, err := sock.(*net.TCPConn).SyscallConn()
	if err != nil {
		return false
	}
	rc.Read(func(uintptr) bool { return bufferedBytes(sock) > 0 || peerClosed(sock) })
	c.CloseWrite() // the close_notify; the socket stays open
	return true
}
