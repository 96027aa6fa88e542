// Package checkcmd is whsim check: a receiver graded with valid,
// malformed, repeated, out-of-order and signed calls, every answer judged;
// --rerun sends a report's failed cases again (rerun.go), and the whsim
// check command lines it prints are built in check_command.go. Its
// renderers are in checkout.
package checkcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/cli/checkout"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/delivery"
	"github.com/whsim/whsim/internal/cli/reportfile"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/htmlreport"
	"github.com/whsim/whsim/internal/jobsummary"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

type checkOptions struct {
	URL           string
	Checks        []string
	ExcludeChecks []string
	Seed          uint64
	Timeout       time.Duration
	Headers       []string
	Secret        string
	Insecure      bool
	CACert        string
	Strict        bool
	LatencyBudget time.Duration
	LoadCount     int
	LoadConc      int
	Output        string
	JUnit         string
	SaveCases     string
	Verbose       bool
	ExcludeCases  []string
	Probe         string
	ProbeCmd      string
	ProbeHeaders  []string
	Settle        time.Duration
	FixedIDs      bool
	Rerun         string
	Report        string

	// changed names the flags given, which --rerun refuses.
	changed func(name string) bool
	// junit holds the JUnit report until the run ends: the file is written
	// whole, on every exit.
	junit bytes.Buffer
}

// New is whsim check.
func New(a *cmdutil.App) *cobra.Command {
	opts := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check --url <url> [--checks <id>,...] [--exclude-checks <id>,...] [--secret <whsec_...>] [--probe <url-template> | --probe-cmd <command>] [--junit <file>] [--save-cases <dir>] [flags]\n  whsim check --rerun <report.json|dir> [--url <url>] [--secret <whsec_...>] [-H <header>]...",
		Short: "Grade a receiver: send valid, malformed, repeated, out-of-order and signed calls and judge every answer",
		Long: `Run a battery of black-box checks against your receiver and say, per case
and per check, whether it behaves the way a webhook receiver must:

` + checkList() + `
The signature check runs only with --secret; every call of the run is then
signed (Standard Webhooks). Failing cases print one line each with the
reason, then the warnings, then a table per check, then a command per failure that sends
the same request again (credentials from -H masked: put yours back): curl,
or whsim replay when the call was signed (replay --sign signs it afresh, as
a signature is stale five minutes later; the secret from WHSIM_REPLAY_SECRET)
or saved. A case delivered at once several times is replayed concurrently.

Every failing or warning reason carries the receiver's answer: its status
line and the first 200 bytes of its body. The warnings of one check are one
line with their count; -v lists them and shows the answer's headers too, as
send -v does.

A receiver that stops answering (refused or reset 3 calls in a row, or no
answer within --timeout 2 calls in a row) stops the run at once: one line says after
which case, and the checks left are reported as not run. When every call got
the same 404, 405, 401 or 403 the summary says so first, with the likely
cause. On a terminal a progress line on stderr shows the check, the case and
the time taken; Ctrl-C stops the run and says how far it got.

--save-cases DIR writes every case as capture records, DIR/<check>/<case>.ndjson
(one per delivery: method, path, query, headers, body byte for byte), which
whsim replay sends again, and DIR/` + check.ResultsFile + `, the JSON line of each
case. --output json carries, for each failing or warning case, its request
(credentials masked), the answer that would pass and the command.

--rerun <report.json|DIR> sends again only the cases that failed, from a
report of --output json or a --save-cases directory, to the report's URL or
--url, with -H to put masked credentials back and --secret for signed ones.
A failed effects document is sent again as a fresh one and judged by the
probe (--probe or --probe-cmd again, or the report's --probe URL on the
receiver's host). Each case says FIXED or STILL FAILING (or NOT RERUN for
load and latency, judged over a whole run); exit 0 only when every one is
fixed. Every call goes to --url or the report's one URL, named on stderr
first; a report that names another URL, more copies than a run sends, or a
file that is not a regular file is refused.

--report FILE writes all of it as one HTML file that opens without a network
(a CI artifact); under GitHub Actions ($GITHUB_STEP_SUMMARY set) the verdict,
the table and the first failures are appended to the job summary. A run
that started and ended in exit 2 (the receiver unreachable, the probe at
fault) still writes the report, saying why it did not complete; a usage
error, before anything ran, writes none.

--junit FILE is written on every exit: on a usage error or a receiver that
cannot be reached, one test case in error says why.

With --probe or --probe-cmd, the effects check asks the receiver what it
stored, not only what it answered. The probe's contract (stable):

  --probe <url-template>  a GET per document. {kind} (invoice or receipt),
      {code} (data.code of an invoice, data.收款单.收款单编号 of a receipt),
      {invoiceCode} (a described invoice's invoice number, else empty),
      {event} and {requestId} (of the call that created the document) are
      filled in, escaped for the path or the query. 404 means it holds
      nothing. --probe-header adds headers; --timeout and the TLS flags apply.
  --probe-cmd <command>  run with sh -c, the same values in WHSIM_KIND,
      WHSIM_CODE, WHSIM_INVOICE_CODE, WHSIM_EVENT and WHSIM_REQUEST_ID; its
      standard output is the answer; --timeout bounds it, and ends it with
      every process it started. whsim's document numbers hold only A-Z,
      0-9 and '-', safe inside SQL quotes.
  The answer: a JSON object, or an array holding one (as sqlite3 -json
      prints a row): "count" (required: how many records it holds for the
      document), "state" (required when count is 1 or more: created,
      audited or voided), "lines" (optional: how many lines it stored, the
      items or records of an invoice, the 收款明细 of a receipt). Other
      members are ignored; more than 1 MiB is the probe's error.

Before the first case whsim asks about a document that cannot exist and
expects count 0: a probe that cannot be reached, times out, exits non-zero or
prints something unreadable is the probe's error, said once, exit 2, and
never blamed on the receiver. Documents are probed together at the end of
their sequence; one whose answer does not match yet is asked again with
backoff until --settle runs out (default 2s: a receiver that answers first
and stores from a queue stores within a second or so). Document numbers,
requestIds and webhook-ids are fresh per run, even with --seed, so that a
receiver keeping earlier runs' documents passes again: --seed fixes the
documents, --fixed-ids the ids too (a byte-exact repeat). Without a probe,
effects is skipped, saying what it would have proved.

--latency-budget defaults to 1s: the spec names no time-out, senders commonly
give up after 5 to 30 seconds, and a receiver should answer first and work
after; one second at p99 leaves room for a cold start while catching one that
processes each document before answering.

Exit status: 0 when no check failed (warnings allowed), 1 when one did or the
receiver stopped answering, 2 for usage errors, a receiver that cannot be
reached at all (or answers nothing to the first call within --timeout) or a
probe that fails, 130 when interrupted.`,
		Example: `  whsim check --url http://localhost:3000/webhook
  whsim check --url http://localhost:3000/webhook --checks accepts-valid,rejects-malformed
  whsim check --url http://localhost:3000/webhook --exclude-checks load,latency --seed 42
  whsim check --url https://hooks.example.com/erp -H 'Authorization: Bearer t0k3n' --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
  whsim check --url http://localhost:3000/webhook --junit check.xml --save-cases cases/
  whsim check --url http://localhost:3000/webhook --exclude-cases 'type/*/*' -v
  whsim check --url http://localhost:3000/webhook --seed 42 --fixed-ids
  whsim check --url http://localhost:3000/webhook --probe 'http://localhost:3000/debug/{kind}s/{code}'
  whsim check --url http://localhost:3000/webhook --probe-cmd ./probe.sh --settle 5s
  whsim check --rerun cases/
  whsim check --rerun report.json --url http://localhost:3001/webhook -H 'Authorization: Bearer t0k3n'
  whsim check --url http://localhost:3000/webhook --report check.html
  whsim check --url http://localhost:3000/webhook --output json | jq 'select(.verdict == "fail")'`,
		Args: cmdutil.NoArgs,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			opts.changed = cmd.Flags().Changed
			return runCheck(cmd.Context(), a, opts)
		}),
	}
	f := cmd.Flags()
	cmdutil.URLFlag(cmd, &opts.URL)
	f.StringSliceVar(&opts.Checks, "checks", nil, "run only these checks (comma-separated): "+strings.Join(check.IDs(), ", "))
	f.StringSliceVar(&opts.ExcludeChecks, "exclude-checks", nil, "leave out these checks (comma-separated)")
	// The seed fixes cases, not only payloads, and a random one is printed.
	cmdutil.SeedFlag(cmd, &opts.Seed, "seed for reproducible cases (0: random, printed on stderr)")
	cmdutil.TimeoutFlag(cmd, &opts.Timeout)
	cmdutil.HeaderFlag(cmd, &opts.Headers, "")
	// Check's secret also runs the signature check.
	cmdutil.SecretFlag(cmd, &opts.Secret, "sign every call (Standard Webhooks) with this whsec_<base64> secret and run the signature check (also WHSIM_CHECK_SECRET; never printed)")
	cmdutil.TLSFlags(cmd, &opts.Insecure, &opts.CACert)
	f.BoolVar(&opts.Strict, "strict", false, "a type error inside data answered 2xx fails instead of warning")
	f.DurationVar(&opts.LatencyBudget, "latency-budget", check.DefaultLatencyBudget, "the p99 latency every call of the run must stay within")
	f.IntVar(&opts.LoadCount, "load-count", check.DefaultLoadCount, fmt.Sprintf("calls the load check makes, at most %d (whsim send makes bigger loads)", check.MaxLoadCount))
	f.IntVar(&opts.LoadConc, "load-concurrency", check.DefaultLoadConcurrency, "calls in flight at once in the load check")
	cmdutil.AddOutputFlag(cmd, &opts.Output, "text", "text", "json")
	f.StringVar(&opts.JUnit, "junit", "", "also write a JUnit XML report to this file (one testcase per case, a suite per check)")
	f.StringVar(&opts.Probe, "probe", "", "ask the receiver what it holds with a GET of this URL template ({kind}, {code}, {invoiceCode}, {event}, {requestId}) and run the effects check")
	f.StringVar(&opts.ProbeCmd, "probe-cmd", "", "ask with this shell command instead (sh -c; $WHSIM_KIND, $WHSIM_CODE, $WHSIM_INVOICE_CODE, $WHSIM_EVENT, $WHSIM_REQUEST_ID); its stdout is the answer")
	f.StringArrayVar(&opts.ProbeHeaders, "probe-header", nil, "add a header 'Name: value' to every --probe question, such as a debug endpoint's token (repeatable)")
	f.DurationVar(&opts.Settle, "settle", check.DefaultSettle, "how long a document may take to be stored after its last call: its probe is asked again, with backoff, until it matches (0: once)")
	// Check's fixed ids are webhook-ids and document numbers too.
	cmdutil.FixedIDsFlag(cmd, &opts.FixedIDs, "use the seed's own requestIds, webhook-ids and document numbers instead of fresh ones per run, for a byte-exact repeat (a receiver that keeps earlier runs' documents then sees them again)")
	f.StringVar(&opts.SaveCases, "save-cases", "", "write every case to this directory as capture records (whsim replay sends them again) and the results as "+check.ResultsFile)
	f.StringVar(&opts.Rerun, "rerun", "", "send again only the cases that failed in this report (--output json) or --save-cases directory, and say which are fixed")
	f.StringVar(&opts.Report, "report", "", "also write a self-contained HTML report to this file: the verdict, a table per check, each failure with its request, answer and reproduce command")
	_ = cmd.MarkFlagFilename("report", "html")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "show the receiver's whole answer (status, headers, body) under each failing or warning case, and list every warning (otherwise one line per check with their count)")
	f.StringSliceVar(&opts.ExcludeCases, "exclude-cases", nil, "leave out the cases whose name (or check/name) matches one of these globs (comma-separated; * does not match /)")
	_ = cmd.RegisterFlagCompletionFunc("checks", cmdutil.CompleteWords(check.IDs()...))
	_ = cmd.RegisterFlagCompletionFunc("exclude-checks", cmdutil.CompleteWords(check.IDs()...))
	_ = cmd.MarkFlagFilename("junit", "xml")
	_ = cmd.MarkFlagDirname("save-cases")
	_ = cmd.MarkFlagFilename("rerun", "json", "ndjson")
	return cmd
}

func checkList() string {
	var b strings.Builder
	for _, c := range check.Checks() {
		fmt.Fprintf(&b, "  %-23s %s\n", c.ID, c.Summary)
	}
	return b.String()
}

// runCheck runs a check or a rerun and writes --junit whatever the end:
// the report when the run made one, else one test case in error saying why.
func runCheck(ctx context.Context, a *cmdutil.App, opts *checkOptions) error {
	var err error
	if opts.Rerun != "" {
		err = runRerun(ctx, a, opts)
	} else {
		err = runChecks(ctx, a, opts)
	}
	if opts.JUnit == "" {
		return err
	}
	return reportfile.WriteJUnit(a, opts.JUnit, &opts.junit, err, "whsim check", "whsim.check")
}

// runChecks is check without --rerun: validate, build, run.
func runChecks(ctx context.Context, a *cmdutil.App, opts *checkOptions) error {
	if err := opts.validate(); err != nil {
		return err
	}
	r, err := opts.build(a)
	if err != nil {
		return err
	}
	return r.run(ctx)
}

// validate refuses the flags that cannot make a run, before anything is
// built: each a usage error (exit 2) naming the flag.
func (o *checkOptions) validate() error {
	if err := reportfile.CheckJUnitPath(o.JUnit); err != nil {
		return err
	}
	ids, err := check.Select(o.Checks, o.ExcludeChecks)
	switch {
	case err != nil:
		return cmdutil.UsageErr(err)
	case len(ids) == 0:
		return cmdutil.Usagef("--checks and --exclude-checks leave no check to run")
	case o.URL == "":
		return cmdutil.Usagef("check needs --url, the receiver to grade")
	case o.Timeout <= 0:
		return cmdutil.Usagef("--timeout %s: want more than 0", o.Timeout)
	case o.LatencyBudget <= 0:
		return cmdutil.Usagef("--latency-budget %s: want more than 0", o.LatencyBudget)
	case o.LoadCount < 1:
		return cmdutil.Usagef("--load-count %d: want at least 1", o.LoadCount)
	case o.LoadCount > check.MaxLoadCount:
		return cmdutil.Usagef("--load-count %d: at most %d; for a bigger load use whsim send --count", o.LoadCount, check.MaxLoadCount)
	case o.LoadConc < 1:
		return cmdutil.Usagef("--load-concurrency %d: want at least 1", o.LoadConc)
	case o.Probe != "" && o.ProbeCmd != "":
		return cmdutil.Usagef("--probe and --probe-cmd: give one way to ask the receiver, not both")
	case o.Settle < 0:
		return cmdutil.Usagef("--settle %s: want 0 or more", o.Settle)
	case len(o.ProbeHeaders) > 0 && o.Probe == "":
		return cmdutil.Usagef("--probe-header needs --probe, the URL it is sent to")
	}
	if err := check.ValidateExclude(o.ExcludeCases); err != nil {
		return cmdutil.UsageErr(err)
	}
	return nil
}

// checkRun is one check run as its flags made it: what check.Run is
// given, where each result goes, and what --report and the job summary
// are written from.
type checkRun struct {
	a    *cmdutil.App
	opts *checkOptions
	cfg  check.Config
	key  string // "whsim:" as stderr shows it

	rep    *check.Reporter
	out    term.Reporter // stdout's, as --output says
	result func(check.Result)
	prog   interface {
		Clear()
		Stop()
	}
	// col and rec keep, beside the run's output, what --report and the
	// job summary say: the output and the requests of the cases that did
	// not pass. Both nil when neither is written.
	col *term.Collector
	rec *htmlreport.CheckRecorder
}

// build turns the flags into the run: the check config, then the lines
// that say what runs, then the reporters.
func (o *checkOptions) build(a *cmdutil.App) (*checkRun, error) {
	r := &checkRun{a: a, opts: o, key: a.ErrColor.Key.Sprint("whsim:")}
	var err error
	if r.cfg, err = o.config(a); err != nil {
		return nil, err
	}
	errw := a.Streams.Err
	if o.Insecure {
		fmt.Fprintf(errw, "%s --insecure: the receiver's TLS certificate is not verified\n", r.key)
	}
	// The spec has no signing: without a secret the signature check is
	// no part of the default battery, and is said skipped (here and in
	// the verdict) only when --checks names it.
	run, dropped := check.Runnable(r.cfg.Checks, r.cfg.Signer != nil)
	r.cfg.ReportUnsigned = dropped && slices.Contains(o.Checks, "signature")
	switch {
	case dropped && len(run) == 0:
		return nil, cmdutil.Usagef("--checks signature needs --secret whsec_...")
	case r.cfg.ReportUnsigned:
		fmt.Fprintf(errw, "%s the signature check needs --secret: skipped\n", r.key)
	default:
		r.cfg.Checks = run
	}
	fmt.Fprintf(errw, "%s checking %s (seed %d): %s\n", r.key, termsafe.Text(termsafe.URL(r.cfg.Target)), r.cfg.Seed, strings.Join(r.cfg.Checks, ", "))

	if r.rep, r.out, err = newCheckReporter(a, o, r.cfg.Target, r.cfg.Header); err != nil {
		return nil, err
	}
	prog := term.NewCheckProgress(errw, a.Streams.ErrTTY)
	r.prog = prog
	r.rep.Signer, r.rep.Now = r.cfg.Signer, a.Now
	r.result = r.rep.Result
	if o.Report != "" || reportfile.StepSummary() != "" {
		r.col = &term.Collector{}
		r.out = term.Tee(r.out, r.col)
		r.rep.Out = checkout.CheckSink{R: r.out}
		r.rec = &htmlreport.CheckRecorder{Target: r.cfg.Target, Header: r.cfg.Header}
		r.result = func(res check.Result) { r.rec.Result(res); r.rep.Result(res) }
	}
	r.cfg.Progress = func(pr check.Progress) { prog.Update(pr.Check, pr.Done, pr.Total, pr.Case) }
	r.cfg.Notice = func(msg string) {
		prog.Clear()
		fmt.Fprintf(errw, "%s %s\n", r.key, msg)
	}
	return r, nil
}

// config is the check config the flags give, before the signature check
// is weighed: the target and its client, the signer, the probe, the
// seed, and where cases are saved (made here, so that a directory that
// cannot be made stops the run before its first call).
func (o *checkOptions) config(a *cmdutil.App) (check.Config, error) {
	ids, err := check.Select(o.Checks, o.ExcludeChecks)
	if err != nil { // validate said it, so only a caller that skipped it gets here
		return check.Config{}, cmdutil.UsageErr(err)
	}
	cfg := check.Config{
		Checks: ids, Now: a.Now, Strict: o.Strict, LatencyBudget: o.LatencyBudget,
		LoadCount: o.LoadCount, LoadConcurrency: o.LoadConc, Settle: o.Settle,
		SaveDir: o.SaveCases, ExcludeCases: o.ExcludeCases,
	}
	if cfg.Target, err = endpoint.ParseTarget(o.URL); err != nil {
		return cfg, cmdutil.Usagef("--url %w", err)
	}
	if cfg.Header, err = endpoint.ParseHeaders(o.Headers); err != nil {
		return cfg, cmdutil.UsageErr(err)
	}
	if o.Secret != "" {
		if cfg.Signer, err = sign.NewSigner(o.Secret); err != nil {
			return cfg, cmdutil.Usagef("--secret: %w", err)
		}
	}
	if cfg.Client, err = delivery.NewClient(attempt.ClientOptions{
		Timeout: o.Timeout, Concurrency: max(o.LoadConc, check.DefaultConcurrent), Insecure: o.Insecure, CAFile: o.CACert,
	}); err != nil {
		return cfg, err
	}
	// A reproduction's curl commands need the run's TLS settings.
	cfg.CurlTLS = curlTLSOf(o)
	if cfg.Probe, err = newProbe(o, cfg.Client, cfg.CurlTLS); err != nil {
		return cfg, err
	}
	if cfg.Probe == nil && len(o.Checks) > 0 && slices.Equal(ids, []string{check.Effects}) {
		return cfg, cmdutil.Usagef("--checks effects needs --probe <url-template> or --probe-cmd <command>")
	}
	if !o.FixedIDs {
		cfg.Nonce = reqid.Nonce()
	}
	if err := reportfile.CheckReportPath(o.Report); err != nil {
		return cfg, err
	}
	if o.SaveCases != "" {
		if err := os.MkdirAll(o.SaveCases, 0o755); err != nil {
			return cfg, cmdutil.Usagef("--save-cases: %w", err)
		}
	}
	cfg.Seed, cfg.Anchor = check.SeedOf(o.Seed, a.Now())
	return cfg, nil
}

// run grades the receiver, then writes the verdict and the reports. A
// receiver that cannot be reached or a probe at fault is exit 2 (the
// report, if asked for, says how far the run got); Ctrl-C reports what
// was graded.
func (r *checkRun) run(ctx context.Context) error {
	sum, err := check.Run(ctx, r.cfg, func(res check.Result) {
		r.prog.Clear()
		r.result(res)
	})
	r.prog.Stop()
	var unreachable *check.UnreachableError
	var probeErr *probe.Error
	switch {
	case errors.As(err, &unreachable):
		r.abortReport(unreachable)
		return cmdutil.UsageErr(unreachable)
	case errors.As(err, &probeErr):
		// The probe's fault, not the receiver's: no verdict, exit 2; the
		// cases graded before it stay on stdout.
		_ = r.out.Abort()
		r.abortReport(probeErr)
		return cmdutil.UsageErr(probeErr)
	case ctx.Err() != nil:
		if sum != nil {
			_ = r.rep.Finish(sum)
		}
		if err := r.reports(sum); err != nil {
			fmt.Fprintf(r.a.Streams.Err, "%s %v\n", r.key, err)
		}
		return cmdutil.ErrInterrupted
	case err != nil:
		return fmt.Errorf("check %s: %w", termsafe.Text(termsafe.URL(r.cfg.Target)), err)
	}
	if err := r.rep.Finish(sum); err != nil {
		return err
	}
	if err := r.reports(sum); err != nil {
		return err
	}
	if sum.Failed() {
		return cmdutil.ErrChecksFailed
	}
	return nil
}

// where is the run's target as reports show it.
func (r *checkRun) where() string { return termsafe.Text(termsafe.URL(r.cfg.Target)) }

// reports writes --report and the job summary of a finished run.
func (r *checkRun) reports(sum *check.Summary) error {
	if r.col == nil || sum == nil {
		return nil
	}
	report := r.opts.Report
	js := jobsummary.FromCollector(r.col, "whsim check", "check", !sum.Failed())
	js.Target = r.where()
	js.Interrupted = sum.Interrupted != nil
	if report != "" {
		js.Note = "The full report, with every failure's request and answer: " + filepath.Base(report)
		js.Full = filepath.Base(report)
	}
	reportfile.AppendJobSummary(r.a, js)
	if report == "" {
		return nil
	}
	return r.writeReport(nil)
}

// abortReport writes --report of a run that started and ended in an
// error of its input (the receiver unreachable, the probe at fault): the
// cases graded before it, and the headline why it did not complete. A
// usage error before the run writes nothing: there is nothing to show.
func (r *checkRun) abortReport(why error) {
	if r.opts.Report == "" || r.col == nil {
		return
	}
	// The run's error is the one to exit with: a report that cannot be
	// written is said beside it.
	if err := r.writeReport(why); err != nil {
		fmt.Fprintf(r.a.Streams.Err, "%s %v\n", r.key, err)
	}
}

// writeReport writes check's HTML report to --report; why, when not nil,
// is why the run did not complete, and heads the report.
func (r *checkRun) writeReport(why error) error {
	where := r.where()
	m := reportfile.Meta(r.a, "whsim check", where)
	// The command runs as printed: what the run needed (the probe, the
	// secret as a placeholder, the headers) besides the URL and seed.
	m.Command = fmt.Sprintf("%s --seed %d --checks %s", checkCommand(where, r.rec.Header, r.opts.Secret != "", r.opts), r.cfg.Seed, strings.Join(r.cfg.Checks, ","))
	data := htmlreport.NewCheck(r.col, r.rec, check.Checks(), r.cfg.Seed)
	if why != nil {
		data.Failed = true
		data.Headline = "the run did not complete: " + termsafe.Text(why.Error())
		if data.Text == "" {
			data.Text = data.Headline
		}
	}
	return reportfile.WriteReport(r.a, r.opts.Report, func(w io.Writer) error { return htmlreport.WriteCheck(w, m, data) })
}

// newProbe is the probe --probe or --probe-cmd asks with, nil for none.
func newProbe(opts *checkOptions, client *http.Client, curlTLS []string) (probe.Probe, error) {
	switch {
	case opts.Probe != "":
		h, err := endpoint.ParseHeaders(opts.ProbeHeaders)
		if err != nil {
			return nil, cmdutil.Usagef("--probe-header: %w", err)
		}
		p, err := probe.ParseURL(opts.Probe, client, h)
		if err != nil {
			return nil, cmdutil.Usagef("--probe %s: %w", termsafe.Text(opts.Probe), err)
		}
		p.CurlTLS = curlTLS
		return p, nil
	case opts.ProbeCmd != "":
		return &probe.Cmd{Run: opts.ProbeCmd, Timeout: opts.Timeout}, nil
	}
	return nil, nil
}

// newCheckReporter connects a check run's report to checkout's renderers:
// stdout as --output says, and the JUnit report. out is stdout's.
func newCheckReporter(a *cmdutil.App, opts *checkOptions, target *url.URL, header http.Header) (*check.Reporter, term.Reporter, error) {
	out, err := term.New(opts.Output, a.Streams.Out, cmdutil.Style(a.OutColor, opts.Verbose), true)
	if err != nil {
		return nil, nil, cmdutil.Usagef("--output: %w", err)
	}
	// JUnit suites carry the target: two receivers' reports merged stay apart.
	where := termsafe.URL(target)
	r := &check.Reporter{Out: checkout.CheckSink{R: out}, Target: target, Header: header, SaveDir: opts.SaveCases, Budget: opts.LatencyBudget, Verbose: opts.Verbose}
	if opts.JUnit != "" {
		r.JUnit = checkout.CheckSink{R: term.NewJUnit(&opts.junit, where), JUnit: true}
	}
	return r, out, nil
}
