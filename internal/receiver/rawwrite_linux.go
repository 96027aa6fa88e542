package receiver

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// rawWriter writes to a TCP connection with raw write(2) calls, waiting
// for room on the runtime's poller as net.Conn does, with the same results
// and errors as its Write.
//
// Why: a goroutine in an ordinary system call leaves its P in the syscall
// state, and the runtime's monitor hands such a P to another thread once
// the call has lasted past its tick. The answer's write(2) often does: it
// wakes the sender, which on two cores preempts listen's thread inside the
// call. Under load each hand-off woke a thread that found nothing to do
// and slept again, and kept the monitor waking every 20 µs: a third of
// listen's context switches, each costing several µs of CPU on this kind
// of VM. A socket is non-blocking, so a raw write never sleeps in the
// kernel: it takes what fits, or fails with EAGAIN and the goroutine parks
// on the poller as before. Only writes are raw: reads, done the same way,
// saved nothing measurable (docs/performance.md, session fourteen).
type rawWriter struct {
	conn net.Conn
	rc   syscall.RawConn
	// mu guards one write's state; step is bound once, so that no closure
	// is allocated a write.
	mu   sync.Mutex
	p    []byte
	n    int
	err  error
	step func(fd uintptr) bool
}

// newRawWriter returns nil when c is not a TCP connection: it writes
// itself.
func newRawWriter(c net.Conn) io.Writer {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &rawWriter{conn: c, rc: rc}
	w.step = w.writeStep
	return w
}

// writeStep writes what is left of w.p; false asks the poller to wait
// until the socket takes more.
func (w *rawWriter) writeStep(fd uintptr) bool {
	for w.n < len(w.p) {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&w.p[w.n])), uintptr(len(w.p)-w.n))
		switch e {
		case 0:
			w.n += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			w.err = os.NewSyscallError("write", e)
			return true
		}
	}
	return true
}

func (w *rawWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.p, w.n, w.err = p, 0, nil
	err := w.rc.Write(w.step)
	n := w.n
	if err != nil {
		// A deadline or a closed connection, in the RawConn's wrapping.
		var oe *net.OpError
		if errors.As(err, &oe) {
			err = oe.Err
		}
	} else {
		err = w.err
	}
	w.p, w.err = nil, nil
	if err != nil {
		return n, &net.OpError{Op: "write", Net: "tcp", Source: w.conn.LocalAddr(), Addr: w.conn.RemoteAddr(), Err: err}
	}
	return n, nil
}
