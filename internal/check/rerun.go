package check

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/jsonerr"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/validate"
)

// Failed is a failed case read back from a check report, to send again.
type Failed struct {
	Check, Name string
	// Want is the answer that fixes it; "" for a case that cannot be sent
	// again alone (load, latency: judged over a whole run).
	Want   string
	Status int // what it got in the run
	URL    string
	Query  string
	Header http.Header
	Body   []byte
	Copies int
	AtOnce bool
	// NewRequestIDs: each copy goes under a requestId of its own.
	NewRequestIDs bool
	Resign        bool
	Reported      string // the reason the run gave
	// File is where --save-cases wrote its records, as the run named it.
	File string
	// Effects is a failed effects document: its calls and the probe.
	Effects *EffectsRecord
}

// MaxCopies is the most times a run delivers one call, in turn or at once:
// a report asking for more was not written by a run, and a rerun refuses it
// rather than open that many calls.
const MaxCopies = DefaultConcurrent

// maxEffectsCalls is the most calls an effects document's sequence holds.
const maxEffectsCalls = 8

// MaxRerunCases bounds the failed cases a report may ask to send again
// alone: a run's battery has under a hundred (the load documents of
// effects, up to MaxLoadCount, are judged over a run and never sent
// alone, so they are not counted). A report with more was not written by
// a run, and a rerun refuses it rather than send that many calls.
const MaxRerunCases = 1000

// MaxReport bounds a report --rerun reads: a run's failures with their
// bodies are a few megabytes; a file past this is not a report.
const MaxReport = 256 << 20

// ReportLineError says which line of a report is not what check
// --output json writes.
type ReportLineError struct {
	Line int
	// Column is where in the line it is not JSON, 0 when that is not
	// what is wrong with it.
	Column int
	Err    error
}

func (e *ReportLineError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("line %d, column %d: %v", e.Line, e.Column, e.Err)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}
func (e *ReportLineError) Unwrap() error { return e.Err }

// errNotReport says a file holds no check case at all.
var errNotReport = errors.New("no check case in it: want the output of whsim check --output json, or a --save-cases directory")

// maxReportLine bounds one line of a report: a case of a large body.
const maxReportLine = 64 << 20

// errReportSize is a report past MaxReport.
var errReportSize = fmt.Errorf("over %d MiB: not a report check wrote", MaxReport>>20)

// capped reads at most n bytes, then says so (errReportSize).
type capped struct {
	r io.Reader
	n int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.n <= 0 {
		// At the bound: a report that ends here is whole.
		var one [1]byte
		if n, err := c.r.Read(one[:]); n == 0 && err != nil {
			return 0, err
		}
		return 0, errReportSize
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.n -= int64(n)
	return n, err
}

// ReadFailed reads a check report (the JSON lines of check --output json,
// or a --save-cases directory's ResultsFile) and returns its failed cases
// in report order. The summary line, and any line that names no case, is
// skipped; a file without one case is ErrNotReport.
func ReadFailed(r io.Reader) ([]Failed, error) {
	out, _, err := readFailed(r, MaxReport)
	return out, err
}

// ReportEnd is how a report's run ended, as its summary says: the check
// it was cut short in and the checks it never ran (it stopped, its
// receiver gone, or was interrupted). A rerun of its failed cases says
// nothing of them.
type ReportEnd struct {
	CutShort string
	NotRun   []string
	// NoSummary: the report has no summary line, which check writes last
	// on every end it makes (--output json, --save-cases' ResultsFile):
	// its run did not end (whsim was killed), the file was cut short, or
	// a whsim from before the summary line wrote it; which checks it ran
	// is unknown.
	NoSummary bool
}

// Untested says the report's run left some check unrun, wholly or in
// part, or may have.
func (e ReportEnd) Untested() bool { return e.NoSummary || e.CutShort != "" || len(e.NotRun) > 0 }

// ReadReport is ReadFailed, and how the report's run ended.
func ReadReport(r io.Reader) (failed []Failed, end ReportEnd, err error) {
	return readFailed(r, MaxReport)
}

func readFailed(r io.Reader, limit int64) ([]Failed, ReportEnd, error) {
	// A report is input: bounded, and every count in it bounded as a run's.
	sc := bufio.NewScanner(&capped{r: r, n: limit})
	sc.Buffer(make([]byte, 0, 64<<10), maxReportLine)
	var out []Failed
	end := ReportEnd{NoSummary: true}
	cases, n, sending := 0, 0, 0
	seen := map[[2]string]int{}  // check and case -> the line that named it
	failedOf := map[string]int{} // check -> its case lines that failed
	var counted map[string]Tally // the summary's count of each check's cases
	summaryLine := 0
	var v *validate.Validator // made for the first case with a call
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var j struct {
			CaseRecord
			Summary json.RawMessage `json:"summary"`
			// Rerun is what check --rerun's own output has for a verdict.
			Rerun *string `json:"rerun"`
		}
		if err := json.Unmarshal(line, &j); err != nil {
			err = jsonerr.Placed(err, line)
			if offset, msg, ok := jsonerr.Syntax(err); ok {
				return nil, ReportEnd{}, &ReportLineError{Line: n, Column: input.ColumnAt(line, int(offset)), Err: errors.New(msg)}
			}
			return nil, ReportEnd{}, &ReportLineError{Line: n, Err: errors.New(jsonerr.Describe(err, "the line"))}
		}
		if err := keysTwice(line); err != nil {
			return nil, ReportEnd{}, &ReportLineError{Line: n, Err: err}
		}
		if err := bodiesMissing(line); err != nil {
			return nil, ReportEnd{}, &ReportLineError{Line: n, Err: err}
		}
		// encoding/json reads a byte that is not UTF-8 as U+FFFD without a
		// word: a rerun would send bytes the report does not hold.
		if at := capture.InvalidUTF8(line); at >= 0 {
			return nil, ReportEnd{}, &ReportLineError{Line: n, Column: input.ColumnAt(line, at+1), Err: errors.New("not valid UTF-8 (check writes a body that is not UTF-8 in base64; read as it is, it would become U+FFFD, not the bytes the run sent)")}
		}
		// The summary and any other line that names no case (what a
		// later version may add) are not cases to rerun.
		if j.Summary != nil {
			var sum struct {
				NotRun   []string         `json:"notRun"`
				CutShort string           `json:"cutShort"`
				Checks   map[string]Tally `json:"checks"`
			}
			if err := json.Unmarshal(j.Summary, &sum); err != nil {
				return nil, ReportEnd{}, &ReportLineError{Line: n, Err: errors.New(jsonerr.Describe(jsonerr.Placed(err, j.Summary), "the summary"))}
			}
			for i, id := range sum.NotRun {
				// Names from an untrusted file: only a check's own, each
				// once, as a run writes them (they are said whole).
				switch {
				case !slices.Contains(IDs(), id):
					return nil, ReportEnd{}, &ReportLineError{Line: n, Err: fmt.Errorf("summary: notRun names %q, which is no check", id)}
				case slices.Contains(sum.NotRun[:i], id):
					return nil, ReportEnd{}, &ReportLineError{Line: n, Err: fmt.Errorf("summary: notRun names %q twice: a run names each check once", id)}
				case id == sum.CutShort:
					return nil, ReportEnd{}, &ReportLineError{Line: n, Err: fmt.Errorf("summary: %q is both cutShort and notRun: a run that cut a check short ran it", id)}
				}
			}
			if sum.CutShort != "" && !slices.Contains(IDs(), sum.CutShort) {
				return nil, ReportEnd{}, &ReportLineError{Line: n, Err: fmt.Errorf("summary: cutShort names %q, which is no check", sum.CutShort)}
			}
			end = ReportEnd{CutShort: sum.CutShort, NotRun: sum.NotRun}
			counted, summaryLine = sum.Checks, n
			continue
		}
		if j.Check == "" || j.Case == "" {
			continue
		}
		// A case line says how it was judged: one without a verdict is no
		// line of check's, and skipped as "not failed" it would make a
		// report of failures read as nothing to rerun, exit 0.
		switch Verdict(j.Verdict) {
		case Pass, Warn, Fail, Skip:
		default:
			if j.Rerun != nil && j.Verdict == "" {
				return nil, ReportEnd{}, &ReportLineError{Line: n, Err: fmt.Errorf("a line of check --rerun's output (\"rerun\":%q), not of check --output json: rerun the report its run wrote", *j.Rerun)}
			}
			if j.Verdict == "" {
				return nil, ReportEnd{}, &ReportLineError{Line: n, Err: fmt.Errorf("%s %s: no verdict: want pass, warn, fail or skipped", termsafe.Text(j.Check), termsafe.Text(j.Case))}
			}
			return nil, ReportEnd{}, &ReportLineError{Line: n, Err: fmt.Errorf("%s %s: verdict %q: want pass, warn, fail or skipped", termsafe.Text(j.Check), termsafe.Text(j.Case), j.Verdict)}
		}
		// A run writes the status its case got: 0 for no answer, else
		// the three digits attempt takes (100 to 999). Another is a line
		// edited, and a rerun would say "was -1".
		if j.Status != 0 && (j.Status < 100 || j.Status > 999) {
			return nil, ReportEnd{}, &ReportLineError{Line: n, Err: fmt.Errorf("%s %s: status %d: a run writes 0 (no answer) or the HTTP status it got, 100 to 999", termsafe.Text(j.Check), termsafe.Text(j.Case), j.Status)}
		}
		cases++
		// A run reports each case once: an edited report that names one
		// again would have it sent again, as many times as it is named.
		id := [2]string{j.Check, j.Case}
		if first, ok := seen[id]; ok {
			return nil, ReportEnd{}, &ReportLineError{Line: n, Err: fmt.Errorf("%s %s is on line %d already: a run reports each case once", j.Check, j.Case, first)}
		}
		seen[id] = n
		if j.Verdict != string(Fail) {
			continue
		}
		failedOf[j.Check]++
		if j.Request != nil || j.Effects != nil && !j.Effects.Load {
			if sending++; sending > MaxRerunCases {
				return nil, ReportEnd{}, &ReportLineError{Line: n, Err: fmt.Errorf("more than %d failed cases to send again: a run has fewer", MaxRerunCases)}
			}
		}
		f := Failed{Check: j.Check, Name: j.Case, Want: j.Want, Status: j.Status, Reported: j.Reason, File: j.File, Effects: j.Effects}
		if err := checkBounds(&f, j.Request); err != nil {
			col := 0
			if ce := (*callQueryError)(nil); errors.As(err, &ce) {
				if at := valueOffset(line, "effects", "calls", strconv.Itoa(ce.call), "query"); at >= 0 {
					col = input.ColumnAt(line, at+1)
				}
			}
			return nil, ReportEnd{}, &ReportLineError{Line: n, Column: col, Err: fmt.Errorf("%s %s: %w", termsafe.Text(j.Check), termsafe.Text(j.Case), err)}
		}
		if q := j.Request; q != nil {
			if err := queryEndsURL(q.URL, q.Query); err != nil {
				col := 0
				if at := valueOffset(line, "request", "query"); at >= 0 {
					col = input.ColumnAt(line, at+1)
				}
				return nil, ReportEnd{}, &ReportLineError{Line: n, Column: col, Err: fmt.Errorf("%s %s: %w", termsafe.Text(j.Check), termsafe.Text(j.Case), err)}
			}
			body, err := capture.DecodeBody(q.Body, q.BodyEncoding)
			if err != nil {
				return nil, ReportEnd{}, &ReportLineError{Line: n, Err: fmt.Errorf("request body: %v", err)}
			}
			f.URL, f.Query, f.Header, f.Body = q.URL, q.Query, q.Headers, body
			f.Copies, f.AtOnce, f.Resign, f.NewRequestIDs = q.Copies, q.AtOnce, q.Resign, q.NewRequestIDs
			if v == nil {
				if v, err = validate.New(validate.Options{}); err != nil {
					return nil, ReportEnd{}, err
				}
			}
			if err := validCallOf(v, &f); err != nil {
				return nil, ReportEnd{}, &ReportLineError{Line: n, Err: fmt.Errorf("%s %s: %w", j.Check, j.Case, err)}
			}
		} else {
			f.Want = "" // no request to send
		}
		out = append(out, f)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, errReportSize) {
			return nil, ReportEnd{}, err
		}
		if errors.Is(err, bufio.ErrTooLong) {
			// Said in bufio's words ("bufio.Scanner: token too long"),
			// it named no bound and no reason (/dev/zero on stdin).
			return nil, ReportEnd{}, &ReportLineError{Line: n + 1, Err: fmt.Errorf("longer than %d MiB without a line break, more than any line check writes", maxReportLine>>20)}
		}
		// At its line, as every other bad line is (the command places it
		// file:line:, as it places those).
		return nil, ReportEnd{}, &ReportLineError{Line: n + 1, Err: err}
	}
	if cases == 0 {
		return nil, ReportEnd{}, errNotReport
	}
	if err := failedAsCounted(failedOf, counted); err != nil {
		return nil, ReportEnd{}, &ReportLineError{Line: summaryLine, Err: err}
	}
	if len(out) > 0 {
		unknown, err := UnknownCases(out)
		if err != nil {
			return nil, ReportEnd{}, err
		}
		if len(unknown) > 0 {
			return nil, ReportEnd{}, &UnknownCasesError{Cases: unknown}
		}
	}
	return out, end, nil
}

// validCallOf refuses a case of a check every call of which is one the
// ERP may send (accepts-valid, duplicates) whose call is none: a malformed
// call moved there with the check's want read FIXED when a receiver that
// still takes anything answered it 2xx ("all 8 failed cases are fixed",
// exit 0, of a report whose failed cases were edited into accepts-valid).
//
// The other way round, rejects-malformed and event-contradicts-body send
// only calls validate fails (a run keeps a malformed case only then): a
// valid call moved there read FIXED when a receiver that refuses
// everything answered it 4xx. Their call without a query event is
// rejects-malformed's no-businessType-query, whatever its body.
func validCallOf(v *validate.Validator, f *Failed) error {
	valid := f.Check == acceptsValid || f.Check == duplicates
	if !valid && f.Check != rejectsMalformed && f.Check != eventVsBody {
		return nil
	}
	q, err := url.ParseQuery(f.Query)
	e, ok := spec.Lookup(q.Get(spec.QueryParam))
	switch {
	case (err != nil || !ok) && valid:
		return fmt.Errorf("its query %q names no event, as every call of %s does", f.Query, f.Check)
	case err != nil || !ok:
		return nil
	}
	var first *validate.Finding
	fs := v.Check(f.Body, e.Name)
	for i := range fs {
		if fs[i].Severity == validate.Error {
			first = &fs[i]
			break
		}
	}
	switch {
	case valid && first != nil:
		return fmt.Errorf("its body is no call the ERP sends (%s %s: %s), and every call of %s is one", first.Rule, first.Where(), termsafe.Text(first.Message), f.Check)
	case !valid && first == nil:
		return fmt.Errorf("its call is one the ERP sends, and every call of %s is one a receiver must refuse", f.Check)
	}
	return nil
}

// checkBounds refuses what no run writes: more copies of a call than a run
// delivers, an effects sequence longer than a run's, a body that does not
// decode. The limits are those of a live run.
func checkBounds(f *Failed, q *RequestRecord) error {
	if q != nil {
		// The answer that fixes a case is its check's (wantOf, as a run
		// writes it), not what the line says: a want turned to what the
		// receiver answers made a still broken receiver read FIXED.
		// A signature case's resign is its name's (a report whose resign
		// and want were both flipped had a tampered case signed afresh,
		// correctly, and FIXED by a receiver that verifies nothing).
		if valid := validSignatureCase(f.Name); f.Check == signature && q.Resign != valid {
			if valid {
				return fmt.Errorf(`"resign": false, but a run signs %s with the run's secret, to be signed afresh`, f.Name)
			}
			return fmt.Errorf(`"resign": true, but a run sends %s with a signature no receiver may accept, never signed afresh`, termsafe.Text(f.Name))
		}
		// A check this whsim does not know is refused once the report is
		// read (UnknownCases), whatever its want: no rerun judges by it.
		if w := wantOf(f.Check, q.Resign); f.Want != w && slices.Contains(IDs(), f.Check) {
			if w == "" {
				return fmt.Errorf("want %q, but a run judges %s over the whole run, not by one answer", f.Want, f.Check)
			}
			return fmt.Errorf("want %q, but a run of %s wants %s of it", f.Want, f.Check, w)
		}
		if err := copiesOK(q.Copies, q.AtOnce); err != nil {
			return err
		}
		if err := sendable(q.Query, q.Headers); err != nil {
			return err
		}
	}
	e := f.Effects
	if e == nil {
		return nil
	}
	if len(e.Calls) == 0 || len(e.Calls) > maxEffectsCalls {
		return fmt.Errorf("effects: %d calls: a run sends 1 to %d for one document", len(e.Calls), maxEffectsCalls)
	}
	if e.Kind != "invoice" && e.Kind != "receipt" {
		return fmt.Errorf("effects: kind %q: want invoice or receipt", e.Kind)
	}
	if e.Code == "" {
		return errors.New("effects: no document number (code)")
	}
	// A rerun gives the numbers to the user's --probe-cmd, whose probes
	// paste them into SQL quotes or a shell word: only what a run writes.
	for _, n := range [...]struct{ name, v string }{{"code", e.Code}, {"invoiceCode", e.InvoiceCode}} {
		if !runNumber(n.v) {
			return fmt.Errorf("effects: %s %q: a run writes A-Z, 0-9 and - alone, and a rerun gives it to the probe", n.name, termsafe.Text(n.v))
		}
	}
	for i, c := range e.Calls {
		if err := copiesOK(c.Copies, c.AtOnce); err != nil {
			return fmt.Errorf("effects call %d: %w", i+1, err)
		}
		if err := sendable(c.Query, c.Headers); err != nil {
			return fmt.Errorf("effects call %d: %w", i+1, err)
		}
		if _, err := capture.DecodeBody(c.Body, c.BodyEncoding); err != nil {
			return fmt.Errorf("effects call %d: body: %v", i+1, err)
		}
		if e.Load {
			continue // a load document's calls are not sent again
		}
		if err := queryNamesEvent(c.Query, c.Event); err != nil {
			return &callQueryError{call: i, err: fmt.Errorf("effects call %d: %w", i+1, err)}
		}
	}
	return nil
}

// runNumber reports whether s is a document number as a run writes one
// (CGFP-8261FQ-0463, an invoice number 79620323), or "": A-Z, 0-9 and -,
// not first.
func runNumber(s string) bool {
	if strings.HasPrefix(s, "-") {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// sendable refuses a query or headers no run sends and no HTTP request
// carries (a space or line break in the query, a header name that is no
// token, a value with a control character): sent, they fail as the
// receiver's "still failing" when the report is what is wrong.
func sendable(query string, h http.Header) error {
	if strings.ContainsFunc(query, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return fmt.Errorf("query %q: a space or control character, which no run sends", query)
	}
	for k, vs := range h {
		if k == "" || strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) }) {
			return fmt.Errorf("header %q: not a header name", k)
		}
		for _, v := range vs {
			if strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
				return fmt.Errorf("header %s: a value no HTTP request carries (a control character)", k)
			}
		}
	}
	return nil
}

func copiesOK(n int, atOnce bool) error {
	if n < 0 || n > MaxCopies {
		how := "in turn"
		if atOnce {
			how = "at once"
		}
		return fmt.Errorf("copies %d %s: a run delivers one call at most %d times", n, how, MaxCopies)
	}
	return nil
}

// callQueryError is an effects call's query refused (queryNamesEvent):
// said at its place in the line, effects.calls[call].query.
type callQueryError struct {
	call int
	err  error
}

func (e *callQueryError) Error() string { return e.err.Error() }

func (e *callQueryError) Unwrap() error { return e.err }

// queryNamesEvent refuses an effects call whose query does not name its
// event once, as a run writes them (docCase: the query is the event's):
// a line edited so was sent by its query while the rerun said, probed
// and judged it by its event, as a call it never sent.
func queryNamesEvent(query, event string) error {
	if event == "" {
		return errors.New(`no "event": a run writes the event each call sends`)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return fmt.Errorf("query %q: %v", query, err)
	}
	switch named := q[spec.QueryParam]; {
	case len(named) == 0:
		return fmt.Errorf("query %q names no event (%s), as every call a run sends does", query, spec.QueryParam)
	case len(named) > 1:
		return fmt.Errorf("query %q names the event %d times: a run names it once", query, len(named))
	case named[0] != event:
		return fmt.Errorf("query %q names event %s, but the call's event is %s: a run writes the event it sends in both, so which to send is unknown",
			query, termsafe.Text(named[0]), termsafe.Text(event))
	}
	return nil
}

// queryEndsURL refuses a request whose url does not end in its query, as
// a run writes them (attempt.URLFor: the target's own query, then the
// case's): a line edited so, and which of the two the run sent is
// unknown. A rerun sends the query, to --url or to the url less it
// (RunURL), so the url's was dropped without a word. A request without a
// url or a query has nothing to compare.
func queryEndsURL(u, query string) error {
	if u == "" || query == "" || strings.HasSuffix(u, "?"+query) || strings.HasSuffix(u, "&"+query) {
		return nil
	}
	return fmt.Errorf("request.query %q is not the end of its url %q, as a run writes them: which query to send is unknown", query, u)
}

// RunURL is the one receiver URL a report's cases were sent to (without
// their queries): a rerun sends there and nowhere else. Cases that name
// different URLs are an error: a run has one URL, so such a report was
// edited, and a case must not carry the user's credentials elsewhere.
func RunURL(cases []Failed) (string, error) {
	run, from := "", ""
	for _, c := range cases {
		if c.URL == "" {
			continue
		}
		u := c.URL
		if c.Query != "" {
			cut, ok := strings.CutSuffix(u, "?"+c.Query)
			if !ok {
				cut, ok = strings.CutSuffix(u, "&"+c.Query)
			}
			if !ok {
				return "", fmt.Errorf("%s %s: its url %s does not end in its query %s", c.Check, c.Name, u, c.Query)
			}
			u = cut
		}
		switch {
		case run == "":
			run, from = u, c.Check+" "+c.Name
		case u != run:
			return "", fmt.Errorf("%s %s is for %s, but %s is for %s: a run has one URL, refusing to send anywhere (give --url to choose)", c.Check, c.Name, u, from, run)
		}
	}
	if run == "" {
		return "", errors.New("no case names the URL it was sent to: give --url")
	}
	return run, nil
}

// RerunConfig is how a rerun sends.
type RerunConfig struct {
	Client *http.Client
	// Target is where every case goes (its query kept): --url, or the
	// report's one run URL (RunURL) once the user has been shown it.
	Target *url.URL
	// Header replaces the cases' headers of the same names: credentials,
	// which a report holds masked.
	Header http.Header
	// Signer signs the cases that carried the run's signature afresh.
	Signer *sign.Signer
	Now    func() time.Time
	// IDs, when set, gives each case a fresh requestId (its copies share
	// it), so that a receiver that keeps its data does not take the rerun
	// for the run's calls again. A signature case whose headers are wrong
	// on purpose keeps its bytes.
	IDs *reqid.IDs
	// Probe asks about the effects documents sent again, until they match
	// or Settle runs out; nil leaves them NOT RERUN, saying what is missing.
	Probe  probe.Probe
	Settle time.Duration
	// copyHeld, when set (by tests), holds copies sent at once before
	// they go out, as Config.copyHeld does a run's.
	copyHeld func(i int, ended func(j int) <-chan struct{})
	// Again is the command line that runs a check again (with the URL, the
	// probe and a secret placeholder), for the cases a rerun cannot send
	// alone: "whsim check --url ... --checks ".
	Again string
}

// Rerun outcomes.
const (
	Fixed        = "fixed"
	StillFailing = "still-failing"
	NotRerun     = "not-rerun"
)

// RerunResult is what became of one failed case sent again.
type RerunResult struct {
	Case    Failed
	Outcome string
	Status  int
	// Latency is the latency of the delivery Status is of, as a Result's.
	Latency time.Duration
	// Took is what sending the case again took, every copy and the probe
	// included, and Ended when it was judged: its JUnit case's time (0 and
	// zero for a case not rerun), as a Result's.
	Took   time.Duration
	Ended  time.Time
	Reason string
	// Answer is the receiver's answer the outcome rests on, as a Result's
	// (its status line and the start of its body), nil when it did not
	// answer or the outcome rests on its store (the probe): a STILL
	// FAILING reason shows it, as a run's failing reasons do.
	Answer *Reply
	// unreachable is set when no delivery of the case got an answer for
	// a reason that says the receiver is not there at all (refused, DNS,
	// TLS): on a rerun's first call, that is no verdict on the case.
	unreachable *UnreachableError
	// answers are where its answers were read: bytes no call asked for
	// after one keep it failing, and ones after another call's answer on
	// a connection it used make it no verdict (heldReruns).
	answers []answerOn
}

// heldReruns holds a rerun's results until every connection their
// answers came on is closed, or the rerun ends (a last look at each),
// as a run holds its results (runner.drain): one whose answer bytes no
// call asked for followed is STILL FAILING, saying so, never FIXED; one
// whose answer came on a connection where they followed another call's
// is NOT RERUN, its answer possibly another call's, never FIXED nor
// STILL FAILING on it.
type heldReruns struct {
	held []RerunResult
	out  func(RerunResult)
}

func (h *heldReruns) put(res RerunResult) {
	h.held = append(h.held, res)
	h.drain(false)
}

func (h *heldReruns) drain(end bool) {
	drainHeld(&h.held, end, func(res RerunResult) []answerOn { return res.answers }, func(res RerunResult, s stray) {
		switch {
		case s.after != "":
			// Fixed only when its answer is right and nothing followed it.
			res.Outcome, res.Reason = StillFailing, s.after
		case s.on != "":
			res.Outcome = NotRerun
			res.Reason += ": inconclusive, on the kept-alive connection it came on " + s.on
		}
		h.out(res)
	})
}

// FirstSigned is the first case a rerun would have to sign afresh with
// the run's secret: one judged on a signed call, or an effects case whose
// calls were signed when a probe is there to judge it (withProbe).
func FirstSigned(cases []Failed, withProbe bool) (Failed, bool) {
	for _, c := range cases {
		if c.Resign && c.Want != "" {
			return c, true
		}
		if e := c.Effects; e != nil && !e.Load && withProbe && slices.ContainsFunc(e.Calls, func(c EffectsCall) bool { return c.Resign }) {
			return c, true
		}
	}
	return Failed{}, false
}

// Rerun sends each failed case again, as the run sent it (every copy, at
// once when it was), and says whether it is fixed: every answer is what
// the case's check wants. A case that needs the run's secret and has no
// signer is an error before anything is sent.
func Rerun(ctx context.Context, cfg RerunConfig, cases []Failed, out func(RerunResult)) error {
	if cfg.Target == nil {
		return errors.New("rerun: no URL to send to")
	}
	if c, ok := FirstSigned(cases, cfg.Probe != nil); ok && cfg.Signer == nil {
		return fmt.Errorf("%s %s was signed with the run's secret: give it (--secret) to sign it afresh", c.Check, c.Name)
	}
	// As a run does, before the first call: a probe that does not answer
	// count 0 for a document never sent would read every document FIXED.
	if i := slices.IndexFunc(cases, func(c Failed) bool { return c.Effects != nil && !c.Effects.Load }); i >= 0 && cfg.Probe != nil {
		if err := probe.AskNeverSent(ctx, cfg.Probe, neverSent(cases[i].Effects, cfg.IDs)); err != nil {
			return err
		}
	}
	sent := false // a case went out and got an answer or a verdict
	h := &heldReruns{out: out}
	defer h.drain(true)
	out = h.put
	for _, c := range cases {
		if err := ctx.Err(); err != nil {
			return err
		}
		var res RerunResult
		var err error
		began := time.Now()
		switch e := c.Effects; {
		case (e == nil && c.Check == Effects || e != nil && e.Load) && cfg.Probe == nil:
			// No command without a probe: it would exit 2 as printed.
			out(RerunResult{Case: c, Outcome: NotRerun,
				Reason: "judged by what the receiver stored: run whsim check --checks load,effects again with the run's --url and its --probe or --probe-cmd"})
			continue
		case e == nil && c.Check == Effects:
			// A report that keeps no calls of the document (an older one).
			out(RerunResult{Case: c, Outcome: NotRerun,
				Reason: "the report keeps no calls of this document: run " + cfg.Again + "effects"})
			continue
		case e != nil && e.Load:
			out(RerunResult{Case: c, Outcome: NotRerun,
				Reason: "judged over every document of the load check, not one: run " + cfg.Again + "load,effects"})
			continue
		case e != nil && cfg.Probe == nil:
			out(RerunResult{Case: c, Outcome: NotRerun,
				Reason: "judged by what the receiver stored: give the probe (--probe or --probe-cmd) to send it again and ask"})
			continue
		case e != nil:
			res, err = rerunEffects(ctx, cfg, c)
		case c.Want == "" && !slices.Contains(IDs(), c.Check):
			// A name from the report, which may have been edited: pasted
			// into the command, "load; touch pwned" ran touch.
			out(RerunResult{Case: c, Outcome: NotRerun,
				Reason: "the report keeps no call of it, and no check of this whsim has its name: run " + strings.TrimSuffix(cfg.Again, " --checks ")})
			continue
		case c.Want == "":
			out(RerunResult{Case: c, Outcome: NotRerun,
				Reason: "judged over a whole run, not one call: run " + cfg.Again + c.Check})
			continue
		default:
			res, err = rerunOne(ctx, cfg, c)
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", c.Check, c.Name, err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// As check itself: a receiver that is not there is exit 2 with one
		// line, not every case "still failing" with connection refused.
		if !sent && res.unreachable != nil {
			return res.unreachable
		}
		sent = true
		res.Ended = time.Now()
		res.Took = res.Ended.Sub(began)
		out(res)
	}
	return nil
}

func rerunOne(ctx context.Context, cfg RerunConfig, c Failed) (RerunResult, error) {
	d := &attempt.Deliverer{Client: cfg.Client, Now: cfg.Now, Target: cfg.Target, KeepBody: true, Credentials: credentialsOf(cfg.Header, cfg.Signer)}
	query := c.Query
	h := capture.ReplayHeaders(c.Header)
	for k, v := range cfg.Header {
		h[k] = v
	}
	req := &attempt.Request{Event: c.Check, Method: http.MethodPost, Query: query, Header: h, Body: c.Body}
	fresh := cfg.IDs != nil && (c.Check != signature || c.Resign)
	if start, end := reqid.Find(c.Body); start >= 0 {
		req.RequestID = string(c.Body[start:end])
		if fresh {
			req.RequestID = cfg.IDs.Next()
			req.Body = reqid.Splice(c.Body, start, end, req.RequestID)
		}
	}
	if k, ok := unseenDocument(c.Check, c.Name, c.Query); ok && cfg.IDs != nil {
		seed := sha256.Sum256([]byte(cfg.IDs.Next()))
		req.Body = renumbered(req.Body, k, seed[:])
	}
	if c.Resign {
		d.Signer = cfg.Signer
		req.WebhookID = req.ReplayWebhookID(fresh)
	}
	n := max(c.Copies, 1)
	copyOf := copiesOf(req, c.NewRequestIDs, c.Resign, cfg.IDs)
	results, together := deliverCopies(ctx, d, copyOf, n, c.AtOnce, cfg.copyHeld)
	res := RerunResult{Case: c, Outcome: Fixed}
	for _, r := range results {
		res.answers = appendAnswers(res.answers, r)
	}
	if a := results[0].Last(); a.Status == 0 && (a.Kind == attempt.KindRefused || a.Kind == attempt.KindDNS || a.Kind == attempt.KindTLS) {
		res.unreachable = &UnreachableError{URL: termsafe.URL(d.Target), Kind: attempt.FailureText(a)}
		for _, r := range results[1:] {
			if r.Last().Status != 0 {
				res.unreachable = nil
			}
		}
	}
	for i, r := range results {
		a := r.Last()
		if i == 0 || res.Outcome == Fixed {
			res.Status, res.Latency = a.Status, a.Latency
			res.Reason, res.Answer = answer(a), replyOf(a)
		}
		if res.Outcome == Fixed && !wants(c.Want, a.Status) {
			res.Outcome = StillFailing
			res.Reason, res.Answer = answer(a)+", want "+c.Want, replyOf(a)
			if n > 1 {
				res.Reason = fmt.Sprintf("delivery %d of %d %s", i+1, n, res.Reason)
			}
		}
	}
	if masked := MaskedCredential(d.Target, query, h); masked != "" {
		for _, r := range results {
			if a := r.Last(); is4xx(a.Status) {
				return notRerunMasked(res, a, masked), nil
			}
		}
	}
	if res.Outcome == Fixed && c.AtOnce && n > 1 && together < 2 {
		return notRerunTogether(res, n), nil
	}
	return res, nil
}

// notRerunMasked is the outcome of a case sent with a credential as the
// report masks it whose answer a was a 4xx: the receiver may have refused
// the mask, not the call, so the answer says nothing of the case either
// way. Judged as any other, a receiver that checks its token answered
// 401 to every malformed call, and each read FIXED, exit 0, while it took
// the same calls with the real token as before.
func notRerunMasked(res RerunResult, a attempt.Attempt, masked string) RerunResult {
	res.Outcome = NotRerun
	res.Status, res.Latency, res.Answer = a.Status, a.Latency, replyOf(a)
	res.Reason = answer(a) + " to a call carrying " + masked + " as the report masks it (a report keeps no credential): the receiver may have refused the mask, not the call; give it again (--url, with -H for a header)"
	return res
}

// MaskedCredential names the first credential a call to target with
// query and headers h carries as a report masks it, "" for none: a header
// whose value holds "****" ("Authorization"), the URL's password, xxxxx,
// when no Authorization header replaces it ("the URL's password"), its
// user without a password, ****, likewise ("the URL's user": a token
// sent as Basic auth "TOKEN:"), a credential query parameter of value
// **** ("the query's token"). A
// report keeps no credential, and its masks go out as they stand unless
// -H or --url gives them again.
func MaskedCredential(target *url.URL, query string, h http.Header) string {
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if termsafe.SecretHeader(k) && slices.ContainsFunc(h[k], func(v string) bool { return strings.Contains(v, "****") }) {
			return k
		}
	}
	if target == nil {
		return ""
	}
	if target.User != nil && len(h.Values("Authorization")) == 0 {
		switch pw, ok := target.User.Password(); {
		case ok && pw == "xxxxx":
			return "the URL's password"
		case !ok && target.User.Username() == termsafe.UserMask:
			return "the URL's user"
		}
	}
	for _, raw := range []string{target.RawQuery, query} {
		for raw != "" {
			var p string
			p, raw, _ = strings.Cut(raw, "&")
			if k, v, ok := strings.Cut(p, "="); ok && v == "****" && termsafe.SecretParam(k, v) {
				return "the query's " + termsafe.QueryKey(k)
			}
		}
	}
	return ""
}

// copiesOf gives the i-th copy of req: for a case sent under new
// requestIds, from the second on the same bytes under a requestId of its
// own (signed under its own webhook-id when resigned); else req itself.
func copiesOf(req *attempt.Request, newIDs, resign bool, ids *reqid.IDs) func(i int) *attempt.Request {
	return func(i int) *attempt.Request {
		start, end := reqid.Find(req.Body)
		if !newIDs || i == 0 || start < 0 {
			return req
		}
		one := *req
		one.RequestID = reqid.Salted(req.RequestID, uint64(i))
		if ids != nil {
			one.RequestID = ids.Next()
		}
		one.Body = reqid.Splice(req.Body, start, end, one.RequestID)
		if resign {
			one.WebhookID = one.ReplayWebhookID(true)
		}
		return &one
	}
}

// deliverCopies delivers req n times (n is at most MaxCopies: ReadFailed
// refuses more), together when atOnce: every copy waits for the others, so
// they reach the receiver together, as the run's burst did. together is
// the most copies in flight at one moment (counted as each delivery begins
// and ends, as burst counts them): below 2 for copies sent at once, the
// race they stand for was not tried.
// held is RerunConfig.copyHeld.
func deliverCopies(ctx context.Context, d *attempt.Deliverer, copyOf func(i int) *attempt.Request, n int, atOnce bool, held func(i int, ended func(j int) <-chan struct{})) (results []*attempt.Result, together int) {
	results = make([]*attempt.Result, n)
	if !atOnce {
		for i := range n {
			results[i] = d.Deliver(ctx, copyOf(i))
		}
		return results, 1
	}
	copies := make([]attempt.Request, n)
	for i := range n {
		copies[i] = *copyOf(i)
	}
	together = sendAtOnce(n, held, func(i int) { results[i] = d.Deliver(ctx, &copies[i]) })
	return results, together
}

// notRerunTogether is the outcome of a case whose copies, sent at once,
// would have made it fixed but of which no two were in flight together:
// the race was not tried, so it is no fix.
func notRerunTogether(res RerunResult, n int) RerunResult {
	res.Outcome = NotRerun
	res.Reason = notTogether(n)
	return res
}

// wants says whether status is the answer want names.
func wants(want string, status int) bool {
	switch want {
	case want2xx:
		return is2xx(status)
	case want4xx:
		return is4xx(status)
	case want2xxOr4xx:
		return is2xx(status) || is4xx(status)
	}
	return false
}

// RerunSummary counts a rerun's outcomes.
type RerunSummary struct {
	Fixed, StillFailing, NotRerun int
	// Interrupted: Ctrl-C ended the rerun after those, of Total cases.
	Interrupted bool
	Total       int
	// Unfinished, when set, is why the rerun could not complete (the
	// receiver unreachable, the probe at fault): no verdict.
	Unfinished string
	// ReportEnd is how the report's run ended: a check it cut short or
	// never ran (it stopped, or was interrupted). A rerun sends only
	// failed cases again, so it proves nothing of those, and they are no
	// pass.
	ReportEnd ReportEnd
}

// Add counts a result.
func (s *RerunSummary) Add(r RerunResult) {
	switch r.Outcome {
	case Fixed:
		s.Fixed++
	case StillFailing:
		s.StillFailing++
	default:
		s.NotRerun++
	}
}

// AllFixed says every case sent again is fixed.
func (s *RerunSummary) AllFixed() bool {
	return s.StillFailing == 0 && s.NotRerun == 0 && !s.Interrupted
}

// Passed says the rerun is a pass (exit 0): every case sent again is
// fixed, the rerun completed, and the report's run ran every check.
func (s *RerunSummary) Passed() bool {
	return s.AllFixed() && s.Unfinished == "" && !s.ReportEnd.Untested()
}

// unseenDocument says whether a case (its check, name and query) is an
// out-of-order audit or void that was to reach a document the receiver
// had never seen (never created, or before its create), and of which
// kind. Sent again under the run's number it would not be: the run's
// create came after it.
func unseenDocument(check, name, query string) (spec.Kind, bool) {
	if check != outOfOrder || !strings.HasSuffix(name, "/unknown-document") && !strings.HasSuffix(name, "/before-create") {
		return "", false
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", false
	}
	e, ok := spec.Lookup(q.Get(spec.QueryParam))
	if !ok {
		return "", false
	}
	for _, first := range spec.Events() { // each kind's creating event first
		if first.Kind == e.Kind {
			return e.Kind, first.Name != e.Name
		}
	}
	return "", false
}

// reproduced is c as the commands that reproduce it send it (and as
// --save-cases writes it): an out-of-order audit or void meant for a
// document the receiver never saw goes, as --rerun sends it, under a
// number no run sent and a requestId (and so a webhook-id) of its own.
// Under the run's number the receiver holds the document the run created
// after it, so a pasted command would be answered 200 by a receiver still
// broken; under the run's requestId a receiver that remembers it would
// take it for a re-delivery. Both are drawn from the case's requestId:
// the commands and the file of one run agree.
func reproduced(c *Case) *Case {
	k, ok := unseenDocument(c.Check, c.Name, c.Query)
	if !ok {
		return c
	}
	seed := reproSeed(cmp.Or(c.RequestID, string(c.Body)))
	again := *c
	again.Body = renumbered(c.Body, k, seed)
	if start, end := reqid.Find(again.Body); start >= 0 {
		again.RequestID = reqid.For(binary.BigEndian.Uint64(seed), "whsim check reproduce", 0)
		again.Body = reqid.Splice(again.Body, start, end, again.RequestID)
		again.WebhookID = ""
	}
	return &again
}

// reproSeed draws the fresh numbers of a reproduction from what names
// the call or document in the run (its requestId).
func reproSeed(of string) []byte {
	seed := sha256.Sum256([]byte("whsim check reproduce " + of))
	return seed[:]
}

// renumberedNote is the comment on a reproduction sent under a fresh
// document number.
const renumberedNote = "under a document number no run sent, as --rerun sends it: the receiver holds the one the run created"

// renumbered is body with its document under a number no run has sent
// (retag, as an effects document rerun gets; seed draws it), and a
// described invoice's invoice number likewise (a receiver may key on
// either), or body itself when it carries no number.
func renumbered(body []byte, k spec.Kind, seed []byte) []byte {
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		return body
	}
	half := len(seed) / 2
	for i, d := range []spec.Datum{codeDatum(k), spec.InvNumber} {
		p := pathOf(k, spec.Described, d)
		if p == "" || k != spec.Invoice && d == spec.InvNumber {
			continue
		}
		v := doc
		for _, name := range strings.Split(p, ".") {
			o, _ := v.(map[string]any)
			v = o[name]
		}
		if old, _ := v.(string); old != "" {
			body = bytes.ReplaceAll(body, []byte(`"`+old+`"`), []byte(`"`+retag(old, seed[i*half:(i+1)*half])+`"`))
		}
	}
	return body
}

// failedAsCounted refuses a report whose summary counts other failed
// cases of a check than its case lines hold (a check the summary does
// not count, or no summary, is not compared). A run counts each case it
// reports as it writes its line, so they agree in every report check
// writes, however the run ended; a report whose failed lines were turned
// to "pass" under a summary that still counted them read as "no case
// failed, nothing to rerun", exit 0.
func failedAsCounted(failedOf map[string]int, counted map[string]Tally) error {
	ids := slices.Sorted(maps.Keys(counted))
	for _, id := range ids {
		if got, want := failedOf[id], counted[id].Fail; got != want {
			return fmt.Errorf("summary: %s counts %d failed cases, the report's lines hold %d: the report was edited or cut",
				termsafe.Text(id), want, got)
		}
	}
	return nil
}
