//go:build linux

package check

import (
	"bytes"
	"cmp"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// A receiver that closes its connection after every answer, without
// saying so (no Connection: close), is graded as any other: the careful
// receiver passes every check, and no call fails with the close blamed on
// it. Its answer and its close go out in one segment, so the close has
// reached whsim by the time it reads the answer: whsim must find the
// connection closed before it writes the next call.
//
// The answer is held in the test's memory until the close (closeWithAnswer)
// rather than corked in the socket from the answer's flush to the
// StateIdle hook: Linux sends corked bytes alone after 200 ms (the probe
// timer), and under load net/http's way from the flush to the hook (it
// waits for its background reader to stop) took longer, so the answer
// left alone, whsim rightly wrote the next call on the open connection,
// and the close that came after it was graded as the receiver's fault.
func TestCarefulReceiverClosingAfterEveryAnswer(t *testing.T) {
	srv := httptest.NewUnstartedServer(newReceiver(t, defects{}))
	srv.Listener = closingListener{srv.Listener, t}
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateIdle { // the answer is written: close without a word
			c.Close()
		}
	}
	srv.Start()
	defer srv.Close()
	var mu sync.Mutex
	var failed []string
	sum, err := Run(context.Background(), testConfig(t, srv.URL), func(r Result) {
		mu.Lock()
		defer mu.Unlock()
		if r.Verdict == Fail {
			failed = append(failed, r.Case.Check+"/"+r.Case.Name+": "+r.Reason)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed() || len(failed) > 0 {
		t.Errorf("the careful receiver failed, closing after every answer:\n%s", strings.Join(failed, "\n"))
	}
}

// closingListener hands out connections whose writes wait for their close
// (closeWithAnswer).
type closingListener struct {
	net.Listener
	t *testing.T
}

func (l closingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &closeWithAnswer{Conn: c, t: l.t}, nil
}

// closeWithAnswer keeps what is written to it until its close, which
// writes it corked (TCP_CORK) and closes at once: the answer and the FIN
// leave in one segment, two adjacent system calls apart, whatever net/http
// does between writing an answer and going idle.
type closeWithAnswer struct {
	net.Conn
	t       *testing.T
	mu      sync.Mutex
	pending bytes.Buffer
	closed  bool
}

func (c *closeWithAnswer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	return c.pending.Write(p)
}

func (c *closeWithAnswer) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return c.Conn.Close()
	}
	c.closed = true
	if c.pending.Len() > 0 {
		cork(c.t, c.Conn)
		c.Conn.Write(c.pending.Bytes()) // a write that fails is the close's too
	}
	return c.Conn.Close()
}

// cork holds what is written to c until it is closed (TCP_CORK), so that
// an answer and the close that follows it travel together.
func cork(t *testing.T, c net.Conn) {
	var serr error
	sc, err := c.(syscall.Conn).SyscallConn()
	if err == nil {
		err = sc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_CORK, 1)
		})
	}
	if err = cmp.Or(err, serr); err != nil {
		t.Error(err)
	}
}
