//go:build linux

package attempt

import (
	"net"
	"syscall"
)

// peekIdle says whether c's socket has nothing to read yet: a look
// (MSG_PEEK) that neither waits nor takes anything. Bytes, the peer's close
// (0) or an error (a reset) all say no. Control, not RawConn.Read: another
// goroutine may be in a blocking read of c (net/http's), and Control does
// not wait for it.
func peekIdle(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true // not a socket: nothing to look at
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	idle := false
	var b [1]byte
	err = rc.Control(func(fd uintptr) {
		for {
			_, e := sysPeek(fd, b[:])
			if e == syscall.EINTR {
				continue
			}
			idle = e == syscall.EAGAIN
			return
		}
	})
	return err == nil && idle
}
