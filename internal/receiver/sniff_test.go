package receiver

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// givenConn is a connection whose sender sent given and then waits for an
// answer: a read past given is one that would wait (for the read
// deadline, listen's 5 s ReadHeaderTimeout). It does not wait: it notes
// the read, if no answer was written yet, and fails it.
type givenConn struct {
	mu       sync.Mutex
	given    string
	answered chan struct{} // closed by the first write
	answer   []byte
	// waited says a read came after given and before any answer.
	waited bool
	closed bool
}

var errWouldWait = errors.New("the sender sent nothing more: this read would wait")

func newGivenConn(given string) *givenConn {
	return &givenConn{given: given, answered: make(chan struct{})}
}

func (c *givenConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.given != "" {
		n := copy(p, c.given)
		c.given = c.given[n:]
		return n, nil
	}
	if c.answer == nil {
		c.waited = true
	}
	return 0, errWouldWait
}

func (c *givenConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.answer == nil {
		close(c.answered)
	}
	c.answer = append(c.answer, p...)
	return len(p), nil
}

func (c *givenConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return nil
}

func (c *givenConn) LocalAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080} }
func (c *givenConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
}

func (c *givenConn) SetDeadline(time.Time) error      { return nil }
func (c *givenConn) SetReadDeadline(time.Time) error  { return nil }
func (c *givenConn) SetWriteDeadline(time.Time) error { return nil }

// The first bytes of a connection are peeked at for the HTTP/2 preface
// (net/http does it, with a read limit of what is missing of it, as here):
// once the bytes read can no longer be the preface, the peek returns
// without reading more, and the request is read as HTTP/1 at once; a
// sender that sent a short request ("GET\r\n\r\n") and waits is answered
// then, not when the header timeout runs out. Bytes that may still be the
// preface are waited for.
func TestPrefacePeekNeedsNoMoreThanAMismatch(t *testing.T) {
	for _, tt := range []struct {
		sent string
		peek int // net/http's peeks: 14 bytes, then 24
		more bool
	}{
		{"GET\r\n\r\n", 14, false},
		{"X", 14, false},
		{"POST /h", 14, false},
		{"PRI * HTTP/2.0\r\nX", 24, false},
		{"PRI * HTTP/2.0\r\n\r\nSX", 24, false},
		{"PRI * HTTP/2.0\r\n\r\n", 24, true},
		{"PRI", 14, true},
	} {
		t.Run(strings.ReplaceAll(tt.sent, "\r\n", `\r\n`), func(t *testing.T) {
			gc := newGivenConn(tt.sent)
			l := newWatchListener(nil, func(*Rejection) {})
			c := &watchedConn{Conn: gc, l: l, watching: true, sniffing: true}
			br := bufio.NewReader(&io.LimitedReader{R: c, N: int64(tt.peek)})
			got, err := br.Peek(tt.peek)
			if len(got) != len(tt.sent) || err == nil {
				t.Fatalf("peek = %q, %v; want the %d bytes sent and an error", got, err, len(tt.sent))
			}
			if gc.waited != tt.more {
				t.Errorf("read on past the bytes sent: %v, want %v", gc.waited, tt.more)
			}
		})
	}
}

// A short garbage request on a real server: answered 400 before the
// server waits for another byte (its header timeout is an hour here: on
// main it answered when the timeout ran out, 5 s with listen's limits).
func TestShortRequestAnsweredAtOnce(t *testing.T) {
	t.Parallel()
	obs := &observed{}
	rcv := New(Config{Observe: obs.observe})
	lim := DefaultLimits
	lim.ReadHeaderTimeout = time.Hour
	s, err := Listen("127.0.0.1:0", rcv, lim)
	if err != nil {
		t.Fatal(err)
	}
	s.ln.Close() // the server below serves one given connection
	gc := newGivenConn("GET\r\n\r\n")
	served := make(chan error, 1)
	go func() {
		served <- s.srv.Serve(newWatchListener(&oneConn{c: gc, done: make(chan struct{})}, rcv.Rejected))
	}()
	<-gc.answered
	s.srv.Close()
	<-served
	rcv.Close()
	gc.mu.Lock()
	defer gc.mu.Unlock()
	if gc.waited {
		t.Errorf("the server read on past the 7 bytes sent before it answered")
	}
	if !strings.HasPrefix(string(gc.answer), "HTTP/1.1 400 ") {
		t.Errorf("answered %q, want 400", gc.answer)
	}
	if len(obs.calls) != 1 || obs.calls[0].Record.Rejected == nil || obs.calls[0].Record.Response.Status != http.StatusBadRequest {
		t.Errorf("calls %+v, want the request recorded as rejected, answered 400", obs.calls)
	}
}

// oneConn is a listener that accepts c once, then waits until closed.
type oneConn struct {
	c    net.Conn
	once sync.Once
	done chan struct{}
}

func (l *oneConn) Accept() (net.Conn, error) {
	var c net.Conn
	l.once.Do(func() { c = l.c })
	if c != nil {
		return c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConn) Close() error {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	return nil
}

func (l *oneConn) Addr() net.Addr { return l.c.LocalAddr() }
