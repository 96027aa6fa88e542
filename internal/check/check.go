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
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/payload"
	// named so, as the tests have a receiver of their own
	rcv "github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/suggest"
	"github.com/whsim/whsim/internal/validate"
)

// Check ids. They are stable: users select them with --checks and CI
// systems match on them.
const (
	AcceptsValid     = "accepts-valid"
	RejectsMalformed = rcv.RejectsMalformed
	Duplicates       = rcv.Duplicates
	OutOfOrder       = "out-of-order"
	Latency          = "latency"
	Load             = "load"
	Signature        = "signature"
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
		{AcceptsValid, "every call the ERP may send gets 2xx: all events in both shapes, nulls, unknown members, escaped keys, a large document"},
		{RejectsMalformed, "calls the receiver cannot have understood get 4xx, not 2xx (dropped) or 5xx (retried forever)"},
		{Duplicates, "the same call delivered again, serially and 8 at once, gets 2xx every time"},
		{OutOfOrder, "a void or audit of a document never created, and a void twice, get 2xx or 4xx, not 5xx"},
		{Signature, "with a secret: correct Standard Webhooks signatures in any byte form pass, tampered, stale or missing ones get 4xx"},
		{Load, "realistic distinct calls at a concurrency get no 5xx, timeout or connection error"},
		{Effects, "with a probe: each document is held once (re-deliveries, retries, copies at once), whole, voided or audited in any order, and every load document is kept"},
		{Latency, "the p99 latency of every call of the run is within the budget"},
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

// UnknownCheckError names a check id that does not exist.
type UnknownCheckError struct{ ID string }

func (e *UnknownCheckError) Error() string {
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
			return nil, &UnknownCheckError{ID: id}
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
	if signed || !slices.Contains(ids, Signature) {
		return ids, false
	}
	return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == Signature }), true
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
	// Copies is how many times the request is delivered (0 means once);
	// AtOnce says all together rather than one after another.
	Copies int
	AtOnce bool
}

// Result is the grade of one case. For a case made of several deliveries
// (a re-delivery group) Status and Latency are those of the delivery the
// verdict rests on.
type Result struct {
	Case    *Case
	Verdict Verdict
	Status  int
	Latency time.Duration
	// Reason says why a case warns or fails: the status, what was
	// expected, the variant.
	Reason string
	// Repro, when set, reproduces a failure made of several calls (the
	// effects check: the calls, then the probe); else the reporter makes
	// one from the case.
	Repro string
}

// Tally counts the verdicts of one check.
type Tally struct {
	Pass int `json:"pass"`
	Warn int `json:"warn"`
	Fail int `json:"fail"`
	// Skipped says why a check that could not run did not.
	Skipped string `json:"skipped,omitempty"`
}

// LoadStats are the figures of the load check.
type LoadStats struct {
	Calls       int
	Concurrency int
	PerSecond   float64
	P50, P90    time.Duration
	P99, Max    time.Duration
}

// Summary is the outcome of a run.
type Summary struct {
	Checks map[string]*Tally
	// Order is the ids of the checks that ran, in run order.
	Order []string
	Load  *LoadStats
	// P99 and Slowest are over every answered call of the run.
	P99     time.Duration
	Slowest string
	// Effects are the effects check's figures, nil when it did not probe.
	Effects *EffectsStats
}

// Failed reports whether any check failed.
func (s *Summary) Failed() bool {
	for _, t := range s.Checks {
		if t.Fail > 0 {
			return true
		}
	}
	return false
}

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
	// Strict makes a type error answered 2xx a failure, not a warning.
	Strict          bool
	LatencyBudget   time.Duration
	LoadCount       int
	LoadConcurrency int
	// Concurrent is how many copies of one call the duplicates check
	// delivers at once; 0 means DefaultConcurrent.
	Concurrent int
	// Probe, when set, asks the receiver what it holds and runs the
	// effects check.
	Probe Probe
	// Settle is how long a probe is asked again until its answer matches;
	// 0 asks once. See DefaultSettle.
	Settle time.Duration
	// Nonce makes the requestIds and document numbers of a run its own;
	// 0 means fixed ids (the same seed, the same bytes).
	Nonce uint64
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
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach %s: %s", e.URL, e.Kind)
}

// Run makes the checks cfg.Checks names (every check when it is empty), in
// run order, against cfg.Target and reports each result as it is graded.
// report is called from one goroutine at a time. The signature check runs
// only with a Signer.
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
	val, err := validate.New(validate.Options{})
	if err != nil {
		return nil, err
	}
	r := &runner{
		cfg: cfg, val: val,
		d:   &attempt.Deliverer{Client: cfg.Client, Target: cfg.Target, Now: cfg.Now},
		sum: &Summary{Checks: map[string]*Tally{}},
		out: report, byEvent: map[string]*load.Histogram{},
	}
	if cfg.Anchor.IsZero() {
		cfg.Anchor = cfg.Now()
	}
	r.cases = newBuilder(cfg.Seed, cfg.Anchor)
	r.cases.numbers = newNumbering(cfg.Seed, cfg.Nonce)
	ids, err := Select(cfg.Checks, nil)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if id == Signature && cfg.Signer == nil {
			continue
		}
		r.sum.Order = append(r.sum.Order, id)
		r.sum.Checks[id] = &Tally{}
	}
	if cfg.Probe != nil && slices.Contains(r.sum.Order, Effects) {
		if err := r.probeSanity(ctx); err != nil {
			return r.sum, err
		}
	}
	for _, id := range r.sum.Order {
		if err := ctx.Err(); err != nil {
			return r.sum, err
		}
		var err error
		switch id {
		case AcceptsValid:
			err = r.acceptsValid(ctx)
		case RejectsMalformed:
			err = r.rejectsMalformed(ctx)
		case Duplicates:
			err = r.duplicates(ctx)
		case OutOfOrder:
			err = r.outOfOrder(ctx)
		case Signature:
			err = r.signature(ctx)
		case Load:
			err = r.load(ctx)
		case Effects:
			err = r.effects(ctx)
		case Latency:
			err = r.latency(ctx)
		}
		if err != nil {
			return r.sum, err
		}
	}
	return r.sum, ctx.Err()
}

// runner is the state of one run.
type runner struct {
	cfg   Config
	val   *validate.Validator
	d     *attempt.Deliverer
	cases *builder
	sum   *Summary
	out   func(Result)

	mu    sync.Mutex
	calls int
	hist  load.Histogram
	// byEvent holds each event's latencies: the slowest event is the one
	// with the highest p99, which one stray slow call does not decide.
	byEvent map[string]*load.Histogram
	slowID  string
	slowAt  time.Duration
	// loadSent is what the load check delivered, for effects to probe.
	loadSent *loadRecord
}

func (r *runner) report(res Result) {
	t := r.sum.Checks[res.Case.Check]
	switch res.Verdict {
	case Pass:
		t.Pass++
	case Warn:
		t.Warn++
	case Fail:
		t.Fail++
	}
	r.out(res)
}

// send delivers one case, signed when the run signs, and records its
// latency. The first call of a run that gets no answer at all ends the
// run: nothing else can be judged.
func (r *runner) send(ctx context.Context, c *Case) (*attempt.Result, error) {
	req := r.request(c, true)
	res := r.d.Deliver(ctx, req)
	return res, r.record(ctx, c, res)
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
		r.cfg.Signer.Sign(h, webhookID(c), r.cfg.Now(), c.Body)
	}
	return &attempt.Request{Event: c.Event, Query: c.Query, Header: h, Body: c.Body, RequestID: c.RequestID}
}

// webhookID is the webhook-id of a case: its requestId, or its name for a
// body that has none.
func webhookID(c *Case) string {
	if c.RequestID != "" {
		return c.RequestID
	}
	return "msg_" + strings.NewReplacer("/", "_", " ", "_").Replace(c.Check+"_"+c.Name)
}

func (r *runner) record(ctx context.Context, c *Case, res *attempt.Result) error {
	a := res.Last()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if a.Status != 0 {
		r.hist.Record(a.Latency)
		if a.Latency > r.slowAt {
			r.slowAt, r.slowID = a.Latency, c.Check+"/"+c.Name
		}
		if c.Event != "" {
			h := r.byEvent[c.Event]
			if h == nil {
				h = new(load.Histogram)
				r.byEvent[c.Event] = h
			}
			h.Record(a.Latency)
		}
		return nil
	}
	if r.calls == 1 && ctx.Err() == nil {
		switch a.Kind {
		case attempt.KindRefused, attempt.KindDNS, attempt.KindTLS, attempt.KindOther, attempt.KindReset, attempt.KindClosed:
			return &UnreachableError{URL: r.cfg.Target.Redacted(), Kind: attempt.ShortError(a)}
		case attempt.KindTimeout:
			// A receiver that answers nothing would hold every call of
			// the run for the whole time limit: minutes, to say nothing
			// more than this.
			return &UnreachableError{URL: r.cfg.Target.Redacted(),
				Kind: "timeout, the first call got no answer (one slow to start needs a longer --timeout)"}
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// answer describes what a delivery got, for reasons: "got 500",
// "got 302 to /elsewhere", "timeout".
func answer(a attempt.Attempt) string {
	switch {
	case a.Status == 0:
		return attempt.ShortError(a)
	case a.Location != "":
		return fmt.Sprintf("got %d (redirect to %s)", a.Status, a.Location)
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
