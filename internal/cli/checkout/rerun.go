package checkout

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

// RerunCase is a failed case sent again (check --rerun) as a report case.
type RerunCase struct{ check.RerunResult }

func (c RerunCase) Verdict() term.Verdict {
	if c.Outcome == check.Fixed {
		return term.Pass
	}
	return term.Fail
}

// outcomeWord is how a rerun outcome reads. A switch, not a map: a map
// literal is built by the package's init in every process (#35).
func outcomeWord(outcome string) string {
	switch outcome {
	case check.Fixed:
		return "FIXED"
	case check.StillFailing:
		return "STILL FAILING"
	case check.NotRerun:
		return "NOT RERUN"
	}
	return ""
}

func (c RerunCase) AppendText(b []byte, st *term.Style) []byte {
	w := st.Fail
	if c.Outcome == check.Fixed {
		w = st.OK
	}
	b = w.Append(b, outcomeWord(c.Outcome))
	b = append(b, ' ')
	b = st.Key.Append(b, c.Case.Check)
	return fmt.Appendf(b, " %s: %s\n", termsafe.Text(c.Case.Name), c.reason())
}

// reason is the rerun's reason with the receiver's answer it rests on,
// as a run's failing reasons carry it (checkReason); a FIXED one's is the
// 2xx wanted, said already.
func (c RerunCase) reason() string {
	r := termsafe.Text(c.Reason)
	if a := replyText(c.Answer); a != "" && c.Outcome != check.Fixed {
		r += " [" + a + "]"
	}
	return r
}

func (c RerunCase) AppendJSON(b []byte, _ *term.Style) []byte {
	var answer *check.AnswerRecord
	if a := c.Answer; a != nil && c.Outcome != check.Fixed {
		answer = a.Record()
	}
	j, _ := json.Marshal(struct {
		Check  string              `json:"check"`
		Case   string              `json:"case"`
		Rerun  string              `json:"rerun"`
		Status int                 `json:"status"`
		Was    int                 `json:"wasStatus"`
		Reason string              `json:"reason"`
		Want   string              `json:"want,omitempty"`
		Answer *check.AnswerRecord `json:"answer,omitempty"`
	}{c.Case.Check, c.Case.Name, c.Outcome, c.Status, c.Case.Status, termsafe.Text(c.Reason), c.Case.Want, answer})
	return append(append(b, j...), '\n')
}

func (c RerunCase) JUnit() term.TestCase {
	// What sending it again took, as a run's case (check.Result.Took).
	tc := term.TestCase{Suite: c.Case.Check, Name: c.Case.Name, Class: "whsim.check." + c.Case.Check, Time: c.Took, End: c.Ended}
	if c.Outcome != check.Fixed {
		tc.Failure, tc.FailureType = c.reason(), c.Outcome
	} else {
		tc.Detail = "fixed: " + c.Reason
	}
	return tc
}

// NothingToRerun is the one JUnit case of the rerun of a report in which
// no case failed (its name): a pass, so that the report is neither empty
// (which CI servers refuse) nor a stale one of an earlier run. Text and
// JSON say it elsewhere.
type NothingToRerun string

func (NothingToRerun) Verdict() term.Verdict                     { return term.Pass }
func (NothingToRerun) AppendText(b []byte, _ *term.Style) []byte { return b }
func (NothingToRerun) AppendJSON(b []byte, _ *term.Style) []byte { return b }
func (n NothingToRerun) JUnit() term.TestCase {
	return term.TestCase{Suite: "whsim", Name: "nothing-to-rerun", Class: "whsim.check",
		Detail: "no case failed in " + termsafe.Text(string(n)) + ": nothing to rerun"}
}

// RerunSummary ends a rerun: how many cases are fixed.
type RerunSummary struct{ *check.RerunSummary }

func (s RerunSummary) Title() string { return "whsim check --rerun" }

// allFixed says that every one of n failed cases (n > 0) is fixed: "all
// 1 failed case" reads wrong, so one is "the failed case".
func allFixed(n int) string {
	if n == 1 {
		return "the failed case is fixed"
	}
	return fmt.Sprintf("all %d failed cases are fixed", n)
}

func (s RerunSummary) AppendText(b []byte, st *term.Style) []byte {
	if s.Unfinished != "" {
		return b // no verdict: stderr says why
	}
	total := s.Fixed + s.StillFailing + s.NotRerun
	b = append(b, '\n')
	if s.Interrupted {
		// Never "ok": the cases not sent again may still fail.
		return fmt.Appendf(b, "interrupted after %d of %d failed %s: %d fixed, %d still failing\n",
			total, max(s.Total, total), term.Plural(max(s.Total, total), "case", "cases"), s.Fixed, s.StillFailing)
	}
	if s.Passed() {
		b = st.OK.Append(b, "ok")
		return append(append(b, ' '), allFixed(total)+"\n"...)
	}
	b = st.Fail.Append(b, "FAIL")
	switch {
	case s.AllFixed() && total == 0:
		// Only the report's checks not run make it a FAIL: said after.
		b = append(b, " no case failed, nothing to rerun, but"...)
	case s.AllFixed():
		b = append(append(b, ' '), allFixed(total)+", but"...)
	default:
		b = fmt.Appendf(b, " %d of %d failed %s fixed, %d still failing", s.Fixed, total, term.Plural(total, "case", "cases"), s.StillFailing)
		if s.NotRerun > 0 {
			b = fmt.Appendf(b, ", %d not rerun", s.NotRerun)
		}
		if s.ReportEnd.Untested() {
			b = append(b, ';')
		}
	}
	if s.ReportEnd.Untested() {
		// No pass, however the cases went: a rerun sends only failed
		// cases, and these checks never ran, or not wholly.
		b = append(b, " the report's run "+ReportEnded(s.ReportEnd)...)
	}
	return append(b, '\n')
}

// ReportEnded says which checks a report's run left unrun, "" for none:
// "cut accepts-valid short and never ran 2 checks (load, latency)".
func ReportEnded(e check.ReportEnd) string {
	if e.NoSummary {
		// Nothing in the file tells a killed run from an old whsim's
		// whole one: each is said, and neither is a verdict on every check.
		return "may not have finished: the report has no summary line, which whsim check writes last on every end (whsim was killed, the file is cut short, or a whsim from before the summary line wrote it), so which checks it ran is unknown"
	}
	var parts []string
	if e.CutShort != "" {
		parts = append(parts, "cut "+e.CutShort+" short")
	}
	if n := len(e.NotRun); n > 0 {
		parts = append(parts, fmt.Sprintf("never ran %s (%s)", term.Plural(n, "1 check", fmt.Sprintf("%d checks", n)), strings.Join(e.NotRun, ", ")))
	}
	return strings.Join(parts, " and ")
}

func (s RerunSummary) AppendJSON(b []byte) []byte {
	sum := map[string]any{
		"fixed": s.Fixed, "stillFailing": s.StillFailing, "notRerun": s.NotRerun, "allFixed": s.Passed(),
		"interrupted": s.Interrupted,
	}
	// As check's summary names them: the report's run left these unrun,
	// so allFixed, the rerun's verdict, is false.
	if e := s.ReportEnd; len(e.NotRun) > 0 {
		sum["notRun"] = e.NotRun
	}
	if e := s.ReportEnd; e.CutShort != "" {
		sum["cutShort"] = e.CutShort
	}
	if s.ReportEnd.NoSummary {
		sum["reportUnfinished"] = true
	}
	if s.Unfinished != "" {
		sum["error"] = s.Unfinished
	}
	j, _ := json.Marshal(map[string]any{"summary": sum})
	return append(append(b, j...), '\n')
}

// UntestedCases are the JUnit cases of a rerun whose report's run left
// checks unrun (it stopped, or was interrupted): one failing case saying
// so (note), as the rerun's verdict is no pass, then each such check a
// skipped case, as check's own JUnit lists the checks a run never
// reached. A JUnit reader saw the cases sent again alone, all fixed: a
// pass.
func UntestedCases(report, note string, e check.ReportEnd) []term.Case {
	if !e.Untested() {
		return nil
	}
	out := []term.Case{untestedCase(note)}
	skip := func(id, why string) {
		out = append(out, CheckCase{&check.CaseReport{Result: check.Result{
			Case: &check.Case{Check: id, Name: "not-run"}, Verdict: check.Skip, Reason: why}}})
	}
	if e.CutShort != "" {
		skip(e.CutShort, "cases not run in the run of "+termsafe.Text(report)+", which ended in this check: a rerun sends only its failed cases again")
	}
	for _, id := range e.NotRun {
		skip(id, "not run in the run of "+termsafe.Text(report)+": a rerun sends only its failed cases again")
	}
	return out
}

// untestedCase is the failing JUnit case of UntestedCases.
type untestedCase string

func (untestedCase) Verdict() term.Verdict                     { return term.Fail }
func (untestedCase) AppendText(b []byte, _ *term.Style) []byte { return b }
func (untestedCase) AppendJSON(b []byte, _ *term.Style) []byte { return b }
func (c untestedCase) JUnit() term.TestCase {
	return term.TestCase{Suite: "whsim", Name: "checks-not-run", Class: "whsim.check", Failure: string(c), FailureType: "not-run"}
}

// InterruptedRerunCase is the failing JUnit case of a rerun Ctrl-C or
// SIGTERM ended: a JUnit reader sees only the cases, and those sent again
// may all be fixed, while the rest may still fail. Text and JSON say it
// in the summary.
type InterruptedRerunCase struct{ *check.RerunSummary }

func (InterruptedRerunCase) Verdict() term.Verdict                     { return term.Fail }
func (InterruptedRerunCase) AppendText(b []byte, _ *term.Style) []byte { return b }
func (InterruptedRerunCase) AppendJSON(b []byte, _ *term.Style) []byte { return b }
func (c InterruptedRerunCase) JUnit() term.TestCase {
	total := c.Fixed + c.StillFailing + c.NotRerun
	why := fmt.Sprintf("interrupted after %d of %d failed %s: %d fixed, %d still failing; the rest not sent again",
		total, max(c.Total, total), term.Plural(max(c.Total, total), "case", "cases"), c.Fixed, c.StillFailing)
	return term.TestCase{Suite: "whsim", Name: "interrupted", Class: "whsim.check", Failure: why, FailureType: "interrupted"}
}

// NotSentCase is a failed case a rerun that ended early never sent again,
// as a skipped JUnit case: not fixed, not judged. Why says what ended it.
type NotSentCase struct {
	check.Failed
	Why string
}

func (NotSentCase) Verdict() term.Verdict                     { return term.Pass }
func (NotSentCase) AppendText(b []byte, _ *term.Style) []byte { return b }
func (NotSentCase) AppendJSON(b []byte, _ *term.Style) []byte { return b }
func (c NotSentCase) JUnit() term.TestCase {
	return term.TestCase{Suite: c.Check, Name: c.Name, Class: "whsim.check." + c.Check, Skipped: "not sent again: " + c.Why}
}
