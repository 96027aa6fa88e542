package check

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/sign"
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
}

// ReportLineError says which line of a report is not what check
// --output json writes.
type ReportLineError struct {
	Line int
	Err  error
}

func (e *ReportLineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *ReportLineError) Unwrap() error { return e.Err }

// errNotReport says a file holds no check case at all.
var errNotReport = errors.New("no check case in it: want the output of whsim check --output json, or a --save-cases directory")

// maxReportLine bounds one line of a report: a case of a large body.
const maxReportLine = 64 << 20

// ReadFailed reads a check report (the JSON lines of check --output json,
// or a --save-cases directory's ResultsFile) and returns its failed cases
// in report order. The summary line, and any line that names no case, is
// skipped; a file without one case is ErrNotReport.
func ReadFailed(r io.Reader) ([]Failed, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxReportLine)
	var out []Failed
	cases, n := 0, 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var j struct {
			CaseRecord
			Summary json.RawMessage `json:"summary"`
		}
		if err := json.Unmarshal(line, &j); err != nil {
			return nil, &ReportLineError{Line: n, Err: fmt.Errorf("not a JSON object: %v", err)}
		}
		// The summary and any other line that names no case (what a
		// later version may add) are not cases to rerun.
		if j.Summary != nil || j.Check == "" || j.Case == "" {
			continue
		}
		cases++
		if j.Verdict != string(Fail) {
			continue
		}
		f := Failed{Check: j.Check, Name: j.Case, Want: j.Want, Status: j.Status, Reported: j.Reason, File: j.File}
		if q := j.Request; q != nil {
			body, err := capture.DecodeBody(q.Body, q.BodyEncoding)
			if err != nil {
				return nil, &ReportLineError{Line: n, Err: fmt.Errorf("request body: %v", err)}
			}
			f.URL, f.Query, f.Header, f.Body = q.URL, q.Query, q.Headers, body
			f.Copies, f.AtOnce, f.Resign, f.NewRequestIDs = q.Copies, q.AtOnce, q.Resign, q.NewRequestIDs
		} else {
			f.Want = "" // no request to send
		}
		out = append(out, f)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	if cases == 0 {
		return nil, errNotReport
	}
	return out, nil
}

// RerunConfig is how a rerun sends.
type RerunConfig struct {
	Client *http.Client
	// Target, when set, replaces each case's URL (its query is kept).
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
	Reason  string
	// unreachable is set when no delivery of the case got an answer for
	// a reason that says the receiver is not there at all (refused, DNS,
	// TLS): on a rerun's first call, that is no verdict on the case.
	unreachable *UnreachableError
}

// Rerun sends each failed case again, as the run sent it (every copy, at
// once when it was), and says whether it is fixed: every answer is what
// the case's check wants. A case that needs the run's secret and has no
// signer is an error before anything is sent.
func Rerun(ctx context.Context, cfg RerunConfig, cases []Failed, out func(RerunResult)) error {
	for _, c := range cases {
		if c.Resign && c.Want != "" && cfg.Signer == nil {
			return fmt.Errorf("%s %s was signed with the run's secret: give it (--secret) to sign it afresh", c.Check, c.Name)
		}
	}
	sent := false // a case went out and got an answer or a verdict
	for _, c := range cases {
		if err := ctx.Err(); err != nil {
			return err
		}
		if c.Want == "" {
			out(RerunResult{Case: c, Outcome: NotRerun,
				Reason: "judged over a whole run, not one call: run whsim check --checks " + c.Check + " again"})
			continue
		}
		res, err := rerunOne(ctx, cfg, c)
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
		out(res)
	}
	return nil
}

func rerunOne(ctx context.Context, cfg RerunConfig, c Failed) (RerunResult, error) {
	d := &attempt.Deliverer{Client: cfg.Client, Now: cfg.Now}
	query := c.Query
	if cfg.Target != nil {
		d.Target = cfg.Target
	} else {
		t, err := endpoint.ParseTarget(c.URL)
		if err != nil {
			return RerunResult{}, err
		}
		d.Target, query = t, ""
	}
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
	if c.Resign {
		d.Signer = cfg.Signer
		req.WebhookID = req.ReplayWebhookID(fresh)
	}
	n := max(c.Copies, 1)
	results := make([]*attempt.Result, n)
	// copyOf is the i-th copy: for a case sent under new requestIds, from
	// the second on the same bytes under a requestId of its own.
	copyOf := func(i int) *attempt.Request {
		start, end := reqid.Find(req.Body)
		if !c.NewRequestIDs || i == 0 || start < 0 {
			return req
		}
		one := *req
		one.RequestID = reqid.Salted(req.RequestID, uint64(i))
		if cfg.IDs != nil {
			one.RequestID = cfg.IDs.Next()
		}
		one.Body = reqid.Splice(req.Body, start, end, one.RequestID)
		if c.Resign {
			one.WebhookID = one.ReplayWebhookID(true)
		}
		return &one
	}
	if c.AtOnce {
		// Every copy waits for the others, so they reach the receiver
		// together, as the run's burst did.
		var ready, done sync.WaitGroup
		start := make(chan struct{})
		ready.Add(n)
		for i := range n {
			one := *copyOf(i)
			done.Go(func() {
				ready.Done()
				<-start
				results[i] = d.Deliver(ctx, &one)
			})
		}
		ready.Wait()
		close(start)
		done.Wait()
	} else {
		for i := range n {
			results[i] = d.Deliver(ctx, copyOf(i))
		}
	}
	res := RerunResult{Case: c, Outcome: Fixed}
	if a := results[0].Last(); a.Status == 0 && (a.Kind == attempt.KindRefused || a.Kind == attempt.KindDNS || a.Kind == attempt.KindTLS) {
		res.unreachable = &UnreachableError{URL: d.Target.Redacted(), Kind: attempt.FailureText(a)}
		for _, r := range results[1:] {
			if r.Last().Status != 0 {
				res.unreachable = nil
			}
		}
	}
	for i, r := range results {
		a := r.Last()
		if i == 0 || res.Outcome == Fixed {
			res.Status = a.Status
			res.Reason = answer(a)
		}
		if res.Outcome == Fixed && !wants(c.Want, a.Status) {
			res.Outcome = StillFailing
			res.Reason = answer(a) + ", want " + c.Want
			if n > 1 {
				res.Reason = fmt.Sprintf("delivery %d of %d %s", i+1, n, res.Reason)
			}
		}
	}
	return res, nil
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
