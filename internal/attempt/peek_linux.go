//go:build linux

package attempt

import (
	"net"
	"os"
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
		_, e := peekByte(fd, b[:])
		idle = e == syscall.EAGAIN
	})
	return err == nil && idle
}

// peekByte looks at fd's next byte without taking it or waiting
// (MSG_PEEK), through EINTR: n is 1 for a byte, 0 for the peer's close;
// EAGAIN says nothing is there yet.
func peekByte(fd uintptr, p []byte) (int, syscall.Errno) {
	for {
		n, e := sysPeek(fd, p)
		if e != syscall.EINTR {
			return n, e
		}
	}
}

// bytesWait says whether bytes wait in fd's socket (an answer), by a look
// that neither waits nor takes them.
func bytesWait(fd uintptr, p []byte) bool {
	n, e := peekByte(fd, p)
	return e == 0 && n > 0
}

// peekBytes copies into p what waits in c's socket, without taking it or
// waiting: 0 for nothing, the peer's close, or an error.
func peekBytes(c net.Conn, p []byte) int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	rc.Control(func(fd uintptr) {
		if m, e := peekByte(fd, p); e == 0 {
			n = m
		}
	})
	return n
}

// readableWait waits until a socket has something to read (bytes, the
// peer's close, an error) without taking the bytes. Made once for a
// connection, so that a wait allocates nothing; only its reading
// goroutine uses it.
type readableWait struct {
	rc     syscall.RawConn
	local  net.Addr
	remote net.Addr
	look   func(fd uintptr) bool
	b      [1]byte
	failed syscall.Errno
}

// newReadableWait is the wait for c's socket, nil when c is none.
func newReadableWait(c net.Conn) *readableWait {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &readableWait{rc: rc, local: c.LocalAddr(), remote: c.RemoteAddr()}
	w.look = func(fd uintptr) bool {
		_, e := peekByte(fd, w.b[:])
		if e == syscall.EAGAIN {
			return false
		}
		w.failed = e
		return true
	}
	return w
}

// wait waits for the socket; its close or read deadline ends the wait
// too, and the read that follows says so. A look that meets the socket's
// error (a reset) takes it, and the read would then see the connection's
// end instead: that error is returned, in the words a read of the
// connection would have given it.
func (w *readableWait) wait() error {
	w.failed = 0
	_ = w.rc.Read(w.look)
	return w.err()
}

// now looks once, without waiting: whether the socket has something to
// read (bytes, the peer's close, an error), and the error the look took,
// as wait returns it. A socket that cannot be looked at (closed) is taken
// as having something: the read says what.
func (w *readableWait) now() (bool, error) {
	w.failed = 0
	there := true
	_ = w.rc.Control(func(fd uintptr) { there = w.look(fd) })
	return there, w.err()
}

// err is the error the last look took, in the words a read of the
// connection would have given it; nil for none.
func (w *readableWait) err() error {
	if w.failed == 0 {
		return nil
	}
	return &net.OpError{Op: "read", Net: w.local.Network(), Source: w.local, Addr: w.remote, Err: os.NewSyscallError("read", w.failed)}
}
