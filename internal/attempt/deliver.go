// Package attempt makes one webhook delivery: the HTTP call and its client
// (with the raw-syscall fast path), retries with backoff, optional
// signing, and the kind of error an attempt met. The load runner (package
// load) makes many. It never prints; callers get results.
package attempt

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/malformedhead"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/termsafe"
)

// Request is one delivery to make.
type Request struct {
	Event     string // the event name, for reports
	Method    string // "" means POST
	Query     string // raw query added to the target URL's own (businessType=...)
	Header    http.Header
	Body      []byte
	RequestID string // the body's requestId, for reports and webhook-id
	// NoRequestID says the body names no requestId (reqid.Named): reports
	// say so (reqid.Shown, null in JSON), apart from an empty one.
	NoRequestID bool
	// WebhookID, when set, is the webhook-id a Signer signs with instead
	// of RequestID: a replayed call keeps the id it was first sent with.
	WebhookID string
	Duplicate bool // a deliberate re-delivery of an earlier request
	// Document marks the first delivery of a document of the run: the
	// run's documents are counted by it, apart from its calls.
	Document bool
	// NoDocument says the body names no document (Template.NoDocument):
	// counted apart (load.Stats.NoDocument), never as a document.
	NoDocument bool
	Seq        int // position in the run, from 1
	// Source is where the request was read ("capture.ndjson:12", the
	// record's line), "" for one made up: a failure names the line to
	// look at or replay alone.
	Source string

	// tmpl, when set, is the template the body is made from at delivery
	// time, with RequestID spliced in: a feed holds no body of its own per
	// request, and a run's worker writes each into a buffer it reuses.
	tmpl *Template
	doc  uint64 // the document serial tmpl's DocOffs get
}

// Attempt is one try of a delivery.
type Attempt struct {
	// Unsent marks the attempt Ctrl-C stopped during the backoff before
	// it: no call was made, so it is neither a retry nor listed as one;
	// it only carries the delivery's outcome, interrupted.
	Unsent bool `json:"-"`

	Status   int           `json:"status,omitempty"`
	Latency  time.Duration `json:"-"`
	Kind     string        `json:"errorKind,omitempty"` // error kind when there was no answer
	Err      string        `json:"error,omitempty"`
	Wait     time.Duration `json:"-"` // backoff before the next attempt, 0 for the last
	Location string        `json:"location,omitempty"`
	// NotRetried says why a delivery that --retries would have tried
	// again was not: its next attempt would start after --duration, when
	// no call starts. Without it a user who asked for retries saw a
	// failure after one attempt and no reason.
	NotRetried string `json:"notRetried,omitempty"`
	// Connect is the time this attempt spent setting up a new connection
	// (dial, TLS), 0 on a kept-alive one; measured only with
	// Deliverer.Trace or on a run worker's own connection.
	Connect time.Duration `json:"-"`
	// Connected says the attempt got its connection (dialled, or a
	// kept-alive one) before it failed: a time limit that passed after it
	// was no receiver never reached. Set with Deliverer.Trace only.
	Connected bool `json:"-"`
	// StatusLine is the answer's status as sent ("404 Not Found") and
	// BodyPrefix the first MaxBodyPrefix bytes of its body (with KeepBody).
	StatusLine string `json:"-"`
	BodyPrefix []byte `json:"-"`
	// BodyCut says the body may run on past BodyPrefix (it came with
	// MaxBodyPrefix bytes or more): an excerpt of it ends in "…". Not its
	// length: a credential masked in it (Deliverer.mask) shortens it.
	BodyCut bool `json:"-"`
	// Header is the answer's header (with KeepBody).
	Header http.Header `json:"-"`
	// Truncated says the answer's body ended before its declared length
	// (an unexpected EOF): the status came, the rest did not.
	Truncated bool `json:"-"`
	// Oversized says the answer's body ran past MaxBodyRead: it was not
	// read further and its connection was closed.
	Oversized bool `json:"-"`
	// BodyKind is the kind of error that stopped the reading of the
	// answer's body after its status came (KindTimeout: the time limit
	// passed before the body ended), "" when it was read to its end.
	BodyKind string `json:"-"`
	// ClosedAsSent says the attempt went out on a kept-alive connection
	// that then ended without a byte of an answer: the receiver closed a
	// connection it had kept alive as the call arrived (an idle timeout
	// shorter than the sender's), or on the call (its handler died).
	ClosedAsSent bool `json:"-"`
	// EndedAfterSent says the connection ended (closed or reset) without
	// a byte of an answer after some of the call went out on it, a new
	// connection as well as a kept-alive one (ClosedAsSent): the receiver
	// may have read the call and taken it before it ended the connection.
	EndedAfterSent bool `json:"-"`
	// BodyErr is what stopped the reading of the body, in the reader's
	// own words, when that was no network event (BodyKind KindOther): a
	// malformed chunked encoding, say, which "error" alone would hide.
	BodyErr string `json:"-"`
	// Conn is the connection the answer was read on (net/http's path,
	// plain HTTP/1 or HTTP/1.1 over TLS; nil on the fast path and HTTP/2): found
	// later holding bytes no call asked for, its answers cannot be matched
	// to calls (Conn.Unasked).
	Conn *Conn `json:"-"`
	// BodyUnsent, when set, says the answer came (a status expected) but
	// the call's body was not sent whole, and how ("its write of 16777300
	// bytes cut: connection reset by peer"): the receiver answered before
	// it read the body, then ended the connection, and never got the call
	// whole. Such an answer fails its delivery (Unfinished), on every path
	// alike.
	BodyUnsent string `json:"-"`
	// ConnCall says which of the calls answered on Conn this one was: the
	// connection's writes as its answer began. Conn.Followed(ConnCall)
	// says the bytes no call asked for came after this answer.
	ConnCall int64 `json:"-"`
	// KeptAlive says the attempt went out on an HTTP/1 connection kept
	// alive from an earlier call of the client, which the receiver had
	// answered (net/http's path, with Deliverer.Trace or buffers, and a
	// worker's own connection on the fast path, its event loops' included;
	// HTTP/2 leaves it false). A receiver that answers only a
	// connection's first call shows itself so: its second gets nothing.
	KeptAlive bool `json:"-"`
	// Silent, on an attempt the time limit ended before an answer came
	// on a connection it had, says what passed on it: the bytes of the
	// call written, and of an answer read. nil when not measured.
	Silent *Silence `json:"-"`
}

// BodyStop says what stopped the reading of the answer's body: BodyErr
// when it has words of its own, else BodyKind.
func (a Attempt) BodyStop() string {
	if a.BodyKind == KindOther && a.BodyErr != "" {
		return a.BodyErr
	}
	return a.BodyKind
}

// Unfinished says why an attempt's answer was not read whole, "" when it
// was or none came: its body ended before its declared length, was cut
// off by an error, or did not end within the time limit. Such an answer
// fails its delivery whatever its status, and is worth another attempt,
// as a sender's HTTP client fails it (check judges it so too), on every
// path alike.
func (a Attempt) Unfinished() string {
	switch {
	case a.Status == 0:
		return ""
	case a.BodyUnsent != "":
		return BodyUnsentWords + " (" + a.BodyUnsent + ")"
	case a.Truncated:
		return "answer cut short"
	case a.BodyKind == KindTimeout:
		return "answer body not finished in time"
	case a.BodyKind == KindOther && a.BodyErr != "":
		return "answer body unreadable (" + a.BodyErr + ")"
	case a.BodyKind != "":
		return "answer body cut off (" + a.BodyKind + ")"
	}
	return ""
}

// BodyNotTakenWords start the words of a timed-out call whose write did
// not complete: the receiver never took the body (ShortError says them).
const BodyNotTakenWords = "the body was never taken"

// notTakenWords are the error of a call whose write did not complete
// within the time limit, sent bytes of it having gone out (the receiver
// took at most these, its socket's buffers some of them).
func notTakenWords(sent int, res *Result) string {
	w := BodyNotTakenWords + ": the write of the call did not complete within the time limit (" + strconv.Itoa(sent) + " bytes of the call written"
	if res.Request != nil {
		w += ", of a " + strconv.Itoa(len(res.Request.Body)) + "-byte body"
	}
	return w + ")"
}

// BodyUnsentWords say an answer came to a call whose body was not sent
// whole (Attempt.BodyUnsent), without the counts: a summary's kind.
const BodyUnsentWords = "answered before the body was sent whole"

// bodyUnsent notes in a, an answer to a call whose write ended cut (why
// says how), that its body was not sent whole: the receiver answered
// before it read it all and ended the connection, so its expected status
// says nothing of a call it never got whole. It is decided once both the
// answer and the write's end are known. A status not expected (a 413 for
// a body it will not take) fails the call already, in its own words; a
// write Ctrl-C ended is interrupted, as a body's read Ctrl-C cut is
// (answered): left as its status said, a receiver that answered 200 and
// never read the body had the call counted succeeded when Ctrl-C ended
// the wait for its write.
func (d *Deliverer) bodyUnsent(ctx context.Context, a *Attempt, why string) {
	if a.Status == 0 || !d.expect(a.Status) || a.Unfinished() != "" {
		return
	}
	if ctx.Err() != nil {
		// The write met the deadline Ctrl-C moved to now, which is no
		// "i/o timeout" of the receiver's.
		a.Kind, a.Err, a.BodyUnsent = KindInterrupted, ctx.Err().Error(), "its write interrupted"
		return
	}
	a.BodyUnsent = why
}

// writeCutWords is Attempt.BodyUnsent of a body of n bytes whose call's
// write err ended: the same words on every path. How much of it went is
// not said: net/http's writer buffers some of what it took from the body
// and stops at the first write that fails, and a socket's buffers take
// bytes the receiver then drops unread.
func writeCutWords(n int, err error) string {
	return "its write of " + strconv.Itoa(n) + " bytes cut: " + termsafe.Text(rootCause(err).Error())
}

// rootCause is err's innermost cause ("connection reset by peer" of a
// net.OpError), without the addresses and operation around it.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// MaxBodyPrefix is how much of an answer's body an Attempt keeps.
const MaxBodyPrefix = 200

// wholeRunes is b, a body's start cut at a byte count, without the start
// of a character the cut split: every excerpt would show its bytes
// escaped (\xe6\xb6), as if the receiver had sent them. A byte that
// starts no character it could complete is kept as it came.
func wholeRunes(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// MaxBodyRead is how much of an answer's body is read at most: a receiver
// answering hundreds of MiB, or without end, would otherwise have every
// call read it all. Past it the connection is closed rather than read on.
const MaxBodyRead = 1 << 20

// errOver is an answer's body that ran past MaxBodyRead.
var errOver = errors.New("answer body over " + strconv.Itoa(MaxBodyRead>>20) + " MiB")

// Result is what became of one delivery.
type Result struct {
	Request *Request
	URL     string
	// Shown is URL as whsim's output shows it (termsafe.URLString), made
	// once per target rather than for every delivery's report; "" where
	// the URL was not made (then URLString(URL) is).
	Shown    string
	OK       bool
	Attempts []Attempt
	// one is the storage of Attempts for the usual single attempt.
	one [1]Attempt
	// RespHeader and RespBody are the last answer (the body only when
	// Deliverer.KeepBody is set, up to MaxKeptBody bytes), the call's
	// credentials masked in them with KeepBody (Deliverer.mask): without
	// it RespHeader is as it came, and no output shows it.
	RespHeader http.Header
	RespBody   []byte
	// SentHeader is the request's header as sent in the last attempt.
	SentHeader http.Header
	// FromSchedule, in the open model, is the time from the delivery's
	// scheduled start to the end of its last attempt; 0 in the closed one.
	FromSchedule time.Duration
	// Late, in the open model, is how much later than its scheduled start
	// the delivery started, when it had to wait for a free worker at
	// --max-concurrency (load.Stats.Late counts these); 0 when it started
	// on time, and always in the closed model.
	Late time.Duration
}

// Tries is the number of attempts that made a call.
func (r *Result) Tries() int {
	if n := len(r.Attempts); n > 0 && r.Attempts[n-1].Unsent {
		return n - 1
	}
	return len(r.Attempts)
}

// Latency is the delivery's latency as its run's summary counts it: in
// the open model from its scheduled start to the end of its last attempt
// (FromSchedule: its wait for a free worker, and its retries, are in it),
// else its last attempt's. A delivery's line and its JSON show this one,
// so that the call a summary's max or a failed threshold comes from is
// the line that shows it.
func (r *Result) Latency() time.Duration {
	if r.FromSchedule > 0 {
		return r.FromSchedule
	}
	return r.Last().Latency
}

// Last is the final attempt.
func (r *Result) Last() Attempt {
	if len(r.Attempts) == 0 {
		return Attempt{}
	}
	return r.Attempts[len(r.Attempts)-1]
}

// Error kinds: short words for why an attempt got no answer.
const (
	KindRefused     = "connection refused"
	KindReset       = "connection reset"
	KindClosed      = "connection closed"
	KindTimeout     = "timeout"
	KindDNS         = "dns"
	KindTLS         = "tls"
	KindInterrupted = "interrupted"
	// KindLocal is a limit of the sending machine (descriptors, ports,
	// buffers), not the receiver's failure.
	KindLocal = "local"
	// KindStreamReset is an HTTP/2 call whose stream the receiver reset
	// (RST_STREAM) before its answer; KindGoAway, one whose connection
	// the receiver shut down (GOAWAY) before its answer. Their failure
	// lines say the code (ShortError).
	KindStreamReset = "stream reset"
	KindGoAway      = "goaway"
	// KindRedirect is a redirect --follow-redirects could not follow
	// through: a loop past maxRedirects, or a Location that is not http
	// or https. It is the receiver's configuration, so it is not retried.
	KindRedirect = "redirect"
	// KindMalformed is an answer that is no valid HTTP answer: a status
	// line, a header line or framing fields (two Content-Lengths, an
	// unknown Transfer-Encoding) HTTP/1.1 does not allow, another
	// protocol's bytes (an HTTP/2 SETTINGS frame), a head past the 1 MiB
	// net/http's client takes, or HTTP/2 frames whsim reset a stream or
	// ended a connection for (an invalid :status, DATA on a stream never
	// opened). The receiver was
	// reached and answered in a way no sender's HTTP client takes: its
	// fault, as a 5xx is, and retried as one (a proxy in front of it may
	// garble one answer and not the next). "error" said none of that.
	KindMalformed = "malformed answer"
	KindOther     = "error"
)

// tracesConns says rt is whsim's own transport, net/http's underneath,
// which tells a call's trace when the call has a connection (GotConn).
func tracesConns(rt http.RoundTripper) bool {
	switch rt.(type) {
	case directTransport, idleClosing:
		return true
	}
	return false
}

// Classify names the kind of a transport error.
func Classify(err error) string {
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		uaErr   x509.UnknownAuthorityError
		hostErr x509.HostnameError
		recErr  tls.RecordHeaderError
		netErr  net.Error
		redir   redirectError
		cut     headCutError
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &cut):
		// Before malformed: net/http's refusal of the line the close cut
		// is no malformed answer (headCutError).
		if cut.reset {
			return KindReset
		}
		return KindClosed
	case errors.As(err, &redir):
		return KindRedirect
	case errors.Is(err, context.Canceled):
		return KindInterrupted
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE), errors.Is(err, syscall.ENOBUFS),
		errors.Is(err, syscall.ENOMEM), errors.Is(err, syscall.EADDRNOTAVAIL):
		return KindLocal
	case errors.Is(err, syscall.ECONNREFUSED):
		return KindRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return KindReset
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout():
		return KindTimeout
	case errors.As(err, &dnsErr):
		return KindDNS
	case errors.As(err, &certErr), errors.As(err, &uaErr), errors.As(err, &hostErr), errors.As(err, &recErr):
		return KindTLS
	case malformed(err):
		return KindMalformed
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return KindClosed
	}
	return KindOther
}

// malformedError is an answer's head whsim's own reader (the fast path's)
// refused as no HTTP/1.x answer, in the words net/http's reader says it
// with: its type, not its words, makes it KindMalformed.
type malformedError string

func (e malformedError) Error() string { return string(e) }

// malformed says err is a refusal of an answer's head as no HTTP/1.x
// answer: whsim's own (malformedError), textproto's (a header line), or
// one of net/http's, which are plain strings (fmt.Errorf), known by the
// words the last error of the chain starts with (malformedhead.Said): net/http's own, before
// any byte of the receiver's it quotes.
func malformed(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		switch err.(type) {
		case malformedError, textproto.ProtocolError:
			return true
		}
		if errors.Unwrap(err) == nil {
			if malformedhead.Said(unwrapped(err.Error())) {
				return true
			}
		}
	}
	return false
}

// maxKeptBody bounds the response body kept for -v and JSON reports.
const maxKeptBody = 64 << 10

// Deliverer makes deliveries to one target URL.
type Deliverer struct {
	Client  *http.Client
	Target  *url.URL
	Retries int
	Backoff backoff
	// Sleep waits between attempts; tests pass a virtual clock.
	Sleep func(context.Context, time.Duration) error
	Now   func() time.Time
	// Signer, when set, signs every attempt afresh.
	Signer *sign.Signer
	// Expect says whether a status is a success.
	Expect func(status int) bool
	// KeepBody keeps the response body in the result.
	KeepBody bool
	// KeepFailed keeps the start of an unexpected answer's body
	// (Attempt.BodyPrefix), which a failure line shows without -v.
	KeepFailed bool
	// Credentials are values to mask in what the receiver answers beyond
	// those the Deliverer finds itself (Deliverer.mask): the secret of a
	// Signer the caller signs with itself, and headers a call may leave
	// out (check signs its own calls, and some omit the run's -H).
	Credentials termsafe.Credentials
	// OnRetry, when set, hears of each attempt that will be retried.
	OnRetry func(*Request, int, Attempt)
	// Trace measures each attempt's connection set-up (Attempt.Connect)
	// on the net/http path, at the cost of a trace per attempt.
	Trace bool

	// urls caches the parsed URL of each query: a run has a handful of
	// queries and many deliveries, so none is parsed on the hot path.
	urls sync.Map // query -> *target

	// unasked counts the fast path's connections found holding bytes no
	// call asked for (Unasked).
	unasked atomic.Int64

	// pause, when set (by tests), runs on the net/http path where a
	// loaded machine may hold the attempt between an error and the look
	// at its deadline (a stand-in for the scheduler), with the attempt's
	// context.
	pause func(context.Context)
}

// Unasked counts the kept-alive connections found holding bytes no call
// asked for, after an answer (an HTTP/1.1 receiver that answers a call
// twice, a 204 with a body, a Content-Length shorter than the body sent),
// on every path of the Deliverer's client so far: on such a connection an
// answer read may have been another call's. A 408 sent on an idle
// connection as the receiver closes it is none. Plain HTTP/1 only: under
// TLS the socket holds records, not their bytes.
func (d *Deliverer) Unasked() int64 {
	n := d.unasked.Load()
	if notes := d.notes(); notes != nil {
		n += notes.unasked.Load()
	}
	return n
}

// notes are the client's watched connections' (clientNotes), nil for a
// client of another transport.
func (d *Deliverer) notes() *clientNotes {
	switch t := d.Client.Transport.(type) {
	case directTransport:
		return t.notes
	case idleClosing:
		return t.notes
	}
	return nil
}

// SettleUnasked has Unasked count, before it is read at the end of a
// run, the bytes no call asked for that the client's open connections on
// net/http's path, idle after an answer, hold by now: net/http's reader
// notes them only as it looks at the connection again (it closes one
// with bytes left in its buffer, takes those in the socket), which may
// come after the run's last answer was read. It waits for that look, or
// the close, on each (bounded by ctx and the client's time limit), and
// looks at the socket itself. The connections stay open; what comes
// later is not seen. The fast path and the event loops look at their
// own as a worker or lane ends (rawConn.closeIdle, loop.done).
func (d *Deliverer) SettleUnasked(ctx context.Context) {
	notes := d.notes()
	if notes == nil {
		return
	}
	limit := d.Client.Timeout
	if limit <= 0 {
		limit = settleWait
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	notes.settle(ctx)
}

// settleWait bounds SettleUnasked's wait for a client with no time limit.
const settleWait = 10 * time.Second

// noteLeftover counts a fast-path connection holding b, bytes no call
// asked for, unless they are a 408 (the receiver closing it idle).
func (d *Deliverer) noteLeftover(b []byte) {
	if len(b) > 0 && !is408(b) {
		d.unasked.Add(1)
	}
}

// noteBusy counts a kept-alive connection of the fast path found unfit
// before a call (errBusy) when it holds bytes, not only the receiver's
// close: a look on this rare path only.
func (d *Deliverer) noteBusy(c net.Conn) {
	var b [len(status408)]byte
	d.noteLeftover(b[:peekBytes(c, b[:])])
}

type target struct {
	u *url.URL
	s string
	// redacted makes the error Client.Do would return ("Post
	// \"http://...\": ...") when the transport is called directly, with
	// a user that has no password masked as well (userAt).
	redacted string
	// userAt is the user of a URL without a password, as Client.Do's
	// error quotes it ("//TOKEN@"), "" for none: net/http strips a
	// password from its errors but keeps such a user, which is the
	// token itself, and a network error's text is otherwise kept as is.
	userAt string
	// shown is s as output shows it (Result.Shown).
	shown string
	// raw: a worker may send to it on its own connection (raw.go), with
	// uri in the request line.
	raw bool
	uri string
	// creds are the credentials every call to the URL carries, whatever
	// its headers: the URL's own, the Signer's secret and the Deliverer's
	// Credentials; nil for none.
	creds termsafe.Credentials
	// basic is the Authorization a URL's user and password make ("Basic
	// ..."), "" for a URL without: sent, as Client.Do sends it, unless the
	// call has an Authorization of its own.
	basic string
}

func (d *Deliverer) urlFor(query string) (*target, error) {
	if t, ok := d.urls.Load(query); ok {
		return t.(*target), nil
	}
	s := URLFor(d.Target, query)
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	// A '#' in the query is the query's (a replayed capture's, sent as
	// recorded), not the start of a fragment that s would be cut at.
	u.RawQuery, u.Fragment, u.RawFragment = joinQuery(d.Target.RawQuery, query), "", ""
	redacted, userAt := s, ""
	if _, ok := u.User.Password(); ok {
		redacted = strings.Replace(s, u.User.String()+"@", u.User.Username()+":***@", 1)
	} else if u.User != nil && u.User.String() != "" {
		userAt = "//" + u.User.String() + "@"
		redacted = strings.Replace(s, userAt, "//"+termsafe.UserMask+"@", 1)
	}
	if u.RawQuery != "" {
		redacted = strings.Replace(redacted, "?"+u.RawQuery, "?"+termsafe.MaskQuery(u.RawQuery), 1)
	}
	tg := &target{u: u, s: s, shown: termsafe.URLString(s), redacted: redacted, userAt: userAt, uri: u.RequestURI()}
	tg.creds = slices.Clip(d.Credentials).AddURL(u) // a target's own: appended to, never shared
	if d.Signer != nil {
		tg.creds = tg.creds.AddSecret(d.Signer.Secret())
	}
	if u.User != nil {
		pw, _ := u.User.Password()
		tg.basic = "Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw))
	}
	if dt, ok := d.Client.Transport.(directTransport); ok && d.Client.Jar == nil && d.Client.Timeout > 0 {
		tg.raw = !dt.netHTTP && rawOK(dt.Transport, u)
	}
	t, _ := d.urls.LoadOrStore(query, tg)
	return t.(*target), nil
}

// URLFor is the target with query added to the target's own query: the
// user's query parameters stay, businessType follows them.
func URLFor(target *url.URL, query string) string {
	u := *target
	u.RawQuery = joinQuery(u.RawQuery, query)
	return u.String()
}

// joinQuery is the target's own query with query after it.
func joinQuery(own, query string) string {
	switch {
	case query == "":
		return own
	case own == "":
		return query
	}
	return own + "&" + query
}

// retryable says whether an attempt is worth another try: no answer (but
// not an interruption or a certificate the client rejects), an answer not
// read whole, 408, 429 or 5xx. A 408 says the receiver timed out waiting
// for a call it never had whole, and may be repeated (RFC 9110, 15.5.9);
// one that closes a kept-alive connection a call went out on just then
// (idleTimedOut) has the call made again on a new one within its
// attempt, and is no attempt's answer.
func retryable(a Attempt) bool {
	switch {
	case a.Unfinished() != "", a.Status == http.StatusRequestTimeout, a.Status == http.StatusTooManyRequests, a.Status >= 500:
		return true
	case a.Status != 0:
		return false
	}
	return a.Kind != KindInterrupted && a.Kind != KindTLS && a.Kind != KindDNS && a.Kind != KindRedirect
}

// Deliver makes one delivery, retrying as configured.
func (d *Deliverer) Deliver(ctx context.Context, req *Request) *Result {
	return d.deliver(ctx, req, nil)
}

// bodyBuf is a buffer a run's worker reuses for the bodies it sends. The
// transport may still be writing a body after RoundTrip returns (a receiver
// that answers before reading it all), so the buffer is written again only
// once every request over it has been written; otherwise the worker takes
// a new one and leaves the old to the transport. The count is kept by a
// WroteRequest hook rather than by the body's Close: net/http writes the
// headers and the body in one syscall only for bodies it knows are in
// memory (an io.NopCloser of a *bytes.Reader), and a wrapper of ours would
// cost a second write per request.
type bodyBuf struct {
	b    []byte
	open atomic.Int32
	// ctx is the worker's; its tries through net/http carry the hook
	// that counts writes done (netTry).
	ctx context.Context
	// actx bounds each attempt, with timer, both reused from one attempt
	// to the next where Client.Timeout would make a context and a timer
	// per request; a timer that fired has cancelled actx, and the next
	// attempt arms new ones.
	actx   context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	fired  bool
	// plain is the header of a request with none of its own, unsigned:
	// the transport only reads it, so it is shared rather than rebuilt.
	plain http.Header
	// raw is the worker's own connection on the plain-HTTP fast path;
	// dialed is how long the current attempt took to dial it (0: reused);
	// keptAlive says the current attempt's call went out on it kept alive
	// from an earlier call, answered (Attempt.KeptAlive): the fast path
	// keeps a connection only after an answer that leaves it open.
	raw       *rawConn
	dialed    time.Duration
	keptAlive bool
	// target is the one of the worker's last delivery, to query: a run
	// sends a few queries, most often one, and the Deliverer's map of them
	// costs a hash and a lookup per call.
	query  string
	target *target
	// req is the fast path's request as written, reused; head is the head
	// of a request with the plain header to headFor by headMethod, up to
	// its Content-Length's value (appendHead).
	req        []byte
	head       []byte
	headFor    *target
	headMethod string
	// closing says the request last written asked for its connection to
	// end with its answer (a -H Connection: close): the connection is not
	// used again (RFC 9112, 9.6), though the receiver may close it only
	// after its answer went out.
	closing bool
	// result is the worker's Result, made anew in place for each of its
	// deliveries: the run's report reads it before the next one starts
	// and keeps none (load.Run).
	result Result
	// try is the worker's last try through net/http, whose hooks the
	// next reuses once none of them can come any more (netTry.settled).
	try *netTry
}

func newBodyBuf(ctx context.Context) *bodyBuf {
	return &bodyBuf{ctx: ctx, plain: http.Header{"Content-Type": {"application/json"}}}
}

// netTry is one try of a call through net/http (Deliverer.netAttempt)
// and what its trace hooks note of it: the connections it was given
// (call), and whether the one it went out on was unfit or kept alive.
// net/http runs a try's hooks on goroutines of its own, and may run some
// after the try's round trip returned: its writer's WroteRequest when
// the answer came before the write ended, or the write outlived the
// round trip; its reader's GotFirstResponseByte when it took an answer's
// first byte just as the try's time limit (or a failed write) closed the
// connection. Such a hook, run on the state of the worker's next try,
// ended that try's write with the last one's error (a body sent whole
// said cut: a 200 failed) and read its connection as net/http handed
// it over (a data race, found by -race in CI on a loaded machine). So a
// try's hooks are reused for the next try only once none of them can
// come (settled): otherwise the next try takes new ones, and a late
// hook notes into a try no one reads.
type netTry struct {
	call callConn
	// unfit is set by the GotConn hook when the connection net/http gave
	// the try was unfit (watchConn): closed by the receiver, or holding
	// bytes no call asked for, before anything of the try was written on
	// it; or by the try's caller on a kept-alive one found closed as the
	// try was given it (closedUnanswered). wait bounds that hook's wait
	// (the attempt's context).
	unfit bool
	wait  context.Context
	// reused is set by the same hook: the try went out on a kept-alive
	// connection.
	reused bool
	// hooks are the try's trace hooks; ctx is parent (an attempt's
	// context) with hooks and call (callKey), made again only for
	// another parent: a worker's attempts share one (bodyBuf.start)
	// until a time limit ends it.
	hooks       httptrace.ClientTrace
	parent, ctx context.Context
	// handed says the try's round trip returned an answer.
	handed bool
	// bodies counts the try's bodies counted open (bodyBuf.reader) whose
	// write net/http has not yet said ended.
	bodies atomic.Int32
}

// takeOne takes one off n unless it is 0, and says whether it did.
func takeOne(n *atomic.Int32) bool {
	for {
		v := n.Load()
		if v <= 0 {
			return false
		}
		if n.CompareAndSwap(v, v-1) {
			return true
		}
	}
}

// newNetTry makes a try's hooks; open, when not nil, is the count of its
// worker's bodies net/http is still writing (bodyBuf.open).
func newNetTry(open *atomic.Int32) *netTry {
	nt := &netTry{}
	nt.hooks = httptrace.ClientTrace{
		WroteRequest: func(i httptrace.WroteRequestInfo) {
			// A body of this try's was counted open (reader), one for
			// each write: a call without a body counted none, and its
			// write takes none off (not another try's body's).
			if open != nil && takeOne(&nt.bodies) {
				open.Add(-1)
			}
			nt.call.wroteRequest(i.Err)
		},
		GotConn: func(i httptrace.GotConnInfo) {
			nt.reused = i.Reused
			nt.unfit = !fitConn(nt.wait, i)
			nt.call.got(i)
		},
		GotFirstResponseByte: func() {
			nt.call.answered.Store(true)
			nt.call.wrote()
		},
		PutIdleConn: nt.call.putIdle,
	}
	return nt
}

// over is parent with the try's hooks and call.
func (nt *netTry) over(parent context.Context) context.Context {
	if nt.ctx == nil || nt.parent != parent {
		// A copy: WithClientTrace composes the hooks it is given with
		// parent's (a Deliverer's Trace), in place.
		hooks := nt.hooks
		nt.parent = parent
		nt.ctx = httptrace.WithClientTrace(context.WithValue(parent, callKey{}, &nt.call), &hooks)
	}
	return nt.ctx
}

// settled says that no hook of the try can come any more: net/http gave
// it no connection (no goroutine of net/http's holds it), or its round
// trip returned an answer (the reader's GotFirstResponseByte came before
// the answer was handed over) and its write ended (WroteRequest came).
func (nt *netTry) settled() bool {
	if !nt.call.had {
		return true
	}
	if !nt.handed {
		return false
	}
	e := nt.call.end.Load()
	if e == nil {
		return false
	}
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// next is the try to make after last (nil: none yet), and the worker's
// from then on with buf: last itself, made anew, when settled.
func (buf *bodyBuf) next(last *netTry) *netTry {
	if last == nil || !last.settled() {
		last = buf.newTry()
	}
	last.unfit, last.reused, last.handed = false, false, false
	last.call.start()
	return last
}

// newTry makes a try's hooks, the worker's from then on with buf.
func (buf *bodyBuf) newTry() *netTry {
	if buf == nil {
		return newNetTry(nil)
	}
	buf.try = newNetTry(&buf.open)
	return buf.try
}

// fitConn says whether a connection net/http gave a call may carry it: a
// kept-alive HTTP/1 one, plain or over TLS, is checked (watchConn.ready);
// a new one is taken, and so is an HTTP/2 one, whose socket carries the
// receiver's frames for other streams. HTTP/1.1 over TLS is watched
// above its records (dialTLS), and waits until what came to its socket
// was read through the TLS (readyTLS), and so is one reached through an
// http:// proxy's tunnel (dialTunnel); one reached through an https://
// proxy is TLS on a watched socket, looked at below the records: whatever
// waits there on an idle connection (a close_notify, a session ticket,
// bytes no call asked for) sends the call on a new connection, as on a
// plain one.
func fitConn(ctx context.Context, i httptrace.GotConnInfo) bool {
	if !i.Reused {
		return true
	}
	c := i.Conn
	if tc, ok := c.(*tls.Conn); ok {
		if tc.ConnectionState().NegotiatedProtocol == http2Proto {
			return true
		}
		c = tc.NetConn()
	}
	wc, ok := c.(*watchConn)
	if !ok {
		return true
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return wc.ready(ctx)
}

// start arms the attempt's deadline and returns its context.
func (bb *bodyBuf) start(timeout time.Duration) context.Context {
	if bb.timer == nil || bb.fired {
		actx, cancel := context.WithCancelCause(bb.ctx)
		bb.actx, bb.cancel, bb.fired = actx, cancel, false
		bb.timer = time.AfterFunc(timeout, func() { cancel(context.DeadlineExceeded) })
		return actx
	}
	bb.timer.Reset(timeout)
	return bb.actx
}

// stop disarms the deadline at the end of an attempt.
func (bb *bodyBuf) stop() {
	if !bb.timer.Stop() {
		bb.fired = true
	}
}

// release lets go of a buffer the worker no longer uses.
func (bb *bodyBuf) release() {
	if bb.timer != nil {
		bb.timer.Stop()
		bb.cancel(context.Canceled)
	}
	if bb.raw != nil {
		bb.raw.closeIdle() // kept alive after an answer: a delivery's failure closed it
		bb.raw = nil
	}
}

// reader returns a body over body for try nt, counted open until the
// transport has written it (or failed to). Without bb nothing is counted.
func (bb *bodyBuf) reader(body []byte, nt *netTry) io.ReadCloser {
	if bb != nil {
		nt.bodies.Add(1)
		bb.open.Add(1)
	}
	return io.NopCloser(bytes.NewReader(body))
}

// deliver makes one delivery; with bb (a worker's), the body of a request
// from a template is written into *bb's buffer when the transport is done
// with it, else into a new one that *bb then holds.
func (d *Deliverer) deliver(ctx context.Context, req *Request, bb **bodyBuf) *Result {
	var buf *bodyBuf
	if bb != nil {
		if *bb == nil || (*bb).open.Load() != 0 {
			if *bb != nil {
				(*bb).release()
			}
			*bb = newBodyBuf(ctx)
		}
		buf = *bb
		ctx = buf.ctx
	}
	res, t := d.begin(req, buf)
	if t != nil {
		d.attempts(ctx, req, res, t, buf, 0)
	}
	return res
}

// begin readies a delivery: its body, when made from a template (into
// buf's buffer, with buf), its Result (buf's own, with buf) and its
// target. Without a target (its URL would not parse) the Result is
// already the delivery's outcome.
func (d *Deliverer) begin(req *Request, buf *bodyBuf) (*Result, *target) {
	if t := req.tmpl; t != nil && t.spliced() {
		var b []byte
		if buf != nil {
			b = buf.b[:0]
		}
		b = t.build(b, req.RequestID, req.doc)
		req.Body = b
		if buf != nil {
			buf.b = b
		}
	}
	var res *Result
	if buf != nil {
		res = &buf.result
		*res = Result{Request: req}
	} else {
		res = &Result{Request: req}
	}
	var t *target
	var err error
	if buf != nil && buf.target != nil && buf.query == req.Query {
		t = buf.target
	} else if t, err = d.urlFor(req.Query); err == nil && buf != nil {
		buf.query, buf.target = req.Query, t
	}
	if err != nil {
		res.URL = URLFor(d.Target, req.Query)
		res.one[0] = Attempt{Kind: KindOther, Err: err.Error()}
		res.Attempts = res.one[:]
		return res, nil
	}
	res.URL, res.Shown = t.s, t.shown
	res.Attempts = res.one[:0]
	return res, t
}

// attempts makes a delivery's attempts from the n-th (0: the first) until
// one is its last.
func (d *Deliverer) attempts(ctx context.Context, req *Request, res *Result, t *target, buf *bodyBuf, n int) {
	for ; ; n++ {
		a, retryAfter := d.attempt(ctx, req, res, t, buf)
		if !d.again(ctx, req, res, n, a, retryAfter) {
			return
		}
	}
}

// last notes in res the outcome of a, the delivery's n-th attempt, and
// says whether it is the delivery's last: it succeeded, or may not be
// retried.
func (d *Deliverer) last(ctx context.Context, res *Result, n int, a Attempt) bool {
	if a.Status != 0 {
		res.OK = d.expect(a.Status) && a.Unfinished() == ""
	}
	return res.OK || n >= d.Retries || !retryable(a) || ctx.Err() != nil
}

// again adds a, the delivery's n-th attempt, to res and says whether
// another follows: then its backoff has been waited.
func (d *Deliverer) again(ctx context.Context, req *Request, res *Result, n int, a Attempt, retryAfter time.Duration) bool {
	if d.last(ctx, res, n, a) {
		res.Attempts = append(res.Attempts, a)
		return false
	}
	wait := d.Backoff.Delay(n+1, retryAfter)
	if !mayStartAt(ctx, time.Now().Add(wait)) {
		// The retry would start past --duration: no call does.
		a.NotRetried = "its retry, in " + wait.Round(time.Millisecond).String() + ", would start after --duration"
		res.Attempts = append(res.Attempts, a)
		return false
	}
	a.Wait = wait
	res.Attempts = append(res.Attempts, a)
	if d.OnRetry != nil {
		d.OnRetry(req, n+1, a)
	}
	sleep := d.Sleep
	if sleep == nil {
		sleep = sleepContext
	}
	if err := sleep(ctx, a.Wait); err != nil {
		res.Attempts = append(res.Attempts, Attempt{Kind: KindInterrupted, Err: err.Error(), Unsent: true})
		return false
	}
	return true
}

func (d *Deliverer) expect(status int) bool {
	if d.Expect == nil {
		return status >= 200 && status < 300
	}
	return d.Expect(status)
}

func (d *Deliverer) attempt(ctx context.Context, req *Request, res *Result, t *target, buf *bodyBuf) (Attempt, time.Duration) {
	method := req.Method
	if method == "" {
		method = http.MethodPost
	}
	tr, direct := d.Client.Transport.(directTransport)
	direct = direct && d.Client.Jar == nil
	raw := direct && buf != nil && t.raw
	h, plain, host := d.header(req, res, t, buf)
	if raw {
		return d.rawAttempt(ctx, tr.Transport, method, req, res, t, buf, h, plain, host)
	}
	return d.netAttempt(ctx, tr, direct, method, req.Body, res, t, buf, h, host)
}

// header is an attempt's request header, signed afresh when a Signer
// signs, and the host it goes to; plain says it is buf's plain header (a
// worker's request with none of its own, unsigned). It is noted in res as
// the header sent.
func (d *Deliverer) header(req *Request, res *Result, t *target, buf *bodyBuf) (h http.Header, plain bool, host string) {
	host = t.u.Host
	plain = buf != nil && len(req.Header) == 0 && d.Signer == nil
	if plain {
		h = buf.plain
	} else {
		h = make(http.Header, len(req.Header)+4)
		h["Content-Type"] = []string{"application/json"}
		for k, v := range req.Header {
			h[k] = v
		}
		if v := h.Get("Host"); v != "" {
			host = v
			h.Del("Host")
		}
	}
	if t.basic != "" && h.Get("Authorization") == "" {
		// The transport called directly does not do what Client.Do does
		// with a URL's userinfo: it would go out with no credential.
		if plain {
			h, plain = h.Clone(), false
		}
		h.Set("Authorization", t.basic)
	}
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	if d.Signer != nil {
		id := req.RequestID
		if req.WebhookID != "" {
			id = req.WebhookID
		}
		if id == "" {
			// Receivers require a webhook-id: a body without a
			// requestId gets the one replay --sign makes from it.
			id = req.ReplayWebhookID(true)
		}
		d.Signer.Sign(h, id, now(), req.Body)
	}
	res.SentHeader = h
	return h, plain, host
}

// netAttempt is an attempt through net/http, with header h (signed
// already) to host. It is apart from attempt so that the attempt's
// context, which its trace hooks keep, is made on this path only: on the
// fast path it would be a heap allocation per call for nothing.
func (d *Deliverer) netAttempt(ctx context.Context, tr directTransport, direct bool, method string, body []byte, res *Result, t *target, buf *bodyBuf, h http.Header, host string) (Attempt, time.Duration) {
	u := t.u
	actx := ctx
	if timeout := d.Client.Timeout; direct && timeout > 0 {
		// What Client.Timeout would do: bound the attempt from dialling to
		// the end of the response body; ctx (Ctrl-C) still cuts it short.
		if buf != nil {
			actx = buf.start(timeout)
			defer buf.stop()
		} else {
			var cancel context.CancelFunc
			actx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
	}
	// The request is built by hand rather than by NewRequest, which would
	// parse the URL again for every delivery; the URL is shared read-only.
	base := http.Request{
		Method: method, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Host: host,
		Body: http.NoBody, ContentLength: int64(len(body)),
	}
	var connStart time.Time
	var connect time.Duration
	var gotConn bool // GotConn came: connect is the set-up's whole time
	if d.Trace || buf == nil {
		// GetConn to GotConn: the wait for a connection, which on a new
		// one is its dial and handshake (a kept-alive one counts nothing).
		actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
			GetConn: func(string) { connStart = time.Now() },
			GotConn: func(i httptrace.GotConnInfo) {
				gotConn = true
				if !i.Reused && !connStart.IsZero() {
					connect = time.Since(connStart)
				}
			},
		})
	}
	start := time.Now()
	var resp *http.Response
	var err error
	// The try made last, whose hooks the next reuses when none of them
	// can come any more (netTry).
	var nt *netTry
	if buf != nil {
		nt = buf.try
	}
	// A call refused on an unfit connection went out on none: it is made
	// again, on another, within the same attempt (a few times at most, for
	// a receiver that closes every connection it answers on). Each unfit
	// connection is dropped as it is found (watchConn.ready closes it, or
	// net/http's reader did), never the pool's others: net/http puts a
	// connection back idle before it hands a bodyless answer to its call,
	// and closing it then fails a call the receiver answered
	// ("CloseIdleConnections called"). The tries outnumber the pool's idle
	// connections (unfitTries), so that against a receiver that closes
	// every one the last goes out on a new connection.
	tries := unfitTries(d.Client.Transport)
	redone := false // after a kept-alive connection's 408 (idleTimedOut)
	for try := 0; ; try++ {
		nt = buf.next(nt)
		nt.wait = actx
		call := &nt.call
		hr := base.WithContext(nt.over(actx))
		hr.Header = h
		// net/http ends a connection after its answer for Close, not for
		// the header alone; RFC 9112 (9.6) has a client that sent close
		// send nothing more on that connection.
		hr.Close = asksClose(h)
		if len(body) > 0 {
			hr.Body = buf.reader(body, nt)
			// net/http asks for the body again to make the call again
			// on its own, or to follow a redirect: call refuses the
			// former once some of the call went out.
			this := nt
			hr.GetBody = func() (io.ReadCloser, error) {
				if err := call.resend(); err != nil {
					return nil, err
				}
				return buf.reader(body, this), nil
			}
		}
		if direct {
			resp, err = tr.RoundTrip(hr)
			if err != nil && closedUnanswered(err, nt.reused) {
				nt.unfit = true
			}
			if err != nil && !nt.unfit {
				if d.pause != nil {
					d.pause(actx)
				}
				if context.Cause(actx) == context.DeadlineExceeded && ctx.Err() == nil && deadlineErr(err) {
					err = timeoutError(err.Error() + " (Client.Timeout exceeded while awaiting headers)")
				}
				err = &url.Error{Op: method[:1] + strings.ToLower(method[1:]), URL: t.redacted, Err: err}
			}
		} else {
			resp, err = d.Client.Do(hr)
			if err != nil && closedUnanswered(err, nt.reused) {
				nt.unfit = true
			}
		}
		nt.handed = err == nil
		if err == nil && nt.call.keptAlive && !redone && try < tries && actx.Err() == nil && idleTimedOut(resp) {
			// The receiver closed the kept-alive connection idle as the
			// call went out: made again on another, once (net/http
			// closes this one with the body).
			resp.Body.Close()
			redone = true
			continue
		}
		if err == nil || !nt.unfit || try == tries || actx.Err() != nil {
			break
		}
	}
	call, reused := &nt.call, nt.reused
	if err == nil {
		// net/http takes "+20" and "099" for statuses, and "HTTP/2.0" or
		// "HTTP/0.9" for an HTTP/1 answer's version; an answer is HTTP/1.x
		// and three digits from 100 to 999 (statusOf), or none.
		if msg := malformedStatus(resp); msg != "" {
			// Unread: the connection goes with it, and carries no other
			// call, as on the fast path.
			closeUnread(resp)
			err = &url.Error{Op: method[:1] + strings.ToLower(method[1:]), URL: t.redacted, Err: malformedError(msg)}
			resp = nil
		}
	}
	if err != nil && len(body) > 0 {
		if a, ok := d.heldAnswered(ctx, actx, call, t, res, len(body), start, err); ok {
			a.Connect, a.KeptAlive = connect, call.keptAlive
			return a, 0
		}
	}
	if err != nil && call.conn != nil && ctx.Err() == nil {
		if cut, ok := call.conn.cutHead(err).(headCutError); ok {
			err = &url.Error{Op: method[:1] + strings.ToLower(method[1:]), URL: t.redacted, Err: cut}
		}
	}
	if err != nil {
		h2Kind, msg := h2Failure(err)
		switch {
		case call.noStream != nil && context.Cause(actx) == context.DeadlineExceeded && ctx.Err() == nil && deadlineErr(err):
			// The time limit ended its wait for an HTTP/2 stream: nothing of
			// it went out, and "awaiting headers" would say it had.
			err = &url.Error{Op: method[:1] + strings.ToLower(method[1:]), URL: t.redacted, Err: timeoutError(call.noStream.Error())}
		case msg != "":
			err = &url.Error{Op: method[:1] + strings.ToLower(method[1:]), URL: t.redacted, Err: errors.New(msg)}
		case call.conn != nil && call.conn.h2Settings.Load() && ctx.Err() == nil:
			err = &url.Error{Op: method[:1] + strings.ToLower(method[1:]), URL: t.redacted, Err: errH2C}
		}
		kind := Classify(err)
		if kind == KindOther && h2Kind != "" {
			kind = h2Kind
		}
		if kind == KindMalformed && !call.had && tracesConns(d.Client.Transport) {
			// Refused before the call had a connection: the bytes were a
			// proxy's answer to CONNECT (net/http's words do not say so),
			// not the receiver's. Only net/http's own transport says when
			// a call has one: another (whsimtest's, in memory) never does.
			kind = KindOther
		}
		if kind == KindInterrupted && ctx.Err() == nil {
			kind = KindTimeout // the client's own deadline
		}
		var silent *Silence
		if kind == KindTimeout && ctx.Err() == nil {
			// "awaiting headers" would send the user to a slow answer
			// when the receiver never took the whole call, and says
			// nothing of what went out and what came.
			why := ""
			if len(body) > 0 {
				why = call.notTaken(res)
			}
			if silent = call.silence(res, d.Client.Timeout, why != ""); silent != nil && why == "" {
				why = silent.Words()
			}
			if why != "" {
				err = &url.Error{Op: method[:1] + strings.ToLower(method[1:]), URL: t.redacted, Err: timeoutError(why)}
			}
		}
		closedAsSent := reused && staleErr(err)
		// On a new connection too: a receiver that reads the call and
		// resets may have taken it. Whether it could have is what went
		// out, not whether the connection was kept alive.
		endedAfterSent := closedAsSent || staleErr(err) && call.wentOut()
		if !gotConn && !connStart.IsZero() {
			// It failed still setting up its connection: all of its
			// time went there (a full listen backlog, when long).
			connect = time.Since(connStart)
		}
		return Attempt{Kind: kind, Err: d.maskedErr(kind, err, t, res), Latency: time.Since(start), Connect: connect, Connected: gotConn, ClosedAsSent: closedAsSent, EndedAfterSent: endedAfterSent,
			KeptAlive: call.keptAlive, Silent: silent}, 0
	}
	var kept []byte
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// A switch no call asks for: what follows is no HTTP, and
		// net/http hands the connection over as the body, which no time
		// limit bounds. The answer is its head; Close ends the connection.
		resp.Body.Close()
	} else {
		kept, err = readBody(resp, d.keep(resp.StatusCode))
	}
	if err != nil && d.pause != nil {
		d.pause(actx)
	}
	if err != nil && !errors.Is(err, errOver) && context.Cause(actx) == context.DeadlineExceeded && ctx.Err() == nil && deadlineErr(err) {
		err = timeoutError("body not finished within the time limit")
	}
	a, wait := d.answered(ctx, t, resp, kept, err, start, res)
	a.Connect = connect
	a.Conn, a.ConnCall = call.answeredOn()
	a.KeptAlive = call.keptAlive
	if len(body) > 0 {
		if why := call.writeCut(actx, len(body)); why != "" {
			d.bodyUnsent(ctx, &a, why)
		}
	}
	return a, wait
}

// deadlineErr says err is what an attempt's deadline gives (its context
// ended, or a connection's deadline passed): the only error the deadline
// may be blamed for. An error of its own (a reset, a close) met before
// the deadline stays what it is, however late a loaded machine let this
// goroutine look at the deadline after it.
func deadlineErr(err error) bool {
	var ne net.Error
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// answered is the attempt an answer makes, and the wait its Retry-After
// asks for, on either path; err is what reading its body gave.
func (d *Deliverer) answered(ctx context.Context, t *target, resp *http.Response, kept []byte, err error, start time.Time, res *Result) (Attempt, time.Duration) {
	a := Attempt{Status: resp.StatusCode, Latency: time.Since(start)}
	switch {
	case err == nil:
	case ctx.Err() != nil:
		// Ctrl-C cut the body short: the answer is unfinished (no
		// success on its status alone) and the delivery interrupted. On
		// the fast path the read met the deadline Ctrl-C moved to now,
		// which is no "i/o timeout".
		a.Kind, a.Err, a.BodyKind = KindInterrupted, ctx.Err().Error(), KindInterrupted
	case errors.Is(err, errOver):
		a.Oversized = true
	case errors.Is(err, io.ErrUnexpectedEOF):
		a.Truncated = true
	default:
		a.BodyKind = Classify(err)
		switch a.BodyKind {
		case KindInterrupted: // the attempt's own deadline
			a.BodyKind = KindTimeout
		case KindOther, KindMalformed:
			// net/http's words, which may quote the receiver's bytes,
			// without the "http: " some of them start with and the
			// fast path's do not. A malformed trailer is a body's fault,
			// said in its words as a malformed chunk is (Unfinished).
			a.BodyKind = KindOther
			a.BodyErr = termsafe.Text(unwrapped(err.Error()))
			if _, msg := h2Failure(err); msg != "" {
				a.BodyErr = msg
			}
		}
	}
	if d.KeepBody {
		a.StatusLine = resp.Status
		if a.StatusLine == "" {
			a.StatusLine = strconv.Itoa(resp.StatusCode)
		}
		a.Header = resp.Header
	}
	if len(kept) > 0 {
		// A copy: the fast path reuses the buffer of a lean answer's prefix.
		a.BodyPrefix = append([]byte(nil), kept[:min(len(kept), MaxBodyPrefix)]...)
		a.BodyCut = len(kept) >= MaxBodyPrefix
		if a.BodyCut {
			a.BodyPrefix = wholeRunes(a.BodyPrefix)
		}
	}
	if !d.KeepBody {
		kept = nil // only the failure line's prefix was asked for
	}
	res.RespHeader, res.RespBody = resp.Header, kept
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		a.Location = resp.Header.Get("Location")
	}
	if a.StatusLine != "" || len(kept) > 0 || len(a.BodyPrefix) > 0 || a.Location != "" || a.BodyErr != "" {
		d.mask(&a, t, res)
	}
	var retryAfter time.Duration
	if v := resp.Header.Get("Retry-After"); v != "" {
		now := time.Now
		if d.Now != nil {
			now = d.Now
		}
		retryAfter, _ = parseRetryAfter(v, now())
	}
	return a, retryAfter
}

// mask masks in a, and in res's answer, the credentials of the call it
// answers (termsafe.Credentials): the target's, and those of the header
// sent (the -H values, a signature, a Basic credential from the URL's
// user). It is the one place an answer's text is masked: everything whsim
// shows of an answer (check's reasons, send's lines, JUnit files, reports,
// job summaries, JSON) is made of what an Attempt and a Result hold. Only
// an answer with text kept gets here, so a load run that keeps none pays
// nothing, nor does one whose calls carry no credential.
func (d *Deliverer) mask(a *Attempt, t *target, res *Result) {
	creds := credentialsOf(t, res)
	if len(creds) == 0 {
		return
	}
	// A body kept whole up to its limit, or the prefix of one, may end in
	// the middle of a credential: its start is masked too.
	a.BodyPrefix = creds.Bytes(a.BodyPrefix, a.BodyCut)
	a.StatusLine = creds.String(a.StatusLine, false)
	a.Location = creds.String(a.Location, false)
	a.BodyErr = creds.String(a.BodyErr, false)
	a.Err = creds.String(a.Err, false)
	if a.Header != nil {
		// Kept only with KeepBody, as RespHeader is shown only then (-v).
		a.Header = creds.Header(a.Header)
		res.RespHeader = a.Header
	}
	if res.RespBody != nil {
		res.RespBody = creds.Bytes(res.RespBody, len(res.RespBody) >= maxKeptBody)
	}
}

// credentialsOf are the credentials of a call to t whose header is
// res's: the target's and those of the header sent.
func credentialsOf(t *target, res *Result) termsafe.Credentials {
	creds := slices.Clip(t.creds) // appended to below, never written through
	for k, vs := range res.SentHeader {
		// A look at the names only, which allocates nothing: a call
		// without a credential header costs no more.
		if termsafe.SecretHeader(k) {
			for _, v := range vs {
				creds = creds.AddHeader(k, v)
			}
		}
	}
	return creds
}

// maskedErr is the text of err, an attempt's of kind that got no answer,
// with the call's credentials masked (credentialsOf) when the kind is one
// whose words may quote the receiver's bytes: a malformed answer's
// (net/http quotes the status line it refused), or an error of no kind.
// A network event's words are the system's, and are left as they are,
// but for the URL they quote: its user without a password (t.userAt),
// which Client.Do's error keeps, is masked in every kind.
func (d *Deliverer) maskedErr(kind string, err error, t *target, res *Result) string {
	text := err.Error()
	if t.userAt != "" {
		text = strings.ReplaceAll(text, t.userAt, "//"+termsafe.UserMask+"@")
	}
	if kind != KindMalformed && kind != KindOther {
		return text
	}
	return credentialsOf(t, res).String(text, false)
}

// timeoutError is the error Client.Do gives when its Timeout passes, for
// the direct path to give the same.
type timeoutError string

func (e timeoutError) Error() string   { return string(e) }
func (e timeoutError) Timeout() bool   { return true }
func (e timeoutError) Temporary() bool { return true }

// ShortError is the error of an attempt without Go's wrapping: the kind,
// unless the kind says too little.
func ShortError(a Attempt) string {
	if a.Kind == KindStreamReset || a.Kind == KindGoAway {
		// Their words name the kind, and the code the kind alone hides:
		// "stream reset by the receiver (PROTOCOL_ERROR)".
		return unwrapped(a.Err)
	}
	if a.Kind == KindTimeout && (strings.Contains(a.Err, noStreamWords) || strings.Contains(a.Err, BodyNotTakenWords)) {
		// A timeout of a call that never went out: "timeout" alone would
		// send the user to a slow receiver, which never read it.
		return a.Kind + ": " + unwrapped(a.Err)
	}
	if (a.Kind == KindClosed || a.Kind == KindReset) && HeadCutWords(a.Err) {
		// Where the receiver's close cut its answer's head: "connection
		// closed" alone hid that an answer began (headCutError).
		return unwrapped(a.Err)
	}
	if a.Kind != KindOther && a.Kind != KindMalformed && a.Kind != KindTLS && a.Kind != KindDNS && a.Kind != KindLocal && a.Kind != KindRedirect {
		return a.Kind
	}
	msg := a.Err
	switch a.Kind {
	case KindTLS:
	case KindLocal:
		// And the call that failed: "socket: too many open files".
		msg = lastParts(msg, 2)
	case KindDNS:
		// "Post \"http://...\": dial tcp: lookup h: no such host" -> the
		// last, telling part.
		msg = lastParts(msg, 1)
	default:
		msg = unwrapped(msg)
		if quotesH2Settings(msg) {
			msg += h2cHint
		}
	}
	return a.Kind + ": " + msg
}

// unwrapped is an error's text without Go's wrapping: the url.Error's
// `Post "http://...": ` and net/http's prefixes. What follows is kept
// whole: it may quote the receiver's bytes ("malformed MIME header
// line: \"X-A: 1\x00\""), which cutting at the last ": " would cut into.
func unwrapped(msg string) string {
	if op, rest, ok := strings.Cut(msg, " "); ok && op != "" && strings.HasPrefix(rest, `"`) {
		if q, err := strconv.QuotedPrefix(rest); err == nil && strings.HasPrefix(rest[len(q):], ": ") {
			msg = rest[len(q)+2:]
		}
	}
	for _, wrap := range []string{"net/http: HTTP/1.x transport connection broken: ", "net/http: ", "http: "} {
		msg = strings.TrimPrefix(msg, wrap)
	}
	return msg
}

// lastParts is the last n of the ": "-separated parts of msg.
func lastParts(msg string, n int) string {
	i := len(msg)
	for ; n > 0; n-- {
		j := strings.LastIndex(msg[:i], ": ")
		if j < 0 {
			return msg
		}
		i = j
	}
	return msg[i+2:]
}

// readBody keeps up to MaxKeptBody of resp's body when keep, and reads
// the rest, so that the connection can carry the next call, up to
// MaxBodyRead in all: past it, errOver, and the connection is closed (by
// the Close of a body not read to its end, closeUnread, or by the
// caller).
func readBody(resp *http.Response, keep bool) (kept []byte, err error) {
	body := resp.Body
	if body == http.NoBody {
		return nil, nil // the fast path's lean answer, its body dropped already
	}
	var n int64
	if keep {
		kept, err = io.ReadAll(io.LimitReader(body, maxKeptBody))
		n = int64(len(kept))
	}
	if err == nil {
		_, err = io.CopyN(io.Discard, body, MaxBodyRead+1-n)
		switch {
		case err == io.EOF:
			err = nil
		case err == nil:
			err = errOver
		}
	}
	if err != nil {
		closeUnread(resp)
		return kept, err
	}
	body.Close()
	return kept, err
}

// closeUnread closes resp's body before its end, and its connection with
// it. Go 1.27's transport reads on a body closed early whose declared
// length is at most 256 KiB (or unknown), and keeps its connection: the
// connection of an answer that was no HTTP/1.x answer, or of one past
// MaxBodyRead, carried the next call, and the call's PutIdleConn hook
// was heard after Close returned, as the next call began. A declared
// length past what it reads on has it end the connection at once, as
// earlier Go did of any (net/http reads the length only after Close
// hands it the body, and leaves resp to the caller).
func closeUnread(resp *http.Response) {
	resp.ContentLength = math.MaxInt64
	resp.Body.Close()
}

// FailureText is an attempt's error as a failure line says it: a TLS
// failure gives its reason (x509's) and the way out.
func FailureText(a Attempt) string {
	if a.Kind != KindTLS {
		return ShortError(a)
	}
	reason := a.Err
	if i := strings.LastIndex(reason, "x509: "); i >= 0 {
		return "tls: " + reason[i:] + " (--cacert <ca.pem> trusts a private CA, --insecure skips the check)"
	}
	if i := strings.LastIndex(reason, "tls: "); i >= 0 {
		reason = reason[i:]
	}
	if strings.Contains(reason, "does not look like a TLS handshake") {
		return reason + " (the receiver speaks plain HTTP: use an http:// URL)"
	}
	return reason
}

// maxUnfitTries is how often at least one attempt is made again for a
// kept-alive connection found closed (or closing as the call crossed it),
// each time on another (unfitTries): other workers hand the pool back
// connections the receiver is about to close, so a small pool's own idle
// connections are not all a call may meet.
const maxUnfitTries = 16

// unfitTries is how often one attempt on the client's transport rt may be
// made again for a kept-alive connection found unfit. Each unfit one is
// dropped as it is found, so once the pool's idle connections (NewClient's
// MaxIdleConnsPerHost) are spent the call goes out on a new connection:
// the tries are one more than the pool holds. Another transport
// (whsimtest's, in memory) keeps maxUnfitTries.
func unfitTries(rt http.RoundTripper) int {
	var tr *http.Transport
	switch t := rt.(type) {
	case directTransport:
		tr = t.Transport
	case idleClosing:
		tr = t.Transport
	}
	if tr == nil {
		return maxUnfitTries
	}
	return max(maxUnfitTries, tr.MaxIdleConnsPerHost)
}

// closedUnanswered says a call on a kept-alive connection found the
// receiver had closed that connection before the call was sent: net/http's
// "server closed idle connection". net/http gives that error only when its
// reader met the receiver's FIN while no call was expected on the
// connection, and a call is expected before its first byte is written; so
// the receiver closed first and never took this call (an HTTP/1.1 server
// reads no call after its own close). Making it again on a new connection
// is not a retry after delivery: it is the stale-connection check net/http
// cannot make before it writes. The error is unexported, so it is known by
// its exact text, wherever it sits in the chain. watchConn keeps a call off
// a connection already seen closed; this is the close seen a moment late.
func closedUnanswered(err error, reused bool) bool {
	if !reused {
		return false
	}
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == "http: server closed idle connection" {
			return true
		}
	}
	return false
}
