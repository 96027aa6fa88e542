package receiver

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/malformedhead"
)

// newClient returns the client that forwards calls: a pool sized to the
// expected concurrency, timeouts, no redirects followed (a followed 302
// turns a POST into a GET and loses the body; the sender should see the
// 302), and no compression of its own (net/http would ask for gzip on a
// call whose sender did not, and undo the receiver's gzip: the receiver
// would see a header the sender never sent, the sender an answer the
// receiver never gave).
// tlsConf is an https receiver's (listen's --insecure and --cacert), nil
// for the system's roots.
func newClient(conns int, timeout time.Duration, tlsConf *tls.Config) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dialer.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countedConn{Conn: c, kick: make(chan struct{}, 1), judged: make(chan struct{})}, nil
	}
	tr := &http.Transport{
		Proxy:       nil, // a local receiver, never through a proxy
		DialContext: dial,
		// TLS dialled here, as net/http would (HTTP/1.1 only: no ALPN,
		// ForceAttemptHTTP2 is off), so that the answers are watched
		// above the records (tlsConn).
		DialTLSContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dialTLS(ctx, dial, tlsConf, network, addr)
		},
		MaxIdleConns:          conns,
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       forwardIdle,
		ResponseHeaderTimeout: timeout,
		ForceAttemptHTTP2:     false,
		DisableCompression:    true,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// dialTLS opens a connection to addr by dial and makes TLS over it with
// conf (nil: the system's roots), the server's name the host's, as
// net/http does; the handshake is bounded by ctx (the call's).
func dialTLS(ctx context.Context, dial func(context.Context, string, string) (net.Conn, error), conf *tls.Config, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	c, err := dial(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if conf = conf.Clone(); conf == nil {
		conf = &tls.Config{}
	}
	if conf.ServerName == "" {
		conf.ServerName = host
	}
	tc := tls.Client(c, conf)
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, err
	}
	sock := c.(*countedConn)
	sock.underTLS = true
	return &tlsConn{Conn: tc, sock: sock}, nil
}

// maxTLSPlaintext is the most plaintext a TLS record carries (RFC 8446
// 5.1, RFC 5246 6.2.1); crypto/tls refuses a record with more.
const maxTLSPlaintext = 16 << 10

// tlsConn is a TLS connection to the receiver whose answers are watched
// above its records (answerWatcher), where the socket under it holds
// records. It reads a record's plaintext whole into a buffer of its own:
// crypto/tls hands a read what it asks of the record at hand and keeps
// the rest unseen, so a record's bytes after an answer's framed end would
// be missed; in the buffer they are counted (unread). The read's error
// is given with the buffer's last byte, as crypto/tls gives it (the
// receiver's close_notify right after an answer is an io.EOF with its
// bytes): given a read later, net/http took the connection for a kept
// one and gave the next call a connection the receiver had closed.
type tlsConn struct {
	*tls.Conn
	sock    *countedConn
	buf     []byte // maxTLSPlaintext, allocated on the first read
	pending []byte // of buf, read and not yet given
	err     error  // the read's that filled buf, given with its last byte
	answers answerWatcher
}

// NetConn is the counted socket under the TLS, as onceOnly's trace
// counts what of a call went out.
func (c *tlsConn) NetConn() net.Conn { return c.sock }

func (c *tlsConn) Read(p []byte) (int, error) {
	if c.answers.ended.Load() {
		return 0, io.EOF
	}
	if len(c.pending) == 0 && c.err == nil {
		if c.buf == nil {
			c.buf = make([]byte, maxTLSPlaintext)
		}
		n, err := c.Conn.Read(c.buf)
		c.pending, c.err = c.buf[:n], err
		c.sock.idleClosed(n, err)
		c.sock.idleStray(n)
		if n == 0 && errors.Is(err, io.EOF) {
			if w := c.answers.watch.Load(); w != nil && (w.wrote.Load() || c.sock.callWriting.Load() > 0) && w.none() {
				// The receiver's close_notify, after bytes of the call
				// given the connection went out (or as they go: the
				// write that the receiver's close_notify answered may
				// not have returned yet, and read as none went out) and
				// before any answer to it (closedUnread).
				c.sock.closeNotified.Store(true)
			}
		}
	}
	if len(c.pending) > 0 && c.answers.strayFirst() {
		c.answers.ended.Store(true)
		return 0, c.sock.strayFound()
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	var err error
	if len(c.pending) == 0 {
		err, c.err = c.err, nil
	}
	return c.answers.seen(p, n, err, c.unread)
}

// unread is how many bytes of the record last read no read has taken.
func (c *tlsConn) unread() int { return len(c.pending) }

// Write writes a call's bytes through the TLS, after the look of its
// first write on a kept-alive connection (countedConn.lookBeforeCall).
func (c *tlsConn) Write(p []byte) (int, error) {
	c.sock.lookBeforeCall()
	if e := c.sock.refuse.Load(); e != nil {
		return 0, *e
	}
	if !c.answers.callFirst(c.unread) {
		return 0, c.sock.refuseStray()
	}
	c.sock.callWriting.Add(1)
	defer c.sock.callWriting.Add(-1)
	n, err := c.Conn.Write(p)
	if w := c.answers.watch.Load(); n > 0 && w != nil {
		w.wrote.Store(true)
	}
	return n, err
}

// forwardIdle is how long a connection to the receiver is kept idle for
// the next call: shorter than the idle timeouts receivers' servers close
// theirs after (Node's and Express's 5 s, gunicorn's 5 s, 2 s in its
// older releases; Go's and nginx's are longer), with a margin, so
// that listen does not hand a call to a connection the receiver is
// closing at that moment. A call that went out on one as the receiver's
// close crossed it cannot be told from one the receiver read and dropped:
// it is answered 502, "the receiver may hold it", and not sent again. A
// new connection after 1 s of quiet costs a dial on loopback; under load
// the connections are never idle that long.
const forwardIdle = time.Second

// countedConn is a connection to the receiver that counts the bytes
// written to it, so that a forward can tell whether any of its call went
// out (onceOnly), and keeps its first read error, which says how it failed.
type countedConn struct {
	net.Conn
	written atomic.Int64
	readErr atomic.Pointer[error]
	// answers watches the answers read, on a plain connection (one under
	// TLS is watched above its records: tlsConn).
	answers answerWatcher
	// refuse, when set, is the error every write fails with: the
	// connection was given a copy of a call that went out already
	// (onceOnly's trace), which must not go out again.
	refuse atomic.Pointer[error]
	// callWrite is the end of the write of the call last given the
	// connection, a plain one (onceOnly's trace): an answer read before
	// it ends is held from net/http until it does (Read).
	callWrite atomic.Pointer[forwardWrite]
	// lookFirst says the connection was given a call as a kept-alive one
	// (onceOnly's trace): the call's first write looks whether the
	// receiver's close came first (closedFirst).
	lookFirst atomic.Bool
	// reading counts the reads of the socket under way (Read), closed
	// says it was closed; kick tells closedFirst of a change of either (nil for
	// a connection not newClient's: it waits for none).
	reading  atomic.Int32
	closed   atomic.Bool
	kick     chan struct{}
	underTLS bool // set before net/http has the connection
	// closeNotified says the receiver's close_notify came (under TLS)
	// before any byte of an answer to the call given the connection;
	// judged is closed once the socket was then looked at for the reset
	// that says the call's bytes were never read (closedUnread), before
	// crypto/tls's own close_notify or the close (nil: not looked at,
	// a connection not newClient's), and neverRead holds what it said.
	closeNotified atomic.Bool
	judged        chan struct{}
	judge         sync.Once
	neverRead     atomic.Bool
	// callWriting counts the calls' writes under way through the TLS
	// over the socket (tlsConn.Write): only their bytes are counted
	// written. crypto/tls writes a close_notify of its own as net/http
	// closes the connection (the receiver's close read, no call
	// written), which is no byte of a call, and counted, said a call
	// given the connection had gone out.
	callWriting atomic.Int32
	// kept is what the forwards that were given the connection learn of
	// the receiver's closes (nil until one was). given counts the calls
	// given the connection, idleAfter is given's count when net/http put
	// it back idle after its call's answer (onceOnly's trace): a read
	// that fails while the two are equal found the receiver's close of
	// a connection no call was on (idleClosed).
	kept      atomic.Pointer[keptConns]
	given     atomic.Int64
	idleAfter atomic.Int64
	// lastSeq is the seq of the call last given the connection (listen's
	// #), 0 when not known.
	lastSeq atomic.Uint64
	// judging, when set (by tests), runs each time judgeUnread's look
	// found no reset and no sign that none will come, and would wait.
	judging func()
	// ackedBefore is, on a plain kept-alive connection given a call,
	// what its socket said of the receiver's acknowledgements when the
	// look before the call's first write found it open (lookBeforeCall),
	// nil when not known; unackedReset says a read, a write or the close
	// that failed after it found the connection reset after a FIN with
	// none of the call's bytes acknowledged (neverAcked). lookedOpen, when set (by tests),
	// runs after that look, before the write; readFailed as a read of
	// the socket fails, before the failure is judged and given.
	ackedBefore  atomic.Pointer[ackState]
	unackedReset atomic.Bool
	lookedOpen   func()
	readFailed   func()
	// strayRead, when set (by tests), runs as a read found bytes of the
	// receiver's before any of the call given the connection went out
	// (answerWatch.strayFirst).
	strayRead func()
}

// idleClosed notes a read of the connection that failed with err (n
// bytes read) as the receiver's close of a kept-alive connection listen
// held idle, when it was one: not listen's own close, no call given it
// since its last answer.
func (c *countedConn) idleClosed(n int, err error) {
	if n > 0 || err == nil || c.closed.Load() || c.answers.ended.Load() {
		return
	}
	if given := c.given.Load(); given > 0 && c.idleAfter.Load() == given {
		c.kept.Load().sawClose()
	}
}

// idleStray notes n bytes read on the connection, when listen held it
// idle (no call given it since its last answer), as bytes no call asked
// for: a second answer written late, which net/http drops the connection
// for, and which, had a call been given it first, would have been read
// as that call's answer. No connection is kept from then on.
func (c *countedConn) idleStray(n int) {
	if n <= 0 || c.closed.Load() || c.answers.ended.Load() {
		return
	}
	if given := c.given.Load(); given > 0 && c.idleAfter.Load() == given {
		c.kept.Load().sawStray()
	}
}

// errClosedFirst is the write refused on a kept-alive connection whose
// close by the receiver came before the call's first byte was written.
var errClosedFirst = errors.New("the receiver had closed the kept-alive connection before the call was written")

// errStrayFirst is the read and the write of a kept-alive connection on
// which bytes of the receiver's came before any of the call given it
// went out (answerWatch.strayFirst): the call is not written there, and
// net/http makes it again on a new connection (nothing written: onceOnly's
// getBody hands the body back).
var errStrayFirst = errors.New("the receiver wrote bytes on the kept-alive connection before the call given it went out (after its answer to the call before): none of the call went on it")

// strayFound ends the connection, on which bytes of the receiver's came
// before the call given it went out: that call is not written on it, the
// bytes are no answer of its, and no connection is kept from then on.
func (c *countedConn) strayFound() error {
	c.answers.ended.Store(true)
	c.kept.Load().sawStray()
	if c.strayRead != nil {
		c.strayRead()
	}
	return c.refuseStray()
}

// refuseStray refuses the writes of the call given the connection, which
// bytes of the receiver's came before.
func (c *countedConn) refuseStray() error {
	var e error = errStrayFirst
	c.refuse.CompareAndSwap(nil, &e)
	c.kept.Load().sawStray()
	return errStrayFirst
}

// forwardWrite is the end of the write of a try of a forwarded call, which
// WroteRequest tells of, with the write's error: done closes once err is
// set.
type forwardWrite struct {
	once sync.Once
	done chan struct{}
	err  error
}

func (w *forwardWrite) end(err error) {
	w.once.Do(func() {
		w.err = err
		close(w.done)
	})
}

func (c *countedConn) Write(p []byte) (int, error) {
	if !c.underTLS {
		c.lookBeforeCall()
	} else if c.callWriting.Load() == 0 {
		// crypto/tls's own (its close_notify as net/http closes the
		// connection): bytes that would draw a reset of their own.
		c.judgeUnread()
	}
	if e := c.refuse.Load(); e != nil {
		// Not closed here: net/http closes it on the write's error,
		// which is then the call's.
		return 0, *e
	}
	if !c.underTLS && !c.answers.callFirst(c.unread) {
		return 0, c.refuseStray()
	}
	n, err := c.Conn.Write(p)
	if !c.underTLS || c.callWriting.Load() > 0 {
		c.written.Add(int64(n))
	}
	if err != nil {
		c.judgeUnacked()
	}
	return n, err
}

// lookBeforeCall is the look of a call's first write on a kept-alive
// connection, plain or under TLS (tlsConn.Write: the socket's own writes
// there are crypto/tls's too, a close_notify, an alert, which are no
// call's and wait for nothing). A connection the receiver closed first
// refuses the call's writes from then on.
func (c *countedConn) lookBeforeCall() {
	if !c.lookFirst.Swap(false) {
		return
	}
	if !c.closedFirst() {
		if !c.underTLS {
			c.unackedReset.Store(false)
			before := ackStateOf(c.Conn)
			c.ackedBefore.Store(&before)
		}
		if c.lookedOpen != nil {
			c.lookedOpen()
		}
		return
	}
	// An HTTP/1.1 server reads no call after its close, so the call,
	// none of which went out, is refused here, and net/http makes it
	// again on another connection (nothing written: onceOnly's getBody
	// hands the body back). Written, it met the close on its way, and the
	// forward failed as a call the receiver may hold (a forward in ten,
	// or more, at a concurrency of 2 against a receiver over https that
	// closes after every answer); over http, unless its bytes were reset
	// unacknowledged (judgeUnacked).
	var e error = errClosedFirst
	c.refuse.Store(&e)
	c.kept.Load().sawClose()
}

// closedFirst says the receiver's close of the kept-alive connection
// came before the call given it is written: net/http's reader had not
// read that far when the pool gave the connection out (the close came
// with the last answer, or just after). It waits until that reader
// reads the socket again, having handed the last answer over (a
// connection closed before that fails the call the answer is for:
// net/http puts a connection back idle before it hands a bodyless
// answer to its call), and, under TLS, has read through TLS whatever
// came to the socket (a close_notify in crypto/tls's buffer is seen
// nowhere else); or until the connection is closed (by that reader, or
// as the forward ends). Then the socket says whether the receiver's FIN
// (or a reset) came: a close that comes after this look cannot be told
// from the receiver's answer to a call it read, and the call goes out.
func (c *countedConn) closedFirst() bool {
	if c.kick == nil {
		return peerClosed(c.Conn)
	}
	for {
		switch {
		case c.closed.Load():
			return true
		case c.reading.Load() > 0:
			if peerClosed(c.Conn) {
				return true
			}
			// Plain, the socket shows all that came. Under TLS, bytes
			// not yet read may be a close_notify: the reader is waited
			// for to read them.
			if !c.underTLS || bufferedBytes(c.Conn) == 0 {
				return false
			}
		}
		<-c.kick
	}
}

func (c *countedConn) signal() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// judgeUnacked notes, on a plain kept-alive connection whose call's
// bytes went out after a look found it open, that the connection was
// reset after a FIN with none of them acknowledged (neverAcked): the
// receiver's socket was closed when they came, and its application never
// read them. Looked at as a read, a write or the close fails, while the
// socket is there to look at.
func (c *countedConn) judgeUnacked() {
	if c.underTLS || c.unackedReset.Load() {
		return
	}
	if before := c.ackedBefore.Load(); before != nil && neverAcked(c.Conn, *before) {
		c.unackedReset.Store(true)
	}
}

func (c *countedConn) Close() error {
	c.judgeUnacked()
	c.judgeUnread()
	c.closed.Store(true)
	if c.kick != nil {
		c.signal()
	}
	return c.Conn.Close()
}

// judgeUnread looks, once, whether a receiver whose close_notify came
// before any answer to the call given the connection reset the socket
// too: its socket was closed when the call's bytes came, or closed with
// them unread (a socket that closes with bytes unread resets the
// connection, and one closed resets those that come after). Either way
// its application never read the call. One that read the call whole and
// then closed sent its FIN, no reset: it may hold the call. It waits
// for the one or the other (readUnread) as events, for closeNotifyGrace
// at most: after the receiver's close_notify the connection carries
// nothing more, and is closed. Waited for up to the forward's time limit
// (fw45's), a receiver that sent its close_notify and then neither closed
// nor reset held the call, its connection's close and with it listen's
// stop, 30 s (found by fw46). Looked at once, with no wait, a receiver
// that closes right after its close_notify (Go's tls.Conn.Close) was
// seen before its reset one forward in three, and its call said held.
// A receiver whose reset comes later may hold the call, as far as listen
// can tell, and is said so (not sent again).
func (c *countedConn) judgeUnread() {
	if c.judged == nil {
		return
	}
	c.judge.Do(func() {
		if c.closeNotified.Load() {
			c.neverRead.Store(readUnread(c.Conn, time.Now().Add(closeNotifyGrace), c.judging))
		}
		close(c.judged)
	})
}

// closeNotifyGrace bounds judgeUnread's wait for the reset or FIN of a
// receiver after its close_notify: its close follows at once (the same
// call of its TLS stack) unless its process is held, and a receiver that
// holds the connection longer holds no call listen can wait for.
//
// The wait itself is for events (readUnread polls for the FIN or the
// reset, and returns as one comes, on loopback within microseconds); the
// bound is only for a receiver that sends neither, and no event can take
// its place: a socket the receiver keeps open after its close_notify
// says nothing more until it closes, which may be never, and nothing of
// listen's own (the forward's context, the connection's close, which
// this wait is part of) says anything of the receiver's socket. Past the
// bound the call is judged as one the receiver may hold, the safe word
// (not sent again), which a receiver held that long on a loaded machine
// gets too: a slower 502, never a call sent twice. Unbounded, or bounded
// by the forward's time limit, such a receiver held the forward's 502
// and listen's stop 30 s (fw46).
const closeNotifyGrace = 500 * time.Millisecond

func (c *countedConn) Read(p []byte) (int, error) {
	if c.answers.ended.Load() {
		return 0, io.EOF
	}
	if c.kick != nil {
		// Counted to its end, the hold below too: a reader holding an
		// answer for the call's write reads no earlier answer.
		c.reading.Add(1)
		c.signal()
		defer func() {
			c.reading.Add(-1)
			c.signal()
		}()
	}
	n, err := c.Conn.Read(p)
	if n > 0 && !c.underTLS && c.answers.strayFirst() {
		return 0, c.strayFound()
	}
	if !c.underTLS {
		c.idleStray(n)
	}
	if err != nil && c.readFailed != nil {
		c.readFailed()
	}
	if err != nil {
		c.readErr.CompareAndSwap(nil, &err)
		c.idleClosed(n, err)
		c.judgeUnacked()
	}
	n, err = c.answers.seen(p, n, err, c.unread)
	if w := c.callWrite.Load(); n > 0 && w != nil && !c.answers.refused() {
		// The receiver answered before the call was written whole (a
		// 200 from its head, the body read after): net/http's client,
		// given the answer with the write under way, waits 50ms for it
		// and then closes the connection, cutting the body, and listen
		// passed the 200 on for a call the receiver never got whole
		// (a receiver reading 16 MiB on got 4 MiB of it). Held, the
		// answer is read once the write ended: the receiver that reads
		// on gets the call whole; one that reset the connection ends
		// the write, and the forward fails (forwardAnswer); one that
		// does neither, the client's time limit.
		<-w.done
	}
	return n, err
}

// unread is how many bytes the socket holds that no read has taken yet.
func (c *countedConn) unread() int { return bufferedBytes(c.Conn) }

// refusal says head, an answer's first bytes, starts a status line that
// says 4xx or 5xx: a refusal, which fails whatever became of the call's
// body, and is not held (a receiver that will not take a body may keep
// the connection without reading it).
func refusal(head []byte) bool {
	const prefix = len("HTTP/1.x ")
	return len(head) > prefix && bytes.HasPrefix(head, []byte("HTTP/1.")) && (head[prefix] == '4' || head[prefix] == '5')
}

// maxHeadKept bounds the bytes of an answer's head kept to judge its
// framing: a head longer than that is not judged.
const maxHeadKept = 64 << 10

// answerWatcher watches the answers read on a connection to the
// receiver, where they are HTTP (a plain socket, or above TLS's records),
// each by the watch of the call it was given for.
//
// The framing of an answer is judged in the read that reaches the end of
// the body its head framed, before net/http has the bytes: judged later,
// as it once was, when the forward had read the body, net/http had put
// the connection back in its pool by then, and another forward given it
// took its bytes for its own answer's; one answer in twelve that sent
// more than its Content-Length, at a concurrency of 2, was passed on as
// clean.
type answerWatcher struct {
	watch atomic.Pointer[answerWatch] // the call's last given the connection
	// ended says an answer was found malformed (answerWatch.fault): the
	// connection reads as closed by the receiver after that answer's
	// framed end, so that net/http drops it, and no call given it after
	// takes the bytes that followed for the start of its own answer.
	ended atomic.Bool
}

// seen passes the n bytes of a read of p (err its error) by the watch of
// the call last given the connection, and returns what the read gives
// its caller: all of it, or, for an answer found malformed, the bytes up
// to its framed end and io.EOF. unread is how many bytes wait to be read
// after these.
func (a *answerWatcher) seen(p []byte, n int, err error, unread func() int) (int, error) {
	w := a.watch.Load()
	if w == nil {
		return n, err
	}
	if n > 0 {
		if keep, malformed := w.saw(p[:n], unread); malformed {
			a.ended.Store(true)
			return keep, io.EOF
		}
	}
	if err != nil {
		w.endedBy(err)
	}
	return n, err
}

// callFirst and strayFirst are the answerWatch's of the call last given
// the connection (none: the call may go, and bytes read are no stray).
func (a *answerWatcher) callFirst(unread func() int) bool {
	w := a.watch.Load()
	return w == nil || w.callFirst(unread)
}

func (a *answerWatcher) strayFirst() bool {
	w := a.watch.Load()
	return w != nil && w.strayFirst()
}

func (a *answerWatcher) refused() bool {
	w := a.watch.Load()
	return w != nil && w.refusing.Load()
}

// answerWatch is what the bytes of one call's answer, as they are read,
// say of its framing (framingFault).
type answerWatch struct {
	method string // the call's: an answer to HEAD frames no body
	mu     sync.Mutex
	// head keeps the answer's first bytes, up to maxHeadKept, until its
	// head is whole (headRead).
	head     []byte
	headRead bool
	f        framing // the head's, once read
	read     int64   // the answer's bytes read
	// end is the byte of the answer its head framed it to end at, -1
	// when that is not known (chunked, until the close) or was judged.
	end   int64
	fault string // how the answer was malformed, "" for not
	past  bool   // it was: bytes came after its framed end (pastEnd)
	// refusing says the status line says 4xx or 5xx (refusal): looked
	// at on each read of a plain connection, without the lock.
	refusing atomic.Bool
	// wrote says bytes of the call went out through the TLS above the
	// socket (tlsConn.Write).
	wrote atomic.Bool
	// cutBy is the read error that ended the connection before the
	// answer's head was read whole (head holds what came), nil for none.
	cutBy error
	// reused says the call was given a kept-alive connection, whose call
	// before may have had bytes after its answer (strayFirst).
	reused bool
	// first says which came first on the connection once the call was
	// given it: its own first byte out (firstCall) or a byte of the
	// receiver's (firstStray), none yet (0).
	first atomic.Int32
}

const (
	firstCall  = 1
	firstStray = 2
)

// callFirst says the call's first byte may go out: no byte of the
// receiver's came first (unread is how many wait unread on the
// connection). Its bytes out, what is read after may be its answer.
func (w *answerWatch) callFirst(unread func() int) bool {
	if !w.reused || w.first.Load() == firstCall {
		return true
	}
	if unread() > 0 {
		w.first.CompareAndSwap(0, firstStray)
	}
	return w.first.CompareAndSwap(0, firstCall) || w.first.Load() == firstCall
}

// strayFirst says bytes read on a kept-alive connection came before any
// of the call given it went out: they answer no call the receiver had
// from it, but follow the answer to the call before (a second answer,
// a body past its Content-Length, written after it), and the call does
// not go out on that connection.
func (w *answerWatch) strayFirst() bool {
	return w.reused && (w.first.CompareAndSwap(0, firstStray) || w.first.Load() == firstStray)
}

// endedBy notes err, a read's, that ended the connection: before the
// answer's head was whole, the head was cut there (headCut).
func (w *answerWatch) endedBy(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.headRead && w.cutBy == nil {
		w.cutBy = err
	}
}

func newAnswerWatch(method string) *answerWatch {
	return &answerWatch{method: method, end: -1}
}

// none says no byte of the answer has been read.
func (w *answerWatch) none() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.read == 0
}

// saw judges b, the next bytes read of the answer; unread is how many
// more wait to be read. malformed says the answer was found malformed in
// them: keep is how many of b are the answer's, up to its framed end.
func (w *answerWatch) saw(b []byte, unread func() int) (keep int, malformed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	before := w.read
	w.read += int64(len(b))
	if !w.headRead {
		w.head = append(w.head, b[:min(len(b), maxHeadKept-len(w.head))]...)
		w.refusing.Store(refusal(w.head))
		f, ok := parseHeads(w.head)
		if !ok {
			if len(w.head) == maxHeadKept {
				w.headRead, w.head = true, nil // too long to judge
			}
			return len(b), false
		}
		w.headRead, w.head = true, nil
		w.f = f
		w.fault, w.end = judgeHead(f, w.method)
	}
	if w.end < 0 || w.read < w.end {
		return len(b), false
	}
	end := w.end
	w.end = -1
	if w.read == end && unread() == 0 {
		return len(b), false
	}
	w.fault, w.past = pastEnd(w.f, w.method), true
	return int(end - before), true
}

// onceOnly keeps net/http from sending a forwarded call a second time.
// net/http makes a call again on a new connection when its kept-alive one
// failed, and for a call it deems safe to repeat (a GET, or an
// Idempotency-Key or X-Idempotency-Key header) even after the whole call
// went out: the receiver, which may have read and stored it, then gets a
// copy the sender never sent, and listen's line, record and summary show
// one. It rewinds the body (GetBody) for each such retry; onceOnly's
// GetBody refuses once a byte of the call was written to its connection,
// and allows the retry net/http makes of a call nothing of which went out
// (a connection the receiver closed as the call was given it), which is
// no second delivery. A call with no body net/http makes again without
// asking for one: the connection it is given for that refuses it (trace).
type onceOnly struct {
	body   []byte
	method string
	// kept is the receiver's closes seen (Receiver.kept): a forward that
	// finds a close adds to it, and one given a kept connection once a
	// close was seen refuses it.
	kept *keptConns
	mu   sync.Mutex
	conn *countedConn // the connection the call was given, nil before
	at   int64        // conn's bytes written when it was given the call
	// uncounted says the connection it was given is not one of
	// newClient's: whether any of the call went out on it is not known.
	uncounted bool
	out       bool // some of the call went out on a connection before conn
	// answered says the answer's first byte came on conn: a GetBody then
	// is net/http's client's, which asks for the body of a 307 or 308
	// before it asks CheckRedirect, which follows none.
	answered bool
	cause    error // what failed that connection, when a read said it
	reused   bool  // the connection it was last given was a kept-alive one
	callNo   int64 // conn's given count once it was given the call
	// seq is the call's (listen's #), 0 when not known; before is the
	// seq of the call conn carried before it, 0 for none or not known.
	seq, before uint64
	// answer watches the answer read for the call on conn (framingFault).
	answer *answerWatch
	// write is the end of the write of the try last given a plain counted
	// connection, nil for none: its answer was held until then
	// (countedConn.Read), and a 2xx to a call not written whole fails.
	write *forwardWrite
}

// trace notes the connection each try of the call is given.
func (o *onceOnly) trace() *httptrace.ClientTrace {
	// The try's own: net/http's WroteRequest of a try that failed may
	// come after the next try began.
	write := &forwardWrite{done: make(chan struct{})}
	return &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		write.end(info.Err)
	}, GotFirstResponseByte: func() {
		o.mu.Lock()
		o.answered = true
		o.mu.Unlock()
	}, PutIdleConn: func(err error) {
		// net/http's reader put the connection back idle after the
		// answer, before it reads the connection again: a close found
		// there came with no call on it (countedConn.idleClosed). A call
		// given the connection in between counted one more, and the
		// close is that call's.
		if err != nil {
			return
		}
		o.mu.Lock()
		c, n := o.conn, o.callNo
		o.mu.Unlock()
		if c != nil {
			c.idleAfter.Store(n)
		}
	}, GotConn: func(info httptrace.GotConnInfo) {
		c := info.Conn
		var answers *answerWatcher // where the answers are HTTP
		switch hc := c.(type) {
		case *countedConn:
			answers = &hc.answers
		case *tlsConn:
			answers = &hc.answers
		}
		t, underTLS := c.(interface{ NetConn() net.Conn })
		if underTLS {
			c = t.NetConn() // a TLS connection over the counted one
		}
		o.mu.Lock()
		defer o.mu.Unlock()
		o.write, o.answer = nil, nil
		o.reused, o.answered = info.Reused, false
		if !o.out && o.wroteLocked() {
			o.out = true
			if o.conn != nil {
				if p := o.conn.readErr.Load(); p != nil {
					o.cause = *p
				}
			}
		}
		o.conn, o.uncounted = nil, false
		cc, ok := c.(*countedConn)
		switch {
		case !ok:
			o.uncounted = true
		case o.out:
			// Given another connection after some of the call went out
			// on one: net/http is making it again on its own, which
			// GetBody refuses for a call with a body; this one has none.
			var e error = notSentAgain{cause: o.cause}
			cc.refuse.Store(&e)
		default:
			o.conn, o.at = cc, cc.written.Load()
			cc.kept.Store(o.kept)
			o.callNo = cc.given.Add(1)
			o.before = cc.lastSeq.Swap(o.seq)
			if info.Reused && o.kept.closing() {
				var e error = errNotKept
				cc.refuse.Store(&e)
			}
			cc.lookFirst.Store(info.Reused)
			o.answer = newAnswerWatch(o.method)
			o.answer.reused = info.Reused
			if !underTLS {
				// Under TLS the socket holds records, whose answer's
				// status cannot be told there: its answers are not held.
				o.write = write
				cc.callWrite.Store(write)
			}
		}
		if answers != nil {
			// Before the call is written: the answer's first byte is
			// read after (net/http closes an idle connection that
			// sent bytes nobody asked for).
			answers.watch.Store(o.answer)
		}
	}}
}

// bodyUnsent waits for the end of the write of the call whose answer was
// read, status, and says how the call was not sent whole, "" when it was
// (or cannot be told: a connection under TLS, an answer of 4xx or 5xx,
// which fails as it is). ctx bounds the wait.
func (o *onceOnly) bodyUnsent(ctx context.Context, status int) string {
	o.mu.Lock()
	w := o.write
	o.mu.Unlock()
	if w == nil || status >= 400 {
		return ""
	}
	select {
	case <-w.done:
	case <-ctx.Done():
		return ""
	}
	if w.err == nil {
		return ""
	}
	return fmt.Sprintf("the receiver answered %d before the call was sent whole (its write ended: %s): it never got the call whole", status, lineSafe(w.err.Error()))
}

// wroteLocked says some of the call may have gone out on the connection
// it was last given. o.mu is held.
func (o *onceOnly) wroteLocked() bool {
	return o.uncounted || o.conn != nil && o.conn.written.Load() > o.at
}

// wentOut says some of the call may have gone out to the receiver, on any
// try: false when no connection could be had, or none carried a byte.
func (o *onceOnly) wentOut() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.out || o.wroteLocked()
}

// framingFault says how the answer of the call's last try was framed as
// no HTTP/1.1 answer may be (answerWatch), "" when it was not or could
// not be told (a head over maxHeadKept; bytes past the answer's end that
// came after the read that reached it). Asked once the answer was read
// whole: its framing was judged by then, in the reads that took it.
// past says the fault was bytes after the answer's framed end.
func (o *onceOnly) framingFault() (how string, past bool) {
	o.mu.Lock()
	w := o.answer
	o.mu.Unlock()
	if w == nil {
		return "", false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fault, w.past
}

// framing is what an answer's head (after any 1xx heads) says of its
// body's framing, as it came on the wire: net/http's client drops a
// Content-Length beside a Transfer-Encoding before anyone sees it.
type framing struct {
	headLen                    int64 // the bytes of the heads, 1xx ones too
	status                     int
	contentLength, transferEnc bool
	// length is the Content-Length's value, -1 when there is none or it
	// is no length net/http reads (a client error then, not judged).
	length int64
}

// parseHeads reads the heads at the start of b, an answer's first bytes:
// any 1xx heads, then the answer's own. ok false when b holds no whole
// head of an HTTP/1.x answer.
func parseHeads(b []byte) (f framing, ok bool) {
	for {
		line, rest, found := bytes.Cut(b[f.headLen:], []byte("\n"))
		if !found || !bytes.HasPrefix(line, []byte("HTTP/1.")) || len(line) < 12 {
			return f, false
		}
		code, err := strconv.Atoi(string(line[9:12]))
		if err != nil {
			return f, false
		}
		n := int64(len(line) + 1)
		f.status, f.length = code, -1
		f.contentLength, f.transferEnc = false, false
		var length []byte // the first Content-Length's value
		for {
			line, rest, found = bytes.Cut(rest, []byte("\n"))
			if !found {
				return f, false
			}
			n += int64(len(line) + 1)
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(line) == 0 {
				break
			}
			name, value, _ := bytes.Cut(line, []byte(":"))
			switch {
			case asciiFold(name, "Content-Length"):
				value = bytes.Trim(value, " \t")
				switch {
				case !f.contentLength:
					length = value
					if v, err := strconv.ParseUint(string(value), 10, 63); err == nil {
						f.length = int64(v)
					}
				case !bytes.Equal(value, length):
					// Two that differ: net/http refuses the answer.
					f.length = -1
				}
				f.contentLength = true
			case asciiFold(name, "Transfer-Encoding"):
				f.transferEnc = true
			}
		}
		f.headLen += n
		if code >= 200 || code == http.StatusSwitchingProtocols {
			return f, true
		}
	}
}

// asciiFold says b is the field name s in any case, ASCII's only, as
// net/http's canonical form is made: Unicode's folding would take
// "Tranſfer-Encoding" (a long s) for one net/http never reads as such.
func asciiFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// judgeHead judges an answer's head, f, to a call of method: fault
// says how it was framed as no HTTP/1.1 answer may be (a Content-Length
// beside a Transfer-Encoding, RFC 9112 6.2), "" when it was not; end is
// the byte of the answer at which its body ends, -1 when that is not
// known from the head (chunked, until the close; what follows a 101 is
// another protocol's). Bytes past end are no call's (pastEnd).
func judgeHead(f framing, method string) (fault string, end int64) {
	if f.contentLength && f.transferEnc {
		return "with both Content-Length and Transfer-Encoding, which no HTTP/1.1 answer may have (RFC 9112 6.2): a sender may read its body by either", -1
	}
	switch {
	case method == http.MethodHead || f.status == http.StatusNoContent || f.status == http.StatusNotModified:
		return "", f.headLen
	case f.transferEnc || f.length < 0 || f.status == http.StatusSwitchingProtocols:
		return "", -1
	}
	return "", f.headLen + f.length
}

// pastEnd says how an answer, f its head, to a call of method was
// malformed that came with bytes after the end its head framed (a
// Content-Length short of the body it sent, a 204 or 304 with a body,
// an answer to HEAD with one). net/http's client reads the answer as
// framed and drops the rest with the connection, so the sender would get
// an answer that reads clean where send straight to the receiver counts
// bytes no call asked for.
func pastEnd(f framing, method string) string {
	switch {
	case method == http.MethodHead:
		return "to HEAD and sent bytes after its head, which frames no body: bytes no call asked for after an answer (an answer to HEAD with a body)"
	case f.status == http.StatusNoContent || f.status == http.StatusNotModified:
		return fmt.Sprintf("and sent bytes after its head, which a %d has no body after: bytes no call asked for after an answer (a %d with a body)", f.status, f.status)
	}
	return fmt.Sprintf("with Content-Length %d and sent bytes after that body: bytes no call asked for after an answer (a Content-Length short of its body)", f.length)
}

// malformedAnswer is the forward's error when the receiver's answer came
// whole as its head framed it and was no HTTP/1.1 answer (framingFault):
// listen could not pass it on as the receiver sent it.
type malformedAnswer struct {
	status int
	how    string
	// afterKnown says the answer, with bytes after its end, was read on a
	// kept-alive connection, after the answer to call #after (0: a call
	// whose # is not known). Such a receiver's bytes after that call's
	// answer (its second answer, written late) are read first for this
	// call, which went out before they came: the answer judged may be
	// that one, not this call's, and the words say so.
	after      uint64
	afterKnown bool
}

func (e malformedAnswer) Error() string {
	s := fmt.Sprintf("%s the receiver answered %d %s", malformedLead, e.status, e.how)
	if e.afterKnown {
		call := "an earlier call"
		if e.after != 0 {
			call = fmt.Sprintf("call #%d", e.after)
		}
		s += fmt.Sprintf("; read on a kept-alive connection after %s's answer, where bytes the receiver wrote after that answer come first: this %d may be the receiver's answer to %s (a second one), and this call's own the bytes after it", call, e.status, call)
	}
	return s
}

// keptAfter says the call's last try was given a kept-alive connection,
// and the seq of the call that connection carried before (0: not known).
func (o *onceOnly) keptAfter() (reused bool, before uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.reused, o.before
}

// malformedLead starts a malformedAnswer's words, as send's kind of such
// an answer is named.
const malformedLead = "malformed answer:"

// malformedHead is the forward's error when the receiver answered with
// bytes whose head is no HTTP/1.1 answer's (net/http's refusal of it,
// malformedhead.Refused, or a status under 100): its answer, malformed,
// which the summary counts as such, not as no answer.
type malformedHead struct{ err error }

func (e malformedHead) Error() string {
	return fmt.Sprintf("%s the receiver answered with a head that is no HTTP/1.1 answer's (%s)", malformedLead, e.err.Error())
}

func (e malformedHead) Unwrap() error { return e.err }

// MalformedKinds names each kind of framing the check finds malformed
// (judgeHead, pastEnd), for a summary that counts such answers.
const MalformedKinds = "a head that is no HTTP/1.1 answer's, a Content-Length short of its body, a 204 or 304 with a body, an answer to HEAD with a body, both Content-Length and Transfer-Encoding"

// IsMalformedAnswer says a forward whose error was forwardErr, as
// recorded (a call's forward, a fault's delivery), failed on an answer
// framed as no HTTP/1.1 answer may be (malformedAnswer): its words are
// all a record keeps of it.
func IsMalformedAnswer(forwardErr string) bool {
	return strings.HasPrefix(forwardErr, malformedLead)
}

// maxStaleTries is how often at least a forward is made again for a
// kept-alive connection the receiver had closed before the call went out,
// each time on another (staleTries): other forwards hand the pool back
// connections the receiver is about to close, so a small pool's own idle
// connections are not all a forward may meet.
const maxStaleTries = 16

// staleTries is how often a forward on client may be tried for kept-alive
// connections the receiver had closed. Each such connection is dropped as
// net/http's reader finds it closed, so once the pool's idle connections
// (newClient's MaxIdleConnsPerHost) are spent the call goes out on a new
// connection: the tries are one more than the pool holds. Another
// transport (a test's) keeps maxStaleTries.
func staleTries(client *http.Client) int {
	tr, ok := client.Transport.(*http.Transport)
	if !ok {
		return maxStaleTries
	}
	return max(maxStaleTries, tr.MaxIdleConnsPerHost+1)
}

// closedUnsent says the try that failed with err found that the receiver
// had closed the kept-alive connection it was given before any of the
// call went out: net/http's "server closed idle connection". net/http
// gives that error only when its reader met the receiver's FIN while no
// call was expected on the connection, and a call is expected before its
// first byte is written: the receiver closed first and never took this
// call (an HTTP/1.1 server reads no call after its own close). Making it
// again on a new connection is no second delivery; net/http does so for a
// GET, not for a POST. The error is unexported, so it is known by its
// exact text, wherever it sits in the chain; a byte counted out on the
// connection (wentOut) rules it out whatever the text.
func (o *onceOnly) closedUnsent(err error) bool {
	o.mu.Lock()
	reused := o.reused
	o.mu.Unlock()
	if !reused || o.wentOut() {
		return false
	}
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == "http: server closed idle connection" {
			return true
		}
	}
	return false
}

// failedOnKept says the call's last try was given a kept-alive
// connection and no byte of an answer came on it.
func (o *onceOnly) failedOnKept() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.reused && !o.answered
}

// getBody is the call's body again, for a try on which nothing was sent.
func (o *onceOnly) getBody() (io.ReadCloser, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.conn == nil {
		// A connection not counted (none of newClient's) may have
		// carried it: refused too.
		return nil, notSentAgain{}
	}
	if o.answered {
		// The receiver answered a 307 or 308 on conn: net/http's client
		// rewinds the body to follow it before CheckRedirect says it is
		// not followed. Refused, the receiver's redirect was answered
		// 502 as a connection that failed. The body never goes: no
		// redirect is followed, and a connection given the call after
		// some of it went out refuses its writes (trace).
		return io.NopCloser(bytes.NewReader(o.body)), nil
	}
	if o.conn.written.Load() > o.at {
		e := notSentAgain{}
		if p := o.conn.readErr.Load(); p != nil {
			e.cause = *p
		}
		return nil, e
	}
	return io.NopCloser(bytes.NewReader(o.body)), nil
}

// closedUnread says the call's last try went out on a kept-alive
// connection under TLS whose receiver sent its close_notify before any
// answer and then reset the connection on the call's bytes
// (countedConn.judgeUnread): it never read the call. ctx bounds the wait
// for the connection's look, which its close makes.
func (o *onceOnly) closedUnread(ctx context.Context) bool {
	o.mu.Lock()
	c, reused := o.conn, o.reused
	o.mu.Unlock()
	if c == nil || c.judged == nil || !reused || !c.underTLS || !c.closeNotified.Load() {
		return false
	}
	select {
	case <-c.judged:
		return c.neverRead.Load()
	case <-ctx.Done():
	}
	return false
}

// resetUnacked says the call's last try went out on a plain kept-alive
// connection that the receiver had closed, found open by the look before
// its first write (its FIN came just after), and that then reset with
// none of the call's bytes acknowledged (countedConn.judgeUnacked): the
// receiver's socket took none of them, and it never read the call.
func (o *onceOnly) resetUnacked() bool {
	o.mu.Lock()
	c, reused, answered := o.conn, o.reused, o.answered
	o.mu.Unlock()
	return c != nil && reused && !answered && !c.underTLS && c.unackedReset.Load()
}

// headCut says, of the call's last try, that the receiver closed or
// reset the connection in the middle of its answer's head: the bytes
// that came (a start of a head net/http reads, malformedhead.CutShort),
// where the head stopped, and how the connection ended. ok false when
// not so.
func (o *onceOnly) headCut() (cut headCutShort, ok bool) {
	o.mu.Lock()
	w := o.answer
	o.mu.Unlock()
	if w == nil {
		return cut, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.headRead || w.cutBy == nil {
		return cut, false
	}
	switch {
	case errors.Is(w.cutBy, io.EOF):
		cut.how = "closed"
	case errors.Is(w.cutBy, syscall.ECONNRESET):
		cut.how = "reset"
	default:
		return cut, false // listen's own close, a time limit's
	}
	where, ok := malformedhead.CutShort(w.head)
	if !ok {
		return cut, false
	}
	cut.where, cut.head = where, bytes.Clone(w.head)
	return cut, true
}

// headCutShort is the forward's error when the receiver closed (or
// reset) the connection in the middle of its answer's head (headCut): no
// whole answer came. net/http reads the line the close cut as a whole
// one and refuses it ("malformed MIME header: missing colon" of
// "Content-Le"), which read as a malformed answer the receiver sent
// whole; or says only "unexpected EOF".
type headCutShort struct {
	err   error
	how   string // "closed" or "reset"
	where string // malformedhead.CutShort's
	head  []byte // the bytes that came
}

func (e headCutShort) Error() string {
	where := map[string]string{
		"in the status line": "in the status line of its answer's head",
		"in a header line":   "in a header line of its answer's head",
	}[e.where]
	if where == "" {
		where = "before the end of its answer's head"
	}
	return fmt.Sprintf("the receiver %s the connection %s, after %d bytes (%s): no whole answer came (%s)", e.how, where, len(e.head), quoteHead(e.head), e.err.Error())
}

func (e headCutShort) Unwrap() error { return e.err }

// maxHeadQuoted bounds the bytes of a cut head an error quotes: a longer
// one is quoted by its last ones, where it stopped.
const maxHeadQuoted = 96

// quoteHead is head quoted, or its last maxHeadQuoted bytes when longer.
func quoteHead(head []byte) string {
	if len(head) <= maxHeadQuoted {
		return strconv.Quote(string(head))
	}
	return "ending " + strconv.Quote(string(head[len(head)-maxHeadQuoted:]))
}

// strayBefore says, of the call's last try, given a kept-alive
// connection, that the bytes read for its answer held an HTTP/1.x status
// line after n bytes that were none (stray: the first 16 of them) and
// the status the line says; status 0 when not. Bytes after an answer's
// framed end that came with it are judged there (answerWatch); these came
// later, after the next call was given the connection, and net/http read
// them as the start of its answer.
func (o *onceOnly) strayBefore() (stray []byte, n, status int) {
	o.mu.Lock()
	w, reused := o.answer, o.reused
	o.mu.Unlock()
	if w == nil || !reused {
		return nil, 0, 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.headRead || len(w.head) == 0 || bytes.HasPrefix(w.head, []byte("HTTP/")) {
		return nil, 0, 0
	}
	k := bytes.Index(w.head, []byte("HTTP/1."))
	if k <= 0 {
		return nil, 0, 0
	}
	line, _, _ := bytes.Cut(w.head[k:], []byte("\n"))
	if len(line) < 12 || line[8] != ' ' {
		return nil, 0, 0
	}
	code, err := strconv.Atoi(string(line[9:12]))
	if err != nil || code < 100 {
		return nil, 0, 0
	}
	return bytes.Clone(w.head[:min(k, 16)]), k, code
}

// strayBeforeAnswer is the forward's error when the receiver's answer to
// the call came after bytes no call asked for on its kept-alive
// connection (strayBefore): net/http read them as the answer's start and
// failed it ("malformed HTTP version"), which blamed the answer to this
// call, likely a clean one, for the bytes of an earlier one.
type strayBeforeAnswer struct {
	err       error
	stray     []byte // the first 16
	n, status int
}

func (e strayBeforeAnswer) Error() string {
	return fmt.Sprintf("%s: the receiver's bytes for this call began with %d bytes no call asked for (%q), then a status line %d: bytes that came after its answer to an earlier call on this kept-alive connection (an answer whose body ran past its Content-Length, or a second answer), which listen could not tell apart from an answer to this call",
		e.err.Error(), e.n, e.stray, e.status)
}

func (e strayBeforeAnswer) Unwrap() error { return e.err }

// answeredHTTP2 says the answer to the call's last try began with an
// HTTP/2 server's connection preface (http2Preface).
func (o *onceOnly) answeredHTTP2() bool {
	o.mu.Lock()
	w := o.answer
	o.mu.Unlock()
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.headRead && http2Preface(w.head)
}

// http2Preface says head, the first bytes an answer came with, is an
// HTTP/2 server's connection preface: a SETTINGS frame's header (RFC 9113
// 3.4, 6.5: type 0x4, no ACK flag, stream 0, a length of whole 6-byte
// settings), which no HTTP/1.1 status line starts with.
func http2Preface(head []byte) bool {
	if len(head) < 9 {
		return false
	}
	length := int(head[0])<<16 | int(head[1])<<8 | int(head[2])
	return head[3] == 0x4 && head[4] == 0 && head[5]&0x7f == 0 && head[6] == 0 && head[7] == 0 && head[8] == 0 && length%6 == 0
}

// http2Only is the forward's error when the receiver answered the call
// with an HTTP/2 server's connection preface (answeredHTTP2): it speaks
// HTTP/2 only, and read no HTTP/1.1 call. net/http's "malformed HTTP
// response" and listen's "it may hold it" read as a receiver that took
// the call and broke.
type http2Only struct{ err error }

func (e http2Only) Error() string {
	return e.err.Error() + ": the receiver answered with its HTTP/2 connection preface (a SETTINGS frame), not an HTTP/1.1 answer: it speaks HTTP/2 only, and never got the call (listen forwards over HTTP/1.1)"
}

func (e http2Only) Unwrap() error { return e.err }

// closedUnread is the forward's error when the receiver closed the
// kept-alive connection before it read the call (onceOnly.closedUnread):
// net/http's "EOF" alone read as a call the receiver may hold.
type closedUnread struct{ err error }

func (e closedUnread) Error() string {
	return e.err.Error() + ": the receiver closed the kept-alive connection (its close_notify) before it read the call, then reset it on the call's bytes: it never got the call (not sent again)"
}

func (e closedUnread) Unwrap() error { return e.err }

// resetUnacked is the forward's error when the receiver closed the plain
// kept-alive connection before the call reached it, and reset it on the
// call's bytes, none of them acknowledged (onceOnly.resetUnacked).
type resetUnacked struct{ err error }

func (e resetUnacked) Error() string {
	return e.err.Error() + ": the receiver closed the kept-alive connection before the call reached it, then reset it on the call's bytes, none of which it acknowledged: it never got the call (not sent again)"
}

func (e resetUnacked) Unwrap() error { return e.err }

// notSentAgain is the forward's error when its connection failed after
// (some of) the call went out and before an answer: net/http would have
// sent it again, and it is not. It stands in for the connection's error
// (cause, when a read says it), which net/http does not return then.
type notSentAgain struct{ cause error }

func (e notSentAgain) Error() string {
	s := "the connection to the receiver failed after the call went out, before an answer"
	if e.cause != nil {
		s = e.cause.Error() + ": " + s
	}
	return s + "; not sent again (the receiver may hold it)"
}

func (e notSentAgain) Unwrap() error { return e.cause }

// hopHeader counts the listens a call has been forwarded through.
const hopHeader = "Whsim-Forwarded"

// maxForwardHops is how many times a call may have been forwarded already
// for listen to forward it again; past it, the call is answered 508: listens
// forwarding to each other, directly or through a receiver that forwards
// on, would pass it round for ever.
const maxForwardHops = 3

// hopsOf is the call's hop count, 0 when it has none or it is not a count.
func hopsOf(h http.Header) int {
	n, err := strconv.Atoi(h.Get(hopHeader))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// hopHeaders belong to one connection, not to the call (RFC 9110 7.6.1), so
// they are not passed on in either direction.
var hopHeaders = []string{
	"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization",
	"Te", "Trailer", "Transfer-Encoding", "Upgrade", "Content-Length",
}

// copyHeader is src without its hop-by-hop headers: the fixed ones, and
// those its Connection header names, which belong to that connection as
// much as Connection does (RFC 9110 7.6.1): a receiver's "Connection:
// X-Trace" would otherwise pass its connection's X-Trace on to the sender,
// and a sender's to the receiver.
func copyHeader(src http.Header) http.Header {
	h := src.Clone()
	if h == nil {
		h = http.Header{}
	}
	for _, v := range src["Connection"] {
		for name := range strings.SplitSeq(v, ",") {
			if name = textproto.TrimString(name); name != "" {
				delete(h, textproto.CanonicalMIMEHeaderKey(name))
			}
		}
	}
	for _, k := range hopHeaders {
		delete(h, k)
	}
	return h
}

// target is the URL a call goes on to, as named (the record's forward
// URL, an error's words): ForwardTo's path when it has one, else the
// call's own path; the call's query, after ForwardTo's own. sent is the
// same URL as the request line writes it: the call's own path and query
// byte for byte as its sender wrote them, as replay sends them. url.URL
// escapes a path's raw '#' or byte above 0x7f, which net/http's server
// keeps as it came: the receiver would get /a%23b for /a#b, another path
// to one that routes on the path as sent.
func target(base *url.URL, req *http.Request) (named, sent *url.URL) {
	u := *base
	path, query, hasQuery := sentTarget(req)
	path, query = lineSafe(path), lineSafe(query)
	own := u.Path == "" || u.Path == "/"
	if own {
		u.Path, u.RawPath = req.URL.Path, req.URL.RawPath
	}
	switch {
	case u.RawQuery == "" && !u.ForceQuery:
		// "/p?" goes as "/p?", not "/p".
		u.RawQuery, u.ForceQuery = query, hasQuery && query == ""
	case query != "":
		u.RawQuery += "&" + query
	}
	s := u
	if own && path != u.EscapedPath() && !strings.HasPrefix(path, "//") {
		// The request line writes Opaque as it is, the query after it.
		// (One that starts "//" would be written as "http://...", an
		// absolute URL: such a path goes escaped as url.URL escapes it.)
		s.Opaque = path
	}
	// The name writes the query's '#' as %23, as url.URL does the path's:
	// raw, it starts a fragment to whatever reads the name as a URL (the
	// record's forward url, http.NewRequest here), the query cut there,
	// and a '%' after it that starts no escape made the name no URL at
	// all, so the call was answered 502 and never went on.
	u.RawQuery = strings.ReplaceAll(u.RawQuery, "#", "%23")
	return &u, &s
}

// lineSafe is s with each byte an HTTP/1.1 request line cannot hold (a
// space, a control character) as %XX, s itself when it has none, as
// nearly every target. An HTTP/1.1 sender cannot send them, but an
// HTTP/2 one can in its :path, which Go's server takes: written raw, the
// space would end the target and the receiver read another request line.
func lineSafe(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// sentTarget is the request target of req as its request line wrote it
// (RequestURI, the :path of HTTP/2): its path, its query and whether it
// had a '?'. A target in absolute form (http://host/p?q, as to a proxy)
// gives the path and query after its authority.
func sentTarget(req *http.Request) (path, query string, hasQuery bool) {
	t := req.RequestURI
	if !strings.HasPrefix(t, "/") {
		if _, rest, ok := strings.Cut(t, "://"); ok {
			if i := strings.IndexAny(rest, "/?"); i >= 0 {
				t = rest[i:]
			} else {
				t = ""
			}
		} else {
			// "*" (OPTIONS *), or no target known (a handler called
			// without a server).
			t = req.URL.RequestURI()
		}
	}
	path, query, hasQuery = strings.Cut(t, "?")
	if path == "" {
		path = req.URL.EscapedPath()
	}
	return path, query, hasQuery
}

// forward sends the call on and returns the answer to give the sender:
// the receiver's own, or 502 when it could not be reached; and whether
// any of the call went out to the receiver (false: it was sent nothing).
func (r *Receiver) forward(ctx context.Context, req *http.Request, body []byte) (answer, *capture.Forward, bool) {
	return r.forwardAnswer(ctx, req, body, keepAnswer)
}

// forwardCopy sends a copy of the call whose answer no one is given nor
// records (a fault's second or later copy): its status, headers and
// latency are kept, its body is read to its end, checked against the
// limit and not kept, so that a burst of copies holds one answer in
// memory, not one per copy.
func (r *Receiver) forwardCopy(ctx context.Context, req *http.Request, body []byte) (answer, *capture.Forward, bool) {
	return r.forwardAnswer(ctx, req, body, dropAnswer)
}

// keepAnswer and dropAnswer say, as the receiver's answer comes, whether
// the forward keeps its body (the sender's, the record's) or reads it
// through and drops it (a copy no one is given).
func keepAnswer() bool { return true }
func dropAnswer() bool { return false }

// forwardAnswer forwards the call; keep, asked once as the receiver's
// answer comes, says whether its body is kept (a burst's copies keep the
// first to come).
func (r *Receiver) forwardAnswer(ctx context.Context, req *http.Request, body []byte, keep func() bool) (answer, *capture.Forward, bool) {
	named, u := target(r.cfg.ForwardTo, req)
	fwd := &capture.Forward{URL: named.String()}
	var once *onceOnly // the try's: a try made again after one the receiver never read has its own
	newRequest := func(fresh bool) (*http.Request, error) {
		if once == nil || fresh {
			once = &onceOnly{body: body, method: req.Method, kept: &r.kept}
			if c, ok := ctx.Value(answerHolderKey{}).(*Call); ok && c != nil {
				once.seq = c.Seq
			}
		}
		out, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, once.trace()), req.Method, named.String(), bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		// The URL as parsed, not as text: a '#' the call's query holds
		// (its sender's server read it so, as listen recorded it) would
		// start a fragment there, never sent; and the path as sent.
		out.URL = u
		out.Header = copyHeader(req.Header)
		out.Header[hopHeader] = []string{strconv.Itoa(hopsOf(req.Header) + 1)}
		if _, ok := out.Header["User-Agent"]; !ok {
			// net/http sends its own User-Agent on a call without one,
			// but none for an empty one: the sender sent none.
			out.Header["User-Agent"] = []string{""}
		}
		out.ContentLength = int64(len(body))
		out.GetBody = once.getBody
		// Kept, the connection races the receiver's next close
		// (keptConns).
		out.Close = r.kept.closing()
		if len(body) == 0 {
			out.Body, out.GetBody = http.NoBody, nil
		}
		return out, nil
	}
	start := time.Now()
	var resp *http.Response
	var err error
	// The receiver had closed the kept-alive connection before any of
	// the call went out (its idle timeout, as Node's 5 s, or a close after
	// every answer): it never got the call, which is made again, as
	// net/http does for a GET but not for a POST. net/http's reader
	// dropped that connection as it found it closed; the pool's others
	// are left alone: net/http puts a connection back idle before it
	// hands a bodyless answer to its call, and closing it then failed a
	// forward the receiver answered ("CloseIdleConnections called").
	// The tries outnumber the pool's idle connections (staleTries), so
	// that against a receiver that closes every one the last goes out on
	// a new connection.
	// So is a call whose bytes went out on a kept-alive connection under
	// TLS the receiver had closed (its close_notify) and then reset with
	// them unread (closedUnread): it never read it, as an HTTP/1.1 server
	// reads no call after its own close; answered 502, "never got the
	// call (not sent again)", the sender got an error of listen's pool,
	// not of its receiver (found by fw45). That try's bytes are no
	// delivery: the try made again starts afresh (its own onceOnly).
	tries := staleTries(r.cfg.Client)
	fresh := false
	for try := 1; ; try++ {
		var out *http.Request
		out, err = newRequest(fresh)
		if err != nil {
			fwd.Error = err.Error()
			return plain(http.StatusBadGateway), fwd, false
		}
		resp, err = r.cfg.Client.Do(out)
		if err == nil || try == tries || ctx.Err() != nil {
			break
		}
		if once.closedUnsent(err) {
			r.kept.sawClose()
			fresh = false
			continue
		}
		if once.wentOut() && (once.resetUnacked() || once.closedUnread(ctx)) {
			r.kept.sawClose()
			fresh = true
			continue
		}
		break
	}
	// The receiver answered: the call went out, whatever the count of
	// its bytes says yet. net/http hands over an answer it reads whole
	// without waiting for the end of the call's write, whose bytes are
	// counted as the write returns: an answer with status 042 (made no
	// answer below) read as a call none of which went out, one forward in
	// a hundred, with no "it may hold it" and not counted sent (found by
	// fx47, TestForwardMalformedHead's status under 100).
	answered := resp != nil
	if err == nil && resp.StatusCode < 100 {
		// net/http's client takes a status line's 000 to 099 as a code,
		// which its server cannot write (WriteHeader panics: the sender's
		// connection closed with no answer, and no line for the call).
		// The receiver took the call and gave no answer a sender reads.
		resp.Body.Close()
		err = malformedHead{err: forwardError(fmt.Sprintf("status code %03d, which is no HTTP status (100 to 999)", resp.StatusCode))}
		resp = nil
	}
	if err == nil {
		var rb []byte
		var n int64
		keepBody := keep()
		if keepBody {
			rb, err = r.readAnswer(ctx, resp.Body, resp.ContentLength)
			n = int64(len(rb))
			if errors.Is(err, errBusy) {
				err = fmt.Errorf("the receiver answered %d, and listen had no room to read its answer (%w)", resp.StatusCode, err)
			}
		} else {
			n, err = io.Copy(io.Discard, io.LimitReader(resp.Body, r.cfg.MaxBody+1))
		}
		resp.Body.Close()
		cut := ""
		switch {
		case err == nil && n > r.cfg.MaxBody:
			// The receiver answered, and took the call: its status goes
			// to the sender with the body cut at the limit, and says so.
			// A 502 in its place read as a receiver that never took the
			// call, and the sender sent it again.
			// (A copy's answer is read through and kept by no one.)
			if keepBody {
				cut = bodyCutWords(r.cfg.MaxBody, "the sender got, and the record holds, its first %d bytes")
				rb = rb[:r.cfg.MaxBody]
			}
		case errors.Is(err, errBusy):
		case err != nil:
			err = answerCutShort{status: resp.StatusCode, got: n, length: resp.ContentLength, err: err}
		default:
			if how, past := once.framingFault(); how != "" {
				ma := malformedAnswer{status: resp.StatusCode, how: how}
				if reused, before := once.keptAfter(); past && reused {
					ma.after, ma.afterKnown = before, true
				}
				err = ma
				if past {
					// Bytes after its end: more may come later, whole,
					// and be read as the next call's answer.
					r.kept.sawStray()
				}
			}
		}
		if err == nil {
			if why := once.bodyUnsent(ctx, resp.StatusCode); why != "" {
				err = forwardError(why)
			}
		}
		if err == nil {
			fwd.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
			fwd.Status = resp.StatusCode
			fwd.Headers = copyHeader(resp.Header)
			fwd.Body, fwd.BodyEncoding = capture.EncodeBody(rb)
			fwd.BodyCut = cut
			return answer{status: resp.StatusCode, header: fwd.Headers, body: rb}, fwd, true
		}
	}
	// An answer that began to come (cut short, too large) was to a call
	// the receiver got.
	sent := answered || once.wentOut()
	if resp == nil && sent && ctx.Err() == nil && !timedOut(err) && once.failedOnKept() {
		// The receiver closed or reset a kept connection with the call
		// on it, before any answer: the race keptConns ends.
		r.kept.sawClose()
	}
	if resp == nil && sent && ctx.Err() == nil {
		if stray, n, status := once.strayBefore(); status != 0 {
			err = strayBeforeAnswer{err: err, stray: stray, n: n, status: status}
			// More would fail the next call on each connection kept.
			r.kept.sawStray()
		}
	}
	if cut, ok := once.headCut(); ok && resp == nil && sent && ctx.Err() == nil && !errors.As(err, new(strayBeforeAnswer)) {
		// The receiver's close cut its head: no whole answer, not a
		// malformed one (net/http refuses the line the close cut).
		cut.err = err
		err = cut
	}
	if resp == nil && sent && ctx.Err() == nil && once.answeredHTTP2() {
		// No HTTP/1.1 server writes that: the receiver took the call's
		// bytes for a bad HTTP/2 preface, and read no call.
		err = http2Only{err: err}
		sent = false
	}
	if resp == nil && sent && ctx.Err() == nil && malformedhead.Refused(err) && !errors.As(err, new(strayBeforeAnswer)) && !errors.As(err, new(headCutShort)) {
		// The receiver answered, with a head net/http would not read:
		// its answer, malformed, not a forward that got none.
		err = malformedHead{err: err}
	}
	if resp == nil && sent && ctx.Err() == nil && once.resetUnacked() {
		// Its bytes went out, and the receiver never read them: no call
		// it got. (The last of the tries: earlier ones are made again.)
		err = resetUnacked{err: err}
		sent = false
	} else if resp == nil && sent && ctx.Err() == nil && once.closedUnread(ctx) {
		err = closedUnread{err: err}
		sent = false
	}
	fwd.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	if cut := stopCause(ctx); cut != nil && !isStopCut(err) {
		// net/http's client says the cause of a canceled call, but not
		// every error of a call cut short is that one.
		err = fmt.Errorf("%w: %w", cut, err)
	} else if cut == nil && ctx.Err() != nil {
		// The sender closed its connection, which ends the forward:
		// net/http says only "context canceled", which reads as a
		// receiver never reached.
		what := "none of the call had gone out"
		if sent {
			what = "the call had gone out to the receiver (it may hold it)"
		}
		err = fmt.Errorf("%w before the receiver answered; %s: %w", errSenderGaveUp, what, err)
	}
	ans := plain(http.StatusBadGateway)
	if resp != nil {
		ans.receiverStatus = resp.StatusCode
		ans.malformed = errors.As(err, new(malformedAnswer))
	} else if ctx.Err() == nil && sent && timedOut(err) {
		// The receiver took the call and gave no answer in time: a
		// gateway timeout, not a receiver never reached (net/http's
		// words alone read as that), and it may hold the call.
		ans = plain(http.StatusGatewayTimeout)
		limit := "in time"
		if t := r.cfg.Client.Timeout; t > 0 {
			limit = "within " + t.String()
		}
		err = fmt.Errorf("the receiver did not answer %s; the call had gone out to the receiver (it may hold it): %w", limit, err)
	} else if ctx.Err() == nil && sent && !errors.As(err, new(notSentAgain)) {
		// No answer came to a call that went out (a receiver that
		// crashed on it or reset it, a head net/http would not read):
		// net/http's "connection reset by peer" or "EOF" alone reads as
		// a receiver never reached.
		err = fmt.Errorf("%w; the call had gone out to the receiver (it may hold it)", err)
	}
	fwd.Error = err.Error()
	return ans, fwd, sent
}

// bodyCutWords is a forward's BodyCut at limit: its answer's body was
// over it, and held says what became of its first limit bytes (a format
// of the count).
func bodyCutWords(limit int64, held string) string {
	return fmt.Sprintf("the receiver's answer body was over the body limit (%d bytes): "+held, limit, limit)
}

// notPassedOn is BodyCut for an answer cut at limit that its sender did
// not get (why: what it got instead).
func notPassedOn(limit int64, why string) string {
	return bodyCutWords(limit, "the record holds its first %d bytes; the sender got none of it ("+why+")")
}

// timedOut says err is a time limit's: the client's, or its wait for the
// answer's head.
func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// answerHolderKey is the context key of the call (a *Call) whose
// forwarded answer is being read: its body's share of the budget is held
// with the call's own, until the call has been observed.
type answerHolderKey struct{}

// readAnswer reads the receiver's answer body (length is its
// Content-Length, -1 when not declared) up to one byte over MaxBody, as
// readBody reads a call's: an answer that outgrows initialBody first takes
// its whole size (its length, else MaxBody) from the body budget, held by
// the call in ctx until it has been observed. The answer stays with the
// call (the sender's answer, the record's response and forward) until
// then: without the budget, 50 senders each given a 9 MB answer held
// listen at 3 GB.
func (r *Receiver) readAnswer(ctx context.Context, body io.Reader, length int64) ([]byte, error) {
	limit := r.cfg.MaxBody
	want := length
	if length < 0 || length > limit {
		want = limit + 1 // one byte over says it is too large
	}
	// The call's own body may hold part of the budget already: the
	// answer takes at most what is left beside it (room), so that the two
	// never need more than the budget in all, which the call would wait
	// for in vain. A forward with no call to hold a share (made outside
	// ServeHTTP) takes none.
	holder, _ := ctx.Value(answerHolderKey{}).(*Call)
	room := int64(0)
	if holder != nil {
		room = r.cfg.BodyBudget - holder.reserved
	}
	buf := make([]byte, 0, min(want, initialBody))
	reserved := false
	for int64(len(buf)) < want {
		if len(buf) == cap(buf) {
			if need := min(want, room); !reserved && need > 0 {
				wctx, cancel := context.WithTimeout(ctx, budgetWait)
				err := r.budget.Acquire(wctx, need)
				cancel()
				if err != nil {
					if ctx.Err() != nil {
						return buf, ctx.Err()
					}
					return buf, errBusy
				}
				// One forward reads the answer it keeps at a time per
				// call, on the handler's goroutine or one it waits for.
				holder.reserved += need
				reserved = true
			}
			grown := make([]byte, len(buf), min(want, 2*int64(cap(buf))))
			copy(grown, buf)
			buf = grown
		}
		m, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

type forwardError string

func (e forwardError) Error() string { return string(e) }

// answerCutShort is the forward's error when the receiver's answer began
// (its status came, so it took the call) and its body did not come whole.
// The read's own error ("unexpected EOF") alone reads as a receiver never
// reached.
type answerCutShort struct {
	status      int
	got, length int64 // length -1: not declared (chunked, or until close)
	err         error
}

func (e answerCutShort) Error() string {
	of := ""
	if e.length >= 0 {
		of = fmt.Sprintf(" of %d", e.length)
	}
	return fmt.Sprintf("the receiver answered %d, then its answer was cut short after %d%s bytes of body: %v", e.status, e.got, of, e.err)
}

func (e answerCutShort) Unwrap() error { return e.err }
