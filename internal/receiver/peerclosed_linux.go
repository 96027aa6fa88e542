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

// readUnread says whether the receiver, whose close_notify came before
// any answer to the call whose bytes listen wrote on c, read them: its
// socket's reset (the connection's state TCP_CLOSE) says it closed with
// them unread, or had closed when they came (a socket that closes with
// bytes unread resets the connection instead of its FIN, and one closed
// resets what comes after); its FIN, with every byte listen sent
// acknowledged, says its socket took them while open and closed without
// a reset: it read them, or, half-closed, may yet. never is true for the
// reset only. It waits for those events (poll: a FIN or a reset wakes
// it), not for a time: a receiver held between its close_notify and its
// close (a loaded machine) resets late, and is judged on it. The one look
// made again each millisecond is that after a FIN that came before the
// bytes were acknowledged, which their acknowledgement or a reset ends
// (on loopback at once). At deadline it gives up: not known (false, the
// safe word); a deadline past looks once, and waits for nothing. looked,
// when set, runs after each look that decided nothing, before its wait.
// false when it cannot look.
func readUnread(c net.Conn, deadline time.Time, looked func()) (never bool) {
	onSocket(c, func(fd uintptr) {
		for {
			// The send queue first: a reset that comes between the two
			// looks may empty it, and the state then says the reset.
			queued, err := unix.IoctlGetInt(int(fd), unix.SIOCOUTQ)
			if err != nil {
				return
			}
			info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
			if err != nil {
				return
			}
			fin := false
			switch info.State {
			case tcpClose:
				never = true
				return
			case tcpCloseWait:
				if queued == 0 {
					return
				}
				fin = true
			case tcpEstablished:
			default:
				return // a state no call's wait is in
			}
			left := time.Until(deadline)
			if left <= 0 {
				return
			}
			if looked != nil {
				looked()
			}
			// POLLHUP and POLLERR (the reset) are always said; the FIN
			// (POLLRDHUP) is asked for until it came.
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
			wait := left
			if fin {
				fds[0].Events = 0
				wait = min(wait, time.Millisecond)
			}
			if _, err := unix.Poll(fds, int(wait.Milliseconds())+1); err != nil && err != unix.EINTR {
				return
			}
		}
	})
	return never
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
