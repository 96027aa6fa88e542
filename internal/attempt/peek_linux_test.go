//go:build linux

package attempt

import (
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// A reset that came before a connection's read is that read's error, not
// its end. The look before the read (is anything there?) took the
// socket's error, and the read after it said EOF: a receiver that reset a
// new connection as the call's body went out failed the call as
// "connection closed", not reset.
func TestReadAfterAResetSaysReset(t *testing.T) {
	c, peer := tcpPair(t)
	wc := newWatchConn(c, nil)
	peer.(*net.TCPConn).SetLinger(0)
	peer.Close() // a reset
	waitReadable(t, c)
	_, err := wc.Read(make([]byte, 16))
	if Classify(err) != KindReset {
		t.Errorf("the read after a reset: %v (kind %q), want a reset", err, Classify(err))
	}
}

// waitReadable waits until c's socket has something to read (here the
// peer's reset), by poll(2), which takes nothing from it, not its error.
func waitReadable(t *testing.T, c net.Conn) {
	t.Helper()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var perr error
	n := 0
	if err := rc.Control(func(fd uintptr) {
		for {
			n, perr = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10_000)
			if perr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if perr != nil || n != 1 {
		t.Fatalf("poll: %d, %v; want the reset within 10s", n, perr)
	}
}
