package cli

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

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/htmlreport"
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

func newCheckCmd(a *app) *cobra.Command {
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
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			opts.changed = cmd.Flags().Changed
			return runCheck(cmd.Context(), a, opts)
		}),
	}
	f := cmd.Flags()
	urlFlag(cmd, &opts.URL)
	f.StringSliceVar(&opts.Checks, "checks", nil, "run only these checks (comma-separated): "+strings.Join(check.IDs(), ", "))
	f.StringSliceVar(&opts.ExcludeChecks, "exclude-checks", nil, "leave out these checks (comma-separated)")
	// The seed fixes cases, not only payloads, and a random one is printed.
	seedFlag(cmd, &opts.Seed, "seed for reproducible cases (0: random, printed on stderr)")
	timeoutFlag(cmd, &opts.Timeout)
	headerFlag(cmd, &opts.Headers, "")
	// Check's secret also runs the signature check.
	secretFlag(cmd, &opts.Secret, "sign every call (Standard Webhooks) with this whsec_<base64> secret and run the signature check (also WHSIM_CHECK_SECRET; never printed)")
	tlsFlags(cmd, &opts.Insecure, &opts.CACert)
	f.BoolVar(&opts.Strict, "strict", false, "a type error inside data answered 2xx fails instead of warning")
	f.DurationVar(&opts.LatencyBudget, "latency-budget", check.DefaultLatencyBudget, "the p99 latency every call of the run must stay within")
	f.IntVar(&opts.LoadCount, "load-count", 300, fmt.Sprintf("calls the load check makes, at most %d (whsim send makes bigger loads)", check.MaxLoadCount))
	f.IntVar(&opts.LoadConc, "load-concurrency", 16, "calls in flight at once in the load check")
	addOutputFlag(cmd, &opts.Output, "text", "text", "json")
	f.StringVar(&opts.JUnit, "junit", "", "also write a JUnit XML report to this file (one testcase per case, a suite per check)")
	f.StringVar(&opts.Probe, "probe", "", "ask the receiver what it holds with a GET of this URL template ({kind}, {code}, {invoiceCode}, {event}, {requestId}) and run the effects check")
	f.StringVar(&opts.ProbeCmd, "probe-cmd", "", "ask with this shell command instead (sh -c; $WHSIM_KIND, $WHSIM_CODE, $WHSIM_INVOICE_CODE, $WHSIM_EVENT, $WHSIM_REQUEST_ID); its stdout is the answer")
	f.StringArrayVar(&opts.ProbeHeaders, "probe-header", nil, "add a header 'Name: value' to every --probe question, such as a debug endpoint's token (repeatable)")
	f.DurationVar(&opts.Settle, "settle", check.DefaultSettle, "how long a document may take to be stored after its last call: its probe is asked again, with backoff, until it matches (0: once)")
	// Check's fixed ids are webhook-ids and document numbers too.
	fixedIDsFlag(cmd, &opts.FixedIDs, "use the seed's own requestIds, webhook-ids and document numbers instead of fresh ones per run, for a byte-exact repeat (a receiver that keeps earlier runs' documents then sees them again)")
	f.StringVar(&opts.SaveCases, "save-cases", "", "write every case to this directory as capture records (whsim replay sends them again) and the results as "+check.ResultsFile)
	f.StringVar(&opts.Rerun, "rerun", "", "send again only the cases that failed in this report (--output json) or --save-cases directory, and say which are fixed")
	f.StringVar(&opts.Report, "report", "", "also write a self-contained HTML report to this file: the verdict, a table per check, each failure with its request, answer and reproduce command")
	_ = cmd.MarkFlagFilename("report", "html")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "show the receiver's whole answer (status, headers, body) under each failing or warning case, and list every warning (otherwise one line per check with their count)")
	f.StringSliceVar(&opts.ExcludeCases, "exclude-cases", nil, "leave out the cases whose name (or check/name) matches one of these globs (comma-separated; * does not match /)")
	_ = cmd.RegisterFlagCompletionFunc("checks", completeWords(check.IDs()...))
	_ = cmd.RegisterFlagCompletionFunc("exclude-checks", completeWords(check.IDs()...))
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
func runCheck(ctx context.Context, a *app, opts *checkOptions) error {
	var err error
	if opts.Rerun != "" {
		err = runRerun(ctx, a, opts)
	} else {
		err = runChecks(ctx, a, opts)
	}
	if opts.JUnit == "" {
		return err
	}
	if opts.junit.Len() == 0 && err == nil {
		return nil
	}
	why := ""
	if err != nil {
		why = err.Error()
		if errors.Is(err, errInterrupted) {
			why = "interrupted before any case was judged"
		}
	}
	werr := atomicfile.Write(opts.JUnit, 0o644, func(w io.Writer) error {
		if opts.junit.Len() > 0 {
			_, err := w.Write(opts.junit.Bytes())
			return err
		}
		return term.WriteJUnitError(w, "whsim check", "whsim.check", why)
	})
	if werr != nil && err == nil {
		return usagef("--junit: %w", werr)
	}
	return err
}

func runChecks(ctx context.Context, a *app, opts *checkOptions) error {
	if err := checkJUnitPath(opts.JUnit); err != nil {
		return err
	}
	ids, err := check.Select(opts.Checks, opts.ExcludeChecks)
	switch {
	case err != nil:
		return usageErr(err)
	case len(ids) == 0:
		return usagef("--checks and --exclude-checks leave no check to run")
	case opts.URL == "":
		return usagef("check needs --url, the receiver to grade")
	case opts.Timeout <= 0:
		return usagef("--timeout %s: want more than 0", opts.Timeout)
	case opts.LatencyBudget <= 0:
		return usagef("--latency-budget %s: want more than 0", opts.LatencyBudget)
	case opts.LoadCount < 1:
		return usagef("--load-count %d: want at least 1", opts.LoadCount)
	case opts.LoadCount > check.MaxLoadCount:
		return usagef("--load-count %d: at most %d; for a bigger load use whsim send --count", opts.LoadCount, check.MaxLoadCount)
	case opts.LoadConc < 1:
		return usagef("--load-concurrency %d: want at least 1", opts.LoadConc)
	case opts.Probe != "" && opts.ProbeCmd != "":
		return usagef("--probe and --probe-cmd: give one way to ask the receiver, not both")
	case opts.Settle < 0:
		return usagef("--settle %s: want 0 or more", opts.Settle)
	case len(opts.ProbeHeaders) > 0 && opts.Probe == "":
		return usagef("--probe-header needs --probe, the URL it is sent to")
	}
	if err := check.ValidateExclude(opts.ExcludeCases); err != nil {
		return usageErr(err)
	}
	target, err := endpoint.ParseTarget(opts.URL)
	if err != nil {
		return usagef("--url %w", err)
	}
	header, err := endpoint.ParseHeaders(opts.Headers)
	if err != nil {
		return usageErr(err)
	}
	var signer *sign.Signer
	if opts.Secret != "" {
		if signer, err = sign.NewSigner(opts.Secret); err != nil {
			return usagef("--secret: %w", err)
		}
	}
	client, err := newClient(attempt.ClientOptions{
		Timeout: opts.Timeout, Concurrency: max(opts.LoadConc, check.DefaultConcurrent), Insecure: opts.Insecure, CAFile: opts.CACert,
	})
	if err != nil {
		return err
	}
	// A reproduction's curl commands need the run's TLS settings.
	var curlTLS []string
	if opts.Insecure {
		curlTLS = append(curlTLS, "-k")
	}
	if opts.CACert != "" {
		curlTLS = append(curlTLS, "--cacert", opts.CACert)
	}
	prb, err := newProbe(opts, client, curlTLS)
	if err != nil {
		return err
	}
	if prb == nil && len(opts.Checks) > 0 && slices.Equal(ids, []string{check.Effects}) {
		return usagef("--checks effects needs --probe <url-template> or --probe-cmd <command>")
	}
	var nonce uint64
	if !opts.FixedIDs {
		nonce = reqid.Nonce()
	}
	if err := checkReportPath(opts.Report); err != nil {
		return err
	}
	if opts.SaveCases != "" {
		if err := os.MkdirAll(opts.SaveCases, 0o755); err != nil {
			return usagef("--save-cases: %w", err)
		}
	}

	seed, anchor := check.SeedOf(opts.Seed, a.now())
	key := a.errColor.Key.Sprint("whsim:")
	if opts.Insecure {
		fmt.Fprintf(a.streams.Err, "%s --insecure: the receiver's TLS certificate is not verified\n", key)
	}
	ids, skipped := check.Runnable(ids, signer != nil)
	if skipped {
		if len(ids) == 0 {
			return usagef("--checks signature needs --secret whsec_...")
		}
		fmt.Fprintf(a.streams.Err, "%s the signature check needs --secret: skipped\n", key)
	}
	fmt.Fprintf(a.streams.Err, "%s checking %s (seed %d): %s\n", key, termsafe.Text(target.Redacted()), seed, strings.Join(ids, ", "))

	rep, out, err := newCheckReporter(a, opts, target, header)
	if err != nil {
		return err
	}
	prog := term.NewCheckProgress(a.streams.Err, a.streams.ErrTTY)
	rep.Signer, rep.Now = signer, a.now
	// --report and the job summary are written from what a collector
	// beside the run's output keeps, and the requests of the cases that
	// did not pass.
	result := rep.Result
	var col *term.Collector
	var rec *htmlreport.CheckRecorder
	if opts.Report != "" || stepSummary() != "" {
		col = &term.Collector{}
		out = term.Tee(out, col)
		rep.Out = term.CheckSink{R: out}
		rec = &htmlreport.CheckRecorder{Target: target, Header: header}
		result = func(res check.Result) { rec.Result(res); rep.Result(res) }
	}
	sum, err := check.Run(ctx, check.Config{
		Client: client, Target: target, Checks: ids, Seed: seed, Anchor: anchor, Now: a.now,
		Header: header, Signer: signer, Strict: opts.Strict, LatencyBudget: opts.LatencyBudget,
		LoadCount: opts.LoadCount, LoadConcurrency: opts.LoadConc,
		Probe: prb, Settle: opts.Settle, Nonce: nonce, SaveDir: opts.SaveCases, CurlTLS: curlTLS,
		ExcludeCases: opts.ExcludeCases, Progress: func(pr check.Progress) { prog.Update(pr.Check, pr.Done, pr.Total, pr.Case) },
		Notice: func(msg string) {
			prog.Clear()
			fmt.Fprintf(a.streams.Err, "%s %s\n", key, msg)
		},
	}, func(res check.Result) {
		prog.Clear()
		result(res)
	})
	prog.Stop()
	var unreachable *check.UnreachableError
	var probeErr *probe.Error
	switch {
	case errors.As(err, &unreachable):
		checkAbortReport(a, opts, col, rec, target, seed, ids, unreachable)
		return usageErr(unreachable)
	case errors.As(err, &probeErr):
		// The probe's fault, not the receiver's: no verdict, exit 2; the
		// cases graded before it stay on stdout.
		_ = out.Abort()
		checkAbortReport(a, opts, col, rec, target, seed, ids, probeErr)
		return usageErr(probeErr)
	case ctx.Err() != nil:
		if sum != nil {
			_ = rep.Finish(sum)
		}
		_ = checkReports(a, opts, col, rec, target, seed, ids, sum)
		return errInterrupted
	case err != nil:
		return fmt.Errorf("check %s: %w", termsafe.Text(target.Redacted()), err)
	}
	if err := rep.Finish(sum); err != nil {
		return err
	}
	if err := checkReports(a, opts, col, rec, target, seed, ids, sum); err != nil {
		return err
	}
	if sum.Failed() {
		return errChecksFailed
	}
	return nil
}

// newProbe is the probe --probe or --probe-cmd asks with, nil for none.
func newProbe(opts *checkOptions, client *http.Client, curlTLS []string) (probe.Probe, error) {
	switch {
	case opts.Probe != "":
		h, err := endpoint.ParseHeaders(opts.ProbeHeaders)
		if err != nil {
			return nil, usagef("--probe-header: %w", err)
		}
		p, err := probe.ParseURL(opts.Probe, client, h)
		if err != nil {
			return nil, usagef("--probe %s: %w", termsafe.Text(opts.Probe), err)
		}
		p.CurlTLS = curlTLS
		return p, nil
	case opts.ProbeCmd != "":
		return &probe.Cmd{Run: opts.ProbeCmd, Timeout: opts.Timeout}, nil
	}
	return nil, nil
}

// newCheckReporter connects a check run's report to term's renderers:
// stdout as --output says, and the JUnit report. out is stdout's.
func newCheckReporter(a *app, opts *checkOptions, target *url.URL, header http.Header) (*check.Reporter, term.Reporter, error) {
	out, err := term.New(opts.Output, a.streams.Out, style(a.outColor(), opts.Verbose), true)
	if err != nil {
		return nil, nil, usagef("--output: %w", err)
	}
	r := &check.Reporter{Out: term.CheckSink{R: out}, Target: target, Header: header, SaveDir: opts.SaveCases, Budget: opts.LatencyBudget, Verbose: opts.Verbose}
	if opts.JUnit != "" {
		j, _ := term.New(term.JUnit, &opts.junit, term.Style{}, false)
		r.JUnit = term.CheckSink{R: j, JUnit: true}
	}
	return r, out, nil
}

// checkJUnitPath refuses a --junit file that could not be written, before
// the run rather than after it.
func checkJUnitPath(name string) error {
	if name == "" {
		return nil
	}
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		return usagef("--junit %s: is a directory", name)
	}
	if fi, err := os.Stat(filepath.Dir(name)); err != nil || !fi.IsDir() {
		return usagef("--junit %s: no directory %s", name, filepath.Dir(name))
	}
	return nil
}
