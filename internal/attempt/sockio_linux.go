//go:build linux

package attempt

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// sockIO reads and writes a worker's connection with raw system calls.
// net.Conn's Read and Write tell the scheduler of every call
// (entersyscall): on loopback a write carries the receiver's side of TCP
// too and lasts long enough that the scheduler's monitor hands the
// worker's P to another thread and wakes it, and every call wakes the
// monitor, which then polls every 20 µs: a tenth of send's CPU went to
// that. The socket is non-blocking, so a raw call never blocks; when it
// would, the poller waits as for net.Conn, deadlines included. (Under the
// race detector the calls are the annotated ones: sockio_race.go.)
type sockIO struct {
	c     net.Conn
	rc    syscall.RawConn
	p     []byte
	n     int
	errno syscall.Errno
	// sent: send's request is out and the poller was asked to wait for
	// the answer.
	sent bool
	// check: send looks at the socket before it writes (a kept-alive
	// connection); busy: it found bytes there, or the receiver's close,
	// and wrote nothing.
	check, busy bool
	// taken is the socket's error (a reset) a look took (idle): the
	// next Read says it, which would otherwise find the connection's end
	// (EOF) in its place and say a close.
	taken             syscall.Errno
	peek              [1]byte
	read, write, send func(fd uintptr) bool
	// held, when set (by tests), runs once send's request is out, where
	// a loaded machine may hold the goroutine before it waits for the
	// answer (a stand-in for the scheduler).
	held        func()
	restWriting // a request too large for the socket's buffer
}

// writeOut writes p to fd until it is all out (done, rest empty), the
// socket's buffer is full (not done, rest what is left), or a write fails
// (done, errno).
func writeOut(fd uintptr, p []byte) (rest []byte, errno syscall.Errno, done bool) {
	for len(p) > 0 {
		n, e := sysWrite(fd, p)
		switch e {
		case 0:
			p = p[n:]
		case syscall.EINTR:
		case syscall.EAGAIN:
			return p, 0, false
		default:
			return p, e, true
		}
	}
	return p, 0, true
}

// newSockIO returns c's reader and sender: raw where c is a socket.
func newSockIO(c net.Conn) connIO {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return &netIO{Conn: c}
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return &netIO{Conn: c}
	}
	s := &sockIO{c: c, rc: rc}
	s.read = func(fd uintptr) bool {
		for {
			n, e := sysRead(fd, s.p)
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			s.n, s.errno = n, e
			return true
		}
	}
	s.write = func(fd uintptr) (done bool) {
		s.p, s.errno, done = writeOut(fd, s.p)
		return done
	}
	// send runs as a read: RawConn.Read clears the socket's readiness
	// and then calls it, so the request written in its first call is
	// answered after the clearing, and the poller's wait that follows
	// cannot miss the answer. Its second call, the answer come, reads
	// nothing: the reader does.
	s.send = func(fd uintptr) bool {
		if s.sent {
			return true
		}
		if s.check {
			// Under the lock RawConn.Read takes anyway: the look costs its
			// system call and nothing more (see peekIdle).
			s.check = false
			if !s.idle(fd) {
				s.busy = true
				return true
			}
		}
		if !s.write(fd) {
			return true // the socket's buffer is full: send waits to write the rest
		}
		s.sent = s.errno == 0
		if s.sent && s.held != nil {
			s.held()
		}
		return !s.sent
	}
	return s
}

// lateLook is the look a read whose deadline had passed skipped: Go fails
// a read (and a wait for one) whose deadline is past before it looks, and
// a loaded machine may hold the goroutine that long while the answer, or
// the receiver's close, is already in the socket. f runs once on the
// socket without waiting; ok says it found something (then the deadline
// decides nothing).
func (s *sockIO) lateLook(err error, f func(fd uintptr) bool) (ok bool) {
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	if cerr := s.rc.Control(func(fd uintptr) { ok = f(fd) }); cerr != nil {
		return false
	}
	return ok
}

func (s *sockIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if s.taken != 0 {
		e := s.taken
		s.taken = 0
		return 0, s.opError("read", os.NewSyscallError("read", e))
	}
	s.p, s.n, s.errno = p, 0, 0
	err := s.rc.Read(s.read)
	if err != nil && s.lateLook(err, s.read) {
		err = nil
	}
	s.p = nil
	switch {
	case err != nil:
		return 0, s.opError("read", err)
	case s.errno != 0:
		return 0, s.opError("read", os.NewSyscallError("read", s.errno))
	case s.n == 0:
		return 0, io.EOF
	}
	return s.n, nil
}

// idle says whether the socket has nothing to read: peekIdle's look. An
// error the look takes is kept for the next Read (taken).
func (s *sockIO) idle(fd uintptr) bool {
	_, e := peekByte(fd, s.peek[:])
	if e != 0 && e != syscall.EAGAIN {
		s.taken = e
	}
	return e == syscall.EAGAIN
}

// Send writes p whole and returns once an answer can be read: one system
// call fewer per delivery than a write and a read, which would find
// nothing yet (EAGAIN) before the wait. With check it first looks at the
// socket, and finding it not idle writes nothing: errBusy.
func (s *sockIO) Send(p []byte, check bool) error {
	s.p, s.n, s.errno, s.sent, s.check, s.busy, s.taken = p, 0, 0, false, check, false, 0
	s.begin()
	err := s.rc.Read(s.send)
	if err != nil && s.sent && s.lateLook(err, func(fd uintptr) bool { return !s.idle(fd) }) {
		// The request is out and its answer (or the receiver's close)
		// waits in the socket: the reader takes it.
		err = nil
	}
	s.wrote, s.out, s.total = len(s.p) < len(p), len(p)-len(s.p), len(p)
	if err == nil && s.busy {
		s.p = nil
		return errBusy
	}
	if err == nil && !s.sent && s.errno == 0 {
		// A body larger than the socket's buffer: the rest is written by
		// a goroutine when there is room, while the reader waits for the
		// answer, as net/http's transport writes and reads apart: a
		// receiver may answer (413, or 200) before it reads the body, or
		// never read it, and its answer is the call's.
		rest := s.p
		s.apart(func() error {
			var errno syscall.Errno
			err := s.rc.Write(func(fd uintptr) (done bool) {
				rest, errno, done = writeOut(fd, rest)
				return done
			})
			s.wrote, s.out = s.wrote || len(rest) < len(p), len(p)-len(rest)
			if err == nil && errno != 0 {
				err = os.NewSyscallError("write", errno)
			}
			if err != nil {
				err = s.opError("write", err)
			}
			return err
		})
		s.p = nil
		return nil
	}
	s.p = nil
	op := "write"
	if s.sent {
		op = "read" // waiting for the answer
	}
	switch {
	case err != nil:
		return s.opError(op, err)
	case s.errno != 0:
		err = s.opError("write", os.NewSyscallError("write", s.errno))
		if s.answerWaits() {
			// The receiver answered and closed (a reset, of the rest
			// unread) before the call went out whole: its answer is in
			// the socket, and is the call's, as curl reads it.
			s.unwritten = err
			return nil
		}
		return err
	}
	return nil
}

// answerWaits says whether bytes wait in the socket: a look that neither
// waits nor takes them.
func (s *sockIO) answerWaits() bool {
	waits := false
	s.rc.Control(func(fd uintptr) { waits = bytesWait(fd, s.peek[:]) })
	return waits
}

// opError is the error net.Conn would give.
func (s *sockIO) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok { // from RawConn: a deadline, a closed connection
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: s.c.LocalAddr(), Addr: s.c.RemoteAddr(), Err: err}
}
