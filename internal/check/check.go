// Package check grades a webhook receiver from the outside: it sends
// batteries of calls (valid variants, malformed calls, re-deliveries,
// events out of order, load, signatures) and judges each answer. Cases are
// data built from the spec model and the seeded generator; results are
// streamed to a callback, never printed.
package check

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/suggest"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/validate"
)

// Check ids. They are stable: users select them with --checks and CI
// systems match on them.
const (
	acceptsValid     = "accepts-valid"
	rejectsMalformed = spec.CheckRejectsMalformed
	duplicates       = spec.CheckDuplicates
	outOfOrder       = "out-of-order"
	Latency          = "latency"
	UnknownEvent     = "unknown-event"
	eventVsBody      = "event-contradicts-body"
	Load             = "load"
	signature        = "signature"
	Effects          = "effects"
)

// Info describes one check.
type Info struct {
	ID      string
	Summary string
}

// Checks lists every check in the order a run makes them: latency last,
// because it judges the calls of the others.
func Checks() []Info {
	return []Info{
		{acceptsValid, "every call the ERP may send gets 2xx: all events in both shapes, nulls, unknown members, escaped keys, a large document"},
		{rejectsMalformed, "calls the receiver cannot have understood get 4xx, not 2xx (dropped) or 5xx (retried forever); a 4xx counts only from a receiver that accepts valid calls of the event"},
		{UnknownEvent, "an event name the spec does not list, over a body of a known kind, gets 2xx (ignored) or 4xx, not 5xx"},
		{eventVsBody, "a body of one kind under the other kind's event gets 4xx"},
		{duplicates, "the same call delivered again, serially and 8 at once, and the same document under new requestIds, gets 2xx every time"},
		{outOfOrder, "a void or audit of a document never created, and a void twice, get 2xx or 4xx, not 5xx"},
		{signature, "with a secret: correct Standard Webhooks signatures in any byte form, beside unknown versions, or retried pass; tampered, stale, malformed or missing ones get 4xx"},
		{Load, "realistic distinct calls at a concurrency all get 2xx: no 4xx, 5xx, timeout or connection error"},
		{Effects, "with a probe: each document is held once (re-deliveries, retries, copies at once, the same document under new requestIds), whole, voided or audited in any order, and every load document is kept"},
		{Latency, "the p99 latency of the run's calls outside load (a timeout counted at the time limit) is within the budget"},
	}
}

// IDs lists the check ids in run order.
func IDs() []string {
	var out []string
	for _, c := range Checks() {
		out = append(out, c.ID)
	}
	return out
}

// unknownCheckError names a check id that does not exist.
type unknownCheckError struct{ ID string }

func (e *unknownCheckError) Error() string {
	if hint := suggest.Hint(e.ID, IDs()); hint != "" {
		return fmt.Sprintf("unknown check %q%s", e.ID, hint)
	}
	return fmt.Sprintf("unknown check %q (want %s)", e.ID, strings.Join(IDs(), ", "))
}

// Select resolves --checks and --exclude-checks into the ids to run, in run
// order. An empty only means every check.
func Select(only, exclude []string) ([]string, error) {
	for _, id := range slices.Concat(only, exclude) {
		if !slices.Contains(IDs(), id) {
			return nil, &unknownCheckError{ID: id}
		}
	}
	var out []string
	for _, id := range IDs() {
		if (len(only) == 0 || slices.Contains(only, id)) && !slices.Contains(exclude, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// Runnable is ids without the signature check when the run signs nothing
// (it needs a secret); dropped says it was asked for and left out.
func Runnable(ids []string, signed bool) (kept []string, dropped bool) {
	if signed || !slices.Contains(ids, signature) {
		return ids, false
	}
	return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == signature }), true
}

// SeedOf is the seed of a run asked for with seed (0: a random one) and
// the anchor its documents are dated around at now: with a fixed seed, the
// same anchor and so the same bytes.
func SeedOf(seed uint64, now time.Time) (uint64, time.Time) {
	anchor := payload.Around(seed, now)
	if seed == 0 {
		seed = rand.Uint64() | 1
	}
	return seed, anchor
}

// Verdict is the grade of one case.
type Verdict string

// Verdicts. A warning does not fail a run.
const (
	Pass Verdict = "pass"
	Warn Verdict = "warn"
	Fail Verdict = "fail"
	// Skip is a check that could not run, said once with why.
	Skip Verdict = "skipped"
)

// Case is one request of a check, as data: what is sent, byte for byte.
type Case struct {
	Check string
	Name  string
	// Event is the query's businessType, "" when the case sends none.
	Event     string
	Query     string
	Header    http.Header
	Body      []byte
	RequestID string
	// WebhookID is the webhook-id the run signed it with, once sent.
	WebhookID string
	// Copies is how many times the request is delivered (0 means once);
	// AtOnce says all together rather than one after another.
	Copies int
	AtOnce bool
	// NewRequestIDs: each delivery after the first carries a requestId of
	// its own, every other byte unchanged (Delivery): the same document
	// sent again as a new message, as a manual re-send or a re-emitted
	// event does.
	NewRequestIDs bool
}

// Delivery is the k-th delivery of c (from 0): c itself, or for a case
// sent under new requestIds from the second on, a copy whose body carries
// a requestId that follows from c's and k.
func (c *Case) Delivery(k int) *Case {
	if !c.NewRequestIDs || k == 0 {
		return c
	}
	start, end := reqid.Find(c.Body)
	if start < 0 {
		return c
	}
	d := *c
	d.WebhookID = ""
	d.RequestID = reqid.Salted(c.RequestID, uint64(k))
	d.Body = reqid.Splice(c.Body, start, end, d.RequestID)
	return &d
}

// Result is the grade of one case. For a case made of several deliveries
// (a re-delivery group) Status and Latency are those of the delivery the
// verdict rests on.
type Result struct {
	Case    *Case
	Verdict Verdict
	Status  int
	Latency time.Duration
	// Took is the case's wall time, from the end of the case before it in
	// its check (the calls it needed first are its time too) to its
	// grading; an effects document's from its first call. Ended is when it
	// was graded. JUnit readers show a case's time as what it took, which
	// Latency (one call's, or the load's p99) is not.
	Took  time.Duration
	Ended time.Time
	// Reason says why a case warns or fails: the status, what was
	// expected, the variant.
	Reason string
	// Inconclusive marks a warning that the case could not be judged (the
	// call it rests on was not accepted, copies meant to meet never did),
	// as its reason says, rather than one judged with something to say: no
	// pass, where a reader counts passes (go test's subtests, JUnit).
	Inconclusive bool
	// Repro, when set, reproduces a failure made of several calls (the
	// effects check: the calls, then the probe); else the reporter makes
	// one from the case.
	Repro string
	// Effects, for a failed effects document, is its calls and the
	// probe's answers, which a report shows and check --rerun sends again.
	Effects *EffectsRecord
	// bodies are what --save-cases writes beside the case for Repro.
	bodies []savedBody
	// calls, when set, are every call the case stands for (load's), which
	// --save-cases writes as its records.
	calls []*Case
	// probe.Answer is what the receiver answered, when it did: its status line
	// and the start of its body (as received, not yet terminal-safe).
	Answer *Reply
	// quiet: the verdict rests on a call that got no answer at all, which
	// is held back in case the receiver has stopped answering.
	quiet bool
	// hinted: the raw-bytes hint is on the reason already.
	hinted bool
	// answered: the verdict rests on calls the receiver answered, where
	// Status does not say so (load's pass, whose worst status is none).
	answered bool
	// answers are where the case's answers were read: bytes no call asked
	// for that followed one fail it, and ones that followed another call's
	// on a connection it used make it inconclusive (runner.drain).
	answers []answerOn
	// strayAfter: it failed for bytes no call asked for after its answer
	// (runner.strayAfter), which one call alone may not show.
	strayAfter bool
}

// credentialsOf are a run's credentials to mask in answers (Deliverer's
// Credentials): the -H values, on every call's answer, those of a case
// that leaves them out too (a receiver may echo what an earlier call
// carried), and the signer's secret: check signs its calls itself, so its
// Deliverer has no Signer to find it in.
func credentialsOf(h http.Header, s *sign.Signer) termsafe.Credentials {
	c := termsafe.Credentials(nil).AddHeaders(h)
	if s != nil {
		c = c.AddSecret(s.Secret())
	}
	return c
}

// Reply is a receiver's answer, as shown in reasons.
type Reply struct {
	Status string      // "404 Not Found"
	Header http.Header // shown with -v
	Body   []byte      // the first attempt.MaxBodyPrefix bytes, credentials masked
	Cut    bool        // the body may run on past Body (attempt.Attempt.BodyCut)
}

// Tally counts the verdicts of one check.
type Tally struct {
	Pass int `json:"pass"`
	Warn int `json:"warn"`
	// Inconclusive counts the warnings that are cases not judged (Result's
	// Inconclusive), which no reader may count as passes.
	Inconclusive int `json:"inconclusive,omitempty"`
	Fail         int `json:"fail"`
	// Skipped says why a check that could not run did not.
	Skipped string `json:"skipped,omitempty"`
}

// LoadStats are the figures of the load check. The percentiles are over
// the calls that were answered or timed out (at the time limit); Answered
// 0 and TimedOut 0 mean there are none.
type LoadStats struct {
	Calls       int
	Concurrency int
	PerSecond   float64
	P50, P90    time.Duration
	P99, Max    time.Duration
	Answered    int
	TimedOut    int
	// The counts the load case's reason gives (every one measured on
	// every run of load): FailedByStatus the answers not 2xx, by status;
	// FailedByError the calls that got no whole answer (none, or one cut
	// off, or one that came before the body went whole), by the reason's
	// words for them; CutShort2xx the 2xx answers cut short, of them
	// CutShortChunked those with no declared length; OverBound2xx the 2xx
	// answers whose body ran past attempt.MaxBodyRead; ClosedAsSent and
	// KeptAliveHeld the calls that got no answer on kept-alive connections
	// the receiver closed as they went out, or held unanswered past the
	// time limit (a receiver that answers a connection's first call
	// only); UnaskedAnswers the kept-alive connections found holding bytes
	// after an answer that no call asked for.
	FailedByStatus  map[int]int
	FailedByError   map[string]int
	CutShort2xx     int
	CutShortChunked int
	OverBound2xx    int
	ClosedAsSent    int
	KeptAliveHeld   int
	UnaskedAnswers  int
}

// Stop says where a run ended early: after which check/case, and why.
// Interrupted: after the last case graded ("the start" when none was).
// Stopped: after the last case graded on an answer of the receiver, ""
// when none was (its calls that were answered may belong to cases whose
// results were held back and dropped with the stop, never reported).
type Stop struct {
	After  string `json:"after,omitempty"`
	Reason string `json:"reason"`
	// answered is how many calls of the run the receiver answered: with
	// no case graded (load's and effects' are graded at their end), it
	// may still have answered many.
	answered int
}

// Where says where the receiver stopped answering, after "stopped
// answering": "after accepts-valid/x", or that no case run got an answer,
// or how many calls it answered before any case was graded.
func (s *Stop) Where() string {
	switch {
	case s.After == "" && s.answered == 1:
		return "after it answered 1 call, before any case it belongs to was graded"
	case s.After == "" && s.answered > 1:
		return fmt.Sprintf("after it answered %d calls, before any case they belong to was graded", s.answered)
	case s.After == "":
		return "before any case run got an answer"
	}
	return "after " + s.After
}

// unrouted is a run every answered call of which got one status that
// says the call never reached a handler.
type unrouted struct {
	Status int
	Hint   string
}

// keptAliveBroken is what showed a receiver that answers a connection's
// first call only: TimedOut calls on connections kept alive after an
// answer got none within Limit, none got one, and Answered calls on new
// connections did.
type keptAliveBroken struct {
	TimedOut, Answered int
	Limit              time.Duration
}

// Progress is where a run is: called after every graded case.
type Progress struct {
	Check, Case string
	Done, Total int
	Elapsed     time.Duration
}

// Summary is the outcome of a run.
type Summary struct {
	Checks map[string]*Tally
	// Order is the ids of the checks that ran, in run order.
	Order []string
	Load  *LoadStats
	// P99 and Slowest are over the calls of the run outside load.
	P99     time.Duration
	Slowest string
	// Timeouts is how many calls outside load timed out.
	Timeouts int
	// Stopped: the receiver stopped answering; Interrupted: Ctrl-C. NotRun
	// lists the checks either left out, in run order.
	Stopped, Interrupted *Stop
	NotRun               []string
	// CutShort is the check the run ended in, when it graded some cases.
	CutShort string
	// Done is how many cases were graded, of Total.
	Done, Total int
	// Unrouted, when set, is the one status every answered call got.
	Unrouted *unrouted
	// SeenBefore: every first delivery got 409 or a 5xx saying duplicate.
	SeenBefore bool
	// KeptAliveBroken, when set, says the receiver answered calls on new
	// connections and none on a connection kept alive after an answer.
	KeptAliveBroken *keptAliveBroken
	// Effects are the effects check's figures, nil when it did not probe.
	Effects *EffectsStats
}

// Skipped lists the checks of the run that could not run (a skip is no
// pass), in run order.
func (s *Summary) Skipped() []string {
	var out []string
	for _, id := range s.Order {
		if t := s.Checks[id]; t != nil && t.Skipped != "" && !slices.Contains(s.NotRun, id) {
			out = append(out, id)
		}
	}
	return out
}

// Unjudged counts the cases of the checks that ran that could not be
// judged (inconclusive warnings): no pass, and no failure.
func (s *Summary) Unjudged() int {
	n := 0
	for _, id := range s.Order {
		if t := s.Checks[id]; t != nil && !slices.Contains(s.NotRun, id) {
			n += t.Inconclusive
		}
	}
	return n
}

// NothingJudged reports whether the run ran cases and judged none: every
// case of the checks that ran was inconclusive (a receiver that answers
// every call 401, --checks rejects-malformed). Such a run verified
// nothing; read unattended (an exit code, a CI badge) "no check failed"
// would be a pass, so it is no pass. A run cut short (stopped,
// interrupted) is said as such instead.
func (s *Summary) NothingJudged() bool {
	if s.Stopped != nil || s.Interrupted != nil {
		return false
	}
	judged, unjudged := 0, 0
	for _, id := range s.Order {
		t := s.Checks[id]
		if t == nil || t.Skipped != "" || slices.Contains(s.NotRun, id) {
			continue
		}
		judged += t.Pass + t.Fail + t.Warn - t.Inconclusive
		unjudged += t.Inconclusive
	}
	return judged == 0 && unjudged > 0
}

// Unproved says in a few words what a skipped check leaves unproved and
// the flag that would have run it, for the verdict line.
func Unproved(id, why string) string {
	if why == SkippedExcluded {
		return "every case excluded (--exclude-cases)"
	}
	switch id {
	case Effects:
		return "storage not verified (--probe)"
	case signature:
		return "signatures not verified (--secret)"
	}
	return "not verified"
}

// skippedSignature is the reason the signature check is skipped when it
// was asked for without a secret.
const skippedSignature = "the signature check needs --secret: it would have proved that the receiver verifies Standard Webhooks signatures over the raw bytes received and refuses tampered, stale or missing ones (the spec has no signing: this matters only where the calls are signed)"

// skip reports check id as not run, with why.
func (r *runner) skip(id, why string) {
	r.sum.Checks[id].Skipped = why
	r.report(Result{Case: &Case{Check: id, Name: "not-run"}, Verdict: Skip, Reason: why})
}

// Failed reports whether any check failed, the receiver stopped answering
// or the run was interrupted: a script reading only "failed" must not take
// a run cut short for a pass.
func (s *Summary) Failed() bool {
	if s.Stopped != nil || s.Interrupted != nil || s.NothingJudged() {
		return true
	}
	for _, t := range s.Checks {
		if t.Fail > 0 {
			return true
		}
	}
	return false
}

// MaxLoadCount is the most calls the load check makes: its calls are
// built, each a document with its own number, before the first is sent,
// and kept for the effects check; a bigger load is whsim send's.
const MaxLoadCount = 10000

// Config is one run's settings.
type Config struct {
	// Client sends every call; it must not follow redirects (the ERP does
	// not) and its pool should hold LoadConcurrency connections.
	Client *http.Client
	Target *url.URL
	Checks []string
	Seed   uint64
	// Anchor is the time generated documents are dated shortly before;
	// with a fixed seed, a fixed anchor gives the same bytes.
	Anchor time.Time
	// Now is the clock of signatures.
	Now func() time.Time
	// Header is added to every call.
	Header http.Header
	// Signer, when set, signs every call (Standard Webhooks) and enables
	// the signature check.
	Signer *sign.Signer
	// ReportUnsigned: without a Signer, the signature check (asked for by
	// name) is reported skipped rather than left out of the run.
	ReportUnsigned bool
	// Strict makes a type error answered 2xx a failure, not a warning.
	Strict        bool
	LatencyBudget time.Duration
	// LoadCount is how many calls the load check makes, at most
	// MaxLoadCount.
	LoadCount       int
	LoadConcurrency int
	// Concurrent is how many copies of one call the duplicates check
	// delivers at once; 0 means DefaultConcurrent.
	Concurrent int
	// Nonce is mixed into every requestId, webhook-id and document number,
	// so that a run repeated with the same Seed sends the same documents
	// under new ids (a receiver that keeps its data would rightly see
	// duplicates). 0 keeps the ids the Seed gives: the byte-exact repeat.
	Nonce uint64
	// ExcludeCases are globs (path.Match, against the case name or
	// check/name) of cases not to send.
	ExcludeCases []string
	// Progress, when set, hears of each graded case.
	Progress func(Progress)
	// Notice, when set, hears at once of what makes the rest of the run
	// read differently: every call so far got one status that says the
	// call was never handled (a wrong path, method or credentials).
	Notice func(string)
	// Probe, when set, asks the receiver what it holds and runs the
	// effects check.
	Probe probe.Probe
	// Settle is how long a probe is asked again until its answer matches;
	// 0 asks once. See DefaultSettle.
	Settle time.Duration
	// SaveDir is where the reporter writes every case's body
	// (--save-cases): an effects reproduction reads a large one from there.
	SaveDir string
	// SaveCommand, when set, is the command that runs a check again with
	// its cases saved (Reporter's SaveCommand), for a caller with no
	// --save-cases to point to.
	SaveCommand string
	// CurlTLS are the curl flags of the run's TLS settings (-k, --cacert
	// FILE), for an effects reproduction to run word for word.
	CurlTLS []string

	// copyHeld, when set (by tests), runs where a loaded machine may hold
	// a copy of a burst before it goes out (a stand-in for the scheduler):
	// with the copy's index, and ended(j), closed once copy j's delivery
	// has ended.
	copyHeld func(i int, ended func(j int) <-chan struct{})
}

// DefaultConcurrent is how many copies of one call arrive at once by
// default: enough that a receiver which checks, then inserts, without a
// lock lets two through.
const DefaultConcurrent = 8

// DefaultLatencyBudget is the p99 latency a run's calls must stay within
// unless told otherwise. The spec names no time-out; webhook senders
// commonly give up after 5 to 30 seconds (GitHub after 10), and a receiver
// should answer first and do the work after. One second at p99 leaves room
// for a cold connection pool or a GC pause while still catching a receiver
// that processes the document before answering.
const DefaultLatencyBudget = time.Second

// UnreachableError says the first call of a run got no answer at all.
type UnreachableError struct {
	URL  string
	Kind string
	// Ended says the receiver ended the call otherwise than by an answer,
	// in HTTP/2's ways (a stream reset, a GOAWAY), which Kind words.
	Ended bool
	// Case names the first call's case ("accepts-valid/CREATE_RECEIVABLE_DOC/described")
	// when it is that call which got no answer, "" otherwise: whsimtest
	// names it, where a call held in a handler is the test's to find.
	Case string
}

// unreachable is the UnreachableError of an attempt to target that got
// no answer.
func unreachable(target *url.URL, a attempt.Attempt) *UnreachableError {
	return &UnreachableError{URL: termsafe.URL(target), Kind: attempt.FailureText(a),
		Ended: a.Kind == attempt.KindStreamReset || a.Kind == attempt.KindGoAway}
}

// firstTimedOut is the UnreachableError of a run whose first call timed
// out (a): a receiver slow to start, unless the attempt says why it got
// no answer (a call that waited for an HTTP/2 stream the receiver did
// not allow never went out: the receiver was reached).
func firstTimedOut(target *url.URL, a attempt.Attempt) *UnreachableError {
	if why := attempt.ShortError(a); why != attempt.KindTimeout {
		return &UnreachableError{URL: termsafe.URL(target), Kind: why + ", the first call got no answer", Ended: true}
	}
	if a.Connected {
		// A connection was made and the call went out on it: "cannot
		// reach" sent the user to the network for a receiver that takes
		// connections (or whose listening socket's backlog does) and
		// answers none.
		return &UnreachableError{URL: termsafe.URL(target), Ended: true,
			Kind: "timeout, the first call went out on a connection made to it and got no answer (a receiver that hangs on its calls; one slow to start needs a longer --timeout)"}
	}
	return &UnreachableError{URL: termsafe.URL(target),
		Kind: "timeout, the first call got no answer (one slow to start needs a longer --timeout)"}
}

func (e *UnreachableError) Error() string {
	if e.Kind == attempt.KindClosed || e.Kind == attempt.KindReset {
		// The connection was taken and the call written: reached.
		return fmt.Sprintf("no answer from %s: the connection was ended before an answer came (%s)", e.URL, e.Kind)
	}
	if attempt.HeadCutWords(e.Kind) {
		// Reached, and the receiver's close cut the answer it began:
		// the words say where.
		return fmt.Sprintf("no answer from %s: %s", e.URL, e.Kind)
	}
	if why, ok := strings.CutPrefix(e.Kind, attempt.KindMalformed+": "); ok {
		// Reached, and answered with no valid HTTP answer: the
		// receiver's defect, not the network's.
		return fmt.Sprintf("no HTTP answer from %s: %s", e.URL, notHTTP(why))
	}
	if why, ok := strings.CutPrefix(e.Kind, attempt.KindOther+": "); ok {
		// Reached, and the call ended otherwise than by an answer: an
		// HTTP/2 stream the receiver reset, bytes that are no HTTP answer.
		// "cannot reach" would send the user to the network, and send's
		// last line says the same of the same calls.
		return fmt.Sprintf("no answer from %s: %s", e.URL, why)
	}
	if e.Ended {
		return fmt.Sprintf("no answer from %s: %s", e.URL, e.Kind)
	}
	return fmt.Sprintf("cannot reach %s: %s", e.URL, e.Kind)
}

// errStopped ends a run whose receiver stopped answering.
var errStopped = errors.New("the receiver stopped answering")

// Calls in a row without an answer that stop a run: a timeout costs the
// whole time limit, so fewer of those. Calls sent together (a burst, the
// load) may all fail at once and count their number on top.
const (
	quietToStop    = 3
	timeoutsToStop = 2
)

// ValidateExclude checks --exclude-cases globs. An empty one (a comma too
// many, 'a/*,') can leave out nothing: said as such, before the run.
func ValidateExclude(globs []string) error {
	for _, g := range globs {
		if strings.TrimSpace(g) == "" {
			return fmt.Errorf("--exclude-cases %q: an empty glob leaves out nothing (a comma too many?)", strings.Join(globs, ","))
		}
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("--exclude-cases %q: %w", g, err)
		}
	}
	return nil
}

// newDeliverer is the Deliverer of a run's calls over client.
func newDeliverer(cfg Config, client *http.Client) *attempt.Deliverer {
	return &attempt.Deliverer{Client: client, Target: cfg.Target, Now: cfg.Now, KeepBody: true, Trace: true,
		Credentials: credentialsOf(cfg.Header, cfg.Signer)}
}

// interrupted ends a run that Ctrl-C cut short in its i-th check: what was
// graded is reported, the summary says after which case, the checks from
// the i-th on are not run.
func (r *runner) interrupted(i int, err error) (*Summary, error) {
	r.flush()
	after := r.last
	if after == "" {
		after = "the start"
	}
	r.sum.Interrupted = &Stop{After: after, Reason: "interrupted"}
	r.cutAt(i)
	r.finish()
	return r.sum, err
}

// Run makes the checks cfg.Checks names (every check when it is empty), in
// run order, against cfg.Target and reports each result as it is graded.
// report is called from one goroutine at a time. The signature check runs
// only with a Signer. A receiver that stops answering ends the run with
// Summary.Stopped and no error; Ctrl-C (ctx) with Summary.Interrupted and
// ctx's error.
func Run(ctx context.Context, cfg Config, report func(Result)) (*Summary, error) {
	if cfg.Client == nil || cfg.Target == nil {
		return nil, errors.New("check: no client or no target")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Concurrent < 2 {
		cfg.Concurrent = DefaultConcurrent
	}
	if err := ValidateExclude(cfg.ExcludeCases); err != nil {
		return nil, err
	}
	val, err := validate.New(validate.Options{})
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var r *runner
	// Every result graded is reported before Run returns, however it
	// ends: those held for their connections after a last look at each.
	defer func() { r.drain(true) }()
	r = &runner{
		cfg: cfg, val: val, ctx: rctx, cancel: cancel, user: ctx, began: time.Now(), since: time.Now(),
		d:   newDeliverer(cfg, cfg.Client),
		sum: &Summary{Checks: map[string]*Tally{}},
		out: report, byEvent: map[string]*load.Histogram{},
		statuses: map[int]int{}, accepted: map[string]bool{}, tried: map[string]bool{}, outsideBad: map[string]int{},
	}
	if cfg.Anchor.IsZero() {
		cfg.Anchor = cfg.Now()
		r.cfg.Anchor = cfg.Anchor
	}
	r.cases = newBuilder(cfg.Seed, cfg.Anchor, cfg.Nonce)
	r.cases.numbers = newNumbering(cfg.Seed, cfg.Nonce)
	ids, err := Select(cfg.Checks, nil)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if id == signature && cfg.Signer == nil && !cfg.ReportUnsigned {
			continue
		}
		r.sum.Order = append(r.sum.Order, id)
		r.sum.Checks[id] = &Tally{}
	}
	if r.sum.Total, err = r.count(); err != nil {
		return nil, err
	}
	if r.nothingLeft() {
		return nil, &NoCaseLeftError{Globs: cfg.ExcludeCases}
	}
	if cfg.Probe != nil && slices.Contains(r.sum.Order, Effects) {
		if err := r.probeSanity(ctx, 0, false, spec.Invoice); err != nil {
			if ctx.Err() != nil {
				return r.interrupted(0, ctx.Err())
			}
			r.cutAt(-1) // before the first check: none ran
			return r.sum, err
		}
	}
	for i, id := range r.sum.Order {
		var err error
		r.since = time.Now()
		if err = rctx.Err(); err == nil {
			err = r.run(id)
		}
		if err == nil && r.excludedAll[id] {
			r.skip(id, SkippedExcluded)
		}
		if err == nil {
			r.notice()
			continue
		}
		r.mu.Lock()
		stopped, fatal := r.stopped, r.fatal
		if stopped != nil {
			// The check's calls are over: answers recorded after the
			// stop was called count too.
			stopped.answered = r.answered
		}
		r.mu.Unlock()
		switch {
		case fatal != nil:
			// No verdict: the summary says where the run ended and which
			// checks it never reached, as for a stop.
			r.cutAt(i)
			return r.sum, fatal
		case stopped != nil:
			r.pending = nil // the calls that found it gone: said by Stopped
			// Named by what was reported: an answered call of a case held
			// back and dropped just now is in no result, and its check
			// may read "not run".
			stopped.After = r.lastAnswered
			r.sum.Stopped = stopped
			r.cutAt(i)
			r.finish()
			return r.sum, nil
		case ctx.Err() != nil:
			return r.interrupted(i, ctx.Err())
		}
		// Any other end (the probe failing on the run's documents): no
		// verdict either, and the summary says which checks it never
		// reached, or a report read back by --rerun passes them.
		r.cutAt(i)
		return r.sum, err
	}
	r.flush()
	r.finish()
	return r.sum, nil
}

func (r *runner) run(id string) error {
	if r.excludedAll[id] {
		return nil // skipped by the caller
	}
	switch id {
	case acceptsValid:
		return r.acceptsValid()
	case rejectsMalformed:
		return r.rejectsMalformed()
	case UnknownEvent:
		return r.unknownEvent()
	case eventVsBody:
		return r.eventVsBody()
	case duplicates:
		return r.duplicates()
	case outOfOrder:
		return r.outOfOrder()
	case signature:
		if r.cfg.Signer == nil {
			r.skip(signature, skippedSignature)
			return nil
		}
		return r.signature()
	case Load:
		return r.load()
	case Effects:
		return r.effects(r.ctx)
	case Latency:
		return r.latency()
	}
	return nil
}

// cutAt says which checks a run that ended in its i-th check did not run:
// the later ones, and those (the i-th, or the earlier ones whose results
// were all held back and dropped) that graded nothing; the i-th, when it
// graded something, was cut short. An earlier check that was skipped
// (signature without a secret) stays skipped: it graded nothing by design.
func (r *runner) cutAt(i int) {
	for j, id := range r.sum.Order {
		t := r.sum.Checks[id]
		graded := t.Pass+t.Warn+t.Fail > 0
		switch {
		case j < i && t.Skipped != "":
		case j > i, !graded:
			r.sum.NotRun = append(r.sum.NotRun, id)
		case j == i:
			r.sum.CutShort = id
		}
	}
}

// finish draws the run-wide conclusions: nothing routed, ids seen before.
func (r *runner) finish() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.statuses) == 1 {
		for s := range r.statuses {
			if h := unroutedHint(s); h != "" {
				r.sum.Unrouted = &unrouted{Status: s, Hint: h}
			}
		}
	}
	r.sum.SeenBefore = r.firsts >= 3 && r.firstDup == r.firsts
	r.sum.Timeouts = r.timeouts
	if r.keptAliveBroken() {
		r.sum.KeptAliveBroken = &keptAliveBroken{TimedOut: r.keptAliveTimedOut, Answered: r.newAnswered, Limit: r.cfg.Client.Timeout}
	}
}

// notice tells Config.Notice, once, after a check, when every call so
// far got one status that says it was never handled: the user can stop
// the run there rather than read every failure it causes.
func (r *runner) notice() {
	if r.cfg.Notice == nil {
		return
	}
	r.mu.Lock()
	var msg string
	if !r.noticed && len(r.statuses) == 1 && r.answered >= 5 {
		for s := range r.statuses {
			if h := unroutedHint(s); h != "" {
				msg = fmt.Sprintf("every call so far got %d %s: %s", s, http.StatusText(s), h)
			}
		}
	}
	if msg != "" {
		r.noticed = true
	}
	r.mu.Unlock()
	if msg != "" {
		r.cfg.Notice(msg)
	}
}

// unroutedHint is the likely cause of every call getting status s, "" for
// a status that says the call was handled.
func unroutedHint(s int) string {
	switch s {
	case http.StatusNotFound:
		return "nothing is routed at this URL: check the path of --url"
	case http.StatusMethodNotAllowed:
		return "the URL does not take POST: check the path of --url and that its route takes POST"
	case http.StatusUnauthorized, http.StatusForbidden:
		return "the receiver refuses every call before reading it: check the credentials (-H 'Authorization: ...') or --secret"
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		// An http URL whose server sends it to https, a path without its
		// trailing slash: nothing handled, as with a 404.
		return "the URL redirects every call, and the ERP does not follow redirects: give --url the address it redirects to"
	}
	return ""
}

// runner is the state of one run.
type runner struct {
	cfg Config
	val *validate.Validator
	// d sends the run's calls until onNew is set (deliverer).
	d     *attempt.Deliverer
	onNew atomic.Pointer[attempt.Deliverer]
	cases *builder
	// controls makes the valid calls sent only as evidence (control).
	controls *builder
	sum      *Summary
	out      func(Result)
	// ctx is the run's: cancelled by the user (user) or by a stop.
	ctx    context.Context
	cancel context.CancelFunc
	user   context.Context
	began  time.Time
	// since is when the last case was graded, or the current check began
	// (stamp).
	since time.Time

	// pending are results resting on calls that got no answer, held until
	// the receiver answers again (then reported) or the run stops (then
	// said by one line). last is the last case reported; lastAnswered
	// the last reported whose verdict rests on an answer, after which a
	// stop says the receiver stopped answering.
	pending      []Result
	last         string
	lastAnswered string
	noticed      bool
	// excludedAll are the checks --exclude-cases left no case of: skipped,
	// never counted as passed.
	excludedAll map[string]bool

	mu       sync.Mutex
	calls    int
	answered int
	statuses map[int]int
	// accepted: events of which a valid call got 2xx; tried: of which one
	// was sent.
	accepted, tried map[string]bool
	// firsts and firstDup count first deliveries of valid calls, and those
	// of them refused as duplicates.
	firsts, firstDup int
	// row counts the calls in a row, in the order sent, without an
	// answer: the stop rule's.
	row quietRow
	// keptAliveAnswered and keptAliveTimedOut count the calls that went
	// out on a connection kept alive after an answer (Attempt.KeptAlive)
	// and got an answer, or none within the time limit; newAnswered those
	// answered on a new connection. None answered on a kept-alive one, and
	// new ones answered: the receiver answers a connection's first call
	// only (keptAliveBroken).
	keptAliveAnswered, keptAliveTimedOut, newAnswered int
	// outside counts the valid calls sent alone outside load, outsideBad
	// those of them answered 5xx or 429, with an answer that did not come
	// whole, or not at all, by what they got (outsideFailure): load's
	// failure is no sign of load when the receiver fails alike without it.
	// Copies sent at once are not alone: a receiver that turns calls away
	// past so many in flight fails them for the load they make (the
	// duplicates check says so), not with or without load.
	outside    int
	outsideBad map[string]int
	stopped    *Stop
	fatal      error
	timeouts   int

	// held are the results graded and counted, not yet reported: a
	// connection their answers came on is still open, and may yet be
	// found holding bytes no call asked for (drain). answers are where
	// each case's answers were read so far, by case (check/name), under
	// connMu: record runs with mu held, and so may report.
	held    []Result
	connMu  sync.Mutex
	answers map[string][]answerOn

	hist load.Histogram
	// byEvent holds each event's latencies: the slowest event is the one
	// with the highest p99, which one stray slow call does not decide.
	byEvent map[string]*load.Histogram
	slowID  string
	slowAt  time.Duration
	timed   []timing
	// loadSent is what the load check delivered, for effects to probe.
	loadSent *loadRecord
	// storesLate, once effects' documents are probed, says what showed
	// the receiver storing after it answered ("" when nothing did): a
	// document it holds nothing of may then be later still, not lost.
	storesLate string
	// probeNotFound, once effects' documents are probed, says that the
	// probe answered 404 for every one, acknowledged all: the probe may
	// be wrong, not the receiver.
	probeNotFound string
}

// timing is one call outside load, for naming why the slow ones were:
// keptAlive, it went out on a connection kept alive after an answer.
type timing struct {
	latency, connect    time.Duration
	timedOut, keptAlive bool
}

// excluded says whether --exclude-cases leaves c out.
func (r *runner) excluded(c *Case) bool {
	return excludedBy(r.cfg.ExcludeCases, c)
}

func excludedBy(globs []string, c *Case) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, c.Name); ok {
			return true
		}
		if ok, _ := path.Match(g, c.Check+"/"+c.Name); ok {
			return true
		}
	}
	return false
}

func (r *runner) report(res Result) {
	r.stamp(&res)
	r.connMu.Lock()
	key := res.Case.Check + "/" + res.Case.Name
	res.answers = append(res.answers, r.answers[key]...)
	delete(r.answers, key)
	r.connMu.Unlock()
	// Nothing routed is said as soon as it shows (five answers, one
	// status), before the failures it explains stream past.
	r.notice()
	if res.quiet {
		r.pending = append(r.pending, res)
		return
	}
	r.flush()
	r.emit(res)
}

// stamp notes when res was graded and, unless it says so itself, how long
// it took: since the case before it was graded, or its check began, as a
// check's cases are made one after another. It is called as the case is
// graded, not when it is told: a result held back keeps its own time.
func (r *runner) stamp(res *Result) {
	now := time.Now()
	res.Ended = now
	// A skipped check ran nothing: it took no time.
	if res.Took == 0 && res.Verdict != Skip {
		res.Took = now.Sub(r.since)
	}
	r.since = now
}

// flush reports the results held back: the receiver answered again.
func (r *runner) flush() {
	p := r.pending
	r.pending = nil
	for _, res := range p {
		r.emit(res)
	}
}

func (r *runner) emit(res Result) {
	t := r.sum.Checks[res.Case.Check]
	switch res.Verdict {
	case Pass:
		t.Pass++
	case Warn:
		t.Warn++
		if res.Inconclusive {
			t.Inconclusive++
		}
	case Fail:
		t.Fail++
	}
	r.sum.Done++
	r.last = res.Case.Check + "/" + res.Case.Name
	if res.Verdict != Skip && (res.Status != 0 || res.answered) {
		r.lastAnswered = r.last
	}
	r.held = append(r.held, res)
	r.drain(false)
	if r.cfg.Progress != nil {
		r.cfg.Progress(Progress{Check: res.Case.Check, Case: res.Case.Name, Done: r.sum.Done, Total: r.sum.Total, Elapsed: time.Since(r.began)})
	}
}

// drain reports the results held, in the order they were graded, while
// every connection the first one's answers came on is closed (or, at the
// end of the run, end, after a last look at each): a case whose answer
// bytes no call asked for followed fails (strayAfter); one whose answer
// came on a connection where they followed another's is inconclusive
// (unasked). What comes on a connection after it was closed is not seen.
func (r *runner) drain(end bool) {
	drainHeld(&r.held, end, func(res Result) []answerOn { return res.answers }, func(res Result, s stray) {
		switch {
		case s.after != "":
			r.strayAfter(&res, s.after)
		case s.on != "":
			r.unasked(&res, s.on)
		}
		r.out(res)
	})
}

// strayAfter fails res, its tally with it: the receiver sent bytes no
// call asked for after its answer (why, strayAfter's words), which no
// other check judges and an ERP reusing the connection takes for its next
// call's answer. Its own verdict rested on an answer the receiver framed
// wrong, or one that was another call's, and is replaced.
func (r *runner) strayAfter(res *Result, why string) {
	if r.uncount(res) {
		r.sum.Checks[res.Case.Check].Fail++
		res.Verdict, res.Inconclusive, res.Reason, res.strayAfter = Fail, false, why, true
	}
}

// uncount takes res's verdict out of its check's tally, for one that
// replaces it; false for a skipped case, which no answer judged and
// which keeps its verdict.
func (r *runner) uncount(res *Result) bool {
	t := r.sum.Checks[res.Case.Check]
	switch res.Verdict {
	case Skip:
		return false
	case Pass:
		t.Pass--
	case Fail:
		t.Fail--
	case Warn:
		t.Warn--
		if res.Inconclusive {
			t.Inconclusive--
		}
	}
	return true
}

// unasked makes res inconclusive, its tally with it: an answer it rests
// on came on a connection where the receiver sent bytes no call asked for
// (what, unaskedOn's words), so which call an answer there was to cannot
// be told.
func (r *runner) unasked(res *Result, what string) {
	if !r.uncount(res) {
		return
	}
	t := r.sum.Checks[res.Case.Check]
	t.Warn++
	t.Inconclusive++
	res.Verdict, res.Inconclusive, res.Repro, res.Effects = Warn, true, "", nil
	res.Reason = "inconclusive: on the kept-alive connection this case's answer came on, " + what
}

// call says how a delivery is sent: first, the first delivery of a valid
// call; together, how many were sent at once with it; n, its number in the
// order the run's calls began (runner.begin), for the stop rule's row.
type call struct {
	first    bool
	together int
	n        int
}

// begin numbers a call about to be sent (quietRow).
func (r *runner) begin() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.row.begin()
}

// deliverer is the Deliverer a call starts with: the run's, or once the
// receiver showed it answers a connection's first call only, one that
// makes each call on a new connection (newConnections).
func (r *runner) deliverer() *attempt.Deliverer {
	if d := r.onNew.Load(); d != nil {
		return d
	}
	return r.d
}

// keptAliveBroken says what the run saw so far is a receiver that answers
// a connection's first call only: calls on kept-alive connections got no
// answer within the time limit and none got one, while new connections
// got answers. The caller holds mu.
func (r *runner) keptAliveBroken() bool {
	return r.keptAliveTimedOut > 0 && r.keptAliveAnswered == 0 && r.newAnswered > 0
}

// newConnections makes the run's later calls each on a new connection: on
// kept-alive ones, each would wait the whole time limit for nothing, and
// its case be judged on keep-alive, not on itself. The pool's idle
// connections are closed: no call takes them again.
func (r *runner) newConnections() {
	if r.onNew.Load() != nil {
		return
	}
	r.onNew.Store(newDeliverer(r.cfg, attempt.NewConnectionEachCall(r.cfg.Client)))
	r.cfg.Client.CloseIdleConnections()
}

// send delivers one case, signed when the run signs, and records it.
func (r *runner) send(c *Case, k call) (*attempt.Result, error) {
	req := r.request(c, true)
	k.n = r.begin()
	res := r.deliverer().Deliver(r.ctx, req)
	return res, r.record(c, res, k)
}

// request makes the delivery of a case; sign says whether the run's
// signature goes on it (signature cases sign their own).
func (r *runner) request(c *Case, sign bool) *attempt.Request {
	h := make(http.Header, len(r.cfg.Header)+len(c.Header)+3)
	for k, v := range r.cfg.Header {
		h[k] = v
	}
	for k, v := range c.Header {
		h[k] = v
	}
	if sign && r.cfg.Signer != nil {
		c.WebhookID = r.cases.webhookID(c)
		r.cfg.Signer.Sign(h, c.WebhookID, r.cfg.Now(), c.Body)
	}
	return &attempt.Request{Event: c.Event, Query: c.Query, Header: h, Body: c.Body, RequestID: c.RequestID}
}

// webhookID is the webhook-id a case was signed with; for one not yet
// sent, what a run without a nonce gives it.
func webhookID(c *Case) string {
	if c.WebhookID != "" {
		return c.WebhookID
	}
	return (&builder{}).webhookID(c)
}

// validCheck says whether a check's calls are valid ones, which a
// receiver must accept.
func validCheck(id string) bool {
	switch id {
	case acceptsValid, duplicates, outOfOrder, Load, Latency:
		return true
	}
	return false
}

// duplicate says whether an answer refuses a call as one seen before.
func duplicate(a attempt.Attempt) bool {
	if a.Status == http.StatusConflict {
		return true
	}
	b := strings.ToLower(string(a.BodyPrefix))
	return a.Status >= 500 && (strings.Contains(b, "duplicate") || strings.Contains(b, "unique"))
}

// timeLimit is what a timed-out call counts for in latency.
func (r *runner) timeLimit(a attempt.Attempt) time.Duration {
	return max(r.cfg.Client.Timeout, a.Latency)
}

// record accounts for one delivery. The first call of a run that gets no
// answer at all ends it (nothing else can be judged); later, calls in a
// row without an answer stop it.
func (r *runner) record(c *Case, res *attempt.Result, k call) error {
	a := res.Last()
	r.noteConns(c, res)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fatal != nil || r.stopped != nil {
		return errStopped
	}
	if err := r.ctx.Err(); err != nil && (a.Status == 0 || a.Kind == attempt.KindInterrupted) {
		return err
	}
	r.calls++
	if validCheck(c.Check) && c.Event != "" {
		r.tried[c.Event] = true
	}
	if validCheck(c.Check) && c.Check != Load && !(c.AtOnce && c.Copies > 1) {
		r.outside++
		if got := outsideFailure(a); got != "" {
			r.outsideBad[got]++
		}
	}
	s := silence{together: k.together, a: a}
	if a.Status != 0 {
		s.answered = true
		r.answered++
		if a.KeptAlive {
			r.keptAliveAnswered++
		} else {
			r.newAnswered++
		}
		r.statuses[a.Status]++
		if validCheck(c.Check) {
			if is2xx(a.Status) && c.Event != "" {
				r.accepted[c.Event] = true
			}
			if k.first {
				r.firsts++
				if duplicate(a) {
					r.firstDup++
				}
			}
		}
		if c.Check != Load {
			r.time(c, a.Latency, a.Connect, false, false)
		}
		return r.endInRow(k.n, s)
	}
	if a.Kind == attempt.KindTimeout {
		r.timeouts++
		if c.Check != Load {
			r.time(c, r.timeLimit(a), a.Connect, true, a.KeptAlive)
		}
		if a.KeptAlive {
			r.keptAliveTimedOut++
		}
		if !a.KeptAlive || !r.keptAliveBroken() {
			s.timedOut = true
		}
	}
	if k.together == 0 && r.calls == 1 {
		var first *UnreachableError
		switch a.Kind {
		case attempt.KindRefused, attempt.KindDNS, attempt.KindTLS, attempt.KindOther, attempt.KindMalformed, attempt.KindReset, attempt.KindClosed,
			attempt.KindStreamReset, attempt.KindGoAway:
			first = unreachable(r.cfg.Target, a)
		case attempt.KindTimeout:
			// A receiver that answers nothing would hold every call of
			// the run for the whole time limit: minutes, to say nothing
			// more than this.
			first = firstTimedOut(r.cfg.Target, a)
		}
		if first != nil {
			first.Case = c.Check + "/" + c.Name
			r.fatal = first
			r.cancel()
			return r.fatal
		}
	}
	switch {
	case a.Kind == attempt.KindTimeout && a.KeptAlive && r.keptAliveBroken():
		s.silent = true
		// The receiver answers new connections, not kept-alive ones: no
		// sign that it is gone, and the calls after this one go each on
		// a new connection, where it answers.
		r.newConnections()
	case a.ClosedAsSent:
		s.silent = true
		// A kept-alive connection the receiver closed as the call went
		// out: its case fails saying so, but the receiver answered on it
		// before and answers a new one, so it is no sign that it is gone
		// (a burst reusing the pool's connections stopped the run). One
		// that is gone refuses the new connections, which count.
	case a.Kind == attempt.KindMalformed:
		// An answer, if no valid HTTP one: the receiver has not stopped
		// answering, and the case fails saying what came ("the receiver
		// stopped answering ... 3 calls in a row got no answer" was false
		// of one that answers the malformed calls so).
		s.answered, s.timedOut = true, false
	case a.Kind == attempt.KindRefused, a.Kind == attempt.KindReset, a.Kind == attempt.KindClosed, a.Kind == attempt.KindTimeout,
		a.Kind == attempt.KindOther, a.Kind == attempt.KindStreamReset, a.Kind == attempt.KindGoAway:
		s.quiet, s.silent = true, true
	}
	return r.endInRow(k.n, s)
}

// endInRow takes call n's outcome into the stop rule's row and stops the
// run when the row is long enough. The caller holds mu. The row may reach
// its length on an answer: the answer of a call sent before calls that
// failed, read after them, lets the row reach them.
func (r *runner) endInRow(n int, s silence) error {
	r.row.end(n, s)
	if !r.row.stops() {
		return nil
	}
	if r.answered == 0 {
		f := unreachable(r.cfg.Target, r.row.last)
		if why := r.row.unanswered(r.cfg.Client.Timeout); why != "" {
			// Calls that got different things, or were held: "no answer
			// from URL: ... (connection closed)" said the last one's only.
			// "cannot reach" where no call reached it (each refused).
			f.Kind, f.Ended = why, r.row.reached()
		}
		r.fatal = f
		r.cancel()
		return r.fatal
	}
	reason := r.row.reason()
	r.stopped = &Stop{Reason: reason} // After: Run's, from the results reported
	r.cancel()
	return errStopped
}

// outsideFailure says what a valid call sent alone got that the load
// check counts as a failure under load too ("no answer", "got 503", "got
// 200 with the body unfinished"), in the load reason's words; "" for an
// answer it counts as none, or a call lost on a kept-alive connection the
// receiver closed as it went out, which is no sign either way.
func outsideFailure(a attempt.Attempt) string {
	switch {
	case a.Kind == attempt.KindMalformed:
		// An answer, if no valid HTTP one, as the load's own figures
		// count it.
		return attempt.KindMalformed
	case a.Status == 0 && !a.ClosedAsSent:
		return "no answer"
	case a.Status == 0:
		return ""
	case a.BodyUnsent != "":
		return fmt.Sprintf("got %d, %s", a.Status, attempt.BodyUnsentWords)
	case a.BodyKind != "" && a.BodyKind != attempt.KindInterrupted:
		return fmt.Sprintf("got %d with the body unfinished", a.Status)
	case a.Status >= 500 || a.Status == http.StatusTooManyRequests:
		return fmt.Sprintf("got %d", a.Status)
	}
	return ""
}

// noteConns notes the connections the answers of c's delivery res came
// on, for c's result.
func (r *runner) noteConns(c *Case, res *attempt.Result) {
	r.connMu.Lock()
	defer r.connMu.Unlock()
	if r.answers == nil {
		r.answers = map[string][]answerOn{}
	}
	key := c.Check + "/" + c.Name
	r.answers[key] = appendAnswers(r.answers[key], res)
}

// time records the latency of a call outside load; the caller holds mu.
func (r *runner) time(c *Case, d, connect time.Duration, timedOut, keptAlive bool) {
	r.hist.Record(d)
	r.timed = append(r.timed, timing{d, connect, timedOut, keptAlive})
	if d > r.slowAt {
		r.slowAt, r.slowID = d, c.Check+"/"+c.Name
	}
	if c.Event != "" {
		h := r.byEvent[c.Event]
		if h == nil {
			h = new(load.Histogram)
			r.byEvent[c.Event] = h
		}
		h.Record(d)
	}
}

// notHTTP says the receiver answered with no valid HTTP answer, as why
// (the reader's words) says: a defect of the receiver's,
// which a sender's HTTP client fails as no answer.
func notHTTP(why string) string {
	return "a malformed answer (the receiver's answer is not valid HTTP: " + why + ")"
}

// answer describes what a delivery got, for reasons: "got 500",
// "got 302 to /elsewhere", "timeout".
func answer(a attempt.Attempt) string {
	switch {
	case a.Status == 0 && a.Kind == attempt.KindTimeout && strings.Contains(a.Err, attempt.BodyNotTakenWords):
		// Its write did not complete: it went out only in part, and was
		// not taken, kept-alive connection or not.
		return attempt.ShortError(a)
	case a.Status == 0 && a.KeptAlive && a.Kind == attempt.KindTimeout:
		// Not this call's own slowness, maybe: the receiver answered the
		// call before it on the connection, and may answer a
		// connection's first call only (the summary says so when the run
		// showed it). It went out whole: it may have been taken.
		return attempt.ShortError(a) + " on a kept-alive connection the receiver had answered a call on before (the call may have been taken)"
	case a.Status == 0 && a.ClosedAsSent:
		// Not the receiver refusing this call: a connection its last
		// answer kept alive ended as the call went out, which an idle
		// timeout shorter than the sender's does as often as a handler
		// that dies on the call; a sender makes the call again on a new
		// connection, which check does not.
		return attempt.ShortError(a) + " on a kept-alive connection the receiver closed as the call went out, with no answer (its idle timeout, or its handler died on the call; say 'Connection: close' on an answer after which it closes)"
	case a.Kind == attempt.KindMalformed:
		return notHTTP(strings.TrimPrefix(attempt.ShortError(a), attempt.KindMalformed+": "))
	case a.Status == 0:
		return attempt.ShortError(a)
	case a.Location != "":
		return fmt.Sprintf("got %d (redirect to %s)", a.Status, a.Location)
	case a.Status == http.StatusRequestTimeout:
		// RFC 9110 15.5.9: no refusal of the call, which the receiver
		// says it never had whole; a sender repeats it, check does not.
		return "got 408 (the receiver timed out waiting for the call; a sender makes the call again, check does not)"
	case a.Status > 599:
		// Well-formed (three digits), but no status HTTP defines: RFC
		// 9110 (15) has a client take it as a 5xx, as whsim does.
		return fmt.Sprintf("got %d (no status HTTP defines: a sender takes it as a 5xx)", a.Status)
	}
	return fmt.Sprintf("got %d", a.Status)
}

func is2xx(s int) bool { return s >= 200 && s < 300 }
func is3xx(s int) bool { return s >= 300 && s < 400 }
func is4xx(s int) bool { return s >= 400 && s < 500 }

// redirected is the reason of a case that cannot be judged because the
// receiver redirected: the ERP follows no redirect, and accepts-valid
// fails it, so other checks do not fail it again.
func redirected(a attempt.Attempt) string {
	return answer(a) + ": inconclusive, the ERP does not follow redirects (accepts-valid judges that)"
}

// count is how many cases the run grades, after --exclude-cases: the
// cases are built by a builder of their own, so that the run's bodies are
// those of its seed alone. Every check's cases are built, the run's or
// not, to refuse a glob that can leave out none of them (a typo).
func (r *runner) count() (int, error) {
	b := newBuilder(r.cfg.Seed, r.cfg.Anchor, r.cfg.Nonce)
	matched := make([]bool, len(r.cfg.ExcludeCases))
	n := 0
	r.excludedAll = map[string]bool{}
	globs := len(r.cfg.ExcludeCases) > 0
	for _, id := range IDs() {
		inRun := slices.Contains(r.sum.Order, id)
		// One skip, or effects' results (one per probed document, or one
		// skip): counted as one whatever --exclude-cases says.
		single := id == signature && r.cfg.Signer == nil || id == Effects
		switch {
		case !globs && !inRun:
			continue // no glob to match its names to: not built (#35)
		case !globs && single:
			n++
			continue
		}
		cs, err := r.excludable(b, id)
		if err != nil {
			return 0, err
		}
		for _, c := range cs {
			for i, g := range r.cfg.ExcludeCases {
				matched[i] = matched[i] || excludedBy([]string{g}, c)
			}
		}
		if !inRun {
			continue
		}
		if single {
			n++
			continue
		}
		kept := 0
		for _, c := range cs {
			if !r.excluded(c) {
				kept++
			}
		}
		if id == Load && kept > 0 {
			// Its cases are two names of the one run: either leaves it out.
			kept = 1
			if slices.ContainsFunc(cs, r.excluded) {
				kept = 0
			}
		}
		if kept == 0 {
			r.excludedAll[id] = true
			kept++ // its skip
		}
		n += kept
	}
	var none []string
	for i, g := range r.cfg.ExcludeCases {
		if !matched[i] {
			none = append(none, g)
		}
	}
	if len(none) > 0 {
		return 0, &UnmatchedExcludeError{Globs: none}
	}
	return n, nil
}

// excludable are the cases of check id as the run asks --exclude-cases
// about them (r.excluded): each that a glob matches is left out, and the
// check with none left is skipped. Load's is the first call, named
// "load", and the run as its result names it ("300-calls-at-16"): either
// leaves the load out. Signature's are built with a key of no use when
// the run has no secret, for their names.
func (r *runner) excludable(b *builder, id string) ([]*Case, error) {
	var out []*Case
	switch id {
	case acceptsValid:
		return b.acceptsValid()
	case rejectsMalformed:
		ms, err := b.rejectsMalformed(r.val)
		for _, m := range ms {
			out = append(out, m.Case)
		}
		return out, err
	case UnknownEvent:
		for _, m := range b.unknownEvents() {
			out = append(out, m.Case)
		}
	case eventVsBody:
		for _, m := range b.eventVsBody() {
			out = append(out, m.Case)
		}
	case duplicates:
		return b.duplicates(serialCopies, r.cfg.Concurrent), nil
	case outOfOrder:
		for _, g := range b.outOfOrder() {
			out = append(out, g.calls[0])
		}
	case signature:
		s := r.cfg.Signer
		if s == nil {
			s = &sign.Signer{}
		}
		cs, err := b.signature(s, r.cfg.Now())
		for _, c := range cs {
			out = append(out, c.Case)
		}
		return out, err
	case Load:
		if ps, _ := b.loadPairs(min(r.cfg.LoadCount, 1)); len(ps) > 0 {
			out = append(out, ps[0][0], r.loadCase())
		}
	case Effects:
		for _, d := range b.effects(serialCopies, r.cfg.Concurrent) {
			out = append(out, &Case{Check: Effects, Name: d.name})
		}
		out = append(out, underLoadCase())
	case Latency:
		out = append(out, latencyCase())
	}
	return out, nil
}

// latencyCase is the latency check's one case, which sends no call of
// its own, as --exclude-cases is asked about it.
func latencyCase() *Case { return &Case{Check: Latency, Name: "p99"} }

// underLoadCase stands for effects' documents of the load check, as
// --exclude-cases is asked about them: "under-load/*" leaves them out.
func underLoadCase() *Case { return &Case{Check: Effects, Name: "under-load/"} }

// loadCase is the load check's result as the run plans it: its calls and
// their concurrency ("300-calls-at-16").
func (r *runner) loadCase() *Case {
	return &Case{Check: Load, Name: loadName(r.cfg.LoadCount, r.loadConcurrency())}
}

// loadConcurrency is how many calls the load check has in flight, as it
// runs and as its result is named: a worker sends a document's create,
// then its follow-up (loadPairs: a document per two calls), so no more
// than there are documents, whatever was asked, and no worker is started
// that has none to send.
func (r *runner) loadConcurrency() int {
	docs := max((r.cfg.LoadCount+1)/2, 1)
	return min(max(r.cfg.LoadConcurrency, 1), docs)
}

// loadName names the load check's result: calls sent, at conc at once.
func loadName(calls, conc int) string { return fmt.Sprintf("%d-calls-at-%d", calls, conc) }

// UnmatchedExcludeError is --exclude-cases globs that match no case of any
// check (Globs): refused before the first call, as the run would send
// every case it was meant to leave out without a word.
type UnmatchedExcludeError struct{ Globs []string }

func (e *UnmatchedExcludeError) Error() string {
	q := make([]string, len(e.Globs))
	for i, g := range e.Globs {
		q[i] = fmt.Sprintf("%q", g)
	}
	what := "matches"
	if len(q) > 1 {
		what = "each match"
	}
	return fmt.Sprintf("--exclude-cases %s %s no case of any check: a case is named as -o json's \"case\" says (CREATE_RECEIVABLE_DOC/sample), alone or after its check (accepts-valid/CREATE_RECEIVABLE_DOC/sample), and * does not match /", strings.Join(q, ", "), what)
}

// SkippedExcluded is why a check is skipped when --exclude-cases left out
// every case of it.
const SkippedExcluded = "--exclude-cases leaves out every case of it"

// NoCaseLeftError is a run whose checks --exclude-cases (and the checks
// that need a secret or a probe not given) leave nothing to send: refused
// before the first call rather than said ok.
type NoCaseLeftError struct{ Globs []string }

func (e *NoCaseLeftError) Error() string {
	return fmt.Sprintf("--exclude-cases %s leaves no case of the checks run", strings.Join(e.Globs, ","))
}

// nothingLeft says whether no check of the run would send a call: each
// is left without cases by --exclude-cases, or skipped for want of a
// probe or a secret.
func (r *runner) nothingLeft() bool {
	if len(r.excludedAll) == 0 {
		return false
	}
	for _, id := range r.sum.Order {
		switch {
		case r.excludedAll[id]:
		case id == Effects && r.cfg.Probe == nil:
		case id == signature && r.cfg.Signer == nil:
		default:
			return false
		}
	}
	return true
}
