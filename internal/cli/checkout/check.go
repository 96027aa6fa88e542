// Package checkout renders whsim check's results, case by case and summed
// up, and those of check --rerun, through term's text, JSON and JUnit
// outputs. It sits beside the command, so that term, the format layer,
// imports no check.
package checkout

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

// CheckSink reports a check run to a Reporter: check.Reporter's Out or
// JUnit, as the CLI connects them.
type CheckSink struct {
	R term.Reporter
	// JUnit: CI reads the JUnit report alone, so a stopped run is a
	// failing case there too.
	JUnit bool
}

func (s CheckSink) Case(c *check.CaseReport) error { return s.R.Case(CheckCase{c}) }

func (s CheckSink) Finish(sum *check.SummaryReport) error {
	if st := sum.Stopped; st != nil && s.JUnit {
		id := sum.CutShort
		if id == "" && len(sum.NotRun) > 0 {
			id = sum.NotRun[0]
		}
		_ = s.R.Case(CheckCase{&check.CaseReport{Result: check.Result{
			Case: &check.Case{Check: id, Name: "receiver-stopped-answering"}, Verdict: check.Fail,
			Reason: "the receiver stopped answering " + st.Where() + ": " + st.Reason}}})
	}
	if it := sum.Interrupted; it != nil && s.JUnit {
		// An interrupted run proved nothing of the cases it did not run:
		// a JUnit reader, which sees only the cases, must not read a pass.
		id := sum.CutShort
		if id == "" {
			id = "whsim"
		}
		_ = s.R.Case(CheckCase{&check.CaseReport{Result: check.Result{
			Case: &check.Case{Check: id, Name: "interrupted"}, Verdict: check.Fail,
			Reason: fmt.Sprintf("interrupted after %s: %d of %d cases run, the rest not run", it.After, sum.Done, sum.Total)}}})
	}
	if sum.NothingJudged() && s.JUnit {
		// Every case a skipped one there: a JUnit reader would count no
		// failure of a run that exits 1 for having verified nothing.
		_ = s.R.Case(CheckCase{&check.CaseReport{Result: check.Result{
			Case: &check.Case{Check: sum.Order[0], Name: "nothing-judged"}, Verdict: check.Fail,
			Reason: "no case of the run could be judged, so it verified nothing: " + CheckSummary{sum}.unjudged()}}})
	}
	if sum.Unfinished != "" && s.JUnit {
		// The cases graded may all have passed: the run's error is a case
		// of its own, in error, as a replay that sent nothing is.
		_ = s.R.Case(UnfinishedCase(sum.Unfinished))
	}
	if s.JUnit {
		// Each check the run never reached is a skipped case, as -o
		// json's notRun and the text's and report's rows list it: a
		// JUnit reader saw fewer tests, and no skip.
		why := notRunWhy(sum)
		for _, id := range sum.NotRun {
			_ = s.R.Case(CheckCase{&check.CaseReport{Result: check.Result{
				Case: &check.Case{Check: id, Name: "not-run"}, Verdict: check.Skip, Reason: why}}})
		}
	}
	return s.R.Finish(CheckSummary{sum})
}

// notRunWhy is why a run's checks in NotRun did not run: how it ended.
func notRunWhy(sum *check.SummaryReport) string {
	switch {
	case sum.Unfinished != "":
		return "not run: the run did not complete: " + sum.Unfinished
	case sum.Stopped != nil:
		return "not run: the receiver stopped answering " + sum.Stopped.Where()
	case sum.Interrupted != nil:
		return "not run: the run was interrupted after " + sum.Interrupted.After
	}
	return "not run"
}

// UnfinishedCase is why a run or a rerun did not complete
// (SummaryReport.Unfinished, RerunSummary.Unfinished) as a JUnit case in
// error; text and JSON say it in the summary.
type UnfinishedCase string

func (UnfinishedCase) Verdict() term.Verdict                     { return term.Fail }
func (UnfinishedCase) AppendText(b []byte, _ *term.Style) []byte { return b }
func (UnfinishedCase) AppendJSON(b []byte, _ *term.Style) []byte { return b }
func (c UnfinishedCase) JUnit() term.TestCase {
	why := "the run did not complete: " + string(c)
	return term.TestCase{Suite: "whsim", Name: "run", Class: "whsim.check", Error: why, Detail: why}
}

// CheckCase is a graded check case as a report case.
type CheckCase struct{ *check.CaseReport }

func (c CheckCase) Verdict() term.Verdict {
	switch c.Result.Verdict {
	case check.Fail:
		return term.Fail
	case check.Warn:
		return term.Warn
	}
	return term.Pass
}

// replyText is the receiver's answer as reasons show it: its status line
// and the start of its body (termsafe.Excerpt, as send shows it); "" when
// it did not answer.
func replyText(a *check.Reply) string {
	if a == nil {
		return ""
	}
	t := "answered " + termsafe.Text(a.Status)
	if body := termsafe.Excerpt(a.Body, a.Cut); body != "" {
		t += ": " + body
	}
	return t
}

// checkReason is a result's reason with the receiver's answer.
func checkReason(res *check.Result) string {
	r := termsafe.Text(res.Reason)
	if a := replyText(res.Answer); a != "" && res.Verdict != check.Pass {
		r += " [" + a + "]"
	}
	return r
}

// AppendText says nothing of a passing case: the summary counts them.
// With st.Verbose, the receiver's whole answer is under the line, as
// send -v shows it.
func (c CheckCase) AppendText(b []byte, st *term.Style) []byte {
	res := &c.Result
	switch {
	case res.Verdict == check.Fail:
		b = st.Fail.Append(b, "FAIL")
	case res.Verdict == check.Warn && !c.Quiet:
		b = st.Warn.Append(b, "WARN")
	case res.Verdict == check.Skip:
		b = st.Dim.Append(b, "SKIP")
		b = append(b, ' ')
		b = st.Key.Append(b, res.Case.Check)
		return fmt.Appendf(b, ": %s\n", termsafe.Text(res.Reason))
	default:
		return b
	}
	b = append(b, ' ')
	b = st.Key.Append(b, res.Case.Check)
	b = fmt.Appendf(b, " %s: %s\n", termsafe.Text(res.Case.Name), checkReason(res))
	if a := res.Answer; st.Verbose && a != nil {
		b = fmt.Appendf(b, "  < %s\n", termsafe.Text(a.Status))
		for _, kv := range termsafe.Headers(termsafe.MaskHeaders(a.Header)) {
			b = append(b, "  < "+kv[0]+": "+kv[1]+"\n"...)
		}
		if len(a.Body) > 0 {
			b = append(b, "  <\n"...)
			for _, line := range strings.Split(strings.TrimRight(termsafe.Lines(string(a.Body)), "\n"), "\n") {
				b = append(b, "  < "+line+"\n"...)
			}
		}
	}
	return b
}

func (c CheckCase) AppendJSON(b []byte, _ *term.Style) []byte {
	out, _ := json.Marshal(c.Record())
	return append(append(b, out...), '\n')
}

func (c CheckCase) JUnit() term.TestCase {
	res := &c.Result
	// The case's wall time and end, as JUnit readers show a case's time:
	// its latency was one call's (the load's p99).
	tc := term.TestCase{Suite: res.Case.Check, Name: res.Case.Name, Class: "whsim.check." + res.Case.Check, Time: res.Took, End: res.Ended}
	reason := checkReason(res)
	switch res.Verdict {
	case check.Fail:
		tc.Failure, tc.FailureType, tc.Detail = reason, string(res.Verdict), c.Repro
	case check.Warn:
		tc.Detail = "warn: " + reason
		if res.Inconclusive {
			// Not judged: a JUnit reader counts a case with system-out
			// alone as passed.
			tc.Skipped = reason
		}
	case check.Skip:
		tc.Detail, tc.Skipped = "skipped: "+reason, cmp.Or(reason, "skipped")
	}
	return tc
}

// CheckSummary ends a check run: a table per check, the load and latency
// figures, and how to reproduce each failure.
type CheckSummary struct{ *check.SummaryReport }

func (s CheckSummary) Title() string { return "whsim check" }

// AppendText is the summary as text: the warnings, the table, the
// figures, the commands that reproduce each failure, then the verdict.
func (s CheckSummary) AppendText(b []byte, st *term.Style) []byte {
	if s.Unfinished != "" {
		// No verdict to give: stderr says why, and people read it there.
		return b
	}
	b = s.appendWarnings(b, st)
	b = append(b, '\n')
	b = s.appendTable(b, st)
	b = s.appendFigures(b)
	b = s.appendRepros(b)
	b = append(b, '\n')
	return s.appendVerdict(b, st)
}

// appendWarnings is a line per check that warned: the case and reason
// of its one warning, or how many and the first.
func (s CheckSummary) appendWarnings(b []byte, st *term.Style) []byte {
	for _, id := range s.Summary.Order {
		ws := s.Warns[id]
		if len(ws) == 0 {
			continue
		}
		b = st.Warn.Append(b, "WARN")
		b = append(b, ' ')
		b = st.Key.Append(b, id)
		if len(ws) == 1 {
			b = fmt.Appendf(b, " %s: %s\n", termsafe.Text(ws[0].Case.Name), checkReason(&ws[0]))
			continue
		}
		b = fmt.Appendf(b, " %d cases, as %s: %s (-v lists them)\n", len(ws), termsafe.Text(ws[0].Case.Name), checkReason(&ws[0]))
	}
	return b
}

// appendTable is the summary's notes, then a row per check: its pass,
// warn and fail counts and what else befell it.
func (s CheckSummary) appendTable(b []byte, st *term.Style) []byte {
	sum := s.Summary
	for _, n := range s.Notes() {
		b = st.Fail.Append(b, "!")
		b = fmt.Appendf(b, " %s\n", n)
	}
	b = fmt.Appendf(b, "%-22s %5s %5s %5s\n", "check", "pass", "warn", "fail")
	for _, id := range sum.Order {
		t := sum.Checks[id]
		if slices.Contains(sum.NotRun, id) {
			b = fmt.Appendf(b, "%-22s %17s\n", id, "not run")
			continue
		}
		b = fmt.Appendf(b, "%-22s %5d %5d %5d", id, t.Pass, t.Warn, t.Fail)
		if t.Fail > 0 {
			b = st.Fail.Append(append(b, "  "...), "FAILED")
		}
		if t.Skipped != "" {
			b = st.Dim.Append(append(b, "  "...), "skipped")
		}
		if id == sum.CutShort {
			b = append(b, "  (cut short)"...)
		}
		b = append(b, '\n')
	}
	return b
}

// appendFigures is the lines of the load, effects and latency figures,
// each when the run has it.
func (s CheckSummary) appendFigures(b []byte) []byte {
	sum := s.Summary
	if l := sum.Load; l != nil {
		if l.Answered+l.TimedOut == 0 {
			b = fmt.Appendf(b, "\nload: %d %s at concurrency %d, none answered\n", l.Calls, term.Plural(l.Calls, "call", "calls"), l.Concurrency)
		} else {
			rate := "calls/s"
			if l.Answered < l.Calls {
				rate = "answered calls/s" // refused calls are no rate
			}
			b = fmt.Appendf(b, "\nload: %d %s at concurrency %d, %.0f %s, p50 %s p90 %s p99 %s max %s",
				l.Calls, term.Plural(l.Calls, "call", "calls"), l.Concurrency, l.PerSecond, rate, fmtMS(l.P50), fmtMS(l.P90), fmtMS(l.P99), fmtMS(l.Max))
			if l.TimedOut > 0 {
				b = fmt.Appendf(b, " (%d timed out, counted at the time limit)", l.TimedOut)
			}
			b = append(b, '\n')
		}
	}
	if e := sum.Effects; e != nil {
		b = appendEffects(b, e)
	}
	if sum.Slowest != "" || sum.P99 > 0 {
		b = fmt.Appendf(b, "latency: p99 %s over the calls outside load (budget %s), slowest event %s\n", fmtMS(sum.P99), s.Budget, sum.Slowest)
	}
	return b
}

// appendRepros is the command that reproduces each failure, under a line
// that names the variables they read the run's credentials from (SetFirst).
func (s CheckSummary) appendRepros(b []byte) []byte {
	cmds := make([]string, len(s.Failures))
	for i, c := range s.Failures {
		cmds[i] = c.Repro
	}
	first := SetFirst(cmds)
	for i, c := range s.Failures {
		switch {
		case i > 0:
		case first != "":
			b = fmt.Appendf(b, "\nreproduce a failure (%s):\n", first)
		default:
			b = append(b, "\nreproduce a failure:\n"...)
		}
		b = fmt.Appendf(b, "  # %s %s\n  %s\n", c.Case.Check, termsafe.Text(c.Case.Name), c.Repro)
	}
	return b
}

// appendVerdict is the run's last line: interrupted, stopped, the checks
// that failed, or how many passed, with what the skipped ones leave
// unproved.
func (s CheckSummary) appendVerdict(b []byte, st *term.Style) []byte {
	sum := s.Summary
	if it := sum.Interrupted; it != nil {
		b = st.Fail.Append(b, "interrupted")
		return fmt.Appendf(b, " after %s: %d of %d %s run\n", termsafe.Text(it.After), sum.Done, sum.Total, term.Plural(sum.Total, "case", "cases"))
	}
	if st1 := sum.Stopped; st1 != nil {
		b = st.Fail.Append(b, "FAIL")
		return fmt.Appendf(b, " the receiver stopped answering %s: %s; %d of %d %s run, %d %s not run\n", termsafe.Text(st1.Where()), st1.Reason, sum.Done, sum.Total, term.Plural(sum.Total, "case", "cases"), len(sum.NotRun), term.Plural(len(sum.NotRun), "check", "checks"))
	}
	failed, warns := s.tally()
	skipped := sum.Skipped()
	if len(failed) > 0 {
		b = st.Fail.Append(b, "FAIL")
		b = fmt.Appendf(b, " %d of %d %s failed: %s", len(failed), len(sum.Order), term.Plural(len(sum.Order), "check", "checks"), strings.Join(failed, ", "))
		b = appendSkipped(b, sum, skipped)
		if unjudged := s.unjudged(); unjudged != "" {
			// Named as when nothing failed: else a check whose every
			// case was not judged (the calls it rests on refused) reads
			// as passed beside the ones named failed.
			b = append(b, "; "+unjudged...)
		}
		return append(b, '\n')
	}
	if sum.NothingJudged() {
		// No case passed, failed or warned on a verdict: the run
		// verified nothing, which is no pass (exit 1).
		b = st.Fail.Append(b, "FAIL")
		b = append(b, " no case judged"...)
		return append(appendSkipped(b, sum, skipped), "; "+s.unjudged()+"\n"...)
	}
	b = st.OK.Append(b, "ok")
	if unjudged := s.unjudged(); unjudged != "" {
		// A case not judged is no pass either: the line claims no check
		// passed, only that none failed, and names what was not judged.
		b = fmt.Appendf(b, " no check failed (%s)", warnings(warns))
		return append(appendSkipped(b, sum, skipped), "; "+unjudged+"\n"...)
	}
	if len(skipped) == 0 {
		return fmt.Appendf(b, " every check passed (%s)\n", warnings(warns))
	}
	// A skipped check is no pass: the line says what it leaves unproved.
	b = fmt.Appendf(b, " %d of %d %s passed (%s)", len(sum.Order)-len(skipped), len(sum.Order), term.Plural(len(sum.Order), "check", "checks"), warnings(warns))
	return append(appendSkipped(b, sum, skipped), '\n')
}

// warnings is a count of warnings as the verdict line says it: "1 warning".
func warnings(n int) string {
	return strconv.Itoa(n) + " " + term.Plural(n, "warning", "warnings")
}

// unjudged says how many cases of the checks that ran were not judged
// (inconclusive warnings), and in which checks ("" when none was):
// "3 cases not judged (inconclusive): accepts-valid 2, duplicates 1".
func (s CheckSummary) unjudged() string {
	sum := s.Summary
	n, by := 0, []string(nil)
	for _, id := range sum.Order {
		if slices.Contains(sum.NotRun, id) {
			continue
		}
		if t := sum.Checks[id]; t != nil && t.Inconclusive > 0 {
			n += t.Inconclusive
			by = append(by, id+" "+strconv.Itoa(t.Inconclusive))
		}
	}
	if n == 0 {
		return ""
	}
	noun := "cases"
	if n == 1 {
		noun = "case"
	}
	return strconv.Itoa(n) + " " + noun + " not judged (inconclusive): " + strings.Join(by, ", ")
}

// tally is what the verdict counts over the checks that ran: those that
// failed, in the run's order, and their warnings.
func (s CheckSummary) tally() (failed []string, warns int) {
	sum := s.Summary
	for _, id := range sum.Order {
		if slices.Contains(sum.NotRun, id) {
			continue
		}
		t := sum.Checks[id]
		if t.Fail > 0 {
			failed = append(failed, id)
		}
		warns += t.Warn
	}
	return failed, warns
}

// appendSkipped names the skipped checks after a verdict and what each
// leaves unproved: "; effects skipped: storage not verified (--probe)".
func appendSkipped(b []byte, sum *check.Summary, ids []string) []byte {
	for _, id := range ids {
		b = fmt.Appendf(b, "; %s skipped: %s", id, check.Unproved(id, sum.Checks[id].Skipped))
	}
	return b
}

// appendEffects is the summary's line of the effects figures.
func appendEffects(b []byte, e *check.EffectsStats) []byte {
	b = fmt.Appendf(b, "\neffects: %d %s probed", e.Documents, term.Plural(e.Documents, "document", "documents"))
	switch {
	case e.LoadProbed == e.Load && e.Load == 1:
		b = append(b, " (the one load document answered 2xx)"...)
	case e.LoadProbed == e.Load && e.Load > 0:
		b = fmt.Appendf(b, " (every one of the %d load documents answered 2xx)", e.Load)
	case e.Load > 0:
		b = fmt.Appendf(b, " (a random sample of %d of the %d load documents answered 2xx)", e.LoadProbed, e.Load)
	}
	switch {
	case e.SaidFailed != "":
		// The receiver said it failed every call the probe found nothing
		// of: the probe is not in doubt, nor is slow storing likelier.
		b = fmt.Appendf(b, "; the probe found none of them (settle %s), as the receiver said: its 2xx answers to their calls said the call failed (%s), and the ERP takes any 2xx as delivered and never sends the call again", e.Settle, termsafe.Text(e.SaidFailed))
	case e.ProbeNotFound:
		b = append(b, "; "+probe.NotFoundEvery(e.Settle)...)
	case e.NoneHeld:
		// Not only a probe that asks the wrong question: a receiver that
		// stores from a queue slower than --settle is found by none too.
		b = append(b, "; "+probe.NoneFound(e.Settle)...)
	case len(e.NoneHeldOf) > 0:
		// One kind only: with none of either, NoneHeld says it.
		b = append(b, "; "+probe.NoneFoundOf(e.NoneHeldOf[0], e.Settle)...)
	case e.SlowestDoc != "":
		b = fmt.Appendf(b, "; the slowest to settle was held as expected %s after its last call (%s, settle %s)", fmtMS(e.Slowest), e.SlowestDoc, e.Settle)
	default:
		b = fmt.Appendf(b, "; every document that matched did so when first asked (settle %s)", e.Settle)
	}
	return append(b, '\n')
}

// The summary of check --output json; its fields are stable.
type (
	checkSummaryJSON struct {
		Checks  map[string]check.Tally `json:"checks"`
		Failed  bool                   `json:"failed"`
		Load    *loadJSON              `json:"load,omitempty"`
		Latency *latencyJSON           `json:"latency,omitempty"`
		Effects *effectsJSON           `json:"effects,omitempty"`
		NotRun  []string               `json:"notRun,omitempty"`
		// CutShort: the check the run ended in, whose counts are of the
		// cases it graded before the end, no pass.
		CutShort string `json:"cutShort,omitempty"`
		// Skipped: the checks that could not run, which are no pass.
		Skipped     []string    `json:"skipped,omitempty"`
		Stopped     *check.Stop `json:"stopped,omitempty"`
		Interrupted *check.Stop `json:"interrupted,omitempty"`
		// NothingJudged: every case of the checks that ran was
		// inconclusive; failed is true.
		NothingJudged bool       `json:"nothingJudged,omitempty"`
		Cases         *casesJSON `json:"cases,omitempty"`
		Notes         []string   `json:"notes,omitempty"`
		// Error: why the run did not complete (exit 2); it has no
		// verdict, and failed is true.
		Error string `json:"error,omitempty"`
	}
	casesJSON struct {
		Run   int `json:"run"`
		Total int `json:"total"`
	}
	loadJSON struct {
		Calls       int     `json:"calls"`
		Concurrency int     `json:"concurrency"`
		PerSecond   float64 `json:"perSecond"`
		P50         float64 `json:"p50Ms"`
		P90         float64 `json:"p90Ms"`
		P99         float64 `json:"p99Ms"`
		Max         float64 `json:"maxMs"`
		Answered    int     `json:"answered"`
		TimedOut    int     `json:"timedOut"`
		// The counts the load case's reason gives: its maps always
		// ({} when none), the rest only when not 0 (absent is none: load
		// measures each on every run).
		FailedByStatus  map[int]int    `json:"failedByStatus"`
		FailedByError   map[string]int `json:"failedByError"`
		CutShort2xx     int            `json:"cutShort2xx,omitempty"`
		CutShortChunked int            `json:"cutShort2xxChunked,omitempty"`
		OverBound2xx    int            `json:"overBound2xx,omitempty"`
		ClosedAsSent    int            `json:"closedAsSent,omitempty"`
		KeptAliveHeld   int            `json:"keptAliveHeld,omitempty"`
		UnaskedAnswers  int            `json:"unaskedAnswers,omitempty"`
	}
	latencyJSON struct {
		P99          float64 `json:"p99Ms"`
		Budget       float64 `json:"budgetMs"`
		SlowestEvent string  `json:"slowestEvent"`
		TimedOut     int     `json:"timedOut"`
	}
	effectsJSON struct {
		Documents  int     `json:"documents"`
		Load       int     `json:"loadDocuments"`
		LoadProbed int     `json:"loadProbed"`
		Slowest    float64 `json:"slowestMs"`
		SlowestDoc string  `json:"slowestDocument,omitempty"`
		Settle     float64 `json:"settleMs"`
	}
)

func (s CheckSummary) AppendJSON(b []byte) []byte {
	sum := s.Summary
	j := checkSummaryJSON{Checks: map[string]check.Tally{}, Failed: sum.Failed(), NotRun: sum.NotRun, Skipped: sum.Skipped(),
		CutShort: sum.CutShort, Stopped: sum.Stopped, Interrupted: sum.Interrupted, Notes: s.Notes(), Error: s.Unfinished}
	if s.Unfinished != "" {
		j.Failed = true // no verdict is no pass
	}
	j.NothingJudged = s.Unfinished == "" && sum.NothingJudged()
	for id, t := range sum.Checks {
		if !slices.Contains(sum.NotRun, id) {
			j.Checks[id] = *t
		}
	}
	if sum.Stopped != nil || sum.Interrupted != nil || s.Unfinished != "" {
		j.Cases = &casesJSON{Run: sum.Done, Total: sum.Total}
	}
	if l := sum.Load; l != nil {
		j.Load = &loadJSON{Calls: l.Calls, Concurrency: l.Concurrency, PerSecond: l.PerSecond,
			P50: attempt.MS(l.P50), P90: attempt.MS(l.P90), P99: attempt.MS(l.P99), Max: attempt.MS(l.Max), Answered: l.Answered, TimedOut: l.TimedOut,
			FailedByStatus: map[int]int{}, FailedByError: map[string]int{},
			CutShort2xx: l.CutShort2xx, CutShortChunked: l.CutShortChunked, OverBound2xx: l.OverBound2xx,
			ClosedAsSent: l.ClosedAsSent, KeptAliveHeld: l.KeptAliveHeld, UnaskedAnswers: l.UnaskedAnswers}
		maps.Copy(j.Load.FailedByStatus, l.FailedByStatus)
		maps.Copy(j.Load.FailedByError, l.FailedByError)
	}
	if e := sum.Effects; e != nil {
		j.Effects = &effectsJSON{e.Documents, e.Load, e.LoadProbed, attempt.MS(e.Slowest), e.SlowestDoc, attempt.MS(e.Settle)}
	}
	if _, ok := sum.Checks[check.Latency]; ok && !slices.Contains(sum.NotRun, check.Latency) {
		j.Latency = &latencyJSON{attempt.MS(sum.P99), attempt.MS(s.Budget), sum.Slowest, sum.Timeouts}
	}
	out, _ := json.Marshal(struct {
		Summary checkSummaryJSON `json:"summary"`
	}{j})
	return append(append(b, out...), '\n')
}

func fmtMS(d time.Duration) string {
	return strconv.FormatFloat(attempt.MS(d), 'f', 1, 64) + "ms"
}

// SetFirst says which variables the commands read the run's credentials
// from ("set TOKEN and AUTHORIZATION first: ..."), "" when they read none:
// check's commands give them as variables, and unset, a pasted command
// sends an empty Authorization, whose 401 is the 4xx a malformed case
// wants, so it looks like a mended receiver.
func SetFirst(cmds []string) string {
	names, n := shellcmd.VarsNamed(cmds)
	if names == "" {
		return ""
	}
	return "set " + names + " first: the commands read the run's credentials from " + term.Plural(n, "it", "them")
}
