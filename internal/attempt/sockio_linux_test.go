//go:build linux

package attempt

import (
	"testing"
	"time"
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
