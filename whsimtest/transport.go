package whsimtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/termsafe"
)

// inMemory is an http.RoundTripper that hands each request to a handler's
// ServeHTTP, as a server would after reading it off a connection: the
// handler runs in a goroutine of its own (so copies sent at once meet in
// the handler at once, as they do over TCP), with a request carrying the
// headers a Go client puts on the wire and a context of its own that ends
// when the call does. The answer is whole when the handler returns; a
// handler still running at the call's time limit is a timeout, and is left
// to finish, as net/http leaves it (the run waits for it: see running).
//
// It is no *http.Transport, so package attempt never takes its
// raw-socket fast path: every call goes through http.Client.Do and here.
type inMemory struct {
	h      http.Handler
	panics *panics
	// running counts the handler calls not yet returned, which a run
	// waits for before it ends.
	running *running
	// held, when set (by tests), runs where a loaded machine may hold the
	// caller before it waits for the handler (a stand-in for the
	// scheduler), with the call's context and whether the handler has
	// returned.
	held func(ctx context.Context, returned func() bool)
	// server is what a handler finds under http.ServerContextKey, as
	// behind net/http's server: one that reads its settings there (or
	// asserts it, as frameworks do, without a check) must not panic in
	// memory only. It serves h, as httptest.Server's Config does, and
	// is never started.
	server *http.Server
	// held lists the calls the handler still held when the run stopped
	// before go test's -timeout (errNearDeadline), which no case grades:
	// the test names them.
	heldMu   sync.Mutex
	heldDone []string
}

// stoppedHolding notes req, whose handler had not answered when the run
// stopped before go test's -timeout.
func (tr *inMemory) stoppedHolding(req *http.Request, body []byte) {
	if !errors.Is(context.Cause(req.Context()), errNearDeadline) {
		return
	}
	call := callName(req, body)
	tr.heldMu.Lock()
	defer tr.heldMu.Unlock()
	tr.heldDone = append(tr.heldDone, call)
}

// callName is a call as the test names one the handler held: its method,
// path and query, and the requestId of its body.
func callName(req *http.Request, body []byte) string {
	call := req.Method + " " + termsafe.Text(req.URL.RequestURI())
	if id := reqid.Read(body); id != "" {
		call += " (requestId " + termsafe.Text(id) + ")"
	}
	return call
}

// stoppedHeld is what stoppedHolding noted.
func (tr *inMemory) stoppedHeld() []string {
	if tr == nil {
		return nil // over the network (CheckURL)
	}
	tr.heldMu.Lock()
	defer tr.heldMu.Unlock()
	return slices.Clone(tr.heldDone)
}

// newInMemory is the transport of a run whose calls go to h.
func newInMemory(h http.Handler) *inMemory {
	return &inMemory{h: h, panics: &panics{}, running: &running{}, server: &http.Server{Handler: h}}
}

// remoteAddr is the peer a handler sees: TEST-NET-1, as httptest's.
// localAddr is the address it was reached on (http.LocalAddrContextKey,
// which net/http's server always sets): TEST-NET-1 too, port 80 of the
// in-memory host's http:// URL.
const (
	remoteAddr = "192.0.2.1:1234"
	localAddr  = "192.0.2.2:80"
)

func (tr *inMemory) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	// The request is "written": a sender reusing its body buffer waits
	// for this, as it waits for a transport's write.
	if trace := httptrace.ContextClientTrace(req.Context()); trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{})
	}
	if t := check.TogetherIn(req.Context()); t != nil {
		// Copies sent at once start their handlers together.
		t.Arrive(req.Context())
	}
	sreq, cancel, err := serverRequest(req, body, tr.server)
	if err != nil {
		return nil, err
	}
	// What net/http's server closes when the handler returns (or flushes):
	// the body it gave, whatever the handler put in its place.
	reqBody := sreq.Body
	w := &answerWriter{header: http.Header{}, call: sreq.Context(), reqBody: reqBody, taken: make(chan struct{}),
		usedLate: func() { tr.panics.late(sreq, debug.Stack()) }}
	w.reqData, _ = reqBody.(*serverBody)
	type served struct {
		err error
		// live: the call's time limit had not passed when the handler
		// returned (seen by its own goroutine, at once).
		live bool
	}
	done := make(chan served, 1)
	uncount := tr.running.add(func() string { return callName(req, body) })
	go func() {
		defer uncount()
		defer cancel()
		// Unless serve returns, the handler ended its goroutine
		// (runtime.Goexit: t.Fatal in a handler), which net/http's
		// server meets by closing the connection: the deferred send
		// answers the call at once, as that.
		res := served{err: errGoexit}
		defer func() {
			res.live = req.Context().Err() == nil
			done <- res
		}()
		// Closed before the answer is taken: a goroutine the handler
		// left reading it fails, as behind a server, however it races.
		defer reqBody.Close()
		defer w.handlerReturned()
		res.err = tr.serve(w, sreq)
	}()
	if tr.held != nil {
		tr.held(req.Context(), func() bool { return len(done) > 0 })
	}
	select {
	case res := <-done:
		if w.hijacked() {
			// Its answer is what it wrote on the connection, whether
			// it returned or panicked (net/http's server leaves a
			// hijacked connection alone either way).
			return w.hijackedAnswer(req)
		}
		if res.live {
			return tr.answer(w, req, res.err)
		}
		// It returned after the time limit (when its context ended):
		// a loaded machine held the caller until then, and with both
		// ready the wait picked this one at random. The client gave up
		// first: a timeout, never the 200 of a handler that wrote nothing.
		return tr.late(w, req)
	case <-w.taken:
		return w.hijackedAnswer(req)
	case <-req.Context().Done():
		// A handler that returned within the time limit answered, though
		// this goroutine looks only now: a select with both ready picks
		// one at random, and a loaded machine may hold the caller past
		// the limit after the handler returned. One that returned after
		// the limit (ending with its context) did not.
		select {
		case res := <-done:
			if res.live && !w.hijacked() {
				return tr.answer(w, req, res.err)
			}
		default:
		}
		tr.stoppedHolding(req, body)
		return tr.late(w, req)
	}
}

// late is what a call whose time limit passed before its handler
// answered got: what the handler had sent of its answer by then, else
// the time limit's error.
func (tr *inMemory) late(w *answerWriter, req *http.Request) (*http.Response, error) {
	// A handler that took the connection over answers on it; the
	// time limit passed before its answer came.
	if w.abandon() {
		return nil, req.Context().Err()
	}
	if resp := w.unfinished(req); resp != nil {
		return resp, nil
	}
	return nil, req.Context().Err()
}

// answer is what a call whose handler returned err got: err is a panic
// or the end of its goroutine, a connection closed, with the answer's
// head when the handler had written it.
func (tr *inMemory) answer(w *answerWriter, req *http.Request, err error) (*http.Response, error) {
	if err != nil {
		if resp := w.diedAfterHead(req); resp != nil {
			return resp, nil
		}
		return nil, err
	}
	return w.response(req), nil
}

// serve runs the handler, turning a panic into what a client of a
// net/http server meets: a connection closed without an answer.
func (tr *inMemory) serve(w *answerWriter, r *http.Request) (err error) {
	returned := false
	defer func() {
		p := recover()
		if p == nil {
			if !returned {
				tr.panics.exit(r, debug.Stack(), w.headOut())
			}
			return
		}
		if p != http.ErrAbortHandler {
			tr.panics.add(r, p, debug.Stack(), w.headOut())
		}
		err = fmt.Errorf("the handler panicked (%v): %w", p, io.EOF)
	}()
	tr.h.ServeHTTP(w, r)
	returned = true
	return nil
}

// errGoexit is what a call whose handler ended its goroutine got: as from
// net/http's server, a connection closed without an answer.
var errGoexit = fmt.Errorf("the handler ended its goroutine (runtime.Goexit): %w", io.EOF)

// serverRequest is req as a handler behind net/http's server sees it.
func serverRequest(req *http.Request, body []byte, server *http.Server) (*http.Request, context.CancelFunc, error) {
	uri := req.URL.RequestURI()
	u, err := url.ParseRequestURI(uri)
	if err != nil {
		return nil, nil, err
	}
	h := req.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	// What a Go client writes on the wire besides the caller's headers.
	if _, ok := h["User-Agent"]; !ok {
		h["User-Agent"] = []string{"Go-http-client/1.1"}
	}
	if len(body) > 0 || req.Method == http.MethodPost || req.Method == http.MethodPut || req.Method == http.MethodPatch {
		h["Content-Length"] = []string{strconv.Itoa(len(body))}
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	// The handler's context is its own: the caller's values (its trace
	// hooks) stay on the caller's side; only the end of the call crosses.
	// A call's own address value: a handler may change what it is given.
	local := net.Addr(&net.TCPAddr{IP: net.IPv4(192, 0, 2, 2), Port: 80})
	ctx := context.WithValue(context.WithValue(context.Background(), http.ServerContextKey, server), http.LocalAddrContextKey, local)
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(req.Context(), cancel)
	sreq := (&http.Request{
		Method: req.Method, URL: u, RequestURI: uri, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Host: host, RemoteAddr: remoteAddr, ContentLength: int64(len(body)), Body: http.NoBody,
	}).WithContext(ctx)
	if len(body) > 0 {
		sreq.Body = &serverBody{r: bytes.NewReader(body)}
	}
	return sreq, func() { stop(); cancel() }, nil
}

// serverBody is a request body as net/http's server gives it to a
// handler: readable until the handler closes it or returns, then every
// Read fails with http.ErrBodyReadAfterClose. A receiver that answers at
// once and reads the body in a goroutine of its own loses each document
// behind a server; in memory it must too, not pass.
type serverBody struct {
	mu     sync.Mutex // a goroutine the handler left may read as it returns
	r      *bytes.Reader
	closed bool
}

func (b *serverBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	return b.r.Read(p)
}

// unread is what the handler has not read of the body, as the reader of
// a connection it hijacked holds it: readable however the body is
// closed, sharing its place with it.
func (b *serverBody) unread() io.Reader { return unreadBody{b} }

type unreadBody struct{ b *serverBody }

func (u unreadBody) Read(p []byte) (int, error) {
	u.b.mu.Lock()
	defer u.b.mu.Unlock()
	return u.b.r.Read(p)
}

func (b *serverBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	return nil
}

// errAbandoned is what a handler's writes get once its call has ended
// without it (a timeout): the client has gone, as over a connection.
var errAbandoned = errors.New("whsimtest: the call ended before the handler did (its time limit passed)")

// errTooLong is what a handler writing more than a sender reads gets.
var errTooLong = errors.New("whsimtest: answer body longer than a sender reads")

// answerWriter is the ResponseWriter of one call. Only the handler's
// goroutine writes it; the caller reads it after the handler returned.
type answerWriter struct {
	// call is the handler's context, which ends when the sender gives up
	// (or the handler returns): what CloseNotify tells.
	call context.Context
	// reqBody is the request's body, which a flush drops unless the
	// handler asked for full duplex.
	reqBody io.Closer

	mu       sync.Mutex
	header   http.Header
	sent     http.Header // the header as of the first write
	code     int
	body     bytes.Buffer
	gone     bool
	overflow bool
	duplex   bool
	// headWritten says the head was written before the handler
	// returned (a Flush, or a body past bufferBeforeChunking): the status
	// and headers are fixed, the body chunked unless its length was
	// declared, and the request's body dropped unless full duplex.
	headWritten bool
	flushed     bool // the head went to the sender before the handler returned
	// held is the body in the server's 2 KB buffer (bufferBeforeChunking),
	// not yet handed on to the connection: a handler that panics or ends
	// its goroutine loses it, while what was handed on reaches the sender.
	held int
	// total is the body the handler wrote, kept or not.
	total int64
	// served says the handler has returned: a Hijack after it is
	// refused, as net/http's server refuses it, and a use of the writer
	// after it is said (usedLate), once per call (saidLate).
	served   bool
	saidLate bool
	usedLate func()
	// taken is closed when the handler takes the connection over
	// (Hijack), and sender is then the sender's end of it. reqData is
	// the request's body, of which the connection's reader still holds
	// what the handler has not read.
	taken   chan struct{}
	sender  net.Conn
	reqData *serverBody
	// framed says the handler declared the body's length (Content-Length
	// in the head): declared, of which written have been written.
	framed            bool
	declared, written int64
}

func (w *answerWriter) Header() http.Header { return w.header }

func (w *answerWriter) WriteHeader(code int) {
	// As net/http: a code no status line can carry is the handler's bug.
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.lateLocked() || w.code != 0 || w.gone || w.sender != nil {
		return
	}
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		return // an informational answer; the final one comes later
	}
	w.code = code
	w.sent = w.header.Clone()
	if cl := w.sent.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n >= 0 {
			w.framed, w.declared = true, n
		} else {
			w.sent.Del("Content-Length") // as net/http's server drops one it cannot read
		}
	}
}

func (w *answerWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	n, dropBody, err := w.keep(b)
	if dropBody {
		w.reqBody.Close()
	}
	return n, err
}

// keep keeps what Write is given, as net/http's server takes it, and says
// whether the request's body is to be dropped now: the write took the
// body past the server's buffer, so the head is written.
func (w *answerWriter) keep(b []byte) (n int, dropBody bool, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.lateLocked():
		return 0, false, errUsedAfterReturn
	case w.sender != nil:
		return 0, false, http.ErrHijacked
	case w.gone:
		return 0, false, errAbandoned
	}
	if !bodyAllowed(w.code) {
		return 0, false, http.ErrBodyNotAllowed
	}
	if w.framed {
		// As net/http's server: a write that would run past the
		// declared length is refused whole, and so is every one after.
		w.written += int64(len(b))
		if w.written > w.declared {
			return 0, false, http.ErrContentLength
		}
	}
	// A sender reads at most MaxBodyRead bytes of an answer; one byte
	// more tells it the answer ran over, and the rest is never read.
	n = len(b)
	if room := attempt.MaxBodyRead + 1 - w.body.Len(); n > room {
		n, err = max(room, 0), errTooLong
		w.overflow = true
	}
	w.body.Write(b[:n])
	w.total += int64(len(b))
	w.holdLocked(len(b))
	// As net/http's server: past its buffer the head is written, and
	// past its connection's the sender has it.
	if w.total > bufferBeforeChunking {
		dropBody = w.writeHeadLocked()
	}
	if w.total > connBuffer {
		w.flushed = true
	}
	return n, dropBody, err
}

// bufferBeforeChunking is the body net/http's server holds before it
// writes the head (its bufferBeforeChunkingSize): a handler that writes
// more has its status and headers fixed, its answer chunked unless it
// declared the length, and the rest of its request's body dropped unless
// it asked for full duplex, as by a Flush. A handler that reads the body
// after writing 2 KB of answer finds it gone, in memory as over TCP.
const bufferBeforeChunking = 2048

// connBuffer is the buffer net/http's server writes a connection
// through: the head written sits there, not sent, till a Flush or till
// it fills, which a body past 4 KB does (over TCP a little sooner, by
// the size of the head itself). Only then has a sender the head, and a
// handler still running at the time limit has given it an answer
// unfinished rather than none.
const connBuffer = 4096

// writeHeadLocked writes the head, as net/http's server does at a Flush
// or once its buffer overflows: the status and headers as of WriteHeader,
// with a Content-Type sniffed from the body so far (none when nothing was
// written). It says whether the request's body is to be dropped now (the
// head was not written before, and the handler did not ask for full
// duplex). w.mu is held.
func (w *answerWriter) writeHeadLocked() (dropBody bool) {
	if w.headWritten {
		return false
	}
	w.headWritten = true
	if _, ok := w.sent["Content-Type"]; !ok && bodyAllowed(w.code) && w.body.Len() > 0 && w.sent.Get("Transfer-Encoding") == "" {
		w.sent.Set("Content-Type", http.DetectContentType(w.body.Bytes()))
	}
	return !w.duplex
}

// holdLocked takes n bytes written into the server's buffer as
// bufio.Writer takes them: a write that does not fit fills the buffer and
// hands it on, one larger than it into an empty buffer goes straight on,
// and the rest stays held. w.mu is held.
func (w *answerWriter) holdLocked(n int) {
	for n > bufferBeforeChunking-w.held {
		if w.held == 0 {
			return // straight on to the connection
		}
		n -= bufferBeforeChunking - w.held
		w.held = 0
	}
	w.held += n
}

// Flush fixes the status line and headers as net/http's server's sends
// them: 200 unless the handler wrote one, so that a status written after
// it is too late, and a handler that flushes early and then fails has
// acknowledged the call. The server then drops what is left of the
// request's body (an HTTP/1.1 client may send it all before it reads),
// unless the handler asked for full duplex: so does Flush. The answer's
// body is still kept whole till the handler's end.
func (w *answerWriter) Flush() {
	w.WriteHeader(http.StatusOK)
	w.mu.Lock()
	if w.lateLocked() || w.sender != nil {
		w.mu.Unlock()
		return // the answer is taken, or the connection the handler's
	}
	dropBody := w.writeHeadLocked()
	w.flushed = w.flushed || !w.gone
	w.held = 0
	w.mu.Unlock()
	if dropBody {
		w.reqBody.Close()
	}
}

// CloseNotify is http.CloseNotifier's, which net/http's server's writer
// implements and frameworks call through without asking (gin's
// ResponseWriter.CloseNotify asserts it on the writer it wraps): without
// it, a handler watching for the sender to go away panics in memory
// only. The channel gets true when the sender gives up, as net/http
// sends it when the connection closes.
func (w *answerWriter) CloseNotify() <-chan bool {
	gone := make(chan bool, 1)
	context.AfterFunc(w.call, func() { gone <- true })
	return gone
}

// SetReadDeadline, SetWriteDeadline and EnableFullDuplex take what a
// handler asks of http.ResponseController, as net/http's server does: a
// handler that answers 500 when they fail must not fail in memory where
// it passes over TCP. In memory the body is read already and the answer
// kept whole, so there is nothing for a deadline to cut short; full
// duplex keeps the request's body readable after a Flush.
func (w *answerWriter) SetReadDeadline(time.Time) error  { return nil }
func (w *answerWriter) SetWriteDeadline(time.Time) error { return nil }

func (w *answerWriter) EnableFullDuplex() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.duplex = true
	return nil
}

// abandon says the sender has gone, and whether the handler had taken
// the connection over, whose sender's end is then closed: the handler's
// reads and writes on it end, as on a connection the sender closed.
func (w *answerWriter) abandon() (hijacked bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gone = true
	if w.sender != nil {
		w.sender.Close()
		return true
	}
	return false
}

// lateLocked says whether the handler has returned, and notes the use of
// the writer after it, once per call: "A ResponseWriter may not be used
// after ServeHTTP has returned" (http.ResponseWriter). Behind net/http's
// server such a write lands in a buffer the server has handed on, a race
// that garbles another answer; in memory it reaches no one, but is said.
// w.mu is held.
func (w *answerWriter) lateLocked() bool {
	if !w.served {
		return false
	}
	if !w.saidLate && w.usedLate != nil {
		w.saidLate = true
		w.usedLate()
	}
	return true
}

// errUsedAfterReturn is what a Write after the handler returned gets.
var errUsedAfterReturn = errors.New("whsimtest: Write after the handler returned: a ResponseWriter may not be used after ServeHTTP has returned")

// handlerReturned notes that the handler has returned.
func (w *answerWriter) handlerReturned() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.served = true
}

// hijacked says whether the handler took the connection over.
func (w *answerWriter) hijacked() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sender != nil
}

// Hijack is http.Hijacker's, which net/http's server's writer implements
// and http.ResponseController reaches: a handler that takes the
// connection over (to answer on it itself, or to close it without an
// answer) must not fail in memory only. The connection is one end of an
// in-memory pipe whose other end the sender reads its answer from, as
// from a socket; its reader holds what the handler has not read of the
// request's body, as a server's does. As behind net/http's server, a
// head the handler wrote is written to the connection first, the
// writer's Write gets http.ErrHijacked after, a second Hijack too, and
// the connection is the handler's to close: the sender waits for an
// answer on it till its time limit, then closes its end.
func (w *answerWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.mu.Lock()
	switch {
	case w.lateLocked():
		w.mu.Unlock()
		return nil, nil, errHijackAfterReturn
	case w.sender != nil:
		w.mu.Unlock()
		return nil, nil, http.ErrHijacked
	}
	handlerEnd, senderEnd := net.Pipe()
	w.sender = senderEnd
	if w.gone {
		senderEnd.Close() // the sender has gone: the connection is closed
	}
	var head []byte
	if w.code != 0 {
		head = w.headLocked()
	}
	w.mu.Unlock()
	close(w.taken)
	conn := &hijackedConn{Conn: handlerEnd}
	rd := io.Reader(conn)
	if w.reqData != nil {
		rd = io.MultiReader(w.reqData.unread(), conn)
	}
	brw := bufio.NewReadWriter(bufio.NewReader(rd), bufio.NewWriter(conn))
	if len(head) > 0 {
		// As net/http's server, which flushes the head and goes on
		// whether or not the write failed (the sender may have gone).
		_, _ = conn.Write(head)
	}
	return conn, brw, nil
}

// errHijackAfterReturn is what a Hijack after the handler returned gets,
// where net/http's server panics.
var errHijackAfterReturn = errors.New("whsimtest: Hijack called after ServeHTTP returned")

// headLocked is the head the handler wrote, as net/http's server writes
// it on the connection at a Hijack: the status line and the headers as
// of WriteHeader, the body chunked unless its length was declared, and,
// when the head went before, the body so far as one chunk (net/http's
// server drops what its 2 KB buffer still held then: this differs only
// for a handler that writes an answer, then hijacks). w.mu is held.
func (w *answerWriter) headLocked() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %s\r\n", statusLine(w.code))
	h := w.sent.Clone()
	chunked := bodyAllowed(w.code) && !w.framed
	if chunked {
		h.Set("Transfer-Encoding", "chunked")
	}
	_ = h.Write(&b)
	b.WriteString("\r\n")
	if chunked && w.headWritten && w.body.Len() > 0 {
		fmt.Fprintf(&b, "%x\r\n%s\r\n", w.body.Len(), w.body.Bytes())
	}
	return b.Bytes()
}

// hijackedAnswer is the answer the sender reads on a connection the
// handler took over, an error when it closed it without one.
func (w *answerWriter) hijackedAnswer(req *http.Request) (*http.Response, error) {
	w.mu.Lock()
	conn := w.sender
	w.mu.Unlock()
	ctx := req.Context()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	end := func() {
		stop()
		conn.Close()
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		end()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("whsimtest: the handler hijacked the connection and gave no answer on it: %w", err)
	}
	resp.Body = &hijackedBody{ReadCloser: resp.Body, ctx: ctx, end: end}
	return resp, nil
}

// hijackedBody is an answer's body read off a hijacked connection: read
// past the call's time limit, it ends in that, as a socket's read does.
type hijackedBody struct {
	io.ReadCloser
	ctx context.Context
	end func()
}

func (b *hijackedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && b.ctx.Err() != nil {
		err = b.ctx.Err()
	}
	return n, err
}

func (b *hijackedBody) Close() error {
	b.end()
	return nil
}

// hijackedConn is the handler's end of a hijacked call's connection,
// with the addresses the request came on.
type hijackedConn struct{ net.Conn }

func (*hijackedConn) LocalAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 2), Port: 80} }
func (*hijackedConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 1234}
}

// unfinished is the answer of a call whose time limit passed after its
// handler flushed the head: as over TCP, the sender has the status and
// headers, and its read of the body ends in the time limit (a 204 or 304
// has none to wait for, and is whole). Nil when no head was flushed.
func (w *answerWriter) unfinished(req *http.Request) *http.Response {
	w.mu.Lock()
	flushed, framed := w.flushed, w.framed
	w.mu.Unlock()
	if !flushed {
		return nil
	}
	resp := w.response(req)
	if resp.Body == http.NoBody {
		return resp
	}
	w.mu.Lock()
	body := w.body.Bytes()
	w.mu.Unlock()
	if !framed {
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
	}
	resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errorReader{req.Context().Err()}))
	return resp
}

// headOut says whether the handler has written the answer's head (a
// Flush, or a body past the server's buffer): a connection closed after
// it has given the sender that answer, cut short.
func (w *answerWriter) headOut() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.headWritten
}

// diedAfterHead is the answer of a call whose handler panicked or ended
// its goroutine after the head was written (a Flush, or a body past the
// server's 2 KB buffer), nil before: net/http's server closes the
// connection then, flushing its buffer first, so the sender has the
// status and the body handed on to the connection, cut short unless it
// is whole (a 204, or the length declared all written). The handler's
// status is the answer: a sender that counted the call as never answered
// would say it failed where whsim check over TCP says it got 200.
func (w *answerWriter) diedAfterHead(req *http.Request) *http.Response {
	w.mu.Lock()
	headWritten, framed, declared, sent := w.headWritten, w.framed, w.declared, w.total-int64(w.held)
	w.mu.Unlock()
	if !headWritten {
		return nil
	}
	resp := w.response(req)
	if resp.Body == http.NoBody {
		return resp
	}
	w.mu.Lock()
	body := bytes.Clone(w.body.Bytes()[:min(int64(w.body.Len()), sent)])
	w.mu.Unlock()
	if framed && sent == declared {
		resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(body)), declared
		return resp
	}
	resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errorReader{io.ErrUnexpectedEOF}))
	return resp
}

// errorReader is a body's end that is an error, not io.EOF.
type errorReader struct{ err error }

func (r errorReader) Read([]byte) (int, error) { return 0, r.err }

// response is the recorded answer as a client receives it.
func (w *answerWriter) response(req *http.Request) *http.Response {
	w.mu.Lock()
	defer w.mu.Unlock()
	code, h := w.code, w.sent
	if code == 0 {
		code, h = http.StatusOK, w.header.Clone()
	}
	if !bodyAllowed(code) {
		// As net/http's server sends it: no body, nor a header that
		// would describe one.
		h.Del("Content-Length")
		h.Del("Transfer-Encoding")
		if code == http.StatusNotModified {
			h.Del("Content-Type")
		}
		return &http.Response{
			Status: statusLine(code), StatusCode: code, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: h, Body: http.NoBody, Request: req,
		}
	}
	body := w.body.Bytes()
	if _, ok := h["Content-Type"]; !ok && !w.headWritten && len(body) > 0 && h.Get("Transfer-Encoding") == "" {
		h.Set("Content-Type", http.DetectContentType(body))
	}
	n := int64(len(body))
	var rd io.Reader = bytes.NewReader(body)
	var te []string
	switch {
	case w.headWritten && !w.framed:
		// Written before the handler returned, its length unknown
		// then: chunked, as net/http's server sends it.
		n, te = -1, []string{"chunked"}
		h.Del("Content-Length")
	case w.overflow:
		n = -1 // longer than was kept: the length is not known
	case w.framed && n < w.declared:
		// The handler returned short of the length it declared: the
		// sender reads what came, then the connection's end.
		n = w.declared
		rd = io.MultiReader(rd, errorReader{io.ErrUnexpectedEOF})
	default:
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	return &http.Response{
		Status: statusLine(code), StatusCode: code, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(rd), ContentLength: n, TransferEncoding: te, Request: req,
	}
}

// statusLine is the status of an answer with code, as a client reads it.
func statusLine(code int) string {
	text := http.StatusText(code)
	if text == "" {
		text = "status code " + strconv.Itoa(code)
	}
	return strconv.Itoa(code) + " " + text
}

// bodyAllowed says whether an answer with code may have a body, as
// net/http's server decides it: not a 1xx, 204 or 304.
func bodyAllowed(code int) bool {
	return code >= 200 && code != http.StatusNoContent && code != http.StatusNotModified
}

// panics keeps the handler's panics, for the test to say, and apart from
// them the calls whose handler ended its goroutine.
type panics struct {
	mu    sync.Mutex
	n     int
	first string
	// exits and firstExit are the calls whose handler ended its goroutine.
	exits     int
	firstExit string
	// nAfterHead and exitsAfterHead are those of n and exits whose
	// handler had written the answer's head: the sender got it.
	nAfterHead, exitsAfterHead int
	// lates and firstLate are the calls whose writer was used after
	// their handler returned.
	lates     int
	firstLate string
}

// late notes a call whose writer was used after its handler returned.
func (p *panics) late(r *http.Request, stack []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lates++
	if p.firstLate == "" {
		p.firstLate = fmt.Sprintf("%s %s\n%s", r.Method, r.URL.RequestURI(), stack)
	}
}

// usedLate is how many calls' writers were used after their handler
// returned, and the first.
func (p *panics) usedLate() (int, string) {
	if p == nil {
		return 0, ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lates, p.firstLate
}

// exit notes a call whose handler ended its goroutine, afterHead once
// it had written the answer's head.
func (p *panics) exit(r *http.Request, stack []byte, afterHead bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.exits++
	if afterHead {
		p.exitsAfterHead++
	}
	if p.firstExit == "" {
		p.firstExit = fmt.Sprintf("%s %s\n%s", r.Method, r.URL.RequestURI(), stack)
	}
}

// exited is how many calls' handlers ended their goroutine, of them how
// many after the answer's head, and the first.
func (p *panics) exited() (n, afterHead int, first string) {
	if p == nil {
		return 0, 0, ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exits, p.exitsAfterHead, p.firstExit
}

// add notes a call whose handler panicked with v, afterHead once it had
// written the answer's head.
func (p *panics) add(r *http.Request, v any, stack []byte, afterHead bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if afterHead {
		p.nAfterHead++
	}
	if p.first == "" {
		p.first = fmt.Sprintf("%s %s: %v\n%s", r.Method, r.URL.RequestURI(), v, stack)
	}
}

// said is how many calls' handlers panicked, of them how many after the
// answer's head, and the first.
func (p *panics) said() (n, afterHead int, first string) {
	if p == nil {
		return 0, 0, "" // a run over the network: the handler is not ours to watch
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n, p.nAfterHead, p.first
}

// running counts the handler calls of a run still in the handler. A call
// whose time limit passed is left to finish, as net/http leaves it, but
// the run waits for it: a handler that ignores its request's context
// must not outlive the test, meeting the store its t.Cleanup closed or
// logging to a test that has ended. It keeps what each call is, so that
// a wait cut short can name those that had not returned.
type running struct {
	wg sync.WaitGroup

	mu    sync.Mutex
	begun int
	calls map[int]func() string // by the order they began in
}

// add counts a call begun, which what names; done, called when it
// returns, uncounts it.
func (r *running) add(what func() string) (done func()) {
	r.wg.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[int]func() string{}
	}
	r.begun++
	i := r.begun
	r.calls[i] = what
	return func() {
		r.mu.Lock()
		delete(r.calls, i)
		r.mu.Unlock()
		r.wg.Done()
	}
}

// none says whether every call begun has returned.
func (r *running) none() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls) == 0
}

// still names the calls not yet returned, in the order they began.
func (r *running) still() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	order := slices.Sorted(maps.Keys(r.calls))
	names := make([]string, len(order))
	for j, i := range order {
		names[j] = r.calls[i]()
	}
	return names
}

// returned is closed when every handler call has returned.
func (r *running) returned() <-chan struct{} {
	all := make(chan struct{})
	go func() {
		r.wg.Wait()
		close(all)
	}()
	return all
}
