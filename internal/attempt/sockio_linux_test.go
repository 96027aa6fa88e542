//go:build linux

package attempt

import (
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSockIOAnswerPastADeadlineOfAHeldWorker: a worker's answer already in
// its socket is read, however long a loaded machine held the worker past
// the attempt's deadline before it looked (Go fails a read, and a wait for
// one, whose deadline is past before it looks: the answer was a timeout).
func TestSockIOAnswerPastADeadlineOfAHeldWorker(t *testing.T) {
	c, peer := tcpPair(t)
	s, ok := newSockIO(c).(*sockIO)
	if !ok {
		t.Skip("no raw socket here")
	}
	const call, answer = "POST / HTTP/1.1\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
	answered := make(chan struct{})
	go func() {
		buf := make([]byte, len(call))
		n := 0
		for n < len(call) {
			m, err := peer.Read(buf[n:])
			if err != nil {
				return
			}
			n += m
		}
		peer.Write([]byte(answer))
		close(answered)
	}()
	// The scheduler's hold, between the request's write and the wait for
	// its answer: until the answer is out (on loopback, in c's socket once
	// the peer's write returned), then past the deadline (set in the past:
	// the stand-in for the time that passed).
	s.held = func() {
		<-answered
		c.SetDeadline(time.Now().Add(-time.Second))
	}
	if err := s.Send([]byte(call), false); err != nil {
		t.Fatalf("Send: %v, want the answer waiting to be read", err)
	}
	buf := make([]byte, 100)
	n, err := s.Read(buf)
	if err != nil || string(buf[:n]) != answer {
		t.Fatalf("Read: %q, %v; want the answer", buf[:n], err)
	}
}

// TestSockIOResetPastADeadlineOfAHeldWorker: a receiver's reset already in
// a worker's socket when the worker, held past the attempt's deadline,
// looks for its answer is read as a reset. The look (a peek) took the
// socket's error, which Linux gives once, and the read after it found only
// the connection's end: EOF, a reset said as "connection closed".
func TestSockIOResetPastADeadlineOfAHeldWorker(t *testing.T) {
	c, peer := tcpPair(t)
	s, ok := newSockIO(c).(*sockIO)
	if !ok {
		t.Skip("no raw socket here")
	}
	const call = "POST / HTTP/1.1\r\n\r\n"
	go func() {
		buf := make([]byte, len(call))
		if _, err := io.ReadFull(peer, buf); err != nil {
			return
		}
		peer.(*net.TCPConn).SetLinger(0)
		peer.Close()
	}()
	// The scheduler's hold: until the reset is in c's socket, then past
	// the deadline (set in the past: the stand-in for the time that
	// passed).
	s.held = func() {
		waitReset(t, c)
		c.SetDeadline(time.Now().Add(-time.Second))
	}
	if err := s.Send([]byte(call), false); err != nil {
		t.Fatalf("Send: %v, want the reset waiting to be read", err)
	}
	buf := make([]byte, 100)
	if n, err := s.Read(buf); !errors.Is(err, syscall.ECONNRESET) || Classify(err) != KindReset {
		t.Fatalf("Read: %q, %v; want the reset", buf[:n], err)
	}
}

// waitReset returns once the receiver's reset of c is in c's socket: a
// wait (poll) that, unlike a read or a look, leaves the socket's error
// for the next call on it (a write, a read, a look) to meet.
func waitReset(t *testing.T, c net.Conn) {
	rc, err := unwrap(c).(syscall.Conn).SyscallConn()
	if err != nil {
		t.Error(err)
		return
	}
	rc.Control(func(fd uintptr) {
		for {
			p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if _, err := unix.Poll(p, -1); err != nil && err != unix.EINTR {
				t.Error(err)
				return
			}
			if p[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
				return
			}
		}
	})
}
