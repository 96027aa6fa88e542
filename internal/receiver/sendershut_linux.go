package receiver

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Linux's TCP states (include/net/tcp_states.h): the sender's side is
// closed when its reset came (tcpClose), or its FIN (tcpCloseWait).
const (
	tcpEstablished = 1
	tcpClose       = 7
	tcpCloseWait   = 8
)

// tcpState is c's TCP state, 0 when it cannot be had.
func tcpState(c net.Conn) (state uint8, outq int) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0, 0
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, 0
	}
	rc.Control(func(fd uintptr) {
		// The send queue first: a reset that comes between the two looks
		// empties it, and the state then says the reset.
		outq, _ = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ)
		if info, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
			state = info.State
		}
	})
	return state, outq
}

// senderShut reports whether the sender has closed its side of c: its FIN
// (or its reset) came, whether or not a read has seen it yet.
func senderShut(c net.Conn) bool {
	st, _ := tcpState(c)
	return st == tcpCloseWait || st == tcpClose
}

// answerTaken says, once an answer was written to a connection whose
// sender had closed its side, whether the sender took it: its TCP
// acknowledged every byte (a sender that only half-closed, shutdown
// SHUT_WR, and reads on), or reset the connection (one that had closed it
// whole: Linux resets a closed socket that data reaches), watching up to
// wait for either. known is false when neither came in time.
func answerTaken(c net.Conn, wait time.Duration) (taken, known bool) {
	end := time.Now().Add(wait)
	step := 50 * time.Microsecond
	for {
		st, outq := tcpState(c)
		switch {
		case st == 0:
			return false, false
		case st == tcpClose:
			return false, true
		case outq == 0:
			return true, true
		}
		if time.Now().After(end) {
			return false, false
		}
		// No event says an acknowledgment came: the kernel is asked again.
		time.Sleep(step)
		step = min(2*step, 10*time.Millisecond)
	}
}
