package checkout

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/term"
)

var colours = term.Style{OK: term.Wrap{Pre: "<ok>", Post: "</>"}, Warn: term.Wrap{Pre: "<w>", Post: "</>"}, Fail: term.Wrap{Pre: "<f>", Post: "</>"}, Dim: term.Wrap{Pre: "<d>", Post: "</>"}, Key: term.Wrap{Pre: "<k>", Post: "</>"}}

func checkCase(v check.Verdict, reason string, answer *check.Reply) *check.CaseReport {
	return &check.CaseReport{Result: check.Result{Case: &check.Case{Check: "accepts-valid", Name: "E/described"},
		Verdict: v, Status: 500, Reason: reason, Answer: answer}, Repro: "curl x"}
}

func TestCheckCaseText(t *testing.T) {
	t.Parallel()
	ans := &check.Reply{Status: "500 Internal Server Error", Body: []byte("oops\nline2")}
	quiet := checkCase(check.Warn, "slow", nil)
	quiet.Quiet = true
	tests := []struct {
		name string
		c    *check.CaseReport
		st   term.Style
		want string
	}{
		{"pass says nothing", checkCase(check.Pass, "", nil), colours, ""},
		{"fail with answer", checkCase(check.Fail, "got 500", ans), colours,
			"<f>FAIL</> <k>accepts-valid</> E/described: got 500 [answered 500 Internal Server Error: oops\\nline2]\n"},
		{"warn", checkCase(check.Warn, "slow", nil), term.Style{}, "WARN accepts-valid E/described: slow\n"},
		{"quiet warn is the summary's", quiet, term.Style{}, ""},
		{"skip", checkCase(check.Skip, "needs a probe", nil), colours, "<d>SKIP</> <k>accepts-valid</>: needs a probe\n"},
		{"verbose shows the answer", checkCase(check.Fail, "got 500", ans), term.Style{Verbose: true},
			"FAIL accepts-valid E/described: got 500 [answered 500 Internal Server Error: oops\\nline2]\n  < 500 Internal Server Error\n  <\n  < oops\n  < line2\n"},
		{"reason made terminal-safe", checkCase(check.Fail, "bad \x1b[31m", nil), term.Style{}, "FAIL accepts-valid E/described: bad \\x1b[31m\n"},
	}
	for _, tt := range tests {
		if got := string(CheckCase{tt.c}.AppendText(nil, &tt.st)); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestCheckCaseJUnit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    check.Verdict
		want term.TestCase
		verd term.Verdict
	}{
		{check.Fail, term.TestCase{Suite: "accepts-valid", Name: "E/described", Class: "whsim.check.accepts-valid", Failure: "r", FailureType: "fail", Detail: "curl x"}, term.Fail},
		{check.Warn, term.TestCase{Suite: "accepts-valid", Name: "E/described", Class: "whsim.check.accepts-valid", Detail: "warn: r"}, term.Warn},
		{check.Skip, term.TestCase{Suite: "accepts-valid", Name: "E/described", Class: "whsim.check.accepts-valid", Detail: "skipped: r", Skipped: "r"}, term.Pass},
		{check.Pass, term.TestCase{Suite: "accepts-valid", Name: "E/described", Class: "whsim.check.accepts-valid"}, term.Pass},
	}
	for _, tt := range tests {
		c := CheckCase{checkCase(tt.v, "r", nil)}
		if got := c.JUnit(); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.v, got, tt.want)
		}
		if c.Verdict() != tt.verd {
			t.Errorf("%s: verdict %d, want %d", tt.v, c.Verdict(), tt.verd)
		}
	}
	// A case not judged (inconclusive) is skipped where JUnit readers
	// count, never a passed test case: whsimtest's subtest skips it too.
	why := "got 404: inconclusive, the call itself was not accepted"
	res := checkCase(check.Warn, why, nil)
	res.Inconclusive = true
	c := CheckCase{res}
	want := term.TestCase{Suite: "accepts-valid", Name: "E/described", Class: "whsim.check.accepts-valid", Detail: "warn: " + why, Skipped: why}
	if got := c.JUnit(); got != want {
		t.Errorf("inconclusive: %+v, want %+v", got, want)
	}
	// A skipped case read back with no reason is still skipped: an empty
	// Skipped is a passed test case to JUnit readers.
	if got := (CheckCase{checkCase(check.Skip, "", nil)}).JUnit(); got.Skipped == "" {
		t.Errorf("skipped without a reason: %+v, want a skipped test case", got)
	}
}

func TestCheckCaseJSON(t *testing.T) {
	t.Parallel()
	got := string(CheckCase{checkCase(check.Fail, "got 500", &check.Reply{Status: "500 X", Body: []byte(" b ")})}.AppendJSON(nil, nil))
	want := `{"check":"accepts-valid","case":"E/described","verdict":"fail","status":500,"latencyMs":0,"reason":"got 500","answer":{"status":"500 X","body":"b"}}` + "\n"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// A case not judged says so to a JSON reader, as to JUnit's (skipped).
	res := checkCase(check.Warn, "got 404: inconclusive", &check.Reply{Status: "404 Not Found"})
	res.Inconclusive = true
	got = string(CheckCase{res}.AppendJSON(nil, nil))
	want = `{"check":"accepts-valid","case":"E/described","verdict":"warn","inconclusive":true,"status":500,"latencyMs":0,"reason":"got 404: inconclusive","answer":{"status":"404 Not Found","body":""}}` + "\n"
	if got != want {
		t.Errorf("inconclusive: got  %s\nwant %s", got, want)
	}
}

func checkSum(f func(s *check.Summary)) *check.SummaryReport {
	s := &check.Summary{Order: []string{"accepts-valid", "load"},
		Checks: map[string]*check.Tally{"accepts-valid": {Pass: 2}, "load": {Pass: 1}}, Done: 3, Total: 3}
	f(s)
	return &check.SummaryReport{Summary: s, Budget: time.Second}
}

func TestCheckSummaryText(t *testing.T) {
	t.Parallel()
	table := "\ncheck                   pass  warn  fail\naccepts-valid              2     0     0\nload                       1     0     0\n\n"
	failed := checkCase(check.Fail, "got 500", nil)
	tests := []struct {
		name string
		s    *check.SummaryReport
		want string
	}{
		{"ok", checkSum(func(*check.Summary) {}), table + "<ok>ok</> every check passed (0 warnings)\n"},
		{"interrupted", checkSum(func(s *check.Summary) { s.Interrupted, s.Done = &check.Stop{After: "accepts-valid/x"}, 1 }),
			table + "<f>interrupted</> after accepts-valid/x: 1 of 3 cases run\n"},
		{"stopped", checkSum(func(s *check.Summary) {
			s.Stopped, s.NotRun = &check.Stop{After: "accepts-valid/x", Reason: "2 calls timed out"}, []string{"load"}
		}), "\ncheck                   pass  warn  fail\naccepts-valid              2     0     0\nload                             not run\n\n" +
			"<f>FAIL</> the receiver stopped answering after accepts-valid/x: 2 calls timed out; 3 of 3 cases run, 1 check not run\n"},
		{"failure and its command", func() *check.SummaryReport {
			s := checkSum(func(s *check.Summary) { s.Checks["accepts-valid"].Fail = 1 })
			s.Failures = []check.CaseReport{*failed}
			return s
		}(), "\ncheck                   pass  warn  fail\naccepts-valid              2     0     1  <f>FAILED</>\nload                       1     0     0\n" +
			"\nreproduce a failure:\n  # accepts-valid E/described\n  curl x\n\n<f>FAIL</> 1 of 2 checks failed: accepts-valid\n"},
		// The commands give the run's credentials as variables: the
		// block names them once, or a command pasted where they are not
		// set sends an empty Authorization (a 401 is the 4xx a malformed
		// case wants) and looks like a mended receiver.
		{"commands that read variables", func() *check.SummaryReport {
			s := checkSum(func(s *check.Summary) { s.Checks["accepts-valid"].Fail = 2 })
			a, b := *failed, *failed
			a.Repro = `curl -sS 'http://h/x?token='"$TOKEN" -H "Authorization: $AUTHORIZATION" --data-binary '{"a":"$HOME"}'`
			b.Repro = `printf '%s\n' '{}' | whsim replay - -H "Authorization: $AUTHORIZATION" --sign standard --secret "$WHSIM_REPLAY_SECRET"`
			s.Failures = []check.CaseReport{a, b}
			return s
		}(), "\ncheck                   pass  warn  fail\naccepts-valid              2     0     2  <f>FAILED</>\nload                       1     0     0\n" +
			"\nreproduce a failure (set TOKEN, AUTHORIZATION and WHSIM_REPLAY_SECRET first: the commands read the run's credentials from them):\n" +
			"  # accepts-valid E/described\n  " + `curl -sS 'http://h/x?token='"$TOKEN" -H "Authorization: $AUTHORIZATION" --data-binary '{"a":"$HOME"}'` + "\n" +
			"  # accepts-valid E/described\n  " + `printf '%s\n' '{}' | whsim replay - -H "Authorization: $AUTHORIZATION" --sign standard --secret "$WHSIM_REPLAY_SECRET"` + "\n" +
			"\n<f>FAIL</> 1 of 2 checks failed: accepts-valid\n"},
		{"held-back warnings", func() *check.SummaryReport {
			s := checkSum(func(*check.Summary) {})
			w := checkCase(check.Warn, "slow", nil).Result
			s.Warns = map[string][]check.Result{"accepts-valid": {w, w}}
			return s
		}(), "<w>WARN</> <k>accepts-valid</> 2 cases, as E/described: slow (-v lists them)\n" + table + "<ok>ok</> every check passed (0 warnings)\n"},
		// A case not judged is no pass: with every case of a check
		// inconclusive (a receiver that answered twice on its
		// connection), the line does not say every check passed.
		{"not judged is no pass", checkSum(func(s *check.Summary) {
			s.Checks["accepts-valid"] = &check.Tally{Warn: 2, Inconclusive: 2}
		}), "\ncheck                   pass  warn  fail\naccepts-valid              0     2     0\nload                       1     0     0\n\n" +
			"<ok>ok</> no check failed (2 warnings); 2 cases not judged (inconclusive): accepts-valid 2\n"},
		// Nothing judged at all (every case of every check that ran
		// inconclusive): the run verified nothing, which is no pass.
		{"nothing judged is a FAIL", checkSum(func(s *check.Summary) {
			s.Checks["accepts-valid"] = &check.Tally{Warn: 2, Inconclusive: 2}
			s.Checks["load"] = &check.Tally{Warn: 1, Inconclusive: 1}
		}), "\ncheck                   pass  warn  fail\naccepts-valid              0     2     0\nload                       0     1     0\n\n" +
			"<f>FAIL</> no case judged; 3 cases not judged (inconclusive): accepts-valid 2, load 1\n"},
		{"one not judged beside a skip", checkSum(func(s *check.Summary) {
			s.Order = append(s.Order, "effects")
			s.Checks["effects"] = &check.Tally{Skipped: "needs a probe"}
			s.Checks["load"] = &check.Tally{Pass: 1, Warn: 1, Inconclusive: 1}
		}), "\ncheck                   pass  warn  fail\naccepts-valid              2     0     0\nload                       1     1     0\neffects                    0     0     0  <d>skipped</>\n\n" +
			"<ok>ok</> no check failed (1 warning); effects skipped: storage not verified (--probe); 1 case not judged (inconclusive): load 1\n"},
		{"skipped is no pass", checkSum(func(s *check.Summary) {
			s.Order = append(s.Order, "effects")
			s.Checks["effects"] = &check.Tally{Skipped: "needs a probe"}
		}), strings.TrimSuffix(table, "\n") + "effects                    0     0     0  <d>skipped</>\n\n<ok>ok</> 2 of 3 checks passed (0 warnings); effects skipped: storage not verified (--probe)\n"},
		{"failed and skipped", checkSum(func(s *check.Summary) {
			s.Order = append(s.Order, "effects")
			s.Checks["effects"] = &check.Tally{Skipped: "needs a probe"}
			s.Checks["load"].Fail = 1
		}), "\ncheck                   pass  warn  fail\naccepts-valid              2     0     0\nload                       1     0     1  <f>FAILED</>\neffects                    0     0     0  <d>skipped</>\n\n<f>FAIL</> 1 of 3 checks failed: load; effects skipped: storage not verified (--probe)\n"},
		// A failure beside cases not judged: the line names them, as it
		// does when nothing failed, or a check none of whose cases was
		// judged (every call it rests on refused) reads as passed beside
		// the failed ones; whsimtest skips it, JUnit counts them skipped.
		{"failed beside cases not judged", checkSum(func(s *check.Summary) {
			s.Checks["accepts-valid"].Fail = 1
			s.Checks["load"] = &check.Tally{Warn: 1, Inconclusive: 1}
		}), "\ncheck                   pass  warn  fail\naccepts-valid              2     0     1  <f>FAILED</>\nload                       0     1     0\n\n" +
			"<f>FAIL</> 1 of 2 checks failed: accepts-valid; 1 case not judged (inconclusive): load 1\n"},
		// Counts read right at one: "1 checks", "1 warnings", "1
		// documents", "every one of the 1 load documents".
		{"counts of one", &check.SummaryReport{Summary: &check.Summary{Order: []string{"accepts-valid"},
			Checks: map[string]*check.Tally{"accepts-valid": {Pass: 1, Warn: 1}}, Done: 1, Total: 1,
			Effects: &check.EffectsStats{Documents: 1, Load: 1, LoadProbed: 1}}, Budget: time.Second},
			"\ncheck                   pass  warn  fail\naccepts-valid              1     1     0\n\neffects: 1 document probed (the one load document answered 2xx); every document that matched did so when first asked (settle 0s)\n\n<ok>ok</> every check passed (1 warning)\n"},
		{"one of one check failed", &check.SummaryReport{Summary: &check.Summary{Order: []string{"accepts-valid"},
			Checks: map[string]*check.Tally{"accepts-valid": {Fail: 1}}, Done: 1, Total: 1}, Budget: time.Second},
			"\ncheck                   pass  warn  fail\naccepts-valid              0     0     1  <f>FAILED</>\n\n<f>FAIL</> 1 of 1 check failed: accepts-valid\n"},
		{"interrupted at the one case", &check.SummaryReport{Summary: &check.Summary{Order: []string{"accepts-valid"},
			Checks: map[string]*check.Tally{"accepts-valid": {}}, Total: 1, Interrupted: &check.Stop{After: "the start"}}, Budget: time.Second},
			"\ncheck                   pass  warn  fail\naccepts-valid              0     0     0\n\n<f>interrupted</> after the start: 0 of 1 case run\n"},
		{"probe found nothing", checkSum(func(s *check.Summary) { s.Effects = &check.EffectsStats{Documents: 3, NoneHeld: true} }),
			strings.TrimSuffix(table, "\n") + "\neffects: 3 documents probed; the probe found none of them (settle 0s): if the receiver holds them, it stores them more than 0s after answering (a longer --settle waits for them), or the probe asks about other numbers than it keeps ({code} is data.code of an invoice, 收款单编号 of a receipt) or another database\n\n<ok>ok</> every check passed (0 warnings)\n"},
		// Every question answered 404: a wrong --probe template as much as
		// a receiver that lost them all.
		{"probe answered 404 for every document", checkSum(func(s *check.Summary) {
			s.Effects = &check.EffectsStats{Documents: 3, NoneHeld: true, ProbeNotFound: true, Settle: 2 * time.Second}
		}),
			strings.TrimSuffix(table, "\n") + "\neffects: 3 documents probed; the probe answered 404 for every one of them (settle 2s): the probe itself may be wrong (a --probe URL template that matches no route of the receiver's gets 404 too: ask it about a document the receiver holds), or the receiver stores them more than 2s after answering (a longer --settle waits for them), or it lost every one\n\n<ok>ok</> every check passed (0 warnings)\n"},
		// The receiver said in its 2xx bodies that every call failed:
		// none held is what it said, not the probe in doubt or slow
		// storing (found by ck47).
		{"receiver said every call failed", checkSum(func(s *check.Summary) {
			s.Effects = &check.EffectsStats{Documents: 3, NoneHeld: true, SaidFailed: `"success": false`, Settle: 2 * time.Second}
		}),
			strings.TrimSuffix(table, "\n") + "\neffects: 3 documents probed; the probe found none of them (settle 2s), as the receiver said: its 2xx answers to their calls said the call failed (\"success\": false), and the ERP takes any 2xx as delivered and never sends the call again\n\n<ok>ok</> every check passed (0 warnings)\n"},
		{"probe found no receipt", checkSum(func(s *check.Summary) {
			s.Effects = &check.EffectsStats{Documents: 3, NoneHeldOf: []string{"receipt"}, Settle: 2 * time.Second}
		}),
			strings.TrimSuffix(table, "\n") + "\neffects: 3 documents probed; the probe found no receipt of them, though others (settle 2s): if the receiver holds them, the probe asks about other numbers than it keeps for receipts ({code} is 收款单编号 of a receipt) or another table\n\n<ok>ok</> every check passed (0 warnings)\n"},
	}
	for _, tt := range tests {
		if got := string(CheckSummary{tt.s}.AppendText(nil, &colours)); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestCheckSinkJUnitStop: CI reads the JUnit report alone, so a stopped
// run is a failing case there; stdout says it once, in the summary.
func TestCheckSinkJUnitStop(t *testing.T) {
	t.Parallel()
	stopped := checkSum(func(s *check.Summary) {
		s.Stopped, s.NotRun = &check.Stop{After: "a/x", Reason: "timed out"}, []string{"load"}
	})
	for _, junit := range []bool{true, false} {
		var xml, text strings.Builder
		j, _ := term.New(term.JUnit, &xml, term.Style{}, false)
		out, _ := term.New(term.Text, &text, term.Style{}, false)
		if err := (CheckSink{R: j, JUnit: junit}).Finish(stopped); err != nil {
			t.Fatal(err)
		}
		if err := (CheckSink{R: out}).Finish(stopped); err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(xml.String(), `<testcase name="receiver-stopped-answering" classname="whsim.check.load" time="0.000">`)
		if has != junit {
			t.Errorf("JUnit %v: stop case %v:\n%s", junit, has, xml.String())
		}
		if n := strings.Count(text.String(), "stopped answering"); n != 1 {
			t.Errorf("%d lines say it stopped answering, want one:\n%s", n, text.String())
		}
	}
}

// TestCheckSinkJUnitNothingJudged: a run whose every case was
// inconclusive (skipped cases in JUnit) exits 1, so its JUnit holds a
// failing case saying why: a reader counting failures must not see none;
// -o json says failed and nothingJudged.
func TestCheckSinkJUnitNothingJudged(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		tally check.Tally
		want  bool
	}{
		{"nothing judged", check.Tally{Warn: 2, Inconclusive: 2}, true},
		{"one case passed", check.Tally{Pass: 1, Warn: 2, Inconclusive: 2}, false},
	} {
		sum := checkSum(func(s *check.Summary) {
			s.Order = []string{"rejects-malformed"}
			s.Checks = map[string]*check.Tally{"rejects-malformed": &tt.tally}
		})
		var xml strings.Builder
		j, _ := term.New(term.JUnit, &xml, term.Style{}, false)
		if err := (CheckSink{R: j, JUnit: true}).Finish(sum); err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(xml.String(), `<testcase name="nothing-judged" classname="whsim.check.rejects-malformed" time="0.000">`+"\n"+
			`      <failure message="no case of the run could be judged, so it verified nothing: 2 cases not judged (inconclusive): rejects-malformed 2" type="fail"></failure>`)
		if has != tt.want {
			t.Errorf("%s: nothing-judged case %v, want %v:\n%s", tt.name, has, tt.want, xml.String())
		}
		js := string(CheckSummary{sum}.AppendJSON(nil))
		if got := strings.Contains(js, `"failed":true`) && strings.Contains(js, `"nothingJudged":true`); got != tt.want {
			t.Errorf("%s: JSON says nothing judged %v, want %v: %s", tt.name, got, tt.want, js)
		}
	}
}

// TestCheckSinkJUnitNotRun: a run that ended before some checks ran
// (stopped, interrupted, unfinished) lists each of them in its JUnit as a
// skipped case saying why, counted in its suite's tests and skipped, as
// -o json's notRun, the text table and the HTML report list them: a JUnit
// reader saw fewer tests and no skip.
func TestCheckSinkJUnitNotRun(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		set  func(s *check.SummaryReport)
		why  string
	}{
		{"stopped", func(s *check.SummaryReport) {
			s.Stopped = &check.Stop{After: "accepts-valid/x", Reason: "2 calls in a row got no answer (timeout)"}
		}, "not run: the receiver stopped answering after accepts-valid/x"},
		{"interrupted", func(s *check.SummaryReport) {
			s.Interrupted = &check.Stop{After: "accepts-valid/x", Reason: "interrupted"}
		}, "not run: the run was interrupted after accepts-valid/x"},
		{"unfinished", func(s *check.SummaryReport) {
			s.Unfinished = "the probe failed"
		}, "not run: the run did not complete: the probe failed"},
	} {
		s := checkSum(func(s *check.Summary) {
			s.Order = append(s.Order, "latency")
			s.Checks["latency"] = &check.Tally{}
			s.NotRun, s.CutShort, s.Done, s.Total = []string{"load", "latency"}, "accepts-valid", 2, 9
		})
		tt.set(s)
		var xml strings.Builder
		j := term.NewJUnit(&xml, "http://h/")
		if err := (CheckSink{R: j, JUnit: true}).Finish(s); err != nil {
			t.Fatal(err)
		}
		for _, id := range s.NotRun {
			suite := `<testsuite name="` + id + ` (http://h/)" tests="1" failures="0" errors="0" skipped="1" time="0.000">`
			skipped := `<testcase name="not-run" classname="whsim.check.` + id + `" time="0.000">` + "\n" +
				`      <skipped message="` + tt.why + `"></skipped>`
			if !strings.Contains(xml.String(), suite) || !strings.Contains(xml.String(), skipped) {
				t.Errorf("%s: %s is no skipped case saying %q:\n%s", tt.name, id, tt.why, xml.String())
			}
		}
	}
}

func TestCheckSummaryJSON(t *testing.T) {
	t.Parallel()
	s := checkSum(func(s *check.Summary) { s.Interrupted, s.Done = &check.Stop{After: "a/x"}, 1 })
	got := string(CheckSummary{s}.AppendJSON(nil))
	want := `{"summary":{"checks":{"accepts-valid":{"pass":2,"warn":0,"fail":0},"load":{"pass":1,"warn":0,"fail":0}},"failed":true,"interrupted":{"after":"a/x","reason":""},"cases":{"run":1,"total":3}}}` + "\n"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestCheckSummaryJSONSkipped: the JSON summary lists a skipped check, so
// that a script reading it does not take the check for passed.
func TestCheckSummaryJSONSkipped(t *testing.T) {
	t.Parallel()
	s := checkSum(func(s *check.Summary) {
		s.Order = append(s.Order, "effects")
		s.Checks["effects"] = &check.Tally{Skipped: "needs a probe"}
	})
	got := string(CheckSummary{s}.AppendJSON(nil))
	if !strings.Contains(got, `"effects":{"pass":0,"warn":0,"fail":0,"skipped":"needs a probe"}`) || !strings.Contains(got, `"skipped":["effects"]`) {
		t.Errorf("got %s, want effects said skipped", got)
	}
}

// TestCheckSinkUnfinished: a run that started and could not complete
// (the receiver unreachable, the probe at fault) ends its JSON with a
// summary that says why and is no pass, its JUnit with a case in error
// beside the cases graded, and its text with nothing (stderr says it): a
// JSON reader got no line at all, and every graded case passed.
func TestCheckSinkUnfinished(t *testing.T) {
	t.Parallel()
	s := checkSum(func(s *check.Summary) { s.Done, s.Total = 2, 19 })
	s.Unfinished = "cannot reach http://127.0.0.1:9/hook: connection refused"
	var js, xml, text strings.Builder
	for _, sink := range []struct {
		format string
		w      *strings.Builder
		junit  bool
	}{{term.JSON, &js, false}, {term.JUnit, &xml, true}, {term.Text, &text, false}} {
		r, _ := term.New(sink.format, sink.w, term.Style{}, false)
		if err := (CheckSink{R: r, JUnit: sink.junit}).Finish(s); err != nil {
			t.Fatal(err)
		}
	}
	wantJSON := `{"summary":{"checks":{"accepts-valid":{"pass":2,"warn":0,"fail":0},"load":{"pass":1,"warn":0,"fail":0}},"failed":true,"cases":{"run":2,"total":19},"error":"cannot reach http://127.0.0.1:9/hook: connection refused"}}` + "\n"
	if js.String() != wantJSON {
		t.Errorf("JSON\ngot  %s\nwant %s", js.String(), wantJSON)
	}
	if !strings.Contains(xml.String(), `tests="1" failures="0" errors="1"`) ||
		!strings.Contains(xml.String(), `<error message="the run did not complete: cannot reach http://127.0.0.1:9/hook: connection refused" type="error">`) {
		t.Errorf("JUnit has no case in error:\n%s", xml.String())
	}
	if text.String() != "" {
		t.Errorf("text %q, want none (stderr says why)", text.String())
	}
}

// A case's JUnit time is what it took, start to end, and it says when it
// ended: it was one call's latency (a serial-x4 case of four calls, the
// load's p99).
func TestCheckCaseJUnitTime(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := checkCase(check.Pass, "", nil)
	c.Latency, c.Took, c.Ended = 5*time.Millisecond, 4*time.Second, end
	tc := CheckCase{CaseReport: c}.JUnit()
	if tc.Time != 4*time.Second || !tc.End.Equal(end) {
		t.Errorf("time %s, end %s; want 4s, %s", tc.Time, tc.End, end)
	}
}

// The line over check's commands names the variables to set, and says
// "it" of one: "set TOKEN first: ... from them" read as a second
// variable left unnamed.
func TestSetFirst(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cmds []string
		want string
	}{
		{"none", []string{`curl -sS 'http://127.0.0.1:9/hook'`}, ""},
		{"one", []string{`whsim replay x.ndjson --url 'http://127.0.0.1:9/hook?token='"$TOKEN"`}, "set TOKEN first: the commands read the run's credentials from it"},
		{"two", []string{`curl -sS 'http://127.0.0.1:9/hook?token='"$TOKEN" -H "Authorization: $AUTHORIZATION"`}, "set TOKEN and AUTHORIZATION first: the commands read the run's credentials from them"},
	} {
		if got := SetFirst(tc.cmds); got != tc.want {
			t.Errorf("%s: SetFirst = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestCheckSummaryLoadJSON: the summary's load object carries every count
// the load case's reason gives (the answers not 2xx by status, the calls
// with no whole answer by why, the 2xx cut short or over the bound, the
// calls kept-alive connections lost, the connections holding bytes no
// call asked for), as the text and JUnit say them; it carried the
// figures alone. The maps are always there ({} is none measured, not
// unmeasured); the other counts only when not 0.
func TestCheckSummaryLoadJSON(t *testing.T) {
	t.Parallel()
	const figures = `"calls":300,"concurrency":16,"perSecond":250,"p50Ms":2,"p90Ms":3,"p99Ms":4,"maxMs":5,`
	tests := []struct {
		name string
		load check.LoadStats
		want string
	}{
		{"none failed", check.LoadStats{}, `"answered":300,"timedOut":0,"failedByStatus":{},"failedByError":{}`},
		{"every count", check.LoadStats{
			TimedOut: 4, FailedByStatus: map[int]int{503: 60, 301: 2}, FailedByError: map[string]int{"timeout": 4, "got 200 with the body unfinished (timeout)": 1},
			CutShort2xx: 7, CutShortChunked: 3, OverBound2xx: 2, ClosedAsSent: 5, KeptAliveHeld: 4, UnaskedAnswers: 1},
			`"answered":300,"timedOut":4,"failedByStatus":{"301":2,"503":60},"failedByError":{"got 200 with the body unfinished (timeout)":1,"timeout":4},` +
				`"cutShort2xx":7,"cutShort2xxChunked":3,"overBound2xx":2,"closedAsSent":5,"keptAliveHeld":4,"unaskedAnswers":1`},
	}
	for _, tt := range tests {
		l := tt.load
		l.Calls, l.Concurrency, l.PerSecond, l.Answered = 300, 16, 250, 300
		l.P50, l.P90, l.P99, l.Max = 2*time.Millisecond, 3*time.Millisecond, 4*time.Millisecond, 5*time.Millisecond
		out := CheckSummary{checkSum(func(s *check.Summary) { s.Load = &l })}.AppendJSON(nil)
		var got struct {
			Summary struct {
				Load json.RawMessage `json:"load"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v: %s", tt.name, err, out)
		}
		if want := "{" + figures + tt.want + "}"; string(got.Summary.Load) != want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got.Summary.Load, want)
		}
	}
}
