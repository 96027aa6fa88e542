package check

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

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

// Reporter reports a check run through the shared reporter: text or JSON
// as cases are graded (Out), the JUnit report beside it, and the summary
// with the commands that reproduce each failure.
type Reporter struct {
	Out    term.Reporter
	JUnit  term.Reporter // nil: no JUnit report
	Target *url.URL
	// Header is the user's headers: the reproduce commands carry them,
	// credentials masked.
	Header http.Header
	// SaveDir, when set, is where every case is written as capture
	// records (whsim replay sends them again), with ResultsFile.
	SaveDir string
	Budget  time.Duration
	// Verbose prints every warning as it comes; otherwise the warnings of
	// a check are one line in the summary.
	Verbose bool
	// Signer is the run's: a reproduction of a signed call signs afresh.
	Signer *sign.Signer
	// Now is the clock of the signatures the reporter rebuilds.
	Now func() time.Time

	failures []caseReport // for the summary's reproduce commands
	results  *os.File     // SaveDir's ResultsFile
	warns    map[string][]Result
	err      error
}

// caseReport is one graded case as the reporter sees it.
type caseReport struct {
	res   Result
	sent  sent
	file  string // where --save-cases wrote its records
	repro string // the command that sends it again (failures and warnings)
	// target is the run's URL, a password in it masked; user the user's
	// headers, whose credentials JSON masks.
	target *url.URL
	user   http.Header
	quiet  bool // a warning said in the summary instead
	// verbose shows the receiver's whole answer under the line, as send -v.
	verbose bool
}

// replyText is the receiver's answer as reasons show it: its status line
// and the start of its body, terminal-safe; "" when it did not answer.
func replyText(a *reply) string {
	if a == nil {
		return ""
	}
	t := "answered " + termsafe.Text(a.Status)
	if body := strings.TrimSpace(string(a.Body)); body != "" {
		t += ": " + termsafe.Text(body)
		if len(a.Body) >= attempt.MaxBodyPrefix {
			t += "…"
		}
	}
	return t
}

// reason is a result's reason with the receiver's answer.
func reason(res Result) string {
	r := termsafe.Text(res.Reason)
	if a := replyText(res.Answer); a != "" && res.Verdict != Pass {
		r += " [" + a + "]"
	}
	return r
}

func (c *caseReport) Verdict() term.Verdict {
	switch c.res.Verdict {
	case Fail:
		return term.Fail
	case Warn:
		return term.Warn
	}
	return term.Pass
}

// AppendText says nothing of a passing case: the summary counts them.
func (c *caseReport) AppendText(b []byte, st *term.Style) []byte {
	switch {
	case c.res.Verdict == Fail:
		b = st.Fail.Append(b, "FAIL")
	case c.res.Verdict == Warn && !c.quiet:
		b = st.Warn.Append(b, "WARN")
	case c.res.Verdict == skip:
		b = st.Dim.Append(b, "SKIP")
		b = append(b, ' ')
		b = st.Key.Append(b, c.res.Case.Check)
		return fmt.Appendf(b, ": %s\n", termsafe.Text(c.res.Reason))
	default:
		return b
	}
	b = append(b, ' ')
	b = st.Key.Append(b, c.res.Case.Check)
	b = fmt.Appendf(b, " %s: %s\n", termsafe.Text(c.res.Case.Name), reason(c.res))
	if a := c.res.Answer; c.verbose && a != nil {
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

// caseJSON is one case of --output json; its fields are stable. A case
// that failed or warned carries its request and the command that sends it
// again; check --rerun reads them back.
type caseJSON struct {
	Check     string       `json:"check"`
	Case      string       `json:"case"`
	Verdict   string       `json:"verdict"`
	Status    int          `json:"status"`
	LatencyMS float64      `json:"latencyMs"`
	Reason    string       `json:"reason,omitempty"`
	Answer    *answerJSON  `json:"answer,omitempty"`
	File      string       `json:"file,omitempty"`
	Want      string       `json:"want,omitempty"`
	Request   *requestJSON `json:"request,omitempty"`
	Reproduce string       `json:"reproduce,omitempty"`
}

// answerJSON is the receiver's answer of a warning or failing case.
type answerJSON struct {
	Status string `json:"status"`
	Body   string `json:"body"`
}

// requestJSON is a case's request, credentials masked.
type requestJSON struct {
	Method       string      `json:"method"`
	URL          string      `json:"url"`
	Query        string      `json:"query"`
	Headers      http.Header `json:"headers"`
	Body         string      `json:"body"`
	BodyEncoding string      `json:"bodyEncoding"`
	// Copies is how many times it was delivered, AtOnce together.
	Copies int  `json:"copies,omitempty"`
	AtOnce bool `json:"atOnce,omitempty"`
	// Resign says it carried the run's signature, to be made afresh.
	Resign bool `json:"resign,omitempty"`
}

func (c *caseReport) AppendJSON(b []byte, _ *term.Style) []byte {
	j := caseJSON{
		Check: c.res.Case.Check, Case: c.res.Case.Name, Verdict: string(c.res.Verdict),
		Status: c.res.Status, LatencyMS: attempt.MS(c.res.Latency), Reason: termsafe.Text(c.res.Reason), File: c.file,
	}
	if a := c.res.Answer; a != nil && c.res.Verdict != Pass {
		j.Answer = &answerJSON{Status: termsafe.Text(a.Status), Body: termsafe.Text(strings.TrimSpace(string(a.Body)))}
	}
	if c.res.Verdict != Pass && c.sent.header != nil {
		rc := c.res.Case
		body, enc := capture.EncodeBody(rc.Body)
		j.Want, j.Reproduce = c.sent.want, c.repro
		j.Request = &requestJSON{
			Method: http.MethodPost, URL: attempt.URLFor(c.target, rc.Query), Query: rc.Query,
			Headers: masked(c.sent.header, c.user), Body: body, BodyEncoding: enc,
			Copies: rc.Copies, AtOnce: rc.AtOnce, Resign: c.sent.resign,
		}
	}
	out, _ := json.Marshal(j)
	return append(append(b, out...), '\n')
}

func (c *caseReport) JUnit() term.TestCase {
	tc := term.TestCase{Suite: c.res.Case.Check, Name: c.res.Case.Name, Class: "whsim.check." + c.res.Case.Check}
	reason := reason(c.res)
	switch c.res.Verdict {
	case Fail:
		tc.Failure, tc.FailureType, tc.Detail = reason, string(c.res.Verdict), c.repro
	case Warn:
		tc.Detail = "warn: " + reason
	case skip:
		tc.Detail = "skipped: " + reason
	}
	return tc
}

// Result takes one graded case: Run calls it one case at a time.
func (r *Reporter) Result(res Result) {
	if r.err != nil {
		return
	}
	c := &caseReport{res: res, target: r.maskedTarget(), user: r.Header,
		quiet: res.Verdict == Warn && !r.Verbose, verbose: r.Verbose}
	if c.quiet {
		if r.warns == nil {
			r.warns = map[string][]Result{}
		}
		r.warns[res.Case.Check] = append(r.warns[res.Case.Check], res)
	}
	if res.Case.Check != Latency && res.Verdict != skip {
		c.sent = r.sentRequest(res.Case)
	}
	if r.SaveDir != "" && res.Case.Check != Latency && res.Verdict != skip {
		if err := r.save(c); err != nil {
			r.err = fmt.Errorf("--save-cases: %w", err)
			return
		}
	}
	if res.Verdict != Pass && res.Verdict != skip && res.Case.Check != Latency {
		c.repro = res.Repro
		if c.repro == "" {
			c.repro = r.reproduce(c)
		}
	}
	if res.Verdict == Fail && res.Case.Check != Latency {
		r.failures = append(r.failures, *c)
	}
	if r.SaveDir != "" {
		if err := r.saveLine(c); err != nil {
			r.err = fmt.Errorf("--save-cases: %w", err)
			return
		}
	}
	if err := r.Out.Case(c); err != nil {
		r.err = err
	}
	if r.JUnit != nil {
		_ = r.JUnit.Case(c)
	}
}

// caseFile is where --save-cases writes a case: a folder per check, the
// case's name made a file name.
func caseFile(c *Case) string {
	name := strings.NewReplacer("/", "--", "\\", "-", ":", "-", " ", "_").Replace(c.Name)
	return filepath.Join(c.Check, name+".ndjson")
}

// Finish writes the summary to Out and the JUnit report.
func (r *Reporter) Finish(sum *Summary) error {
	if r.results != nil {
		if err := r.results.Close(); err != nil && r.err == nil {
			r.err = fmt.Errorf("--save-cases: %w", err)
		}
		r.results = nil
	}
	if r.err != nil {
		return r.err
	}
	if st := sum.Stopped; st != nil && r.JUnit != nil {
		// CI reads the JUnit report alone: the stop is a failure there.
		id := sum.CutShort
		if id == "" && len(sum.NotRun) > 0 {
			id = sum.NotRun[0]
		}
		_ = r.JUnit.Case(&caseReport{res: Result{Case: &Case{Check: id, Name: "receiver-stopped-answering"}, Verdict: Fail,
			Reason: "the receiver stopped answering after " + st.After + ": " + st.Reason}})
	}
	s := &summaryReport{sum: sum, budget: r.Budget, failures: r.failures, warns: r.warns}
	if err := r.Out.Finish(s); err != nil {
		return err
	}
	if r.JUnit != nil {
		if err := r.JUnit.Finish(s); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	return nil
}

// summaryReport ends a check run: a table per check, the load and latency
// figures, and how to reproduce each failure.
type summaryReport struct {
	sum      *Summary
	budget   time.Duration
	failures []caseReport
	warns    map[string][]Result // held back, by check
}

// notes are the run-wide findings that come before the table: what makes
// the rest read differently.
func (s *summaryReport) notes() []string {
	sum := s.sum
	var out []string
	if u := sum.Unrouted; u != nil {
		out = append(out, fmt.Sprintf("every call got %d %s: %s", u.Status, http.StatusText(u.Status), u.Hint))
	}
	if sum.SeenBefore {
		out = append(out, "every first delivery was refused as a duplicate (409, or a 5xx saying so): the receiver has seen these requestIds before (a run with --fixed-ids repeats them; leave it out for fresh ones)")
	}
	return out
}

func (s *summaryReport) Title() string { return "whsim check" }

func (s *summaryReport) AppendText(b []byte, st *term.Style) []byte {
	sum := s.sum
	for _, id := range sum.Order {
		ws := s.warns[id]
		if len(ws) == 0 {
			continue
		}
		b = st.Warn.Append(b, "WARN")
		b = append(b, ' ')
		b = st.Key.Append(b, id)
		if len(ws) == 1 {
			b = fmt.Appendf(b, " %s: %s\n", termsafe.Text(ws[0].Case.Name), reason(ws[0]))
			continue
		}
		b = fmt.Appendf(b, " %d cases, as %s: %s (-v lists them)\n", len(ws), termsafe.Text(ws[0].Case.Name), reason(ws[0]))
	}
	b = append(b, '\n')
	for _, n := range s.notes() {
		b = st.Fail.Append(b, "!")
		b = fmt.Appendf(b, " %s\n", n)
	}
	b = fmt.Appendf(b, "%-22s %5s %5s %5s\n", "check", "pass", "warn", "fail")
	var failed []string
	warns := 0
	for _, id := range sum.Order {
		t := sum.Checks[id]
		if slices.Contains(sum.NotRun, id) {
			b = fmt.Appendf(b, "%-22s %17s\n", id, "not run")
			continue
		}
		b = fmt.Appendf(b, "%-22s %5d %5d %5d", id, t.Pass, t.Warn, t.Fail)
		if t.Fail > 0 {
			b = st.Fail.Append(append(b, "  "...), "FAILED")
			failed = append(failed, id)
		}
		if t.Skipped != "" {
			b = st.Dim.Append(append(b, "  "...), "skipped")
		}
		if id == sum.CutShort {
			b = append(b, "  (cut short)"...)
		}
		b = append(b, '\n')
		warns += t.Warn
	}
	if l := sum.Load; l != nil {
		if l.Answered+l.TimedOut == 0 {
			b = fmt.Appendf(b, "\nload: %d calls at concurrency %d, none answered\n", l.Calls, l.Concurrency)
		} else {
			b = fmt.Appendf(b, "\nload: %d calls at concurrency %d, %.0f calls/s, p50 %s p90 %s p99 %s max %s",
				l.Calls, l.Concurrency, l.PerSecond, fmtMS(l.P50), fmtMS(l.P90), fmtMS(l.P99), fmtMS(l.Max))
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
		b = fmt.Appendf(b, "latency: p99 %s over the calls outside load (budget %s), slowest event %s\n", fmtMS(sum.P99), s.budget, sum.Slowest)
	}
	for i, c := range s.failures {
		if i == 0 {
			b = append(b, "\nreproduce a failure:\n"...)
		}
		b = fmt.Appendf(b, "  # %s %s\n  %s\n", c.res.Case.Check, termsafe.Text(c.res.Case.Name), c.repro)
	}
	b = append(b, '\n')
	if it := sum.Interrupted; it != nil {
		b = st.Fail.Append(b, "interrupted")
		return fmt.Appendf(b, " after %s: %d of %d cases run\n", termsafe.Text(it.After), sum.Done, sum.Total)
	}
	if st1 := sum.Stopped; st1 != nil {
		b = st.Fail.Append(b, "FAIL")
		return fmt.Appendf(b, " the receiver stopped answering after %s: %s; %d of %d cases run, %d checks not run\n", termsafe.Text(st1.After), st1.Reason, sum.Done, sum.Total, len(sum.NotRun))
	}
	if len(failed) > 0 {
		b = st.Fail.Append(b, "FAIL")
		return fmt.Appendf(b, " %d of %d checks failed: %s\n", len(failed), len(sum.Order), strings.Join(failed, ", "))
	}
	b = st.OK.Append(b, "ok")
	return fmt.Appendf(b, " every check passed (%d warnings)\n", warns)
}

type summaryJSON struct {
	Checks      map[string]Tally `json:"checks"`
	Failed      bool             `json:"failed"`
	Load        *loadJSON        `json:"load,omitempty"`
	Latency     *latencyJSON     `json:"latency,omitempty"`
	Effects     *effectsJSON     `json:"effects,omitempty"`
	NotRun      []string         `json:"notRun,omitempty"`
	Stopped     *Stop            `json:"stopped,omitempty"`
	Interrupted *Stop            `json:"interrupted,omitempty"`
	Cases       *casesJSON       `json:"cases,omitempty"`
	Notes       []string         `json:"notes,omitempty"`
}

type casesJSON struct {
	Run   int `json:"run"`
	Total int `json:"total"`
}

type loadJSON struct {
	Calls       int     `json:"calls"`
	Concurrency int     `json:"concurrency"`
	PerSecond   float64 `json:"perSecond"`
	P50         float64 `json:"p50Ms"`
	P90         float64 `json:"p90Ms"`
	P99         float64 `json:"p99Ms"`
	Max         float64 `json:"maxMs"`
	Answered    int     `json:"answered"`
	TimedOut    int     `json:"timedOut"`
}

type latencyJSON struct {
	P99          float64 `json:"p99Ms"`
	Budget       float64 `json:"budgetMs"`
	SlowestEvent string  `json:"slowestEvent"`
	TimedOut     int     `json:"timedOut"`
}

func (s *summaryReport) AppendJSON(b []byte) []byte {
	sum := s.sum
	j := summaryJSON{Checks: map[string]Tally{}, Failed: sum.Failed(), NotRun: sum.NotRun,
		Stopped: sum.Stopped, Interrupted: sum.Interrupted, Notes: s.notes()}
	for id, t := range sum.Checks {
		if !slices.Contains(sum.NotRun, id) {
			j.Checks[id] = *t
		}
	}
	if sum.Stopped != nil || sum.Interrupted != nil {
		j.Cases = &casesJSON{Run: sum.Done, Total: sum.Total}
	}
	if l := sum.Load; l != nil {
		j.Load = &loadJSON{l.Calls, l.Concurrency, l.PerSecond, attempt.MS(l.P50), attempt.MS(l.P90), attempt.MS(l.P99), attempt.MS(l.Max), l.Answered, l.TimedOut}
	}
	if e := sum.Effects; e != nil {
		j.Effects = effectsOf(e)
	}
	if _, ok := sum.Checks[Latency]; ok && !slices.Contains(sum.NotRun, Latency) {
		j.Latency = &latencyJSON{attempt.MS(sum.P99), attempt.MS(s.budget), sum.Slowest, sum.Timeouts}
	}
	out, _ := json.Marshal(struct {
		Summary summaryJSON `json:"summary"`
	}{j})
	return append(append(b, out...), '\n')
}

func fmtMS(d time.Duration) string {
	return strconv.FormatFloat(attempt.MS(d), 'f', 1, 64) + "ms"
}

// maxInlineBody is the largest body a reproduce command carries inline;
// a larger one is read from its --save-cases file.
const maxInlineBody = 4 << 10

// reproduce is the command that sends the case's request again, ready to
// paste into a POSIX shell: whsim replay of its saved records when there
// are some or when the call was signed (a signature goes stale: replay
// --sign makes it afresh), else curl.
func (r *Reporter) reproduce(cc *caseReport) string {
	cmd := ""
	if cc.file != "" || cc.sent.resign {
		cmd = r.replayCommand(cc)
	} else {
		cmd = r.curlCommand(cc)
	}
	if cc.res.Case.Check == Load {
		cmd += "  # one of the run's calls; load is judged over all of them: whsim check --checks load"
	}
	return cmd
}

// curlCommand is a curl command that sends the case's request again; a
// loop for a call delivered several times, in the background for copies
// delivered at once.
func (r *Reporter) curlCommand(cc *caseReport) string {
	c := cc.res.Case
	var b strings.Builder
	if c.Copies > 1 {
		fmt.Fprintf(&b, "for i in $(seq %d); do ", c.Copies)
	}
	b.WriteString("curl -sS -i -X POST ")
	b.WriteString(shellQuote(attempt.URLFor(r.maskedTarget(), c.Query)))
	// The user's credentials are masked: reports end up in CI logs. The
	// case's own headers (a signature of this one body) are not secrets.
	h := masked(r.Header, r.Header)
	if _, ok := h["Content-Type"]; !ok {
		h["Content-Type"] = []string{"application/json"}
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
	case len(c.Body) > maxInlineBody:
		b.WriteString(" --data-binary @" + bodyFile)
		hint = "  # " + notWritten(bodyFile, len(c.Body))
	default:
		b.WriteString(" --data-binary " + shellQuote(string(c.Body)))
	}
	switch {
	case c.Copies > 1 && c.AtOnce:
		b.WriteString(" & done; wait")
	case c.Copies > 1:
		b.WriteString("; done")
	}
	return termsafe.Lines(b.String() + hint)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
