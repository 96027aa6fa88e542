// Package receiver is the webhook receiver behind `whsim listen` (and
// `whsim send` without --url): an http.Handler that answers each call by the
// response rules or by forwarding it, records it in a capture file before it
// answers, and hands it to an observer that validates and reports it.
//
// The acknowledgement path does only what an answer must wait for: read the
// body, decide or forward, append the capture record. Decoding, validation
// and printing happen on one goroutine behind a bounded queue. The queue
// never drops a call: when it is full, handlers wait (back-pressure), which
// slows the sender rather than losing what it sent.
package receiver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

// defaultMaxBody is the body limit when Config.MaxBody is 0.
const defaultMaxBody = 10 << 20

// defaultQueue is the observation queue's length when Config.Queue is 0.
const defaultQueue = 4096

// idleEvery bounds how often Config.Idle runs under load: calling it (a
// write to stdout) each time the queue ran empty cost a syscall per call.
const idleEvery = time.Millisecond

// checker validates a body against the spec; event is the query's event
// name, "" when the query names none. *validate.Validator is one.
type checker interface {
	Check(body []byte, event string) []validate.Finding
	// CheckUTF8 is Check of a body known to be valid UTF-8 (the record's
	// encoding found it so): the same findings, without checking it again.
	CheckUTF8(body []byte, event string) []validate.Finding
}

// recorder stores a call before it is answered and says where: the byte
// offset of the record in the capture file. *capture.File is one.
type recorder interface {
	Write(*capture.Record) (offset int64, err error)
}

// Config says how the receiver answers and where calls go.
type Config struct {
	// Path, when set, is the only path calls are expected on; calls to other
	// paths are answered 404, recorded and flagged.
	Path string
	// Status answers every call (default 200) unless a rule below applies.
	Status int
	// Delay waits this long before answering.
	Delay time.Duration
	// FailRate answers 500 for this share (0 to 1) of calls.
	FailRate float64
	// Seed makes the FailRate draws repeatable; 0 draws a random seed.
	Seed uint64
	// Respond holds per-event answer sequences; they win over FailRate.
	Respond []sequence

	// ForwardTo, when set, sends every call on to this receiver and answers
	// with its answer; Status, FailRate and Respond do not apply.
	ForwardTo *url.URL
	// Client sends forwarded calls; nil builds one (see NewClient).
	Client *http.Client
	// Faults, when set, puts faults on forwarded calls (nil: none).
	Faults *Faults

	// MaxBody is the body limit (default DefaultMaxBody); beyond it the
	// call is answered 413.
	MaxBody int64

	// BodyBudget bounds the bytes of the bodies in flight, from their
	// arrival until they have been observed (default DefaultBodyBudget):
	// a body over a few KiB waits for its share, so many large bodies at
	// once cost time, not memory.
	BodyBudget int64

	// Capture records each call before it is answered; nil records nothing.
	Capture recorder
	// CaptureLost, when set, is told once why Capture failed the first
	// time (a *capture.File takes no more records after a failure).
	CaptureLost func(error)
	// ClosesKept, when set, is told once that the receiver behind
	// ForwardTo was first seen to close a kept-alive connection it had not
	// said it would close, or (stray) to write bytes no call asked for on
	// one: from then on each call goes to it on a connection of its own,
	// saying Connection: close (keptConns), which the receiver sees.
	ClosesKept func(stray bool)
	// Checker validates each call off the acknowledgement path; nil skips it.
	Checker checker
	// Observe is called for every call, in arrival order of the queue, on
	// one goroutine; Idle (flush output then) once the queue has run empty,
	// at most once per IdleEvery while calls keep coming, and within
	// IdleEvery of the last call.
	Observe func(*Call)
	Idle    func()
	// Queue is the observation queue's length (default DefaultQueue).
	Queue int
	// Recycle reuses each call's memory (the Call, its Record, a body of
	// up to 4 KiB) for a later call once Observe has returned: set it only
	// when Observe keeps nothing of a Call (no pointer to it, its Record or
	// the bytes of its Body) and nothing else holds the body after the
	// answer (a forwarded body may still be being sent). listen sets it
	// without --ui and --forward-to: two allocations a call fewer.
	Recycle bool
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Call is one call as the observer sees it.
type Call struct {
	Seq    uint64
	Record *capture.Record
	// Body is the request body byte for byte (empty when over the limit).
	// Record.Body shares its bytes: read it, never write to it.
	Body []byte
	// Content is the document Body holds, for the observer: Body itself,
	// or Body decoded from its Content-Encoding (gzip, deflate); nil when
	// it could not be decoded (a content-encoding finding says why).
	Content []byte
	// Event is the query's businessType; HasEvent says it was there.
	Event    string
	HasEvent bool
	// TooLarge says the body was over MaxBody (answered 413).
	TooLarge bool
	// BodyErr is why the body was not read whole (answered 400, 408 or
	// 503); Body holds what arrived.
	BodyErr error
	// CaptureErr is why the call could not be recorded (answered 500, or
	// 503 when the capture file is gone).
	CaptureErr error
	// Unsent says that, with Config.ForwardTo, none of the call went out
	// to the receiver: it could not be reached, or the call ended first
	// (Record.Forward's error says why). A call whose connection failed
	// after it went out was sent: the receiver may hold it.
	Unsent bool
	// StopClosed says the call is a request listen's stop closed
	// unanswered as it arrived (Record.Rejected says so): one queued in a
	// kept-alive socket, pipelined, or taken from the accept queue. The
	// HTTP server did not refuse it for what it was.
	StopClosed bool
	// Unanswered says the sender never got the answer Record.Response
	// holds: it had gone (closed or reset its connection before it), or
	// listen's stop cut the call short. A count of answers leaves it out.
	Unanswered bool
	// Offset is where Record starts in the capture file, -1 when it was
	// not recorded: the inspector reads calls back from there.
	Offset int64
	// reserved is what the body took from the body budget.
	reserved int64
	// mem, when Config.Recycle is set, is the memory release gives back
	// for a later call: the Call itself, and bodyBuf when Body is in it.
	mem     *callRecord
	bodyBuf *[]byte
	// trailers are the request's trailers once its body was read (nil:
	// not known, as for a call read back from its record).
	trailers http.Header
	// bodyUTF8 says Body was found valid UTF-8 as it was recorded (false:
	// not, or not known, as for a call read back from its record).
	bodyUTF8 bool
	// Findings are the protocol problems (method, content type, path,
	// query, size) followed by the validator's findings on the body.
	Findings []validate.Finding
}

// Verdict is "valid", "warning" or "invalid": the worst finding.
func (c *Call) Verdict() string { return validate.Verdict(c.Findings) }

// Receiver is the handler. Close it after the server has shut down.
type Receiver struct {
	cfg    Config
	path   pathMatch // cfg.Path
	resp   *responder
	budget *semaphore.Weighted
	// kept is what the forwards saw of the receiver's closes of kept
	// connections (keptConns).
	kept keptConns
	// captureLost reports the first capture failure once; captureErr
	// keeps it (a capture that failed fails every write after).
	captureLost sync.Once
	captureErr  atomic.Pointer[error]
	seq         atomic.Uint64
	queueMu     sync.RWMutex // held for reading while enqueuing; Close takes it to close the queue
	closed      bool
	queue       chan *Call
	drained     chan struct{}
	// waitsEnd is closed by EndWaits: the waits only listen puts on a
	// call (--delay, a delay or reorder fault) end at once.
	waitsEnd chan struct{}
	endWaits sync.Once
	// calls and bodies hold what Config.Recycle reuses: *callRecord, and
	// *[]byte of capacity initialBody.
	calls, bodies sync.Pool
	// inHand counts the calls taken and not yet queued for the observer,
	// and unrecorded those of them whose record is not yet written:
	// closing waits for the first, and tells the second when it gives up.
	inHand     inflight
	unrecorded atomic.Int64
	// waitingInHand, when set (by tests), runs when closing finds calls
	// in hand and begins to wait for them.
	waitingInHand func()
	// beforeAnswer, when set (by tests), runs between the handler's last
	// look at whether the stop cut its call short and the answer's write:
	// where a stop may close the connection.
	beforeAnswer func(*http.Request)
}

// New builds a receiver and starts its observer goroutine.
func New(cfg Config) *Receiver {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = defaultMaxBody
	}
	if cfg.BodyBudget <= 0 {
		cfg.BodyBudget = defaultBodyBudget
	}
	if cfg.Queue <= 0 {
		cfg.Queue = defaultQueue
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ForwardTo != nil && cfg.Client == nil {
		cfg.Client = newClient(16, 30*time.Second, nil)
	}
	r := &Receiver{
		cfg:      cfg,
		path:     newPathMatch(cfg.Path),
		resp:     newResponder(&cfg),
		budget:   semaphore.NewWeighted(cfg.BodyBudget),
		queue:    make(chan *Call, cfg.Queue),
		drained:  make(chan struct{}),
		waitsEnd: make(chan struct{}),
		inHand:   inflight{left: make(chan struct{}, 1)},
	}
	r.kept.first = cfg.ClosesKept
	go r.drain()
	return r
}

// Close stops taking calls, waits until every call taken (its handler
// running, or queued) was observed and returns. Calls arriving after Close
// are answered but not observed.
func (r *Receiver) Close() { r.CloseWithin(nil) }

// Closed is what closing the Receiver left undone when it gave up.
type Closed struct {
	// Observed says every call taken was observed.
	Observed bool
	// Unrecorded counts the calls taken whose record was still being
	// written (Config.Capture): they may be missing from the capture.
	Unrecorded int64
}

// CloseWithin is Close that gives up waiting once stuck is closed or
// sends (a timer's channel, say): an observer blocked on an output nobody
// reads (listen --output json | a stopped reader), or a capture write on a
// disk that does not answer, must not hold a shut-down listen for ever.
// It waits first for the calls whose handler still runs (a stop that cut
// them short closed their connections, and stopped waiting for them after
// cutShortWait), then for the queue. When it gave up, the observer may
// still be blocked and the caller must not touch what it writes to.
func (r *Receiver) CloseWithin(stuck <-chan time.Time) Closed {
	gaveUp := make(chan struct{})
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-stuck:
			close(gaveUp)
		case <-stop:
		}
	}()
	if r.inHand.n.Load() > 0 && r.waitingInHand != nil {
		r.waitingInHand()
	}
	allLeft := r.inHand.wait(gaveUp)
	// closeQueue blocks while an enqueuer waits on a full queue: in a
	// goroutine of its own.
	go r.closeQueue()
	if !allLeft {
		// A call still in hand will find the queue closed and go
		// unobserved, even if the observer drains the rest at once.
		return Closed{Unrecorded: r.unrecorded.Load()}
	}
	select {
	case <-r.drained:
		return Closed{Observed: true}
	case <-gaveUp:
	}
	select {
	case <-r.drained:
		return Closed{Observed: true}
	default:
	}
	return Closed{Unrecorded: r.unrecorded.Load()}
}

// EndWaits ends the waits that only listen puts on calls: --delay, and a
// delay or reorder fault's hold. Those waiting go on at once, and later
// calls do not wait. listen calls it when it stops, so that Ctrl-C does
// not sit out a --delay 1m or a held window before it can finish the
// calls in flight.
func (r *Receiver) EndWaits() {
	r.endWaits.Do(func() {
		close(r.waitsEnd)
		if r.cfg.Faults != nil {
			r.cfg.Faults.release()
		}
	})
}

func (r *Receiver) closeQueue() {
	r.queueMu.Lock()
	if !r.closed {
		r.closed = true
		close(r.queue)
	}
	r.queueMu.Unlock()
}

func (r *Receiver) drain() {
	defer close(r.drained)
	idle := time.NewTimer(idleEvery)
	idle.Stop()
	var idleC <-chan time.Time // set while Idle is due
	for {
		var c *Call
		var ok bool
		select {
		case c, ok = <-r.queue:
		case <-idleC:
			idleC = nil
			r.cfg.Idle()
			continue
		}
		if !ok {
			if idleC != nil {
				r.cfg.Idle()
			}
			return
		}
		r.check(c)
		if r.cfg.Observe != nil {
			r.cfg.Observe(c)
		}
		r.release(c)
		if idleC == nil && r.cfg.Idle != nil && len(r.queue) == 0 {
			idle.Reset(idleEvery)
			idleC = idle.C
		}
	}
}

// check sets c.Content and validates it, off the acknowledgement path.
func (r *Receiver) check(c *Call) {
	c.Content = c.Body
	if c.TooLarge || c.BodyErr != nil || c.Record.Rejected != nil {
		return
	}
	utf8Known := c.bodyUTF8
	if codings := capture.ContentCodings(c.Record.Headers); codings != nil {
		utf8Known = false
		content, err := capture.DecodeContent(c.Body, codings, r.cfg.MaxBody)
		if err != nil {
			c.Content = nil
			c.Findings = append(c.Findings, validate.Finding{Rule: validate.RuleContentEncoding, Severity: validate.Error, Message: err.Error()})
			return
		}
		c.Content = content
	}
	switch {
	case r.cfg.Checker == nil:
	case utf8Known:
		c.Findings = append(c.Findings, r.cfg.Checker.CheckUTF8(c.Content, c.Event)...)
	default:
		c.Findings = append(c.Findings, r.cfg.Checker.Check(c.Content, c.Event)...)
	}
}

// take says a call was taken (its Seq drawn): it is in hand, and not
// recorded, until recorded and enqueue.
func (r *Receiver) take() {
	r.inHand.enter()
	r.unrecorded.Add(1)
}

// lostCapture notes err, a capture write's failure: the first is kept and
// reported (Config.CaptureLost) once.
func (r *Receiver) lostCapture(err error) {
	r.captureLost.Do(func() {
		r.captureErr.Store(&err)
		if r.cfg.CaptureLost != nil {
			r.cfg.CaptureLost(err)
		}
	})
}

// enqueue hands c, recorded (or not, with its CaptureErr), to the
// observer; the call is no longer in hand.
func (r *Receiver) enqueue(c *Call) {
	defer r.inHand.leave()
	r.queueMu.RLock()
	defer r.queueMu.RUnlock()
	if !r.closed {
		r.queue <- c // blocks when full: back-pressure, never a drop
		return
	}
	r.release(c)
}

// release gives back what c's body took from the budget and, with
// Config.Recycle, c's memory: nothing may use c after.
func (r *Receiver) release(c *Call) {
	if c.reserved > 0 {
		r.budget.Release(c.reserved)
		c.reserved = 0
	}
	if c.bodyBuf != nil {
		r.bodies.Put(c.bodyBuf)
		c.bodyBuf = nil
	}
	if cr := c.mem; cr != nil {
		*cr = callRecord{}
		r.calls.Put(cr)
	}
}

// ServeHTTP answers one call.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.take()
	start := r.cfg.Now()
	// The call and its record in one allocation: they live as long as
	// each other.
	var cr *callRecord
	if r.cfg.Recycle {
		cr, _ = r.calls.Get().(*callRecord)
	}
	if cr == nil {
		cr = new(callRecord)
	}
	*cr = callRecord{
		call: Call{Seq: r.seq.Add(1), Offset: -1},
		rec: capture.Record{
			Time:    start,
			Remote:  req.RemoteAddr,
			Method:  req.Method,
			Path:    req.URL.Path,
			RawPath: req.URL.RawPath, // "" unless the sender escaped the path otherwise than Go: no allocation
			Query:   req.URL.RawQuery,
			Headers: req.Header,
		},
	}
	c, rec := &cr.call, &cr.rec
	if req.Method == http.MethodConnect && req.URL.Path == "" {
		// The authority form ("example.com:443"), a proxy's request
		// target, has no path: the record keeps the target as it came,
		// as it keeps the "*" of OPTIONS *, not an empty path.
		rec.Path = req.RequestURI
	}
	if req.Proto != "HTTP/1.1" {
		rec.Proto = req.Proto // HTTP/1.1, nearly every call, goes unsaid
	}
	if r.cfg.Recycle {
		c.mem = cr
	}
	c.Record = rec
	c.Event, c.HasEvent = spec.QueryEvent(req.URL.RawQuery)

	body, err := r.readBody(req, c)
	switch {
	case err == nil:
	case tooLarge(err):
		c.TooLarge = true
		body = nil
		// The record says the body was not kept: an empty body is not
		// what came, and replay and validate must not take it for one.
		rec.BodyOverLimit = r.cfg.MaxBody
	default:
		// Malformed, cut short or too slow: what arrived is recorded and
		// flagged, and the call is refused, never acknowledged.
		c.BodyErr = err
		if cut := stopCause(req.Context()); cut != nil {
			// Its connection closed under it ("use of closed network
			// connection"): that is why.
			c.BodyErr = cut
		}
	}
	c.Body = body
	if len(req.Trailer) > 0 {
		c.trailers = req.Trailer
		if _, ok := req.Header["Trailer"]; !ok {
			// net/http takes the Trailer header the sender sent out of
			// the headers; the record keeps it, so that its reader sees
			// the call had trailers.
			req.Header["Trailer"] = []string{strings.Join(trailerNames(c), ", ")}
		}
	}
	rec.ShareBody(body) // c.Body and rec.Body share the bytes; nothing writes to them after readBody
	c.bodyUTF8 = rec.BodyEncoding == capture.UTF8
	c.Findings = r.protocolFindings(c)
	if c.BodyErr != nil && senderReset(c.BodyErr) {
		c.Unanswered = true
		c.Findings = append(c.Findings, validate.Finding{Rule: ruleSenderGone, Severity: validate.Warning,
			Message: "the sender reset its connection before the answer: it did not get the " + strconv.Itoa(bodyErrStatus(c.BodyErr))})
	}

	var ans answer
	var later *laterCopy // a fault's copy after the answer
	switch {
	case c.TooLarge:
		ans = plain(http.StatusRequestEntityTooLarge)
	case c.BodyErr != nil:
		ans = bodyErrAnswer(c.BodyErr)
	case req.Method == http.MethodConnect:
		// A client that takes listen for an HTTP proxy (HTTPS_PROXY names
		// it) reads any 2xx to CONNECT as a tunnel and speaks TLS into
		// it: whatever --status, --respond or --forward-to say, the call
		// is refused, and not forwarded.
		ans = notAProxy()
	case !r.path.on(req.URL.Path, req.URL.RawPath):
		ans = plain(http.StatusNotFound)
	case r.cfg.ForwardTo != nil && hopsOf(req.Header) >= maxForwardHops:
		ans = plain(http.StatusLoopDetected)
		c.Findings = append(c.Findings, validate.Finding{Rule: ruleForwardLoop, Severity: validate.Error,
			Message: hopHeader + ": " + strconv.Itoa(hopsOf(req.Header)) + ", forwarded round a loop (answered 508, not forwarded)"})
	case r.cfg.ForwardTo != nil && r.captureErr.Load() != nil:
		// The capture failed: the call will be answered 5xx, unrecorded,
		// and a sender retries it. Forwarded, the receiver took a call
		// the sender was told to send again; not forwarded, the 5xx is
		// true.
		named, _ := target(r.cfg.ForwardTo, req)
		rec.Forward = &capture.Forward{URL: named.String(), Error: "not forwarded: the capture had failed (" + (*r.captureErr.Load()).Error() + "), so the call is answered 5xx, unrecorded"}
		c.Unsent = true
		ans = plain(http.StatusServiceUnavailable)
	case r.cfg.ForwardTo != nil:
		var fwd *capture.Forward
		var sent bool
		// The receiver's answer is kept with the call until it has been
		// observed: its body takes its share of the budget for c.
		ctx := context.WithValue(req.Context(), answerHolderKey{}, c)
		if r.cfg.Faults != nil {
			ans, fwd, sent, rec.Fault, later = r.forwardFaulted(ctx, req, body)
		} else {
			ans, fwd, sent = r.forward(ctx, req, body)
		}
		rec.Forward = fwd
		c.Unsent = fwd != nil && !sent
	default:
		ans = plain(r.resp.decide(c.Event))
	}

	if r.cfg.Delay > 0 {
		t := time.NewTimer(r.cfg.Delay)
		select {
		case <-t.C:
		case <-req.Context().Done():
			t.Stop()
		case <-r.waitsEnd:
			t.Stop()
		}
	}

	rec.Response = ans.record()
	if gone, ok := r.goneBefore(c, req.Context(), ans.status); ok {
		// Known before the record is written: the sender had gone, or the
		// stop cut the call short. The record says it never got the
		// answer, which it holds apart from "response" (capture.Unanswered).
		rec.Unanswered = &capture.Unanswered{Rule: gone.Rule, Reason: gone.Message}
	}
	if r.cfg.Capture != nil {
		// Durability before the answer: the sender may take a 2xx as done.
		if off, err := r.cfg.Capture.Write(rec); err == nil {
			c.Offset = off
		} else {
			c.CaptureErr = err
			if errors.Is(err, capture.ErrGone) {
				ans = plain(http.StatusServiceUnavailable)
			} else {
				ans = plain(http.StatusInternalServerError)
			}
			rec.Response = ans.record()
			if f := rec.Forward; f != nil && f.BodyCut != "" {
				f.BodyCut = bodyCutWords(r.cfg.MaxBody, "listen's output shows its first %d bytes; the sender got none of it (listen's "+strconv.Itoa(ans.status)+": the call could not be recorded)")
			}
			if f := rec.Fault; f != nil && !strings.HasPrefix(f.Sender, "nothing") {
				// The fault's answer was not given: the record that
				// would have said so was not written.
				f.Sender = "listen's " + strconv.Itoa(ans.status) + " (the call could not be recorded) instead of " + f.Sender
			}
			if later != nil && !later.inFlight {
				// A call that cannot be recorded is sent no further copy:
				// its sender is told to send it again.
				later.skip("the call could not be recorded")
				later = nil
			}
			r.lostCapture(err)
		}
	}
	r.unrecorded.Add(-1)
	if c.TooLarge || c.BodyErr != nil {
		// The rest of the body is not wanted: the connection cannot carry
		// another call.
		w.Header().Set("Connection", "close")
	}
	// The stop may close the connection at any moment (a second Ctrl-C,
	// the grace over): over HTTP/1, whether it cut the call short is
	// decided once, with the connection (beginAnswer), and the answer is
	// written out before the handler returns, so that the line says what
	// the sender got. Over HTTP/2 (frames written by the connection's own
	// writer) and without listen's connections, the context says it.
	ctx := req.Context()
	var wc *watchedConn
	if req.ProtoMajor == 1 {
		wc, _ = ctx.Value(connKey{}).(*watchedConn)
	}
	if wc != nil {
		cut := wc.beginAnswer(ctx)
		defer wc.endAnswer()
		if cut != nil {
			r.cutShort(c, cut, ans.status)
		} else if ctx.Err() != nil && stopCause(ctx) == nil {
			// The sender hung up. (A stop since beginAnswer waits for
			// the answer: it goes.)
			r.unanswered(c, ctx, ans.status)
		}
	} else if ctx.Err() != nil {
		r.unanswered(c, ctx, ans.status)
	}
	if r.beforeAnswer != nil {
		r.beforeAnswer(req)
	}
	// A sender that closed its side while listen held the call (the delay,
	// the forward) may have left, or only half-closed and wait for the
	// answer: which, the answer shows.
	shut := wc != nil && ctx.Err() == nil && r.holdsCalls() && wc.senderShut()
	ans.write(w)
	if shut {
		r.senderShutAnswer(c, w, wc, ans.status)
	}
	if later != nil {
		r.afterAnswer(w, req, c, later)
		return
	}
	r.enqueue(c) // before the answer can reach the sender: its next call is observed after
	if wc != nil {
		// Written now, where net/http would after the handler returned:
		// endAnswer (deferred) then knows it was.
		if f, ok := w.(interface{ FlushError() error }); ok {
			f.FlushError()
		}
	}
}

// afterAnswer sends a fault's later copy of c once its answer, written
// to w, is out, and then hands c to the observer, with how the copy
// fared. It runs apart from the handler, so that neither the answer nor
// the sender's next call on its connection waits for the receiver to
// answer the copy; the call stays in hand (closing waits for it), under
// the server's stop (its cut ends the copy, as it ends calls) where the
// call came through one. Observed after its copy, c may be observed
// after a call its sender made once it had the answer.
func (r *Receiver) afterAnswer(w http.ResponseWriter, req *http.Request, c *Call, later *laterCopy) {
	if f, ok := w.(interface{ FlushError() error }); ok {
		f.FlushError()
	}
	ctx := context.WithoutCancel(req.Context())
	var work *inflight
	if aa, ok := req.Context().Value(afterAnswerKey{}).(afterAnswer); ok {
		ctx, work = aa.base, aa.work
		work.enter()
	}
	ctx = context.WithValue(ctx, answerHolderKey{}, c)
	if c.Unanswered && !later.inFlight {
		// Its sender had gone, or the stop cut the call short, before
		// the answer: no copy goes after it.
		why := errSenderGaveUp.Error()
		if cut := stopCause(req.Context()); cut != nil {
			why = cut.Error()
		}
		later.skip(why + " first")
		later = nil
	}
	go func() {
		if work != nil {
			defer work.leave()
		}
		if later != nil {
			later.send(ctx)
			c.Unsent = len(c.Record.Fault.Deliveries) == 0
		}
		r.enqueue(c)
	}()
}

// holdsCalls says the receiver may hold a call before its answer (a
// delay, a forward), long enough for a sender to give up on it.
func (r *Receiver) holdsCalls() bool { return r.cfg.Delay > 0 || r.cfg.ForwardTo != nil }

// unanswered flags a call whose context ended before its answer (ctx):
// the line must not read as an answer the sender took. Listen's stop cut
// short any call (a second Ctrl-C, or its grace ran out); else the sender
// hung up while listen held the call (its timeout was shorter than
// --delay or the forward).
func (r *Receiver) unanswered(c *Call, ctx context.Context, status int) {
	if cut := stopCause(ctx); cut != nil {
		r.cutShort(c, cut, status)
		return
	}
	if r.holdsCalls() {
		r.senderGone(c, status)
	}
}

// answerTakenWait bounds how long a sender that closed its side is
// watched, once answered, for taking the answer or resetting the
// connection: a TCP acknowledgment, or the reset, comes within a round
// trip.
const answerTakenWait = time.Second

// senderShutAnswer writes out the answer of a call whose sender closed
// its side of the connection before it (wc), and flags the call when the
// sender had gone: its socket reset the connection when the answer
// reached it. A sender that only half-closed took it, and is not flagged;
// one whose TCP said neither in time (or off Linux) is flagged as one
// that may have gone.
func (r *Receiver) senderShutAnswer(c *Call, w http.ResponseWriter, wc *watchedConn, status int) {
	if f, ok := w.(interface{ FlushError() error }); ok {
		if err := f.FlushError(); err != nil {
			r.senderGone(c, status)
			return
		}
	}
	switch taken, known := answerTaken(wc.Conn, answerTakenWait); {
	case taken:
	case known:
		r.senderGone(c, status)
	default:
		c.Findings = append(c.Findings, validate.Finding{Rule: ruleSenderGone, Severity: validate.Warning,
			Message: "the sender closed its side of the connection before the answer (a half-close, or it left): whether it took the " + strconv.Itoa(status) + " is not known"})
	}
}

// senderGone flags a call whose sender closed its connection before the
// answer (status).
func (r *Receiver) senderGone(c *Call, status int) {
	c.Unanswered = true
	c.Findings = append(c.Findings, senderGoneFinding(status))
}

func senderGoneFinding(status int) validate.Finding {
	return validate.Finding{Rule: ruleSenderGone, Severity: validate.Warning,
		Message: "the sender closed its connection before the answer: it did not wait for the " + strconv.Itoa(status)}
}

// cutShort flags a call listen's stop cut short before its answer (cut is
// why).
func (r *Receiver) cutShort(c *Call, cut error, status int) {
	c.Unanswered = true
	c.Findings = append(c.Findings, cutShortFinding(cut, status))
}

func cutShortFinding(cut error, status int) validate.Finding {
	return validate.Finding{Rule: ruleUnanswered, Severity: validate.Warning,
		Message: cut.Error() + " before the answer: the sender did not get the " + strconv.Itoa(status)}
}

// goneBefore is the finding of a call known, before its record is
// written, never to get its answer (status): its sender reset the
// connection mid-body, or its context has ended, which the answer's
// flagging then says the same way (unanswered, cutShort). One whose end
// comes later (the stop between the record and the answer, a sender
// found gone only as the answer reaches it) is recorded as answered, as
// listen then wrote the answer, and flagged on its line alone.
func (r *Receiver) goneBefore(c *Call, ctx context.Context, status int) (validate.Finding, bool) {
	if c.Unanswered {
		for _, f := range c.Findings {
			if f.Rule == ruleSenderGone || f.Rule == ruleUnanswered {
				return f, true
			}
		}
	}
	if ctx.Err() == nil {
		return validate.Finding{}, false
	}
	if cut := stopCause(ctx); cut != nil {
		return cutShortFinding(cut, status), true
	}
	if r.holdsCalls() {
		return senderGoneFinding(status), true
	}
	return validate.Finding{}, false
}

// callRecord is a Call and the Record it points to, allocated together.
type callRecord struct {
	call Call
	rec  capture.Record
}

// tooLarge reports whether err says the body was over the limit. Its own
// function, called only on an error: errors.As's target escapes, which cost
// every call an allocation.
func tooLarge(err error) bool {
	var tooBig *http.MaxBytesError
	return errors.As(err, &tooBig)
}

// initialBody is the most a body is given before its bytes arrive: a
// declared Content-Length is a claim, not memory.
const initialBody = 4 << 10

// defaultBodyBudget is Config.BodyBudget when it is 0.
const defaultBodyBudget = 64 << 20

// budgetWait bounds how long a body waits for its share of the budget.
const budgetWait = 30 * time.Second

// errBusy is why a body that waited too long for the budget was refused.
var errBusy = errors.New("listen is busy reading other large bodies; try again")

// readBody reads the whole body within MaxBody into a buffer that grows as
// bytes arrive. A body that outgrows initialBody first takes its whole size
// (its Content-Length, else MaxBody) from the body budget, at once, so that
// bodies never wait for each other holding part of it; Call.reserved holds
// it until the call has been observed. On an error, the bytes read so far
// come back with it.
func (r *Receiver) readBody(req *http.Request, c *Call) ([]byte, error) {
	limit := r.cfg.MaxBody
	n := req.ContentLength
	if n > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	want := n
	if n < 0 {
		want = limit + 1 // one byte over says it is too large
	}
	var buf []byte
	if r.cfg.Recycle && n >= 0 && n <= initialBody {
		// A buffer an observed call gave back; capped at n so that the
		// body reads as into one of its own size.
		bp, _ := r.bodies.Get().(*[]byte)
		if bp == nil {
			b := make([]byte, 0, initialBody)
			bp = &b
		}
		c.bodyBuf, buf = bp, (*bp)[:0:n]
	} else {
		buf = make([]byte, 0, min(want, initialBody))
	}
	for int64(len(buf)) < want {
		if len(buf) == cap(buf) {
			if c.reserved == 0 {
				need := min(want, r.cfg.BodyBudget)
				ctx, cancel := context.WithTimeout(req.Context(), budgetWait)
				err := r.budget.Acquire(ctx, need)
				cancel()
				if err != nil {
					return buf, errBusy
				}
				c.reserved = need
			}
			grown := make([]byte, len(buf), min(want, 2*int64(cap(buf))))
			copy(grown, buf)
			buf = grown
		}
		m, err := req.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if int64(len(buf)) > limit {
			return nil, &http.MaxBytesError{Limit: limit}
		}
		if errors.Is(err, io.EOF) {
			if n >= 0 && int64(len(buf)) < n {
				return buf, io.ErrUnexpectedEOF
			}
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// senderReset says the body's read failed because the sender reset the
// connection (RST): the answer cannot reach it. Not a sender that only
// closed its side: that one may still read the answer.
func senderReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

// bodyErrAnswer answers a body not read whole. A 503 (listen was busy)
// says when to try again, as a sender that honours Retry-After waits: by
// then the bodies that held the budget have usually been recorded.
func bodyErrAnswer(err error) answer {
	a := plain(bodyErrStatus(err))
	if a.status == http.StatusServiceUnavailable {
		a.header = http.Header{"Content-Type": jsonType, "Retry-After": {"1"}}
	}
	return a
}

// bodyErrStatus is the status for a body not read whole: 408 when the
// sender was too slow, 503 when listen was, else 400.
func bodyErrStatus(err error) int {
	var ne net.Error
	switch {
	case errors.Is(err, errBusy):
		return http.StatusServiceUnavailable
	case errors.As(err, &ne) && ne.Timeout():
		return http.StatusRequestTimeout
	}
	return http.StatusBadRequest
}

// Rule ids of the problems the receiver itself sees, beside the validator's.
const (
	rulePath      = "http-path"
	ruleBodyLimit = validate.RuleBodyLimit
	// ruleBodyIncomplete is a body not read whole: malformed chunked
	// encoding, cut short before its Content-Length, or too slow.
	ruleBodyIncomplete = "http-body-incomplete"
	// ruleForwardLoop is a call forwarded more than MaxForwardHops times.
	ruleForwardLoop = "http-forward-loop"
	// ruleTrailers is a call with HTTP trailers: a record keeps headers
	// and body, so the trailers' values are neither recorded nor sent on
	// (replay, --forward-to). A warning: the call itself is not wrong.
	ruleTrailers = "http-trailers"
	// ruleSenderGone is a call whose sender closed the connection before
	// the answer (a timeout shorter than Delay, or than the forward): it
	// never got the status shown. A warning: the call itself is not wrong.
	ruleSenderGone = "http-sender-gone"
	// ruleUnanswered is a call in flight when listen's stop cut it short
	// (a second Ctrl-C or SIGTERM, or the stop's grace ran out): it was
	// recorded, never answered. A warning, as ruleSenderGone.
	ruleUnanswered = "http-unanswered"
)

// protocolFindings are what is wrong with the call as an HTTP request,
// before its body is looked at.
func (r *Receiver) protocolFindings(c *Call) []validate.Finding {
	var fs []validate.Finding
	add := func(rule, msg string) {
		fs = append(fs, validate.Finding{Rule: rule, Severity: validate.Error, Message: msg})
	}
	rec := c.Record
	fs = append(fs, validate.RequestFindings(rec.Method, rec.ShownPath(), rec.Headers.Get("Content-Type"))...)
	if rec.Method != http.MethodConnect && !r.path.on(rec.Path, rec.RawPath) {
		// A CONNECT's target is no path, and it is answered 405, not 404.
		add(rulePath, "path "+strconv.Quote(rec.ShownPath())+", listening on "+strconv.Quote(r.cfg.Path)+" (answered 404)")
	}
	if !c.HasEvent {
		add(validate.RuleQueryEvent, "query has "+spec.NoEvent(rec.Query)+" (want one of "+eventList()+")")
	} else if vs := spec.QueryRepeats(rec.Query); vs != nil {
		if slices.ContainsFunc(vs, func(v string) bool { return v != c.Event }) {
			add(validate.RuleQueryEvent, "query "+spec.Repeated(vs)+"; checked as "+c.Event)
		} else {
			fs = append(fs, validate.Finding{Rule: validate.RuleQueryRepeated, Severity: validate.Warning,
				Message: "query " + spec.Repeated(vs)})
		}
	}
	if c.BodyErr != nil {
		if isStopCut(c.BodyErr) || senderReset(c.BodyErr) {
			// Not answered: ruleUnanswered or ruleSenderGone says so.
			add(ruleBodyIncomplete, "body not read whole: "+c.BodyErr.Error())
		} else {
			add(ruleBodyIncomplete, "body not read whole: "+c.BodyErr.Error()+" (answered "+strconv.Itoa(bodyErrStatus(c.BodyErr))+")")
		}
	}
	if c.TooLarge {
		add(ruleBodyLimit, "body over the "+strconv.FormatInt(rec.BodyOverLimit, 10)+"-byte limit (answered 413)")
	}
	if names := trailerNames(c); len(names) > 0 {
		fs = append(fs, validate.Finding{Rule: ruleTrailers, Severity: validate.Warning,
			Message: "trailers " + strconv.Quote(strings.Join(names, ", ")) + " are not recorded, replayed or forwarded (only headers and body are)"})
	}
	return fs
}

// trailerNames are the trailers a call sent (those it declared, when
// only its record is known), sorted.
func trailerNames(c *Call) []string {
	var names []string
	if c.trailers != nil {
		for k := range c.trailers {
			names = append(names, k)
		}
	} else {
		for _, v := range c.Record.Headers.Values("Trailer") {
			for n := range strings.SplitSeq(v, ",") {
				if n = strings.TrimSpace(n); n != "" {
					names = append(names, http.CanonicalHeaderKey(n))
				}
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// CheckRecord finds in the record of a call what the receiver found when
// it took the call, as far as a record shows it: the protocol problems and
// the Checker's findings. A body over the limit says so in its record
// (BodyOverLimit: nothing was kept to check); one cut short is not told
// apart from one that arrived whole (a record holds the bytes, not why).
func (r *Receiver) CheckRecord(rec *capture.Record) []validate.Finding {
	if rec.Rejected != nil {
		return rejectedFindings(rec)
	}
	c := &Call{Record: rec, TooLarge: rec.BodyOverLimit > 0}
	c.Event, c.HasEvent = spec.QueryEvent(rec.Query)
	c.Findings = r.protocolFindings(c)
	body, err := rec.RequestBody()
	if err != nil {
		// Not a record listen wrote: check the body as stored.
		body = []byte(rec.Body)
	}
	c.Body = body
	r.check(c)
	return c.Findings
}

func eventList() string { return strings.Join(spec.EventNames(), ", ") }

// answer is what a call is answered with.
type answer struct {
	status int
	header http.Header
	body   []byte
	// receiverStatus is, on listen's 502 for a forward whose answer
	// began and did not come whole, the status the receiver answered.
	receiverStatus int
	// malformed says that answer came whole and was framed as no HTTP/1.1
	// answer may be (malformedAnswer).
	malformed bool
}

// plainBodies are listen's own answers, built once, when the first
// receiver needs them (not at start-up: whsim --version pays nothing): the
// body names the status so that a sender's log says what it got.
var plainBodies = sync.OnceValue(func() map[int][]byte {
	m := map[int][]byte{}
	for code := 200; code < 600; code++ {
		m[code] = []byte(`{"status":` + strconv.Itoa(code) + "}\n")
	}
	return m
})

// plainRecords are the capture's form of listen's own answers, built once
// and shared by every record (records are not written to once built).
var plainRecords = sync.OnceValue(func() map[int]*capture.Response {
	m := map[int]*capture.Response{}
	for code, body := range plainBodies() {
		m[code] = answer{status: code, body: body}.encode()
	}
	return m
})

func plain(status int) answer { return answer{status: status, body: plainBodies()[status]} }

// notAProxy is listen's answer to CONNECT: 405, the methods it takes, and
// why in a line a client's error shows (curl: "CONNECT tunnel failed,
// response 405").
func notAProxy() answer {
	return answer{
		status: http.StatusMethodNotAllowed,
		header: http.Header{"Allow": {http.MethodPost}, "Content-Type": {"text/plain; charset=utf-8"}},
		body:   []byte("whsim listen is no HTTP proxy: CONNECT opens no tunnel here; send webhook calls to it as POST\n"),
	}
}

var jsonType = []string{"application/json"}

// smallLengths are Content-Length values built once (net/http only reads
// header values, so answers can share them).
var smallLengths = func() (l [64][]string) {
	for n := range l {
		l[n] = []string{strconv.Itoa(n)}
	}
	return l
}()

func (a answer) write(w http.ResponseWriter) {
	h := w.Header()
	if a.header == nil {
		h["Content-Type"] = jsonType
	} else {
		for k, v := range a.header {
			h[k] = v
		}
		if _, ok := a.header["Content-Type"]; !ok {
			// A forwarded answer without one: net/http's server would
			// guess one the receiver did not send and the record lacks.
			h["Content-Type"] = nil
		}
	}
	if n := len(a.body); n < len(smallLengths) {
		h["Content-Length"] = smallLengths[n]
	} else {
		h["Content-Length"] = []string{strconv.Itoa(n)}
	}
	w.WriteHeader(a.status)
	w.Write(a.body)
}

func (a answer) record() *capture.Response {
	if a.header == nil {
		if resp, ok := plainRecords()[a.status]; ok && string(a.body) == string(plainBodies()[a.status]) {
			return resp
		}
	}
	return a.encode()
}

func (a answer) encode() *capture.Response {
	h := a.header
	if h == nil {
		h = http.Header{"Content-Type": jsonType}
	}
	resp := &capture.Response{Status: a.status, Headers: h}
	resp.Body, resp.BodyEncoding = capture.EncodeBody(a.body)
	return resp
}
