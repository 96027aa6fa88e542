package check

import (
	"context"
	"fmt"
	"net/http"
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

// result grades a case on its one delivery.
func result(c *Case, a attempt.Attempt, v Verdict, reason string) Result {
	return Result{Case: c, Verdict: v, Status: a.Status, Latency: a.Latency, Reason: reason}
}

func (r *runner) acceptsValid(ctx context.Context) error {
	cs, err := r.cases.acceptsValid()
	if err != nil {
		return err
	}
	for _, c := range cs {
		res, err := r.send(ctx, c)
		if err != nil {
			return err
		}
		a := res.Last()
		switch {
		case is2xx(a.Status):
			r.report(result(c, a, Pass, ""))
		case is3xx(a.Status):
			r.report(result(c, a, Fail, answer(a)+", want 2xx: the ERP does not follow redirects, so the call is lost"))
		case r.cfg.Signer != nil && (a.Status == http.StatusUnauthorized || a.Status == http.StatusForbidden):
			r.report(result(c, a, Warn, answer(a)+": inconclusive, the receiver refused the signature of a valid call (signature judges that)"))
		default:
			r.report(result(c, a, Fail, answer(a)+", want 2xx for a call the ERP may send"))
		}
	}
	return nil
}

func (r *runner) rejectsMalformed(ctx context.Context) error {
	ms, err := r.cases.rejectsMalformed(r.val)
	if err != nil {
		return err
	}
	for _, m := range ms {
		res, err := r.send(ctx, m.Case)
		if err != nil {
			return err
		}
		a := res.Last()
		switch {
		case is4xx(a.Status):
			r.report(result(m.Case, a, Pass, ""))
		case is2xx(a.Status) && m.typeErr && !r.cfg.Strict:
			r.report(result(m.Case, a, Warn, answer(a)+" for a type error the receiver may have stored unchecked, want 4xx"))
		case is2xx(a.Status):
			r.report(result(m.Case, a, Fail, answer(a)+", want 4xx: the receiver cannot have understood this call, so it was silently dropped"))
		case is3xx(a.Status):
			r.report(result(m.Case, a, Warn, redirected(a)))
		case a.Status >= 500:
			r.report(result(m.Case, a, Fail, answer(a)+", want 4xx: a sender retries a 5xx, so a poison message would come back forever"))
		default:
			r.report(result(m.Case, a, Fail, answer(a)+", want 4xx"))
		}
	}
	return nil
}

// serialCopies is how many times the duplicates check delivers a call one
// after another.
const serialCopies = 4

func (r *runner) duplicates(ctx context.Context) error {
	for _, c := range r.cases.duplicates(serialCopies, r.cfg.Concurrent) {
		var results []*attempt.Result
		if c.AtOnce {
			var err error
			if results, err = r.burst(ctx, c, c.Copies); err != nil {
				return err
			}
		} else {
			for range c.Copies {
				res, err := r.send(ctx, c)
				if err != nil {
					return err
				}
				results = append(results, res)
			}
		}
		r.report(judgeDuplicates(c, results))
	}
	return nil
}

// burst delivers n copies of c at once: every copy waits for the others to
// be ready, so that they reach the receiver together.
func (r *runner) burst(ctx context.Context, c *Case, n int) ([]*attempt.Result, error) {
	results := make([]*attempt.Result, n)
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	done.Add(n)
	for i := range n {
		req := r.request(c, true)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			results[i] = r.d.Deliver(ctx, req)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	for _, res := range results {
		if err := r.record(ctx, c, res); err != nil {
			return nil, err
		}
	}
	return results, nil
}

// judgeDuplicates: every copy must get 2xx. When none did, the call itself
// was not accepted, which is accepts-valid's to judge.
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
		return result(c, first, Warn, answer(first)+" on the first delivery: inconclusive, the call itself was not accepted (accepts-valid judges that)")
	case c.AtOnce:
		return result(c, bad, Fail, fmt.Sprintf("%d of %d copies delivered at once %s while %d got 2xx: the same call arriving together (at-least-once delivery) must be accepted, as by a receiver that checks then inserts without a lock",
			len(results)-ok, len(results), answer(bad), ok))
	}
	return result(c, bad, Fail, fmt.Sprintf("re-delivery %d of %d %s after the first got %d: a re-delivered call (same requestId, same bytes) must be accepted again, not refused as a duplicate key",
		badAt, len(results), answer(bad), first.Status))
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

func (r *runner) outOfOrder(ctx context.Context) error {
	for _, g := range r.cases.outOfOrder() {
		// at is the call the verdict rests on: the first that fails, else
		// the first that warns, else the last judged.
		verdict, reason, at := Pass, "", 0
		var judged attempt.Attempt
		for i, c := range g.calls {
			res, err := r.send(ctx, c)
			if err != nil {
				return err
			}
			a := res.Last()
			if !g.judge[i] || verdict == Fail {
				continue
			}
			v, why := Pass, ""
			switch {
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
		r.report(Result{Case: g.calls[at], Verdict: verdict, Status: judged.Status, Latency: judged.Latency, Reason: reason})
	}
	return nil
}

// signature sends Standard Webhooks signatures right and wrong. A receiver
// that verifies must accept every correct one, whatever the bytes of the
// body, and refuse the rest with 4xx.
func (r *runner) signature(ctx context.Context) error {
	cs, err := r.cases.signature(r.cfg.Signer, r.cfg.Now())
	if err != nil {
		return err
	}
	baseline := Pass
	for _, sc := range cs {
		req := r.request(sc.Case, false)
		res := r.d.Deliver(ctx, req)
		if err := r.record(ctx, sc.Case, res); err != nil {
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
		case sc.valid && is4xx(a.Status) && sc.Name != "correct":
			v, reason = Fail, answer(a)+" for a correctly signed body in other bytes, want 2xx: verify the raw bytes received, not a re-serialised body"
		case sc.valid:
			v, reason = Fail, answer(a)+" for a correctly signed call, want 2xx"
		case is2xx(a.Status):
			v, reason = Fail, answer(a)+", want 4xx: "+sc.why
		default:
			v, reason = Fail, answer(a)+", want 4xx ("+sc.why+")"
		}
		if sc.Name == "correct" && v != Pass {
			baseline = v
		}
		r.report(result(sc.Case, a, v, reason))
	}
	return nil
}

// sigCase is a signature case: its headers are set in full; valid says
// whether the signature is one to accept, why what accepting it would mean.
type sigCase struct {
	*Case
	valid bool
	why   string
}

// signature builds the signature cases; the first is the correctly signed
// call the others are read against.
func (b *builder) signature(s *sign.Signer, now time.Time) ([]sigCase, error) {
	inv, rcp := b.creates[spec.Invoice], b.creates[spec.Receipt]
	other, err := sign.NewSigner(sign.SecretPrefix + "d3Jvbmcgc2VjcmV0IGZvciB3aHNpbSBjaGVjaw==")
	if err != nil {
		return nil, err
	}
	ts := now.Unix()
	signed := func(name string, e spec.Event, body []byte, doc *payload.Obj, when int64, sig string, valid bool, why string) sigCase {
		c := bodyCase(Signature, name, e.Name, body, doc)
		id := webhookID(c)
		if sig == "" {
			sig = s.Signature(id, when, body)
		}
		c.Header = http.Header{
			"Webhook-Id":        {id},
			"Webhook-Timestamp": {strconv.FormatInt(when, 10)},
			"Webhook-Signature": {sig},
		}
		return sigCase{c, valid, why}
	}
	doc := b.g.Build(inv, spec.Described)
	body := payload.Marshal(doc)
	cs := []sigCase{signed("correct", inv, body, doc, ts, "", true, "")}

	doc = b.g.Build(inv, spec.Described)
	body = payload.Marshal(doc)
	c := bodyCase(Signature, "tampered-body", inv.Name, nil, doc)
	sig := s.Signature(webhookID(c), ts, body)
	if err := sets(doc, "data.comments", `"changed after signing"`); err != nil {
		return nil, err
	}
	cs = append(cs, signed("tampered-body", inv, payload.Marshal(doc), doc, ts, sig, false, "the body was changed after signing, so signatures are not verified"))

	doc = b.g.Build(inv, spec.Described)
	body = payload.Marshal(doc)
	c = bodyCase(Signature, "wrong-secret", inv.Name, body, doc)
	cs = append(cs, signed("wrong-secret", inv, body, doc, ts, other.Signature(webhookID(c), ts, body), false, "signed with another secret"))

	doc = b.g.Build(inv, spec.Described)
	missing := bodyCase(Signature, "missing-signature-headers", inv.Name, payload.Marshal(doc), doc)
	cs = append(cs, sigCase{missing, false, "the call carries no signature at all"})

	for _, t := range []struct {
		name string
		at   int64
	}{{"timestamp-6-minutes-old", ts - 360}, {"timestamp-6-minutes-ahead", ts + 360}} {
		doc = b.g.Build(inv, spec.Described)
		cs = append(cs, signed(t.name, inv, payload.Marshal(doc), doc, t.at, "", false, "the timestamp is over 5 minutes off, so a captured call could be replayed"))
	}

	doc = b.g.Build(inv, spec.Described)
	body = payload.Marshal(doc)
	c = bodyCase(Signature, "several-signatures", inv.Name, body, doc)
	cs = append(cs, signed("several-signatures", inv, body, doc, ts,
		other.Signature(webhookID(c), ts, body)+" "+s.Signature(webhookID(c), ts, body), true, ""))

	doc = b.g.Build(inv, spec.Described)
	cs = append(cs, signed("pretty-printed-body", inv, payload.MarshalIndent(doc), doc, ts, "", true, ""))
	doc = b.g.Build(rcp, spec.Described)
	cs = append(cs, signed("unicode-escaped-body", rcp, escapeUnicode(payload.Marshal(doc)), doc, ts, "", true, ""))
	doc = b.g.Build(inv, spec.Described)
	if err := respell(doc, "data.items.0.price"); err != nil {
		return nil, err
	}
	cs = append(cs, signed("other-number-spelling", inv, payload.Marshal(doc), doc, ts, "", true, ""))
	return cs, nil
}

// load delivers realistic distinct calls at a concurrency; only answers
// that show the receiver buckling (5xx, timeouts, connection errors) fail.
func (r *runner) load(ctx context.Context) error {
	pairs, qs := r.cases.loadPairs(r.cfg.LoadCount)
	r.noteLoad(pairs, qs)
	var mu sync.Mutex
	next := 0
	feed := func() []*attempt.Request {
		mu.Lock()
		defer mu.Unlock()
		if next == len(pairs) {
			return nil
		}
		var reqs []*attempt.Request
		for _, c := range pairs[next] {
			reqs = append(reqs, r.request(c, true))
		}
		next++
		return reqs
	}
	var bad struct {
		sync.Mutex
		byStatus map[int]int
		byError  map[string]int
	}
	bad.byStatus, bad.byError = map[int]int{}, map[string]int{}
	conc := max(r.cfg.LoadConcurrency, 1)
	st := load.Run(ctx, r.d, feed, load.RunOptions{Concurrency: conc}, func(res *attempt.Result) {
		a := res.Last()
		c := &Case{Check: Load, Name: "load", Event: res.Request.Event}
		_ = r.record(ctx, c, res)
		r.loadAnswered(res)
		bad.Lock()
		defer bad.Unlock()
		switch {
		case a.Status >= 500:
			bad.byStatus[a.Status]++
		case a.Status == 0:
			bad.byError[attempt.ShortError(a)]++
		}
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	// Load first and nothing answered: the receiver is not there at all.
	if r.calls == st.Sent && len(bad.byError) == 1 {
		for kind, n := range bad.byError {
			if n == st.Sent && kind != attempt.KindTimeout {
				return &UnreachableError{URL: r.cfg.Target.Redacted(), Kind: kind}
			}
		}
	}
	ls := &LoadStats{Calls: st.Sent, Concurrency: conc, PerSecond: st.RequestsPerSecond(),
		P50: st.Latency.Quantile(0.5), P90: st.Latency.Quantile(0.9), P99: st.Latency.Quantile(0.99), Max: st.Latency.Max()}
	r.sum.Load = ls
	// The case stands for the run; its request is the first call's.
	c := &Case{Check: Load, Name: fmt.Sprintf("%d-calls-at-%d", st.Sent, conc)}
	if len(pairs) > 0 {
		first := pairs[0][0]
		c.Event, c.Query, c.Body, c.RequestID = first.Event, first.Query, first.Body, first.RequestID
	}
	figures := fmt.Sprintf("%.0f calls/s, p50 %s, p99 %s", ls.PerSecond, ms(ls.P50), ms(ls.P99))
	var parts []string
	worst := 0
	for _, s := range sortedKeys(bad.byStatus) {
		parts = append(parts, fmt.Sprintf("%d got %d", bad.byStatus[s], s))
		worst = s
	}
	for _, k := range sortedKeys(bad.byError) {
		parts = append(parts, fmt.Sprintf("%d %s", bad.byError[k], k))
	}
	res := Result{Case: c, Verdict: Pass, Status: worst, Latency: ls.P99}
	if len(parts) > 0 {
		res.Verdict = Fail
		res.Reason = fmt.Sprintf("%s of %d calls at concurrency %d: the receiver buckles under load (%s)", strings.Join(parts, ", "), st.Sent, conc, figures)
	}
	r.report(res)
	return nil
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

// latency judges the p99 of every call the run made; run alone, it first
// sends the valid calls.
func (r *runner) latency(ctx context.Context) error {
	if r.hist.Count() == 0 {
		cs, err := r.cases.acceptsValid()
		if err != nil {
			return err
		}
		for _, c := range cs {
			if _, err := r.send(ctx, c); err != nil {
				return err
			}
		}
	}
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
	detail := fmt.Sprintf("p99 %s over %d calls, budget %s; slowest event %s (p99 %s), slowest call %s (%s)",
		ms(p99), r.hist.Count(), r.cfg.LatencyBudget, ev, ms(worst), r.slowID, ms(r.slowAt))
	if r.hist.Count() == 0 {
		r.report(Result{Case: c, Verdict: Fail, Reason: "no call got an answer to time"})
		return nil
	}
	if p99 > r.cfg.LatencyBudget {
		r.report(Result{Case: c, Verdict: Fail, Latency: p99, Reason: detail + ": answer first, then do the work"})
		return nil
	}
	r.report(Result{Case: c, Verdict: Pass, Latency: p99})
	return nil
}
