package receiver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

// net/http answers a request whose head it cannot read (a bad header name,
// two Content-Lengths, no Host, an unknown Transfer-Encoding, a head over
// MaxHeaderBytes, a malformed request line) itself, writing 400, 431 or
// 501 straight to the connection, and the handler never runs: such a call
// reached listen, yet nothing would print, count or record it. So each
// connection keeps a bounded copy of the bytes read since its last request
// was handed over, and a write to it while no handler has run for those
// bytes is net/http's own answer: the copy and that answer are the
// rejected call. Bytes that came and were answered with nothing (the
// connection closed or timed out mid-head) are one too.
//
// On a normal request this costs a copy of its first bytes (up to
// capture.MaxRejectedHead) into a pooled buffer, and one lock per read
// and write: no allocation (BenchmarkListenSocket). A request pipelined
// behind another, read in the same read as the one before it, is recorded
// without its head bytes (they were read before that one was answered),
// but recorded. HTTP/2 connections (prior knowledge) are left alone after
// their preface: their requests all reach the handler, and the server
// writes frames of its own. One the stop takes from the accept queue,
// which no server reads, is read here (h2drain.go).

// Rejection is a request the HTTP server refused before the handler saw it.
type Rejection struct {
	Time   time.Time
	Remote string
	// Head is the first bytes of the request that arrived, at most
	// capture.MaxRejectedHead of HeadBytes.
	Head      []byte
	HeadBytes int64
	// Status is what the server answered, 0 when it answered nothing;
	// Answer is that answer, byte for byte.
	Status int
	Answer []byte
	// Reason says why, in the server's words when it gave any.
	Reason string
	// StopClosed says listen's stop closed its connection as it arrived
	// (stoppingReason): it was not refused for what it was.
	StopClosed bool
	// Method and Target are the request's, with Header its header fields,
	// when they were read from an HTTP/2 HEADERS frame (Head holds the
	// connection's bytes then); "" when Head's request line tells them.
	Method, Target string
	Header         http.Header
}

// connKey finds a connection's watch in its requests' contexts.
type connKey struct{}

// watchListener hands out connections that watch for rejected requests.
type watchListener struct {
	net.Listener
	report func(*Rejection)
	now    func() time.Time
	// heads are the head buffers of connections that ended, for new ones.
	heads sync.Pool
	// reports counts the reports Close started and that have not returned
	// (see Close).
	reports sync.WaitGroup
	// stopping says the server's stop began (ServeGrace).
	stopping atomic.Bool
	// holds says the handler may hold a call (a delay, a forward): only
	// then is a sender whose side closed sent an interim answer (see
	// holdEOF).
	holds bool
	// readShut, when set (by tests), runs when a connection's background
	// read found the sender's side closed while a handler held its call
	// (see holdEOF).
	readShut func()
	// pause, when set (by tests), runs where a loaded machine may hold the
	// stop's drain: after a bound is set and before the look it bounds (at
	// the accept queue, at a drained connection's first read).
	pause func()
	// fresh are the accepted connections net/http has not yet seen a
	// request start on (StateNew), for the stop to close those that sent
	// nothing (closeSilent).
	freshMu sync.Mutex
	fresh   map[*watchedConn]struct{}
}

// paused runs l.pause, when set.
func (l *watchListener) paused() {
	if l.pause != nil {
		l.pause()
	}
}

// waitReports waits until every report Close started has returned, or
// until done is closed.
func (l *watchListener) waitReports(done <-chan struct{}) {
	all := make(chan struct{})
	go func() { l.reports.Wait(); close(all) }()
	select {
	case <-all:
	case <-done:
	}
}

// maxDrained bounds the connections Close takes from the accept queue.
const maxDrained = 4096

// drainWait bounds how long a connection taken from the accept queue at
// the stop may take to send its head: a client sends its call as soon as
// it has connected, and one that connected ahead (a pool) and sent nothing
// must not hold the stop.
const drainWait = 250 * time.Millisecond

// Close, once the stop began, first takes the connections still queued in
// the kernel (connected, never accepted): closing the socket would reset
// them, and the calls they carry, which reached listen, would be recorded
// nowhere. net/http serves no new request once its shutdown began, so each
// is read until its head is whole (up to drainWait), reported as a call
// listen closed while stopping (when anything came), and closed.
func (l *watchListener) Close() error {
	if tl, ok := l.Listener.(*net.TCPListener); ok && l.stopping.Load() {
		for range maxDrained {
			c, err := acceptQueued(tl, l.paused)
			if c == nil || err != nil {
				break
			}
			wc := &watchedConn{Conn: c, l: l, watching: true, drained: true}
			l.reports.Add(1)
			go func() {
				defer l.reports.Done()
				wc.drain()
			}()
		}
	}
	return l.Listener.Close()
}

func newWatchListener(ln net.Listener, report func(*Rejection)) *watchListener {
	l := &watchListener{Listener: ln, report: report, now: time.Now}
	l.heads.New = func() any { b := make([]byte, 0, capture.MaxRejectedHead); return &b }
	return l
}

func (l *watchListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &watchedConn{Conn: c, l: l, watching: true, sniffing: true, raw: newRawWriter(c)}, nil
}

// watchedConn is a connection that keeps what arrived of a request until
// the handler is handed it.
type watchedConn struct {
	net.Conn
	l *watchListener
	// fresh says the connection is in l.fresh (connState).
	fresh atomic.Bool

	mu sync.Mutex // guards what follows: net/http reads in the background while a handler runs
	// watching says no handler has run for the bytes read since the
	// connection opened or went idle.
	watching bool
	// off says the connection is HTTP/2, or ended.
	off  bool
	head *[]byte // from heads; nil until the first byte
	seen int64   // bytes read while watching
	at   time.Time
	// timedOut says the last read failed on its deadline.
	timedOut bool
	// early is the byte of net/http's background read (a read of one
	// byte while a handler runs, to notice a sender that hangs up), when
	// it read one: the first byte of the request after the answer, which
	// a sender may send before the server finishes with its answer. idle
	// puts it at the start of the next head.
	early    byte
	hasEarly bool
	// raw, when set, writes the answers (see rawWriter).
	raw io.Writer
	// sniffing says no read yet asked for more than the HTTP/2 preface (see
	// Read); only Read touches it.
	sniffing bool
	// drained says the stop took the connection from the accept queue
	// (see watchListener.Close): no server reads it.
	drained bool
	// answering says a handler decided to answer and is writing its
	// answer (HTTP/1: see beginAnswer); closeWanted says Close was called
	// meanwhile, and closes once the answer is written.
	answering, closeWanted bool
	// aborting says the read deadline is one in the distant past: net/http
	// aborting its background read (it sets time.Unix(1, 0)), not a bound
	// on the sender (see SetReadDeadline). Atomic: the abort comes from
	// the handler's goroutine while the read waits in another.
	aborting atomic.Bool
	// readShut says net/http's background read, while a handler held the
	// call, found the sender's side closed (a FIN: see holdEOF); unhold,
	// while that read is held, ends it.
	readShut bool
	unhold   chan struct{}
	// wmu orders holdEOF's interim answer and the handler's answer on
	// the connection; Close never takes it.
	wmu sync.Mutex
	// http11 says the request the handler has is HTTP/1.1 or later: it
	// may be sent a 1xx (see holdEOF); answered says its handler began
	// writing the answer.
	http11, answered bool
}

// beginAnswer is a handler's last look at whether listen's stop cut its
// call short (ctx is the call's), and it binds: when the stop did, the
// connection is closed now, so that the answer cannot go, and the cause
// comes back; else the connection is not closed until endAnswer, so that
// the answer goes whole. A forced stop sets the cause before it closes
// the connections, so a stop between the look and the write waits for
// the write (the write of a short answer the socket takes at once),
// instead of closing the connection under an answer the call's record
// says was given.
func (c *watchedConn) beginAnswer(ctx context.Context) error {
	c.mu.Lock()
	cut := stopCause(ctx)
	if cut == nil {
		c.answering = true
	}
	c.mu.Unlock()
	if cut != nil {
		c.Close()
	}
	return cut
}

// endAnswer says the answer was written (or its write failed), and closes
// the connection if Close was called meanwhile.
func (c *watchedConn) endAnswer() {
	c.mu.Lock()
	c.answering = false
	closeNow := c.closeWanted
	c.mu.Unlock()
	if closeNow {
		c.Close()
	}
}

// drain reads a connection no server reads until its head is whole (for
// an HTTP/2 one, the heads of the requests it began), or for drainWait at
// most, and closes it, which reports what came.
func (c *watchedConn) drain() {
	c.SetReadDeadline(time.Now().Add(drainWait))
	c.l.paused()
	buf := make([]byte, capture.MaxRejectedHead)
	for {
		_, err := c.Read(buf)
		if err != nil && timeout(err) {
			// A deadline already past fails a read before it looks, and a
			// loaded machine may have held this goroutine that long: what
			// the sender sent and the socket holds is read all the same
			// (no deadline: each read finds bytes waiting).
			c.SetReadDeadline(time.Time{})
			for !c.headWhole() && bufferedBytes(c.Conn) > 0 {
				if _, err := c.Read(buf); err != nil {
					break
				}
			}
			break
		}
		if err != nil || c.headWhole() {
			break
		}
	}
	c.Close()
}

// headWhole says the bytes a drained connection sent hold whole heads: an
// HTTP/1 head, or the header blocks of the HTTP/2 requests it began.
func (c *watchedConn) headWhole() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.head == nil {
		return false
	}
	if h2Start(*c.head) {
		_, whole := h2Requests(*c.head)
		return whole
	}
	return bytes.Contains(*c.head, []byte("\r\n\r\n"))
}

func (c *watchedConn) Read(p []byte) (int, error) {
	if c.sniffing {
		// net/http peeks at a connection's first bytes for the HTTP/2
		// preface, reading no more than is missing of it (14 bytes, then
		// 24), and waits until they came: a sender whose request is
		// shorter ("GET\r\n\r\n") and waits for an answer was answered
		// when ReadHeaderTimeout (5 s) ran out. Once the bytes read can
		// no longer be the preface, reads return no bytes and no error
		// without touching the socket: net/http's bufio.Reader gives up
		// after a hundred (io.ErrNoProgress), and the peek ends as on a
		// short read, with no error that would end the connection's
		// context. The request is then read as HTTP/1, whose reads ask
		// for more than the preface and end the sniffing.
		if len(p) > len(h2ClientPreface) {
			c.sniffing = false
		} else if c.notPreface() {
			return 0, nil
		}
	}
	n, err := c.Conn.Read(p)
	if n == 0 && err == io.EOF && len(p) == 1 {
		if c.holdEOF() {
			return 0, os.ErrDeadlineExceeded
		}
		return n, err
	}
	if n == 0 && err != nil && !c.aborting.Load() && timeout(err) {
		// A read whose deadline (ReadHeaderTimeout, ReadTimeout) is past
		// fails before it looks, and a loaded machine may hold the
		// connection's goroutine that long while the sender's bytes wait
		// in the socket: those are read, and only a socket with nothing
		// in it is the timeout. (Not when net/http aborts its own
		// background read: that is no bound, and a look at the socket on
		// every call's abort costs a system call a call.)
		if m := readQueued(c.Conn, p); m > 0 {
			n, err = m, nil
		}
	}
	c.mu.Lock()
	if c.watching && !c.off {
		if n > 0 {
			if c.head == nil {
				c.head = c.l.heads.Get().(*[]byte)
				c.at = c.l.now()
			}
			h := *c.head
			if room := capture.MaxRejectedHead - len(h); room > 0 {
				h = append(h, p[:min(n, room)]...)
				*c.head = h
			}
			c.seen += int64(n)
			// The whole preface: bytes that only begin as it (a sender
			// that stopped short, or sent "PRI * HTTP/2.0" as an HTTP/1
			// request) net/http reads as HTTP/1, and may refuse.
			if !c.drained && len(h) >= len(h2ClientPreface) && string(h[:len(h2ClientPreface)]) == h2ClientPreface {
				c.off = true
			}
		}
		c.timedOut = err != nil && timeout(err)
	} else if !c.off && n > 0 {
		c.early, c.hasEarly = p[0], len(p) == 1
	}
	c.mu.Unlock()
	return n, err
}

// holdEOF keeps from net/http the end of the stream its background read
// (a read of one byte while a handler runs) found: net/http takes it for
// a sender that hung up and ends the call's context, which cut the
// forward short (the sender got a 502 and the receiver maybe nothing)
// and the delay, and flagged the call "sender gone". A FIN only says the
// sender will send no more: one that half-closed after its request
// (shutdown SHUT_WR: nc -N, some HTTP/1.0 clients) waits for its answer,
// and one that closed its socket whole sends the same FIN. One that left
// is found so here (an interim answer, below) and the end goes to
// net/http as before; else the handler tells them apart once it has
// answered (see Receiver.senderShutAnswer), and the read waits until
// net/http aborts it (it reports whether it did: the read then fails as
// an aborted read, which net/http ignores) or the connection is closed
// (the stop: then net/http sees the end).
func (c *watchedConn) holdEOF() (aborted bool) {
	c.mu.Lock()
	if c.watching || c.off {
		c.mu.Unlock()
		return false
	}
	// Which of the two it is, the sender's TCP says once bytes reach it:
	// one that only half-closed acknowledges them, a socket closed whole
	// resets the connection. So an HTTP/1.1 sender whose answer has not
	// begun is sent "100 Continue", an interim answer every HTTP/1.1
	// client must read past (RFC 9110 15.2) and net/http's own to a
	// sender that asks for one: a sender that left ends the call now, as
	// before, and the rest wait for their answer.
	if c.l.holds && c.http11 && !c.answered {
		// Written outside mu: a socket whose buffer is full (a sender
		// that reads nothing) holds the write until the connection is
		// closed, which Close must be free to do.
		c.mu.Unlock()
		c.wmu.Lock()
		c.mu.Lock()
		send := !c.answered && !c.off
		c.mu.Unlock()
		var err error
		if send {
			_, err = c.writeRaw([]byte(interimContinue))
		}
		c.wmu.Unlock()
		if send && err == nil {
			if taken, known := answerTaken(c.Conn, answerTakenWait); known && !taken {
				return false // gone: net/http ends the call's context
			}
		}
		c.mu.Lock()
		if c.watching || c.off {
			c.mu.Unlock()
			return false
		}
	}
	c.readShut = true
	if c.unhold == nil {
		c.unhold = make(chan struct{})
	}
	unhold := c.unhold
	c.mu.Unlock()
	if c.l.readShut != nil {
		c.l.readShut()
	}
	// An abort that came before unhold was made set aborting first.
	if !c.aborting.Load() {
		<-unhold
	}
	return c.aborting.Load()
}

// interimContinue is the interim answer holdEOF sends a sender that
// closed its side.
const interimContinue = "HTTP/1.1 100 Continue\r\n\r\n"

// writeRaw writes p to the connection, as its answers are written.
func (c *watchedConn) writeRaw(p []byte) (int, error) {
	if c.raw != nil {
		return c.raw.Write(p)
	}
	return c.Conn.Write(p)
}

// unholdLocked ends a read holdEOF holds; mu is held.
func (c *watchedConn) unholdLocked() {
	if c.unhold != nil {
		close(c.unhold)
		c.unhold = nil
	}
}

// senderShut reports whether the sender closed its side of the
// connection: a read found it, or the socket's state says it.
func (c *watchedConn) senderShut() bool {
	c.mu.Lock()
	shut := c.readShut
	c.mu.Unlock()
	return shut || senderShut(c.Conn)
}

// notPreface reports whether the bytes read so far can no longer be the
// HTTP/2 preface.
func (c *watchedConn) notPreface() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.head != nil && len(*c.head) > 0 && !h2Start(*c.head)
}

func (c *watchedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if !c.watching || c.off {
		// The handler's answer (or HTTP/2's frames): holdEOF sends no
		// interim answer once it began, nor in the middle of one.
		c.answered = true
		c.mu.Unlock()
		c.wmu.Lock()
		defer c.wmu.Unlock()
		return c.writeRaw(p)
	}
	// No handler ran since the connection opened or went idle: this is
	// the server's own answer. With nothing read since, the request came
	// in the same read as the one before it (pipelined): its head is not
	// known, the call still is.
	pipelined := c.seen == 0
	timedOut := c.timedOut
	rj := c.rejection()
	rj.Answer = bytes.Clone(p)
	rj.Status, rj.Reason = parseAnswer(p)
	if timedOut && !pipelined && bytes.IndexByte(rj.Head, '\n') < 0 {
		// A request line still coming when ReadHeaderTimeout ran out:
		// net/http's line reader hands over the bytes that came as a
		// whole line, and the server answers 400 to a request line it
		// calls malformed. The sender was slow, not malformed.
		rj.Reason = "the request line did not arrive whole in time: net/http answered " + rj.Reason + " to the part that came"
	}
	if pipelined {
		rj.Reason += " (sent right behind the request before it, and read with it: its head is not known)"
	}
	c.mu.Unlock()
	// Recorded before the answer goes, as every call is.
	c.l.report(rj)
	return c.Conn.Write(p)
}

// rejection takes what was read into a Rejection and stops watching; mu is
// held.
func (c *watchedConn) rejection() *Rejection {
	rj := &Rejection{Time: c.at, Remote: c.RemoteAddr().String(), HeadBytes: c.seen}
	if c.head != nil {
		rj.Head = bytes.Clone(*c.head)
	}
	if rj.Time.IsZero() {
		rj.Time = c.l.now()
	}
	c.watching = false
	c.resetLocked()
	return rj
}

// resetLocked forgets what was read; mu is held.
func (c *watchedConn) resetLocked() {
	if c.head != nil {
		*c.head = (*c.head)[:0]
	}
	c.seen, c.at = 0, time.Time{}
}

// handed says the handler has the request read since the connection
// opened or went idle.
func (c *watchedConn) handed(http11 bool) {
	c.mu.Lock()
	c.watching = false
	c.http11, c.answered = http11, false
	c.mu.Unlock()
}

// idle says the last request's answer is done: what is read next is a
// new request's.
func (c *watchedConn) idle() {
	c.mu.Lock()
	if !c.off {
		// Once the stop began, net/http closes the connection after this
		// answer without reading on (see keepBehind).
		behind := c.l.stopping.Load() && c.keepBehind()
		if !behind {
			c.resetLocked()
			if c.head != nil {
				// An idle connection holds no buffer: the next read takes one.
				c.l.heads.Put(c.head)
				c.head = nil
			}
		}
		c.watching = true
		if c.hasEarly && c.head != nil {
			*c.head = append(*c.head, c.early)
			c.seen++
			c.hasEarly = false
		} else if c.hasEarly {
			c.head = c.l.heads.Get().(*[]byte)
			*c.head = append(*c.head, c.early)
			c.seen, c.at, c.hasEarly = 1, c.l.now(), false
		}
	}
	c.mu.Unlock()
}

// keepBehind keeps, as the head of a call of its own, a request pipelined
// behind the one a handler was handed: read with it into net/http's
// buffer, it is never read again once the stop began, and net/http closes
// the connection after that one's answer (Connection: close) without
// serving it. It reports whether there was one; mu is held.
func (c *watchedConn) keepBehind() bool {
	if c.head == nil || int64(len(*c.head)) != c.seen {
		return false
	}
	behind := pipelinedBehind(*c.head)
	if len(behind) == 0 {
		return false
	}
	at := c.at
	c.resetLocked()
	*c.head = append(*c.head, behind...) // copy handles the overlap
	c.seen, c.at = int64(len(behind)), at
	return true
}

// pipelinedBehind is what head holds after its first request, head and
// body: the requests pipelined behind it. Nil when that request is not
// whole in head.
func pipelinedBehind(head []byte) []byte {
	n := wholeRequest(head)
	if n == 0 {
		return nil
	}
	return head[n:]
}

// SetReadDeadline notes whether t is an abort rather than a bound (a time
// before 2001: no bound net/http sets from the clock is), for Read.
func (c *watchedConn) SetReadDeadline(t time.Time) error {
	abort := !t.IsZero() && t.Unix() < 1e9
	c.aborting.Store(abort)
	if abort {
		c.mu.Lock()
		c.unholdLocked()
		c.mu.Unlock()
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *watchedConn) Close() error {
	c.mu.Lock()
	if c.answering {
		// The stop closes the connections (http.Server.Close) while a
		// handler writes the answer it decided to give: once written.
		c.closeWanted = true
		c.mu.Unlock()
		return nil
	}
	// The stop closes the idle keep-alive connections, and a connection
	// whose answer went as it began: a request its sender sent meanwhile
	// may wait in the socket, unread, its goroutine not yet run on a
	// loaded machine (20,000 calls at 64 senders, stopped half way: 64 such
	// calls, their senders told "connection closed", none recorded). It
	// reached listen: read here, it is a call listen closed while stopping.
	queued := c.watching && !c.off && !c.drained && c.l.stopping.Load() && c.takeQueued()
	// So is a request sent behind the one a handler was handed, once its
	// connection closes after that one's answer: net/http closes it so
	// when the stop began, and when the request asked it to (Connection:
	// close, HTTP/1.0) or listen's answer did (a body over the limit),
	// without reading on. Each reached listen, and is a call.
	behind := !c.watching && !c.off && !c.answering && !c.drained && c.takeBehind()
	if c.drained && c.watching && !c.off && c.head != nil && !h2Start(*c.head) {
		// The requests pipelined behind the head the drain waited for.
		c.takeQueued()
	}
	var rj *Rejection
	var rjs []*Rejection // an HTTP/2 connection's, taken from the accept queue
	if (c.drained || queued || behind) && c.watching && !c.off && c.head != nil && len(*c.head) >= len(h2ClientPreface) && h2Start(*c.head) {
		rjs = c.h2Rejections()
	} else if c.watching && !c.off && c.seen > 0 {
		// Bytes of a request came, and neither a handler nor an answer
		// followed: the head was never completed.
		timedOut := c.timedOut
		whole := c.l.stopping.Load() && c.head != nil && int64(len(*c.head)) == c.seen && bytes.Contains(*c.head, []byte("\r\n\r\n"))
		rj = c.rejection()
		switch {
		case behind && !c.l.stopping.Load():
			rj.Reason = closedBehindReason
		case whole || c.drained || queued || behind:
			// net/http drops a request it reads once its shutdown began,
			// closing the connection: the head was whole. Or the stop
			// took the connection from the accept queue, or found the
			// request waiting in its socket.
			rj.Reason, rj.StopClosed = stoppingReason, true
		case timedOut:
			rj.Reason = "the request's head did not arrive whole in time: the connection was closed, no answer"
		default:
			rj.Reason = "the connection ended before the request's head was complete: no answer"
		}
	}
	c.off = true
	c.unholdLocked()
	if c.head != nil {
		// Emptied before it goes back: a connection that ends while off
		// (HTTP/2) or after its handler ran (Connection: close, HTTP/1.0)
		// still holds its last head, which the next connection to take the
		// buffer would read as the start of its own: another call's bytes
		// in its record, or the HTTP/2 preface, which turns its watch off
		// and loses the call it carries.
		*c.head = (*c.head)[:0]
		if cap(*c.head) <= capture.MaxRejectedHead {
			c.l.heads.Put(c.head) // not one takeQueued grew
		}
		c.head = nil
	}
	c.mu.Unlock()
	if rj != nil && (rj.StopClosed || behind) {
		rjs = append(rjs, eachRequest(rj)...)
	} else if rj != nil {
		rjs = append(rjs, rj)
	}
	if len(rjs) > 0 {
		// Not on this goroutine: http.Server's Shutdown and Close close
		// connections holding the server's lock, and a report can wait
		// for the observer (back-pressure). Serve waits for it after
		// shutting down, as for a handler in flight.
		c.l.reports.Add(1)
		go func() {
			defer c.l.reports.Done()
			for _, rj := range rjs {
				c.l.report(rj)
			}
		}()
	}
	return c.Conn.Close()
}

// takeBehind, once the connection of a request a handler was handed
// closes, makes what the sender sent behind that request the head of the
// calls to report: what net/http read with it (keepBehind), the byte its
// background read took, and what waits in the socket. It reports whether
// anything came; nothing is taken when the handed request is not whole
// in the head (its end, and so what follows it, is not known). mu is
// held.
func (c *watchedConn) takeBehind() bool {
	if c.keepBehind() {
		if c.hasEarly {
			// Read after what net/http's buffer holds.
			*c.head = append(*c.head, c.early)
			c.seen++
			c.hasEarly = false
		}
		c.watching = true
		c.takeQueued()
		return true
	}
	if !c.hasEarly && bufferedBytes(c.Conn) == 0 {
		return false
	}
	if c.head == nil || len(*c.head) == 0 || int64(len(*c.head)) != c.seen || wholeRequest(*c.head) != len(*c.head) {
		// No request was handed (net/http refused the head: its record
		// took the bytes), or not all of it is known.
		return false
	}
	c.resetLocked()
	if c.hasEarly {
		*c.head = append(*c.head, c.early)
		c.seen, c.at, c.hasEarly = 1, c.l.now(), false
	}
	c.watching = true
	c.takeQueued()
	return c.seen > 0
}

// closedBehindReason is the reason of a request sent behind one after
// whose answer the connection closed.
const closedBehindReason = "sent behind a request after whose answer the connection closed (it asked to, Connection: close or HTTP/1.0, or listen's answer did): not read, no answer"

// takeQueued reads into the head what the socket holds now, without
// waiting, up to a head's bound; it reports whether anything came. mu is
// held.
func (c *watchedConn) takeQueued() bool {
	var buf [4 << 10]byte
	took := false
	for {
		// What it reads is split into the requests it holds (see
		// eachRequest), each bounded on its own: so the head may grow
		// past one head's bound, up to maxQueuedHeads, while it holds
		// every byte that came.
		limit := capture.MaxRejectedHead
		if c.head == nil || int64(len(*c.head)) == c.seen {
			limit = maxQueuedHeads
		}
		if c.head != nil && len(*c.head) >= limit {
			break
		}
		n := readQueued(c.Conn, buf[:])
		if n == 0 {
			break
		}
		if c.head == nil {
			c.head = c.l.heads.Get().(*[]byte)
		}
		if c.seen == 0 {
			c.at = c.l.now()
		}
		h := *c.head
		*c.head = append(h, buf[:min(n, limit-len(h))]...)
		c.seen += int64(n)
		took = true
	}
	return took
}

// maxQueuedHeads bounds what takeQueued reads of the requests a sender
// queued or pipelined on one connection: 100 pipelined calls are 10 KiB
// or so, and those past one head's bound were counted as one call.
const maxQueuedHeads = 1 << 20

// eachRequest is rj, a head the stop closed unanswered, as one Rejection
// a request: a sender may have pipelined several (all in the head kept
// behind the call in flight, or read from the socket or the accept
// queue), and each is a call that reached listen, to be recorded and
// counted as one. Whatever follows the last whole request (a head cut
// short, or bytes past the head's bound) is one more, which takes the
// bytes counted but not kept.
func eachRequest(rj *Rejection) []*Rejection {
	var rjs []*Rejection
	head, counted := rj.Head, int64(0)
	for len(head) > 0 {
		n := wholeRequest(head)
		if n == 0 || n == len(head) {
			break
		}
		one := *rj
		one.Head, one.HeadBytes = clipHead(head[:n:n]), int64(n)
		rjs = append(rjs, &one)
		head, counted = head[n:], counted+int64(n)
	}
	last := *rj
	last.Head, last.HeadBytes = clipHead(head), rj.HeadBytes-counted
	return append(rjs, &last)
}

// clipHead is head within a record's bound.
func clipHead(head []byte) []byte { return head[:min(len(head), capture.MaxRejectedHead)] }

// wholeRequest is the length of the HTTP/1 request head starts with, head
// and body, 0 when head does not hold it whole.
func wholeRequest(head []byte) int {
	r := bytes.NewReader(head)
	br := bufio.NewReader(r)
	req, err := http.ReadRequest(br)
	if err != nil {
		return 0
	}
	if _, err := io.Copy(io.Discard, req.Body); err != nil {
		return 0
	}
	return len(head) - br.Buffered() - r.Len()
}

// stoppingReason is the reason of a call whose head came whole as the stop
// began, or that the stop took from the accept queue.
const stoppingReason = "listen was stopping (Ctrl-C or SIGTERM) when the request arrived, and closed its connection: no answer"

// h2Start reports whether head is, or begins with, as much of the HTTP/2
// preface as it holds.
func h2Start(head []byte) bool {
	n := min(len(head), len(h2ClientPreface))
	return n > 0 && string(head[:n]) == h2ClientPreface[:n]
}

// h2Rejections are the calls of an HTTP/2 connection the stop took from
// the accept queue: one for each request it began, closed unanswered; none
// when no request's HEADERS came (as for a connection that sent nothing).
// mu is held.
func (c *watchedConn) h2Rejections() []*Rejection {
	reqs, _ := h2Requests(*c.head)
	if len(reqs) == 0 {
		c.resetLocked()
		return nil
	}
	base := c.rejection()
	base.Head = clipHead(base.Head)
	rjs := make([]*Rejection, 0, len(reqs))
	for _, r := range reqs {
		rj := *base
		rj.Method, rj.Target, rj.Header = r.method, r.target, r.header
		rj.Reason = stoppingReason + " (HTTP/2, stream " + strconv.FormatUint(uint64(r.stream), 10)
		rj.StopClosed = true
		if !r.whole {
			rj.Reason += ": its head did not arrive whole"
		}
		rj.Reason += ")"
		rjs = append(rjs, &rj)
	}
	return rjs
}

// parseAnswer reads the status and the reason net/http gave from its own
// answer: "HTTP/1.1 400 Bad Request: invalid header name\r\n...".
func parseAnswer(p []byte) (status int, reason string) {
	line, _, _ := bytes.Cut(p, []byte("\r\n"))
	_, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok {
		return 0, "the server answered " + strconv.Quote(string(line))
	}
	code, text, _ := bytes.Cut(rest, []byte(" "))
	status, err := strconv.Atoi(string(code))
	if err != nil {
		return 0, "the server answered " + strconv.Quote(string(line))
	}
	return status, string(text)
}

// markHanded tells each request's connection that the handler has it.
func markHanded(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if c, ok := req.Context().Value(connKey{}).(*watchedConn); ok {
			c.handed(req.ProtoAtLeast(1, 1))
		}
		h.ServeHTTP(w, req)
	})
}

// connState tells a connection it went idle, and keeps the connections
// no request started on yet (fresh).
func (l *watchListener) connState(c net.Conn, s http.ConnState) {
	wc, ok := c.(*watchedConn)
	if !ok {
		return
	}
	switch {
	case s == http.StateNew:
		wc.fresh.Store(true)
		l.freshMu.Lock()
		if l.fresh == nil {
			l.fresh = make(map[*watchedConn]struct{})
		}
		l.fresh[wc] = struct{}{}
		l.freshMu.Unlock()
	case wc.fresh.Load():
		// Once per connection, not per request: listen's hot path.
		wc.fresh.Store(false)
		l.freshMu.Lock()
		delete(l.fresh, wc)
		l.freshMu.Unlock()
	}
	if s == http.StateIdle {
		wc.idle()
	}
}

// closeSilent closes the connections that have sent nothing since they
// were accepted: a client's pool connects ahead (Go's transport dials a
// spare connection for a call that another one then carries), and
// net/http's shutdown waits five seconds for a connection that sent
// nothing, whatever the calls in flight. Such a connection carries no
// call. A request that arrives on it as it is closed waits in its socket,
// and Close reads it as a call listen closed while stopping, as for an
// idle kept-alive connection (readQueued: Linux only, so the caller runs
// this only there). Not one whose bytes came: an HTTP/2 connection, whose
// requests net/http serves without saying them (StateNew throughout).
func (l *watchListener) closeSilent() {
	l.freshMu.Lock()
	conns := make([]*watchedConn, 0, len(l.fresh))
	for c := range l.fresh {
		conns = append(conns, c)
	}
	l.freshMu.Unlock()
	for _, c := range conns {
		c.mu.Lock()
		silent := c.watching && !c.off && c.seen == 0 && !c.hasEarly && !c.answering
		c.mu.Unlock()
		if silent {
			c.Close()
		}
	}
}

// withConn puts a connection's watch in its requests' contexts.
func withConn(ctx context.Context, c net.Conn) context.Context {
	if wc, ok := c.(*watchedConn); ok {
		return context.WithValue(ctx, connKey{}, wc)
	}
	return ctx
}

// Rejected records and reports a request the HTTP server refused before
// the handler saw it, as a call of its own.
func (r *Receiver) Rejected(rj *Rejection) {
	r.take()
	rec := &capture.Record{
		Time:    rj.Time,
		Remote:  rj.Remote,
		Headers: http.Header{},
		Rejected: &capture.Rejected{
			Reason:       rj.Reason,
			HeadBytes:    rj.HeadBytes,
			ClosedAtStop: rj.StopClosed,
		},
		BodyEncoding: capture.UTF8,
	}
	if rj.Method != "" || rj.Target != "" {
		// Read from an HTTP/2 HEADERS frame: Head is binary frames.
		rec.Method, rec.Query = rj.Method, ""
		rec.Path, rec.RawPath = targetPath(rj.Target)
		rec.Proto = "HTTP/2.0"
		if _, q, ok := strings.Cut(rj.Target, "?"); ok {
			rec.Query = q
		}
		if rj.Header != nil {
			rec.Headers = rj.Header
		}
	} else {
		var target string
		rec.Method, target, rec.Query = requestLine(rj.Head)
		rec.Path, rec.RawPath = targetPath(target)
		if target != "" && target[0] != '/' {
			rec.Path = target // "*", a CONNECT's authority: no path
		}
		if why := diagnose(rj.Head, rj.HeadBytes > int64(len(rj.Head))); why != "" && !strings.Contains(rec.Rejected.Reason, why) {
			rec.Rejected.Reason += " (" + why + ")"
		}
	}
	rec.Rejected.Head, rec.Rejected.HeadEncoding = capture.EncodeBody(rj.Head)
	if rj.Status != 0 {
		resp := &capture.Response{Status: rj.Status, Headers: http.Header{}}
		head, body, _ := bytes.Cut(rj.Answer, []byte("\r\n\r\n"))
		for _, l := range strings.Split(string(head), "\r\n")[1:] {
			if k, v, ok := strings.Cut(l, ":"); ok {
				resp.Headers.Add(k, strings.TrimSpace(v))
			}
		}
		resp.Body, resp.BodyEncoding = capture.EncodeBody(body)
		rec.Response = resp
	}
	c := &Call{Seq: r.seq.Add(1), Record: rec, Offset: -1, Findings: rejectedFindings(rec), StopClosed: rj.StopClosed}
	c.Event, c.HasEvent = spec.QueryEvent(rec.Query)
	if r.cfg.Capture != nil {
		if off, err := r.cfg.Capture.Write(rec); err == nil {
			c.Offset = off
		} else {
			c.CaptureErr = err
			r.lostCapture(err)
		}
	}
	r.unrecorded.Add(-1)
	r.enqueue(c)
}

// requestLine makes out the method, request target and query of a head's
// request line, as far as it reads as one ("" for what does not). A
// target in absolute form ("http://host/hook?q", as to a proxy) is given
// by its path and query, as net/http's server reads it for a call it
// takes; one that is no path ("*" of OPTIONS *, a CONNECT's authority) as
// it came, as a record of such a call holds it.
func requestLine(head []byte) (method, target, query string) {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	m, rest, ok := bytes.Cut(line, []byte(" "))
	if !ok || !token(m) {
		return "", "", ""
	}
	t, _, _ := bytes.Cut(rest, []byte(" "))
	switch {
	case string(m) == http.MethodConnect && len(t) > 0 && t[0] != '/',
		string(t) == "*":
		return string(m), string(t), ""
	case bytes.HasPrefix(t, []byte("http://")) || bytes.HasPrefix(t, []byte("https://")):
		_, after, _ := bytes.Cut(t, []byte("://"))
		i := bytes.IndexAny(after, "/?")
		if i < 0 {
			return string(m), "/", ""
		}
		t = after[i:]
		if t[0] == '?' {
			t = append([]byte("/"), t...)
		}
	}
	if len(t) == 0 || t[0] != '/' {
		return string(m), "", ""
	}
	_, q, _ := bytes.Cut(t, []byte("?"))
	return string(m), string(t), string(q)
}

// targetPath is the path of a request target ("/hook?x=1") as a record
// holds it, decoded and, when the sender escaped it otherwise than Go
// does, as written (rawPath, as net/http's URL.RawPath); "" for a target
// that is no path ("*"). A path whose escapes do not decode is kept as
// written.
func targetPath(target string) (path, raw string) {
	if target == "" || target[0] != '/' {
		return "", ""
	}
	p, _, _ := strings.Cut(target, "?")
	u, err := url.PathUnescape(p)
	if err != nil {
		return p, ""
	}
	if p != (&url.URL{Path: u}).EscapedPath() {
		return u, p
	}
	return u, ""
}

// token reports whether b is an HTTP token (RFC 9110 §5.6.2).
func token(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, ch := range b {
		if ch <= ' ' || ch >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, ch) >= 0 {
			return false
		}
	}
	return true
}

// rejectedFindings are the findings of a refused request's record, or
// of one listen's stop closed unread: a warning, as for a call the stop
// left unanswered (ruleUnanswered), since its sender did nothing wrong.
func rejectedFindings(rec *capture.Record) []validate.Finding {
	if rec.Rejected.ClosedAtStop {
		return []validate.Finding{{Rule: validate.RuleClosedAtStop, Severity: validate.Warning, Message: rec.RejectedWhy()}}
	}
	return []validate.Finding{{Rule: validate.RuleRejected, Severity: validate.Error, Message: rec.RejectedWhy()}}
}

// diagnose says what net/http's reader finds wrong with a whole head: the
// server's answer often says only "Bad Request" (two Content-Lengths, a
// malformed request line). "" when it finds nothing or the head was cut.
func diagnose(head []byte, cut bool) string {
	if cut || len(head) == 0 {
		return ""
	}
	if bytes.IndexByte(head, '\n') < 0 {
		// net/http reads the part of a request line that came as the
		// whole line, and calls it malformed.
		return "the head ended inside its request line"
	}
	_, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(head)))
	switch {
	case err == nil:
		return ""
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "the head ended before its blank line"
	}
	return err.Error()
}

// timeout reports whether err is a deadline's. Its own function, called
// only on an error: errors.As's target escapes, which cost every read an
// allocation.
func timeout(err error) bool {
	// The errors met here are mostly *net.OpError, a net.Error itself:
	// asserted without errors.As, whose reflection's deep stack made
	// net/http's background read (a goroutine a call, its read aborted
	// by a past deadline) grow its stack, a copy a call.
	if ne, ok := err.(net.Error); ok {
		return ne.Timeout()
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
