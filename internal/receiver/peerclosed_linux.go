package receiver

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// peerClosed says c's socket has met the receiver's close: its FIN came
// (POLLRDHUP), or a reset or error (POLLHUP, POLLERR). It looks without
// reading, so net/http's reader, which may be waiting on the socket,
// still reads what came. false when it cannot look.
func peerClosed(c net.Conn) bool {
	closed := false
	onSocket(c, func(fd uintptr) {
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

// waitReset waits up to d for c's socket to be reset by the receiver
// (POLLHUP with POLLERR: its RST came; a FIN alone shows neither), and
// says whether it was. It reads nothing. false when it cannot look.
func waitReset(c net.Conn, d time.Duration) bool {
	reset := false
	onSocket(c, func(fd uintptr) {
		deadline := time.Now().Add(d)
		for {
			left := time.Until(deadline)
			if left < 0 {
				left = 0
			}
			fds := []unix.PollFd{{Fd: int32(fd)}} // POLLHUP and POLLERR are always said
			_, err := unix.Poll(fds, int(left.Milliseconds()))
			if err == unix.EINTR {
				continue
			}
			reset = err == nil && fds[0].Revents&unix.POLLERR != 0
			return
		}
	})
	return reset
}

// onSocket runs f with c's socket descriptor, when c has one to look at
// (a syscall.Conn); f does not run otherwise.
func onSocket(c net.Conn, f func(fd uintptr)) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(f)
}
