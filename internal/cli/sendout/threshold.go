package sendout

import (
	"bytes"
	"fmt"

	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/threshold"
)

// appendThresholdsText lists each threshold with its measured value and
// whether it held, or why it was not judged (notJudged is the word for
// that, styled).
func appendThresholdsText(b []byte, rs []threshold.Result, fail, ok, notJudged string) []byte {
	if len(rs) == 0 {
		return b
	}
	w := 0
	for _, r := range rs {
		w = max(w, len(r.Text))
	}
	b = append(b, "thresholds:\n"...)
	for _, r := range rs {
		verdict := ok
		switch {
		case r.NotJudged != "":
			verdict = notJudged + " (" + r.NotJudged + ")"
		case !r.Pass:
			verdict = fail
		}
		b = fmt.Appendf(b, "  %-*s  %s %s  %s\n", w, r.Text, r.Metric.Name, r.GotText(), verdict)
	}
	return b
}

// appendThresholdsJSON puts "thresholds" into the summary object the
// stats' line holds ({"summary":{...}}\n), last.
func appendThresholdsJSON(line []byte, rs []threshold.Result) []byte {
	if len(rs) == 0 {
		return line
	}
	body, ok := bytes.CutSuffix(line, []byte("}}\n"))
	if !ok {
		return line
	}
	list := make([]threshold.JSON, len(rs))
	for i, r := range rs {
		list[i] = r.JSON()
	}
	out := append(body, `,"thresholds":`...)
	out = append(out, bytes.TrimSuffix(marshalJSONLine(list), []byte("\n"))...)
	return append(out, "}}\n"...)
}

// thresholdCase is a threshold's result as a JUnit test case, in a suite
// of its own; the text and JSON summaries say it already.
type thresholdCase threshold.Result

func (c *thresholdCase) Verdict() term.Verdict {
	// One not judged is a skipped case (JUnit), no failure of its own:
	// the run's case (interrupted) fails the report, as notStartedCase.
	if c.Pass || c.NotJudged != "" {
		return term.Pass
	}
	return term.Fail
}

func (c *thresholdCase) AppendText(b []byte, _ *term.Style) []byte { return b }

func (c *thresholdCase) AppendJSON(b []byte, _ *term.Style) []byte { return b }

func (c *thresholdCase) JUnit() term.TestCase {
	r := threshold.Result(*c)
	tc := term.TestCase{Suite: "thresholds", Name: r.Text, Class: "whsim.threshold", Detail: r.String() + "\n"}
	switch {
	case r.NotJudged != "":
		// Skipped, not passed nor failed: the run's own case (interrupted)
		// fails it.
		tc.Skipped = r.String()
	case !r.Pass:
		tc.Failure, tc.FailureType = r.String(), "threshold"
	}
	return tc
}

// unjudgedCase is what kept a run from testing all it was given
// (ConsoleOptions.Unjudged) as a JUnit case in error.
type unjudgedCase struct{ err error }

func (unjudgedCase) Verdict() term.Verdict                     { return term.Fail }
func (unjudgedCase) AppendText(b []byte, _ *term.Style) []byte { return b }
func (unjudgedCase) AppendJSON(b []byte, _ *term.Style) []byte { return b }

func (c unjudgedCase) JUnit() term.TestCase {
	msg := c.err.Error()
	return term.TestCase{Suite: "whsim", Name: "run", Class: "whsim.run", Error: msg, Detail: msg + "\n"}
}

// interruptedCase is a run Ctrl-C or SIGTERM ended as a failing JUnit
// case: a JUnit reader sees only cases, and without it a run cut short
// between two deliveries reads as all passed.
type interruptedCase struct{ st *load.Stats }

func (interruptedCase) Verdict() term.Verdict                     { return term.Fail }
func (interruptedCase) AppendText(b []byte, _ *term.Style) []byte { return b }
func (interruptedCase) AppendJSON(b []byte, _ *term.Style) []byte { return b }

func (c interruptedCase) JUnit() term.TestCase {
	notStarted := c.st.NotStartedWords()
	if notStarted == "" {
		notStarted = "0 not started"
	}
	msg := fmt.Sprintf("interrupted: %d sent (%s), %s", c.st.Sent, interruptedWords(c.st), notStarted)
	return term.TestCase{Suite: "whsim", Name: "interrupted", Class: "whsim.run", Failure: msg, FailureType: "interrupted", Detail: msg + "\n"}
}

// notStartedCase is the calls a run set out to make and never started
// (--duration before --count's end, --max-concurrency full, stdin's rest
// at an early end) as a skipped JUnit case: the deliveries' cases are the
// calls sent, and a reader counting them alone read a run that sent 2 of
// 100 as all passed. Skipped, not failed: the exit status counts what was
// sent (0 here), and every JUnit reader counts a skip apart.
type notStartedCase struct{ st *load.Stats }

func (notStartedCase) Verdict() term.Verdict                     { return term.Pass }
func (notStartedCase) AppendText(b []byte, _ *term.Style) []byte { return b }
func (notStartedCase) AppendJSON(b []byte, _ *term.Style) []byte { return b }

func (c notStartedCase) JUnit() term.TestCase {
	return term.TestCase{Suite: "whsim", Name: "not started", Class: "whsim.run", Skipped: c.st.NotStartedWords()}
}

// unaskedCase is a run on whose kept-alive connections the receiver sent
// bytes no call asked for (load.Stats.Unasked), as a failing JUnit case:
// the deliveries' own cases may all have passed on answers some of which
// were other calls'.
type unaskedCase struct{ st *load.Stats }

func (unaskedCase) Verdict() term.Verdict                     { return term.Fail }
func (unaskedCase) AppendText(b []byte, _ *term.Style) []byte { return b }
func (unaskedCase) AppendJSON(b []byte, _ *term.Style) []byte { return b }

func (c unaskedCase) JUnit() term.TestCase {
	msg := UnaskedWords(c.st)
	return term.TestCase{Suite: "whsim", Name: "answers no call asked for", Class: "whsim.run", Failure: msg, FailureType: "answers no call asked for", Detail: msg + "\n"}
}

// UnaskedWords is what fails a run whose receiver sent bytes no call
// asked for on its kept-alive connections, "" when it sent none.
func UnaskedWords(st *load.Stats) string {
	n := st.Unasked
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("the receiver sent bytes no call asked for after an answer on %d kept-alive %s (a call answered twice, "+
		"a 204 with a body, a Content-Length short of its body): a sender reusing the connection reads them as its next call's answer, "+
		"and the statuses counted may not be the calls' own", n, term.Plural(n, "connection", "connections"))
}
