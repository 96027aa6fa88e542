package cli

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/deliver"
)

// checkReporter renders a check run: text or JSON on stdout as results
// come, a summary at the end, and the JUnit file.
type checkReporter struct {
	out     *bufio.Writer
	json    bool
	pal     Palette
	target  *url.URL
	header  http.Header
	saveDir string
	budget  time.Duration

	results []check.Result
	saved   map[*check.Case]string
	err     error
}

func newCheckReporter(a *app, opts *checkOptions, target *url.URL, header http.Header) *checkReporter {
	return &checkReporter{
		out: bufio.NewWriter(a.streams.Out), json: opts.Output == "json", pal: a.outColor(),
		target: target, header: header, saveDir: opts.SaveCases, budget: opts.LatencyBudget,
		saved: map[*check.Case]string{},
	}
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

func millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// result takes one graded case: it is called by the run, one at a time.
func (r *checkReporter) result(res check.Result) {
	if r.err != nil {
		return
	}
	r.results = append(r.results, res)
	if r.saveDir != "" && res.Case.Check != check.Latency {
		name := filepath.Join(r.saveDir, caseFile(res.Case))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			r.err = fmt.Errorf("--save-cases: %w", err)
			return
		}
		if err := os.WriteFile(name, res.Case.Body, 0o644); err != nil {
			r.err = fmt.Errorf("--save-cases: %w", err)
			return
		}
		r.saved[res.Case] = name
	}
	reason := termSafe(res.Reason, false)
	if r.json {
		b, _ := json.Marshal(checkCaseJSON{
			Check: res.Case.Check, Case: res.Case.Name, Verdict: string(res.Verdict),
			Status: res.Status, LatencyMS: millis(res.Latency), Reason: reason, File: r.saved[res.Case],
		})
		r.out.Write(append(b, '\n'))
		return
	}
	if res.Verdict == check.Pass {
		return
	}
	word := r.pal.Fail.Sprint("FAIL")
	if res.Verdict == check.Warn {
		word = r.pal.Warn.Sprint("WARN")
	}
	fmt.Fprintf(r.out, "%s %s %s: %s\n", word, r.pal.Key.Sprint(res.Case.Check), res.Case.Name, reason)
	r.err = r.out.Flush()
}

// caseFile is where --save-cases writes a case: a folder per check, the
// case's name made a file name.
func caseFile(c *check.Case) string {
	name := strings.NewReplacer("/", "--", "\\", "-", ":", "-", " ", "_").Replace(c.Name)
	return filepath.Join(c.Check, name+".json")
}

// finish prints the summary and the commands that reproduce failures, and
// writes the JUnit report.
func (r *checkReporter) finish(sum *check.Summary, junit io.Writer) error {
	if r.err != nil {
		return r.err
	}
	if r.json {
		r.summaryJSON(sum)
	} else {
		r.summaryText(sum)
	}
	if err := r.out.Flush(); err != nil {
		return err
	}
	if junit != nil {
		if err := r.junit(sum, junit); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	return nil
}

func (r *checkReporter) summaryText(sum *check.Summary) {
	w := r.out
	fmt.Fprintf(w, "\n%-18s %5s %5s %5s\n", "check", "pass", "warn", "fail")
	var failed []string
	warns := 0
	for _, id := range sum.Order {
		t := sum.Checks[id]
		mark := ""
		if t.Fail > 0 {
			mark = "  " + r.pal.Fail.Sprint("FAILED")
			failed = append(failed, id)
		}
		warns += t.Warn
		fmt.Fprintf(w, "%-18s %5d %5d %5d%s\n", id, t.Pass, t.Warn, t.Fail, mark)
	}
	if l := sum.Load; l != nil {
		fmt.Fprintf(w, "\nload: %d calls at concurrency %d, %.0f calls/s, p50 %s p90 %s p99 %s max %s\n",
			l.Calls, l.Concurrency, l.PerSecond, fmtMS(l.P50), fmtMS(l.P90), fmtMS(l.P99), fmtMS(l.Max))
	}
	if sum.Slowest != "" || sum.P99 > 0 {
		fmt.Fprintf(w, "latency: p99 %s (budget %s), slowest event %s\n", fmtMS(sum.P99), r.budget, sum.Slowest)
	}
	first := true
	for _, res := range r.results {
		if res.Verdict != check.Fail || res.Case.Check == check.Latency {
			continue
		}
		if first {
			fmt.Fprintf(w, "\nreproduce a failure:\n")
			first = false
		}
		fmt.Fprintf(w, "  # %s %s\n  %s\n", res.Case.Check, res.Case.Name, r.reproduce(res.Case))
	}
	fmt.Fprintln(w)
	if len(failed) > 0 {
		fmt.Fprintf(w, "%s %d of %d checks failed: %s\n", r.pal.Fail.Sprint("FAIL"), len(failed), len(sum.Order), strings.Join(failed, ", "))
		return
	}
	fmt.Fprintf(w, "%s every check passed (%d warnings)\n", r.pal.OK.Sprint("ok"), warns)
}

func fmtMS(d time.Duration) string {
	return strconv.FormatFloat(millis(d), 'f', 1, 64) + "ms"
}

// maxInlineBody is the largest body a reproduce command carries inline;
// a larger one is read from its --save-cases file.
const maxInlineBody = 4 << 10

// reproduce is a curl command that sends the case's request again, ready
// to paste into a POSIX shell; a loop for a call delivered several times.
func (r *checkReporter) reproduce(c *check.Case) string {
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
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			b.WriteString(" -H " + shellQuote(k+": "+v))
		}
	}
	hint := ""
	switch file, ok := r.saved[c]; {
	case ok:
		b.WriteString(" --data-binary @" + shellQuote(file))
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

func (r *checkReporter) summaryJSON(sum *check.Summary) {
	s := checkSummaryJSON{Checks: map[string]check.Tally{}, Failed: sum.Failed()}
	for id, t := range sum.Checks {
		s.Checks[id] = *t
	}
	if l := sum.Load; l != nil {
		s.Load = &checkLoadJSON{l.Calls, l.Concurrency, l.PerSecond, millis(l.P50), millis(l.P90), millis(l.P99), millis(l.Max)}
	}
	if _, ok := sum.Checks[check.Latency]; ok {
		s.Latency = &checkLatencyJSON{millis(sum.P99), millis(r.budget), sum.Slowest}
	}
	b, _ := json.Marshal(struct {
		Summary checkSummaryJSON `json:"summary"`
	}{s})
	r.out.Write(append(b, '\n'))
}

// junit writes one testcase per case and a testsuite per check.
func (r *checkReporter) junit(sum *check.Summary, w io.Writer) error {
	suites := map[string]*junitSuite{}
	var order []*junitSuite
	for _, id := range sum.Order {
		s := &junitSuite{Name: id}
		suites[id] = s
		order = append(order, s)
	}
	total, failures := 0, 0
	for _, res := range r.results {
		s := suites[res.Case.Check]
		c := junitCase{Name: res.Case.Name, Classname: "whsim.check." + res.Case.Check}
		reason := termSafe(res.Reason, false)
		switch res.Verdict {
		case check.Fail:
			s.Failures++
			failures++
			c.Failure = &junitFailure{Message: reason, Type: string(res.Verdict), Text: r.reproduce(res.Case)}
		case check.Warn:
			c.SystemOut = "warn: " + reason
		}
		s.Tests++
		total++
		s.Cases = append(s.Cases, c)
	}
	bw := bufio.NewWriter(w)
	if _, err := io.WriteString(bw, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	if err := enc.Encode(struct {
		XMLName  xml.Name      `xml:"testsuites"`
		Name     string        `xml:"name,attr"`
		Tests    int           `xml:"tests,attr"`
		Failures int           `xml:"failures,attr"`
		Suites   []*junitSuite `xml:"testsuite"`
	}{Name: "whsim check", Tests: total, Failures: failures, Suites: order}); err != nil {
		return err
	}
	if _, err := io.WriteString(bw, "\n"); err != nil {
		return err
	}
	return bw.Flush()
}
