package receiver

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerClosed says c's socket has met the receiver's close: its FIN came
// (POLLRDHUP), or a reset or error (POLLHUP, POLLERR). It looks without
// reading, so net/http's reader, which may be waiting on the socket,
// still reads what came. false when it cannot look.
func peerClosed(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		for {
			_, err := unix.Poll(fds, 0)
			if err == unix.EINTR {
				continue
			}
			closed = err == nil && fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
			return
		}
	})
	return closed
}
