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

// ackState is what c's socket says (TCP_INFO, Linux 4.6 on) of the
// receiver's acknowledgements, before a call's bytes go out: the bytes it
// acknowledged, and the segments it sent that carried no data (an
// acknowledgement alone, a FIN, a reset). ok false when it cannot look.
type ackState struct {
	acked, bare uint64
	ok          bool
}

func ackStateOf(c net.Conn) (s ackState) {
	onSocket(c, func(fd uintptr) {
		info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil || info.Segs_in < info.Data_segs_in {
			return
		}
		s = ackState{acked: info.Bytes_acked, bare: uint64(info.Segs_in - info.Data_segs_in), ok: true}
	})
	return s
}

// neverAcked says c's socket, before (ackStateOf) when a call's bytes were
// about to go out, was then reset (TCP_CLOSE) after a FIN, with none of
// those bytes acknowledged: the receiver had closed its socket, which
// took none of them (an open socket acknowledges what it takes, and a FIN
// after them acknowledges them too), and reset them; its application
// read none. Two segments without data since, none acknowledging a byte,
// are the FIN and the reset: a reset alone (a receiver that read the
// call and aborted the connection, its acknowledgement not yet sent,
// and a reset acknowledges nothing Linux reads) may have read it.
func neverAcked(c net.Conn, before ackState) (never bool) {
	if !before.ok {
		return false
	}
	onSocket(c, func(fd uintptr) {
		info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil || info.State != tcpClose || info.Bytes_acked != before.acked || info.Segs_in < info.Data_segs_in {
			return
		}
		never = uint64(info.Segs_in-info.Data_segs_in) >= before.bare+2
	})
	return never
}

// stateOf is c's socket's TCP state (TCP_INFO's), 0 when it cannot look.
func stateOf(c net.Conn) (state uint8) {
	onSocket(c, func(fd uintptr) {
		if info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
			state = info.State
		}
	})
	return state
}
