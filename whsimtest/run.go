package whsimtest

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/whsim/whsim/internal/check"
)

// Report is what a run of the battery came to, for a program or an
// example rather than a test: Check says the same as subtests.
type Report struct {
	// Seed is the run's: WithSeed(Seed) sends the same documents again.
	Seed uint64
	// Cases are the graded cases, in the order they were graded.
	Cases []Result
	// Skipped says, by check id, why a check the run was asked for could
	// not run (effects without a probe, signature without a secret).
	Skipped map[string]string
	// Problems are the run-wide failures besides the cases': the handler
	// panicked, the receiver stopped answering, what ended the run early
	// (Run's error: its context ended, the probe failed).
	Problems []string
	// Log is what the run noted: the seed, the load and latency figures.
	Log []string
}

// Result is one graded case.
type Result struct {
	// Check and Case are the check id and the case's name, as whsim
	// check names them: duplicates, CREATE_RECEIVABLE_DOC/concurrent-x8.
	Check, Case string
	// Verdict is "pass", "warn" or "fail".
	Verdict string
	// Inconclusive marks a warning that the case could not be judged (the
	// call it rests on was not accepted, copies meant to meet never did):
	// Check skips such a case where it logs a judged warning. Neither is a
	// pass.
	Inconclusive bool
	// Reason says why a case warns or fails, the receiver's answer
	// included, as whsim check says it.
	Reason string
}

// Failed reports whether a case failed or the run met a problem (a run
// that judged nothing, every case inconclusive, is one, as whsim check
// fails it). A run
// that did not fail has not passed for that: a check it skipped judged
// nothing. Ask Passed for that.
func (r *Report) Failed() bool {
	if len(r.Problems) > 0 {
		return true
	}
	for _, c := range r.Cases {
		if c.Verdict == string(check.Fail) {
			return true
		}
	}
	return false
}

// Passed reports whether the run judged every check it was asked for
// and none failed: no problem, no case failed or left inconclusive, no
// check skipped, and at least one case graded. A judged warning passes,
// as it does for whsim check. Skipped is never pass, so a run whose
// checks were all skipped (effects without a probe) has not failed and
// has not passed either.
func (r *Report) Passed() bool {
	if r.Failed() || len(r.Skipped) > 0 || len(r.Cases) == 0 {
		return false
	}
	for _, c := range r.Cases {
		if c.Inconclusive {
			return false
		}
	}
	return true
}

// Run runs the battery against h in memory, as Check does, and returns
// its report. Its error says what kept the run from judging anything
// more (a probe that failed, a handler that answered nothing), and the
// report holds what was graded before; a run that could not start (a
// nil handler or context, a mistaken option) has no report: nil, and
// the error says why.
func Run(ctx context.Context, h http.Handler, opts ...Option) (*Report, error) {
	if isNil(h) {
		return nil, errors.New("whsimtest.Run: the handler is nil")
	}
	if ctx == nil {
		// As http.NewRequestWithContext refuses one: context.WithCancel
		// and the calls' requests panic on it.
		return nil, errors.New("whsimtest.Run: the context is nil: pass t.Context() in a test, or context.Background()")
	}
	s, err := newSettings(opts)
	if err != nil {
		return nil, errors.New("whsimtest.Run: " + err.Error())
	}
	if s.rootCAs != nil {
		return nil, errors.New("whsimtest.Run: " + errRootCAsInMemory)
	}
	target, err := url.Parse("http://" + inMemoryHost + s.path)
	if err != nil {
		return nil, errors.New("whsimtest.Run: WithPath: " + err.Error())
	}
	client, mem := inMemoryClient(h, s)
	ids := checkIDs(s)
	o := &outcome{s: s, results: map[string][]check.Result{}}
	err = o.run(nil, ctx, client, target, ids, mem)
	rep := &Report{Seed: o.seed, Skipped: map[string]string{}, Problems: o.problems, Log: o.logs}
	if err != nil {
		// What ended the run early is a problem too: a report whose
		// checks were never run is no pass, whoever reads only Failed.
		rep.Problems = append(rep.Problems, err.Error())
	}
	for _, id := range ids {
		if why := o.skipped(id); why != "" {
			rep.Skipped[id] = why
		}
	}
	for _, res := range o.order {
		if res.Verdict == check.Skip {
			continue // said in Skipped
		}
		rep.Cases = append(rep.Cases, Result{Check: res.Case.Check, Case: res.Case.Name, Verdict: string(res.Verdict),
			Inconclusive: res.Inconclusive, Reason: said(res)})
	}
	return rep, err
}
