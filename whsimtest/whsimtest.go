package whsimtest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/termsafe"
)

// inMemoryHost is the host of the URL the calls of Check go to. It never
// resolves (.invalid): a call that left the process would fail loudly.
const inMemoryHost = "whsimtest.invalid"

// signatureCheck is the id of the check that needs a secret.
const signatureCheck = "signature"

// Check runs whsim check's battery against h inside the test: every call
// goes to h.ServeHTTP in memory (no listener, no port), with the cases,
// seeds, timeouts and verdicts of the CLI. Each check is a subtest of t
// named by its id, and each case a subtest under it; a failing case is
// t.Error with the CLI's reason, a warning t.Log, a check that cannot run
// t.Skip. Call it once per test.
func Check(t *testing.T, h http.Handler, opts ...Option) {
	mustHaveTest(t, "Check")
	t.Helper()
	defer func() { panicAfterCompletion(t.Name(), "Check", recover()) }()
	checkHandler(realT{t}, h, opts)
}

// CheckURL runs the battery against the receiver listening at url (one
// the test started in another process, or a container), as whsim check
// --url does, reporting as Check does.
func CheckURL(t *testing.T, url string, opts ...Option) {
	mustHaveTest(t, "CheckURL")
	t.Helper()
	defer func() { panicAfterCompletion(t.Name(), "CheckURL", recover()) }()
	checkURL(realT{t}, url, opts)
}

// mustHaveTest panics, saying so, when t, given to fn, is nil: no test
// can be failed then, and testing's own panic is a nil pointer
// dereference that names no argument.
func mustHaveTest(t testing.TB, fn string) {
	if isNil(t) {
		panic("whsimtest." + fn + ": t is nil: pass the test's t (the *testing.T its function is given)")
	}
}

// panicAfterCompletion panics again with p, a panic that ended Check or
// CheckURL (fn) on test; testing's at a failure said to a test that has
// completed ("Fail in goroutine after TestX has completed") is said as
// what happened and what to do. A completed test cannot be failed, and
// passing unsaid would hide every defect found: the panic, which ends
// the test binary, is the one way left to say it.
func panicAfterCompletion(test, fn string, p any) {
	if p == nil {
		return // returned, or t.Fatal's runtime.Goexit
	}
	said, ok := p.(string)
	if !ok || !strings.Contains(said, " in goroutine after "+test+" has completed") {
		panic(p)
	}
	panic(fmt.Sprintf("whsimtest.%s ran on %s after it had completed (called from a goroutine the test did not wait for): "+
		"a completed test cannot be failed, so nothing it found can be said; call %s in the test's body, "+
		"or wait for the goroutine that calls it before the test returns", fn, test, fn))
}

func checkHandler(t tb, h http.Handler, opts []Option) {
	t.Helper()
	if isNil(h) {
		t.Fatal("whsimtest.Check: the handler is nil: pass the http.Handler that receives the webhooks (a mux, a router, or http.HandlerFunc(yourFunc))")
	}
	s, err := newSettings(opts)
	if err != nil {
		t.Fatal("whsimtest.Check: " + err.Error())
	}
	if s.rootCAs != nil {
		t.Fatal("whsimtest.Check: " + errRootCAsInMemory)
	}
	target, err := url.Parse("http://" + inMemoryHost + s.path)
	if err != nil {
		t.Fatal("whsimtest.Check: WithPath: " + err.Error())
	}
	client, mem := inMemoryClient(h, s)
	battery(t, "whsimtest.Check", s, client, target, mem)
}

// inMemoryClient is the client of a run in memory: every call goes to
// h.ServeHTTP through the inMemory transport it returns.
func inMemoryClient(h http.Handler, s *settings) (*http.Client, *inMemory) {
	mem := newInMemory(h)
	return &http.Client{
		Transport: mem, Timeout: s.timeout,
		// The ERP follows no redirect: a 3xx is the answer.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}, mem
}

func checkURL(t tb, raw string, opts []Option) {
	t.Helper()
	s, err := newSettings(opts)
	if err != nil {
		t.Fatal("whsimtest.CheckURL: " + err.Error())
	}
	if s.pathSet {
		t.Fatal("whsimtest.CheckURL: WithPath is Check's: give CheckURL the whole URL, path and query included")
	}
	target, err := endpoint.ParseHookTarget(raw)
	if err != nil {
		t.Fatal("whsimtest.CheckURL: url " + err.Error())
	}
	client, err := attempt.NewClient(attempt.ClientOptions{Timeout: s.timeout, Concurrency: max(s.loadConc, check.DefaultConcurrent), RootCAs: s.rootCAs})
	if err != nil {
		t.Fatal("whsimtest.CheckURL: " + err.Error())
	}
	// The client is the run's alone: its idle connections, left open,
	// would outlive the test as goroutines a leak check reports and as
	// sockets the receiver holds.
	defer client.CloseIdleConnections()
	battery(t, "whsimtest.CheckURL", s, client, target, nil)
}

// errRootCAsInMemory is said when Check or Run is given WithRootCAs.
const errRootCAsInMemory = "WithRootCAs is CheckURL's: Check and Run call the handler in memory, with no TLS"

// isNil says whether x (a handler, a test) is nil, or a nil pointer, func
// or map in an interface, which would panic on its first call.
func isNil(x any) bool {
	if x == nil {
		return true
	}
	switch v := reflect.ValueOf(x); v.Kind() {
	case reflect.Pointer, reflect.Func, reflect.Map, reflect.Chan, reflect.Interface, reflect.Slice:
		return v.IsNil()
	}
	return false
}

// battery makes the checks' subtests, runs the checks the test run
// selects, and has each subtest say its results.
//
// The battery runs its checks in its own order, one run feeding the next
// (latency judges the calls of the others, effects probes the documents
// of load), so the subtests cannot each run their own. Instead each check
// subtest is made first: testing runs only those that -run and -skip
// select, each notes that it was, then waits (t.Parallel) while the run
// makes the selected checks alone; when it ends, each says its cases.
//
// caller, the function the test called, names it in a failure.
func battery(t tb, caller string, s *settings, client *http.Client, target *url.URL, mem *inMemory) {
	t.Helper()
	ids := checkIDs(s)
	// The run's notes are said after it, so that they point at the
	// line of the test that called Check.
	o := &outcome{s: s, results: map[string][]check.Result{}}
	var selected []string
	ready := make(chan struct{})
	// making is set while the subtests are made: a subtest that finds it
	// still set after t.Parallel was not paused (a fuzz target's), and
	// would wait for the run forever.
	var making, unpaused atomic.Bool
	making.Store(true)
	for _, id := range ids {
		// The check's subtest, which a test that cannot make one (a
		// testing/synctest bubble's) is told of here, where the test
		// can be failed at its line.
		refused := runSubtest(t, caller, id, func(t tb) {
			t.Helper()
			selected = append(selected, id)
			t.Parallel()
			if making.Load() {
				unpaused.Store(true)
				t.Fatal("whsimtest.Check cannot run here: its check subtests wait for the run with t.Parallel, which has no effect in a fuzz target")
			}
			<-ready
			o.replay(t, id)
		})
		if refused != "" {
			t.Fatal(refused)
		}
	}
	making.Store(false)
	// Closed however the run ends, a t.Fatal included: the subtests are
	// waiting for it.
	defer close(ready)
	if len(selected) == 0 && t.failFastOnly() {
		// Another test failed first under -failfast: testing made no
		// check subtest, and the test would read as passed.
		t.Skip(caller + ": nothing run: go test -failfast makes no subtest once a test has failed, and another test failed before this one made its check subtests")
	}
	if len(selected) == 0 && !slices.Contains(ids, signatureCheck) {
		// Without a secret signature is no subtest, so go test -run
		// 'TestWebhooks/signature' selected none, and the test read "ok"
		// with nothing judged. Its subtest is made now, which testing
		// runs only when -run and -skip select it: then it skips saying
		// what it needs, and the test skips as for effects without a
		// probe. A selection of the test's own subtests (or a check
		// misspelt) selects no check either; the test goes on as testing
		// has it, its code after Check too.
		named := false
		t.Run(signatureCheck, func(t tb) {
			t.Helper()
			named = true
			t.Skip("the signature check needs a secret: WithSecret(\"whsec_...\") signs every call and enables it")
		})
		if named {
			t.Skip(fmt.Sprintf("%s: nothing checked: go test -run and -skip selected only the check(s) %s, which need %s",
				caller, quoteAll([]string{signatureCheck}), strings.Join(unrunnable([]string{signatureCheck}, false, false), " and ")))
		}
	}
	if len(selected) == 0 || unpaused.Load() {
		return
	}
	// go test -run or -skip may select only checks that cannot run: each
	// subtest would skip, and the test read as passed with nothing judged.
	// The test skips too, saying what is missing: unlike WithChecks
	// naming only them (a mistake in the test's code, which fails it),
	// the selection is the command line's, and may span tests that were
	// never meant to run those checks.
	if needs := unrunnable(selected, s.signer != nil, s.probe != nil); needs != nil {
		o.ended = "no check go test -run and -skip selected can run"
		t.Skip(fmt.Sprintf("%s: nothing checked: go test -run and -skip selected only the check(s) %s, which need %s",
			caller, quoteAll(selected), strings.Join(needs, " and ")))
	}
	ctx, cancel := beforeDeadline(t)
	defer cancel()
	o.say(t, o.run(t, ctx, client, target, selected, mem))
	// Every case inconclusive (the calls they rest on not accepted, and
	// the check that judges those calls not run) is a problem of the run
	// (nothing judged), which failed the test above. A selection that
	// judged nothing otherwise (its checks had no case) skips: the test
	// would read as passed with nothing judged.
	if len(o.problems) == 0 && !slices.ContainsFunc(selected, o.judged) {
		t.Skip(fmt.Sprintf("%s: nothing judged: every case of %s was inconclusive, or its check could not run (the cases say why): a run that judged nothing has not passed",
			caller, strings.Join(selected, ", ")))
	}
}

// judged says whether a case of check id was judged on its answer:
// passed, failed or warned, not left inconclusive.
func (o *outcome) judged(id string) bool {
	return slices.ContainsFunc(o.results[id], func(res check.Result) bool {
		return res.Verdict == check.Pass || res.Verdict == check.Fail || res.Verdict == check.Warn && !res.Inconclusive
	})
}

// errNearDeadline ends a run that go test's -timeout would end otherwise.
var errNearDeadline = errors.New("go test's -timeout was near, so the run stopped before it " +
	"(give go test a longer -timeout, or the calls a shorter WithTimeout)")

// beforeDeadline is the test's context, ended a little before go test's
// -timeout (t.Deadline): at the timeout go test panics, ending the whole
// binary with only the names of the tests running, never the cases a
// hanging receiver was judged on, nor the calls it holds. Ended before it,
// the run says what it judged, its calls cut short are failures naming
// their cases, and the handler calls still running are said.
func beforeDeadline(t tb) (context.Context, context.CancelFunc) {
	d, ok := t.Deadline()
	if !ok {
		return context.WithCancel(t.Context())
	}
	// A tenth of what is left, at most 3s: the run's report takes
	// milliseconds, the test's cleanups little more.
	margin := min(time.Until(d)/10, 3*time.Second)
	return context.WithDeadlineCause(t.Context(), d.Add(-margin), errNearDeadline)
}

// runSubtest is t.Run, whose refusal to make a subtest (inside a
// testing/synctest bubble, in a t.Cleanup function) it returns as what
// the caller, the function the test called, says of it, "" when it made
// one. testing refuses with a panic, which would end the whole test
// binary, before it makes anything; any other panic goes on.
func runSubtest(t tb, caller, name string, f func(tb)) (refused string) {
	t.Helper() // on the path testing walks from a subtest to the test's line
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		said, ok := p.(string)
		if !ok || !strings.HasPrefix(said, "testing: t.Run called") {
			panic(p)
		}
		switch {
		case strings.Contains(said, "synctest"):
			refused = caller + " cannot run inside a testing/synctest bubble: it makes each check a subtest (t.Run), which synctest.Test forbids; " +
				"call it outside synctest.Test, or call whsimtest.Run(t.Context(), h, ...) inside and fail on its Report"
		case strings.Contains(said, "Cleanup"):
			refused = caller + " cannot run in a t.Cleanup function: it makes each check a subtest (t.Run), which testing forbids during cleanup; call it in the test's body"
		default:
			refused = caller + " cannot make its check subtests here (" + said + ")"
		}
	}()
	t.Run(name, f)
	return ""
}

// checkIDs is the checks a run makes, in run order, as whsim check picks
// them: without a secret the signature check is no part of the battery
// (the spec has no signing), so it is no subtest; named in WithChecks, it
// is one, skipped saying it needs WithSecret (whsim check --checks
// signature says it skipped too).
func checkIDs(s *settings) []string {
	ids, _ := check.Select(s.checks, nil)
	if run, dropped := check.Runnable(ids, s.signer != nil); dropped && !slices.Contains(s.checks, signatureCheck) {
		return run
	}
	return ids
}

// outcome is what a run came to, for the subtests to say.
type outcome struct {
	s       *settings
	seed    uint64
	sum     *check.Summary
	order   []check.Result            // as graded
	results map[string][]check.Result // by check
	repro   map[*check.Case]string
	// ended says why checks were not run: the run ended early.
	ended    string
	logs     []string
	problems []string
}

// say has the parent test say what the run came to: its log lines, each
// problem an error, a fatal error the end of the test.
func (o *outcome) say(t tb, err error) {
	t.Helper()
	for _, l := range o.logs {
		t.Log(l)
	}
	for _, p := range o.problems {
		t.Error(p)
	}
	if err != nil {
		t.Fatal(err.Error())
	}
}

// run runs the checks ids. Its error ends the run with nothing judged
// after it (the probe failed, the first call got no answer); problems
// are the run-wide failures a test fails on besides its cases' (the
// handler panicked, the receiver stopped answering).
//
// t, when not nil (Run has none), is the test, told at once when the run
// waits for handler calls still running after their time limit.
func (o *outcome) run(t tb, ctx context.Context, client *http.Client, target *url.URL, ids []string, mem *inMemory) error {
	if t != nil {
		t.Helper()
	}
	s := o.s
	var pn *panics // over the network, nil: the handler is not ours to watch
	if mem != nil {
		pn = mem.panics
	}
	seed, anchor := check.SeedOf(s.seed, time.Now())
	o.seed = seed
	var nonce uint64
	if !s.fixedIDs {
		nonce = reqid.Nonce()
	}
	runnable, _ := check.Runnable(ids, s.signer != nil)
	var mu sync.Mutex
	// notices are what whsim check says while it runs (every call so far
	// got 404), said after the run unless its summary says it whole.
	var notices []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		o.logs = append(o.logs, fmt.Sprintf(format, args...))
	}
	cfg := check.Config{
		Client: client, Target: target, Checks: runnable, Seed: seed, Anchor: anchor, Now: time.Now,
		Header: s.header, Signer: s.signer, Strict: s.strict, LatencyBudget: s.budget,
		LoadCount: s.loadCalls, LoadConcurrency: s.loadConc, Settle: s.settle, Nonce: nonce,
		Notice: func(msg string) {
			mu.Lock()
			defer mu.Unlock()
			notices = append(notices, "whsimtest: "+ours(msg, pn))
		},
	}
	var fp *funcProbe
	if s.probe != nil {
		fp = &funcProbe{f: s.probe, timeout: s.timeout, running: &running{}}
		cfg.Probe = fp
	}
	// The seed is said at once to a test: one whose handler hangs ends at
	// go test's -timeout with only what it said before.
	seedLine := fmt.Sprintf("whsimtest: seed %d (WithSeed(%d) sends the same documents again): %s", seed, seed, strings.Join(ids, ", "))
	if t != nil {
		t.Log(seedLine)
	} else {
		logf("%s", seedLine)
	}
	// Against a URL a failure carries the command that sends its calls
	// again; in memory there is nothing to send them to.
	var rep *check.Reporter
	if pn == nil {
		o.repro = map[*check.Case]string{}
		again := againCommand(target, s)
		// whsimtest has no --save-cases: a body too large to print is got
		// by whsim check, with this run's seed for the same documents.
		save := fmt.Sprintf("%s --seed %d --save-cases whsim-cases --checks ", strings.TrimSuffix(again, " --checks "), seed)
		cfg.SaveCommand = save
		rep = &check.Reporter{Out: reproSink(o.repro), Target: target, Header: s.header, Signer: s.signer, Now: time.Now, Budget: s.budget, Again: again, SaveCommand: save, OneLine: true}
	}
	if len(runnable) == 0 {
		o.sum = &check.Summary{Checks: map[string]*check.Tally{}}
		return nil
	}
	sum, err := check.Run(ctx, cfg, func(res check.Result) {
		if rep != nil {
			rep.Result(res)
		}
		o.order = append(o.order, res)
		o.results[res.Case.Check] = append(o.results[res.Case.Check], res)
	})
	o.sum = sum
	if sum == nil || sum.Unrouted == nil {
		for _, n := range notices {
			logf("%s", n)
		}
	}
	if mem != nil && !waitForHandlers(t, ctx, mem.running, s.timeout) {
		o.cutWait(ctx, err, mem.running, "the handler", "handler", logf)
	}
	if fp != nil && !waitFor(t, ctx, fp.running, s.timeout, probeStillRunning) {
		o.cutWait(ctx, err, fp.running, "the "+probeName, probeName, logf)
	}
	if n, afterHead, first := pn.said(); n > 0 {
		o.problems = append(o.problems, fmt.Sprintf("whsimtest: the handler panicked on %d call(s), %s; the first, %s", n, closedHow(n, afterHead), first))
	}
	if n, afterHead, first := pn.exited(); n > 0 {
		o.problems = append(o.problems, fmt.Sprintf("whsimtest: the handler ended its goroutine without returning on %d call(s) (runtime.Goexit: t.Fatal, t.FailNow, t.Skip and require calls "+
			"end the goroutine they are called in, which testing allows only in the test's own; a handler runs in one of its own, as behind a server), "+
			"%s: answer an error status instead; the first, %s", n, closedHow(n, afterHead), first))
	}
	if n, first := pn.usedLate(); n > 0 {
		o.problems = append(o.problems, fmt.Sprintf("whsimtest: the handler used its ResponseWriter after ServeHTTP returned, on %d call(s) (a goroutine it left wrote, "+
			"set a status or flushed): \"a ResponseWriter may not be used after ServeHTTP has returned\" (net/http); behind a server the write races with "+
			"the next answer on the connection, which whsim check may read garbled; in memory it reached no one; the first, %s", n, first))
	}
	var unreachable *check.UnreachableError
	var probeErr *probe.Error
	switch {
	case errors.As(err, &unreachable) && pn != nil && strings.HasPrefix(unreachable.Kind, attempt.KindMalformed+": "):
		// It answered, with bytes that are no HTTP answer (a status
		// 600 to 999 is one: check fails it as a 5xx).
		o.ended = "the handler's answer to the first call is no HTTP answer"
		return fmt.Errorf("whsimtest: the handler's answer to the first call is no valid HTTP answer (%s): nothing else can be judged", ours(strings.TrimPrefix(unreachable.Kind, attempt.KindMalformed+": "), pn))
	case errors.As(err, &unreachable) && pn != nil:
		o.ended = "the handler gave the first call no answer"
		first := "the first call"
		if unreachable.Case != "" {
			first += " (" + unreachable.Case + ")"
		}
		return fmt.Errorf("whsimtest: the handler gave %s no answer (%s): nothing else can be judged", first, ours(strings.TrimPrefix(unreachable.Kind, "error: "), pn))
	case errors.As(err, &probeErr):
		o.ended = "the probe failed"
		return fmt.Errorf("whsimtest: the %s failed, so effects cannot be judged (nothing is blamed on the receiver): %s", probeName, probeWords.Replace(probeErr.Reason))
	case err != nil:
		if cause := context.Cause(ctx); cause != nil && errors.Is(err, ctx.Err()) {
			err = cause // why ctx ended: go test's -timeout near
			if held := mem.stoppedHeld(); len(held) > 0 {
				// No case grades them: the calls are named instead.
				err = fmt.Errorf("%w; the handler had not answered %d call(s) by then: %s", err, len(held), strings.Join(held, ", "))
			}
		}
		o.ended = "the run ended: " + err.Error()
		if said := ours(err.Error(), pn); said != err.Error() {
			return errors.New("whsimtest: " + said) // a flag of whsim check's named
		}
		return fmt.Errorf("whsimtest: %w", err)
	}
	switch {
	case sum.Stopped != nil:
		o.ended = "the receiver stopped answering " + sum.Stopped.Where()
		o.problems = append(o.problems, fmt.Sprintf("whsimtest: the receiver stopped answering %s: %s; not run: %s", sum.Stopped.Where(), ours(sum.Stopped.Reason, pn), strings.Join(sum.NotRun, ", ")))
	case sum.Interrupted != nil:
		o.ended = "the run was interrupted"
		o.problems = append(o.problems, "whsimtest: the run was interrupted after "+sum.Interrupted.After)
	case sum.NothingJudged():
		// As whsim check fails it: a skipped test reads "ok" in go test,
		// and a CI job would go green on a run that verified nothing
		// (every call refused, with WithChecks("effects")).
		o.problems = append(o.problems, "whsimtest: nothing judged: every case of the checks that ran was inconclusive (the cases say why): "+
			"a run that judged nothing has not passed, as whsim check says FAIL no case judged (exit 1)")
	}
	if sum.Unrouted != nil {
		logf("whsimtest: every call got %d %s: %s", sum.Unrouted.Status, http.StatusText(sum.Unrouted.Status), ours(sum.Unrouted.Hint, pn))
	}
	if sum.SeenBefore {
		logf("whsimtest: every first delivery was refused as a duplicate (409, or a 5xx saying so): the receiver's store has seen these requestIds before (WithFixedIDs repeats them)")
	}
	if l := sum.Load; l != nil && l.Answered+l.TimedOut > 0 {
		logf("whsimtest: load: %d calls at %d at once, %.0f/s, p50 %s, p99 %s", l.Calls, l.Concurrency, l.PerSecond, l.P50, l.P99)
	}
	if sum.P99 > 0 {
		logf("whsimtest: p99 %s of the calls outside load (budget %s)", sum.P99, s.budget)
	}
	// As whsim check's effects line: a probe that finds none of the
	// documents, or none of a kind, is likelier asking the wrong question
	// than the receiver losing them all, which every case says.
	if e := sum.Effects; e != nil {
		switch {
		case e.NoneHeld:
			logf("whsimtest: effects: %s; %s", documentsProbed(e.Documents), probeWords.Replace(probe.NoneFound(e.Settle)))
		case len(e.NoneHeldOf) > 0:
			logf("whsimtest: effects: %s; %s", documentsProbed(e.Documents), probeWords.Replace(probe.NoneFoundOf(e.NoneHeldOf[0], e.Settle)))
		}
	}
	// Lines 0 fails a document as stored without its lines, as the CLI
	// fails "lines":0; a probe that does not count lines and leaves the
	// field at its zero value meets that on every document, which each
	// failing case cannot tell apart from a store that lost the lines.
	if fp != nil {
		if n := fp.heldWithoutLines(); n > 0 {
			logf("whsimtest: effects: the %s answered Lines 0 for %d document(s) it holds, judged as held without their lines; "+
				"if it does not count lines, it answers LinesNotCounted: true", probeName, n)
		}
	}
	return nil
}

// closedHow says what the sender got of n calls whose handler panicked
// or ended its goroutine, afterHead of them once it had written the
// answer's head: as behind net/http's server, a connection closed,
// without an answer, or after that head, which the sender then has, with
// the body sent so far (its status judged, as whsim check judges it).
func closedHow(n, afterHead int) string {
	switch afterHead {
	case 0:
		return "each a connection closed without an answer to the sender"
	case n:
		return fmt.Sprintf("%d of them after it had written the answer's head (a Flush, or a body past 2 KB), each a connection closed "+
			"after that head, which the sender got with the body sent so far", n)
	}
	return fmt.Sprintf("each a connection closed, without an answer to the sender or, on %d of them after it had written the answer's head "+
		"(a Flush, or a body past 2 KB), after that head, which the sender got with the body sent so far", afterHead)
}

// cutWait says the calls of r (of who, named as whose calls) still
// running when the end of ctx cut the run's wait for them short. A run
// that ended whole (err nil) whose wait go test's -timeout cut short
// fails, naming them, as the doc says: it passed only because the wait
// was cut, and the calls it names are what held the test. Otherwise
// (the run's own end, an error that fails the test already, or the
// context Run was given) they are left to finish, said in the log.
func (o *outcome) cutWait(ctx context.Context, err error, r *running, who, whose string, logf func(string, ...any)) {
	still := r.still()
	if len(still) == 0 {
		return // they returned as the wait ended
	}
	// Cut short by go test's -timeout near, unless that ended the run too
	// (its calls held then are named by the run's error): a run that had
	// ended on its own, on a first call with no answer, say, ended long
	// before the deadline cut the wait for its handler calls.
	if errors.Is(context.Cause(ctx), errNearDeadline) && (err == nil || !errors.Is(err, ctx.Err())) {
		o.problems = append(o.problems, fmt.Sprintf("whsimtest: %s had not returned from %d call(s) when go test's -timeout was near, so the wait for it stopped: %s",
			who, len(still), strings.Join(still, ", ")))
		return
	}
	logf("whsimtest: the run ended (%v) with %d %s call(s) still running, left to finish: %s", context.Cause(ctx), len(still), whose, strings.Join(still, ", "))
}

// waitForHandlers returns when every handler call of the run has
// returned, or ctx is done and some have not (false). When some are still
// running grace after the run, it tells the test t (when not nil) why it
// waits.
func waitForHandlers(t tb, ctx context.Context, r *running, grace time.Duration) bool {
	if t != nil {
		t.Helper()
	}
	return waitFor(t, ctx, r, grace, handlersStillRunning)
}

// handlersStillRunning and probeStillRunning say why the run waits, when
// the calls of the handler or the probe named still are still running
// grace after the run: which they are, so that a test whose handler hangs
// says what it hangs on at once (go test -v), not only at its end.
func handlersStillRunning(still []string, grace time.Duration) string {
	return fmt.Sprintf("whsimtest: waiting for %d handler call(s) still running %s after their time limit (WithTimeout) ended: "+
		"the handler does not return when its request's context ends, and the run ends only after its last handler call: %s", len(still), grace, strings.Join(still, ", "))
}

func probeStillRunning(still []string, grace time.Duration) string {
	return fmt.Sprintf("whsimtest: waiting for %d %s call(s) still running %s after their time limit (WithTimeout) ended: "+
		"the probe does not return when its context ends, and the run ends only after its last call, so that none reads a store the test's t.Cleanup closed: %s",
		len(still), probeName, grace, strings.Join(still, ", "))
}

// waitFor is waitForHandlers for the calls r counts, saying why it waits
// with stillRunning.
func waitFor(t tb, ctx context.Context, r *running, grace time.Duration, stillRunning func(still []string, grace time.Duration) string) bool {
	if t != nil {
		t.Helper()
	}
	all := r.returned()
	late := time.NewTimer(grace)
	defer late.Stop()
	// A done ctx gives up the wait only for calls still running: a select
	// with both ready picks either, and all closes a moment after the
	// last call returned.
	ended := r.none
	select {
	case <-all:
		return true
	case <-ctx.Done():
		return ended()
	case <-late.C:
	}
	if still := r.still(); t != nil && len(still) > 0 {
		t.Log(stillRunning(still, grace))
	}
	select {
	case <-all:
		return true
	case <-ctx.Done():
		return ended()
	}
}

// ours is a text of the battery's, written for whsim check, with the
// options of whsimtest in place of the flags it names, which a test cannot
// pass; pn is nil over the network (CheckURL).
func ours(text string, pn *panics) string {
	url := "WithPath" // in memory
	if pn != nil {
		return strings.NewReplacer("--url", url).Replace(optionWords.Replace(text))
	}
	return strings.NewReplacer("the path of --url", "the path of the URL", "--url", "the URL").Replace(optionWords.Replace(text))
}

// probeWords names Document's fields where the probe package's texts
// name the placeholders and variables of --probe and --probe-cmd, which a
// WithProbe function has none of. Only for those texts: the funcProbe's
// own errors are in whsimtest's words already, and name whsim check's
// --timeout as the CLI's.
var probeWords = strings.NewReplacer(
	"does it ask about the document in {code} or $"+probe.EnvCode+"?", "does it look the document up by Document.Code?",
	"so {invoiceCode} and $WHSIM_INVOICE_CODE are empty for it: does the probe find invoices by them? Ask by {code} or $"+probe.EnvCode,
	"so Document.InvoiceCode is empty for it: does the probe look invoices up by it? Look them up by Document.Code",
	"{code} is", "Document.Code is",
	"--settle", "WithSettle",
)

// optionWords names whsimtest's options where the battery's texts name
// whsim check's flags.
var optionWords = strings.NewReplacer(
	"(-H 'Authorization: ...')", `(WithHeader("Authorization", "..."))`,
	"--timeout", "WithTimeout",
	"--secret", "WithSecret",
	"--settle", "WithSettle",
	"(--cacert <ca.pem> trusts a private CA, --insecure skips the check)",
	"(CheckURL trusts the system's roots, or WithRootCAs's: for httptest.NewTLSServer, a pool holding srv.Certificate())",
)

// replay says the results of one check in its subtest t: a subtest per
// case, named as the CLI names it.
func (o *outcome) replay(t tb, id string) {
	t.Helper()
	if why := o.skipped(id); why != "" {
		t.Skip(why)
	}
	sum, results := o.sum, o.results[id]
	// Under go test -failfast, testing makes no subtest once a test has
	// failed (t.Run returns true without calling f, as for a subtest -run
	// does not select): a failing case never said would leave this
	// check's subtest passed. Where -run or -skip may have left the case
	// out, it stays unsaid, as any subtest they do not select.
	var unsaid []string
	for _, res := range results {
		made := false
		t.Run(res.Case.Name, func(t tb) {
			t.Helper()
			made = true
			switch res.Verdict {
			case check.Fail:
				msg := said(res)
				if r := o.repro[res.Case]; r != "" {
					msg += "\n" + reproduce(r)
				}
				t.Error(msg)
			case check.Warn:
				if res.Inconclusive {
					t.Skip(said(res)) // not judged: no pass
				}
				t.Log("warn: " + said(res))
			case check.Skip:
				t.Skip(said(res))
			}
		})
		if !made && res.Verdict == check.Fail && t.failFastOnly() {
			unsaid = append(unsaid, res.Case.Name)
		}
	}
	if len(unsaid) > 0 {
		t.Error(fmt.Sprintf("%d case(s) failed that are no subtest, as go test -failfast makes none after a test failed: %s", len(unsaid), strings.Join(unsaid, ", ")))
	}
	if sum.CutShort == id {
		t.Error("cut short: " + o.ended)
		return
	}
	if len(results) > 0 && !o.judged(id) {
		// As a case not judged, a check none of whose cases was judged is
		// no pass.
		t.Skip(fmt.Sprintf("no case of %s could be judged: each was inconclusive, as it says, and a check that judged nothing has not passed", id))
	}
}

// againCommand is the whsim check command that runs a check of a CheckURL
// run again, as printed, up to its --checks: the URL and WithHeader's
// headers with their credentials as variables, WithSecret's secret as one,
// and the options that decide the verdicts as their flags (the load case's
// hint, run as printed, must send the load the run was judged on).
func againCommand(target *url.URL, s *settings) string {
	var tail []string
	if s.signer != nil {
		tail = append(tail, `--secret "$WHSIM_CHECK_SECRET"`)
	}
	if s.strict {
		tail = append(tail, "--strict")
	}
	if s.budget != check.DefaultLatencyBudget {
		tail = append(tail, "--latency-budget "+s.budget.String())
	}
	if s.loadCalls != check.DefaultLoadCount {
		tail = append(tail, fmt.Sprintf("--load-count %d", s.loadCalls))
	}
	if s.loadConc != check.DefaultLoadConcurrency {
		tail = append(tail, fmt.Sprintf("--load-concurrency %d", s.loadConc))
	}
	if s.timeout != check.DefaultTimeout {
		tail = append(tail, "--timeout "+s.timeout.String())
	}
	if s.fixedIDs {
		tail = append(tail, "--fixed-ids")
	}
	cmd := shellcmd.Whsim{Command: "check", URL: target.String(), Header: s.header, Vars: true, Tail: strings.Join(tail, " ")}
	return termsafe.Lines(cmd.String()) + " --checks "
}

// reproduce is the line that gives a failure's command. The command reads
// the run's credentials (WithHeader's, WithSecret's, the URL's query's)
// from variables, shown nowhere: the line names them, as whsim check does
// above its commands, for unset they make an empty Authorization, whose
// 401 is the 4xx a malformed case wants, and the command reads as mended.
func reproduce(cmd string) string {
	vars := shellcmd.Vars(cmd)
	if len(vars) == 0 {
		return "reproduce: " + cmd
	}
	it := "it"
	if len(vars) > 1 {
		it = "them"
	}
	return fmt.Sprintf("reproduce (set %s first: the command reads the run's credentials from %s): %s", andList(vars), it, cmd)
}

// andList is "a", "a and b", "a, b and c".
func andList(words []string) string {
	if n := len(words); n > 1 {
		return strings.Join(words[:n-1], ", ") + " and " + words[n-1]
	}
	return strings.Join(words, "")
}

// skipped says why check id did not run, "" when it did.
func (o *outcome) skipped(id string) string {
	switch {
	case o.sum == nil:
		return "not run: " + o.ended
	case id == signatureCheck && o.s.signer == nil:
		return "the signature check needs a secret: WithSecret(\"whsec_...\") signs every call and enables it"
	}
	if tl := o.sum.Checks[id]; tl != nil && tl.Skipped != "" {
		return skipReason(tl.Skipped)
	}
	if len(o.results[id]) == 0 && o.ended != "" {
		return "not run: " + o.ended
	}
	return ""
}

// skipReason is a skipped check's reason with the option that enables it
// in place of the CLI's flags.
func skipReason(why string) string {
	if before, _, ok := strings.Cut(why, "; turn it on with --probe"); ok {
		return before + "; turn it on with WithProbe"
	}
	return why
}

// said is a result's reason as whsim check's output gives it: the reason,
// then the receiver's answer in brackets.
func said(res check.Result) string {
	r := termsafe.Text(optionWords.Replace(res.Reason))
	if a := res.Answer; a != nil && res.Verdict != check.Pass {
		t := "answered " + termsafe.Text(a.Status)
		if body := termsafe.Excerpt(a.Body, a.Cut); body != "" {
			t += ": " + body
		}
		r += " [" + t + "]"
	}
	return r
}

// reproSink keeps the reproduce command of each case the reporter made.
type reproSink map[*check.Case]string

func (s reproSink) Case(c *check.CaseReport) error {
	if c.Repro != "" {
		s[c.Case] = c.Repro
	}
	return nil
}

func (reproSink) Finish(*check.SummaryReport) error { return nil }

// tb is the part of *testing.T that Check uses, with Run taking a tb, so
// that the package's own tests can run Check under a recorder and read
// what it said.
type tb interface {
	Helper()
	Name() string
	Context() context.Context
	Deadline() (time.Time, bool)
	Run(name string, f func(tb)) bool
	Parallel()
	Error(args ...any)
	Errorf(format string, args ...any)
	Log(args ...any)
	Logf(format string, args ...any)
	Skip(args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	// failFastOnly says whether a subtest testing did not make was
	// refused by go test -failfast, not by -run or -skip.
	failFastOnly() bool
}

type realT struct{ *testing.T }

// failFastOnly says whether a subtest of t that testing did not make
// can only have been refused by go test -failfast (no subtest once a test
// failed), not by -run or -skip, which refuse the same way: -failfast is
// on (testing's own flags, for which it has no method), and neither
// pattern has an element for the level below t. A pattern's elements
// are parted by slashes; one inside brackets counts too, which errs
// toward -run.
func (t realT) failFastOnly() bool {
	if f := flag.Lookup("test.failfast"); f == nil || f.Value.String() != "true" {
		return false
	}
	below := strings.Count(t.Name(), "/") + 1 // slashes a pattern needs to reach t's subtests
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && strings.Count(f.Value.String(), "/") >= below {
			return false
		}
	}
	return true
}

// Run marks itself and f as helpers, on both sides of the subtest, so that
// what a subtest says names the line of the test that called Check:
// testing walks a subtest's helper frames up into the frames that made
// it, and stops at the first that is no helper.
func (t realT) Run(name string, f func(tb)) bool {
	t.T.Helper()
	return t.T.Run(name, func(t *testing.T) {
		t.Helper()
		f(realT{t})
	})
}

// documentsProbed counts the documents the probe was asked about, as the
// CLI's effects line does: "1 document probed", "20 documents probed".
func documentsProbed(n int) string {
	if n == 1 {
		return "1 document probed"
	}
	return strconv.Itoa(n) + " documents probed"
}
