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
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

// DefaultMaxBody is the body limit when Config.MaxBody is 0.
const DefaultMaxBody = 10 << 20

// DefaultQueue is the observation queue's length when Config.Queue is 0.
const DefaultQueue = 4096

// IdleEvery bounds how often Config.Idle runs under load: calling it (a
// write to stdout) each time the queue ran empty cost a syscall per call.
const IdleEvery = time.Millisecond

// Checker validates a body against the spec; event is the query's event
// name, "" when the query names none. *validate.Validator is one.
type Checker interface {
	Check(body []byte, event string) []validate.Finding
}

// Recorder stores a call before it is answered. *capture.File is one.
type Recorder interface {
	Write(*capture.Record) error
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
	Respond []Sequence

	// ForwardTo, when set, sends every call on to this receiver and answers
	// with its answer; Status, FailRate and Respond do not apply.
	ForwardTo *url.URL
	// Client sends forwarded calls; nil builds one (see NewClient).
	Client *http.Client

	// MaxBody is the body limit (default DefaultMaxBody); beyond it the
	// call is answered 413.
	MaxBody int64

	// Capture records each call before it is answered; nil records nothing.
	Capture Recorder
	// Checker validates each call off the acknowledgement path; nil skips it.
	Checker Checker
	// Observe is called for every call, in arrival order of the queue, on
	// one goroutine; Idle (flush output then) once the queue has run empty,
	// at most once per IdleEvery while calls keep coming, and within
	// IdleEvery of the last call.
	Observe func(*Call)
	Idle    func()
	// Queue is the observation queue's length (default DefaultQueue).
	Queue int
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
	// Event is the query's businessType; HasEvent says it was there.
	Event    string
	HasEvent bool
	// TooLarge says the body was over MaxBody (answered 413).
	TooLarge bool
	// CaptureErr is why the call could not be recorded (answered 500).
	CaptureErr error
	// Findings are the protocol problems (method, content type, path,
	// query, size) followed by the validator's findings on the body.
	Findings []validate.Finding
}

// Verdict is "valid", "warning" or "invalid": the worst finding.
func (c *Call) Verdict() string { return validate.Verdict(c.Findings) }

// Receiver is the handler. Close it after the server has shut down.
type Receiver struct {
	cfg     Config
	resp    *responder
	seq     atomic.Uint64
	queueMu sync.RWMutex // held for reading while enqueuing; Close takes it to close the queue
	closed  bool
	queue   chan *Call
	drained chan struct{}
}

// New builds a receiver and starts its observer goroutine.
func New(cfg Config) *Receiver {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Queue <= 0 {
		cfg.Queue = DefaultQueue
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ForwardTo != nil && cfg.Client == nil {
		cfg.Client = NewClient(16, 30*time.Second)
	}
	r := &Receiver{
		cfg:     cfg,
		resp:    newResponder(&cfg),
		queue:   make(chan *Call, cfg.Queue),
		drained: make(chan struct{}),
	}
	go r.drain()
	return r
}

// Close stops taking calls, waits until every queued call was observed and
// returns. Calls arriving after Close are answered but not observed.
func (r *Receiver) Close() {
	r.queueMu.Lock()
	if !r.closed {
		r.closed = true
		close(r.queue)
	}
	r.queueMu.Unlock()
	<-r.drained
}

func (r *Receiver) drain() {
	defer close(r.drained)
	idle := time.NewTimer(IdleEvery)
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
		if r.cfg.Checker != nil && !c.TooLarge {
			c.Findings = append(c.Findings, r.cfg.Checker.Check(c.Body, c.Event)...)
		}
		if r.cfg.Observe != nil {
			r.cfg.Observe(c)
		}
		if idleC == nil && r.cfg.Idle != nil && len(r.queue) == 0 {
			idle.Reset(IdleEvery)
			idleC = idle.C
		}
	}
}

func (r *Receiver) enqueue(c *Call) {
	r.queueMu.RLock()
	defer r.queueMu.RUnlock()
	if !r.closed {
		r.queue <- c // blocks when full: back-pressure, never a drop
	}
}

// ServeHTTP answers one call.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	start := r.cfg.Now()
	c := &Call{Seq: r.seq.Add(1)}
	rec := &capture.Record{
		Time:    start,
		Remote:  req.RemoteAddr,
		Method:  req.Method,
		Path:    req.URL.Path,
		Query:   req.URL.RawQuery,
		Headers: req.Header,
	}
	c.Record = rec
	c.Event, c.HasEvent = eventOf(req.URL.RawQuery)

	body, err := readBody(w, req, r.cfg.MaxBody)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		c.TooLarge = true
		body = nil
	case err != nil:
		// The sender went away mid-body: there is no one to answer and
		// nothing whole to record.
		return
	}
	c.Body = body
	rec.Body, rec.BodyEncoding = bodyString(body)
	c.Findings = r.protocolFindings(c, req)

	var ans answer
	switch {
	case c.TooLarge:
		ans = plain(http.StatusRequestEntityTooLarge)
	case r.cfg.Path != "" && req.URL.Path != r.cfg.Path:
		ans = plain(http.StatusNotFound)
	case r.cfg.ForwardTo != nil:
		var fwd *capture.Forward
		ans, fwd = r.forward(req.Context(), req, body)
		rec.Forward = fwd
	default:
		ans = plain(r.resp.decide(c.Event))
	}

	if r.cfg.Delay > 0 {
		t := time.NewTimer(r.cfg.Delay)
		select {
		case <-t.C:
		case <-req.Context().Done():
			t.Stop()
		}
	}

	rec.Response = ans.record()
	if r.cfg.Capture != nil {
		// Durability before the answer: the sender may take a 2xx as done.
		if err := r.cfg.Capture.Write(rec); err != nil {
			c.CaptureErr = err
			ans = plain(http.StatusInternalServerError)
			rec.Response = ans.record()
		}
	}
	ans.write(w)
	r.enqueue(c)
}

// readBody reads the whole body within limit. With a Content-Length it
// reads exactly that many bytes into one buffer: net/http's body reader
// never returns more than Content-Length, so the limit is checked up front.
func readBody(w http.ResponseWriter, req *http.Request, limit int64) ([]byte, error) {
	if req.ContentLength > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	if req.ContentLength >= 0 {
		buf := make([]byte, req.ContentLength)
		_, err := io.ReadFull(req.Body, buf)
		return buf, err
	}
	return io.ReadAll(http.MaxBytesReader(w, req.Body, limit))
}

// bodyString is the record's form of body, as capture.EncodeBody makes
// it, without copying a UTF-8 body: the record's string shares the bytes
// of Call.Body, which nothing writes to after readBody.
func bodyString(body []byte) (string, string) {
	if utf8.Valid(body) {
		return unsafe.String(unsafe.SliceData(body), len(body)), capture.UTF8
	}
	return capture.EncodeBody(body)
}

func eventOf(rawQuery string) (string, bool) {
	if len(rawQuery) <= 256 && plainQuery(rawQuery) {
		// Short, nothing to unescape and no separator but '&': the first
		// businessType as url.ParseQuery would read it, without its map.
		for q := rawQuery; q != ""; {
			var pair string
			pair, q, _ = strings.Cut(q, "&")
			if k, v, _ := strings.Cut(pair, "="); k == "businessType" {
				return v, true
			}
		}
		return "", false
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil || !q.Has("businessType") {
		return "", false
	}
	return q.Get("businessType"), true
}

// plainQuery reports a query without '%', '+' or ';' (a byte loop:
// strings.ContainsAny cost as much as the rest of eventOf).
func plainQuery(q string) bool {
	for i := 0; i < len(q); i++ {
		if c := q[i]; c == '%' || c == '+' || c == ';' {
			return false
		}
	}
	return true
}

// Rule ids of the problems the receiver itself sees, beside the validator's.
const (
	RuleMethod      = "http-method"
	RuleContentType = "http-content-type"
	RulePath        = "http-path"
	RuleBodyLimit   = "http-body-limit"
)

// protocolFindings are what is wrong with the call as an HTTP request,
// before its body is looked at.
func (r *Receiver) protocolFindings(c *Call, req *http.Request) []validate.Finding {
	var fs []validate.Finding
	add := func(rule, msg string) {
		fs = append(fs, validate.Finding{Rule: rule, Severity: validate.Error, Message: msg})
	}
	if req.Method != http.MethodPost {
		add(RuleMethod, "method "+req.Method+", the spec sends POST")
	}
	ct := req.Header.Get("Content-Type")
	if ct == "application/json" {
		// What a sender sends, checked without parsing.
	} else if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		if ct == "" {
			ct = "none"
		}
		add(RuleContentType, "content type "+strconv.Quote(ct)+", the spec sends application/json")
	}
	if r.cfg.Path != "" && req.URL.Path != r.cfg.Path {
		add(RulePath, "path "+strconv.Quote(req.URL.Path)+", listening on "+strconv.Quote(r.cfg.Path)+" (answered 404)")
	}
	if !c.HasEvent {
		add(validate.RuleQueryEvent, "query has no businessType (want one of "+eventList()+")")
	}
	if c.TooLarge {
		add(RuleBodyLimit, "body over the "+strconv.FormatInt(r.cfg.MaxBody, 10)+"-byte limit (answered 413)")
	}
	return fs
}

func eventList() string { return strings.Join(spec.EventNames(), ", ") }

// answer is what a call is answered with.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// plainBodies are listen's own answers, built once: the body names the
// status so that a sender's log says what it got.
var plainBodies = func() map[int][]byte {
	m := map[int][]byte{}
	for code := 200; code < 600; code++ {
		m[code] = []byte(`{"status":` + strconv.Itoa(code) + "}\n")
	}
	return m
}()

// plainRecords are the capture's form of listen's own answers, built once
// and shared by every record (records are not written to once built).
var plainRecords = func() map[int]*capture.Response {
	m := map[int]*capture.Response{}
	for code, body := range plainBodies {
		m[code] = answer{status: code, body: body}.encode()
	}
	return m
}()

func plain(status int) answer { return answer{status: status, body: plainBodies[status]} }

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
		if resp, ok := plainRecords[a.status]; ok && string(a.body) == string(plainBodies[a.status]) {
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
