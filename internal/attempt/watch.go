package attempt

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// watchConn is a connection of net/http's transport, watched so that a
// kept-alive one is never written on when it cannot carry a call: the
// receiver closed it, or sent bytes no call asked for (a 204 with a body,
// more than its answer framed). net/http finds either only once its
// reading goroutine looks again after an answer, and a call that takes
// the connection first has the close blamed on the receiver, or the
// bytes read as its answer.
//
// The reading goroutine's read of an idle connection is marked: it looks
// at the socket first (peekIdle) and, finding nothing, says it waits.
// Before a call goes out on a kept-alive connection (GotConn), ready waits
// for that mark, or for the connection's close (net/http's reading
// goroutine closes it on the receiver's close or on bytes it did not ask
// for); then looks at the socket once more. A connection found unfit is
// closed and refuses writes, so nothing of the call goes out on it, and
// the call is made again on another (Deliverer.attempt).
type watchConn struct {
	net.Conn
	waiting atomic.Bool // a read waits on an empty socket
	closed  atomic.Bool
	kick    chan struct{} // a change of waiting or closed
	// begun counts the bytes of the writes begun on the connection (a
	// write is counted before its syscall: once begun, its bytes may be
	// the receiver's before the count could follow them); readBegun is
	// begun as the last read returned, and readErr the first read's error.
	// A call's bytes reached the receiver before its close or reset only
	// if they were begun before the read that met the close returned
	// (callConn.wentOut): a TLS close_notify written after that read is no
	// byte of the call.
	begun, readBegun atomic.Int64
	readErr          atomic.Pointer[error]
	// wrote counts the bytes the writes put in the socket, ended the
	// bytes (begun's) of the writes that returned: a write that returned
	// having written nothing (the receiver's reset already there) put no
	// byte of its call before the receiver, however it was begun.
	wrote, ended atomic.Int64
	// got counts the bytes reads returned (over TLS, the records' own):
	// of a call the time limit ended, what came of an answer
	// (callConn.silence).
	got atomic.Int64
	// firstRead is set by the connection's first read, and h2Settings
	// then says the bytes it gave start with an HTTP/2 SETTINGS frame's
	// header: a receiver that speaks only HTTP/2 (h2c) sends one at once,
	// which net/http reads as bytes on an idle connection.
	firstRead, h2Settings atomic.Bool
	// refuse, when set, is the error every write fails with: the
	// connection was given a copy of a call that went out already
	// (callConn.got), which must not go out again.
	refuse atomic.Pointer[error]

	// Bytes no call asked for (an HTTP/1.1 receiver that answers a call
	// twice, a 204 with a body, a Content-Length shorter than what it
	// sends) are read by net/http as the next call's answer, or make it
	// drop the connection unsaid. They are noted here, on a plain
	// connection, or above the records of HTTP/1.1 over TLS (sock; under
	// them the socket holds records, and a session ticket or a
	// close_notify is bytes too), from the moment net/http put it back
	// idle after an answer (PutIdleConn: the answer was read whole, and
	// no call is outstanding on it) until the next write on it (a call's):
	//   - a read that returned bytes then (not a 408, which a receiver
	//     sends as it closes an idle connection: RFC 9110, 15.5.9);
	//   - the look before the next call (ready) finding bytes (plain
	//     only: over TLS it waits for the read of what came, readyTLS);
	//   - net/http closing the connection then with no read of ours and no
	//     error: its reader found bytes left in its buffer after the
	//     answer, which came with it.
	// notes, when set, are the client's: its CloseIdleConnections under
	// way, whose closes are no sign of any, and the count of connections
	// found holding bytes no call asked for.
	plain, saw408, ours atomic.Bool
	// gaveUp is gen when a call gave up waiting for the connection to be
	// read idle (ready: its context ended, Ctrl-C or its time limit), -1
	// for none: net/http then closes the connection for that call, maybe
	// before its reader has read it again, and that close, with nothing
	// written since, is the caller's, no sign of bytes left in its buffer.
	gaveUp atomic.Int64
	// gen counts the writes begun on the connection; idleGen is gen as
	// the answer of the call last answered on it began, once
	// net/http put the connection idle after that answer: a write since,
	// a call's, even one made without whsim's hooks (a probe sharing the
	// client), or one net/http handed the connection to before its
	// PutIdleConn was heard, makes it idle no more (isIdle).
	gen, idleGen atomic.Int64
	reading      atomic.Int32 // reads under way
	stray        atomic.Pointer[strayNote]
	notes        *clientNotes
	note         Conn

	// sock, when set, is the watched socket under this connection's TLS
	// (newTLSWatch): this one is HTTP/1.1 over TLS, watched above the
	// records, where the answers' bytes are, as a plain one is on its
	// socket. Its look before a call is not a look at the socket, which
	// holds records (a session ticket, a key update, a close_notify are
	// bytes too): it waits until what came has been read through the TLS
	// (readyTLS).
	sock *watchConn
	// pendErr is the error a read over TLS returned with bytes (the
	// receiver's close_notify read with its last record: crypto/tls does
	// that over TLS 1.2, where an alert's record type shows), kept for the
	// next read: net/http reads a connection's close with bytes as its
	// end after them, never puts it back idle, and bytes past the answer
	// in that read would go unseen. pendClose says one is kept: the
	// connection carries no call. Only the reading goroutine touches
	// pendErr.
	pendErr   error
	pendClose atomic.Bool
	// refused says the look before a call (ready) found the connection
	// unfit: the call's writes are refused as errUnfit, nothing of it
	// having gone out. A connection closed otherwise was closed under a
	// call (closedErr).
	refused atomic.Bool
	// callAt is begun when a call of whsim's was last given the
	// connection (callConn.got), -1 before; answerAt is begun as a read
	// last returned the start of an HTTP/1 answer, -1 before. An answer
	// read with answerAt past callAt came after some of that call was
	// written: it is the call's, though the call was not written whole
	// (a receiver that answers 413 before it reads the body).
	callAt, answerAt atomic.Int64
	// cut says a write of the call failed, the receiver having ended the
	// connection, after the call's answer came (writeCut): the rest of the
	// call is taken as written, so that net/http reads that answer, and
	// the connection carries no other call.
	cut atomic.Bool
	// cutBy is the error of the write the cut began with (a reset, a
	// broken pipe): what callConn.writeCut says of the call.
	cutBy atomic.Pointer[error]
	// callWrite is the end of the write of the call last given the
	// connection (callConn.got): an answer read before it ends is held
	// from net/http until it does (holdAnswer).
	callWrite atomic.Pointer[writeEnd]
	// writing is the end of the write last begun on the connection,
	// closed as that write returns: an answer's read waits for it
	// (awaitWrite).
	writing atomic.Pointer[chan struct{}]
	// held is the answer holdAnswer last held while its call's write was
	// under way, for the call it came to (callConn.heldAnswer).
	held atomic.Pointer[heldAnswer]
	// readable has a read of an empty socket wait for bytes before it
	// takes them (nil where the socket cannot be looked at that way): a
	// look before a call (ready, quiet) that finds waiting set, the socket
	// empty, and waiting still set knows no read took bytes in between
	// that it has not yet noted. Set before net/http has the connection,
	// never after.
	readable *readableWait

	// answer keeps the bytes read since the connection was last given a
	// call (callConn.got), up to its head's end (or maxHeadJudged), and
	// the read error that ended the connection then: a head the
	// receiver's close cut is said so (cutHead), where net/http's reader
	// takes the cut line for a whole one.
	answer struct {
		sync.Mutex
		on   bool
		head []byte
		end  error
	}
}

// strayNote is what a connection found holding bytes no call asked for
// noted of them: their first line, and after which answer they came.
type strayNote struct {
	first string
	// after is the connection's idleGen as they were found: the call last
	// answered on it, nothing written since (Attempt.ConnCall).
	after int64
}

// Conn is the connection an answer was read on, as far as whether it was
// found holding bytes no call asked for: then the answers read on it
// cannot be matched to calls (watchConn).
type Conn struct{ c *watchConn }

// Unasked says whether the connection was found holding bytes no call
// asked for, and their first line, as received ("" when they were left in
// net/http's buffer with the answer, where they are not seen).
func (n *Conn) Unasked() (first string, seen bool) {
	if p := n.c.stray.Load(); p != nil {
		return p.first, true
	}
	return "", false
}

// Followed says whether the bytes no call asked for found on the
// connection came after the answer of call (an Attempt's ConnCall): it
// was the last call answered on the connection before they were found,
// nothing written on it since. Bytes net/http found left in its buffer
// (Unasked's first "") lie past the last answer it read from that
// buffer, which is that call's: they followed its answer too, though they
// came in the same read.
func (n *Conn) Followed(call int64) bool {
	p := n.c.stray.Load()
	return p != nil && p.after == call
}

// Cleared says whether the answer of call (an Attempt's ConnCall) is
// known to be its own with nothing no call asked for after it: a later
// call was answered on the connection and it was put idle again, with no
// such bytes found before. Bytes found from then on follow a later answer
// (a note blames the call last answered), so once true it stays true: a
// case need not wait for the connection's close to be judged, and a
// receiver that keeps one connection alive through a run sees its
// results as they come.
func (n *Conn) Cleared(call int64) bool {
	c := n.c
	if c.idleGen.Load() <= call {
		return false
	}
	p := c.stray.Load()
	return p == nil || p.after > call
}

// UnaskedBefore says whether the bytes no call asked for found on the
// connection followed an answer before call's (an Attempt's ConnCall), and
// their first line as Unasked says it: then which call call's answer was
// to cannot be told. Bytes that followed a later answer say nothing of
// it: each answer before them was followed by the next call's.
func (n *Conn) UnaskedBefore(call int64) (first string, seen bool) {
	if p := n.c.stray.Load(); p != nil && p.after < call {
		return p.first, true
	}
	return "", false
}

// Settled says whether the connection is closed with no read of it under
// way: nothing more can be found on it.
func (n *Conn) Settled() bool {
	return n.c.closed.Load() && n.c.reading.Load() == 0
}

// Settle looks at the connection one last time, closes it and waits for
// a read under way to end: what it holds by then is noted, what comes
// later is not seen. For the end of a run, or of a case whose answers are
// to be judged now.
func (n *Conn) Settle() {
	c := n.c
	c.awaitRead(context.Background())
	if !c.closed.Load() {
		c.look()
		c.ours.Store(true)
		c.Close()
	}
	for c.reading.Load() != 0 {
		<-c.kick
	}
}

// awaitRead waits, on a connection idle after an answer, for net/http's
// reader to have looked at it again, or for its close; false when ctx
// ended first. Put back idle, net/http's reader looks at its buffer
// first: bytes left there after the answer, it closes the connection
// (Close notes them); none, it reads the socket (over TLS, until what
// came to it was read through the TLS: readyTLS), noting bytes it takes
// there, and waits on it empty.
func (c *watchConn) awaitRead(ctx context.Context) bool {
	for c.isIdle() && !c.closed.Load() && (c.sock == nil && !c.waiting.Load() ||
		c.sock != nil && (c.pendClose.Load() || !c.sock.quiet())) {
		select {
		case <-c.kick:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// settle notes what each open connection of the client, idle after an
// answer, holds that no call asked for: in net/http's buffer, or taken
// from the socket by its reader (awaitRead), or waiting in the socket
// (look). The connections are left open, for the client's next calls.
// What comes after is not seen. ctx bounds the wait.
func (n *clientNotes) settle(ctx context.Context) {
	n.mu.Lock()
	open := make([]*watchConn, 0, len(n.open))
	for c := range n.open {
		open = append(open, c)
	}
	n.mu.Unlock()
	for _, c := range open {
		if c.awaitRead(ctx) && !c.closed.Load() {
			c.look()
		}
	}
}

// maxStrayLine bounds the first line of stray bytes kept.
const maxStrayLine = 120

// noteStray notes bytes b no call asked for, by their first line.
func (c *watchConn) noteStray(b []byte) {
	line := b
	if i := bytes.IndexAny(line, "\r\n"); i >= 0 {
		line = line[:i]
	}
	c.setStray(string(line[:min(len(line), maxStrayLine)]))
}

// setStray notes bytes no call asked for, by their first line, once, with
// the call whose answer they followed: the client counts the connection.
// Called only while the connection is idle after an answer (isIdle), so
// idleGen is that answer's call.
func (c *watchConn) setStray(first string) {
	if c.stray.Load() != nil {
		return // noted already: the first bytes are the ones to say
	}
	if c.stray.CompareAndSwap(nil, &strayNote{first: first, after: c.idleGen.Load()}) && c.notes != nil {
		c.notes.unasked.Add(1)
	}
}

// status408 is the start of a 408 answer, x any digit: what a receiver
// sends as it closes an idle connection, no answer to any call. Looks at
// bytes no call asked for take this many, enough to tell it.
const status408 = "HTTP/1.x 408"

// is408 says b starts a 408 answer (status408), or as much of one as b
// holds.
func is408(b []byte) bool {
	const w = status408
	if len(b) > len(w) {
		b = b[:len(w)]
	}
	for i, ch := range b {
		if w[i] != ch && !(i == 7 && ch >= '0' && ch <= '9') {
			return false
		}
	}
	return true
}

// look notes what an idle connection's socket holds: bytes no call asked
// for, unless they are a 408. Over TLS the socket holds records: nothing
// to look at.
func (c *watchConn) look() {
	if !c.isIdle() || !c.plain.Load() || c.sock != nil {
		return
	}
	var b [maxStrayLine]byte
	if n := peekBytes(c.Conn, b[:]); n > 0 {
		if is408(b[:n]) {
			c.saw408.Store(true)
			return
		}
		c.noteStray(b[:n])
	}
}

// putIdle notes that net/http put the connection back idle after the
// answer of the call written by write gen: until the next write, bytes on
// it are no call's.
func (c *watchConn) putIdle(gen int64) {
	if c.plain.Load() {
		c.idleGen.Store(gen)
	}
}

// isIdle says whether the connection is idle after an answer, nothing
// written on it since.
func (c *watchConn) isIdle() bool {
	return c.idleGen.Load() == c.gen.Load()
}

// errUnfit is the write refused on a connection found unfit before a call.
var errUnfit = errors.New("kept-alive connection closed by the receiver or holding bytes no call asked for")

// clientNotes are what a client's watched connections share.
type clientNotes struct {
	closingIdle atomic.Int32 // CloseIdleConnections under way
	unasked     atomic.Int64 // connections found holding bytes no call asked for
	// open are the client's watched connections not yet closed, for the
	// end of a run to settle (settle): added as one is made, removed at
	// its close, a lock per connection and none per call.
	mu   sync.Mutex
	open map[*watchConn]struct{}
}

// add counts c among the client's open connections.
func (n *clientNotes) add(c *watchConn) {
	if n == nil {
		return
	}
	n.mu.Lock()
	if n.open == nil {
		n.open = make(map[*watchConn]struct{})
	}
	n.open[c] = struct{}{}
	n.mu.Unlock()
}

// remove takes c, closed, from the client's open connections.
func (n *clientNotes) remove(c *watchConn) {
	if n == nil {
		return
	}
	n.mu.Lock()
	delete(n.open, c)
	n.mu.Unlock()
}

func newWatchConn(c net.Conn, notes *clientNotes) *watchConn {
	wc := &watchConn{Conn: c, kick: make(chan struct{}, 1), notes: notes, readable: newReadableWait(c)}
	wc.note.c = wc
	wc.idleGen.Store(-1)
	wc.gaveUp.Store(-1)
	wc.callAt.Store(-1)
	wc.answerAt.Store(-1)
	notes.add(wc)
	return wc
}

// newTLSWatch watches tc, HTTP/1.1 over TLS on the watched socket sock,
// above its records. The two share their kick: a wait on this one
// (readyTLS, Settle) ends on a change of the socket's reads too.
func newTLSWatch(tc *tls.Conn, sock *watchConn, notes *clientNotes) *watchConn {
	wc := &watchConn{Conn: tc, kick: sock.kick, notes: notes, sock: sock}
	wc.note.c = wc
	wc.idleGen.Store(-1)
	wc.gaveUp.Store(-1)
	wc.callAt.Store(-1)
	wc.answerAt.Store(-1)
	// The first bytes are an answer's, decrypted: no h2c SETTINGS to tell.
	wc.firstRead.Store(true)
	notes.add(wc)
	return wc
}

// wire is the watched socket the connection's bytes cross: its own, or
// the one under its TLS. What of a call went out (callConn.resend) is
// counted there.
func (c *watchConn) wire() *watchConn {
	if c.sock != nil {
		return c.sock
	}
	return c
}

// quiet says a read of the socket waits, and nothing has come to it
// since: whatever came before was read, and through the TLS above it.
// waiting is looked at again after the socket: a read that woke in
// between may have taken what came (readable), and not yet passed it up.
func (c *watchConn) quiet() bool {
	return c.waiting.Load() && peekIdle(c.Conn) && c.waiting.Load()
}

func (c *watchConn) signal() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *watchConn) Read(p []byte) (int, error) {
	c.reading.Add(1)
	defer c.readEnd()
	n, err := c.readAnswer(p)
	c.holdAnswer(p[:n])
	c.awaitWrite(p[:n])
	return n, err
}

// awaitWrite has the read of an answer's start, b, wait until the write
// last begun on the connection has returned. net/http's reader, at the
// end of an answer, waits 50 ms for its writer to say the call's write
// ended, and when not told closes the connection rather than keep it
// alive; the writer, back from the write's system call on a loaded
// machine, can wait longer than that for a thread. A connection closed so
// never shows the bytes the receiver sent after the answer, left unread
// in net/http's buffer: the case they followed passed on its 200 (one in
// a few hundred runs of a test beside a CPU hog). Once the write has
// returned, the writer is running, and has only to say so. An answer that
// says 4xx or 5xx does not wait, as in holdAnswer: a receiver that will
// not read a body it refuses would hold the write, and this read, until
// the time limit.
func (c *watchConn) awaitWrite(b []byte) {
	if len(b) == 0 || c.answerAt.Load() <= c.callAt.Load() || refusing(b) {
		return
	}
	w := c.writing.Load()
	if w == nil {
		return
	}
	select {
	case <-*w:
		return
	default:
	}
	c.signal() // a write cut by the receiver (writeCut) waits for this read's note
	<-*w
}

// holdAnswer holds the start of an answer, b, read while its call is
// still being written, until the write ends. net/http's transport, given
// an answer before the call's write ended, waits 50ms for the write and
// then closes the connection, cutting the body: a receiver that answers
// 200 from a call's head and reads the body on (its half-closed side
// too, or after a 100 Continue) had its call cut by whsim, on net/http's
// path and over TLS, and failed as "answered before the body was sent
// whole", while the fast path, which waits for its write's end, sent it
// whole and passed it. Held, the answer is read after the write's end,
// as the fast path reads it: the receiver that reads on lets the write
// end, one that closed ends it with a reset (writeCut, which the held
// read has noted the answer for), one that does neither the time limit
// (net/http closes the connection) or Ctrl-C. An answer that says 4xx or
// 5xx is not held: it fails on its status whatever became of the body,
// and a receiver that will not take a body (nginx's 413) may keep the
// connection without reading it.
func (c *watchConn) holdAnswer(b []byte) {
	e := c.callWrite.Load()
	if e == nil || len(b) == 0 || c.answerAt.Load() <= c.callAt.Load() || refusing(b) {
		return
	}
	// The write may have met the receiver's reset first, and waits
	// (writeCut) for the answer this read noted.
	c.signal()
	select {
	case <-e.done:
		return
	default:
	}
	// Kept, for a write the time limit ends before net/http reads this
	// answer (Deliverer.heldAnswered).
	c.held.Store(&heldAnswer{callAt: c.callAt.Load(), b: bytes.Clone(b)})
	<-e.done
}

// heldAnswer is the start of an answer holdAnswer held: b, the bytes of
// the read, to the call given the connection at callAt.
type heldAnswer struct {
	callAt int64
	b      []byte
}

// heldAnswer is the start of the answer that came to the call as it was
// being written, and was held from net/http until the write's end
// (watchConn.holdAnswer); nil for none.
func (s *callConn) heldAnswer() []byte {
	if s.conn == nil {
		return nil
	}
	h := s.conn.held.Load()
	if h == nil || h.callAt != s.callAt {
		return nil
	}
	return h.b
}

// heldAnswered is the attempt of a call of n bytes that the time limit
// ended (err) while its answer, which came as the call was being
// written, was held until the write's end (holdAnswer), and the receiver,
// which neither read the rest nor closed, never let the write end. The
// fast path reads that answer and says the write was cut by the time
// limit; here it is read from the bytes held, and said in the same words.
// ok is false for any other failure, and for held bytes that are not a
// whole final answer.
func (d *Deliverer) heldAnswered(ctx, actx context.Context, call *callConn, t *target, res *Result, n int, start time.Time, err error) (a Attempt, ok bool) {
	b := call.heldAnswer()
	if b == nil || ctx.Err() != nil || context.Cause(actx) != context.DeadlineExceeded || !deadlineErr(err) {
		return Attempt{}, false
	}
	resp, rerr := http.ReadResponse(bufio.NewReader(bytes.NewReader(b)), nil)
	if rerr != nil || resp.StatusCode < 200 || malformedStatus(resp) != "" {
		return Attempt{}, false
	}
	kept, rerr := readBody(resp, d.keep(resp.StatusCode))
	if rerr != nil {
		return Attempt{}, false // the rest of the answer was still to come
	}
	a, _ = d.answered(ctx, t, resp, kept, nil, start, res)
	d.bodyUnsent(ctx, &a, writeCutWords(n, os.ErrDeadlineExceeded))
	return a, true
}

// refusing says b starts an HTTP/1 answer whose status says 4xx or 5xx.
func refusing(b []byte) bool {
	const prefix = len("HTTP/1.x ")
	return len(b) > prefix && isAnswerStart(b) && (b[prefix] == '4' || b[prefix] == '5')
}

// readAnswer reads the connection: over TLS above its records, else the
// socket, waiting while it is empty.
func (c *watchConn) readAnswer(p []byte) (int, error) {
	if c.sock != nil {
		return c.readTLS(p)
	}
	if c.readable != nil {
		// The look takes the socket's error (a reset), which the read
		// would then not see: it says the connection's end (EOF), and the
		// reset read as a close.
		if there, err := c.readable.now(); err != nil {
			return c.noteRead(p, 0, err)
		} else if there {
			return c.read(p)
		}
	} else if !peekIdle(c.Conn) {
		// Something is there: the read returns at once.
		return c.read(p)
	}
	c.waiting.Store(true)
	c.signal()
	if c.readable != nil {
		// Nothing is taken from the socket while waiting is set: once a
		// read has taken bytes, their noting (over TLS, their decrypting
		// first) is still to come, and ready or readyTLS, seeing waiting
		// and an empty socket, would send a call before them. A loaded
		// machine let that happen about once in 2,000 calls after bytes
		// no call asked for: the call read them as its answer.
		err := c.readable.wait()
		c.waiting.Store(false)
		if err != nil {
			return c.noteRead(p, 0, err)
		}
		return c.read(p)
	}
	n, err := c.read(p)
	c.waiting.Store(false)
	return n, err
}

// readEnd ends a read, telling Settle.
func (c *watchConn) readEnd() {
	if c.reading.Add(-1) == 0 {
		c.signal()
	}
}

// readTLS reads HTTP/1.1 over TLS: the bytes as the receiver sent them.
// waiting is set while it reads: net/http closing the connection then is
// not for bytes left in its buffer (Close). An error that came with bytes
// is returned by the next read (pendErr).
func (c *watchConn) readTLS(p []byte) (int, error) {
	c.waiting.Store(true)
	defer c.waiting.Store(false)
	if err := c.pendErr; err != nil {
		c.pendErr = nil
		return c.noteRead(p, 0, err)
	}
	n, err := c.Conn.Read(p)
	if n > 0 && err != nil {
		c.pendErr = err
		c.pendClose.Store(true)
		err = nil
	}
	return c.noteRead(p, n, err)
}

// read reads c, noting the bytes begun by then and the first error.
func (c *watchConn) read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if !c.firstRead.Load() {
		c.h2Settings.Store(isH2Settings(p[:n]))
		c.firstRead.Store(true)
	}
	return c.noteRead(p, n, err)
}

// noteRead notes a read of n bytes into p that returned err: the bytes
// begun by then, the first error, and bytes no call asked for. On a
// connection that refused a copy of a call (refuse), a read's error is
// the refusal's.
func (c *watchConn) noteRead(p []byte, n int, err error) (int, error) {
	if err != nil {
		if e := c.refuse.Load(); e != nil {
			// net/http's writer closes the connection on the refused
			// write, while its reader waits on it: the reader meets that
			// close ("use of closed network connection") or, over TLS,
			// the receiver's close_notify in answer to ours (EOF), and
			// the round trip takes whichever of the reader's and the
			// writer's errors it sees first. A loaded machine had it take
			// the reader's, a few times in a hundred: the attempt read
			// "error" or "connection closed", not the reset or the close
			// that failed the try that went out.
			err = *e
		}
	}
	c.readBegun.Store(c.begun.Load())
	c.keepHead(p[:n], err)
	if n > 0 {
		c.got.Add(int64(n))
	}
	if n > 0 && isAnswerStart(p[:n]) {
		c.answerAt.Store(c.begun.Load())
	}
	if err != nil {
		c.readErr.CompareAndSwap(nil, &err)
	}
	if n > 0 && c.isIdle() {
		// Nothing was written on the connection since its last answer:
		// these bytes answer no call.
		if is408(p[:n]) {
			c.saw408.Store(true)
		} else {
			c.noteStray(p[:n])
		}
	}
	return n, err
}

// keepHead keeps b, read with err, while a call's answer's head is
// read (watchConn.answer): up to the empty line that ends a head whose
// status is no 1xx, as far as the bytes show it.
func (c *watchConn) keepHead(b []byte, err error) {
	a := &c.answer
	a.Lock()
	defer a.Unlock()
	if !a.on {
		return
	}
	if err != nil && a.end == nil {
		a.end = err
	}
	if len(b) == 0 {
		return
	}
	from := max(len(a.head)-3, 0)
	a.head = append(a.head, b[:min(len(b), maxHeadJudged-len(a.head))]...)
	informational := len(a.head) > len("HTTP/1.1 1") && a.head[len("HTTP/1.1 ")] == '1'
	ended := bytes.Contains(a.head[from:], []byte("\n\r\n")) || bytes.Contains(a.head[from:], []byte("\n\n"))
	if ended && !informational || len(a.head) >= maxHeadJudged {
		a.on, a.head = false, a.head[:0]
	}
}

// startHead keeps the bytes of an answer from here (keepHead).
func (c *watchConn) startHead() {
	a := &c.answer
	a.Lock()
	a.on, a.head, a.end = true, a.head[:0], nil
	a.Unlock()
}

// cutHead is err, a call's round trip's error on the connection, or a
// headCutError when the receiver's close cut the answer's head (cutHead).
func (c *watchConn) cutHead(err error) error {
	a := &c.answer
	a.Lock()
	defer a.Unlock()
	if !a.on {
		return err
	}
	return cutHead(err, a.end, a.head)
}

func (c *watchConn) Write(p []byte) (int, error) {
	if e := c.refuse.Load(); e != nil {
		// Not closed here: net/http closes it on the write's error, which
		// is then the round trip's, where a close of ours would have its
		// reader's "use of closed network connection" be (net/http's own
		// close races its reader too: noteRead says the refusal there).
		return 0, *e
	}
	if c.closed.Load() || c.pendClose.Load() {
		return 0, c.closedErr()
	}
	if c.cut.Load() {
		// The rest of a call whose answer came before the receiver ended
		// the connection: it cannot go out, and its answer is to be read.
		return len(p), nil
	}
	c.begun.Add(int64(len(p)))
	c.gen.Add(1) // a call's: what comes next may be its answer
	returned := make(chan struct{})
	c.writing.Store(&returned)
	defer close(returned)
	n, err := c.Conn.Write(p)
	c.wrote.Add(int64(n))
	c.ended.Add(int64(len(p))) // after wrote: what ended has written is counted
	if err != nil && c.writeCut(err) {
		return len(p), nil
	}
	if err != nil && errors.Is(err, net.ErrClosed) && c.closed.Load() {
		// Closed under the write, by net/http: said as closedErr says it.
		return n, c.closedErr()
	}
	return n, err
}

// closedErr is the error of a write on the connection once it is closed,
// or its close has come with its last bytes (pendClose). A call the look
// before it found the connection unfit (refused), or one given it as
// that close came, is refused as errUnfit: nothing of it went out.
// Otherwise net/http closed the connection under a call being written,
// on what its reader met (the receiver's reset, its close), which ended
// the call too and is the write's error: net/http reports a write's
// error first (a failed write of a body counts as the body's read), and
// errUnfit's words there had a new connection reset as the body went out
// read as a kept-alive one found closed before the call, of no kind, and
// not as a call that may have been taken.
func (c *watchConn) closedErr() error {
	if c.refused.Load() || !c.closed.Load() {
		return errUnfit
	}
	if p := c.wire().readErr.Load(); p != nil {
		return *p
	}
	if p := c.readErr.Load(); p != nil {
		return *p // over TLS, the receiver's close_notify (EOF): its socket was still open
	}
	return net.ErrClosed
}

// writeCut says whether the failed write of a call, err, came after the
// call's answer: the receiver answered before it read the whole call (a
// 413 for a body it will not take, as nginx does past
// client_max_body_size) and ended the connection, which resets a write
// with the body unread. net/http's transport returns the write's error
// then and drops the answer, which came; the fast path reads it. Taken as
// written (cut), the call's rest goes nowhere and net/http reads the
// answer. Only a reset or a broken pipe, on a call of whsim's (callAt),
// whose answer's start was read (answerAt) or is read by net/http's
// reader before the connection's end: any other failure is the call's.
func (c *watchConn) writeCut(err error) bool {
	call := c.callAt.Load()
	if call < 0 || !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
		return false
	}
	// The bytes that came before the reset may be still to be read: wait
	// for net/http's reader, which reads the connection all through a
	// call, to take them (through the TLS, over TLS) or to meet the
	// connection's end, which a reset or a broken pipe has it meet next.
	// The socket is not looked at here: a look that meets the reset takes
	// it, and the reader would see a close.
	w := c.wire()
	defer c.signal() // a kick taken here may have been another wait's
	for c.answerAt.Load() <= call {
		if c.closed.Load() || w.closed.Load() || c.readErr.Load() != nil || w.readErr.Load() != nil {
			if c.answerAt.Load() > call {
				break // read as the connection ended
			}
			return false
		}
		<-c.kick
	}
	c.cutBy.CompareAndSwap(nil, &err)
	c.cut.Store(true)
	return true
}

// answerStart is how an HTTP/1 answer's status line starts.
const answerStart = "HTTP/1."

// isAnswerStart says b starts as an HTTP/1 answer does, as far as b goes.
func isAnswerStart(b []byte) bool {
	n := min(len(b), len(answerStart))
	return string(b[:n]) == answerStart[:n]
}

func (c *watchConn) Close() error {
	if c.isIdle() && !c.ours.Load() && !c.waiting.Load() && !c.saw408.Load() && c.readErr.Load() == nil &&
		c.gaveUp.Load() != c.gen.Load() &&
		(c.notes == nil || c.notes.closingIdle.Load() == 0) {
		// net/http's reader, idle after an answer, ended the connection
		// with no read of ours: bytes were left in its buffer after the
		// answer (it says so only to the log).
		c.setStray("")
	}
	c.closed.Store(true)
	c.notes.remove(c)
	c.signal()
	return c.Conn.Close()
}

// ready says whether the kept-alive connection may carry the next call:
// it waits until net/http reads it idle, or has closed it; an unfit one
// is closed, and refuses the call's writes (errUnfit). ctx bounds the
// wait (the attempt's).
func (c *watchConn) ready(ctx context.Context) bool {
	var fit bool
	if c.sock != nil {
		fit = c.readyTLS(ctx)
	} else {
		fit = c.readyPlain(ctx)
	}
	if !fit {
		c.refused.Store(true) // before the call's first write, which it refuses
	}
	return fit
}

// readyPlain is ready on a plain connection, which it looks at itself.
func (c *watchConn) readyPlain(ctx context.Context) bool {
	for {
		switch {
		case c.closed.Load():
			return false
		case c.cut.Load():
			c.ours.Store(true)
			c.Close()
			return false
		case c.waiting.Load():
			if c.quiet() {
				return true
			}
			c.look()
			c.ours.Store(true)
			c.Close()
			return false
		}
		select {
		case <-c.kick:
		case <-ctx.Done():
			c.gaveUp.Store(c.gen.Load())
			return false
		}
	}
}

// readyTLS is ready over TLS: the socket cannot be looked at for an
// answer's bytes, so it waits until net/http's reader has read through
// the TLS whatever came to the socket, and waits on it again (quiet); a
// record that was no answer (a session ticket) leaves the connection
// fit, bytes no call asked for are noted by that read, and the
// receiver's close ends it (net/http's reader closes it). A connection
// whose close came with its last bytes (pendClose) is fit for nothing:
// net/http's reader closes it next, or on bytes left in its buffer.
func (c *watchConn) readyTLS(ctx context.Context) bool {
	for {
		switch {
		case c.closed.Load():
			return false
		case c.cut.Load():
			c.ours.Store(true)
			c.Close()
			return false
		case !c.pendClose.Load() && c.sock.quiet():
			return true
		}
		select {
		case <-c.kick:
		case <-ctx.Done():
			c.gaveUp.Store(c.gen.Load())
			return false
		}
	}
}

// unwrap is the connection a watchConn watches: the fast path reads and
// writes the socket itself.
func unwrap(c net.Conn) net.Conn {
	if wc, ok := c.(*watchConn); ok {
		return wc.Conn
	}
	return c
}

// unwatch is unwrap for a connection the fast path takes for its own: the
// watch, never closed, leaves the client's open connections (settle).
func unwatch(c net.Conn) net.Conn {
	if wc, ok := c.(*watchConn); ok {
		wc.notes.remove(wc)
		return wc.Conn
	}
	return c
}

// callConn follows the connections net/http gives one call, so that the
// call's body is handed back (GetBody) only for a try of it none of which
// can have reached the receiver, and a call with no body, which net/http
// makes again without asking for one, is refused by the connection it is
// given for that (got). net/http makes a call again on its own,
// on a new connection, when a kept-alive one fails before an answer and
// the call is one it deems safe to repeat (an Idempotency-Key or
// X-Idempotency-Key header, a GET; Request.isReplayable), even after the
// whole call went out: the receiver, which may have read and acted on it,
// would get a copy no attempt counts, and the delivery's answer would be
// the copy's. A re-send is whsim's own, counted retry, never net/http's.
// net/http's re-send of a call nothing of which went out (a connection
// the receiver closed as the call was given it) is no second delivery,
// and is let be.
type callConn struct {
	// conn is the connection the call was last given, nil when it is none
	// of NewClient's plain or HTTP/1 over TLS ones (an HTTP/2 connection
	// carries other calls' streams: its bytes are not the call's).
	conn    *watchConn
	at      int64        // conn's bytes begun when it was given the call
	wroteAt int64        // conn's bytes written when it was given the call
	gotAt   int64        // conn's bytes read when it was given the call
	gen     atomic.Int64 // conn's writes as the call's answer began (wrote)
	// given is conn's writes when it was given the call: the same as
	// the answer began, none of the call was written (a write refused on
	// a connection found unfit), and what net/http read as its answer
	// was bytes no call asked for.
	given int64
	// callAt is conn's callAt as it was given the call.
	callAt int64
	// answered says an answer's first byte came on it: net/http makes no
	// call again after that, and the body is asked for a redirect.
	answered atomic.Bool
	// sent is what failed a try of the call after some of it went out,
	// nil while none did: every later connection net/http gives the
	// call, until the caller's next round trip (start), refuses it.
	sent error
	// unprocessed counts the streams of this round trip the receiver
	// refused unprocessed and that were made again (h2Conn.RoundTrip).
	unprocessed int
	// noStream is the round trip's wait for an HTTP/2 stream that its
	// time limit ended (h2Conn.RoundTrip): net/http's transport returns
	// the context's error in its place.
	noStream error
	// had says a connection was given the round trip (GotConn): bytes
	// refused before that were a proxy's answer to CONNECT, no answer of
	// the receiver's.
	had bool
	// keptAlive says conn had carried a call before, answered
	// (Attempt.KeptAlive): net/http's Reused says so too of a connection
	// dialled for one call and handed to another, the first on it.
	keptAlive bool
	// end is the end of the try's write, which WroteRequest tells of
	// (for every HTTP/1 call, with the write's error): an answer may come
	// before it, and the call's outcome waits for both (writeCut).
	end atomic.Pointer[writeEnd]
	// stream is the end of the write of the try's last HTTP/2 stream
	// (h2Conn.RoundTrip), nil for none: a stream's own, since a stream
	// the receiver refused unprocessed is made again within the try, and
	// its WroteRequest, with the refusal, may come after the next began.
	stream atomic.Pointer[writeEnd]
}

// writeEnd is the end of a call's write: done closes once err is set.
type writeEnd struct {
	once sync.Once
	done chan struct{}
	err  error
}

// wroteRequest hears the try's write ended, with its error
// (WroteRequest).
func (s *callConn) wroteRequest(err error) { s.end.Load().ended(err) }

// ended says the write ended with err; nil e is none.
func (e *writeEnd) ended(err error) {
	if e != nil {
		e.once.Do(func() {
			e.err = err
			close(e.done)
		})
	}
}

// newStream begins the write of an HTTP/2 stream of the try, whose end
// its own WroteRequest tells (h2Conn.RoundTrip).
func (s *callConn) newStream() *writeEnd {
	e := &writeEnd{done: make(chan struct{})}
	s.stream.Store(e)
	return e
}

// writeCut waits for the end of the write of the call answered on its
// HTTP/1 connection (its answer may have come first: a receiver that
// answers before it reads the body) and says how the body, of n bytes,
// was not sent whole, "" when it was (or the call's connection is none
// of those watched, HTTP/2's, whose writes are not the call's alone).
// net/http's transport ends a write the receiver neither reads nor
// resets soon after the answer was read (it closes the connection), and
// actx bounds the wait all the same.
func (s *callConn) writeCut(actx context.Context, n int) string {
	c, e := s.conn, s.end.Load()
	if c == nil {
		return s.streamCut(actx, n)
	}
	if e == nil {
		return ""
	}
	select {
	case <-e.done:
	case <-actx.Done():
		return ""
	}
	switch {
	case c.cut.Load():
		// The rest of the call went nowhere (writeCut took it as
		// written, so that net/http reads the answer).
		if p := c.cutBy.Load(); p != nil {
			return writeCutWords(n, *p)
		}
		return writeCutWords(n, errWriting)
	case e.err != nil && c.closed.Load():
		// net/http closed the connection with the write under way: the
		// answer said Connection: close, or the receiver read none of
		// the rest soon after its answer came. (Its error, refused
		// writes on a closed connection, may say less or another thing.)
		return writeCutWords(n, errClosedAfterAnswer)
	case e.err != nil:
		return writeCutWords(n, e.err)
	}
	return ""
}

// notTaken says, of a call the time limit ended before an answer came,
// that its write did not complete (notTakenWords), "" when it did or the
// call's connection is none of those watched (HTTP/2's carry other
// calls' bytes). net/http closes the connection as the round trip gives
// up, which ends the write; the wait for that is bounded all the same.
func (s *callConn) notTaken(res *Result) string {
	c, e := s.conn, s.end.Load()
	if c == nil || e == nil {
		return ""
	}
	t := time.NewTimer(writeEndWait)
	defer t.Stop()
	select {
	case <-e.done:
		if e.err == nil {
			return ""
		}
	case <-t.C:
	}
	return notTakenWords(int(c.wire().wrote.Load()-s.wroteAt), res)
}

// silence says what passed on the connection of a call the time limit
// ended before an answer came (Attempt.Silent): the bytes of the call
// written, whole when its write ended without error (notTaken said it
// did not, cut), and of an answer read. nil when the call's connection is
// none of those watched, or its write is not known to have ended.
func (s *callConn) silence(res *Result, limit time.Duration, cut bool) *Silence {
	c, e := s.conn, s.end.Load()
	if c == nil || e == nil {
		return nil
	}
	sl := &Silence{Wrote: int(c.wire().wrote.Load() - s.wroteAt), Read: int(c.got.Load() - s.gotAt), Waited: limit}
	if res.Request != nil {
		sl.Body = len(res.Request.Body)
	}
	if cut {
		return sl
	}
	select {
	case <-e.done:
		if e.err != nil {
			return nil
		}
	default:
		return nil
	}
	sl.Whole = true
	return sl
}

// writeEndWait bounds notTaken's wait for the end of a write net/http
// gave up on.
const writeEndWait = time.Second

// streamCut is writeCut for a call answered on an HTTP/2 stream: x/net
// stops the body's write when the receiver resets the stream after its
// answer (RST_STREAM NO_ERROR, which a server that answers without
// reading the body sends: RFC 9113 8.1 lets it), and the answer reads
// clean. Such a call was passed on HTTP/2 while the same receiver over
// HTTP/1.1 failed it (the connection's reset): the receiver never got the
// call whole on either. A write that does not end within the time limit
// (a receiver that answered and reads nothing more) is cut by it.
func (s *callConn) streamCut(actx context.Context, n int) string {
	e := s.stream.Load()
	if e == nil {
		return ""
	}
	select {
	case <-e.done:
	case <-actx.Done():
		return writeCutWords(n, os.ErrDeadlineExceeded)
	}
	if e.err != nil {
		return writeCutWords(n, e.err)
	}
	return ""
}

// errClosedAfterAnswer is a call's write that ended as its connection
// was closed after the answer came, the write still under way.
var errClosedAfterAnswer = errors.New("the connection was closed after the answer came")

// callKey is the context key of a call's callConn, for the HTTP/2 side
// (h2Conn) to bound the re-sends of streams the receiver did not process.
type callKey struct{}

// start begins a round trip of the caller's own: an attempt, or a try of
// it on another connection after an unfit one (Deliverer.netAttempt).
func (s *callConn) start() {
	s.conn, s.sent, s.unprocessed, s.noStream, s.had, s.keptAlive = nil, nil, 0, nil, false, false
	s.answered.Store(false)
	s.end.Store(&writeEnd{done: make(chan struct{})})
	s.stream.Store(nil)
}

// got notes the connection net/http gave the call (GotConn). Given one
// again within a round trip after some of the call went out on the last,
// net/http is making the call again on its own: it asks for no body to do
// that when the call has none (a GET; GetBody refuses it otherwise), so
// the connection itself refuses the call's bytes, and the round trip
// fails with what failed the try that went out.
func (s *callConn) got(i httptrace.GotConnInfo) {
	s.had, s.keptAlive = true, false
	if s.sent == nil && s.conn != nil {
		s.sent = s.resend()
	}
	s.conn = nil
	s.answered.Store(false)
	c := i.Conn
	tc, underTLS := c.(*tls.Conn)
	if underTLS {
		if tc.ConnectionState().NegotiatedProtocol == http2Proto {
			return
		}
		c = tc.NetConn()
	}
	wc, ok := c.(*watchConn)
	if !ok {
		return
	}
	if !underTLS {
		// Not only on a first use: net/http marks a connection dialled
		// for one call and handed to another reused.
		wc.plain.Store(true)
	}
	if s.sent != nil {
		wc.refuse.Store(&s.sent)
		return
	}
	s.conn, s.at, s.wroteAt, s.given = wc, wc.wire().begun.Load(), wc.wire().wrote.Load(), wc.gen.Load()
	s.gotAt = wc.got.Load()
	// A plain connection's writes are calls', and net/http puts one back
	// idle only after its answer; over TLS, the handshake's are written
	// too, and the answer's putting idle says it (putIdle).
	s.keptAlive = !underTLS && s.given > 0 || wc.idleGen.Load() >= 0
	s.callAt = wc.begun.Load()
	wc.startHead()
	wc.callAt.Store(s.callAt)
	wc.callWrite.Store(s.end.Load())
	s.gen.Store(-2) // not written yet: no PutIdleConn makes it idle
}

// putIdle hears net/http put the call's connection back idle, its answer
// read whole (PutIdleConn).
func (s *callConn) putIdle(err error) {
	if err == nil && s.conn != nil {
		s.conn.putIdle(s.gen.Load())
		// A call that takes the connection without whsim's hooks (a probe
		// sharing the client) is no call of whsim's: its failed write is
		// its own, whatever answer came before. A call of whsim's given
		// the connection already has set its own.
		s.conn.callAt.CompareAndSwap(s.callAt, -1)
	}
}

// wrote hears the first byte of the call's answer came
// (GotFirstResponseByte): the connection's writes so far are the call's.
// (WroteRequest comes before net/http's writer flushes the call.) A
// receiver that answers before the call is written whole has its
// connection's later writes counted past this: it is not taken idle
// after that answer, and nothing on it is noted then.
func (s *callConn) wrote() {
	if s.conn != nil {
		s.gen.Store(s.conn.gen.Load())
	}
}

// unwritten is the ConnCall of an answer that came before any of its
// call was written: no call's answer, never Followed or Cleared, and any
// bytes no call asked for on the connection make it unknown whose.
const unwritten = math.MaxInt64

// answeredOn is the connection the call's answer was read on, nil for
// one not watched (HTTP/2's, a redirect's), and which of the calls
// answered on it this one was (Attempt.ConnCall).
func (s *callConn) answeredOn() (*Conn, int64) {
	if s.conn == nil {
		return nil, 0
	}
	if g := s.gen.Load(); g != s.given {
		return &s.conn.note, g
	}
	// net/http handed it an answer on a connection it wrote none of the
	// call on (refused there): the bytes were already waiting, not its
	// answer; sharing the call before's number, it would be blamed
	// for them as if it had been answered twice.
	return &s.conn.note, unwritten
}

// http2Proto is HTTP/2's name in TLS's ALPN.
const http2Proto = "h2"

// resend says whether the call may be made again, as net/http is about
// to: a sentError when some of it was begun on its connection before the
// read that found the connection failed returned, nil otherwise.
func (s *callConn) resend() error {
	if s.conn == nil {
		return nil
	}
	c := s.conn.wire()
	read := c.readBegun.Load()
	if s.answered.Load() || read <= s.at {
		return nil
	}
	if c.ended.Load() >= read && c.wrote.Load() == s.wroteAt {
		// Each write begun before that read returned has returned, and
		// none put a byte in the socket since the call was given it: the
		// receiver's reset was there before the call's first write, which
		// failed whole. Counted as begun, it said the call may have been
		// taken.
		return nil
	}
	e := sentError{cause: io.EOF} // a TLS close_notify: no read error below it
	if p := c.readErr.Load(); p != nil {
		e.cause = *p
	}
	return e
}

// wentOut says some of the call was begun on its connection before the
// read that found the connection ended returned, and no answer came:
// those bytes may have reached the receiver, which may have taken the
// call (what resend judges, for an attempt that failed).
func (s *callConn) wentOut() bool { return s.resend() != nil }

// sentError stands in for the error of a connection that failed after
// (some of) the call went out and before an answer, when net/http would
// have sent the call again rather than return it: cause is the read's.
type sentError struct{ cause error }

func (e sentError) Error() string {
	return e.cause.Error() + sentWords
}

// sentWords end a sentError's words, after its cause's.
const sentWords = " after the call went out, before an answer (the receiver may hold it: " + notResent

func (e sentError) Unwrap() error { return e.cause }
