//go:build linux

package testnet

import (
	"crypto/tls"
	"fmt"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// WaitTaken returns once everything written on c, a test receiver's end of
// a TCP connection (its FIN too), was acknowledged by the other end: the
// bytes are in the client's socket, where a look before its next call sees
// them. A write returning says only that they were handed to the loopback
// device, whose delivery a loaded machine defers (to ksoftirqd): a client's
// next call then goes out before they arrive, as it would to a receiver
// that answered late, and a test of bytes that came while the connection
// was idle tests nothing. It waits for that event (the send queue empty,
// SIOCOUTQ), looking again each millisecond; a c closed or reset has
// nothing more to wait for.
func WaitTaken(c net.Conn) error {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return fmt.Errorf("WaitTaken: %T is no socket", c)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	// A connection the client reset has nothing more to take, and its send
	// queue's count stays where the reset left it: the state says so. The
	// wait is bounded so that a state not foreseen here fails the test
	// rather than hanging it.
	for deadline := time.Now().Add(10 * time.Second); ; {
		queued, closed, ioErr := 0, false, error(nil)
		if err := rc.Control(func(fd uintptr) {
			var info *unix.TCPInfo
			if info, ioErr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); ioErr != nil {
				return
			}
			if closed = info.State == tcpClose; !closed {
				queued, ioErr = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ)
			}
		}); err != nil {
			return nil
		}
		switch {
		case ioErr != nil:
			return fmt.Errorf("WaitTaken: %w", ioErr)
		case closed || queued == 0:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("WaitTaken: %d bytes still unacknowledged after 10s", queued)
		}
		time.Sleep(time.Millisecond)
	}
}

// tcpClose is Linux's TCP_CLOSE state (include/net/tcp_states.h): the
// connection was reset, or closed on both sides.
const tcpClose = 7
