package check

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/termsafe"
)

// Sink takes a check run's report: each graded case as it comes, then the
// summary. The CLI connects it to its renderers (cli/checkout): check says
// what a run came to, never how it reads.
type Sink interface {
	Case(c *CaseReport) error
	Finish(s *SummaryReport) error
}

// Reporter reports a check run to Out (and JUnit beside it): each graded
// case with the command that reproduces it, its --save-cases files, and
// the summary with every failure.
type Reporter struct {
	Out    Sink
	JUnit  Sink // nil: no JUnit report
	Target *url.URL
	// Header is the user's headers: the reproduce commands carry them,
	// credentials masked.
	Header http.Header
	// SaveDir, when set, is where every case is written as capture
	// records (whsim replay sends them again), with ResultsFile.
	SaveDir string
	// SaveCommand, when set, is the command that runs a check again with
	// its cases saved, ending in "--checks " as Again does: the note on a
	// body too large to print names it, for a caller with no --save-cases
	// to point to (whsimtest). Unset, the note names --save-cases DIR.
	SaveCommand string
	Budget      time.Duration
	// Verbose says every warning as it comes; otherwise the warnings of
	// a check are one line in the summary.
	Verbose bool
	// Signer is the run's: a reproduction of a signed call signs afresh.
	Signer *sign.Signer
	// Now is the clock of the signatures the reporter rebuilds.
	Now func() time.Time
	// CurlTLS are the curl flags of the run's TLS settings (-k, --cacert
	// FILE), as RunConfig's: a reproduction without them fails on the
	// receiver's certificate before it reaches the receiver.
	CurlTLS []string
	// OneLine keeps each reproduce command on one line (shellcmd.Curl's
	// OneLine): whsimtest's go test log indents the lines of a message
	// after its first, into the body a command printed across lines sends.
	OneLine bool
	// Again is the command line that runs a check of this run again, as
	// printed, ending in "--checks ": the URL and headers with their
	// credentials as variables, the secret, and the flags that decide the
	// verdicts (--load-count, --load-concurrency, --timeout...). The load
	// case's hint is Again with "load"; without it, a command of the URL
	// and headers alone.
	Again string
	// SummaryLine, when set, is the run's summary as --output json's last
	// line: SaveDir's ResultsFile ends with it, as that output does, so
	// that check --rerun DIR knows how the run ended (the checks it never
	// ran) and a file without one is of a run that did not end.
	SummaryLine func(*SummaryReport) []byte

	failures []CaseReport // for the summary's reproduce commands
	results  *os.File     // SaveDir's ResultsFile
	saved    bool         // this run created SaveDir's ResultsFile
	warns    map[string][]Result
	err      error
}

// CaseReport is one graded case as a report says it.
type CaseReport struct {
	Result
	File  string // where --save-cases wrote its records
	Repro string // the command that sends it again (failures and warnings)
	// Quiet: a warning said in the summary instead.
	Quiet bool
	sent  sent
	// target is the run's URL and user the user's headers: the record
	// masks the credentials of both (termsafe.URLString, masked).
	target *url.URL
	user   http.Header
}

// CaseRecord is one case of --output json and of ResultsFile; its fields
// are stable. A case that failed or warned carries its request and the
// command that sends it again; check --rerun reads them back (ReadFailed).
type CaseRecord struct {
	Check   string `json:"check"`
	Case    string `json:"case"`
	Verdict string `json:"verdict"`
	// Inconclusive marks a warning that the case could not be judged.
	Inconclusive bool           `json:"inconclusive,omitempty"`
	Status       int            `json:"status"`
	LatencyMS    float64        `json:"latencyMs"`
	Reason       string         `json:"reason,omitempty"`
	Answer       *AnswerRecord  `json:"answer,omitempty"`
	File         string         `json:"file,omitempty"`
	Want         string         `json:"want,omitempty"`
	Request      *RequestRecord `json:"request,omitempty"`
	Reproduce    string         `json:"reproduce,omitempty"`
	// Effects is a failed effects document's calls and probe answers.
	Effects *EffectsRecord `json:"effects,omitempty"`
}

// AnswerRecord is the receiver's answer of a warning or failing case:
// its status line and the start of its body as the reason shows it
// (termsafe.Excerpt), ending in "…" when the body ran on.
type AnswerRecord struct {
	Status string `json:"status"`
	Body   string `json:"body"`
}

// Record is the answer as a report line carries it (AnswerRecord): its
// status line and the excerpt of its body the reasons show.
func (a *Reply) Record() *AnswerRecord {
	return &AnswerRecord{Status: termsafe.Text(a.Status), Body: termsafe.Excerpt(a.Body, a.Cut)}
}

// RequestRecord is a case's request, credentials masked.
type RequestRecord struct {
	Method       string      `json:"method"`
	URL          string      `json:"url"`
	Query        string      `json:"query"`
	Headers      http.Header `json:"headers"`
	Body         string      `json:"body"`
	BodyEncoding string      `json:"bodyEncoding"`
	// Copies is how many times it was delivered, AtOnce together.
	Copies int  `json:"copies,omitempty"`
	AtOnce bool `json:"atOnce,omitempty"`
	// NewRequestIDs: each copy after the first went under a new requestId.
	NewRequestIDs bool `json:"newRequestIds,omitempty"`
	// Resign says it carried the run's signature, to be made afresh.
	Resign bool `json:"resign,omitempty"`
}

// Record is the case as its JSON line holds it, terminal-safe.
func (c *CaseReport) Record() CaseRecord {
	j := CaseRecord{
		Check: c.Case.Check, Case: c.Case.Name, Verdict: string(c.Verdict), Inconclusive: c.Inconclusive,
		Status: c.Status, LatencyMS: attempt.MS(c.Latency), Reason: termsafe.Text(c.Reason), File: c.File,
		Effects: c.Effects,
	}
	if a := c.Answer; a != nil && c.Verdict != Pass {
		// The excerpt the reason shows in text, JUnit and the job summary,
		// "…" where the run stopped reading: the HTML report shows this one.
		j.Answer = a.Record()
	}
	if c.Verdict != Pass && c.sent.header != nil {
		rc := c.Case
		body, enc := capture.EncodeBody(rc.Body)
		j.Want, j.Reproduce = c.sent.want, c.Repro
		j.Request = &RequestRecord{
			Method: http.MethodPost, URL: termsafe.URLString(attempt.URLFor(c.target, rc.Query)), Query: rc.Query,
			Headers: shellcmd.Masked(c.sent.header, c.user), Body: body, BodyEncoding: enc,
			Copies: rc.Copies, AtOnce: rc.AtOnce, NewRequestIDs: rc.NewRequestIDs, Resign: c.sent.resign,
		}
	}
	return j
}

// Result takes one graded case: Run calls it one case at a time.
func (r *Reporter) Result(res Result) {
	if r.err != nil {
		return
	}
	c := &CaseReport{Result: res, target: r.Target, user: r.Header,
		Quiet: res.Verdict == Warn && !r.Verbose}
	if c.Quiet {
		if r.warns == nil {
			r.warns = map[string][]Result{}
		}
		r.warns[res.Case.Check] = append(r.warns[res.Case.Check], res)
	}
	if res.Case.Check != Latency && res.Verdict != Skip {
		c.sent = r.sentRequest(res.Case)
	}
	if r.SaveDir != "" && res.Case.Check != Latency && res.Verdict != Skip {
		if err := r.save(c); err != nil {
			r.err = fmt.Errorf("--save-cases: %w", err)
			return
		}
	}
	if res.Verdict != Pass && res.Verdict != Skip && res.Case.Check != Latency {
		c.Repro = res.Repro
		if c.Repro == "" {
			c.Repro = r.reproduce(c)
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
	s := &SummaryReport{Summary: sum, Budget: r.Budget, Failures: r.failures, Warns: r.warns}
	if err := r.closeResults(s); err != nil && r.err == nil {
		r.err = fmt.Errorf("--save-cases: %w", err)
	}
	if r.err != nil {
		return r.err
	}
	return r.finish(s)
}

// closeResults ends SaveDir's ResultsFile with the run's summary line and
// closes it (nothing to do when the run saved no case).
func (r *Reporter) closeResults(s *SummaryReport) error {
	if r.results == nil {
		return nil
	}
	f := r.results
	r.results = nil
	var err error
	if r.SummaryLine != nil && r.err == nil {
		_, err = f.Write(termsafe.JSON(r.SummaryLine(s)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Abort ends a run that started and could not complete (why: the
// receiver unreachable, the probe at fault), with the cases graded before
// it: its summary carries why, so that a report read by a machine (JSON,
// JUnit) says the run has no verdict rather than nothing at all, or a
// pass. sum may be nil.
func (r *Reporter) Abort(sum *Summary, why error) error {
	if sum == nil {
		sum = &Summary{Checks: map[string]*Tally{}}
	}
	s := &SummaryReport{Summary: sum, Budget: r.Budget, Failures: r.failures, Warns: r.warns, Unfinished: why.Error()}
	_ = r.closeResults(s) // the run's error is the one to say
	return r.finish(s)
}

// finish writes s to Out and JUnit.
func (r *Reporter) finish(s *SummaryReport) error {
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

// SummaryReport ends a check run: the summary, the failures whose
// commands reproduce them, and the warnings held back for it.
type SummaryReport struct {
	*Summary
	Budget   time.Duration
	Failures []CaseReport
	Warns    map[string][]Result // held back, by check
	// Unfinished, when set, is why the run did not complete (Abort): it
	// has no verdict.
	Unfinished string
}

// Notes are the run-wide findings that come before the table: what makes
// the rest read differently.
func (s *SummaryReport) Notes() []string {
	var out []string
	if u := s.Unrouted; u != nil {
		out = append(out, fmt.Sprintf("every call got %d %s: %s", u.Status, http.StatusText(u.Status), u.Hint))
	}
	if k := s.KeptAliveBroken; k != nil {
		lost := "calls sent on one got no answer within --timeout %s (each may have been taken)"
		if k.TimedOut == 1 {
			lost = "call sent on one got no answer within --timeout %s (it may have been taken)"
		}
		// What the run saw, and what it may mean: one call held past the
		// time limit on a kept-alive connection is all it takes to go on
		// over new ones, and a receiver that stalls now and then can hold
		// the first call a kept-alive connection carried as well.
		out = append(out, fmt.Sprintf("no call on a kept-alive connection was answered: the receiver answered calls on new connections (%d) and none on a connection it had kept alive after an answer: %d "+lost+". It may answer only a connection's first call, and a sender that keeps connections alive, as the ERP may, would then get no answer to a connection's second: answer every call on a connection, or send 'Connection: close' with the answer. The run made its calls after the first of them each on a new connection, so that their verdicts are about the cases",
			k.Answered, k.TimedOut, k.Limit))
	}
	if s.SeenBefore {
		out = append(out, "every first delivery was refused as a duplicate (409, or a 5xx saying so): the receiver has seen these requestIds before (a run with --fixed-ids repeats them; leave it out for fresh ones)")
	}
	return out
}

// maxInlineBody is the largest body a reproduce command carries inline;
// a larger one is read from its --save-cases file.
const maxInlineBody = 4 << 10

// reproduce is the command that sends the case's request again, ready to
// paste into a POSIX shell: whsim replay of its saved records when there
// are some or when the call was signed (a signature goes stale: replay
// --sign makes it afresh), else curl.
func (r *Reporter) reproduce(cc *CaseReport) string {
	cmd := ""
	if cc.File != "" || cc.sent.resign || cc.Case.NewRequestIDs {
		cmd = r.replayCommand(cc)
	} else {
		cmd = r.curlCommand(cc)
	}
	if cc.strayAfter {
		// A shell comment: the command runs as printed. One call shows
		// its answer; curl drops the bytes after it (it says so with -v
		// when they come in the same read), and a later second answer is
		// read only by a sender that reuses the connection.
		cmd += "  # one call shows its answer, not the bytes after it: those show to a sender that reuses the connection (curl -v says \"Excess found\" when they come with the answer)"
	}
	if cc.Case.Check == Load {
		// A hint runs as printed: it names the receiver, with the
		// credentials and the flags the run's load was judged with (the
		// URL alone sent 300 calls at 16 with no Authorization, for a run
		// of --load-count 20 with -H 'Authorization: ...').
		again := r.Again + Load
		if r.Again == "" {
			again = (&shellcmd.Whsim{Command: "check", URL: r.Target.String(), Header: r.Header, Vars: true, Flags: []string{"--checks", "load"}}).String()
		}
		if cc.File != "" {
			cmd += "  # every call of the load check, one after another; load is judged at concurrency: " + again
		} else {
			cmd += "  # one of the run's calls; load is judged over all of them: " + again
		}
	}
	return cmd
}

// reproduction is the case as its reproduction sends it (reproduced), and
// how: its headers signed afresh for a body that is not the run's.
func (r *Reporter) reproduction(cc *CaseReport) (*Case, sent) {
	c := reproduced(cc.Case)
	if c == cc.Case {
		return c, cc.sent
	}
	return c, r.sentRequest(c)
}

// curlCommand is a curl command that sends the case's request again; a
// loop for a call delivered several times, in the background for copies
// delivered at once.
func (r *Reporter) curlCommand(cc *CaseReport) string {
	c, _ := r.reproduction(cc)
	// The user's headers, credentials masked (reports end up in CI logs);
	// the case's own (a signature of this one body) kept.
	own := http.Header{}
	if _, ok := r.Header["Content-Type"]; !ok {
		own["Content-Type"] = []string{"application/json"}
	}
	maps.Copy(own, c.Header)
	cmd := shellcmd.Curl{Flags: append([]string{"-sS", "-i"}, r.CurlTLS...), Method: http.MethodPost, URL: attempt.URLFor(r.Target, c.Query),
		Header: r.Header, Own: own, Vars: true, Body: c.Body, BodyFile: bodyFile, MaxInline: maxInlineBody,
		Copies: c.Copies, AtOnce: c.AtOnce, OneLine: r.OneLine}
	if c != cc.Case {
		cmd.Note = renumberedNote
	}
	if !cmd.Inline() {
		cmd.Note = notWritten(cmd.Note, bodyFile, len(c.Body), r.SaveCommand, cc.Case.Check)
	}
	return termsafe.Lines(cmd.String())
}
