package htmlreport

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

// Check is the data of a check report. Its cases and summary are the
// check's own --output json values, kept whole, so that what a check adds
// to them (the effects a probe finds) shows without a change here: the page
// lists the members it does not know as they are.
type Check struct {
	Seed   uint64 `json:"seed"`
	Failed bool   `json:"failed"`
	// Interrupted: Ctrl-C ended the run, which proves nothing either way.
	Interrupted bool `json:"interrupted,omitempty"`
	// Incomplete: an error of the run's input (the receiver unreachable,
	// the probe at fault) ended it, exit 2: no verdict on the receiver,
	// as JUnit (an error) and the job summary ("did not complete") say.
	Incomplete bool `json:"incomplete,omitempty"`
	// Headline, when set, says why the run ended early: the receiver
	// stopped answering, or Ctrl-C. It goes before any count of checks.
	Headline string     `json:"headline,omitempty"`
	Checks   []checkRow `json:"checks"`
	// Cases are the cases that did not pass, in the order graded.
	Cases []checkCase `json:"cases"`
	// Passed counts the passing cases of each check, listed by count only.
	Dropped int `json:"dropped,omitempty"`
	// Summary is the {"summary": ...} object of check --output json.
	Summary json.RawMessage `json:"summary,omitempty"`
	// Text is the summary as check prints it.
	Text string `json:"text"`
}

// checkRow is one check's line of the overview.
type checkRow struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
	Pass    int    `json:"pass"`
	Warn    int    `json:"warn"`
	Fail    int    `json:"fail"`
	// Skipped, when set, is why the check could not run: it is no pass
	// however its counts read.
	Skipped string `json:"skipped,omitempty"`
	// Ended, when set, is how the run's early end (Ctrl-C, a receiver that
	// stopped answering) left the check: "cut short" (its counts are of
	// the cases graded before the end) or "not run". Neither is a pass.
	Ended string `json:"ended,omitempty"`
}

// checkCase is one case that warned or failed.
type checkCase struct {
	Check   string `json:"check"`
	Name    string `json:"name"`
	Verdict string `json:"verdict"`
	// Fields is the case's --output json object.
	Fields  json.RawMessage `json:"fields"`
	Request *request        `json:"request,omitempty"`
	// Repro is the command that sends the case again (failures).
	Repro string `json:"repro,omitempty"`
}

// request is a request as the report shows it, credentials masked.
type request struct {
	Method  string      `json:"method"`
	URL     string      `json:"url"`
	Header  [][2]string `json:"header"`
	Body    string      `json:"body"`
	Copies  int         `json:"copies,omitempty"`
	AtOnce  bool        `json:"atOnce,omitempty"`
	Omitted int         `json:"omitted,omitempty"` // body bytes left out
}

// maxBody is the most of a body a report shows.
const maxBody = 64 << 10

// CheckRecorder keeps the request of every case that did not pass, for
// the report: wrap check.Run's callback with Result.
type CheckRecorder struct {
	Target *url.URL
	// Header is the user's headers, masked in the report.
	Header http.Header

	mu   sync.Mutex
	reqs map[[2]string]*request
}

// Result keeps res's request when it did not pass.
func (r *CheckRecorder) Result(res check.Result) {
	// The latency check sends nothing of its own: it judges the others.
	if res.Verdict == check.Pass || res.Case == nil || res.Case.Check == check.Latency {
		return
	}
	c := res.Case
	where := attempt.URLFor(r.Target, c.Query)
	where = termsafe.URLString(where)
	h := http.Header{"Content-Type": {"application/json"}}
	for k, vs := range r.Header {
		for _, v := range vs {
			if termsafe.SecretHeader(k) {
				v = termsafe.Mask(k, v)
			}
			h[k] = append(h[k], v)
		}
	}
	maps.Copy(h, c.Header)
	req := &request{Method: http.MethodPost, URL: where, Copies: c.Copies, AtOnce: c.AtOnce}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			req.Header = append(req.Header, [2]string{k, v})
		}
	}
	body := c.Body
	if len(body) > maxBody {
		req.Omitted = len(body) - maxBody
		body = body[:maxBody]
	}
	req.Body = string(body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reqs == nil {
		r.reqs = map[[2]string]*request{}
	}
	r.reqs[[2]string{c.Check, c.Name}] = req
}

// NewCheck builds a check report from what a run's collector kept and the
// recorder's requests. infos are the checks in run order with what each
// checks; a check the summary names that infos lacks is listed after them.
func NewCheck(col *term.Collector, rec *CheckRecorder, infos []check.Info, seed uint64) *Check {
	// Never null: a run that ended before its first case still draws.
	out := &Check{Seed: seed, Checks: []checkRow{}, Cases: []checkCase{}}
	js, text, _, _ := col.Summary()
	out.Text = text
	var sum struct {
		Summary struct {
			Checks      map[string]check.Tally   `json:"checks"`
			Failed      bool                     `json:"failed"`
			Stopped     *check.Stop              `json:"stopped"`
			Interrupted *check.Stop              `json:"interrupted"`
			Cases       struct{ Run, Total int } `json:"cases"`
			NotRun      []string                 `json:"notRun"`
			CutShort    string                   `json:"cutShort"`
		} `json:"summary"`
	}
	if len(js) > 0 && json.Unmarshal(js, &sum) == nil {
		out.Summary = json.RawMessage(js)
	}
	tallies := map[string]check.Tally{}
	var order []string
	for _, t := range col.Tallies() {
		tallies[t.Suite] = check.Tally{Pass: t.Pass, Warn: t.Warn, Fail: t.Fail}
		order = append(order, t.Suite)
	}
	// The summary's counts are the run's: a check that graded no case is
	// in it too.
	for id, t := range sum.Summary.Checks {
		if _, ok := tallies[id]; !ok {
			order = append(order, id)
		}
		tallies[id] = t
	}
	what := map[string]string{}
	var ids []string
	notRun := sum.Summary.NotRun
	for _, in := range infos {
		what[in.ID] = in.Summary
		if _, ok := tallies[in.ID]; ok || slices.Contains(notRun, in.ID) {
			ids = append(ids, in.ID)
		}
	}
	for _, id := range order {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, id := range notRun {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		t := tallies[id]
		row := checkRow{ID: id, Summary: what[id], Pass: t.Pass, Warn: t.Warn, Fail: t.Fail, Skipped: t.Skipped}
		switch {
		case slices.Contains(notRun, id):
			row.Ended = "not run"
		case id == sum.Summary.CutShort:
			row.Ended = "cut short"
		}
		out.Checks = append(out.Checks, row)
		if t.Fail > 0 {
			out.Failed = true
		}
	}
	out.Failed = out.Failed || sum.Summary.Failed
	// An early end is the verdict: without it a stopped run would read
	// "0 of 1 checks failed" and an interrupted one "every check passed".
	switch st := sum.Summary; {
	case st.Stopped != nil:
		out.Failed = true
		// Worded as the text's verdict line, checks not run counted: the
		// table below shows them, the headline must not read as if every
		// check had its turn.
		out.Headline = fmt.Sprintf("the receiver stopped answering %s: %s; %d of %d %s run, %d %s not run", st.Stopped.Where(), st.Stopped.Reason, st.Cases.Run, st.Cases.Total, term.Plural(st.Cases.Total, "case", "cases"), len(notRun), term.Plural(len(notRun), "check", "checks"))
	case st.Interrupted != nil:
		out.Interrupted = true
		out.Headline = fmt.Sprintf("interrupted after %s: %d of %d %s run", st.Interrupted.After, st.Cases.Run, st.Cases.Total, term.Plural(st.Cases.Total, "case", "cases"))
	case slices.ContainsFunc(out.Checks, func(r checkRow) bool {
		return r.Skipped != "" || tallies[r.ID].Inconclusive > 0
	}):
		// A skipped check, or a case not judged, is no pass: the headline
		// is the verdict line, which names them and what they leave
		// unproved.
		lines := strings.Split(strings.TrimSpace(text), "\n")
		last := lines[len(lines)-1]
		for _, p := range []string{"ok ", "FAIL "} {
			last = strings.TrimPrefix(last, p)
		}
		out.Headline = last
	}
	cases, dropped := col.Cases()
	out.Dropped = dropped
	for _, c := range cases {
		var f struct {
			Check, Case, Verdict string
		}
		_ = json.Unmarshal(c.JSON, &f)
		cc := checkCase{Check: f.Check, Name: f.Case, Verdict: f.Verdict, Fields: json.RawMessage(firstLine(c.JSON))}
		if cc.Check == "" {
			cc.Check, cc.Name = c.Test.Suite, c.Test.Name
		}
		if c.Verdict == term.Fail {
			cc.Repro = c.Test.Detail
		}
		if rec != nil {
			rec.mu.Lock()
			cc.Request = rec.reqs[[2]string{cc.Check, cc.Name}]
			rec.mu.Unlock()
		}
		out.Cases = append(out.Cases, cc)
		if cc.Verdict == string(check.Skip) || cc.Verdict == "skip" {
			for i := range out.Checks {
				if out.Checks[i].ID == cc.Check && out.Checks[i].Skipped == "" {
					out.Checks[i].Skipped = reasonOf(cc.Fields)
				}
			}
		}
	}
	return out
}

// reasonOf is the reason a case's JSON gives, or "skipped".
func reasonOf(fields json.RawMessage) string {
	var f struct{ Reason string }
	if json.Unmarshal(fields, &f) == nil && f.Reason != "" {
		return f.Reason
	}
	return "skipped"
}

// firstLine is the first JSON line of a case's --output json, or null.
func firstLine(b []byte) []byte {
	for i, c := range b {
		if c == '\n' {
			b = b[:i]
			break
		}
	}
	if !json.Valid(b) {
		return []byte("null")
	}
	return b
}
