package whsimtest

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/check"
)

// checkShop runs Check against a shop with defect d under a recorder,
// with a probe of its store, and returns the record.
func checkShop(t *testing.T, d defect, opts ...Option) *recorder {
	t.Helper()
	s := newShop(t, d, testSecret)
	// The shop stores before it answers: a probe asked once is enough.
	// The latency budget is the time limit: no verdict here rests on how
	// fast a loaded machine ran the test.
	opts = append([]Option{WithSecret(testSecret), WithProbe(s.probe), WithSettle(0), WithLatencyBudget(check.DefaultTimeout)}, opts...)
	return record("TestShop", func(t tb) { checkHandler(t, s, opts) })
}

// The careful receiver passes every subtest of every check: none fails,
// none is skipped, none warns, and every check has its cases.
func TestCarefulReceiverPassesEverySubtest(t *testing.T) {
	t.Parallel()
	r := checkShop(t, careful)
	if f := r.failures(); len(f) > 0 {
		t.Fatalf("failed: %q\n%s", f, r.said())
	}
	r.walk(func(c *recorder) {
		if c.skipped {
			t.Errorf("%s skipped: %s", c.name, c.skipMsg)
		}
		for _, l := range c.logs {
			if strings.HasPrefix(l, "warn: ") {
				t.Errorf("%s: %s", c.name, l)
			}
		}
	})
	for _, id := range check.IDs() {
		c := r.find(id)
		if c == nil || len(c.children) == 0 {
			t.Errorf("check %s: no case subtest", id)
		}
	}
	// The case names are the CLI's, a name with slashes nesting as the
	// levels go test -run matches.
	if r.find("effects/re-delivered/CREATE_RECEIVABLE_DOC/concurrent-x8") == nil {
		t.Errorf("no subtest effects/re-delivered/CREATE_RECEIVABLE_DOC/concurrent-x8 in %q", r.leaves())
	}
}

// The same, under the real *testing.T: the subtest tree go test -v and CI
// reporters show.
func TestCheckCarefulReceiver(t *testing.T) {
	t.Parallel()
	s := newShop(t, careful, testSecret)
	Check(t, s, WithSecret(testSecret), WithProbe(s.probe), WithLatencyBudget(check.DefaultTimeout))
}

// Each receiver with one defect fails, and only in the subtests whose
// names say that defect; every such subtest fails, saying it.
func TestDefectsFailOnlyWhereNamed(t *testing.T) {
	t.Parallel()
	reDelivered := func(n string) bool { return strings.HasPrefix(n, "effects/re-delivered/") }
	for _, tt := range []struct {
		d     defect
		names func(string) bool // the subtests that name the defect
		says  []string          // what each failure says
	}{
		// It inserts every create: every re-delivery is stored again,
		// under its requestId or a new one. Duplicates only reads the
		// answers, all 2xx: it passes there.
		{storesAgain, reDelivered, []string{"holds"}},
		// Copies sent at once meet in the handler, each in its own
		// goroutine as over TCP: the race shows, as it does over HTTP,
		// whether the copies share a requestId or each has a new one.
		{raceCopies, func(n string) bool { return reDelivered(n) && strings.HasSuffix(n, "concurrent-x8") },
			[]string{"checks, then inserts, without a lock"}},
		// Load voids half its receipts: those are held created too.
		{ignoresVoids, func(n string) bool {
			return strings.HasPrefix(n, "effects/") && strings.Contains(n, "/ABANDON_RECEIVABLE_DOC/") || strings.HasPrefix(n, "effects/under-load/")
		}, []string{"void"}},
		// Load sends invoices in both shapes, as the ERP does: the
		// receiver loses the sample-shaped ones under load too.
		{refusesSample, func(n string) bool {
			return strings.HasPrefix(n, "accepts-valid/") && strings.HasSuffix(n, "/sample") || strings.HasPrefix(n, "load/")
		}, []string{"got 422", "want 2xx", "[answered 422 Unprocessable Entity: unexpected fields]"}},
		// It holds each requestId once: only the document sent again
		// under new requestIds is stored again, which only effects sees
		// (duplicates' new-request-id cases get 2xx each time, and pass).
		// The run is signed, and a signed call's webhook-id is its
		// requestId: a receiver keyed on webhook-id, as Standard Webhooks
		// advises, is the same receiver, and is told so.
		{dedupesOnRequestID, func(n string) bool { return strings.HasPrefix(n, "effects/") && namesRequestID(n) },
			[]string{"de-duplicates on requestId (or on webhook-id, which each signed call carries the same), not on the document"}},
		// It keeps each document without its lines, and its probe counts
		// them: Lines 0 is 0 lines, as "lines":0 is for whsim check, which
		// fails these cases too (TestCLIAndPackageAgree); it used to read
		// as "not counted", and passed. Every document sent is judged on
		// its lines but load's, whose lines are not followed.
		{dropsLines, func(n string) bool {
			return strings.HasPrefix(n, "effects/") && !strings.HasPrefix(n, "effects/under-load/")
		},
			[]string{"holds 0 lines of the", `"lines":0}`}},
	} {
		t.Run(strings.ReplaceAll(string(tt.d), " ", "-"), func(t *testing.T) {
			t.Parallel()
			r := checkShop(t, tt.d)
			var want []string
			for _, n := range r.leaves() {
				if tt.names(n) {
					want = append(want, n)
				}
			}
			if len(want) == 0 {
				t.Fatalf("no subtest names %q: nothing tells it from a careful receiver\n%q", tt.d, r.leaves())
			}
			if tt.d == dedupesOnRequestID {
				// Graded there, and passed: its answers are all 2xx.
				if c := r.find("duplicates/CREATE_RECEIVABLE_DOC/new-request-id-concurrent-x8"); c == nil || c.failed || c.skipped {
					t.Errorf("duplicates' new-request-id case: %+v", c)
				}
			}
			got := r.failures()
			if !slices.Equal(got, want) {
				t.Fatalf("failed in %q\nwant %q\n%s", got, want, r.said())
			}
			for _, n := range got {
				e := r.find(n).errs
				if len(e) != 1 {
					t.Errorf("%s said %q, want one error", n, e)
					continue
				}
				for _, says := range tt.says {
					if !strings.Contains(e[0], says) {
						t.Errorf("%s said %q, want it to say %q", n, e[0], says)
					}
				}
			}
		})
	}
}

// namesRequestID says whether a case name speaks of a (new) requestId:
// requestId, request-id, request_id.
func namesRequestID(name string) bool {
	return strings.Contains(strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(name)), "requestid")
}

// A probe answering Lines 0 for documents it holds is told, once, how a
// probe that does not count lines says so; the same store with its probe
// saying LinesNotCounted is judged on count and state alone, and passes.
func TestProbeLinesZeroIsACount(t *testing.T) {
	t.Parallel()
	hint := "whsimtest: effects: the WithProbe function answered Lines 0 for "
	r := checkShop(t, dropsLines, WithChecks("effects"))
	if !r.failed || !slices.ContainsFunc(r.logs, func(l string) bool {
		return strings.HasPrefix(l, hint) && strings.HasSuffix(l, "if it does not count lines, it answers LinesNotCounted: true")
	}) {
		t.Errorf("failed %v, logs:\n%s\nwant a line starting %q", r.failed, strings.Join(r.logs, "\n"), hint)
	}
	s := newShop(t, dropsLines, "")
	uncounted := func(ctx context.Context, d Document) (Stored, error) {
		st, err := s.probe(ctx, d)
		st.Lines, st.LinesNotCounted = 0, true
		return st, err
	}
	r = record("TestX", func(t tb) { checkHandler(t, s, []Option{WithChecks("effects"), WithSettle(0), WithProbe(uncounted)}) })
	if f := r.failures(); len(f) > 0 || r.failed {
		t.Errorf("not counting lines, failed %q\n%s", f, r.said())
	}
	if slices.ContainsFunc(r.logs, func(l string) bool { return strings.HasPrefix(l, hint) }) {
		t.Errorf("said %q of a probe that does not count lines", hint)
	}
}

// The line counts documents, not answers: with a settle time each
// document that does not match is asked again, and was counted again
// (375 "documents" of a run that probed 170).
func TestProbeLinesZeroCountsDocuments(t *testing.T) {
	t.Parallel()
	s := newShop(t, dropsLines, "")
	var mu sync.Mutex
	held := map[string]bool{}
	counting := func(ctx context.Context, d Document) (Stored, error) {
		st, err := s.probe(ctx, d)
		if st.Count > 0 {
			mu.Lock()
			held[d.Kind+"/"+d.Code] = true
			mu.Unlock()
		}
		return st, err
	}
	r := record("TestX", func(t tb) {
		checkHandler(t, s, []Option{WithChecks("effects"), WithSettle(200 * time.Millisecond), WithProbe(counting)})
	})
	mu.Lock()
	want := fmt.Sprintf("whsimtest: effects: the WithProbe function answered Lines 0 for %d document(s) it holds, ", len(held))
	mu.Unlock()
	if !slices.ContainsFunc(r.logs, func(l string) bool { return strings.HasPrefix(l, want) }) {
		t.Errorf("logs:\n%s\nwant a line starting %q", strings.Join(r.logs, "\n"), want)
	}
}

// A warning is a log line and no failure: the receiver that refuses the
// sample shape makes the effects of its sample documents inconclusive.
func TestWarningIsLogged(t *testing.T) {
	t.Parallel()
	// A type error answered 2xx: judged, with something to say.
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	r := record("TestShop", func(t tb) { checkHandler(t, ok, []Option{WithChecks("rejects-malformed")}) })
	c := r.find("rejects-malformed/type/data.currency/bad-currency-code")
	if c == nil || c.failed || c.skipped || len(c.logs) != 1 || !strings.HasPrefix(c.logs[0], "warn: got 204 for a type error") {
		t.Fatalf("got %+v\n%s", c, r.said())
	}
}

// A case the battery could not judge (inconclusive: the call it rests on
// was not accepted) is skipped, never passed: go test -json, -v and CI
// reporters count it so, as whsim check counts it a warning and never a
// pass.
func TestInconclusiveIsSkipped(t *testing.T) {
	t.Parallel()
	r := checkShop(t, refusesSample, WithChecks("effects"))
	c := r.find("effects/created/CREATE_RECEIVABLE_DOC/sample")
	if c == nil || c.failed || !c.skipped || !strings.HasPrefix(c.skipMsg, "CREATE_RECEIVABLE_DOC got 422: inconclusive") || len(c.logs) != 0 {
		t.Fatalf("got %+v\n%s", c, r.said())
	}
}

// Unsigned, the calls carry no webhook-id: the requestId trap's reason
// names requestId alone (signed, TestDefectsFailOnlyWhereNamed).
func TestRequestIDTrapUnsigned(t *testing.T) {
	t.Parallel()
	s := newShop(t, dedupesOnRequestID, "")
	rep, err := Run(context.Background(), s, WithChecks("effects"), WithProbe(s.probe), WithSettle(0))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range rep.Cases {
		if c.Verdict != "fail" {
			continue
		}
		n++
		if !strings.Contains(c.Reason, "the receiver de-duplicates on requestId, not on the document") || strings.Contains(c.Reason, "webhook-id") {
			t.Errorf("%s: %s", c.Case, c.Reason)
		}
	}
	if n != 4 {
		t.Errorf("%d cases failed, want the 4 new-request-id ones: %+v", n, rep.Cases)
	}
}

// A check none of whose cases was judged (every one inconclusive: the
// calls they rest on were not accepted) is no pass: its subtest skips.
// When nothing of the run was judged the test fails, as whsim check
// --checks effects against the same receiver says "FAIL no case judged"
// and exits 1: a skipped test reads "ok" in go test, and a CI job went
// green on a run that verified nothing. Run's report says Failed. A
// check with some case judged reads as it did.
func TestNothingJudgedIsNoPass(t *testing.T) {
	t.Parallel()
	refusing := func(status int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", status) })
	}
	empty, sample := newShop(t, careful, ""), newShop(t, refusesSample, "")
	for _, tc := range []struct {
		name    string
		h       http.Handler
		probe   ProbeFunc
		checks  []string
		skipped []string // check subtests skipped
		failed  bool     // the test failed: nothing judged
	}{
		{"every call answered 503, effects alone", refusing(http.StatusServiceUnavailable), empty.probe, []string{"effects"}, []string{"effects"}, true},
		{"every call answered 401", refusing(http.StatusUnauthorized), empty.probe, []string{"rejects-malformed", "effects"}, []string{"rejects-malformed", "effects"}, true},
		{"the sample shape refused", sample, sample.probe, []string{"effects"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := []Option{WithChecks(tc.checks...), WithProbe(tc.probe), WithSettle(0)}
			r := record("TestShop", func(t tb) { checkHandler(t, tc.h, opts) })
			const says = "whsimtest: nothing judged: every case of the checks that ran was inconclusive (the cases say why): a run that judged nothing has not passed, as whsim check says FAIL no case judged (exit 1)"
			if r.skipped || r.didFail() != tc.failed || tc.failed && !slices.Contains(r.errs, says) {
				t.Errorf("the test failed %v, skipped %v (%q), errors %q; want failed %v saying %q:\n%s", r.didFail(), r.skipped, r.skipMsg, r.errs, tc.failed, says, r.said())
			}
			for _, id := range tc.checks {
				c := r.find(id)
				want := slices.Contains(tc.skipped, id)
				if c == nil || c.skipped != want || want && !strings.Contains(c.skipMsg, "inconclusive") || c.failed {
					t.Errorf("%s: skipped %v, want %v:\n%s", id, c != nil && c.skipped, want, r.said())
				}
			}
			rep, err := Run(context.Background(), tc.h, opts...)
			if err != nil || rep.Failed() != tc.failed || rep.Passed() || tc.failed && !slices.Contains(rep.Problems, says) {
				t.Errorf("Run: %v, Failed() %v, Passed() %v, problems %q; want Failed() %v", err, rep.Failed(), rep.Passed(), rep.Problems, tc.failed)
			}
		})
	}
}

// Run's report tells a case it could not judge from a warning judged with
// something to say, as Check does by skipping the one and logging the
// other: a program reading the report counts neither a pass.
func TestRunSaysInconclusive(t *testing.T) {
	t.Parallel()
	s := newShop(t, refusesSample, "")
	rep, err := Run(context.Background(), s, WithChecks("effects"), WithProbe(s.probe), WithSettle(0))
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	warned, err := Run(context.Background(), ok, WithChecks("rejects-malformed"))
	if err != nil {
		t.Fatal(err)
	}
	find := func(rep *Report, name string) Result {
		for _, c := range rep.Cases {
			if c.Check+"/"+c.Case == name {
				return c
			}
		}
		t.Fatalf("no case %s in %+v", name, rep.Cases)
		return Result{}
	}
	if c := find(rep, "effects/created/CREATE_RECEIVABLE_DOC/sample"); c.Verdict != "warn" || !c.Inconclusive || !strings.Contains(c.Reason, "inconclusive") {
		t.Errorf("not judged: %+v", c)
	}
	if c := find(warned, "rejects-malformed/type/data.currency/bad-currency-code"); c.Verdict != "warn" || c.Inconclusive {
		t.Errorf("judged: %+v", c)
	}
}

// A check that cannot run is skipped, saying the option that enables it;
// as in whsim check, the signature check without a secret is no part of
// the default battery (no subtest), and a skip only when named.
func TestChecksThatCannotRunAreSkipped(t *testing.T) {
	t.Parallel()
	s := newShop(t, careful, "")
	r := record("TestShop", func(t tb) { checkHandler(t, s, []Option{WithChecks("signature", "effects", "duplicates")}) })
	if f := r.failures(); len(f) > 0 {
		t.Fatalf("failed: %q\n%s", f, r.said())
	}
	for id, says := range map[string]string{
		"signature": `the signature check needs a secret: WithSecret("whsec_...")`,
		"effects":   "effects needs a probe: it would have proved that the receiver stored each document once",
	} {
		c := r.find(id)
		if c == nil || !c.skipped || !strings.Contains(c.skipMsg, says) || strings.Contains(c.skipMsg, "--probe") || len(c.children) > 0 {
			t.Errorf("%s: got %+v, want skipped saying %q", id, c, says)
		}
	}
	if c := r.find("duplicates"); c == nil || c.skipped || len(c.children) == 0 {
		t.Errorf("duplicates: %+v", c)
	}

	// The default battery without a secret: no signature subtest, and
	// none of its calls (an unsigned call has no webhook-signature).
	var signed atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Webhook-Signature") != "" {
			signed.Add(1)
		}
		s.ServeHTTP(w, r)
	})
	r = record("TestShop", func(t tb) { checkHandler(t, h, []Option{WithLatencyBudget(check.DefaultTimeout)}) })
	if f := r.failures(); len(f) > 0 {
		t.Fatalf("failed: %q\n%s", f, r.said())
	}
	if c := r.find("signature"); c != nil {
		t.Errorf("the default battery without a secret has a signature subtest: %+v", c)
	}
	if n := signed.Load(); n > 0 {
		t.Errorf("%d calls carried a signature", n)
	}
	var ids []string
	for _, c := range r.children {
		ids = append(ids, strings.TrimPrefix(c.name, "TestShop/"))
	}
	if want := slices.DeleteFunc(check.IDs(), func(id string) bool { return id == "signature" }); !slices.Equal(ids, want) {
		t.Errorf("subtests %q, want %q", ids, want)
	}
	if c := r.find("effects"); c == nil || !c.skipped {
		t.Errorf("effects without a probe: %+v", c)
	}
	// Run's report says the same: signature is not among the skipped.
	rep, err := Run(context.Background(), s, WithChecks("duplicates", "effects"))
	if err != nil || len(rep.Skipped) != 1 || rep.Skipped["effects"] == "" {
		t.Errorf("%v: skipped %q", err, rep.Skipped)
	}
	if rep, err = Run(context.Background(), s, WithChecks("duplicates")); err != nil || len(rep.Skipped) != 0 {
		t.Errorf("%v: skipped %q", err, rep.Skipped)
	}
}

// go test -run (or -skip) that selects only checks that cannot run skips
// the test, saying what they need: each selected subtest skips, and the
// test must not read as passed with nothing judged. With one check
// selected that can run, the others skip as usual.
func TestRunPatternSelectingOnlyChecksThatCannotRun(t *testing.T) {
	t.Parallel()
	only := func(ids ...string) func(string) bool {
		return func(name string) bool {
			for _, id := range ids {
				if name == "TestShop/"+id || strings.HasPrefix(name, "TestShop/"+id+"/") {
					return true
				}
			}
			return false
		}
	}
	s := newShop(t, careful, "")
	var calls atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1); s.ServeHTTP(w, r) })
	run := func(selects func(string) bool, opts ...Option) *recorder {
		r := &recorder{name: "TestShop", signal: make(chan struct{}), release: make(chan struct{}), finished: make(chan struct{}), selects: selects}
		go r.exec(func(t tb) { checkHandler(t, h, opts) })
		<-r.signal
		return r
	}
	for _, tc := range []struct {
		name    string
		selects []string
		opts    []Option
		says    string
	}{
		{"effects without a probe", []string{"effects"}, nil, "WithProbe(...)"},
		{"signature without a secret", []string{"signature"}, []Option{WithChecks("signature", "accepts-valid")}, `WithSecret("whsec_...")`},
		{"both", []string{"signature", "effects"}, []Option{WithChecks("signature", "effects", "accepts-valid")}, `WithSecret("whsec_...") and WithProbe(...)`},
		// Without a secret signature is no subtest, unless -run
		// 'TestShop/signature' selects it: the test read "ok" with nothing
		// judged.
		{"signature without a secret, not named", []string{"signature"}, nil, `WithSecret("whsec_...")`},
	} {
		calls.Store(0)
		r := run(only(tc.selects...), tc.opts...)
		if r.didFail() || !r.skipped || !strings.Contains(r.skipMsg, "-run") || !strings.Contains(r.skipMsg, tc.says) {
			t.Errorf("%s: want the test skipped, naming -run and %s:\n%s", tc.name, tc.says, r.said())
		}
		if n := calls.Load(); n != 0 {
			t.Errorf("%s: the handler got %d calls", tc.name, n)
		}
		for _, id := range tc.selects {
			if c := r.find(id); c == nil || !c.skipped || len(c.children) > 0 {
				t.Errorf("%s: subtest %s: %+v", tc.name, id, c)
			}
		}
	}

	// One selected check that can run: the test is judged on it, and
	// the one that cannot run skips, as without -run.
	r := run(only("effects", "duplicates"))
	if r.didFail() {
		t.Errorf("effects and duplicates without a probe: failed\n%s", r.said())
	}
	if c := r.find("effects"); c == nil || !c.skipped {
		t.Errorf("effects: %+v", c)
	}
	if c := r.find("duplicates"); c == nil || c.skipped || len(c.children) == 0 {
		t.Errorf("duplicates: %+v", c)
	}
	// With the probe, effects alone runs.
	r = run(only("effects"), WithProbe(s.probe), WithSettle(0))
	if c := r.find("effects"); r.didFail() || c == nil || c.skipped || len(c.children) == 0 {
		t.Errorf("effects with a probe: %+v\n%s", c, r.said())
	}

	// A selection of the test's own subtest selects no check: the test
	// goes on as testing has it, its code after Check too, and makes no
	// signature subtest.
	calls.Store(0)
	r = &recorder{name: "TestShop", signal: make(chan struct{}), release: make(chan struct{}), finished: make(chan struct{}), selects: only("unit")}
	go r.exec(func(t tb) {
		checkHandler(t, h, nil)
		t.Run("unit", func(tb) {})
	})
	<-r.signal
	if r.skipped || r.didFail() || r.find("unit") == nil || r.find("signature") != nil || calls.Load() != 0 {
		t.Errorf("the test's own subtest selected: skipped %v, unit %v, signature %v, %d calls\n%s", r.skipped, r.find("unit"), r.find("signature"), calls.Load(), r.said())
	}
}

// Under go test -failfast testing makes no subtest once a test has
// failed, so a check's failing cases may never become subtests: the
// check's own subtest fails naming them, rather than read as passed.
// With -parallel 1 the check subtests resume one at a time: the first
// check's first failing case ends the making of subtests for all after.
func TestFailFastLeavesNoFailingCheckPassed(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }) // 200 to anything
	opts := []Option{WithSeed(2), WithChecks("rejects-malformed", "event-contradicts-body")}
	all := record("TestShop", func(t tb) { checkHandler(t, h, opts) })
	failFast := func(tripped bool) *recorder {
		r := &recorder{name: "TestShop", signal: make(chan struct{}), release: make(chan struct{}), finished: make(chan struct{}),
			failFast: true, tripped: &atomic.Bool{}}
		r.tripped.Store(tripped)
		go r.exec(func(t tb) { checkHandler(t, h, opts) })
		<-r.signal
		return r
	}
	r := failFast(false)
	for _, id := range []string{"rejects-malformed", "event-contradicts-body"} {
		var failing []string
		if c := all.find(id); c != nil {
			for _, k := range c.children {
				if k.didFail() {
					failing = append(failing, strings.TrimPrefix(k.name, "TestShop/"+id+"/"))
				}
			}
		}
		if len(failing) < 2 {
			t.Fatalf("%s without -failfast: failing cases %q, want two or more\n%s", id, failing, all.said())
		}
		c := r.find(id)
		if c == nil || !c.didFail() {
			t.Errorf("%s under -failfast: %+v, want failed\n%s", id, c, r.said())
			continue
		}
		// Each failing case is a failed subtest, or named in the
		// check's own failure.
		for _, name := range failing {
			if k := c.find(name); k != nil && k.didFail() {
				continue
			}
			if len(c.errs) != 1 || !strings.Contains(c.errs[0], "-failfast") || !strings.Contains(c.errs[0], name) {
				t.Errorf("%s under -failfast: failing case %s neither a failed subtest nor named: %q", id, name, c.errs)
			}
		}
		// Only failing cases are named: one that warned or passed, not
		// made a subtest either, is no failure.
		if len(c.errs) == 1 {
			_, named, _ := strings.Cut(c.errs[0], "after a test failed: ")
			for _, name := range strings.Split(named, ", ") {
				if !slices.Contains(failing, name) {
					t.Errorf("%s under -failfast: %s named failed, want only the failing cases %q: %q", id, name, failing, c.errs[0])
				}
			}
		}
	}
	if c := r.find("event-contradicts-body"); c != nil && len(c.children) > 0 {
		t.Errorf("the second check made subtests after the first failed: %q", r.leaves())
	}

	// Another test failed before this one made its check subtests:
	// testing makes none, nothing is sent, and the test skips.
	calls.Store(0)
	r = failFast(true)
	if r.didFail() || !r.skipped || !strings.Contains(r.skipMsg, "-failfast") || len(r.children) > 0 || calls.Load() != 0 {
		t.Errorf("after another test failed under -failfast: skipped %v (%s), %d subtests, %d calls; want skipped naming -failfast, none, none\n%s",
			r.skipped, r.skipMsg, len(r.children), calls.Load(), r.said())
	}
}

// WithChecks runs only the checks named: the handler sees no other call.
func TestWithChecksSendsOnlyThoseChecks(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	s := newShop(t, careful, "")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1); s.ServeHTTP(w, r) })
	r := record("TestShop", func(t tb) { checkHandler(t, h, []Option{WithChecks("duplicates")}) })
	if len(r.children) != 1 || r.children[0].name != "TestShop/duplicates" {
		t.Fatalf("subtests %q", r.leaves())
	}
	// Each duplicates case names how many copies it delivers (serial-x4,
	// new-request-id-concurrent-x8): the handler got those and no more.
	want := 0
	for _, n := range r.leaves() {
		m := regexp.MustCompile(`^duplicates/.+-x([0-9]+)$`).FindStringSubmatch(n)
		if m == nil {
			t.Fatalf("case %s names no copy count", n)
		}
		k, _ := strconv.Atoi(m[1])
		want += k
	}
	if n := calls.Load(); want == 0 || int(n) != want {
		t.Errorf("the handler got %d calls, want %d, the copies of the cases %q", n, want, r.leaves())
	}
}

// A test author's mistakes fail the test with one message saying what
// and where, never a panic, and run nothing.
func TestUserErrors(t *testing.T) {
	t.Parallel()
	s := newShop(t, careful, "")
	var nilShop *shop
	probeErr := func(context.Context, Document) (Stored, error) {
		return Stored{}, errors.New("no such table: invoices")
	}
	probeOne := func(context.Context, Document) (Stored, error) { return Stored{Count: 1, State: Created}, nil }
	probeNoState := func(_ context.Context, d Document) (Stored, error) {
		if strings.HasSuffix(d.Code, "-NONE") {
			return Stored{}, nil
		}
		return Stored{Count: 1}, nil
	}
	// Lines as whsim check's probe answers "lines": a whole number from
	// 0, or not said (LinesNotCounted); a count below 0 is the probe's
	// bug, as "lines":-1 is for --probe-cmd, never "not counted".
	probeLines := func(st Stored) ProbeFunc {
		return func(_ context.Context, d Document) (Stored, error) {
			if strings.HasSuffix(d.Code, "-NONE") {
				return Stored{}, nil
			}
			return st, nil
		}
	}
	for _, tt := range []struct {
		name string
		h    http.Handler
		opts []Option
		says string
	}{
		{"nil handler", nil, nil, "whsimtest.Check: the handler is nil"},
		{"nil pointer handler", nilShop, nil, "whsimtest.Check: the handler is nil"},
		{"nil func handler", http.HandlerFunc(nil), nil, "whsimtest.Check: the handler is nil"},
		{"bad check id", s, []Option{WithChecks("efects")}, `whsimtest.Check: WithChecks: unknown check "efects" (did you mean "effects"?)`},
		{"signature alone without a secret", s, []Option{WithChecks("signature")}, `whsimtest.Check: WithChecks("signature") needs WithSecret("whsec_...")`},
		// A selection of checks that each need what was not given passes
		// by skipping every one: the test's mistake, as for signature alone.
		{"effects alone without a probe", s, []Option{WithChecks("effects")}, `whsimtest.Check: WithChecks("effects") needs WithProbe(...): without a probe nothing is asked of the store, so there is nothing to check`},
		{"effects and signature without either", s, []Option{WithChecks("effects", "signature")}, `whsimtest.Check: WithChecks("signature", "effects") needs WithSecret("whsec_...") and WithProbe(...)`},
		// As whsim check --fixed-ids without --seed (exit 2): a drawn seed
		// dates its documents by the run's clock, so no run repeats.
		{"fixed ids without a seed", s, []Option{WithFixedIDs()}, "whsimtest.Check: WithFixedIDs needs WithSeed(n) (not 0, which draws one): the ids are the seed's"},
		{"bad secret", s, []Option{WithSecret("hunter2")}, "whsimtest.Check: WithSecret: secret must start with whsec_"},
		// WithSecret(os.Getenv("WEBHOOK_SECRET")) where it is not set.
		{"empty secret", s, []Option{WithSecret("")}, `whsimtest.Check: WithSecret(""): the secret is empty (an environment variable not set?): want "whsec_" and base64, or no WithSecret for unsigned calls`},
		{"bad load", s, []Option{WithLoad(0, 4)}, "whsimtest.Check: WithLoad(0, 4): want 1 to 10000 calls"},
		// Both wrong: said together, not the concurrency only once the
		// calls are fixed.
		{"bad load and concurrency", s, []Option{WithLoad(0, 0)}, "whsimtest.Check: WithLoad(0, 0): want 1 to 10000 calls and a concurrency of at least 1"},
		{"bad path", s, []Option{WithPath("hooks")}, `whsimtest.Check: WithPath("hooks"): want a path from the root`},
		// Every call would carry two businessType values, the path's first.
		{"path naming the event", s, []Option{WithPath("/hooks?tenant=7&businessType=CREATE_RECEIVABLE_DOC")},
			`whsimtest.Check: WithPath("/hooks?tenant=7&businessType=CREATE_RECEIVABLE_DOC"): the query has businessType already; whsimtest adds each call's own (drop it from the path)`},
		// Headers as whsim check -H takes them: a name no client can send
		// reached the handler in memory, and failed CheckURL as a
		// receiver it could not reach; a Content-Length of one's own
		// garbles the body over TCP.
		{"header name no client sends", s, []Option{WithHeader("Bad(Name)", "x")},
			`whsimtest.Check: WithHeader("Bad(Name)", "x"): "Bad(Name)" is no header name (a token: letters, digits and !#$%&'*+-.^_` + "`|~)"},
		{"header value with a NUL", s, []Option{WithHeader("X-Token", "a\x00b")}, `whsimtest.Check: WithHeader("X-Token", "a\x00b"): "X-Token": the value holds a NUL byte`},
		{"header framing the body", s, []Option{WithHeader("content-length", "5")},
			`whsimtest.Check: WithHeader("content-length", "5"): "Content-Length": whsim frames each body itself`},
		{"two at once", s, []Option{WithTimeout(0), WithLatencyBudget(-1)}, "whsimtest.Check: WithTimeout(0s): want more than 0; WithLatencyBudget(-1ns): want more than 0"},
		{"nil probe", s, []Option{WithProbe(nil)}, "whsimtest.Check: WithProbe(nil)"},
		{"probe error", s, []Option{WithProbe(probeErr)},
			"whsimtest: the WithProbe function failed, so effects cannot be judged (nothing is blamed on the receiver): asked about invoice CGFP-"},
		{"probe holds the impossible", s, []Option{WithProbe(probeOne)}, "(a document never sent, asked first: the answer must be Count 0), it answered Count 1: does it look the document up by Document.Code?"},
		{"probe without state", s, []Option{WithProbe(probeNoState), WithChecks("effects")}, `it answered Count 1 and State "": want whsimtest.Created, Audited or Voided`},
		{"probe with negative lines", s, []Option{WithProbe(probeLines(Stored{Count: 1, State: Created, Lines: -1})), WithChecks("effects")},
			`it answered Lines -1: want 0 or more (0: the document is held without lines), or LinesNotCounted: true when the probe does not count them`},
		{"probe with negative lines for a document not held", s, []Option{WithProbe(func(_ context.Context, d Document) (Stored, error) {
			if strings.HasSuffix(d.Code, "-NONE") {
				return Stored{}, nil
			}
			return Stored{Lines: -1}, nil
		}), WithChecks("effects")}, `it answered Lines -1: want 0 or more`},
		{"probe with lines it does not count", s, []Option{WithProbe(probeLines(Stored{Count: 1, State: Created, Lines: 2, LinesNotCounted: true})), WithChecks("effects")},
			`it answered Lines 2 and LinesNotCounted: true: a probe that does not count lines leaves Lines 0`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := record("TestX", func(t tb) { checkHandler(t, tt.h, tt.opts) })
			var errs []string
			r.walk(func(c *recorder) { errs = append(errs, c.errs...) })
			if len(errs) != 1 || !strings.Contains(errs[0], tt.says) {
				t.Fatalf("said %q, want one error saying %q", errs, tt.says)
			}
			r.walk(func(c *recorder) {
				if c != r && !c.skipped {
					t.Errorf("%s ran", c.name)
				}
			})
		})
	}
	if strings.Contains(recordErr(t, s, WithProbe(probeErr)), "no such table: invoices") == false {
		t.Error("the probe's own error is not said")
	}
}

// Run given a nil context says so, as it says a nil handler, where it
// panicked ("cannot create context from nil parent"), ending the test binary.
func TestRunNilContext(t *testing.T) {
	t.Parallel()
	var ctx context.Context
	rep, err := Run(ctx, newShop(t, careful, ""), WithChecks("accepts-valid"))
	if rep != nil || err == nil || err.Error() != "whsimtest.Run: the context is nil: pass t.Context() in a test, or context.Background()" {
		t.Errorf("Run(nil, ...) = %+v, %v", rep, err)
	}
}

// A run that could not start has no report, as Run's doc says: nil, and
// an error naming why; one that started has a report, whatever its error.
func TestRunThatCannotStartHasNoReport(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		h    http.Handler
		opts []Option
		says string
	}{
		{"nil handler", context.Background(), nil, nil, "whsimtest.Run: the handler is nil"},
		{"nil context", nil, http.NotFoundHandler(), nil, "whsimtest.Run: the context is nil"},
		{"mistaken option", context.Background(), http.NotFoundHandler(), []Option{WithLoad(0, 1)}, "whsimtest.Run: WithLoad(0, 1)"},
	} {
		rep, err := Run(tt.ctx, tt.h, tt.opts...)
		if rep != nil || err == nil || !strings.HasPrefix(err.Error(), tt.says) {
			t.Errorf("%s: Run = %+v, %v; want no report and an error starting %q", tt.name, rep, err, tt.says)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rep, err := Run(ctx, http.NotFoundHandler(), WithChecks("accepts-valid")); rep == nil || err == nil || !rep.Failed() {
		t.Errorf("a run whose context had ended: Run = %+v, %v; want a failed report and the error", rep, err)
	}
}

// A nil t can be failed by nothing: each function that takes one panics
// saying what is wrong, not with a nil pointer dereference inside testing
// that names no argument.
func TestNilTestSaysSo(t *testing.T) {
	t.Parallel()
	var nilT *testing.T
	var nilTB testing.TB
	call := Call{Event: "CREATE_RECEIVABLE_DOC"}
	for _, tt := range []struct {
		name string
		call func()
	}{
		{"Check", func() { Check(nilT, http.NotFoundHandler()) }},
		{"CheckURL", func() { CheckURL(nilT, "http://127.0.0.1:9/") }},
		{"NewBody", func() { NewBody(nilTB, call) }},
		{"NewRequest", func() { NewRequest(nilTB, call) }},
		{"NewRequest", func() { NewRequest((*testing.T)(nil), call) }},
	} {
		var said any
		func() {
			defer func() { said = recover() }()
			tt.call()
		}()
		want := "whsimtest." + tt.name + ": t is nil: pass the test's t (the *testing.T its function is given)"
		if said != want {
			t.Errorf("%s with a nil t: panicked with %v, want %q", tt.name, said, want)
		}
	}
}

// A header's value reaches the handler as a server reads it off the wire,
// and as whsim check -H sends it: without the spaces around it.
func TestWithHeaderTrimsTheValue(t *testing.T) {
	t.Parallel()
	s, err := newSettings([]Option{WithHeader("x-token", " s3cret\t")})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.header["X-Token"]; len(got) != 1 || got[0] != "s3cret" {
		t.Errorf("X-Token %q, want [\"s3cret\"]", got)
	}
}

// A receiver that answers every call 404 (WithPath wrong, a router's
// pattern another) is said to be so once: the run's note "every call so
// far got 404", which whsim check prints while it runs, said after it
// beside "every call got 404" read as two findings.
func TestUnroutedIsSaidOnce(t *testing.T) {
	t.Parallel()
	r := record("TestX", func(t tb) {
		checkHandler(t, http.NotFoundHandler(), []Option{WithChecks("accepts-valid", "duplicates")})
	})
	var said []string
	for _, l := range r.logs {
		if strings.Contains(l, "404 Not Found") {
			said = append(said, l)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], "whsimtest: every call got 404 Not Found: nothing is routed at this URL: check the path of WithPath") {
		t.Errorf("said %q, want one line saying every call got 404", said)
	}
}

func recordErr(t *testing.T, h http.Handler, opts ...Option) string {
	t.Helper()
	r := record("TestX", func(t tb) { checkHandler(t, h, opts) })
	return strings.Join(r.errs, "\n")
}

// A handler that panics fails the test saying so, with the panic and its
// stack; the calls it panicked on are connections closed to the sender.
func TestHandlerPanics(t *testing.T) {
	t.Parallel()
	s := newShop(t, careful, "")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("businessType") == "ABANDON_RECEIVABLE_DOC" {
			panic("nil map write in void")
		}
		s.ServeHTTP(w, r)
	})
	r := record("TestShop", func(t tb) { checkHandler(t, h, []Option{WithChecks("accepts-valid", "out-of-order")}) })
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "the handler panicked on") || !strings.Contains(r.errs[0], "nil map write in void") ||
		!strings.Contains(r.errs[0], "businessType=ABANDON_RECEIVABLE_DOC") || !strings.Contains(r.errs[0], "goroutine") {
		t.Errorf("top said %q", r.errs)
	}
	c := r.find("accepts-valid/ABANDON_RECEIVABLE_DOC/described")
	if c == nil || len(c.errs) != 1 || !strings.Contains(c.errs[0], "connection closed") {
		t.Errorf("the case said %+v", c)
	}
	// Every call panics: nothing can be judged, said once.
	boom := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") })
	r = record("TestBoom", func(t tb) { checkHandler(t, boom, nil) })
	if len(r.errs) != 2 || !strings.Contains(r.errs[1], "whsimtest: the handler gave the first call (accepts-valid/CREATE_PURCHASE_ORDER_INVOICE/described) no answer (connection closed)") {
		t.Errorf("said %q", r.errs)
	}
}

// A handler that panics after a Flush has sent its answer's head: the
// sender has the status, its body cut short, as over TCP (net/http's
// server flushes its connection as it closes it), so the void's case
// passes on its 200 as whsim check passes it. The test still fails on the
// panic, saying the sender got the head, not that it got no answer. It
// was "connection closed, want 2xx" in memory only.
func TestHandlerPanicsAfterItsHead(t *testing.T) {
	t.Parallel()
	s := newShop(t, careful, "")
	audits := false // the audits panic too, before their head
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("businessType") {
		case "ABANDON_RECEIVABLE_DOC":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			panic("audit log closed")
		case "AUDIT_PURCHASE_ORDER_INVOICE":
			if audits {
				w.WriteHeader(http.StatusOK)
				panic("audit log closed") // the head still in the server's buffer
			}
		}
		s.ServeHTTP(w, r)
	})
	r := record("TestShop", func(t tb) { checkHandler(t, h, []Option{WithChecks("accepts-valid")}) })
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "the handler panicked on 2 call(s), 2 of them after it had written the answer's head") ||
		!strings.Contains(r.errs[0], "audit log closed") {
		t.Errorf("top said %q", r.errs)
	}
	if c := r.find("accepts-valid/ABANDON_RECEIVABLE_DOC/described"); c == nil || c.failed {
		t.Errorf("the void's case, answered 200 before the panic, said %+v", c)
	}
	// Some before their head, some after: both said.
	audits = true
	r = record("TestShop", func(t tb) { checkHandler(t, h, []Option{WithChecks("accepts-valid")}) })
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "the handler panicked on 4 call(s), each a connection closed, without an answer to the sender or, on 2 of them after it had written the answer's head") {
		t.Errorf("top said %q", r.errs)
	}
	if c := r.find("accepts-valid/AUDIT_PURCHASE_ORDER_INVOICE/described"); c == nil || len(c.errs) != 1 || !strings.Contains(c.errs[0], "connection closed") {
		t.Errorf("the audit's case, whose head was never sent, said %+v", c)
	}
}

// A handler whose answers have a status HTTP defines no meaning for
// (600-999, which WriteHeader takes) answered every call: each case fails
// on that status, which a sender takes as a 5xx (RFC 9110, 15), as whsim
// check says of it over TCP. It was "the handler's answer to the first call
// is no valid HTTP answer (malformed HTTP status code ...): nothing else
// can be judged", of an answer whose status line is well-formed.
func TestHandlerAnswering600FailsAsA5xx(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(600) })
	r := record("TestBeyond", func(t tb) { checkHandler(t, h, []Option{WithChecks("accepts-valid")}) })
	c := r.find("accepts-valid/CREATE_RECEIVABLE_DOC/described")
	if c == nil || len(c.errs) != 1 || !strings.Contains(c.errs[0], "got 600 (no status HTTP defines: a sender takes it as a 5xx), want 2xx") {
		t.Fatalf("said %+v\n%s", c, r.said())
	}
	if strings.Contains(r.said(), "malformed") || strings.Contains(r.said(), "nothing else can be judged") {
		t.Errorf("said %s", r.said())
	}
}

// CheckURL grades a receiver already listening, as whsim check --url
// does; a failure carries the command that sends its call again.
func TestCheckURL(t *testing.T) {
	t.Parallel()
	s := newShop(t, refusesSample, "")
	srv := httptest.NewServer(s)
	defer srv.Close()
	r := record("TestShop", func(t tb) { checkURL(t, srv.URL+"/hooks?tenant=7", []Option{WithChecks("accepts-valid")}) })
	c := r.find("accepts-valid/CREATE_PURCHASE_ORDER_INVOICE/sample")
	if c == nil || len(c.errs) != 1 || !strings.Contains(c.errs[0], "got 422") ||
		!strings.Contains(c.errs[0], "\nreproduce: curl -sS -i -X POST '"+srv.URL+"/hooks?tenant=7&businessType=CREATE_PURCHASE_ORDER_INVOICE'") {
		t.Fatalf("said %+v\n%s", c, r.said())
	}
	if f := r.failures(); len(f) != 4 {
		t.Errorf("failed %q", f)
	}
	// A credential given with WithHeader is masked in the command, read
	// from a variable instead: the failure says which to set, as whsim
	// check does above its commands, else the pasted command sends an
	// empty Authorization, whose 401 looks like a mended receiver.
	r = record("TestShop", func(t tb) {
		checkURL(t, srv.URL+"/hooks", []Option{WithChecks("accepts-valid"), WithHeader("Authorization", "Bearer s3cret")})
	})
	c = r.find("accepts-valid/CREATE_PURCHASE_ORDER_INVOICE/sample")
	if c == nil || len(c.errs) != 1 || !strings.Contains(c.errs[0], "\nreproduce (set AUTHORIZATION first: the command reads the run's credentials from it): curl ") ||
		!strings.Contains(c.errs[0], `-H "Authorization: $AUTHORIZATION"`) || strings.Contains(c.errs[0], "s3cret") {
		t.Errorf("said %+v", c)
	}
	// A credential in the URL's query too, no WithHeader named for it.
	r = record("TestShop", func(t tb) {
		checkURL(t, srv.URL+"/hooks?token=s3cret", []Option{WithChecks("accepts-valid"), WithHeader("Authorization", "Bearer s3cret")})
	})
	c = r.find("accepts-valid/CREATE_PURCHASE_ORDER_INVOICE/sample")
	if c == nil || len(c.errs) != 1 || !strings.Contains(c.errs[0], "\nreproduce (set TOKEN and AUTHORIZATION first: the command reads the run's credentials from them): curl ") ||
		strings.Contains(c.errs[0], "s3cret") {
		t.Errorf("said %+v", c)
	}
	for url, says := range map[string]string{
		"localhost:1":             `whsimtest.CheckURL: url "localhost:1": no scheme (did you mean http://localhost:1?)`,
		"http://127.0.0.1:1/hook": "whsimtest: cannot reach http://127.0.0.1:1/hook",
		"http://127.0.0.1:1/hook?businessType=CREATE_RECEIVABLE_DOC": `whsimtest.CheckURL: url "http://127.0.0.1:1/hook?businessType=CREATE_RECEIVABLE_DOC": the query has businessType already`,
	} {
		r := record("TestX", func(t tb) { checkURL(t, url, []Option{WithChecks("duplicates")}) })
		if len(r.errs) != 1 || !strings.Contains(r.errs[0], says) {
			t.Errorf("%s: said %q, want %q", url, r.errs, says)
		}
	}
}

// The load case's hint under CheckURL is the whsim check command that
// sends the load the run judged, as printed: WithHeader's credential as a
// variable the reproduce line names, WithSecret's secret, WithLoad's and
// WithTimeout's flags. It was the URL alone: 300 calls at 16, unsigned,
// with no Authorization.
func TestCheckURLLoadHintRunsTheRunsLoad(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	r := record("TestShop", func(t tb) {
		checkURL(t, srv.URL+"/hooks", []Option{WithChecks("load"), WithLoad(20, 4), WithTimeout(3 * time.Second),
			WithHeader("Authorization", "Bearer s3cret"), WithSecret(testSecret)})
	})
	c := r.find("load/20-calls-at-4")
	want := `load is judged over all of them: whsim check --url '` + srv.URL + `/hooks' -H "Authorization: $AUTHORIZATION" --secret "$WHSIM_CHECK_SECRET" --load-count 20 --load-concurrency 4 --timeout 3s --checks load`
	if c == nil || len(c.errs) != 1 || !strings.HasSuffix(c.errs[0], want) || strings.Contains(c.errs[0], "s3cret") ||
		!strings.Contains(c.errs[0], "reproduce (set AUTHORIZATION, WHSIM_REPLAY_SECRET and WHSIM_CHECK_SECRET first") {
		t.Fatalf("said %+v, want it to end in %s\n%s", c, want, r.said())
	}
}

// CheckURL grades a receiver served over TLS with a test certificate
// when WithRootCAs trusts it; Check and Run, in memory, refuse it.
func TestCheckURLWithRootCAs(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(newShop(t, careful, ""))
	defer srv.Close()
	trusted := x509.NewCertPool()
	trusted.AddCert(srv.Certificate())
	r := record("TestShop", func(t tb) { checkURL(t, srv.URL+"/hooks", []Option{WithChecks("accepts-valid"), WithRootCAs(trusted)}) })
	if f := r.failures(); len(f) != 0 || r.find("accepts-valid/CREATE_RECEIVABLE_DOC/sample") == nil {
		t.Errorf("failed %q\n%s", f, r.said())
	}
	// A TLS server that negotiates HTTP/2, as Go's ListenAndServeTLS does,
	// is graded as one over HTTP/1.1 (every call was "malformed HTTP
	// version").
	h2 := httptest.NewUnstartedServer(newShop(t, careful, ""))
	h2.EnableHTTP2 = true
	h2.StartTLS()
	defer h2.Close()
	h2Roots := x509.NewCertPool()
	h2Roots.AddCert(h2.Certificate())
	r = record("TestShop", func(t tb) { checkURL(t, h2.URL+"/hooks", []Option{WithChecks("accepts-valid"), WithRootCAs(h2Roots)}) })
	if f := r.failures(); len(f) != 0 || r.find("accepts-valid/CREATE_RECEIVABLE_DOC/sample") == nil {
		t.Errorf("over HTTP/2 failed %q\n%s", f, r.said())
	}
	// The roots are the pool's alone, in place of the system's.
	r = record("TestShop", func(t tb) {
		checkURL(t, srv.URL+"/hooks", []Option{WithChecks("accepts-valid"), WithRootCAs(x509.NewCertPool())})
	})
	if !strings.Contains(r.said(), "x509: certificate signed by unknown authority") {
		t.Errorf("an empty pool trusted the server:\n%s", r.said())
	}
	if _, err := Run(context.Background(), http.NotFoundHandler(), WithRootCAs(trusted)); err == nil ||
		err.Error() != "whsimtest.Run: WithRootCAs is CheckURL's: Check and Run call the handler in memory, with no TLS" {
		t.Errorf("Run with WithRootCAs: %v", err)
	}
	r = record("TestX", func(t tb) { checkHandler(t, http.NotFoundHandler(), []Option{WithRootCAs(trusted)}) })
	if len(r.errs) != 1 || r.errs[0] != "whsimtest.Check: WithRootCAs is CheckURL's: Check and Run call the handler in memory, with no TLS" {
		t.Errorf("Check with WithRootCAs said %q", r.errs)
	}
	r = record("TestX", func(t tb) { checkURL(t, srv.URL, []Option{WithRootCAs(nil)}) })
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "whsimtest.CheckURL: WithRootCAs: the pool is nil") {
		t.Errorf("a nil pool said %q", r.errs)
	}
}

// Run reports outside a test: the cases, the checks skipped, and an error
// for what kept it from judging.
func TestRun(t *testing.T) {
	t.Parallel()
	if _, err := Run(context.Background(), nil); err == nil || err.Error() != "whsimtest.Run: the handler is nil" {
		t.Errorf("nil handler: %v", err)
	}
	if _, err := Run(context.Background(), http.NotFoundHandler(), WithChecks("nope")); err == nil || !strings.Contains(err.Error(), `whsimtest.Run: WithChecks: unknown check "nope"`) {
		t.Errorf("bad check: %v", err)
	}
	// A receiver that ignores voids, and a careful one under the same
	// seed: the same cases, and only the void's fail.
	s := newShop(t, ignoresVoids, "")
	rep, err := Run(context.Background(), s, WithChecks("effects", "signature"), WithProbe(s.probe), WithSettle(0))
	if err != nil || !rep.Failed() || rep.Seed == 0 || !strings.Contains(rep.Skipped["signature"], "needs a secret") {
		t.Fatalf("%v %+v", err, rep)
	}
	c := newShop(t, careful, "")
	ref, err := Run(context.Background(), c, WithChecks("effects"), WithProbe(c.probe), WithSettle(0), WithSeed(rep.Seed))
	if err != nil || ref.Failed() || !ref.Passed() || len(ref.Skipped) != 0 {
		t.Fatalf("careful: %v %+v", err, ref)
	}
	// A check skipped: nothing failed, and the run did not pass.
	if rep.Passed() {
		t.Errorf("a run that skipped signature passed: %+v", rep)
	}
	some, err := Run(context.Background(), c, WithChecks("duplicates", "effects"), WithSettle(0))
	if err != nil || some.Failed() || some.Passed() || len(some.Cases) == 0 || some.Skipped["effects"] == "" {
		t.Errorf("effects skipped: %v %+v", err, some)
	}
	// Every check asked for skipped: an error, not a report to misread.
	if none, err := Run(context.Background(), c, WithChecks("effects", "signature"), WithSettle(0)); err == nil || !strings.Contains(err.Error(), "nothing could be checked") {
		t.Errorf("all skipped: %v %+v", err, none)
	}
	var names, refNames, failed []string
	for _, c := range rep.Cases {
		names = append(names, c.Check+"/"+c.Case)
		if c.Verdict == "fail" {
			failed = append(failed, c.Check+"/"+c.Case)
		}
	}
	for _, c := range ref.Cases {
		refNames = append(refNames, c.Check+"/"+c.Case)
	}
	if len(names) == 0 || !slices.Equal(names, refNames) {
		t.Errorf("cases %q, the careful receiver's %q", names, refNames)
	}
	if want := []string{"effects/lifecycle/ABANDON_RECEIVABLE_DOC/after-create", "effects/out-of-order/ABANDON_RECEIVABLE_DOC/before-create"}; !slices.Equal(failed, want) {
		t.Errorf("failed %q, want %q", failed, want)
	}
}

// A handler still running when its call's time limit ends (it ignores its
// request's context, as a slow database driver may) is waited for: Check
// returns only after the last handler it started has returned, as
// httptest.Server.Close waits for its handlers, so that no call of the
// handler outlives the test and meets its store closed by t.Cleanup, or
// says something after the test has ended. While it waits, it says why.
func TestCheckWaitsForHandlersPastTheirTimeLimit(t *testing.T) {
	t.Parallel()
	s := newShop(t, careful, "")
	var calls atomic.Int64
	timedOut, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	let := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(let) // a handler left running when the test fails
	var returned atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The second call: the first is the one that must be answered.
		if calls.Add(1) == 2 {
			<-r.Context().Done()
			close(timedOut)
			<-release
			returned.Store(true)
			return
		}
		s.ServeHTTP(w, r)
	})
	heard := make(chan string, 64)
	r, done := recordHearing("TestSlowHandler", heard, func(t tb) {
		// A second, not 50ms: the first call must be answered within it,
		// and under -race beside two CPU hogs, with the package's other
		// tests running, 50ms was too short for it once (the run failed
		// as a whole, not the held case).
		checkHandler(t, h, []Option{WithChecks("accepts-valid"), WithTimeout(time.Second)})
	})
	<-timedOut
	var waiting string
	for waiting == "" {
		select {
		case <-done:
			t.Fatalf("Check returned while the handler was still running:\n%s", r.said())
		case l := <-heard:
			// Any count: on a loaded machine another call may have passed
			// its time limit too and not yet returned when this is said.
			if strings.Contains(l, "handler call(s) still running") {
				waiting = l
			}
		}
	}
	// The wait names what it waits for (-v shows it at once): the held
	// call, the second the handler got.
	if !strings.Contains(waiting, ": POST /?businessType=") || !strings.Contains(waiting, " (requestId ") {
		t.Errorf("the wait does not name the call the handler holds: %s", waiting)
	}
	let()
	<-done
	if !returned.Load() {
		t.Error("the handler had not returned when Check did")
	}
	// The held call is a timeout (on a loaded machine, others may be too:
	// the time limit is short).
	if f := r.failures(); len(f) == 0 || !strings.HasPrefix(f[0], "accepts-valid/") {
		t.Errorf("failures %q, want the timed-out case", f)
	}
}

// A probe that ends its goroutine instead of returning (t.Fatal, t.FailNow
// or a require call inside it, which testing allows only in the test's own
// goroutine) or panics gave no answer: the run ends as for a probe that
// returned an error, naming what it did, and nothing is blamed on the
// receiver, never "acknowledged and lost" from an answer it did not give.
func TestProbeThatDoesNotReturn(t *testing.T) {
	t.Parallel()
	for name, end := range map[string]func(){
		"Goexit": runtime.Goexit, // what t.Fatal does, from any goroutine
		"panic":  func() { panic("scan: converting NULL to int") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newShop(t, careful, "")
			var asked atomic.Int64
			probe := func(ctx context.Context, d Document) (Stored, error) {
				if asked.Add(1) == 5 {
					end()
				}
				return s.probe(ctx, d)
			}
			r := record("TestShop", func(t tb) {
				checkHandler(t, s, []Option{WithChecks("effects"), WithProbe(probe), WithSettle(0)})
			})
			if f := slices.DeleteFunc(r.failures(), func(n string) bool { return n == r.name }); len(f) != 0 {
				t.Errorf("blamed on the receiver: %q\n%s", f, r.said())
			}
			if len(r.errs) != 1 || !strings.Contains(r.errs[0], "the WithProbe function failed") || !strings.Contains(r.errs[0], name) {
				t.Errorf("said %q", r.errs)
			}
		})
	}
}

// A probe that does not answer (a store read waiting on a lock, a query
// on a database that is not there) is bounded as whsim check bounds its
// --probe-cmd: each question by WithTimeout. Past it, the run ends as for a
// probe that returned an error, saying it did not answer in time, and
// nothing is blamed on the receiver; a probe that ignores its context is
// waited for, saying why, as a handler is, so that none outlives the test.
func TestProbeThatDoesNotAnswerInTime(t *testing.T) {
	t.Parallel()
	for _, honours := range []bool{true, false} {
		t.Run(fmt.Sprint("honours its context ", honours), func(t *testing.T) {
			t.Parallel()
			s := newShop(t, careful, "")
			stuck, release := make(chan struct{}), make(chan struct{})
			var once, releaseOnce sync.Once
			let := func() { releaseOnce.Do(func() { close(release) }) }
			t.Cleanup(let)
			var returned atomic.Bool
			probe := func(ctx context.Context, d Document) (Stored, error) {
				if d.Kind != "receipt" {
					return s.probe(ctx, d)
				}
				once.Do(func() { close(stuck) })
				if honours {
					<-ctx.Done()
					return Stored{}, ctx.Err()
				}
				<-release
				returned.Store(true)
				return s.probe(ctx, d)
			}
			heard := make(chan string, 1024)
			// WithTimeout bounds the handler's calls too: at 50ms, a loaded
			// machine's calls timed out, the run ended before it asked
			// about a receipt, and the test waited for that forever. A
			// second is far from any call's time in memory; and a run
			// that ends without asking fails the test, not hangs it.
			r, done := recordHearing("TestShop", heard, func(t tb) {
				checkHandler(t, s, []Option{WithChecks("effects"), WithProbe(probe), WithSettle(0), WithTimeout(time.Second)})
			})
			select {
			case <-stuck:
			case <-done:
				t.Fatalf("the run ended without asking the probe about a receipt:\n%s", r.said())
			}
			if !honours {
				for waiting := false; !waiting; {
					select {
					case <-done:
						t.Fatalf("Check returned while the probe was still running:\n%s", r.said())
					case l := <-heard:
						waiting = strings.Contains(l, "WithProbe function call(s) still running")
					}
				}
				let()
			}
			<-done
			if !honours && !returned.Load() {
				t.Error("the probe had not returned when Check did")
			}
			if f := slices.DeleteFunc(r.failures(), func(n string) bool { return n == r.name }); len(f) != 0 {
				t.Errorf("blamed on the receiver: %q\n%s", f, r.said())
			}
			// Said in whsimtest's words, the CLI's flag named as the CLI's.
			if len(r.errs) != 1 || !strings.Contains(r.errs[0], "the WithProbe function failed") ||
				!strings.Contains(r.errs[0], "no answer within 1s (WithTimeout, which bounds each question to the probe as whsim check --timeout bounds its probe)") {
				t.Errorf("said %q", r.errs)
			}
		})
	}
}

// A Run its context ends early is no pass: its report fails saying why,
// even when nothing was graded, and says nothing false of the handler,
// which returned every call it got.
func TestRunEndedByItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := Run(ctx, newShop(t, careful, ""))
	if err == nil || rep == nil {
		t.Fatalf("%v %+v", err, rep)
	}
	if !rep.Failed() || len(rep.Problems) == 0 || !strings.Contains(strings.Join(rep.Problems, "\n"), "context canceled") {
		t.Errorf("a run ended by its context reads as passed: %+v", rep)
	}
	for _, l := range append(rep.Problems, rep.Log...) {
		if strings.Contains(l, "handler call(s) still running") {
			t.Errorf("said %q of a handler that returned every call", l)
		}
	}
}

// What whsimtest says names its own options, never whsim check's flags
// (--timeout, --secret, -H, --cacert), which a test cannot pass.
func TestSaysOptionsNotFlags(t *testing.T) {
	t.Parallel()
	// whsim check's flags, and the placeholders and variables of its
	// --probe and --probe-cmd, which a WithProbe function has none of.
	flag := regexp.MustCompile(`(^|[ (])(--[a-z]|-H )|\{(code|invoiceCode)\}|\$WHSIM_`)
	said := func(r *recorder) string {
		var all []string
		r.walk(func(c *recorder) { all = append(append(all, c.errs...), c.logs...) })
		return strings.Join(all, "\n")
	}
	tlsSrv := httptest.NewUnstartedServer(newShop(t, careful, ""))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake the client refuses
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	ignored, byInvoiceCode, behind := newShop(t, careful, ""), newShop(t, careful, ""), newShop(t, careful, "")
	for _, tt := range []struct {
		name string
		run  func(t tb)
		says string
	}{
		{"a receiver whose certificate the test's client does not trust", func(t tb) {
			checkURL(t, tlsSrv.URL, []Option{WithChecks("accepts-valid")})
		}, "x509: certificate signed by unknown authority (CheckURL trusts the system's roots, or WithRootCAs's: for httptest.NewTLSServer, a pool holding srv.Certificate())"},
		{"a first call with no answer", func(t tb) {
			checkHandler(t, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }),
				[]Option{WithChecks("accepts-valid"), WithTimeout(time.Millisecond)})
		}, "one slow to start needs a longer WithTimeout"},
		{"every call refused before it is read", func(t tb) {
			checkHandler(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) }),
				[]Option{WithChecks("accepts-valid", "rejects-malformed")})
		}, `check the credentials (WithHeader("Authorization", "...")) or WithSecret`},
		{"a probe that ignores the document it is asked about", func(t tb) {
			s := ignored
			checkHandler(t, s, []Option{WithChecks("effects"), WithSettle(0), WithProbe(func(context.Context, Document) (Stored, error) {
				s.mu.Lock()
				defer s.mu.Unlock()
				if len(s.rows) == 0 {
					return Stored{}, nil // the store empty: right by chance
				}
				return Stored{Count: 1, State: Created}, nil
			})})
		}, "does it look the document up by Document.Code?"},
		{"a probe that finds invoices by their invoice number alone", func(t tb) {
			s := byInvoiceCode
			checkHandler(t, s, []Option{WithChecks("effects"), WithSettle(0), WithProbe(func(ctx context.Context, d Document) (Stored, error) {
				if d.Kind != "invoice" || d.InvoiceCode != "" {
					return s.probe(ctx, d)
				}
				// WHERE invoice_code = '': every invoice of the sample
				// shape, which carries none.
				s.mu.Lock()
				defer s.mu.Unlock()
				n := 0
				for key := range s.rows {
					if strings.HasPrefix(key, "invoice/") {
						n++
					}
				}
				return Stored{Count: n, State: Created}, nil
			})})
		}, "so Document.InvoiceCode is empty for it: does the probe look invoices up by it? Look them up by Document.Code"},
		{"a receiver that stores the first documents and no more, as from a queue behind", func(t tb) {
			s := behind
			var calls atomic.Int64
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) > 3 {
					return // 200, stored some other time
				}
				s.ServeHTTP(w, r)
			})
			checkHandler(t, h, []Option{WithChecks("effects"), WithSettle(0), WithProbe(s.probe)})
		}, "it may store this one later still (a longer WithSettle waits for it)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := said(record("TestX", tt.run))
			if !strings.Contains(s, tt.says) {
				t.Errorf("did not say %q:\n%s", tt.says, s)
			}
			for _, l := range strings.Split(s, "\n") {
				if flag.MatchString(l) && !strings.Contains(l, "reproduce") {
					t.Errorf("names a flag of whsim check: %s", l)
				}
			}
		})
	}
}

// A probe that finds none of the run's documents, or none of one kind
// while it finds the other's, is likelier asking the wrong question (a
// table or a kind misspelt) than the receiver losing them all: the test
// says so beside the cases that fail, as whsim check's effects line does,
// in whsimtest's words, and so does Run's report.
func TestProbeFindingNoneIsSaid(t *testing.T) {
	t.Parallel()
	wrongKind := newShop(t, careful, "")
	storesNothing := newShop(t, careful, "")
	for _, tt := range []struct {
		name string
		h    http.Handler
		f    ProbeFunc
		says string
	}{
		{"none of one kind", wrongKind, func(ctx context.Context, d Document) (Stored, error) {
			if d.Kind == "receipt" {
				d.Kind = "receipts" // the team's table, not the kind
			}
			return wrongKind.probe(ctx, d)
		}, "whsimtest: effects: 20 documents probed; the probe found no receipt of them, though others (settle 0s): " +
			"if the receiver holds them, the probe asks about other numbers than it keeps for receipts (Document.Code is 收款单编号 of a receipt) or another table"},
		{"none at all", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), storesNothing.probe,
			"whsimtest: effects: 20 documents probed; the probe found none of them (settle 0s): if the receiver holds them, it stores them more than 0s after answering " +
				"(a longer WithSettle waits for them), or the probe asks about other numbers than it keeps (Document.Code is data.code of an invoice, 收款单编号 of a receipt) or another database"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := []Option{WithChecks("effects"), WithSettle(0), WithSeed(7), WithProbe(tt.f)}
			r := record("TestX", func(t tb) { checkHandler(t, tt.h, opts) })
			if !r.failed || !slices.Contains(r.logs, tt.says) {
				t.Errorf("failed %v, logs:\n%s\nwant %s", r.failed, strings.Join(r.logs, "\n"), tt.says)
			}
			rep, err := Run(context.Background(), tt.h, opts...)
			if err != nil || !slices.Contains(rep.Log, tt.says) {
				t.Errorf("Run: %v, log:\n%s", err, strings.Join(rep.Log, "\n"))
			}
		})
	}
}

// A handler that leaves its ResponseWriter to a goroutine which writes
// after ServeHTTP returned fails the test, saying so (whsim check fails it
// at random, by the answers the race garbles). Here each call writes to
// the writer of the call before, whose handler has returned: its sender
// has its answer.
func TestRunSaysAWriterUsedAfterItsHandler(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var last http.ResponseWriter
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if last != nil {
			_, _ = last.Write([]byte("late"))
		}
		last = w
	})
	rep, err := Run(context.Background(), h, WithChecks("accepts-valid"))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed() || len(rep.Problems) != 1 || !strings.HasPrefix(rep.Problems[0], "whsimtest: the handler used its ResponseWriter after ServeHTTP returned, on ") {
		t.Errorf("problems %q, want the writer used late", rep.Problems)
	}
}

// Passed is Failed's complement only for a run that judged everything it
// was asked for: a skip, an inconclusive case or no case at all is
// neither.
func TestReportPassed(t *testing.T) {
	t.Parallel()
	pass := Result{Check: "duplicates", Case: "x", Verdict: "pass"}
	for _, tc := range []struct {
		name           string
		rep            Report
		failed, passed bool
	}{
		{"a pass", Report{Cases: []Result{pass}}, false, true},
		{"a judged warning", Report{Cases: []Result{pass, {Verdict: "warn"}}}, false, true},
		{"no case", Report{}, false, false},
		{"a check skipped", Report{Cases: []Result{pass}, Skipped: map[string]string{"effects": "needs a probe"}}, false, false},
		{"an inconclusive case", Report{Cases: []Result{pass, {Verdict: "warn", Inconclusive: true}}}, false, false},
		{"a fail", Report{Cases: []Result{pass, {Verdict: "fail"}}}, true, false},
		{"a problem", Report{Cases: []Result{pass}, Problems: []string{"the handler panicked"}}, true, false},
	} {
		if got := tc.rep.Failed(); got != tc.failed {
			t.Errorf("%s: Failed() = %v", tc.name, got)
		}
		if got := tc.rep.Passed(); got != tc.passed {
			t.Errorf("%s: Passed() = %v", tc.name, got)
		}
	}
}

func TestDocumentsProbedCountsOne(t *testing.T) {
	for n, want := range map[int]string{0: "0 documents probed", 1: "1 document probed", 20: "20 documents probed"} {
		if got := documentsProbed(n); got != want {
			t.Errorf("documentsProbed(%d) = %q, want %q", n, got, want)
		}
	}
}
