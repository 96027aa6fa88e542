package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/deliver"
	"github.com/whsim/whsim/internal/report"
)

// checkReporter reports a check run through the shared reporter: text or
// JSON on stdout as cases are graded, the JUnit file beside it, and the
// summary with the commands that reproduce each failure.
type checkReporter struct {
	out, junit report.Reporter
	target     *url.URL
	header     http.Header
	saveDir    string
	budget     time.Duration

	failures []checkCase // for the summary's reproduce commands
	err      error
}

// checkCase is one graded case as the reporter sees it.
type checkCase struct {
	res   check.Result
	file  string // where --save-cases wrote its body
	repro string // the command that sends it again (failures only)
}

func (c *checkCase) Verdict() report.Verdict {
	switch c.res.Verdict {
	case check.Fail:
		return report.Fail
	case check.Warn:
		return report.Warn
	}
	return report.Pass
}

// AppendText says nothing of a passing case: the summary counts them.
func (c *checkCase) AppendText(b []byte, st *report.Style) []byte {
	switch c.res.Verdict {
	case check.Fail:
		b = st.Fail.Append(b, "FAIL")
	case check.Warn:
		b = st.Warn.Append(b, "WARN")
	default:
		return b
	}
	b = append(b, ' ')
	b = st.Key.Append(b, c.res.Case.Check)
	return fmt.Appendf(b, " %s: %s\n", termSafe(c.res.Case.Name, false), termSafe(c.res.Reason, false))
}

// checkCaseJSON is one case of --output json; its fields are stable.
type checkCaseJSON struct {
	Check     string  `json:"check"`
	Case      string  `json:"case"`
	Verdict   string  `json:"verdict"`
	Status    int     `json:"status"`
	LatencyMS float64 `json:"latencyMs"`
	Reason    string  `json:"reason,omitempty"`
	File      string  `json:"file,omitempty"`
}

func (c *checkCase) AppendJSON(b []byte, _ *report.Style) []byte {
	j, _ := json.Marshal(checkCaseJSON{
		Check: c.res.Case.Check, Case: c.res.Case.Name, Verdict: string(c.res.Verdict),
		Status: c.res.Status, LatencyMS: deliver.MS(c.res.Latency), Reason: termSafe(c.res.Reason, false), File: c.file,
	})
	return append(append(b, j...), '\n')
}

func (c *checkCase) JUnit() report.TestCase {
	tc := report.TestCase{Suite: c.res.Case.Check, Name: c.res.Case.Name, Class: "whsim.check." + c.res.Case.Check}
	reason := termSafe(c.res.Reason, false)
	switch c.res.Verdict {
	case check.Fail:
		tc.Failure, tc.FailureType, tc.Detail = reason, string(c.res.Verdict), c.repro
	case check.Warn:
		tc.Detail = "warn: " + reason
	}
	return tc
}

func newCheckReporter(a *app, opts *checkOptions, target *url.URL, header http.Header) (*checkReporter, error) {
	out, err := report.New(opts.Output, a.streams.Out, style(a.outColor(), false), true)
	if err != nil {
		return nil, usagef("--output: %v", err)
	}
	r := &checkReporter{out: out, target: target, header: header, saveDir: opts.SaveCases, budget: opts.LatencyBudget}
	if opts.JUnit != "" {
		f, err := os.Create(opts.JUnit)
		if err != nil {
			return nil, usagef("--junit: %v", err)
		}
		// The reporter writes the file whole at Finish; closing it is the
		// process's exit (a check run is one per process).
		r.junit, _ = report.New(report.JUnit, f, report.Style{}, false)
	}
	return r, nil
}

// result takes one graded case: the run calls it one case at a time.
func (r *checkReporter) result(res check.Result) {
	if r.err != nil {
		return
	}
	c := &checkCase{res: res}
	if r.saveDir != "" && res.Case.Check != check.Latency {
		c.file = filepath.Join(r.saveDir, caseFile(res.Case))
		if err := os.MkdirAll(filepath.Dir(c.file), 0o755); err != nil {
			r.err = fmt.Errorf("--save-cases: %w", err)
			return
		}
		if err := os.WriteFile(c.file, res.Case.Body, 0o644); err != nil {
			r.err = fmt.Errorf("--save-cases: %w", err)
			return
		}
	}
	if res.Verdict == check.Fail && res.Case.Check != check.Latency {
		c.repro = r.reproduce(c)
		r.failures = append(r.failures, *c)
	}
	if err := r.out.Case(c); err != nil {
		r.err = err
	}
	if r.junit != nil {
		_ = r.junit.Case(c)
	}
}

// caseFile is where --save-cases writes a case: a folder per check, the
// case's name made a file name.
func caseFile(c *check.Case) string {
	name := strings.NewReplacer("/", "--", "\\", "-", ":", "-", " ", "_").Replace(c.Name)
	return filepath.Join(c.Check, name+".json")
}

// finish writes the summary to stdout and the JUnit file.
func (r *checkReporter) finish(sum *check.Summary) error {
	if r.err != nil {
		return r.err
	}
	s := &checkSummary{sum: sum, budget: r.budget, failures: r.failures}
	if err := r.out.Finish(s); err != nil {
		return err
	}
	if r.junit != nil {
		if err := r.junit.Finish(s); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	return nil
}

// checkSummary ends a check run: a table per check, the load and latency
// figures, and how to reproduce each failure.
type checkSummary struct {
	sum      *check.Summary
	budget   time.Duration
	failures []checkCase
}

func (s *checkSummary) Title() string { return "whsim check" }

func (s *checkSummary) AppendText(b []byte, st *report.Style) []byte {
	sum := s.sum
	b = fmt.Appendf(b, "\n%-18s %5s %5s %5s\n", "check", "pass", "warn", "fail")
	var failed []string
	warns := 0
	for _, id := range sum.Order {
		t := sum.Checks[id]
		b = fmt.Appendf(b, "%-18s %5d %5d %5d", id, t.Pass, t.Warn, t.Fail)
		if t.Fail > 0 {
			b = st.Fail.Append(append(b, "  "...), "FAILED")
			failed = append(failed, id)
		}
		b = append(b, '\n')
		warns += t.Warn
	}
	if l := sum.Load; l != nil {
		b = fmt.Appendf(b, "\nload: %d calls at concurrency %d, %.0f calls/s, p50 %s p90 %s p99 %s max %s\n",
			l.Calls, l.Concurrency, l.PerSecond, fmtMS(l.P50), fmtMS(l.P90), fmtMS(l.P99), fmtMS(l.Max))
	}
	if sum.Slowest != "" || sum.P99 > 0 {
		b = fmt.Appendf(b, "latency: p99 %s (budget %s), slowest event %s\n", fmtMS(sum.P99), s.budget, sum.Slowest)
	}
	for i, c := range s.failures {
		if i == 0 {
			b = append(b, "\nreproduce a failure:\n"...)
		}
		b = fmt.Appendf(b, "  # %s %s\n  %s\n", c.res.Case.Check, termSafe(c.res.Case.Name, false), c.repro)
	}
	b = append(b, '\n')
	if len(failed) > 0 {
		b = st.Fail.Append(b, "FAIL")
		return fmt.Appendf(b, " %d of %d checks failed: %s\n", len(failed), len(sum.Order), strings.Join(failed, ", "))
	}
	b = st.OK.Append(b, "ok")
	return fmt.Appendf(b, " every check passed (%d warnings)\n", warns)
}

type checkSummaryJSON struct {
	Checks  map[string]check.Tally `json:"checks"`
	Failed  bool                   `json:"failed"`
	Load    *checkLoadJSON         `json:"load,omitempty"`
	Latency *checkLatencyJSON      `json:"latency,omitempty"`
}

type checkLoadJSON struct {
	Calls       int     `json:"calls"`
	Concurrency int     `json:"concurrency"`
	PerSecond   float64 `json:"perSecond"`
	P50         float64 `json:"p50Ms"`
	P90         float64 `json:"p90Ms"`
	P99         float64 `json:"p99Ms"`
	Max         float64 `json:"maxMs"`
}

type checkLatencyJSON struct {
	P99          float64 `json:"p99Ms"`
	Budget       float64 `json:"budgetMs"`
	SlowestEvent string  `json:"slowestEvent"`
}

func (s *checkSummary) AppendJSON(b []byte) []byte {
	sum := s.sum
	j := checkSummaryJSON{Checks: map[string]check.Tally{}, Failed: sum.Failed()}
	for id, t := range sum.Checks {
		j.Checks[id] = *t
	}
	if l := sum.Load; l != nil {
		j.Load = &checkLoadJSON{l.Calls, l.Concurrency, l.PerSecond, deliver.MS(l.P50), deliver.MS(l.P90), deliver.MS(l.P99), deliver.MS(l.Max)}
	}
	if _, ok := sum.Checks[check.Latency]; ok {
		j.Latency = &checkLatencyJSON{deliver.MS(sum.P99), deliver.MS(s.budget), sum.Slowest}
	}
	out, _ := json.Marshal(struct {
		Summary checkSummaryJSON `json:"summary"`
	}{j})
	return append(append(b, out...), '\n')
}

func fmtMS(d time.Duration) string {
	return strconv.FormatFloat(deliver.MS(d), 'f', 1, 64) + "ms"
}

// maxInlineBody is the largest body a reproduce command carries inline;
// a larger one is read from its --save-cases file.
const maxInlineBody = 4 << 10

// reproduce is a curl command that sends the case's request again, ready
// to paste into a POSIX shell; a loop for a call delivered several times.
func (r *checkReporter) reproduce(cc *checkCase) string {
	c := cc.res.Case
	var b strings.Builder
	if c.Copies > 1 {
		fmt.Fprintf(&b, "for i in $(seq %d); do ", c.Copies)
	}
	b.WriteString("curl -sS -i -X POST ")
	u := *r.target
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "****")
	}
	b.WriteString(shellQuote(deliver.URLFor(&u, c.Query)))
	// The user's credentials are masked: reports end up in CI logs. The
	// case's own headers (a signature of this one body) are not secrets.
	h := http.Header{"Content-Type": {"application/json"}}
	for k, vs := range r.header {
		for _, v := range vs {
			if secretHeader(k) {
				v = maskValue(k, v)
			}
			h[k] = append(h[k], v)
		}
	}
	for k, v := range c.Header {
		h[k] = v
	}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			b.WriteString(" -H " + shellQuote(k+": "+v))
		}
	}
	hint := ""
	switch {
	case cc.file != "":
		b.WriteString(" --data-binary @" + shellQuote(cc.file))
	case len(c.Body) > maxInlineBody:
		b.WriteString(" --data-binary @case.json")
		hint = fmt.Sprintf("  # the %d-byte body: rerun with --save-cases DIR to get it", len(c.Body))
	default:
		b.WriteString(" --data-binary " + shellQuote(string(c.Body)))
	}
	switch {
	case c.Copies > 1 && c.AtOnce:
		b.WriteString(" & done; wait")
	case c.Copies > 1:
		b.WriteString("; done")
	}
	return termSafe(b.String()+hint, true)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
