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
	"github.com/whsim/whsim/internal/cli/payloadflags"
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
	// reported says the run wrote --report itself (or tried to): when it
	// did not, the file says the run ended before it could.
	reported bool
}

// New is whsim check: its help (help.go), its flags by what they decide
// (flags.go), and runCheck.
func New(a *cmdutil.App) *cobra.Command {
	opts := &checkOptions{}
	cmd := &cobra.Command{
		Use:               helpUse,
		Short:             helpShort,
		Long:              helpLong(),
		Example:           helpExample,
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			opts.changed = cmd.Flags().Changed
			return runCheck(cmd.Context(), a, opts)
		}),
	}
	opts.registerReceiverFlags(cmd)
	opts.registerBatteryFlags(cmd)
	opts.registerProbeFlags(cmd)
	opts.registerReportFlags(cmd)
	a.WhenNotRun(cmd, []string{"junit", "report", "rerun", "save-cases"}, func(err error, words []string) error {
		reportfile.NotOver(append(append(words, opts.rerunInputs()...), opts.SaveCases, opts.savedResults()), &opts.JUnit, &opts.Report)
		return opts.finish(a, err)
	})
	return cmd
}

// runCheck runs a check or a rerun and writes --report and --junit
// whatever the end: the reports when the run made them, else a report
// that says why it did not (HTML headed INCOMPLETE, one JUnit test case in
// error).
func runCheck(ctx context.Context, a *cmdutil.App, opts *checkOptions) error {
	var err error
	if opts.Rerun != "" {
		err = runRerun(ctx, a, opts)
	} else {
		err = runChecks(ctx, a, opts)
	}
	return opts.finish(a, err)
}

// finish writes --report and --junit for a run that ended with err, or
// never began (a flag cobra refused).
func (o *checkOptions) finish(a *cmdutil.App, err error) error {
	reportfile.FinishJobSummary(a, "whsim check", err)
	// Never over what the run reads or writes itself: --rerun's input,
	// --save-cases' directory and its results.
	err = reportfile.FinishReport(a, o.Report, o.JUnit, o.reported, err, "whsim check", append(o.rerunInputs(), o.SaveCases, o.savedResults())...)
	if o.JUnit == "" {
		return err
	}
	return reportfile.WriteJUnit(a, o.JUnit, &o.junit, err, "whsim check", "whsim.check")
}

// runChecks is check without --rerun: validate, build, run. A run that
// graded no case (a flag refused, the receiver unreachable, Ctrl-C at the
// start) removes the results file an earlier run left in --save-cases, as
// --report and --junit say this run's end rather than an earlier one's.
// It is removed before the run starts too, as those are reserved: a run
// killed (SIGKILL, the CI job's timeout) before its first graded case
// has no end at which to remove it, and check --rerun read the earlier
// run's failures as this one's.
func runChecks(ctx context.Context, a *cmdutil.App, opts *checkOptions) error {
	var r *checkRun
	err := opts.validate()
	if err == nil {
		if r, err = opts.build(a); err == nil {
			if err = reportfile.Reserve(a, opts.JUnit, opts.Report, "whsim check", "whsim.check"); err == nil {
				if err = removeStaleResults(a, opts.SaveCases, nil); err != nil {
					return err
				}
				err = r.run(ctx)
			}
		}
	}
	if r != nil && r.rep.SavedResults() {
		return err
	}
	return removeStaleResults(a, opts.SaveCases, err)
}

// savedResults is the results file --save-cases writes, "" without it.
func (o *checkOptions) savedResults() string {
	if o.SaveCases == "" {
		return ""
	}
	return filepath.Join(o.SaveCases, check.ResultsFile)
}

// removeStaleResults removes the results file an earlier run left in the
// --save-cases directory dir ("": none given) and returns err, the run's
// error so far; one it cannot remove is a usage error, err said first.
func removeStaleResults(a *cmdutil.App, dir string, err error) error {
	if dir == "" {
		return err
	}
	if rerr := check.RemoveStaleResults(dir); rerr != nil {
		if err != nil {
			fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Key.Sprint("whsim:"), termsafe.Text(err.Error()))
		}
		return cmdutil.Usagef("--save-cases: the earlier run's %s is left: %w", check.ResultsFile, rerr)
	}
	return err
}

// validate refuses the flags that cannot make a run, before anything is
// built: each a usage error (exit 2) naming the flag.
func (o *checkOptions) validate() error {
	if err := reportfile.CheckJUnitPath(o.JUnit); err != nil {
		return err
	}
	if err := reportfile.CheckApart(o.JUnit, o.Report, o.savedResults(), "--save-cases' "+check.ResultsFile); err != nil {
		return err
	}
	// Nor the directory itself: the run made it, then could not write
	// the report ("file exists"), after its first line.
	if err := reportfile.CheckApart(o.JUnit, o.Report, o.SaveCases, "the --save-cases directory"); err != nil {
		return err
	}
	ids, err := o.selectChecks()
	switch {
	case err != nil:
		return err
	case len(ids) == 0:
		return cmdutil.Usagef("--checks and --exclude-checks leave no check to run")
	case o.URL == "":
		return cmdutil.Usagef("--url: give the receiver to grade")
	case o.FixedIDs && o.Seed == 0:
		// As send refuses it: a drawn seed's ids (and its dates, anchored
		// to now) are no repeat of anything.
		_, err := payloadflags.IDNonce(o.FixedIDs, o.Seed)
		return err
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
	switch { // config refused a run of signature alone without a secret
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

// selectChecks are the checks --checks and --exclude-checks leave to run;
// an unknown name is a usage error naming the flag that gave it (and so,
// through SayFlagSources, the variable or config key when no flag did).
func (o *checkOptions) selectChecks() ([]string, error) {
	if _, err := check.Select(o.Checks, nil); err != nil {
		return nil, cmdutil.Usagef("--checks: %w", err)
	}
	if _, err := check.Select(nil, o.ExcludeChecks); err != nil {
		return nil, cmdutil.Usagef("--exclude-checks: %w", err)
	}
	return check.Select(o.Checks, o.ExcludeChecks)
}

// config is the check config the flags give, before the signature check
// is weighed: the target and its client, the signer, the probe, the
// seed, and where cases are saved (made here, so that a directory that
// cannot be made stops the run before its first call).
func (o *checkOptions) config(a *cmdutil.App) (check.Config, error) {
	ids, err := o.selectChecks()
	if err != nil { // validate said it, so only a caller that skipped it gets here
		return check.Config{}, err
	}
	cfg := check.Config{
		Checks: ids, Now: a.Now, Strict: o.Strict, LatencyBudget: o.LatencyBudget,
		LoadCount: o.LoadCount, LoadConcurrency: o.LoadConc, Settle: o.Settle,
		SaveDir: o.SaveCases, ExcludeCases: o.ExcludeCases,
	}
	if cfg.Target, err = endpoint.ParseHookTarget(o.URL); err != nil {
		return cfg, cmdutil.Usagef("--url %w", err)
	}
	if cfg.Header, err = endpoint.ParseHeaders(o.Headers); err != nil {
		return cfg, cmdutil.Usagef("--header %w", err)
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
	if err := o.leftToRun(ids, cfg.Signer != nil, cfg.Probe != nil); err != nil {
		return cfg, err
	}
	if !o.FixedIDs {
		cfg.Nonce = reqid.Nonce()
	}
	if err := reportfile.CheckReportPath(o.Report, o.JUnit); err != nil {
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

// leftToRun refuses a selection of checks that each need what was not
// given (signature a secret, effects a probe): such a run would send
// nothing and still say ok, exit 0. It is refused however the checks were
// chosen, by --checks or by what --exclude-checks leaves.
func (o *checkOptions) leftToRun(ids []string, signed, probed bool) error {
	var named, need []string
	for _, id := range ids {
		switch {
		case id == check.Effects && !probed:
			need = append(need, "effects needs --probe <url-template> or --probe-cmd <command>")
		case id == "signature" && !signed:
			// Without a secret, signature is no part of the battery unless
			// --checks names it: said only when it is all that is left.
			if len(o.Checks) == 0 && len(ids) > 1 {
				continue
			}
			need = append(need, "signature needs --secret whsec_...")
		default:
			return nil // this one runs
		}
		named = append(named, id)
	}
	ids = named
	if len(o.Checks) == 0 {
		return cmdutil.Usagef("--exclude-checks leaves only %s: %s: no check left to run", strings.Join(ids, ","), strings.Join(need, ", "))
	}
	if len(ids) == 1 {
		return cmdutil.Usagef("--checks %s", need[0])
	}
	return cmdutil.Usagef("--checks %s: %s: no check left to run", strings.Join(ids, ","), strings.Join(need, ", "))
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
	var noCase *check.NoCaseLeftError
	var unmatched *check.UnmatchedExcludeError
	switch {
	case errors.As(err, &noCase):
		return cmdutil.UsageErr(noCase) // before the first call: nothing to report
	case errors.As(err, &unmatched):
		return cmdutil.UsageErr(unmatched) // a typo: before the first call too
	case errors.As(err, &unreachable):
		r.abort(sum, unreachable)
		return cmdutil.UsageErr(unreachable)
	case errors.As(err, &probeErr):
		// The probe's fault, not the receiver's: no verdict, exit 2; the
		// cases graded before it stay on stdout.
		r.abort(sum, probeErr)
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
		if r.a.Streams.OutputLost(err) {
			return err // stdout cannot take the summary either: exit 2
		}
		// --save-cases could not be written: whsim's failure, not the
		// receiver's (exit 2; it was 1, a failed check), and the run has
		// no verdict, which its summary, JUnit and report say.
		r.abort(sum, err)
		return cmdutil.UsageErr(err)
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
	js := r.jobSummary(!sum.Failed())
	js.Interrupted = sum.Interrupted != nil
	// The text's "!" lines and the report's notes: a receiver that
	// answered every call 404 is told the likely cause here too.
	js.Notices = (&check.SummaryReport{Summary: sum}).Notes()
	if n := sum.Unjudged(); n > 0 && sum.NothingJudged() {
		js.Short = fmt.Sprintf("no case judged, %d %s not judged", n, term.Plural(n, "case", "cases"))
	} else if n > 0 {
		js.Short = fmt.Sprintf("no check failed, %d %s not judged", n, term.Plural(n, "case", "cases"))
	}
	js.EndedEarly(sum.CutShort, sum.NotRun)
	reportfile.AppendJobSummary(r.a, js)
	if r.opts.Report == "" {
		return nil
	}
	return r.writeReport(nil)
}

// jobSummary is the run's section of the job summary: the cases graded,
// the target, where the report is and the commands the failures share.
func (r *checkRun) jobSummary(pass bool) *jobsummary.Summary {
	report := r.opts.Report
	js := jobsummary.FromCollector(r.col, "whsim check", "check", pass)
	js.Target = r.where()
	if report != "" {
		js.Note = "The full report: " + filepath.Base(report)
		if len(js.Failures) > 0 {
			js.Note = "The full report, with every failure's request and answer: " + filepath.Base(report)
		}
		js.Full = filepath.Base(report)
	}
	cmds := make([]string, len(js.Failures))
	for i, f := range js.Failures {
		cmds[i] = f.Code
		// A failed case's detail is its reproduce command: shown whole.
		js.Failures[i].Command = true
	}
	if first := checkout.SetFirst(cmds); first != "" {
		js.Note = strings.TrimSpace("The commands: " + first + ". " + js.Note)
	}
	return js
}

// abort ends a run that started and could not complete (why): stdout's
// JSON or JUnit and --junit end with why, after the cases graded (a JSON
// reader got nothing at all, a JUnit one a suite without the target),
// then --report and the job summary say it too.
func (r *checkRun) abort(sum *check.Summary, why error) {
	if err := r.rep.Abort(sum, why); err != nil {
		fmt.Fprintf(r.a.Streams.Err, "%s %v\n", r.key, err)
	}
	r.abortReport(sum, why)
}

// abortReport writes --report and the job summary of a run that started
// and ended in an error of its input (the receiver unreachable, the probe
// at fault): the cases graded before it, and why it did not complete. A
// usage error before the run has no cases to show: its --report and job
// summary are runCheck's (reportfile.FinishReport, FinishJobSummary).
func (r *checkRun) abortReport(sum *check.Summary, why error) {
	if r.col == nil {
		return
	}
	js := r.jobSummary(false)
	js.Unfinished = termsafe.Text(why.Error())
	// The checks it never reached are rows, as in the text, JSON, JUnit
	// and HTML report: a table of the checks that ran alone reads as
	// the whole run.
	if sum != nil {
		js.EndedEarly(sum.CutShort, sum.NotRun)
	}
	reportfile.AppendJobSummary(r.a, js)
	if r.opts.Report == "" {
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
	// secret as a placeholder, the headers) besides the URL and seed,
	// credentials as variables.
	seed := fmt.Sprintf(" --seed %d", r.cfg.Seed)
	if r.opts.FixedIDs {
		seed = "" // verdictFlags gave it, beside --fixed-ids
	}
	m.Command = fmt.Sprintf("%s%s --checks %s", checkCommand(r.cfg.Target.String(), r.rec.Header, r.opts.Secret != "", r.opts), seed, strings.Join(r.cfg.Checks, ","))
	// What they read, as the terminal and the job summary say it.
	cmds := []string{m.Command}
	cases, _ := r.col.Cases()
	for _, c := range cases {
		if c.Verdict == term.Fail { // a failure's detail is its command; a warning's is prose
			cmds = append(cmds, c.Test.Detail)
		}
	}
	m.SetFirst = checkout.SetFirst(cmds)
	data := htmlreport.NewCheck(r.col, r.rec, check.Checks(), r.cfg.Seed)
	if why != nil {
		data.Failed, data.Incomplete = true, true
		data.Headline = "the run did not complete: " + termsafe.Text(why.Error())
		if data.Text == "" {
			data.Text = data.Headline
		}
	}
	r.opts.reported = true
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
			return nil, cmdutil.Usagef("--probe %s: %w", termsafe.Text(termsafe.URLString(opts.Probe)), err)
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
	r := &check.Reporter{Out: checkout.CheckSink{R: out}, Target: target, Header: header, SaveDir: opts.SaveCases, Budget: opts.LatencyBudget, Verbose: opts.Verbose,
		CurlTLS: curlTLSOf(opts), Again: checkCommand(target.String(), header, opts.Secret != "", opts) + " --checks "}
	if opts.JUnit != "" {
		r.JUnit = checkout.CheckSink{R: term.NewJUnit(&opts.junit, where), JUnit: true}
	}
	// --save-cases' results end as --output json does: --rerun DIR reads
	// how the run ended from it.
	r.SummaryLine = func(s *check.SummaryReport) []byte { return checkout.CheckSummary{SummaryReport: s}.AppendJSON(nil) }
	return r, out, nil
}
