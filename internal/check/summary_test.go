package check

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// The summary's verdicts, on tallies made by hand: which of them no run
// through a receiver pins (a mutation pass found each unheld).
func TestSummaryVerdicts(t *testing.T) {
	t.Parallel()
	// One failed case fails the run: not two.
	one := &Summary{Order: []string{acceptsValid}, Checks: map[string]*Tally{acceptsValid: {Pass: 4, Fail: 1}}}
	if !one.Failed() {
		t.Error("a run with one failed case: Failed() false")
	}
	if (&Summary{Order: []string{acceptsValid}, Checks: map[string]*Tally{acceptsValid: {Pass: 4}}}).Failed() {
		t.Error("a run with no failed case: Failed() true")
	}
	// A run that ended before a check it would have skipped, or whose
	// inconclusive cases came in a check then said not run, names
	// neither: not run is said apart, never as skipped or unjudged.
	cut := &Summary{
		Order: []string{acceptsValid, duplicates, signature, Effects},
		Checks: map[string]*Tally{
			acceptsValid: {Pass: 2},
			duplicates:   {Warn: 2, Inconclusive: 1},
			signature:    {Skipped: skippedSignature},
			Effects:      {Warn: 3, Inconclusive: 3, Skipped: "needs a probe"},
		},
		NotRun: []string{Effects},
	}
	if got := cut.Skipped(); !slices.Equal(got, []string{signature}) {
		t.Errorf("Skipped() = %q, want [signature] (effects was not run)", got)
	}
	if got := cut.Unjudged(); got != 1 {
		t.Errorf("Unjudged() = %d, want 1 (duplicates'; effects was not run)", got)
	}
}

// cutAt: a run that ended in a check skipped as it began (signature with
// no secret) says it not run, as every check from the one it ended in
// on; an earlier skipped check stays skipped.
func TestCutAtInASkippedCheck(t *testing.T) {
	t.Parallel()
	r := &runner{sum: &Summary{
		Order: []string{acceptsValid, signature, Load},
		Checks: map[string]*Tally{
			acceptsValid: {Pass: 3},
			signature:    {Skipped: skippedSignature},
			Load:         {},
		},
	}}
	r.cutAt(1)
	if !slices.Equal(r.sum.NotRun, []string{signature, Load}) || r.sum.CutShort != "" {
		t.Errorf("ended in signature: not run %q, cut short %q; want [signature load] and none", r.sum.NotRun, r.sum.CutShort)
	}
	r.sum.NotRun, r.sum.CutShort = nil, ""
	r.cutAt(2)
	if !slices.Equal(r.sum.NotRun, []string{Load}) {
		t.Errorf("ended in load: not run %q, want [load] (signature stays skipped)", r.sum.NotRun)
	}
}

// cutAt: a check whose graded cases all warned (inconclusive ones
// included) graded something: ended in, it was cut short, not not run,
// and an earlier one stays in the table.
func TestCutAtInACheckThatOnlyWarned(t *testing.T) {
	t.Parallel()
	r := &runner{sum: &Summary{
		Order: []string{acceptsValid, duplicates, Load},
		Checks: map[string]*Tally{
			acceptsValid: {Warn: 1, Inconclusive: 1},
			duplicates:   {Warn: 2, Inconclusive: 2},
			Load:         {},
		},
	}}
	r.cutAt(1)
	if !slices.Equal(r.sum.NotRun, []string{Load}) || r.sum.CutShort != duplicates {
		t.Errorf("ended in duplicates: not run %q, cut short %q; want [load] and duplicates", r.sum.NotRun, r.sum.CutShort)
	}
}

// finish says nothing was routed only when every answered call got the
// one status that says so: a receiver that answered some calls 404 and
// others 200 is routed, and its 404s are the checks' to judge.
func TestFinishUnroutedOnlyOnOneStatus(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		statuses map[int]int
		want     int // Unrouted's status, 0 for none
	}{
		{map[int]int{http.StatusNotFound: 12}, http.StatusNotFound},
		{map[int]int{http.StatusNotFound: 12, http.StatusOK: 3}, 0},
		{map[int]int{http.StatusOK: 12}, 0},
	} {
		r := &runner{sum: &Summary{}, statuses: tt.statuses}
		r.finish()
		if got := r.sum.Unrouted; tt.want == 0 && got != nil || tt.want != 0 && (got == nil || got.Status != tt.want) {
			t.Errorf("statuses %v: Unrouted %+v, want status %d (0: none)", tt.statuses, got, tt.want)
		}
	}
}

// A verdict replaced after the fact (strayAfter, unasked) leaves the
// tally as if the new one had been given first: the old one, an
// inconclusive warning's mark included, is taken out; a skipped case
// keeps its verdict and the tally is untouched.
func TestReplacedVerdictsKeepTheTally(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		res     Result
		replace func(*runner, *Result)
		want    Tally
		verdict Verdict
	}{
		{"inconclusive then stray bytes", Result{Verdict: Warn, Inconclusive: true}, func(r *runner, res *Result) { r.strayAfter(res, "bytes after") }, Tally{Fail: 1}, Fail},
		{"pass then stray bytes", Result{Verdict: Pass}, func(r *runner, res *Result) { r.strayAfter(res, "bytes after") }, Tally{Fail: 1}, Fail},
		{"fail then unasked", Result{Verdict: Fail}, func(r *runner, res *Result) { r.unasked(res, "bytes before") }, Tally{Warn: 1, Inconclusive: 1}, Warn},
		{"inconclusive then unasked", Result{Verdict: Warn, Inconclusive: true}, func(r *runner, res *Result) { r.unasked(res, "bytes before") }, Tally{Warn: 1, Inconclusive: 1}, Warn},
		{"skipped then stray bytes", Result{Verdict: Skip}, func(r *runner, res *Result) { r.strayAfter(res, "bytes after") }, Tally{}, Skip},
	} {
		res := tt.res
		res.Case = &Case{Check: duplicates, Name: "x"}
		var tally Tally
		switch res.Verdict {
		case Pass:
			tally.Pass++
		case Fail:
			tally.Fail++
		case Warn:
			tally.Warn++
			if res.Inconclusive {
				tally.Inconclusive++
			}
		}
		r := &runner{sum: &Summary{Checks: map[string]*Tally{duplicates: &tally}}}
		tt.replace(r, &res)
		if tally != tt.want || res.Verdict != tt.verdict {
			t.Errorf("%s: tally %+v, verdict %s; want %+v, %s", tt.name, tally, res.Verdict, tt.want, tt.verdict)
		}
	}
}

// result grades a case on one answer: an accepted answer cut short or
// too long warns, one whose body could not be read fails, and a verdict
// given on other grounds (a refusal not judged, a failure) keeps its own
// reason.
func TestResultOfAnAnswer(t *testing.T) {
	t.Parallel()
	c := &Case{Check: acceptsValid, Name: "x"}
	for _, tt := range []struct {
		name    string
		a       attempt.Attempt
		v       Verdict
		reason  string
		want    Verdict
		because string // in the reason
	}{
		{"accepted, cut short", attempt.Attempt{Status: 200, Truncated: true}, Pass, "", Warn, "cut short"},
		{"accepted, too long", attempt.Attempt{Status: 200, Oversized: true}, Pass, "", Warn, "not read further"},
		{"accepted, body unread", attempt.Attempt{Status: 200, BodyKind: attempt.KindTimeout}, Pass, "", Fail, "not finished within --timeout"},
		{"not judged, too long", attempt.Attempt{Status: 401, Oversized: true}, Warn, "inconclusive, refused", Warn, "inconclusive, refused"},
		{"not judged, cut short", attempt.Attempt{Status: 401, Truncated: true}, Warn, "inconclusive, refused", Warn, "inconclusive, refused"},
		{"failed, body unread", attempt.Attempt{Status: 500, BodyKind: attempt.KindTimeout}, Fail, "want 2xx", Fail, "want 2xx"},
	} {
		res := result(c, tt.a, tt.v, tt.reason)
		if res.Verdict != tt.want || !strings.Contains(res.Reason, tt.because) {
			t.Errorf("%s: %s %q, want %s saying %q", tt.name, res.Verdict, res.Reason, tt.want, tt.because)
		}
	}
}

// A refusal says "duplicate" by a 409, or by a 5xx whose body names a
// duplicate or unique key (a database's error passed on); a 4xx other
// than 409, or a body that names neither, does not.
func TestDuplicateAnswer(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status int
		body   string
		want   bool
	}{
		{409, "", true},
		{500, "Duplicate entry 'x' for key 'PRIMARY'", true},
		{500, `ERROR: duplicate key value violates unique constraint "doc_pkey"`, true},
		{500, "UNIQUE constraint failed: docs.request_id", true},
		{503, "unique", true},
		{500, "internal error", false},
		{400, "duplicate", false},
		{499, "unique", false},
	} {
		if got := duplicate(attempt.Attempt{Status: tt.status, BodyPrefix: []byte(tt.body)}); got != tt.want {
			t.Errorf("%d %q: duplicate %v, want %v", tt.status, tt.body, got, tt.want)
		}
	}
}

// The classes of status at their bounds: a 300 is a redirect, not a
// success; a 500 is no 4xx.
func TestStatusClasses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		status        int
		is2, is3, is4 bool
	}{
		{199, false, false, false}, {200, true, false, false}, {299, true, false, false},
		{300, false, true, false}, {399, false, true, false}, {400, false, false, true},
		{499, false, false, true}, {500, false, false, false},
	} {
		if is2xx(tt.status) != tt.is2 || is3xx(tt.status) != tt.is3 || is4xx(tt.status) != tt.is4 {
			t.Errorf("%d: 2xx %v, 3xx %v, 4xx %v; want %v %v %v", tt.status, is2xx(tt.status), is3xx(tt.status), is4xx(tt.status), tt.is2, tt.is3, tt.is4)
		}
	}
}

// finish says the ids were seen before only when every first delivery of
// at least three got a duplicate's refusal: one or two may be a receiver
// that refused them for another reason.
func TestFinishSeenBefore(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		firsts, dup int
		want        bool
	}{
		{3, 3, true}, {4, 4, true}, {2, 2, false}, {4, 3, false}, {0, 0, false},
	} {
		r := &runner{sum: &Summary{}, firsts: tt.firsts, firstDup: tt.dup}
		r.finish()
		if r.sum.SeenBefore != tt.want {
			t.Errorf("%d of %d first deliveries refused as duplicates: SeenBefore %v, want %v", tt.dup, tt.firsts, r.sum.SeenBefore, tt.want)
		}
	}
}

// judgeDuplicates, on answers made by hand: which delivery failed, and
// how, is said as it happened (at once or one after another).
func TestJudgeDuplicates(t *testing.T) {
	t.Parallel()
	got := func(statuses ...int) []*attempt.Result {
		var rs []*attempt.Result
		for _, s := range statuses {
			a := attempt.Attempt{Status: s}
			if s == 0 {
				a.Kind = attempt.KindTimeout
			}
			rs = append(rs, &attempt.Result{Attempts: []attempt.Attempt{a}})
		}
		return rs
	}
	// uniqueKey is a 503 whose body names the key the copy broke.
	uniqueKey := got(200, 503)
	uniqueKey[1].Attempts[0].BodyPrefix = []byte(`{"error":"UNIQUE constraint failed: calls.request_id"}`)
	// One copy of the three unanswered went out on a kept-alive
	// connection, and one more got 500: each is said as it was.
	keptAlive := got(200, 0, 0, 0)
	keptAlive[1].Attempts[0].KeptAlive = true // met first, said after the commoner
	mixed := got(0, 200, 500, 0)
	for _, tt := range []struct {
		name    string
		c       Case
		results []*attempt.Result
		want    Verdict
		because string
	}{
		{"serial, all 2xx", Case{}, got(200, 200, 200, 200), Pass, ""},
		{"at once, unanswered alike", Case{AtOnce: true}, got(200, 0, 0), Fail, "2 of 3 copies delivered at once got no answer (timeout) while 1 got 2xx"},
		{"at once, one of the unanswered kept alive", Case{AtOnce: true}, keptAlive, Fail, "3 of 4 copies delivered at once got no answer (2: timeout; 1: timeout on a kept-alive connection the receiver had answered a call on before (the call may have been taken)) while 1 got 2xx"},
		{"at once, unanswered and refused", Case{AtOnce: true}, mixed, Fail, "3 of 4 copies delivered at once got no 2xx (2: no answer (timeout); 1: got 500) while 1 got 2xx"},
		{"at once, refused and unanswered", Case{AtOnce: true}, got(409, 200, 0, 409), Fail, "3 of 4 copies delivered at once got no 2xx (2: got 409; 1: no answer (timeout)) while 1 got 2xx"},
		{"serial, the second unanswered", Case{}, got(200, 0, 200, 200), Fail, "delivery 2 of 4 got no answer"},
		{"serial, the third refused", Case{}, got(200, 200, 409, 200), Fail, "re-delivery 3 of 4"},
		{"serial, the second and third refused", Case{}, got(200, 409, 500, 200), Fail, "re-delivery 2 of 4 got 409"},
		{"serial, the first refused", Case{}, got(500, 200, 200, 200), Warn, "inconclusive, the call itself was not accepted"},
		{"at once, one unanswered", Case{AtOnce: true}, got(200, 0, 200), Fail, "1 of 3 copies delivered at once got no answer"},
		{"at once, none accepted", Case{AtOnce: true}, got(500, 500, 500), Warn, "inconclusive"},
		{"at once, a duplicate key", Case{AtOnce: true}, got(200, 409, 409), Fail, "refused as a duplicate key"},
		// A receiver that sheds calls past a few in flight did not race
		// on a key: the reason says what its answer said.
		{"at once, turned away as busy", Case{AtOnce: true}, got(200, 503, 503, 200), Fail, "2 of 4 copies delivered at once got 503 while 2 got 2xx: the receiver turned calls away as too many at once"},
		{"at once, 429 to new requestIds", Case{AtOnce: true, NewRequestIDs: true}, got(200, 200, 429), Fail, "1 of 3 copies of one document, each under a new requestId, delivered at once got 429 while 2 got 2xx: the receiver turned calls away as too many at once"},
		{"at once, a 503 naming a unique key", Case{AtOnce: true}, uniqueKey, Fail, "refused as a duplicate key"},
	} {
		c := tt.c
		c.Check, c.Name = duplicates, "x"
		res := judgeDuplicates(&c, tt.results)
		if res.Verdict != tt.want || !strings.Contains(res.Reason, tt.because) {
			t.Errorf("%s: %s %q, want %s saying %q", tt.name, res.Verdict, res.Reason, tt.want, tt.because)
		}
	}
	// A pass is timed by its slowest copy, and answered by it.
	rs := got(200, 201, 200)
	for i, ms := range []time.Duration{1, 3, 2} {
		rs[i].Attempts[0].Latency = ms * time.Millisecond
	}
	if res := judgeDuplicates(&Case{Check: duplicates, Name: "x", AtOnce: true}, rs); res.Verdict != Pass || res.Latency != 3*time.Millisecond || res.Status != 201 {
		t.Errorf("copies answered in 1, 3 and 2ms: %s in %s (%d), want pass in 3ms (201)", res.Verdict, res.Latency, res.Status)
	}
}

// A case not judged whose answer could not be read fails for that, and a
// failure is judged: it is not marked inconclusive besides.
func TestUnjudgedAnswerUnreadFails(t *testing.T) {
	t.Parallel()
	res := unjudged(&Case{Check: acceptsValid, Name: "x"}, attempt.Attempt{Status: 401, BodyKind: attempt.KindTimeout}, "inconclusive, refused")
	if res.Verdict != Fail || res.Inconclusive {
		t.Errorf("%s (inconclusive %v) %q, want a judged failure", res.Verdict, res.Inconclusive, res.Reason)
	}
}
