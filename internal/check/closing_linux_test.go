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
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
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
// A machine that holds the receiver 200 ms between the answer's write and
// the close, two system calls apart, does the same (a flake of this test
// with three test processes on two loaded CPUs): such a run is known by
// the socket (finLate) and made again (checkClosingReceiver).
func TestCarefulReceiverClosingAfterEveryAnswer(t *testing.T) {
	if failed, _ := checkClosingReceiver(t, nil); len(failed) > 0 {
		t.Errorf("the careful receiver failed, closing after every answer:\n%s", strings.Join(failed, "\n"))
	}
}

// A machine loaded enough to hold the receiver for the kernel's 200 ms
// between its answer's write and its close sends the answer alone (the
// probe timer uncorks it), and whsim, rightly, writes its next call on
// the connection still open: the close that follows is the receiver's
// fault, and the run says nothing of the careful receiver. The hold is
// made here by hand: the first answer is uncorked, and its close waits
// for the next call on its connection (or whsim's own close of it). The
// receiver counts the answers that left before their close, and a run
// with one is made again.
func TestCarefulReceiverAnswerSentAloneUnderLoad(t *testing.T) {
	var held atomic.Bool
	hold := func(c *closeWithAnswer) {
		if held.Swap(true) {
			return
		}
		setCork(t, c.Conn, 0) // what the probe timer does to a held answer
		waitReadable(t, c.Conn)
	}
	failed, runs := checkClosingReceiver(t, hold)
	if len(failed) > 0 {
		t.Errorf("the careful receiver failed, closing after every answer, its first answer held from its close:\n%s", strings.Join(failed, "\n"))
	}
	if !held.Load() || runs != 2 {
		t.Errorf("check ran %d times, its first answer held from its close: %t; want the run with the held answer made again, once", runs, held.Load())
	}
}

// checkClosingReceiver runs check against the careful receiver closing
// after every answer (closeWithAnswer), hold standing in for a loaded
// machine between an answer's write and its close (nil: none), and says
// the cases that failed. A run in which an answer left before its close
// tested a receiver that closes connections its answers kept alive: it
// is made again, up to closingRuns runs, which says how many it made.
// Runs all of which met it test nothing, and skip.
func checkClosingReceiver(t *testing.T, hold func(*closeWithAnswer)) (failed []string, runs int) {
	t.Helper()
	for runs = 1; runs <= closingRuns; runs++ {
		failed, alone := checkClosingOnce(t, hold)
		if alone == 0 {
			return failed, runs
		}
		t.Logf("run %d: %d answers left before their close (the machine held the receiver between them), made again; its failures:\n%s", runs, alone, strings.Join(failed, "\n"))
	}
	t.Skipf("every one of %d runs had an answer leave before its close: the machine held the receiver each time", closingRuns)
	return nil, closingRuns
}

// closingRuns is how many runs checkClosingReceiver makes at most.
const closingRuns = 3

// checkClosingOnce is one run of checkClosingReceiver: the cases that
// failed, and how many answers left before their close.
func checkClosingOnce(t *testing.T, hold func(*closeWithAnswer)) ([]string, int32) {
	t.Helper()
	var alone atomic.Int32
	srv := httptest.NewUnstartedServer(newReceiver(t, defects{}))
	srv.Listener = closingListener{srv.Listener, t, hold, &alone}
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
	srv.Close() // every close made, and counted
	mu.Lock()
	defer mu.Unlock()
	if sum.Failed() && len(failed) == 0 {
		failed = append(failed, "the summary says failed")
	}
	return failed, alone.Load()
}

// closingListener hands out connections whose writes wait for their close
// (closeWithAnswer).
type closingListener struct {
	net.Listener
	t    *testing.T
	hold func(*closeWithAnswer) // between an answer's write and its close; nil: none
	// alone counts the answers that left before their close.
	alone *atomic.Int32
}

func (l closingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &closeWithAnswer{Conn: c, t: l.t, hold: l.hold, alone: l.alone}, nil
}

// closeWithAnswer keeps what is written to it until its close, which
// writes it corked (TCP_CORK) and closes at once: the answer and the FIN
// leave in one segment, two adjacent system calls apart, whatever net/http
// does between writing an answer and going idle. Unless the machine holds
// the receiver between the two for the kernel's probe timer (200 ms),
// which sends the answer alone: the close counts such an answer (alone,
// by finLate).
type closeWithAnswer struct {
	net.Conn
	t       *testing.T
	hold    func(*closeWithAnswer)
	alone   *atomic.Int32
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
	if c.closed {
		c.mu.Unlock()
		return c.Conn.Close()
	}
	c.closed = true
	answer := c.pending.Bytes()
	c.mu.Unlock()
	if len(answer) > 0 {
		cork(c.t, c.Conn)
		c.Conn.Write(answer) // a write that fails is the close's too
		if c.hold != nil {
			c.hold(c)
		}
		if finLate(c.t, c.Conn, len(answer)) {
			c.alone.Add(1)
		}
	}
	return c.Conn.Close()
}

// cork holds what is written to c until it is closed (TCP_CORK), so that
// an answer and the close that follows it travel together.
func cork(t *testing.T, c net.Conn) { setCork(t, c, 1) }

// setCork sets c's TCP_CORK: 0 sends at once what it held.
func setCork(t *testing.T, c net.Conn, on int) {
	var serr error
	sc, err := c.(syscall.Conn).SyscallConn()
	if err == nil {
		err = sc.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_CORK, on)
		})
	}
	if err = cmp.Or(err, serr); err != nil {
		t.Error(err)
	}
}

// finLate sends c's FIN, on the corked answer of n bytes when it is
// still there, and says whether it came too late: the answer had left
// alone (the kernel's probe timer), or a call had come after it, which
// whsim writes only once it has an answer. Asked of the socket in the
// system calls about the FIN's, not of the time (a look, the FIN by
// shutdown, a look): the window they leave is the FIN's system call.
// A call that comes after the FIN whsim writes only when it fails to see
// the close: one as the shutdown returns is taken for one before it, a
// microsecond's window in which whsim's failure is missed.
func finLate(t *testing.T, c net.Conn, n int) bool {
	var unsent, unread int
	var serr error
	sc, err := c.(syscall.Conn).SyscallConn()
	if err == nil {
		err = sc.Control(func(fd uintptr) {
			if unsent, serr = unix.IoctlGetInt(int(fd), unix.SIOCOUTQNSD); serr != nil {
				return
			}
			// The FIN by shutdown: the socket stays open to be asked
			// (a close with a call unread would send a reset instead).
			if serr = unix.Shutdown(int(fd), unix.SHUT_WR); serr != nil {
				return
			}
			unread, serr = unix.IoctlGetInt(int(fd), unix.SIOCINQ)
		})
	}
	if err = cmp.Or(err, serr); err != nil {
		return true // the answer's way is unknown: the run says nothing
	}
	return unsent < n || unread > 0
}

// waitReadable waits until c has something to read (the next call, the
// peer's close) or is closed, taking nothing.
func waitReadable(t *testing.T, c net.Conn) {
	sc, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Error(err)
		return
	}
	var b [1]byte
	sc.Read(func(fd uintptr) bool {
		_, _, e := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return e != syscall.EAGAIN && e != syscall.EINTR
	})
}
