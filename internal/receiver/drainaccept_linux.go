package receiver

import (
	"errors"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// acceptQueued takes a connection the kernel has queued on tl without
// waiting, nil when the queue is empty. The listening socket is
// non-blocking (Go makes every socket so), so accept(2) says "empty"
// (EAGAIN) itself: no deadline decides it, and a goroutine the scheduler
// holds for a while on a loaded machine takes every queued call all the
// same (with Accept and a short deadline, a deadline already past when
// Accept ran failed it before it looked, and the calls still queued were
// reset by the close).
// pause runs before each look (a test's stand-in for the scheduler).
func acceptQueued(tl *net.TCPListener, pause func()) (net.Conn, error) {
	rc, err := tl.SyscallConn()
	if err != nil {
		return nil, err
	}
	for {
		pause()
		var fd int
		var aerr error
		if err := rc.Control(func(s uintptr) {
			fd, _, aerr = unix.Accept4(int(s), unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK)
		}); err != nil {
			return nil, err
		}
		switch {
		case errors.Is(aerr, unix.EAGAIN):
			return nil, nil
		case errors.Is(aerr, unix.EINTR), errors.Is(aerr, unix.ECONNABORTED):
			continue // interrupted, or a queued connection its sender reset: the next one
		case aerr != nil:
			return nil, aerr
		}
		f := os.NewFile(uintptr(fd), "drained")
		c, err := net.FileConn(f) // a duplicate, registered with the poller
		f.Close()
		return c, err
	}
}

// bufferedBytes is how many bytes c's socket holds unread (0 when that
// cannot be known).
func bufferedBytes(c net.Conn) int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ) })
	return n
}

// readQueued reads into p what c's socket holds now, without waiting and
// without a deadline (0 when it holds nothing, or cannot be read so).
func readQueued(c net.Conn, p []byte) int {
	if len(p) == 0 || bufferedBytes(c) == 0 {
		return 0
	}
	rc, err := c.(syscall.Conn).SyscallConn() // bufferedBytes found it one
	if err != nil {
		return 0
	}
	n := 0
	rc.Control(func(fd uintptr) {
		for {
			m, err := unix.Read(int(fd), p)
			if err == unix.EINTR {
				continue
			}
			if err == nil {
				n = max(m, 0)
			}
			return
		}
	})
	return n
}

// readsQueued says readQueued reads what a socket holds (Linux).
const readsQueued = true
