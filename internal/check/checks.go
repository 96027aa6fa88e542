package check

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/spec"
)

// result grades a case on its one delivery. A call accepted with an
// answer cut short warns: the sender cannot tell it from a failure.
func result(c *Case, a attempt.Attempt, v Verdict, reason string) Result {
	res := Result{Case: c, Verdict: v, Status: a.Status, Latency: a.Latency, Reason: reason}
	// A malformed answer is one: its case is told at once, not held back
	// in case the receiver has stopped answering.
	res.Answer, res.quiet = replyOf(a), a.Status == 0 && a.Kind != attempt.KindInterrupted && a.Kind != attempt.KindMalformed
	switch {
	case v == Fail:
	case a.BodyUnsent != "":
		// Answered from the head, then the connection ended with the
		// body unread: the receiver never got the call whole, whatever
		// its status said.
		res.Verdict, res.Reason = Fail, answer(a)+" but "+attempt.BodyUnsentWords+" ("+a.BodyUnsent+"): the receiver never got the call whole, and a sender counts it failed and retries it"
	case a.BodyKind != "":
		res.Verdict, res.Reason = Fail, answer(a)+" but "+bodyUnfinished(a)+": a sender counts the call failed and retries it"
	case v == Pass && a.Truncated:
		res.Verdict, res.Reason = Warn, answer(a)+" but "+cutShort(a.Header.Get("Content-Length") != "")+": a sender may count the call failed and retry it"
	case v == Pass && a.Oversized:
		res.Verdict, res.Reason = Warn, answer(a)+" but "+bodyOver+": a sender reads a short answer and may give up on this one"
	}
	return res
}

// cutShort says an answer was cut short (an unexpected EOF): before the
// length its head declared, or, with none declared (chunked, as net/http's
// server sends an answer flushed before its end), before its last chunk.
func cutShort(declared bool) string {
	if declared {
		return "the answer was cut short before its declared length (unexpected EOF)"
	}
	return "the answer was cut short before its last chunk (unexpected EOF)"
}

// unjudged is the warning of a case that could not be judged, for reason.
func unjudged(c *Case, a attempt.Attempt, reason string) Result {
	res := result(c, a, Warn, reason)
	res.Inconclusive = res.Verdict == Warn // not an answer cut short, which fails
	return res
}

// bodyOver says an answer's body was too long to read on.
var bodyOver = fmt.Sprintf("the answer body is over %d MiB, not read further", attempt.MaxBodyRead>>20)

// bodyUnfinished says why an answer's body was not read to its end.
func bodyUnfinished(a attempt.Attempt) string {
	if a.BodyKind == attempt.KindTimeout {
		return "the answer body was not finished within --timeout"
	}
	if a.BodyKind == attempt.KindOther && a.BodyErr != "" {
		return "the answer body could not be read (" + a.BodyErr + ")"
	}
	return "the answer body was cut off (" + a.BodyKind + ")"
}

// replyOf is the receiver's answer in an attempt, nil for none.
func replyOf(a attempt.Attempt) *Reply {
	if a.Status == 0 {
		return nil
	}
	st := a.StatusLine
	if st == "" {
		st = strconv.Itoa(a.Status)
	}
	return &Reply{Status: st, Header: a.Header, Body: a.BodyPrefix, Cut: a.BodyCut}
}

func (r *runner) acceptsValid() error {
	cs, err := r.cases.acceptsValid()
	if err != nil {
		return err
	}
	for _, c := range cs {
		if r.excluded(c) {
			continue
		}
		res, err := r.send(c, call{first: true})
		if err != nil {
			return err
		}
		a := res.Last()
		switch {
		case is2xx(a.Status) && bodySaysFailed(a.BodyPrefix) != "":
			// A warning, not a failure: the spec names no answer body, and
			// the receiver may have stored the call all the same (effects
			// asks its probe); but if it did not, the call is lost.
			r.report(result(c, a, Warn, answer(a)+" but its body says the call failed ("+bodySaysFailed(a.BodyPrefix)+
				"): the ERP takes any 2xx as delivered and does not send the call again; answer 5xx when the call was not stored (a sender retries it), 4xx when it never will be"))
		case is2xx(a.Status):
			r.report(result(c, a, Pass, ""))
		case is3xx(a.Status):
			r.report(result(c, a, Fail, answer(a)+", want 2xx: the ERP does not follow redirects, so the call is lost"))
		case r.cfg.Signer != nil && (a.Status == http.StatusUnauthorized || a.Status == http.StatusForbidden):
			r.report(unjudged(c, a, answer(a)+": inconclusive, the receiver refused the signature of a valid call (signature judges that)"))
		default:
			r.report(result(c, a, Fail, answer(a)+", want 2xx for a call the ERP may send"))
		}
	}
	return nil
}

// control makes sure the run knows whether the receiver accepts valid
// calls of event: a 4xx to a malformed call proves something only from a
// receiver that does. One valid call is sent for an event none was sent
// of; it is not a case of its own.
func (r *runner) control(check, event string) error {
	r.mu.Lock()
	tried := r.tried[event] || r.accepted[event]
	r.mu.Unlock()
	if tried || event == "" {
		return nil
	}
	e, ok := spec.Lookup(event)
	if !ok {
		return nil
	}
	// From a builder of its own, so that the cases' bodies do not depend
	// on which control calls a run made.
	if r.controls == nil {
		r.controls = newBuilder(^r.cfg.Seed, r.cfg.Anchor, r.cfg.Nonce)
	}
	c := docCase(check, "control/"+event, e, r.controls.build(e, spec.Described))
	res, err := r.send(c, call{})
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tried[event] = true
	if is2xx(res.Last().Status) {
		r.accepted[event] = true
	}
	return nil
}

func (r *runner) acceptedEvent(event string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.accepted[event]
}

// inconclusive4xx is the warning of a 4xx from a receiver that accepted
// no valid call of the event either.
func inconclusive4xx(a attempt.Attempt, event string) string {
	return answer(a) + ": inconclusive, the receiver accepted no valid " + event + " call either, so this 4xx proves nothing (see accepts-valid)"
}

func (r *runner) rejectsMalformed() error {
	ms, err := r.cases.rejectsMalformed(r.val)
	if err != nil {
		return err
	}
	return r.eachMalformed(rejectsMalformed, ms, func(m malformed, a attempt.Attempt) Result {
		switch {
		case is2xx(a.Status) && m.typeErr && !r.cfg.Strict:
			return result(m.Case, a, Warn, answer(a)+" for a type error the receiver may have stored unchecked, want 4xx")
		case is2xx(a.Status):
			// What it did with the call is not known (it may have kept an
			// empty record): only that the sender takes it as delivered.
			return result(m.Case, a, Fail, answer(a)+", want 4xx: "+unreadable(m.Name)+", yet a 2xx tells the sender it was delivered: it is never sent again, and whatever the receiver kept of it (nothing, or a record of what it could not read) is not the document")
		case a.Status >= 500:
			return result(m.Case, a, Fail, answer(a)+", want 4xx: a sender retries a 5xx, so a poison message would come back forever")
		}
		return result(m.Case, a, Fail, answer(a)+", want 4xx")
	})
}

// unreadable says why the receiver cannot have understood a malformed
// call.
func unreadable(name string) string {
	switch name {
	case "not-json":
		return "the body is not JSON, so the receiver cannot have read a document from it"
	case "truncated-json":
		return "the JSON is cut off, so the receiver cannot have read the whole document"
	case "empty-body":
		return "the body is empty, so there is no document in it"
	case "json-array":
		return "the body is an array, not the envelope object"
	case "missing-data":
		return "the body has no data, so there is no document in it"
	}
	return "the receiver cannot have understood this call"
}

// unknownEvent: the spec says other business types exist; a receiver may
// ignore one with 2xx or refuse it with 4xx, but a 5xx is retried forever.
func (r *runner) unknownEvent() error {
	return r.eachMalformed(UnknownEvent, r.cases.unknownEvents(), func(m malformed, a attempt.Attempt) Result {
		switch {
		case is2xx(a.Status):
			return result(m.Case, a, Pass, "")
		case a.Status >= 500:
			return result(m.Case, a, Fail, answer(a)+", want 2xx (ignored) or 4xx for an event the receiver does not handle: a sender retries a 5xx forever")
		}
		return result(m.Case, a, Fail, answer(a)+", want 2xx or 4xx")
	})
}

// eventVsBody: a body of one kind under the other kind's event cannot be
// handled as either; accepting it stores a receipt as an invoice.
func (r *runner) eventVsBody() error {
	return r.eachMalformed(eventVsBody, r.cases.eventVsBody(), func(m malformed, a attempt.Attempt) Result {
		switch {
		case is2xx(a.Status):
			return result(m.Case, a, Fail, answer(a)+", want 4xx: the body is of the other kind than the event "+m.Event+" names, so the receiver handled one as the other")
		case a.Status >= 500:
			return result(m.Case, a, Fail, answer(a)+", want 4xx: a sender retries a 5xx, so a poison message would come back forever")
		}
		return result(m.Case, a, Fail, answer(a)+", want 4xx")
	})
}

// eachMalformed sends each case of a check that wants the call refused,
// after a valid call of its event when the run has none yet, and grades
// what every such check grades alike: a 4xx passes, but only from a
// receiver that takes the event (else it proves nothing), and a redirect
// warns. judge grades the rest (2xx, 5xx, anything else).
func (r *runner) eachMalformed(check string, ms []malformed, judge func(malformed, attempt.Attempt) Result) error {
	for _, m := range ms {
		if r.excluded(m.Case) {
			continue
		}
		if err := r.control(check, m.basis); err != nil {
			return err
		}
		res, err := r.send(m.Case, call{})
		if err != nil {
			return err
		}
		a := res.Last()
		switch {
		case is4xx(a.Status) && !r.acceptedEvent(m.basis):
			r.report(unjudged(m.Case, a, inconclusive4xx(a, m.basis)))
		case is4xx(a.Status):
			r.report(result(m.Case, a, Pass, ""))
		case is3xx(a.Status):
			r.report(unjudged(m.Case, a, redirected(a)))
		default:
			r.report(judge(m, a))
		}
	}
	return nil
}

// serialCopies is how many times the duplicates check delivers a call one
// after another.
const serialCopies = 4

func (r *runner) duplicates() error {
	for _, c := range r.cases.duplicates(serialCopies, r.cfg.Concurrent) {
		if r.excluded(c) {
			continue
		}
		var results []*attempt.Result
		if c.AtOnce {
			var err error
			var together int
			if results, together, err = r.burst(c, c.Copies); err != nil {
				return err
			}
			res := judgeDuplicates(c, results)
			if res.Verdict == Pass && together < 2 {
				res.Verdict, res.Reason, res.Inconclusive = Warn, "every copy got 2xx, but "+notTogether(c.Copies), true
			}
			// A copy that got an answer says the receiver was there for
			// this case: its verdict is said, not held back with those
			// resting only on calls that found it gone and dropped at a
			// stop (a receiver serving one call at a time answers the
			// first copies and is still busy with the rest when the next
			// case's calls time out).
			if slices.ContainsFunc(results, func(res *attempt.Result) bool { return res.Last().Status != 0 }) {
				res.quiet, res.answered = false, true
			}
			r.report(res)
			continue
		}
		for i := range c.Copies {
			res, err := r.send(c.Delivery(i), call{first: i == 0})
			if err != nil {
				return err
			}
			results = append(results, res)
		}
		r.report(judgeDuplicates(c, results))
	}
	return nil
}

// burst delivers n copies of c at once: every copy waits for the others to
// be ready, so that they reach the receiver together. together is the
// most copies that were in flight at one moment (counted as each delivery
// begins and ends: an order of events, not a clock). A loaded machine may
// hold the copies' goroutines so that each goes out only after the one
// before was answered: then together is 1, and the race the copies stand
// for was not tried.
func (r *runner) burst(c *Case, n int) (results []*attempt.Result, together int, err error) {
	results = make([]*attempt.Result, n)
	reqs := make([]*attempt.Request, n)
	for i := range n {
		reqs[i] = r.request(c.Delivery(i), true)
	}
	ctx := context.WithValue(r.ctx, togetherKey{}, newTogether(n))
	begun := make([]int, n)
	together = sendAtOnce(n, r.cfg.copyHeld, func(i int) {
		begun[i] = r.begin()
		results[i] = r.deliverer().Deliver(ctx, reqs[i])
	})
	for i, res := range results {
		if err := r.record(c, res, call{together: n, n: begun[i]}); err != nil {
			return nil, 0, err
		}
	}
	return results, together, nil
}

// sendAtOnce runs deliver(i) for n copies at once: each waits until all are
// ready, so that they reach the receiver together. It returns the most
// copies that were in flight at one moment (counted as each delivery
// begins and ends: an order of events, not a clock). held, when set (by
// tests), runs before copy i goes out, with ended(j) closed once copy j's
// delivery has ended: a stand-in for the scheduler.
func sendAtOnce(n int, held func(i int, ended func(j int) <-chan struct{}), deliver func(i int)) (together int) {
	ends := make([]chan struct{}, n)
	for i := range ends {
		ends[i] = make(chan struct{})
	}
	var mu sync.Mutex
	inFlight := 0
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	for i := range n {
		done.Go(func() {
			defer close(ends[i])
			ready.Done()
			<-start
			if held != nil {
				held(i, func(j int) <-chan struct{} { return ends[j] })
			}
			mu.Lock()
			inFlight++
			together = max(together, inFlight)
			mu.Unlock()
			deliver(i)
			mu.Lock()
			inFlight--
			mu.Unlock()
		})
	}
	ready.Wait()
	close(start)
	done.Wait()
	return together
}

// Together is the copies of one call sent at once, in each copy's
// context (TogetherIn): a transport that hands calls to a handler in this
// process (whsimtest's) makes each copy Arrive before its handler starts,
// so that the copies meet in the handler as they do over TCP. In memory,
// the scheduler otherwise runs one copy's call to its end before the next
// begins (a goroutine started runs next), and no two were in flight
// together.
type Together struct {
	n       int
	mu      sync.Mutex
	arrived int
	all     chan struct{}
}

type togetherKey struct{}

func newTogether(n int) *Together { return &Together{n: n, all: make(chan struct{})} }

// TogetherIn is the copies sent at once that the call of ctx is one of,
// nil for a call sent alone.
func TogetherIn(ctx context.Context) *Together {
	t, _ := ctx.Value(togetherKey{}).(*Together)
	return t
}

// Arrive waits until every copy has arrived, or ctx ends.
func (t *Together) Arrive(ctx context.Context) {
	t.mu.Lock()
	t.arrived++
	if t.arrived == t.n {
		close(t.all)
	}
	t.mu.Unlock()
	select {
	case <-t.all:
	case <-ctx.Done():
	}
}

// notTogether is why n copies meant to arrive at once, no two of which
// were in flight together, cannot pass: the race was not tried.
func notTogether(n int) string {
	return fmt.Sprintf("inconclusive: no two of the %d copies were in flight together, each went out only after the one before had been answered (this machine did not send them at once, as a loaded one may not), so the race was not tried; run the check again on a less loaded machine", n)
}

// notAccepted says what the copies that got no 2xx got, each different
// answer with how many got it: "got no answer (timeout)", "got 409", or,
// when they differ (a copy that went out on a kept-alive connection is
// worded so), "got no answer (6: timeout; 1: timeout on a kept-alive
// connection …)", "got no 2xx (2: got 409; 1: no answer (timeout))".
// One answer stood for all of them, and 7 copies read as sent on a
// kept-alive connection when one was.
func notAccepted(results []*attempt.Result) string {
	var bad []attempt.Attempt
	for _, res := range results {
		if a := res.Last(); !is2xx(a.Status) {
			bad = append(bad, a)
		}
	}
	unanswered := !slices.ContainsFunc(bad, func(a attempt.Attempt) bool { return a.Status != 0 })
	var texts []string // in the order first seen, then by count
	count := map[string]int{}
	for _, a := range bad {
		text := answer(a)
		if a.Status == 0 && !unanswered {
			text = "no answer (" + text + ")"
		}
		if count[text] == 0 {
			texts = append(texts, text)
		}
		count[text]++
	}
	if len(texts) > 1 {
		// The commonest first, so that the same answers read the same
		// whichever copy met which.
		slices.SortStableFunc(texts, func(a, b string) int { return count[b] - count[a] })
		for k, t := range texts {
			texts[k] = fmt.Sprintf("%d: %s", count[t], t)
		}
	}
	switch {
	case unanswered:
		return "got no answer (" + strings.Join(texts, "; ") + ")"
	case len(texts) == 1:
		return texts[0] // "got 409"
	}
	return "got no 2xx (" + strings.Join(texts, "; ") + ")"
}

// judgeDuplicates: every copy must get 2xx. When none did, the call itself
// was not accepted, which is accepts-valid's to judge. A copy's failure
// is put down to a duplicate key, or to requestId as the key, only where
// its answer says it was refused as one held (refusedAsHeld: a 4xx to
// bytes accepted before, a 5xx naming a duplicate or unique key); a bare
// 5xx is as much a failure the
// receiver meets on any call, and the reason says both, in the same words
// whatever ran before (what calls sent alone met so far is the seed's
// and the order's: TestDuplicatesOfAReceiverThatFailsAnyCall).
func judgeDuplicates(c *Case, results []*attempt.Result) Result {
	ok := 0
	var bad attempt.Attempt
	badAt := 0
	for i, res := range results {
		if a := res.Last(); is2xx(a.Status) {
			ok++
		} else if badAt == 0 {
			bad, badAt = a, i+1
		}
	}
	first := results[0].Last()
	switch {
	case ok == len(results):
		return result(c, slowest(results), Pass, "")
	case c.AtOnce && ok == 0, !c.AtOnce && !is2xx(first.Status):
		return unjudged(c, first, answer(first)+" on the first delivery: inconclusive, the call itself was not accepted (accepts-valid judges that)")
	case c.AtOnce && bad.Status == 0:
		return result(c, bad, Fail, fmt.Sprintf("%d of %d copies delivered at once %s while %d got 2xx: every copy of a call arriving together (at-least-once delivery) must get 2xx",
			len(results)-ok, len(results), notAccepted(results), ok))
	case bad.Status == 0:
		// No answer is no refusal: nothing says the receiver keyed the
		// copy on anything, so the duplicate-key advice below is not given.
		return result(c, bad, Fail, fmt.Sprintf("delivery %d of %d got no answer (%s) after the first got %d: every delivery of a call must get 2xx",
			badAt, len(results), answer(bad), first.Status))
	case c.AtOnce && busy(bad):
		// Copies turned away as too many at once say the receiver takes
		// fewer calls at a time than they were, not that it raced on a key
		// or keyed the document on requestId: that advice would send its
		// author to the wrong place.
		copies := "copies"
		if c.NewRequestIDs {
			copies = "copies of one document, each under a new requestId,"
		}
		return result(c, bad, Fail, fmt.Sprintf("%d of %d %s delivered at once %s while %d got 2xx: the receiver turned calls away as too many at once, but the copies of a call can arrive together (at-least-once delivery) and each must get 2xx: take at least %d calls at a time",
			len(results)-ok, len(results), copies, notAccepted(results), ok, len(results)))
	case c.NewRequestIDs && c.AtOnce && refusedAsHeld(bad):
		return result(c, bad, Fail, fmt.Sprintf("%d of %d copies of one document delivered at once, each under a new requestId, %s while %d got 2xx: %s, so answer 2xx and keep the one document, keyed on the document, not on requestId",
			len(results)-ok, len(results), notAccepted(results), ok, requestIDTrap))
	case c.NewRequestIDs && refusedAsHeld(bad):
		return result(c, bad, Fail, fmt.Sprintf("delivery %d of %d, the same document under a new requestId, %s after the first got %d: %s, so answer 2xx and keep the one document, keyed on the document, not on requestId",
			badAt, len(results), answer(bad), first.Status, requestIDTrap))
	case c.NewRequestIDs && c.AtOnce:
		return result(c, bad, Fail, fmt.Sprintf("%d of %d copies of one document delivered at once, each under a new requestId, %s while %d got 2xx: each must get 2xx; %s",
			len(results)-ok, len(results), notAccepted(results), ok, unexplained("the receiver's refusing a document it holds under another requestId")))
	case c.NewRequestIDs:
		return result(c, bad, Fail, fmt.Sprintf("delivery %d of %d, the same document under a new requestId, %s after the first got %d: each must get 2xx; %s",
			badAt, len(results), answer(bad), first.Status, unexplained("the receiver's refusing a document it holds under another requestId")))
	case c.AtOnce && refusedAsHeld(bad):
		// A unique key refusing the copies: seen before or inserted at
		// the same moment, the remedy is the same.
		return result(c, bad, Fail, fmt.Sprintf("%d of %d copies delivered at once %s while %d got 2xx: the copies were refused as a duplicate key; the same call arriving together (at-least-once delivery) must be accepted, so answer 2xx for a requestId already held",
			len(results)-ok, len(results), notAccepted(results), ok))
	case c.AtOnce:
		return result(c, bad, Fail, fmt.Sprintf("%d of %d copies delivered at once %s while %d got 2xx: the same call arriving together (at-least-once delivery) must be accepted; %s",
			len(results)-ok, len(results), notAccepted(results), ok, unexplained("a race between the copies, as of a receiver that checks, then inserts, without a lock")))
	case refusedAsHeld(bad):
		return result(c, bad, Fail, fmt.Sprintf("re-delivery %d of %d %s after the first got %d: a re-delivered call (same requestId, same bytes) must be accepted again, not refused as a duplicate key",
			badAt, len(results), answer(bad), first.Status))
	}
	return result(c, bad, Fail, fmt.Sprintf("re-delivery %d of %d %s after the first got %d: a re-delivered call (same requestId, same bytes) must be accepted again; %s",
		badAt, len(results), answer(bad), first.Status, unexplained("a re-delivery refused as one held")))
}

// unexplained says that a copy's answer does not say why it failed: it
// may be what the case tests for (maybe), or a failure of any call.
func unexplained(maybe string) string {
	return "the answer does not say why (a 409, or a body naming a duplicate or unique key, would say the copy was refused as one held): it is " + maybe + ", or a failure the receiver meets on any call (one that fails calls now and then fails copies too)"
}

// refusedAsHeld says whether a copy's answer, of a call accepted before,
// refuses it as one held: a 409 or a 5xx naming a duplicate or unique key
// (duplicate), or another 4xx but a 408 or 429, which say nothing of the
// call: the same bytes were accepted once, so the receiver refuses them
// for what it holds.
func refusedAsHeld(a attempt.Attempt) bool {
	return duplicate(a) || a.Status >= 400 && a.Status < 500 && a.Status != http.StatusRequestTimeout && a.Status != http.StatusTooManyRequests
}

// busy says whether an answer turns a call away as one too many at once
// (503 or 429), and not as one seen before.
func busy(a attempt.Attempt) bool {
	return (a.Status == http.StatusServiceUnavailable || a.Status == http.StatusTooManyRequests) && !duplicate(a)
}

func slowest(results []*attempt.Result) attempt.Attempt {
	var s attempt.Attempt
	for _, res := range results {
		if a := res.Last(); a.Latency >= s.Latency {
			s = a
		}
	}
	return s
}

func (r *runner) outOfOrder() error {
	for _, g := range r.cases.outOfOrder() {
		if r.excluded(g.calls[0]) {
			continue
		}
		// A 4xx is evidence only from a receiver that takes the
		// document's creation.
		if err := r.control(outOfOrder, r.cases.creating(g.calls[0].Event)); err != nil {
			return err
		}
		// at is the call the verdict rests on: the first that fails, else
		// the first that warns, else the last judged.
		verdict, reason, at := Pass, "", 0
		var judged attempt.Attempt
		for i, c := range g.calls {
			res, err := r.send(c, call{first: true})
			if err != nil {
				return err
			}
			a := res.Last()
			if !g.judge[i] || verdict == Fail {
				continue
			}
			v, why := Pass, ""
			switch {
			case is4xx(a.Status) && !r.acceptedEvent(r.cases.creating(c.Event)):
				v, why = Warn, inconclusive4xx(a, r.cases.creating(c.Event))
			case is2xx(a.Status), is4xx(a.Status):
			case is3xx(a.Status):
				v, why = Warn, redirected(a)
			case a.Status >= 500:
				v, why = Fail, answer(a)+", want 2xx or 4xx: events arrive in any order, and a sender retries a 5xx forever"
			default:
				v, why = Fail, answer(a)+", want 2xx or 4xx"
			}
			if v == Fail || verdict == Pass {
				if v != Pass {
					reason = fmt.Sprintf("call %d of %d (%s): %s", i+1, len(g.calls), c.Event, why)
				}
				verdict, at, judged = v, i, a
			}
		}
		res := result(g.calls[at], judged, verdict, reason)
		// A warning here is a call that cannot be judged (unless its
		// answer was cut short, which fails).
		res.Inconclusive = verdict == Warn && res.Verdict == Warn
		if verdict == Pass {
			res.Answer = nil
		}
		r.report(res)
	}
	return nil
}

// signature sends Standard Webhooks signatures right and wrong. A receiver
// that verifies must accept every correct one, whatever the bytes of the
// body, and refuse the rest with 4xx. The results are reported at the end:
// when correct failed with the status the other byte forms got, its
// reason says what that means.
func (r *runner) signature() error {
	cs, err := r.cases.signature(r.cfg.Signer, r.cfg.Now())
	if err != nil {
		return err
	}
	baseline := Pass
	var results []Result
	correct := -1
	for _, sc := range cs {
		if r.excluded(sc.Case) {
			continue
		}
		req := r.request(sc.Case, false)
		n := r.begin()
		res := r.deliverer().Deliver(r.ctx, req)
		if err := r.record(sc.Case, res, call{n: n}); err != nil {
			return err
		}
		a := res.Last()
		var v Verdict
		var reason string
		switch {
		case baseline != Pass:
			v, reason = Warn, answer(a)+": inconclusive, a correctly signed call was not accepted"
		case is3xx(a.Status):
			v, reason = Warn, redirected(a)
		case sc.valid && is2xx(a.Status), !sc.valid && is4xx(a.Status):
			v = Pass
		case sc.valid && is4xx(a.Status) && sc.bytes:
			v, reason = Fail, answer(a)+" for a correctly signed body in other bytes, want 2xx: verify the raw bytes received, not a re-serialised body"
		case sc.valid:
			v, reason = Fail, answer(a)+" for a correctly signed call, want 2xx"
			if sc.why != "" {
				reason += ": " + sc.why
			}
		case is2xx(a.Status):
			v, reason = Fail, answer(a)+", want 4xx: "+sc.why
		default:
			v, reason = Fail, answer(a)+", want 4xx ("+sc.why+")"
		}
		if sc.Name == "correct" {
			correct = len(results)
			if v != Pass {
				baseline = v
			}
		}
		res1 := result(sc.Case, a, v, reason)
		// A warning here is a call that cannot be judged (unless its
		// answer was cut short, which fails).
		res1.Inconclusive = v == Warn && res1.Verdict == Warn
		res1.quiet = false // said in order below, not held back
		results = append(results, res1)
		if sc.bytes && correct >= 0 && baseline != Pass && a.Status == results[correct].Status && !results[correct].hinted {
			results[correct].hinted = true
			results[correct].Reason += "; the same body in other bytes got the same " + strconv.Itoa(a.Status) +
				": a receiver that verifies a re-serialised body instead of the raw bytes received fails every signature whose body it writes differently"
		}
	}
	for _, res := range results {
		r.report(res)
	}
	return nil
}

// sigCase is a signature case: its headers are set in full; valid says
// whether the signature is one to accept, why what accepting it (or, for
// a valid one, refusing it) would mean; bytes marks a correct signature
// of the body in other bytes.
type sigCase struct {
	*Case
	valid, bytes bool
	why          string
}

// validSignatureCase says whether the signature case of that name is built
// with a signature to accept (sigCase.valid): what a rerun signs afresh
// with the run's secret, and no other (a report is untrusted input).
// TestValidSignatureCases keeps it equal to the cases built.
func validSignatureCase(name string) bool {
	switch name {
	case "correct", "several-signatures", "unknown-version-beside-v1", "retry-same-webhook-id",
		"pretty-printed-body", "unicode-escaped-body", "other-number-spelling":
		return true
	}
	return false
}

// signature builds the signature cases; the first is the correctly signed
// call the others are read against. Headers left out or malformed are
// signed over what the call carries instead (an empty id, the text of the
// timestamp), so that a receiver that does not look at them accepts the
// call and fails the case named for it.
func (b *builder) signature(s *sign.Signer, now time.Time) ([]sigCase, error) {
	inv, rcp := b.creates[spec.Invoice], b.creates[spec.Receipt]
	other, err := sign.NewSigner(sign.SecretPrefix + "d3Jvbmcgc2VjcmV0IGZvciB3aHNpbSBjaGVjaw==")
	if err != nil {
		return nil, err
	}
	ts := now.Unix()
	tsText := strconv.FormatInt(ts, 10)
	signed := func(name string, e spec.Event, body []byte, doc *payload.Obj, when int64, sig string, valid bool, why string) sigCase {
		c := bodyCase(signature, name, e.Name, body, doc)
		id := b.webhookID(c)
		if sig == "" {
			sig = s.Signature(id, when, body)
		}
		c.Header = http.Header{
			"Webhook-Id":        {id},
			"Webhook-Timestamp": {strconv.FormatInt(when, 10)},
			"Webhook-Signature": {sig},
		}
		return sigCase{Case: c, valid: valid, why: why}
	}
	doc := b.build(inv, spec.Described)
	body := payload.Marshal(doc)
	correct := signed("correct", inv, body, doc, ts, "", true, "")
	cs := []sigCase{correct}

	doc = b.build(inv, spec.Described)
	body = payload.Marshal(doc)
	c := bodyCase(signature, "tampered-body", inv.Name, nil, doc)
	sig := s.Signature(b.webhookID(c), ts, body)
	if err := sets(doc, spec.Path(spec.FieldData, spec.FieldComments), `"changed after signing"`); err != nil {
		return nil, err
	}
	cs = append(cs, signed("tampered-body", inv, payload.Marshal(doc), doc, ts, sig, false, "the body was changed after signing, so signatures are not verified"))

	doc = b.build(inv, spec.Described)
	body = payload.Marshal(doc)
	c = bodyCase(signature, "wrong-secret", inv.Name, body, doc)
	cs = append(cs, signed("wrong-secret", inv, body, doc, ts, other.Signature(b.webhookID(c), ts, body), false, "signed with another secret"))

	doc = b.build(inv, spec.Described)
	missing := bodyCase(signature, "missing-signature-headers", inv.Name, payload.Marshal(doc), doc)
	cs = append(cs, sigCase{Case: missing, why: "the call carries no signature at all"})

	// Each header missing alone; the signature is over what is left.
	for _, h := range []struct{ name, why string }{
		{"Webhook-Id", "the call has no webhook-id, which the signature covers and retries are known by"},
		{"Webhook-Timestamp", "the call has no webhook-timestamp, so its age cannot be told and a captured call could be replayed"},
		{"Webhook-Signature", "the call has no webhook-signature"},
	} {
		doc = b.build(inv, spec.Described)
		body = payload.Marshal(doc)
		sc := signed("missing-"+strings.ToLower(h.name), inv, body, doc, ts, "", false, h.why)
		id, tsv := sc.Header.Get("Webhook-Id"), tsText
		switch h.name {
		case "Webhook-Id":
			id = ""
		case "Webhook-Timestamp":
			tsv = ""
		}
		sc.Header.Set("Webhook-Signature", s.SignatureOf(id, tsv, body))
		sc.Header.Del(h.name)
		cs = append(cs, sc)
	}

	for _, t := range []struct {
		name string
		at   int64
	}{{"timestamp-6-minutes-old", ts - 360}, {"timestamp-6-minutes-ahead", ts + 360}} {
		doc = b.build(inv, spec.Described)
		cs = append(cs, signed(t.name, inv, payload.Marshal(doc), doc, t.at, "", false, "the timestamp is over 5 minutes off, so a captured call could be replayed"))
	}
	doc = b.build(inv, spec.Described)
	body = payload.Marshal(doc)
	nan := signed("timestamp-not-a-number", inv, body, doc, ts, "", false, "the timestamp is not a number of seconds, so its age cannot be told")
	nan.Header.Set("Webhook-Timestamp", "now")
	nan.Header.Set("Webhook-Signature", s.SignatureOf(nan.Header.Get("Webhook-Id"), "now", body))
	cs = append(cs, nan)

	doc = b.build(inv, spec.Described)
	body = payload.Marshal(doc)
	c = bodyCase(signature, "several-signatures", inv.Name, body, doc)
	cs = append(cs, signed("several-signatures", inv, body, doc, ts,
		other.Signature(b.webhookID(c), ts, body)+" "+s.Signature(b.webhookID(c), ts, body), true,
		"one of the signatures is right, and a sender rotating its secret signs with both"))

	// A version the receiver does not know is skipped, not fatal; alone,
	// it is no signature at all, even over the right bytes.
	doc = b.build(inv, spec.Described)
	body = payload.Marshal(doc)
	c = bodyCase(signature, "unknown-version-beside-v1", inv.Name, body, doc)
	right := s.Signature(b.webhookID(c), ts, body)
	cs = append(cs, signed(c.Name, inv, body, doc, ts, "v1a,"+strings.TrimPrefix(other.Signature(b.webhookID(c), ts, body), "v1,")+" "+right, true,
		"the v1 signature is right; one of a version the receiver does not know (v1a) must be skipped, as later schemes are sent beside v1"))
	doc = b.build(inv, spec.Described)
	body = payload.Marshal(doc)
	c = bodyCase(signature, "unknown-version-only", inv.Name, body, doc)
	cs = append(cs, signed(c.Name, inv, body, doc, ts, "v1a,"+strings.TrimPrefix(s.Signature(b.webhookID(c), ts, body), "v1,"), false,
		"the only signature is of a version other than v1 (v1a), so the version is not checked"))

	// The sender's retry: the same webhook-id and body, signed afresh.
	retry := *correct.Case
	retry.Name = "retry-same-webhook-id"
	retry.Header = http.Header{
		"Webhook-Id":        {correct.Header.Get("Webhook-Id")},
		"Webhook-Timestamp": {strconv.FormatInt(ts+1, 10)},
		"Webhook-Signature": {s.Signature(correct.Header.Get("Webhook-Id"), ts+1, correct.Body)},
	}
	cs = append(cs, sigCase{Case: &retry, valid: true, why: "a sender retries with the same webhook-id and a fresh timestamp and signature, which is no replay"})

	doc = b.build(inv, spec.Described)
	sc := signed("pretty-printed-body", inv, payload.MarshalIndent(doc), doc, ts, "", true, "")
	sc.bytes = true
	cs = append(cs, sc)
	doc = b.build(rcp, spec.Described)
	sc = signed("unicode-escaped-body", rcp, escapeUnicode(payload.Marshal(doc)), doc, ts, "", true, "")
	sc.bytes = true
	cs = append(cs, sc)
	doc = b.build(inv, spec.Described)
	if err := respell(doc, spec.Path(spec.FieldData, spec.FieldItems, "0", spec.FieldPrice)); err != nil {
		return nil, err
	}
	sc = signed("other-number-spelling", inv, payload.Marshal(doc), doc, ts, "", true, "")
	sc.bytes = true
	cs = append(cs, sc)
	return cs, nil
}

// load delivers realistic distinct calls at a concurrency; every one must
// get 2xx: they are valid calls, and a receiver that refuses them under
// load (or always) loses them. Its percentiles are its own, apart from
// the latency check's.
func (r *runner) load() error {
	pairs, qs := r.cases.loadPairs(r.cfg.LoadCount)
	// Left out by its first call's name ("load") or its own (the case
	// its result is: "300-calls-at-16"), as count counts it.
	if len(pairs) > 0 && (r.excluded(pairs[0][0]) || r.excluded(r.loadCase())) {
		return nil
	}
	r.noteLoad(pairs, qs)
	var mu sync.Mutex
	next := 0
	// caseOf is the case each request was made from, for the failure to
	// carry a call that failed. begun numbers each call as it is sent
	// (the stop rule's row): a job's first as the feed hands it out, each
	// next one as the one before it ends (after holds it), for a worker
	// sends a job's calls one after another.
	caseOf := map[*attempt.Request]*Case{}
	begun := map[*attempt.Request]int{}
	after := map[*attempt.Request]*attempt.Request{}
	// over is the Deliverer of the load's current run: once the receiver
	// showed it answers a connection's first call only, the run's calls
	// go over another (newConnections), and the feed of this one ends.
	var over *attempt.Deliverer
	feed := func() []*attempt.Request {
		mu.Lock()
		defer mu.Unlock()
		if next == len(pairs) || r.deliverer() != over {
			return nil
		}
		var reqs []*attempt.Request
		for i, c := range pairs[next] {
			req := r.request(c, true)
			caseOf[req] = c
			if i == 0 {
				begun[req] = r.begin()
			} else {
				after[reqs[i-1]] = req
			}
			reqs = append(reqs, req)
		}
		next++
		return reqs
	}
	// numbered is the number of res's call; nextBegins numbers the call
	// after it in its job, sent next, once res's outcome was taken: a
	// call numbered before was one sent before that outcome was read,
	// and when res failed, held the stop rule's row back as one whose
	// answer might yet come (TestFirstBurstClosedThenHeldSaysWhichCallsStopped).
	numbered := func(res *attempt.Result) int {
		mu.Lock()
		defer mu.Unlock()
		return begun[res.Request]
	}
	nextBegins := func(res *attempt.Result) {
		mu.Lock()
		defer mu.Unlock()
		if then := after[res.Request]; then != nil {
			begun[then] = r.begin()
		}
	}
	var bad struct {
		sync.Mutex
		byStatus map[int]int
		byError  map[string]int
		hist     load.Histogram
		answered int
		timedOut int
		over     int             // answers with a body past attempt.MaxBodyRead
		cut      int             // 2xx answers cut short (unexpected EOF)
		cutChunk int             // of them, with no declared length: chunked
		first    attempt.Attempt // the first refused call's answer
		seen     bool
		failed   *attempt.Request // the first call that failed, refused or not answered
		timed    []timing         // to name a full listen backlog
		// closedAsSent counts the calls that got no answer on kept-alive
		// connections the receiver ended as they went out; keptAliveHeld
		// those that got none within the time limit on one, from a
		// receiver that answers a connection's first call only.
		closedAsSent, keptAliveHeld int
	}
	bad.byStatus, bad.byError = map[int]int{}, map[string]int{}
	conc := r.loadConcurrency()
	account := func(res *attempt.Result) {
		a := res.Last()
		c := &Case{Check: Load, Name: "load", Event: res.Request.Event}
		_ = r.record(c, res, call{first: true, together: conc, n: numbered(res)})
		nextBegins(res)
		r.mu.Lock()
		keptAliveBroken := r.keptAliveBroken()
		r.mu.Unlock()
		r.loadAnswered(res)
		bad.Lock()
		defer bad.Unlock()
		if bad.failed == nil && a.Kind != attempt.KindInterrupted && (a.Status == 0 || a.BodyKind != "" || a.BodyUnsent != "" || !is2xx(a.Status)) {
			bad.failed = res.Request
		}
		switch {
		case a.Status != 0 && a.BodyUnsent != "":
			// Answered before its body went whole: a sender counts the
			// call failed, as one whose answer did not come whole.
			bad.answered++
			bad.hist.Record(a.Latency)
			bad.byError[fmt.Sprintf("got %d, %s", a.Status, attempt.BodyUnsentWords)]++
		case a.Status != 0 && a.BodyKind != "":
			// The status came but not the whole answer: a sender counts
			// the call failed.
			bad.answered++
			bad.hist.Record(a.Latency)
			bad.byError[fmt.Sprintf("got %d with the body unfinished (%s)", a.Status, a.BodyStop())]++
		case a.Status != 0:
			if a.Oversized && is2xx(a.Status) {
				// Said of a 2xx only: one refused fails on its status.
				bad.over++
			}
			if a.Truncated && is2xx(a.Status) {
				// As result warns on one: the sender cannot tell it from a
				// failure, and may send the call again.
				bad.cut++
				if a.Header.Get("Content-Length") == "" {
					bad.cutChunk++
				}
			}
			bad.answered++
			bad.hist.Record(a.Latency)
			bad.timed = append(bad.timed, timing{a.Latency, a.Connect, false, false})
			if !is2xx(a.Status) {
				bad.byStatus[a.Status]++
				if !bad.seen {
					bad.first, bad.seen = a, true
				}
			}
		case a.Kind == attempt.KindInterrupted:
		default:
			if a.Kind == attempt.KindTimeout {
				bad.timedOut++
				bad.hist.Record(r.timeLimit(a))
				// A call that timed out connecting may show a full
				// listen backlog (slowCause).
				bad.timed = append(bad.timed, timing{r.timeLimit(a), a.Connect, true, a.KeptAlive})
			}
			bad.byError[attempt.ErrorGroup(a)]++
			if a.ClosedAsSent {
				bad.closedAsSent++
			}
			if a.Kind == attempt.KindTimeout && a.KeptAlive && keptAliveBroken {
				bad.keptAliveHeld++
			}
		}
	}
	// The load's figures, over its runs: one, or two when its calls went
	// over new connections from some point on.
	var st struct {
		Sent, finished, Unasked int
		Elapsed                 time.Duration
	}
	for {
		mu.Lock()
		over = r.deliverer()
		left := next < len(pairs)
		mu.Unlock()
		if !left {
			break
		}
		s := load.Run(r.ctx, over, feed, load.RunOptions{Concurrency: conc}, account)
		st.Sent, st.finished, st.Unasked = st.Sent+s.Sent, st.finished+int(s.Latency.Count()), st.Unasked+s.Unasked
		st.Elapsed += s.Elapsed
		if r.ctx.Err() != nil || r.deliverer() == over {
			break
		}
	}
	r.mu.Lock()
	fatal, stopped := r.fatal, r.stopped
	r.mu.Unlock()
	switch {
	case fatal != nil:
		return fatal
	case stopped != nil:
		return errStopped
	}
	if err := r.ctx.Err(); err != nil {
		return err
	}
	ls := &LoadStats{Calls: st.Sent, Concurrency: conc, Answered: bad.answered, TimedOut: bad.timedOut,
		FailedByStatus: maps.Clone(bad.byStatus), FailedByError: maps.Clone(bad.byError), CutShort2xx: bad.cut, CutShortChunked: bad.cutChunk,
		OverBound2xx: bad.over, ClosedAsSent: bad.closedAsSent, KeptAliveHeld: bad.keptAliveHeld, UnaskedAnswers: st.Unasked}
	if st.Elapsed > 0 {
		ls.PerSecond = float64(st.finished) / st.Elapsed.Seconds() // load.Stats.RequestsPerSecond
	}
	if bad.answered < st.Sent && st.Elapsed > 0 {
		// A refused connection fails at once: the rate is of the calls
		// answered, not of how fast the client gave up.
		ls.PerSecond = float64(bad.answered) / st.Elapsed.Seconds()
	}
	if bad.hist.Count() > 0 {
		ls.P50, ls.P90, ls.P99, ls.Max = bad.hist.Quantile(0.5), bad.hist.Quantile(0.9), bad.hist.Quantile(0.99), bad.hist.Max()
	}
	r.sum.Load = ls
	// The case stands for the run; its request is the first call that
	// failed (what its reproduction sends must get what the failure
	// says), else the first call's.
	c := &Case{Check: Load, Name: loadName(st.Sent, conc)}
	mu.Lock()
	stands := caseOf[bad.failed]
	mu.Unlock()
	if stands == nil && len(pairs) > 0 {
		stands = pairs[0][0]
	}
	if stands != nil {
		c.Event, c.Query, c.Body, c.RequestID = stands.Event, stands.Query, stands.Body, stands.RequestID
	}
	figures := "no call answered"
	if bad.hist.Count() > 0 {
		figures = fmt.Sprintf("%.0f calls/s, p50 %s, p99 %s", ls.PerSecond, ms(ls.P50), ms(ls.P99))
		if ls.Answered < ls.Calls {
			figures = fmt.Sprintf("%.0f answered calls/s, p50 %s, p99 %s", ls.PerSecond, ms(ls.P50), ms(ls.P99))
		}
	}
	var parts []string
	worst, buckles := 0, false
	for _, s := range sortedKeys(bad.byStatus) {
		parts = append(parts, fmt.Sprintf("%d got %d", bad.byStatus[s], s))
		worst = s
		buckles = buckles || s >= 500 || s == http.StatusTooManyRequests
	}
	for _, k := range sortedKeys(bad.byError) {
		parts = append(parts, fmt.Sprintf("%d %s", bad.byError[k], k))
		buckles = true
	}
	res := Result{Case: c, Verdict: Pass, Status: worst, Latency: ls.P99, answered: bad.answered > 0}
	for _, p := range pairs { // --save-cases writes every call, not the first
		res.calls = append(res.calls, p...)
	}
	redirects := 0
	for st, n := range bad.byStatus {
		if is3xx(st) {
			redirects += n
		}
	}
	// 2xx answers cut short or over the body's bound: a warning alone, and
	// said beside a failure too, where the calls it counts would not add
	// up to those a sender may have counted failed.
	var warns []string
	if bad.cut > 0 {
		words := cutShort(bad.cutChunk == 0)
		if bad.cutChunk > 0 && bad.cutChunk < bad.cut {
			words = "the answer was cut short before its declared length or last chunk (unexpected EOF)"
		}
		warns = append(warns, fmt.Sprintf("%d of %d calls got 2xx but %s: a sender may count the call failed and retry it", bad.cut, st.Sent, words))
	}
	if bad.over > 0 {
		warns = append(warns, fmt.Sprintf("%d of %d calls got 2xx but %s", bad.over, st.Sent, bodyOver))
	}
	if len(parts) == 0 && len(warns) > 0 {
		res.Verdict, res.Reason = Warn, fmt.Sprintf("%s (%s)", strings.Join(warns, "; "), figures)
	} else if len(parts) > 0 && redirects == sumCounts(bad.byStatus) && len(bad.byError) == 0 {
		// Redirected, not refused: accepts-valid judges that.
		res.Verdict, res.Reason, res.Inconclusive = Warn, fmt.Sprintf("%s of %d calls: inconclusive, the ERP does not follow redirects (accepts-valid judges that)", strings.Join(parts, ", "), st.Sent), true
		res.Answer = replyOf(bad.first)
	} else if len(parts) > 0 {
		res.Verdict = Fail
		why := "the receiver buckles under load"
		r.mu.Lock()
		outside, outsideBad := r.outside, maps.Clone(r.outsideBad)
		r.mu.Unlock()
		switch {
		case !buckles:
			why = "valid calls refused, want 2xx for every one"
		case len(outsideBad) > 0:
			// Not load as such: it fails valid calls sent one at a time too.
			var saw []string
			for _, got := range sortedKeys(outsideBad) {
				saw = append(saw, fmt.Sprintf("%d %s", outsideBad[got], got))
			}
			why = fmt.Sprintf("the receiver fails valid calls with or without load (%d of %d valid calls sent alone outside load failed too: %s)", sumCounts(outsideBad), outside, strings.Join(saw, ", "))
		}
		if n := bad.keptAliveHeld; n > 0 {
			// Not load as such: the summary's note says what they show.
			held := fmt.Sprintf("%d calls went out on kept-alive connections and got no answer within the time limit, from a receiver that answered none on a kept-alive connection (see the note on kept-alive connections)", n)
			if n == sumCounts(bad.byError) && len(bad.byStatus) == 0 {
				why = held
			} else {
				why += "; " + held
			}
		}
		if n := bad.closedAsSent; n > 0 {
			// Not load as such: a sender that keeps connections alive
			// loses such calls at any rate.
			closed := fmt.Sprintf("%d calls went out on kept-alive connections the receiver closed as they arrived, with no answer: it closes connections its answers kept alive (no 'Connection: close'; an idle timeout shorter than the sender's does it), or its handler died on the call; say 'Connection: close' on an answer after which it closes", n)
			if n == sumCounts(bad.byError) && len(bad.byStatus) == 0 {
				why = closed
			} else {
				why += "; " + closed
			}
		}
		// Calls that waited a second or three to connect: the kernel
		// retrying handshakes a full listen backlog dropped.
		if cause := slowCause(bad.timed, loadSlow, r.cfg.Client.Timeout); strings.Contains(cause, "listen backlog") {
			i := strings.Index(cause, "listen backlog")
			from := strings.LastIndex(cause[:i], "; ") + 1 // 0 when none
			cause = strings.TrimSpace(cause[from:])
			cause, _, _ = strings.Cut(cause, "; answer first")
			why += "; " + cause
		}
		if len(warns) > 0 {
			why += "; besides, " + strings.Join(warns, "; ")
		}
		res.Reason = fmt.Sprintf("%s of %d calls at concurrency %d: %s (%s)", strings.Join(parts, ", "), st.Sent, conc, why, figures)
		if bad.seen {
			res.Answer = replyOf(bad.first)
		}
	}
	if n := st.Unasked; n > 0 && res.Verdict != Skip {
		// Counted by the run's own connections (the fast path keeps no
		// note per answer): which of its answers were whose cannot be
		// told, so its figures judge nothing; but the bytes themselves are
		// the receiver's fault, which no other check may have seen (a run
		// of --checks load), and it fails for them, as a case whose answer
		// they followed does (runner.strayAfter).
		res.Verdict, res.Inconclusive = Fail, false
		res.Reason = fmt.Sprintf("on %d of the load's kept-alive connections the receiver sent bytes after an answer that no call asked for: "+
			"a sender reusing the connection reads them as its next call's answer (%s); the figures judge nothing, as which answer was whose cannot be told (%s)", n, unaskedRule, figures)
	}
	// The connections its calls' answers came on on net/http's path,
	// noted under the calls' own name.
	r.connMu.Lock()
	if as := r.answers[Load+"/load"]; len(as) > 0 {
		res.answers = as
		delete(r.answers, Load+"/load")
	}
	r.connMu.Unlock()
	r.report(res)
	return nil
}

// loadSlow is how slow a load call must be for its connection set-up to
// be looked at: a handshake the kernel retries takes a second.
const loadSlow = 500 * time.Millisecond

func sumCounts[K comparable](m map[K]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func sortedKeys[K int | string](m map[K]int) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// ms prints a latency in milliseconds.
func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + "ms"
}

// latency judges the p99 of the run's calls outside load (a timeout
// counted at the time limit); run alone, it first sends the valid calls.
func (r *runner) latency() error {
	if r.excluded(latencyCase()) {
		return nil
	}
	if r.hist.Count() == 0 {
		cs, err := r.cases.acceptsValid()
		if err != nil {
			return err
		}
		for _, c := range cs {
			c := *c
			c.Check = Latency
			if _, err := r.send(&c, call{first: true}); err != nil {
				return err
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p99 := r.hist.Quantile(0.99)
	r.sum.P99 = p99
	ev, worst := "", time.Duration(0)
	for _, e := range spec.Events() {
		if h := r.byEvent[e.Name]; h != nil && h.Quantile(0.99) > worst {
			ev, worst = e.Name, h.Quantile(0.99)
		}
	}
	r.sum.Slowest = ev
	c := &Case{Check: Latency, Name: "p99", Event: ev}
	if r.hist.Count() == 0 {
		r.emitLocked(Result{Case: c, Verdict: Fail, Reason: "no call got an answer to time"})
		return nil
	}
	if len(r.statuses) == 1 {
		// Every answer the same refusal (a wrong path): these are the
		// times of a 404, not of handling a webhook; finish says why.
		for s := range r.statuses {
			if h := unroutedHint(s); h != "" {
				r.emitLocked(Result{Case: c, Verdict: Warn, Inconclusive: true, Latency: p99, Reason: fmt.Sprintf(
					"p99 %s over %d calls: inconclusive, every call got %d %s, so no call was handled to time", ms(p99), r.hist.Count(), s, http.StatusText(s))})
				return nil
			}
		}
	}
	if p99 <= r.cfg.LatencyBudget {
		r.emitLocked(Result{Case: c, Verdict: Pass, Latency: p99})
		return nil
	}
	detail := fmt.Sprintf("p99 %s over %d calls, budget %s; slowest event %s (p99 %s), slowest call %s (%s)",
		ms(p99), r.hist.Count(), r.cfg.LatencyBudget, ev, ms(worst), r.slowID, ms(r.slowAt))
	r.emitLocked(Result{Case: c, Verdict: Fail, Latency: p99, Reason: detail + ": " + slowCause(r.timed, r.cfg.LatencyBudget, r.cfg.Client.Timeout)})
	return nil
}

// emitLocked reports a result while mu is held (report itself takes no
// lock; the held-back results go first).
func (r *runner) emitLocked(res Result) {
	r.stamp(&res)
	r.flush()
	r.emit(res)
}

// slowCause names why the calls over budget were slow: timeouts, the
// connection's set-up (a full listen backlog when it took about 1 or 3 s:
// the kernel dropped the handshake and the client tried again), or the
// answer itself.
func slowCause(ts []timing, budget, limit time.Duration) string {
	var slow, timedOut, setup, stuck, keptAlive int
	var connects []time.Duration
	for _, t := range ts {
		if t.latency <= budget {
			continue
		}
		slow++
		switch {
		case t.timedOut:
			timedOut++
			if t.keptAlive {
				keptAlive++
			}
			// Still connecting at the limit, past the kernel's first
			// retry of a dropped handshake (1 s): no connection to a
			// receiver that answers others takes that long otherwise.
			if t.connect*2 >= t.latency && t.connect >= time.Second*9/10 {
				stuck++
			}
		case t.connect*2 >= t.latency:
			setup++
			connects = append(connects, t.connect)
		}
	}
	var parts []string
	if timedOut > 0 {
		// What a timeout shows: nothing came within the limit, from the
		// start of the attempt (its connection, its sending, included).
		// Not that the receiver never answers: a slow one answers after
		// it, and a loaded machine may not have sent the call at once.
		parts = append(parts, fmt.Sprintf("%d of %d calls timed out (each counted at the time limit, %s): no answer came within %s of the start of the call", timedOut, len(ts), limit, limit))
	}
	if keptAlive > 0 {
		// Not slow handling, maybe: a receiver that answers a
		// connection's first call only holds them so (the summary's note
		// says so when the run showed it).
		parts = append(parts, fmt.Sprintf("%d of the calls that timed out went out on a kept-alive connection the receiver had answered a call on before", keptAlive))
	}
	var waited []string // what shows the handshakes were dropped
	if setup*2 >= slow-timedOut && setup > 0 {
		slices.Sort(connects)
		med := connects[len(connects)/2]
		if near(med, time.Second) || near(med, 3*time.Second) {
			waited = append(waited, fmt.Sprintf("%d slow calls spent about %s of it connecting, not waiting for the answer", setup, med.Round(100*time.Millisecond)))
		} else {
			parts = append(parts, fmt.Sprintf("%d slow calls spent %s of it setting up the connection (dial, TLS handshake), not waiting for the answer", setup, ms(med)))
		}
	}
	if stuck*2 >= timedOut && stuck > 0 {
		waited = append(waited, fmt.Sprintf("%d of the calls that timed out were still connecting when they did", stuck))
	}
	if len(waited) > 0 {
		parts = append(parts, strings.Join(waited, " and ")+": the receiver's listen backlog is full, so the kernel drops the handshake and the client tries again after 1 s (3 s the second time); raise the backlog (Python's http.server and socketserver default to 5) or accept connections faster")
	}
	if rest := slow - timedOut - setup; rest > 0 || len(parts) == 0 {
		parts = append(parts, "answer first, then do the work")
	}
	return strings.Join(parts, "; ")
}

// near says whether d is about want: the kernel's retry of a dropped
// handshake comes at want, and the call then takes a little more.
func near(d, want time.Duration) bool {
	return d >= want*9/10 && d < want*3/2
}
