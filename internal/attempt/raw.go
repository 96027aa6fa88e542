package attempt

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// The plain-HTTP fast path of a run's worker. net/http's transport gives
// every connection a reading and a writing goroutine and hands each
// request and answer between them and the caller: three goroutine
// switches and a select per delivery, which on loopback cost more than the
// system calls. A worker that owns its connection can instead write the
// request in one call and read the answer itself. It is taken only where
// nothing is lost by it: http:// with no proxy for the URL (TLS and proxies
// go through net/http), redirects not followed, a run's worker; the
// attempt's time limit is the connection's deadline, and Ctrl-C moves that
// deadline to now.

// rawConn is a worker's kept-alive connection.
type rawConn struct {
	c  net.Conn
	io connIO // c's reads and writes (sockio_*.go)
	// lim is what r reads c through: it bounds how much of one answer is
	// read, head and body, however the receiver frames it.
	lim   capReader
	r     *bufio.Reader
	stop  func() bool // unhooks the Ctrl-C watch
	reuse bool        // has carried a request already
	// unasked, when set, is the Deliverer's count of connections found
	// holding bytes no call asked for (Unasked), for closeIdle.
	unasked *atomic.Int64
	// before is how many bytes of the call an event loop's lane wrote
	// before it handed the rest to this connection's writes (writeAway),
	// which Progress counts from: what went out is both.
	before int
	// deadline is the one set on c, which attempts keep while it leaves
	// them their time limit (see deadlineSlack).
	deadline time.Time
	// resp is the answer readLean reads into, reused: of it a delivery
	// keeps only the Header, which readLean makes afresh when there is one.
	resp http.Response
	// pre is the start of an unexpected answer's body readLean kept
	// (Deliverer.KeepFailed), reused.
	pre []byte
}

// capReader reads r up to n bytes, then says errOver: an answer's heads
// (its 1xx answers' included) up to maxHead, as net/http's transport
// counts them (the bytes its reader takes from the connection, with the
// same 4 KiB buffer), then its body up to bodyCap (readAnswer).
//
// While it reads a head (headStart to bodyStart) it keeps the bytes it
// gives, up to maxHeadJudged, and the error that ended r: a head the
// receiver's close cut is said so (cutHead), as net/http's reader, which
// takes the cut line for a whole one, cannot.
type capReader struct {
	r       io.Reader
	n       int64
	heading bool
	head    []byte
	end     error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, errOver
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	if c.heading && n > 0 && len(c.head) < maxHeadJudged {
		c.head = append(c.head, p[:min(n, maxHeadJudged-len(c.head))]...)
	}
	if err != nil && c.end == nil {
		c.end = err
	}
	return n, err
}

// headStart counts, and keeps, an answer's heads from here.
func (c *capReader) headStart() {
	c.n, c.heading, c.head, c.end = maxHead, true, c.head[:0], nil
}

// bodyStart counts an answer's body from here: its last head is read.
func (c *capReader) bodyStart() {
	c.n, c.heading = bodyCap, false
}

// maxHead is how long an answer's head may be on the fast path, as
// net/http's transport bounds it (MaxResponseHeaderBytes) on the other.
const maxHead = 1 << 20

// bodyCap is how many bytes of an answer's body the fast path reads past
// its head: MaxBodyRead with room for chunked framing and a trailer.
const bodyCap = 2 * MaxBodyRead

// errHeadOver is an answer whose head ran past maxHead: a malformed
// answer, as net/http's words for it are (malformedhead.Said).
var errHeadOver = malformedError("server response headers exceeded " + strconv.Itoa(maxHead) + " bytes; aborted")

// connIO reads a worker's connection and sends requests on it.
type connIO interface {
	io.Reader
	// Send writes a request whole. It may wait until the answer can be
	// read. With check it first looks whether the socket is idle (a
	// kept-alive connection) and, if not, writes
	// nothing and says errBusy. It returns once the request is out, or
	// while a goroutine writes the rest of one too large for the socket's
	// buffer (Pending), or when its write failed with an answer waiting
	// in the socket (Written says the error).
	Send(p []byte, check bool) error
	// Pending says whether the rest of the request is still being
	// written: an answer came before it went out whole.
	Pending() bool
	// Written waits for the request's write to end and says what kept it
	// from going out whole (nil: nothing).
	Written() error
	// Wrote says whether any byte of the request went out: known once
	// Written returned, or Send returned with no rest being written.
	Wrote() bool
	// Progress says how many bytes of the request went out of how many,
	// known as Wrote is: fewer is a write that did not complete.
	Progress() (sent, total int)
}

// errBusy is a kept-alive connection found, before a call was written on
// it, closed by the receiver or holding bytes no call asked for.
var errBusy = errors.New("kept-alive connection closed by the receiver or holding bytes no call asked for")

// restWriting is a connIO's write of the rest of a request too large for
// the socket's buffer, made by a goroutine of its own while the reader
// waits for the answer, which may come first (a receiver that answers
// before it reads the body, or never reads it), as net/http's transport
// writes and reads apart.
type restWriting struct {
	done      chan error // the rest write's end; nil when none is under way
	unwritten error      // what kept the last request from going out whole
	// wrote says some of the last request went out: set by Send and by
	// the rest write, read once that has ended (Wrote).
	wrote bool
	// out and total are the bytes of the last request that went out and
	// its length, set as wrote is (Progress).
	out, total int
}

// begin starts a request's write, waiting for the rest write of the one
// before (the connection's close ended it).
func (w *restWriting) begin() {
	w.Written()
	w.unwritten, w.wrote, w.out, w.total = nil, false, 0, 0
}

// Wrote says whether any byte of the request went out.
func (w *restWriting) Wrote() bool { return w.wrote }

// Progress says how many bytes of the request went out, of how many.
func (w *restWriting) Progress() (sent, total int) { return w.out, w.total }

// apart says the rest of the request is written apart: write runs in a
// goroutine of its own and says how it ended.
func (w *restWriting) apart(write func() error) {
	done := make(chan error, 1)
	w.done, w.unwritten = done, errWriting
	go func() { done <- write() }()
}

// Pending says whether the request's rest is still being written.
func (w *restWriting) Pending() bool {
	if w.done == nil {
		return false
	}
	select {
	case err := <-w.done:
		w.unwritten, w.done = err, nil
		return false
	default:
		return true
	}
}

// Written waits for the end of the request's rest write, if one was
// needed, and says what kept the request from going out whole (nil: it
// did). A rest write still waiting for room ends when the connection
// closes or its deadline passes.
func (w *restWriting) Written() error {
	if w.done != nil {
		w.unwritten = <-w.done
		w.done = nil
	}
	return w.unwritten
}

// errWriting is a request whose rest was still being written when its
// answer came.
var errWriting = errors.New("the answer came before the call was written whole")

// netIO is a connIO over net.Conn's own Read and Write.
type netIO struct {
	net.Conn
	restWriting // a request larger than netWriteApart
}

// netWriteApart is the size past which netIO writes a request apart from
// the wait for its answer, which may come before the socket takes it all:
// a smaller one a socket's buffer takes at once.
const netWriteApart = 64 << 10

func (c *netIO) Send(p []byte, check bool) error {
	c.begin()
	if check && !peekIdle(c.Conn) {
		return errBusy
	}
	c.total = len(p)
	if len(p) <= netWriteApart {
		n, err := c.Write(p)
		c.wrote, c.out = n > 0, n
		return err
	}
	c.apart(func() error {
		n, err := c.Write(p)
		c.wrote, c.out = n > 0, n
		return err
	})
	return nil
}

// close closes the connection, and waits for the rest of a request still
// being written on it (which the close ends): the request's buffer is the
// worker's, and written again by its next call.
func (rc *rawConn) close() {
	rc.stop()
	rc.c.Close()
	rc.io.Written()
}

// closeIdle closes a worker's connection, kept alive after an answer, at
// the end of its run, counting it (unasked) when its socket holds bytes
// no call asked for that came after the answer was read (those that came
// with it were counted then), unless they are a 408: the look before a
// next call would have found them, and a run's count is the same however
// it ends.
func (rc *rawConn) closeIdle() {
	if rc.reuse && rc.unasked != nil {
		var b [len(status408)]byte
		if n := peekBytes(rc.c, b[:]); n > 0 && !is408(b[:n]) {
			rc.unasked.Add(1)
		}
	}
	rc.close()
}

// rawOK says whether requests to u may take the fast path.
func rawOK(tr *http.Transport, u *url.URL) bool {
	if u.Scheme != "http" || u.User != nil || tr.DialContext == nil {
		return false
	}
	if tr.Proxy != nil {
		p, err := tr.Proxy(&http.Request{URL: u})
		if err != nil || p != nil {
			return false
		}
	}
	return true
}

// closedAsSent is a kept-alive connection that ended, without a byte of
// an answer, after the call was written on it: the receiver closed it as
// the call went out (it was found open just before). The transport does
// not send the call again, since the receiver may have taken it: a retry
// (--retries) does, counted as one. "Not sent again" was false of a
// delivery whose next attempt followed. cause is how it ended, which is
// the attempt's kind, as on net/http's path: a reset (a receiver that
// closes with the call unread) is no close.
type closedAsSent struct{ cause error }

func (e closedAsSent) Error() string {
	how := "closed"
	if Classify(e.cause) == KindReset {
		how = "reset"
	}
	return "the receiver " + how + " the kept-alive connection as the call went out (the receiver may have taken it: " + notResent
}

func (e closedAsSent) Unwrap() error { return e.cause }

// endedAfterSent is a new connection that ended, without a byte of an
// answer, after the call was written on it: the receiver may have read
// the call and taken it before it closed or reset the connection, as on
// a kept-alive one (closedAsSent). It says what the cause says.
type endedAfterSent struct{ cause error }

func (e endedAfterSent) Error() string { return e.cause.Error() }

func (e endedAfterSent) Unwrap() error { return e.cause }

// unanswered is the error of a call on the fast path that got no byte of
// an answer, by one rule for its single calls (rawConn.call) and its
// event loops (lanes_linux.go): err ended the wait for the answer, or the
// call's write; writeErr ended the write (nil: it went out whole, or did
// not end so); out says some of the call went out, keptAlive that its
// connection carried a call before.
//
// A reset is one whichever system call met it first: the socket gives
// its error (ECONNRESET, EPIPE) to one call only, and a write of the
// call's rest that takes it leaves the reader the connection's end (EOF),
// which said "connection closed". A call that ended so after some of it
// went out may have been taken (closedAsSent, endedAfterSent), whatever
// call failed: a write that failed part way through on a new connection
// said a bare reset. One none of which went out was not: on a kept-alive
// connection it is errBusy, and goes on a new one, as a connection the
// look before it found closed (and as net/http makes such a call again);
// on a new one it fails as what ended it.
func unanswered(err, writeErr error, out, keptAlive bool) error {
	if !staleErr(err) {
		return err
	}
	if Classify(err) != KindReset && writeErr != nil && Classify(writeErr) == KindReset {
		err = writeErr
	}
	switch {
	case !out && keptAlive:
		return errBusy
	case !out:
		return err
	case keptAlive:
		return closedAsSent{err}
	}
	return endedAfterSent{err}
}

func (d *Deliverer) rawAttempt(ctx context.Context, tr *http.Transport, method string, req *Request, res *Result, t *target, buf *bodyBuf, h http.Header, plain bool, host string) (Attempt, time.Duration) {
	start := time.Now()
	deadline := start.Add(d.Client.Timeout)
	buf.dialed, buf.keptAlive = 0, false
	resp, err := d.rawRoundTrip(ctx, tr, method, req.Body, t, buf, h, plain, host, deadline)
	return d.rawAnswer(ctx, method, t, buf, resp, err, start, res)
}

// rawAnswer is the attempt, started at start, whose answer's head
// reading on buf's connection gave resp and err.
func (d *Deliverer) rawAnswer(ctx context.Context, method string, t *target, buf *bodyBuf, resp *http.Response, err error, start time.Time, res *Result) (Attempt, time.Duration) {
	lean, err := unfinished(err) // a lean answer's body over MaxBodyRead, or cut off
	if err != nil {
		notTaken := ""
		var silent *Silence
		if rc := buf.raw; rc != nil {
			rc.close() // and waits for the end of a rest write
			buf.raw = nil
			sent, total := rc.io.Progress()
			if sent < total {
				notTaken = notTakenWords(rc.before+sent, res)
			}
			if total > 0 && ctx.Err() == nil && Classify(err) == KindTimeout {
				// What passed on the connection: the head's bytes read
				// are those its bound let through.
				silent = &Silence{Wrote: rc.before + sent, Whole: sent == total, Read: int(maxHead - rc.lim.n), Waited: d.Client.Timeout}
				if res.Request != nil {
					silent.Body = len(res.Request.Body)
				}
				if silent.Whole {
					notTaken = silent.Words()
				}
			}
		}
		a := d.rawFailed(ctx, method, t, res, err, start, buf, notTaken)
		if a.Kind == KindTimeout {
			a.Silent = silent
		}
		return a, 0
	}
	rc := buf.raw
	rc.before = 0 // of this call only: the connection may carry the next
	var kept []byte
	if resp.Body == http.NoBody {
		kept = rc.pre // the lean answer's body prefix, when it was kept
	} else {
		kept, err = readBody(resp, d.keep(resp.StatusCode))
	}
	if lean != nil {
		err = lean
	}
	// The call's outcome waits for its write's end: an answer read whole
	// while the rest of the call was still being written (a receiver that
	// answers before it reads the body) says nothing yet of whether the
	// call went out whole. The receiver that reads on lets the write end;
	// one that closed ends it with a reset; one that does neither, the
	// time limit (or Ctrl-C). An answer that fails the call whatever the
	// write's end (a 413 for a body it will not read) does not wait for it:
	// the connection, in the middle of the call, is closed at once. A call
	// not written whole leaves the connection in the middle of it.
	var unsent error
	switch {
	case err == nil && d.expect(resp.StatusCode):
		unsent = rc.io.Written()
	case rc.io.Pending():
		unsent = errWriting
	default:
		unsent = rc.io.Written() // ended already: no wait
	}
	unwritten := unsent != nil
	left := rc.r.Buffered() > 0
	if left && !buf.answerEnds(resp, err, false) {
		// Bytes after an answer that ends its connection (Connection:
		// close, HTTP/1.0, a 101) reach no other call, as on net/http's
		// path, which closes it unread: only a kept-alive one's count.
		d.noteLeftover(leftover(rc.r))
	}
	if buf.answerEnds(resp, err, left) || unwritten {
		rc.close()
		buf.raw = nil
	}
	a, wait := d.answered(ctx, t, resp, kept, err, start, res)
	a.Connect, a.KeptAlive = buf.dialed, buf.keptAlive
	if unsent != nil && res.Request != nil && len(res.Request.Body) > 0 {
		d.bodyUnsent(ctx, &a, writeCutWords(len(res.Request.Body), unsent))
	}
	return a, wait
}

// rawFailed is the attempt, started at start, that met err before its
// answer came (its connection closed already): the error Client.Do would
// give. buf says how the call's connection was had (dialed, keptAlive).
//
// notTaken, when the time limit ended it, says the call's write did not
// complete (notTakenWords): said in the error in place of net/http's
// "awaiting headers", which would send the user to a slow answer.
func (d *Deliverer) rawFailed(ctx context.Context, method string, t *target, res *Result, err error, start time.Time, buf *bodyBuf, notTaken string) Attempt {
	kind, asSent, afterSent := Classify(err), false, false
	if ctx.Err() != nil {
		// Ctrl-C cut the connection by its deadline: the error says
		// "i/o timeout", which is not what happened.
		kind, err = KindInterrupted, ctx.Err()
	} else {
		asSent = errors.As(err, new(closedAsSent))
		afterSent = asSent || errors.As(err, new(endedAfterSent))
	}
	switch {
	case kind == KindTimeout && notTaken != "":
		err = timeoutError(notTaken)
	case kind == KindTimeout:
		// What net/http says of the same.
		err = timeoutError(context.DeadlineExceeded.Error() + " (Client.Timeout exceeded while awaiting headers)")
	}
	err = &url.Error{Op: method[:1] + strings.ToLower(method[1:]), URL: t.redacted, Err: err}
	return Attempt{Kind: kind, Err: d.maskedErr(kind, err, t, res), Latency: time.Since(start), Connect: buf.dialed, ClosedAsSent: asSent, EndedAfterSent: afterSent,
		KeptAlive: buf.keptAlive}
}

// answerEnds says whether the connection an answer to bb's request came
// on ends with it, unfit to carry another call: an error reading it
// (err), the receiver's close, bytes after the answer (leftover: a 204 or
// 304 with a body, a receiver that writes more than it frames), which are
// no answer to the next call, a 101 (what follows it is no HTTP), or the
// request's own Connection: close.
func (bb *bodyBuf) answerEnds(resp *http.Response, err error, leftover bool) bool {
	return err != nil || resp.Close || leftover || bb.closing || resp.StatusCode == http.StatusSwitchingProtocols
}

// leftover is the start of what br holds past an answer.
func leftover(br *bufio.Reader) []byte {
	b, _ := br.Peek(min(br.Buffered(), len(status408)))
	return b
}

// keep says whether an answer's body is kept: all with KeepBody, the
// start of an unexpected one's with KeepFailed.
func (d *Deliverer) keep(status int) bool {
	return d.KeepBody || d.KeepFailed && !d.expect(status)
}

// rawRoundTrip writes the request and reads the answer's head; the body is
// left to the caller to read. A kept-alive connection the receiver has
// closed, or that holds bytes no call asked for, is found before the call
// is written on it (Send's check), and a new one dialled. plain says h is
// the worker's plain header (bodyBuf.plain), whose request head the
// worker keeps.
func (d *Deliverer) rawRoundTrip(ctx context.Context, tr *http.Transport, method string, body []byte, t *target, buf *bodyBuf, h http.Header, plain bool, host string, deadline time.Time) (*http.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := buf.appendRequest(method, t, h, plain, host, body)
	rc := buf.raw
	if rc != nil && rc.r.Buffered() > 0 {
		d.noteLeftover(leftover(rc.r))
		rc.close()
		rc, buf.raw = nil, nil
	}
	redone := false // after a kept-alive connection's 408 (idleTimedOut)
	for {
		if rc == nil {
			var err error
			if rc, err = d.dialRaw(ctx, tr, t, buf, deadline); err != nil {
				return nil, err
			}
		}
		reused := rc.reuse
		rc.reuse = true
		rc.lim.headStart()
		if rc.deadline.Before(deadline) {
			rc.deadline = deadline.Add(deadlineSlack(d.Client.Timeout))
			if err := rc.c.SetDeadline(rc.deadline); err != nil {
				return nil, err
			}
			if err := ctx.Err(); err != nil { // Ctrl-C's deadline, overwritten
				return nil, err
			}
		}
		// A kept-alive connection is looked at first, in the same call:
		// one found open that ends now without an answer was closed by
		// the receiver as the call went out.
		buf.keptAlive = reused
		err := rc.call(w, reused, reused, false)
		if err == errBusy {
			d.noteBusy(rc.c)
			rc.close()
			rc, buf.raw, buf.keptAlive = nil, nil, false // the call goes on a new one
			continue
		}
		if err != nil {
			return nil, err
		}
		resp, err := d.readAnswer(rc.r, method, &rc.resp, &rc.pre, &rc.lim)
		if reused && !redone && err == nil && idleTimedOut(resp) {
			// The receiver closed the connection idle as the call went
			// out: made again on a new one, once.
			if resp.Body != http.NoBody {
				resp.Body.Close()
			}
			rc.close()
			rc, buf.raw, buf.keptAlive, redone = nil, nil, false, true
			continue
		}
		return resp, err
	}
}

// idleTimedOut says resp, an answer read on a kept-alive connection, is a
// 408 that ends its connection (Connection: close, or HTTP/1.0): what a
// receiver sends as it closes a connection held idle past its timeout
// (RFC 9110, 15.5.9; Node's and Apache's servers say so), no answer to
// the call that went out on it just then, which it never had. A 408 that
// keeps its connection is the receiver's answer to the call.
func idleTimedOut(resp *http.Response) bool {
	return resp.StatusCode == http.StatusRequestTimeout && resp.Close
}

// call writes the call p on the connection (with check, looking at it
// first: connIO.Send) and waits for the first byte of its answer. Its
// error, when none came, is unanswered's; sentBefore says some of the
// call went out before p (its start, written by an event loop).
func (rc *rawConn) call(p []byte, check, keptAlive, sentBefore bool) error {
	err := rc.io.Send(p, check)
	if err == errBusy {
		return err
	}
	writeErr := err // a write of the call that failed
	if err == nil {
		if _, err = rc.r.Peek(1); err == nil {
			return nil
		}
	}
	if !staleErr(err) {
		return err
	}
	if rc.io.Pending() {
		// The connection ended under the write of the call's rest, which
		// may have met the reset this read did not: it is ended here, if
		// it has not ended yet, and said what it met.
		rc.c.Close()
	}
	if werr := rc.io.Written(); werr != nil {
		writeErr = werr
	}
	return unanswered(err, writeErr, sentBefore || rc.io.Wrote(), keptAlive)
}

// dialRaw dials the worker's connection to t, as buf.raw.
func (d *Deliverer) dialRaw(ctx context.Context, tr *http.Transport, t *target, buf *bodyBuf, deadline time.Time) (*rawConn, error) {
	addr := t.u.Host
	if t.u.Port() == "" {
		addr = net.JoinHostPort(t.u.Hostname(), "80")
	}
	dctx, cancel := context.WithDeadline(ctx, deadline)
	dialStart := time.Now()
	c, err := tr.DialContext(dctx, "tcp", addr)
	buf.dialed = time.Since(dialStart)
	cancel()
	if err != nil {
		return nil, err
	}
	rc := newRawConn(ctx, unwatch(c))
	rc.unasked = &d.unasked
	buf.raw = rc
	return rc, nil
}

// newRawConn is a worker's connection over c; Ctrl-C (ctx) moves its
// deadline to now.
func newRawConn(ctx context.Context, c net.Conn) *rawConn {
	cio := newSockIO(c)
	rc := &rawConn{c: c, io: cio, lim: capReader{r: cio}}
	rc.r = bufio.NewReaderSize(&rc.lim, 4096)
	rc.stop = context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	return rc
}

// appendRequest makes the request as written, into bb.req.
func (bb *bodyBuf) appendRequest(method string, t *target, h http.Header, plain bool, host string, body []byte) []byte {
	w := bb.appendHead(bb.req[:0], method, t, h, plain, host)
	w = strconv.AppendInt(w, int64(len(body)), 10)
	w = append(w, "\r\n\r\n"...)
	w = append(w, body...)
	bb.req = w
	bb.closing = asksClose(h)
	return w
}

// asksClose says whether a request's header asks for its connection to
// end with the answer: a close token in its Connection fields.
func asksClose(h http.Header) bool {
	for _, v := range h["Connection"] {
		for tok := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "close") {
				return true
			}
		}
	}
	return false
}

// appendHead appends to b a request's head up to the value of its
// Content-Length. That of the worker's plain header is made once per
// target and method and then copied: a run sends the same head on every
// call.
func (bb *bodyBuf) appendHead(b []byte, method string, t *target, h http.Header, plain bool, host string) []byte {
	if plain && bb.headFor == t && bb.headMethod == method {
		return append(b, bb.head...)
	}
	start := len(b)
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, t.uri...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\n"...)
	if _, ok := h["User-Agent"]; !ok {
		b = append(b, "User-Agent: Go-http-client/1.1\r\n"...)
	}
	for k, vs := range h {
		for _, v := range vs {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	b = append(b, "Content-Length: "...)
	if plain {
		bb.head = append(bb.head[:0], b[start:]...)
		bb.headFor, bb.headMethod = t, method
	}
	return b
}

// readAnswer reads from br the head of the answer to the call just sent
// (a lean answer whole, see readLean), into *resp unless KeepBody asks
// for net/http's reading; pre keeps the start of a lean answer's body.
// lim, when not nil, is what br reads through, counting the heads up to
// maxHead: its count moves to the body's once the last head is read.
func (d *Deliverer) readAnswer(br *bufio.Reader, method string, resp *http.Response, pre *[]byte, lim *capReader) (*http.Response, error) {
	*pre = (*pre)[:0]
	into := resp
	for {
		resp := into
		var err error
		if d.KeepBody {
			resp, err = http.ReadResponse(br, &http.Request{Method: method})
			if errors.Is(err, errOver) {
				err = errHeadOver
			}
			if err == nil {
				if msg := malformedStatus(resp); msg != "" {
					err = malformedError(msg)
				}
			}
			if err == nil && resp.StatusCode >= 200 && lim != nil {
				lim.bodyStart()
			}
		} else {
			err = readLean(br, method, resp, d, pre, lim)
		}
		// An informational answer (100 Continue, 103 Early Hints) comes
		// before the real one, as net/http skips it.
		if err != nil && lim != nil {
			err = cutHead(err, lim.end, lim.head)
		}
		if err != nil || resp.StatusCode < 100 || resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, err
		}
	}
}

// deadlineSlack is how far past an attempt's time limit its connection's
// deadline is set, so that the next attempts, which start a little later,
// find it far enough out and leave it: moving a deadline costs two
// updates of the runtime's timers, and at thousands of deliveries a second
// a connection's deadline then moves every few ms instead of every call.
// An attempt may run this much over its time limit before it times out.
func deadlineSlack(timeout time.Duration) time.Duration {
	return min(timeout/100, 10*time.Millisecond)
}

func staleErr(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// readLean reads an answer whole into resp, keeping of its head only what
// a delivery uses (status, Connection, Retry-After, Location): what
// http.ReadResponse would give, without a map entry and string per header
// line. The body is read and dropped; the answer's Body is empty.
//
// Of the body it reads MaxBodyRead at most: past it, errOver, and
// resp.Close; a head past maxHead (lim's count, when lim is not nil) is
// errHeadOver. Where keep (when not nil) says so of the status, the first
// MaxBodyPrefix bytes of the body go to *pre.
func readLean(br *bufio.Reader, method string, resp *http.Response, keep keeper, pre *[]byte, lim *capReader) error {
	var longLine []byte
	line, err := readLine(br, &longLine)
	if err != nil {
		return statusCut(line, err)
	}
	status, ok := statusOf(line)
	if !ok {
		major, minor, err := statusLineErr(line)
		if major >= 0 {
			// net/http's reader takes the line and reads the head on: a
			// fault there is its refusal, before the status's.
			h := leanHead{http10: major < 1 || major == 1 && minor < 1, length: -1}
			if herr := h.read(br, &http.Response{}); herr != nil {
				return herr
			}
		}
		return err
	}
	*resp = http.Response{StatusCode: status, Body: http.NoBody}
	var w io.Writer = io.Discard
	if keep != nil && keep.keep(status) {
		w = &prefixWriter{b: pre}
	}
	h := leanHead{http10: line[7] == '0', length: -1}
	if err := h.read(br, resp); err != nil {
		return err
	}
	resp.Close = h.closes()
	if status >= 200 && lim != nil {
		lim.bodyStart() // the last head is read: what follows is body
	}
	chunked, length := h.chunked, h.length
	switch {
	case status < 200 || status == http.StatusNoContent || status == http.StatusNotModified || method == http.MethodHead:
	case chunked:
		if err := drain(httputil.NewChunkedReader(br), w, resp); err != nil {
			return bodyErr(err)
		}
		// The trailer, up to its empty line: its fields are read as the
		// head's, and dropped.
		trailer := leanHead{trailer: true}
		if err := trailerFits(br); err != nil {
			if err == io.EOF {
				err = errTrailerCut
			}
			return bodyErr(err)
		}
		if err := trailer.read(br, nil); err != nil {
			if err == io.EOF {
				err = errTrailerCut
			}
			return bodyErr(err)
		}
	case length > MaxBodyRead:
		resp.Close = true
		return errOver
	case length >= 0:
		if w != io.Discard {
			n, err := io.CopyN(w, br, min(length, MaxBodyPrefix))
			if err != nil {
				return bodyErr(err)
			}
			length -= n
		}
		if _, err := br.Discard(int(length)); err != nil {
			return bodyErr(err)
		}
	default: // the body runs to the end of the connection
		resp.Close = true
		return bodyErr(drain(br, w, resp))
	}
	return nil
}

// bodyError is an error met reading a lean answer's body, its head read:
// the answer still counts, with its body unfinished, as net/http's path
// takes one (Attempt.Truncated, BodyKind), so that a receiver gets the
// same verdict from either path.
type bodyError struct{ err error }

func (e bodyError) Error() string { return e.err.Error() }
func (e bodyError) Unwrap() error { return e.err }

// bodyErr is err met reading a lean answer's body (nil for none; errOver
// as it is): an EOF before the body's declared end is
// io.ErrUnexpectedEOF, as net/http's body reader says.
func bodyErr(err error) error {
	switch {
	case err == nil, errors.Is(err, errOver):
		return err
	case err == io.EOF:
		err = io.ErrUnexpectedEOF
	}
	return bodyError{err}
}

// trailerFits says (nil) whether a chunked body's trailer ends within
// br's buffer, as net/http reads one only then (against a trailer without
// end): its empty line at once, or a CRLF CRLF within the buffer. An
// empty line that is a bare LF is taken at once, as it was before this
// look: net/http waits for a byte after it that a last answer never sends.
func trailerFits(br *bufio.Reader) error {
	if b, err := br.Peek(1); err != nil || b[0] == '\n' {
		return err
	}
	if b, err := br.Peek(2); err != nil || string(b) == "\r\n" {
		return err
	}
	for n := 4; n <= br.Size(); n++ {
		b, err := br.Peek(n)
		if err != nil {
			return err
		}
		if string(b[n-4:]) == "\r\n\r\n" {
			return nil
		}
	}
	return errors.New("http: suspiciously long trailer after chunked body")
}

// errTrailerCut is net/http's word for a chunked body whose trailer ended
// unfinished.
var errTrailerCut = errors.New("unexpected EOF reading trailer")

// unfinished splits what reading an answer gave into what ended its body
// early (past MaxBodyRead, or cut off: the answer still counts) and what
// left no answer at all.
func unfinished(err error) (body, failed error) {
	if err == nil {
		// Most answers: errors.As would put be on the heap, a call each.
		return nil, nil
	}
	var be bodyError
	switch {
	case errors.Is(err, errOver):
		return err, nil
	case errors.As(err, &be):
		return be.err, nil
	}
	return nil, err
}

// keeper says whether an answer's body is kept (a Deliverer): an
// interface rather than a method value, which would be made, and
// allocated, per call.
type keeper interface{ keep(status int) bool }

// statusOf is the status of a status line: "HTTP/1.x", spaces (more than
// one as net/http and curl take them), "DDD" then a space or the line's
// end (CRLF, or LF as net/http takes it), else false: "HTTP/1.1 200X" and
// "HTTP/1.1 2004" are no 200, nor is "HTTP/2.0 200" an HTTP/1 answer. DDD
// is from 100 to 999: a 600 to 999 is well-formed (RFC 9112, 4: three
// digits) though HTTP defines none, and RFC 9110 (15) has a client
// process it as a 5xx, as every path does (a status >= 500); net/http's
// server writes one (WriteHeader takes 100 to 999). Below 100 is no
// status whsim can hold: 0 is its word for no answer.
func statusOf(line []byte) (int, bool) {
	if len(line) < 13 || string(line[:7]) != "HTTP/1." || line[7] < '0' || line[7] > '9' || line[8] != ' ' {
		return 0, false
	}
	code := line[9:]
	for len(code) > 0 && code[0] == ' ' {
		code = code[1:]
	}
	if len(code) < 4 {
		return 0, false
	}
	status := 0
	for _, c := range code[:3] {
		if c < '0' || c > '9' {
			return 0, false
		}
		status = status*10 + int(c-'0')
	}
	switch rest := string(code[3:]); {
	case status < 100:
		return 0, false
	case rest == "\r\n", rest == "\n", rest[0] == ' ':
		return status, true
	}
	return 0, false
}

// statusLineErr is the refusal of a status line statusOf refuses, in the
// words of net/http's path: http.ReadResponse's, or for a line it takes,
// malformedStatus's, with the line's version (major -1 when net/http
// refuses the line). Only a line both take (none is known) keeps words
// of its own.
func statusLineErr(line []byte) (major, minor int, err error) {
	s := string(dropEOL(line))
	proto, status, ok := strings.Cut(s, " ")
	if !ok {
		return -1, 0, malformedError("malformed HTTP response " + strconv.Quote(s))
	}
	status = strings.TrimLeft(status, " ")
	code, _, _ := strings.Cut(status, " ")
	n, aerr := strconv.Atoi(code)
	if len(code) != 3 || aerr != nil || n < 0 {
		return -1, 0, malformedError("malformed HTTP status code " + strconv.Quote(code))
	}
	resp := http.Response{StatusCode: n, Status: status, Proto: proto}
	if resp.ProtoMajor, resp.ProtoMinor, ok = http.ParseHTTPVersion(proto); !ok {
		return -1, 0, malformedError("malformed HTTP version " + strconv.Quote(proto))
	}
	if msg := malformedStatus(&resp); msg != "" {
		return resp.ProtoMajor, resp.ProtoMinor, malformedError(msg)
	}
	return resp.ProtoMajor, resp.ProtoMinor, malformedError("malformed HTTP status line " + strconv.Quote(string(line)))
}

// malformedStatus is what keeps an answer net/http's reader took from
// being one by statusOf's rules, "" for nothing: its status ("+20",
// "099", or over HTTP/2, whose transport takes any number for :status,
// "1000") or its version ("HTTP/2.0", "HTTP/0.9": no HTTP/1 answer), so
// that every path refuses what the fast path refuses. An answer on an
// HTTP/2 connection (TLS chose h2) is HTTP/2's own, not a status line.
func malformedStatus(resp *http.Response) string {
	switch {
	case resp.StatusCode < 100 || resp.StatusCode > 999:
		return "malformed HTTP status code " + strconv.Quote(resp.Status)
	case resp.ProtoMajor != 1 && !overHTTP2(resp):
		return "malformed HTTP version " + strconv.Quote(resp.Proto)
	}
	return ""
}

// overHTTP2 says resp came on an HTTP/2 connection: net/http's HTTP/2
// transport makes it "HTTP/2.0", from no status line.
func overHTTP2(resp *http.Response) bool {
	return resp.ProtoMajor == 2 && resp.TLS != nil && resp.TLS.NegotiatedProtocol == http2Proto
}

// prefixWriter keeps the first MaxBodyPrefix bytes written to it.
type prefixWriter struct{ b *[]byte }

func (p *prefixWriter) Write(b []byte) (int, error) {
	if room := MaxBodyPrefix - len(*p.b); room > 0 {
		*p.b = append(*p.b, b[:min(room, len(b))]...)
	}
	return len(b), nil
}

// drain reads r to its end, up to MaxBodyRead, into w (the kept prefix,
// or nowhere): past it, errOver, and resp.Close.
func drain(r io.Reader, w io.Writer, resp *http.Response) error {
	_, err := io.CopyN(w, r, MaxBodyRead+1)
	switch {
	case err == io.EOF:
		return nil
	case err == nil:
		resp.Close = true
		return errOver
	}
	return err
}

// statusCut is err, which ended the reading of an answer's status line,
// with line the bytes of it that came, as net/http's path says it: its
// reader takes the bytes before a close or a reset for the line, so that
// bytes no answer starts with ("HELLO", then the close) are a malformed
// answer, not a connection closed unanswered; a line it would take is cut
// short by the end met reading the head on. A status line the close cut
// that bytes after it would have made one ("HTTP/1.1 2") is then said cut
// on both paths (cutHead, from readAnswer). An HTTP/2 SETTINGS frame is
// errH2C whatever ended the wait for the rest, as net/http's path says
// from a connection's first bytes.
func statusCut(line []byte, err error) error {
	switch {
	case isH2Settings(line):
		return errH2C
	case len(line) > 0 && staleErr(err):
		// A copy with the line's end: line is the reader's buffer.
		if _, ok := statusOf(append(line[:len(line):len(line)], '\n')); !ok {
			if major, _, lerr := statusLineErr(line); major < 0 {
				return lerr
			}
		}
	}
	return headErr(err)
}

// headErr is err met reading an answer's head: the answer's cap reached
// there is a head too long.
func headErr(err error) error {
	if errors.Is(err, errOver) {
		return errHeadOver
	}
	return err
}
