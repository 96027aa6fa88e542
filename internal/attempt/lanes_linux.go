//go:build linux

package attempt

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A closed run's event loops, as wrk sends (#35). A goroutine per
// connection parks after every call and is woken by the scheduler for its
// answer, and looks at its kept-alive connection with a system call of
// its own before each call (#28): a fifth of send's CPU. Here each of a
// few loops (loopsFor) owns a share of the run's lanes, a delivery in
// flight each with its connection, all in one epoll set: one wait takes every
// answer ready, and the wait after an answer is the look at its
// connection, since the set reports any that holds bytes or was closed.
//
// A loop makes only the steady state: a call written on a kept-alive
// connection and its answer (up to laneAnswer) read. A delivery whose
// lane has no connection (its first, or after the receiver closed one),
// the retries of one that failed and the rest of a longer answer are made
// on a goroutine of their own by the worker's path (rawAttempt, again,
// readAway), which hands the lane back with its connection: one code for
// dialling, backoff, Retry-After and Ctrl-C during a wait.
//
// The loops read and write the sockets the worker's path dialled, taken
// from their net.Conns (a copy of the descriptor, the net.Conn closed):
// Go's poller, which watches every net.Conn, would be told of every
// answer too, for nobody, and its wake-ups cost what the loop saves. A
// handed-off lane's socket is a net.Conn again for its goroutine.

// RunLanes makes a closed run's deliveries on event loops and says true;
// or says false at once, having made none, where the run cannot be made
// so (loops): then a goroutine per lane makes it.
func (d *Deliverer) RunLanes(ctx context.Context, run Lanes) bool {
	if !d.loops() || run.N < 1 {
		return false
	}
	loops := make([]*loop, min(loopsFor(runtime.GOMAXPROCS(0)), run.N))
	for i := range loops {
		lp, err := newLoop(ctx, d, &run)
		if err != nil {
			// No epoll or eventfd to be had (file descriptors ran out):
			// the goroutines make the run, and meet the same if they must.
			for _, lp := range loops[:i] {
				lp.close()
			}
			return false
		}
		loops[i] = lp
	}
	for n := range run.N {
		lp := loops[n%len(loops)]
		lp.lanes = append(lp.lanes, &lane{n: n, idx: int32(len(lp.lanes)), fd: -1, buf: newBodyBuf(ctx)})
	}
	stop := context.AfterFunc(ctx, func() {
		for _, lp := range loops {
			lp.wakeUp()
		}
	})
	var wg sync.WaitGroup
	for _, lp := range loops {
		wg.Go(lp.run)
	}
	wg.Wait()
	stop()
	for _, lp := range loops {
		lp.close()
	}
	return true
}

// errIncomplete is an answer a loop has only part of so far: it reads on
// (never shown).
var errIncomplete = errors.New("answer incomplete")

// answerReader reads what a lane has of an answer, then says how it ends:
// the connection's close or error, or errIncomplete while it may bring
// more. An answer is parsed whole from its start each time more of it
// comes, by the code that reads one from a connection (readAnswer), so
// that both paths take the same answers the same way; most come in one
// read.
type answerReader struct {
	b   []byte
	end error
}

func (r *answerReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, r.end
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}

// loops says whether the Deliverer's closed runs may be made on event
// loops: plain HTTP with no proxy to the target (the worker's fast path,
// whose code the loops share), the fast path not switched off
// (WHSIM_TRANSPORT), and answers read lean (KeepBody reads them with
// net/http's parser, which a loop does not run).
func (d *Deliverer) loops() bool {
	dt, ok := d.Client.Transport.(directTransport)
	return ok && !dt.netHTTP && !dt.noLoops && d.Client.Jar == nil && d.Client.Timeout > 0 &&
		!d.KeepBody && rawOK(dt.Transport, d.Target)
}

// loopsFor is how many loops a run has on procs CPUs: one for every
// two. A loop is busy only while answers come faster than it takes them,
// and one that waits less often costs less; the receiver under test most
// often shares the machine. On two CPUs, with the send benchmark's null
// receiver (bench/send/run.sh), two loops cost 1.06-1.11x wrk's CPU per
// delivery and one 0.99x, for as many deliveries a second.
func loopsFor(procs int) int { return max(1, (procs+1)/2) }

// laneState is where a lane's delivery is.
type laneState uint8

const (
	// laneLook: the call is made and waits for the next epoll_wait to look
	// at the kept-alive connection.
	laneLook laneState = iota
	// laneRead: the call is written; its answer is read. (A call the
	// socket's buffer cannot take whole is written by a goroutine of its
	// own: writeAway.)
	laneRead
	// laneAway: a goroutine of its own makes the delivery.
	laneAway
	// laneDone: the lane has no job left.
	laneDone
)

// lane is a delivery in flight and what it keeps from one to the next.
type lane struct {
	n   int   // in the run (Lanes.Done, Skip)
	idx int32 // in its loop: the data of its epoll events
	buf *bodyBuf
	// fd is the lane's socket, in the loop's set, or -1; local and
	// remote are its addresses, for its errors (as net.Conn's).
	fd            int
	local, remote net.Addr

	job   []*Request
	i     int // job[i] is the delivery in flight
	state laneState

	req    *Request
	res    *Result
	t      *target
	method string
	start  time.Time
	// deadline is the attempt's time limit; gen counts the lane's
	// attempts, so that the loop's queue of deadlines knows stale ones.
	deadline time.Time
	gen      uint64
	out      []byte // the call, or what is left of it to write
	in       []byte // the answer so far
	end      error  // how the connection ended the answer: nil while it may bring more
	ar       answerReader
	br       *bufio.Reader
	resp     http.Response // the answer, reused (rawConn.resp)
	pre      []byte        // the start of its body, when kept (rawConn.pre)
}

// opError is err met on the lane's socket as net.Conn would give it.
func (l *lane) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: l.local, Addr: l.remote, Err: err}
}

// due is an attempt in a loop's queue of deadlines.
type due struct {
	l   *lane
	gen uint64
}

// live says whether the attempt is still in flight: the lane's current
// one, its answer being read.
func (q due) live() bool {
	return q.gen == q.l.gen && q.l.state == laneRead
}

// loop is one event loop of a run.
type loop struct {
	d    *Deliverer
	ctx  context.Context
	feed *Lanes

	lanes []*lane
	live  int // lanes not done

	ep   int // the epoll set
	epf  *os.File
	eprc syscall.RawConn // Go's poller waits on ep when nothing is ready
	// deadline is epf's read deadline: the nearest attempt's, give or
	// take deadlineSlack.
	deadline time.Time
	wake     int // an eventfd in ep: a lane handed back, or Ctrl-C
	events   []unix.EpollEvent
	// poll is pollReady, and ready and errno what it found.
	poll  func(fd uintptr) bool
	ready int
	errno syscall.Errno

	// looks are the lanes whose calls wait for the next epoll_wait;
	// spare is the slice of the looks being sent, reused.
	looks, spare []*lane
	// queue holds the attempts in flight in the order they started,
	// which, with one time limit for all, is the order of their
	// deadlines; head is its first live entry.
	queue []due
	head  int

	// offLoop counts the lanes handed to goroutines and not taken back.
	offLoop int

	// mu guards back and the eventfd's closing.
	mu   sync.Mutex
	back []*lane // lanes handed back by their goroutines
	// gone counts the goroutines lanes were handed to.
	gone sync.WaitGroup
	// err is the loop's own failure (fail): nothing more starts.
	err error
}

// wakeData marks the eventfd's events.
const wakeData = -1

func newLoop(ctx context.Context, d *Deliverer, run *Lanes) (*loop, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	if err := unix.SetNonblock(ep, true); err != nil {
		unix.Close(ep)
		return nil, err
	}
	// Non-blocking, ep is a file Go's poller takes: a loop with nothing
	// ready parks there instead of blocking its thread in epoll_wait,
	// which would hold its P from every other goroutine.
	epf := os.NewFile(uintptr(ep), "epoll")
	lp := &loop{d: d, ctx: ctx, feed: run, ep: ep, epf: epf, wake: -1}
	lp.poll = lp.pollReady
	if lp.eprc, err = epf.SyscallConn(); err != nil {
		epf.Close()
		return nil, err
	}
	if lp.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		epf.Close()
		return nil, os.NewSyscallError("eventfd", err)
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeData}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, lp.wake, &ev); err != nil {
		lp.close()
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	return lp, nil
}

func (lp *loop) close() {
	lp.mu.Lock()
	if lp.wake >= 0 {
		unix.Close(lp.wake)
		lp.wake = -1
	}
	lp.mu.Unlock()
	lp.epf.Close()
}

// wakeUp ends the loop's wait: safe from any goroutine, and nothing once
// the loop is closed (a Ctrl-C as the run ends).
func (lp *loop) wakeUp() {
	lp.mu.Lock()
	lp.signal()
	lp.mu.Unlock()
}

// signal is wakeUp under lp.mu, which keeps the eventfd from closing (and
// its number from being another file's) while it is written.
func (lp *loop) signal() {
	if lp.wake < 0 {
		return
	}
	one := [8]byte{1}
	for {
		_, err := unix.Write(lp.wake, one[:])
		if err != unix.EINTR {
			return // EAGAIN: the counter is full, the loop wakes anyway
		}
	}
}

func (lp *loop) run() {
	// Every slot of the event list is there for a lane (and the eventfd),
	// so that a wait reports every connection ready: one it does not
	// report has passed the look.
	lp.events = make([]unix.EpollEvent, len(lp.lanes)+1)
	lp.live = len(lp.lanes)
	for _, l := range lp.lanes {
		l.in = make([]byte, 0, 4096)
		l.br = bufio.NewReaderSize(&l.ar, 4096) // as the worker's (rawConn.r)
		lp.next(l)
	}
	for lp.live > 0 {
		n, err := lp.wait()
		if err != nil {
			lp.fail(err)
			return
		}
		events := lp.events[:n]
		woken := false
		for _, ev := range events {
			if ev.Fd == wakeData {
				woken = true
			} else if l := lp.lanes[ev.Fd]; l.state == laneLook {
				// Bytes no call asked for, or the receiver's close: the
				// call goes on a new connection, from the worker's path.
				var b [len(status408)]byte
				n, _ := peekByte(uintptr(l.fd), b[:])
				lp.d.noteLeftover(b[:max(n, 0)])
				lp.drop(l)
			}
		}
		looks := lp.looks
		lp.looks = lp.spare[:0]
		for _, l := range looks {
			lp.send(l)
		}
		lp.spare = looks[:0]
		for _, ev := range events {
			if ev.Fd == wakeData {
				continue
			}
			if l := lp.lanes[ev.Fd]; l.state == laneRead {
				lp.read(l)
			}
		}
		if woken {
			lp.takeBack()
		}
		if lp.ctx.Err() != nil {
			lp.interrupt()
		}
		lp.expire()
		if lp.offLoop > 0 {
			// A loop busy with answers never parks: the goroutines of
			// its handed-off lanes (and of the rest of the run) get their
			// turn here rather than at the scheduler's preemption, 10 ms
			// on, which their latencies would count where the loop has
			// every CPU (GOMAXPROCS 1).
			runtime.Gosched()
		}
	}
}

// wait is the loop's epoll_wait: at once when a look is due, else until
// something is ready, a lane comes back, or the nearest deadline.
func (lp *loop) wait() (int, error) {
	if len(lp.looks) > 0 {
		n, errno := epollPoll(lp.ep, lp.events)
		if errno != 0 {
			return 0, os.NewSyscallError("epoll_wait", errno)
		}
		return n, nil
	}
	if err := lp.setDeadline(); err != nil {
		return 0, err
	}
	err := lp.eprc.Read(lp.poll)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return 0, nil
	case err != nil:
		return 0, err
	case lp.errno != 0:
		return 0, os.NewSyscallError("epoll_wait", lp.errno)
	}
	return lp.ready, nil
}

// pollReady is lp.poll: epollPoll as Go's poller calls it, ready
// when it found something; made once, and its results kept in the loop,
// where a closure per wait and its results would be three allocations.
func (lp *loop) pollReady(fd uintptr) bool {
	lp.ready, lp.errno = epollPoll(int(fd), lp.events)
	return lp.ready > 0 || lp.errno != 0
}

// epollPoll is epoll_wait that does not wait (epoll_pwait with no mask:
// not every architecture has epoll_wait), without telling the scheduler,
// as the worker's socket calls (sockIO).
func epollPoll(ep int, events []unix.EpollEvent) (int, syscall.Errno) {
	for {
		r, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(unsafe.SliceData(events))), uintptr(len(events)), 0, 0, 0)
		if e != syscall.EINTR {
			return int(r), e
		}
	}
}

// setDeadline sets the wait's deadline to the nearest attempt's, moved
// only when it must be, as a connection's (deadlineSlack).
func (lp *loop) setDeadline() error {
	for lp.head < len(lp.queue) {
		q := lp.queue[lp.head]
		if q.live() {
			break
		}
		lp.queue[lp.head] = due{}
		lp.head++
	}
	if lp.head == len(lp.queue) {
		lp.queue, lp.head = lp.queue[:0], 0
		if lp.deadline.IsZero() {
			return nil
		}
		lp.deadline = time.Time{}
		return lp.epf.SetReadDeadline(lp.deadline)
	}
	want := lp.queue[lp.head].l.deadline
	slack := deadlineSlack(lp.d.Client.Timeout)
	if !lp.deadline.IsZero() && !lp.deadline.Before(want) && !lp.deadline.After(want.Add(slack)) {
		return nil
	}
	lp.deadline = want.Add(slack)
	return lp.epf.SetReadDeadline(lp.deadline)
}

// next starts the lane's next delivery: its call made, waiting for the
// look, or handed to a goroutine when the lane has no connection.
func (lp *loop) next(l *lane) {
	for {
		if l.i >= len(l.job) {
			if l.job, l.i = lp.feed.Take(), 0; l.job == nil {
				lp.done(l)
				return
			}
		}
		if lp.err != nil || lp.feed.Over() {
			// Looked at before each delivery, as a worker does.
			lp.unstarted(l)
			return
		}
		req := l.job[l.i]
		res, t := lp.d.begin(req, l.buf)
		if t == nil { // its URL would not parse: that is its outcome
			lp.feed.Done(l.n, res)
			l.i++
			continue
		}
		l.req, l.res, l.t = req, res, t
		if l.fd < 0 || !t.raw {
			lp.away(l, func() { lp.d.attempts(lp.ctx, req, res, t, l.buf, 0) })
			return
		}
		l.method = req.Method
		if l.method == "" {
			l.method = http.MethodPost
		}
		h, plain, host := lp.d.header(req, res, t, l.buf)
		l.out = l.buf.appendRequest(l.method, t, h, plain, host, req.Body)
		l.state = laneLook
		lp.looks = append(lp.looks, l)
		return
	}
}

// done ends a lane: no job is left, or the run is over.
func (lp *loop) done(l *lane) {
	l.state = laneDone
	lp.live--
	if l.fd >= 0 {
		// Kept alive after the lane's last answer: bytes no call asked
		// for that came since are counted, as the look before a next call
		// would count them (a run's count is the same however it ends).
		var b [len(status408)]byte
		n, _ := peekByte(uintptr(l.fd), b[:])
		lp.d.noteLeftover(b[:max(n, 0)])
	}
	lp.drop(l)
	l.buf.release()
}

// send writes the call of a lane whose connection passed the look.
func (lp *loop) send(l *lane) {
	if l.fd < 0 { // dropped: bytes or the receiver's close
		lp.anew(l)
		return
	}
	l.start = time.Now()
	l.deadline = l.start.Add(lp.d.Client.Timeout)
	l.gen++
	if lp.head > 0 && lp.head >= len(lp.queue)/2 {
		// The entries before head are spent: the queue keeps to the
		// attempts in flight, give or take as many.
		lp.queue = lp.queue[:copy(lp.queue, lp.queue[lp.head:])]
		lp.head = 0
	}
	lp.queue = append(lp.queue, due{l, l.gen})
	// A lane's connection carried the call before, answered: its first
	// is the worker's path's, which keeps one only after such an answer.
	l.buf.dialed, l.buf.keptAlive = 0, true
	l.in, l.end = l.in[:0], nil
	l.state = laneRead
	lp.write(l)
}

// anew hands a lane's call, none of which went out, to the worker's
// path, which makes it on a new connection.
func (lp *loop) anew(l *lane) {
	lp.away(l, func() { lp.d.attempts(lp.ctx, l.req, l.res, l.t, l.buf, 0) })
}

// write writes what is left of a lane's call.
func (lp *loop) write(l *lane) {
	for len(l.out) > 0 {
		n, e := sysWrite(uintptr(l.fd), l.out)
		switch e {
		case 0:
			l.out = l.out[n:]
		case syscall.EINTR:
		case syscall.EAGAIN:
			// A call larger than the socket's buffer: the worker's path
			// writes the rest while it waits for the answer, which may
			// come first (a receiver that answers before it reads the
			// body, or never reads it).
			lp.writeAway(l)
			return
		default:
			var b [1]byte
			if bytesWait(uintptr(l.fd), b[:]) {
				// The receiver answered and closed before the call went
				// out whole: its answer, in the socket, is the call's.
				lp.writeAway(l)
				return
			}
			err := l.opError("write", os.NewSyscallError("write", e))
			// The look passed: the receiver ended the connection as the
			// call went out, or before any of it did.
			if err = unanswered(err, err, len(l.out) < len(l.buf.req), true); err == errBusy {
				lp.drop(l)
				lp.anew(l)
				return
			}
			lp.failed(l, err)
			return
		}
	}
}

// writeAway hands a lane's call that its socket did not take whole to a
// goroutine of its own, which writes the rest as the worker does
// (sockIO.Send: apart from the wait for the answer), reads the answer
// within the attempt's time limit, and makes the retries.
func (lp *loop) writeAway(l *lane) {
	rc, ok := lp.detach(l, nil)
	if !ok {
		return
	}
	req, res, t, method, start, rest := l.req, l.res, l.t, l.method, l.start, l.out
	sentBefore := len(rest) < len(l.buf.req)
	rc.before = len(l.buf.req) - len(rest) // what the loop wrote: the rest's count starts after it
	lp.away(l, func() {
		var resp *http.Response
		err := rc.call(rest, false, true, sentBefore)
		if err == errBusy { // none of it went out: on a new connection
			rc.close()
			l.buf.raw = nil
			lp.d.attempts(lp.ctx, req, res, t, l.buf, 0)
			return
		}
		if err == nil {
			resp, err = lp.d.readAnswer(rc.r, method, &rc.resp, &rc.pre, &rc.lim)
		}
		a, retryAfter := lp.d.rawAnswer(lp.ctx, method, t, l.buf, resp, err, start, res)
		if lp.d.again(lp.ctx, req, res, 0, a, retryAfter) {
			lp.d.attempts(lp.ctx, req, res, t, l.buf, 1)
		}
	})
}

// answerEvents are what the loop's set reports of a connection: its
// answer and the receiver's close (and errors, always).
const answerEvents = unix.EPOLLIN | unix.EPOLLRDHUP

// read reads what came of a lane's answer and, when it is whole or the
// connection ended it, makes the attempt.
func (lp *loop) read(l *lane) {
	if len(l.in) == cap(l.in) {
		grown := make([]byte, len(l.in), 2*cap(l.in))
		copy(grown, l.in)
		l.in = grown
	}
	n, e := sysRead(uintptr(l.fd), l.in[len(l.in):cap(l.in)])
	switch {
	case e == syscall.EAGAIN, e == syscall.EINTR:
		return // level-triggered: reported again
	case e != 0:
		l.end = l.opError("read", os.NewSyscallError("read", e))
	case n == 0:
		l.end = io.EOF
	default:
		l.in = l.in[:len(l.in)+n]
	}
	lp.parse(l)
}

// parse reads the answer of a lane from what the loop has of it, and
// takes it if it is whole or ended (l.end: the connection's close or
// error, or the attempt's deadline).
func (lp *loop) parse(l *lane) {
	if len(l.in) == 0 { // the connection ended before a byte of an answer
		// The call went out whole (one written in part is written
		// away), with no error.
		lp.failed(l, unanswered(l.end, nil, true, true))
		return
	}
	l.ar = answerReader{b: l.in, end: l.end}
	if l.end == nil {
		l.ar.end = errIncomplete
	}
	l.br.Reset(&l.ar)
	// No count of the head: the loop holds laneAnswer of it at most, far
	// below maxHead; the worker's path counts a longer answer's (readAway).
	resp, err := lp.d.readAnswer(l.br, l.method, &l.resp, &l.pre, nil)
	if errors.Is(err, errIncomplete) {
		if len(l.in) >= laneAnswer {
			lp.readAway(l)
		}
		return
	}
	lean, err := unfinished(err) // a lean answer's body over MaxBodyRead, or cut off
	if err != nil {
		lp.failed(l, cutHead(err, l.end, l.in))
		return
	}
	if lean == nil && idleTimedOut(resp) {
		// The receiver closed the kept-alive connection idle as the call
		// went out: the worker's path makes it on a new one.
		lp.drop(l)
		lp.anew(l)
		return
	}
	left := len(l.ar.b)+l.br.Buffered() > 0
	if left && !l.buf.answerEnds(resp, lean, false) { // as rawAnswer: a kept-alive connection's only
		b := leftover(l.br)
		if len(b) == 0 {
			b = l.ar.b[:min(len(l.ar.b), len(status408))]
		}
		lp.d.noteLeftover(b)
	}
	if l.buf.answerEnds(resp, lean, left) {
		lp.drop(l)
	}
	a, retryAfter := lp.d.answered(lp.ctx, l.t, resp, l.pre, lean, l.start, l.res)
	a.KeptAlive = l.buf.keptAlive
	lp.attempted(l, a, retryAfter)
}

// laneAnswer is how much of an answer a lane holds: the rest of a longer
// one is read by the worker's path, which reads on without keeping it,
// so that a run's memory does not grow with its lanes times the answers'
// length (MaxBodyRead).
const laneAnswer = 16 << 10

// readAway hands an answer longer than laneAnswer, with what the loop
// read of it, to a goroutine of its own, which reads the rest as the
// worker does, within the attempt's time limit, and makes the retries.
func (lp *loop) readAway(l *lane) {
	rc, ok := lp.detach(l, l.in)
	if !ok {
		return
	}
	req, res, t, method, start := l.req, l.res, l.t, l.method, l.start
	lp.away(l, func() {
		resp, err := lp.d.readAnswer(rc.r, method, &rc.resp, &rc.pre, &rc.lim)
		a, retryAfter := lp.d.rawAnswer(lp.ctx, method, t, l.buf, resp, err, start, res)
		if lp.d.again(lp.ctx, req, res, 0, a, retryAfter) {
			lp.d.attempts(lp.ctx, req, res, t, l.buf, 1)
		}
	})
}

// detach takes a lane's connection out of the loop's set into a rawConn
// of its own, under the attempt's deadline, for a goroutine to finish the
// attempt (writeAway, readAway); read is what the loop already read of the
// answer, read again first. When it fails, the lane's attempt is made
// failed and ok is false.
func (lp *loop) detach(l *lane, read []byte) (rc *rawConn, ok bool) {
	if err := unix.EpollCtl(lp.ep, unix.EPOLL_CTL_DEL, l.fd, nil); err != nil {
		lp.failed(l, os.NewSyscallError("epoll_ctl", err))
		return nil, false
	}
	c, err := fdConn(l.fd)
	l.fd = -1
	if err != nil {
		lp.failed(l, err)
		return nil, false
	}
	rc = newRawConn(lp.ctx, c)
	rc.reuse = true
	rc.lim.headStart()
	if len(read) > 0 {
		rc.lim.r = io.MultiReader(bytes.NewReader(read), rc.io)
	}
	rc.deadline = l.deadline
	if err := c.SetDeadline(rc.deadline); err != nil {
		rc.close()
		lp.failed(l, err)
		return nil, false
	}
	l.buf.raw = rc
	return rc, true
}

// failed makes the attempt of a lane whose call met err before its
// answer came, and closes its connection.
func (lp *loop) failed(l *lane, err error) {
	lp.drop(l)
	// A call the time limit ended once it went out whole (one written in
	// part is written away): what passed, as the worker's path says it.
	words, silent := "", (*Silence)(nil)
	if l.state == laneRead && len(l.out) == 0 && lp.ctx.Err() == nil && Classify(err) == KindTimeout {
		silent = &Silence{Wrote: len(l.buf.req), Whole: true, Read: len(l.in), Waited: lp.d.Client.Timeout}
		if l.res != nil && l.res.Request != nil {
			silent.Body = len(l.res.Request.Body)
		}
		words = silent.Words()
	}
	a := lp.d.rawFailed(lp.ctx, l.method, l.t, l.res, err, l.start, l.buf, words)
	if a.Kind == KindTimeout {
		a.Silent = silent
	}
	lp.attempted(l, a, 0)
}

// drop closes a lane's connection (which leaves the loop's set with it:
// the descriptor is the socket's only one).
func (lp *loop) drop(l *lane) {
	if l.fd >= 0 {
		unix.Close(l.fd)
		l.fd = -1
	}
	if l.buf.raw != nil {
		l.buf.raw.close()
		l.buf.raw = nil
	}
}

// attempted ends a lane's attempt: the delivery's last is accounted and
// the next started; one to be retried goes to a goroutine, which waits
// the backoff and makes the retries.
func (lp *loop) attempted(l *lane, a Attempt, retryAfter time.Duration) {
	l.state = laneAway // out of flight: its queue entry is stale
	if lp.d.last(lp.ctx, l.res, 0, a) || lp.err != nil {
		l.res.Attempts = append(l.res.Attempts, a)
		lp.finished(l)
		return
	}
	lp.retry(l, a, retryAfter)
}

// retry hands to a goroutine the delivery whose first attempt, a, is to
// be retried: it waits the backoff and makes the retries. (Apart from
// attempted, so that a is on the heap only here.)
func (lp *loop) retry(l *lane, a Attempt, retryAfter time.Duration) {
	req, res, t := l.req, l.res, l.t
	lp.away(l, func() {
		if lp.d.again(lp.ctx, req, res, 0, a, retryAfter) {
			lp.d.attempts(lp.ctx, req, res, t, l.buf, 1)
		}
	})
}

// finished accounts a lane's delivery and starts its next.
func (lp *loop) finished(l *lane) {
	lp.feed.Done(l.n, l.res)
	l.i++
	lp.next(l)
}

// away hands a lane's delivery to a goroutine of its own, its connection
// out of the loop's set, and takes the lane back when it is made
// (takeBack).
func (lp *loop) away(l *lane, deliver func()) {
	if l.fd >= 0 {
		// Out of the set first: the net.Conn's descriptor is a copy, and
		// the set watches a socket until its last descriptor closes.
		if err := unix.EpollCtl(lp.ep, unix.EPOLL_CTL_DEL, l.fd, nil); err != nil {
			lp.drop(l) // the worker's path dials anew
		} else {
			c, err := fdConn(l.fd)
			l.fd = -1
			if err == nil {
				rc := newRawConn(lp.ctx, c)
				rc.reuse = true
				l.buf.raw = rc
			}
		}
	}
	l.state = laneAway
	lp.offLoop++
	lp.gone.Add(1)
	go func() {
		deliver()
		lp.mu.Lock()
		lp.back = append(lp.back, l)
		lp.signal()
		lp.mu.Unlock()
		lp.gone.Done()
	}()
}

// takeBack accounts the deliveries lanes were handed off for, puts their
// connections in the loop's set and starts their next deliveries.
func (lp *loop) takeBack() {
	var count [8]byte
	unix.Read(lp.wake, count[:]) // EAGAIN: woken already
	lp.mu.Lock()
	back := lp.back
	lp.back = nil
	lp.mu.Unlock()
	for _, l := range back {
		lp.offLoop--
		lp.adopt(l)
		lp.finished(l)
	}
}

// adopt takes a lane's connection, when it has one that is a socket,
// from its net.Conn into the loop's set; one that is not (a test's
// dialer) stays with the worker's path, each delivery handed off.
func (lp *loop) adopt(l *lane) {
	rc := l.buf.raw
	if rc == nil {
		return
	}
	if _, ok := rc.io.(*sockIO); !ok {
		return
	}
	sc, ok := rc.c.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	fd := -1
	if err == nil {
		err = raw.Control(func(f uintptr) {
			fd, err = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0)
		})
	}
	if err != nil {
		lp.drop(l) // the next delivery dials anew
		return
	}
	l.local, l.remote = rc.c.LocalAddr(), rc.c.RemoteAddr()
	rc.close()
	l.buf.raw = nil
	l.fd = fd
	ev := unix.EpollEvent{Events: answerEvents, Fd: l.idx}
	if err := unix.EpollCtl(lp.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		lp.drop(l)
	}
}

// fdConn is a net.Conn of the socket fd, which it closes (the net.Conn
// has a copy).
func fdConn(fd int) (net.Conn, error) {
	f := os.NewFile(uintptr(fd), "socket")
	defer f.Close()
	return net.FileConn(f)
}

// interrupt ends every attempt in flight on Ctrl-C, as the worker's path
// does (rawFailed says interrupted); a call still waiting for its look
// was not made, and is counted as not started.
func (lp *loop) interrupt() {
	for _, l := range lp.lanes {
		switch l.state {
		case laneRead:
			lp.failed(l, lp.ctx.Err())
		case laneLook:
			lp.unstarted(l)
		}
	}
	lp.looks = lp.looks[:0]
}

// unstarted ends a lane whose call waits for its look: it is not made,
// and counted with the rest of its job as not started.
func (lp *loop) unstarted(l *lane) {
	lp.drop(l)
	lp.feed.Skip(l.n, len(l.job)-l.i)
	l.job = nil
	lp.done(l)
}

// expire ends the attempts whose time limit passed, as their
// connection's deadline does on the worker's path.
func (lp *loop) expire() {
	if lp.head == len(lp.queue) {
		return
	}
	now := time.Now()
	for ; lp.head < len(lp.queue); lp.head++ {
		q := lp.queue[lp.head]
		l := q.l
		live := q.live()
		if live && now.Before(l.deadline) {
			return
		}
		lp.queue[lp.head] = due{}
		if live {
			// What came of the answer is read as ended by the deadline:
			// a head that came whole is an answer whose body was not
			// finished in time, as the worker's read finds it.
			l.end = l.opError("read", os.ErrDeadlineExceeded)
			lp.parse(l)
		}
	}
}

// fail ends the loop when its epoll set fails, which nothing but a bug
// makes it do: every call in flight ends with the error, none starts
// after it, and the lanes handed off are waited for.
func (lp *loop) fail(err error) {
	lp.err = err
	for _, l := range lp.lanes {
		switch l.state {
		case laneRead:
			lp.failed(l, err)
		case laneLook:
			lp.unstarted(l)
		}
	}
	lp.looks = lp.looks[:0]
	lp.gone.Wait()
	lp.takeBack()
}
