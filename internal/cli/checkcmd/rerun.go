package checkcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/cli/checkout"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/delivery"
	"github.com/whsim/whsim/internal/cli/reportfile"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/jobsummary"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/tlsconf"
)

// runRerun is check --rerun: the failed cases of a report, sent again.
func runRerun(ctx context.Context, a *cmdutil.App, opts *checkOptions) error {
	if err := opts.validateRerun(); err != nil {
		return err
	}
	r, err := opts.buildRerun(ctx, a)
	if err != nil {
		return err
	}
	if err := reportfile.Reserve(a, opts.JUnit, "", "whsim check", "whsim.check"); err != nil {
		return err
	}
	return r.run(ctx)
}

// validateRerun refuses the flags a rerun cannot take: a report's cases
// are sent as they were.
func (o *checkOptions) validateRerun() error {
	for _, name := range []string{"checks", "exclude-checks", "exclude-cases", "save-cases", "report", "seed", "fixed-ids", "strict", "load-count", "load-concurrency", "latency-budget"} {
		if o.changed != nil && o.changed(name) {
			return cmdutil.Usagef("--rerun sends the failed cases of a report as they were: --%s does not apply", name)
		}
	}
	return reportfile.CheckJUnitPath(o.JUnit, o.rerunInputs()...)
}

// rerunInputs are the files --rerun reads: the report, or a --save-cases
// directory and the results file in it, which a --junit or --report
// naming it would replace (the run's failures gone, the next rerun
// refused). None without --rerun.
func (o *checkOptions) rerunInputs() []string {
	if o.Rerun == "" {
		return nil
	}
	if fi, err := os.Stat(o.Rerun); err == nil && fi.IsDir() {
		return []string{o.Rerun, filepath.Join(o.Rerun, check.ResultsFile)}
	}
	return []string{o.Rerun}
}

// rerunCredentials names the flags that give a rerun credentials (-H,
// --secret), "" when none does.
func rerunCredentials(o *checkOptions) string {
	switch {
	case len(o.Headers) > 0 && o.Secret != "":
		return "-H and --secret"
	case len(o.Headers) > 0:
		return "-H"
	case o.Secret != "":
		return "--secret"
	}
	return ""
}

// checkRerun is one rerun as its report and flags made it.
type checkRerun struct {
	a     *cmdutil.App
	opts  *checkOptions
	cfg   check.RerunConfig
	cases []check.Failed
	// ended is how the report's run ended: the checks it cut short or
	// never ran (it stopped, or was interrupted), of which a rerun of its
	// failed cases says nothing.
	ended check.ReportEnd
	// fromReport says the URL is the report's; probeNote says which
	// probe the effects cases are asked with ("" for none).
	fromReport, probeNote string
}

// buildRerun reads the report and turns it and the flags into the
// rerun's config. A report is input, and may have been edited: every call
// goes to one URL, --url or the run's own, and the user sees which before
// the first; the credentials -H and --secret give go only to --url.
func (o *checkOptions) buildRerun(ctx context.Context, a *cmdutil.App) (*checkRerun, error) {
	rep, err := readRerun(ctx, a, o.Rerun)
	if err != nil {
		return nil, err
	}
	cases := rep.cases
	r := &checkRerun{a: a, opts: o, cases: cases, ended: rep.ended}
	where := o.URL
	if where == "" && len(cases) > 0 {
		if where, err = check.RunURL(cases); err != nil {
			return nil, cmdutil.Usagef("--rerun %s: %w", termsafe.Text(o.Rerun), err)
		}
		creds := rerunCredentials(o)
		if creds == "" && rep.kept != "" {
			// The saved cases keep the credentials the run's -H gave,
			// which its report masks: the URL beside them in
			// results.ndjson is no more trusted than a report's.
			creds = "the credentials the saved cases keep (" + termsafe.Text(rep.kept) + ")"
		}
		if creds != "" {
			// Printing the report's URL before the first call does not
			// help an unattended run: an edited report would take the
			// credentials to its host. They go only where the user says.
			return nil, cmdutil.Usagef("--rerun %s: %s would go to the report's URL, %s, and a report may have been edited: give --url to say where they go", termsafe.Text(o.Rerun), creds, termsafe.Text(termsafe.URLString(where)))
		}
		r.fromReport = " (the report's URL; --url sends elsewhere)"
	}
	if where != "" {
		if r.cfg.Target, err = endpoint.ParseHookTarget(where); err != nil {
			if r.fromReport != "" {
				return nil, cmdutil.Usagef("--rerun %s: the report's url %w", termsafe.Text(o.Rerun), err)
			}
			return nil, cmdutil.Usagef("--url %w", err)
		}
	}
	if r.cfg.Header, err = endpoint.ParseHeaders(o.Headers); err != nil {
		return nil, cmdutil.Usagef("--header %w", err)
	}
	if o.Secret != "" {
		if r.cfg.Signer, err = sign.NewSigner(o.Secret); err != nil {
			return nil, cmdutil.Usagef("--secret: %w", err)
		}
	}
	if r.cfg.Client, err = delivery.NewClient(attempt.ClientOptions{
		Timeout: o.Timeout, Concurrency: check.DefaultConcurrent, Insecure: o.Insecure, CAFile: o.CACert,
	}); err != nil {
		return nil, err
	}
	r.cfg.Now, r.cfg.IDs = a.Now, reqid.NewIDs(0)
	if len(cases) == 0 {
		return r, nil // nothing to send: run says so
	}
	if r.probeNote, err = rerunProbe(o, &r.cfg, cases, curlTLSOf(o)); err != nil {
		return nil, err
	}
	if c, ok := check.FirstSigned(cases, r.cfg.Probe != nil); ok && r.fromReport != "" && r.cfg.Signer == nil {
		// Said whole here, as Rerun would say only "--secret", which
		// without --url is refused in turn: one message, one fix.
		return nil, cmdutil.Usagef("--rerun %s: %s %s was signed with the run's secret: give --url and --secret to sign it afresh (a secret goes only to a URL you give)", termsafe.Text(o.Rerun), termsafe.Text(c.Check), termsafe.Text(c.Name))
	}
	r.cfg.Settle = o.Settle
	again := *o
	if r.probeNote != "" && o.Probe == "" && o.ProbeCmd == "" {
		again.Probe = probe.Name(r.cfg.Probe)
	}
	r.cfg.Again = checkCommand(r.cfg.Target.String(), r.cfg.Header, o.Secret != "", &again) + " --checks "
	return r, nil
}

// run says what it sends where, sends the cases again and says, per
// case, whether it is fixed.
func (r *checkRerun) run(ctx context.Context) error {
	o, errw, key := r.opts, r.a.Streams.Err, r.a.ErrColor.Key.Sprint("whsim:")
	if note := r.notRunNote(); note != "" {
		// "fixed" and "nothing to rerun" are of the cases the run judged:
		// said before them, so that no one reads them as the whole battery.
		fmt.Fprintf(errw, "%s %s\n", r.a.ErrColor.Warn.Sprint("warning:"), note)
	}
	if len(r.cases) == 0 {
		fmt.Fprintf(errw, "%s %s: no case failed, nothing to rerun\n", key, termsafe.Text(o.Rerun))
		return r.nothingToRerun()
	}
	r.warnMasked()
	fmt.Fprintf(errw, "%s rerunning %d failed %s of %s to %s%s\n", key, len(r.cases), term.Plural(len(r.cases), "case", "cases"),
		termsafe.Text(o.Rerun), termsafe.Text(termsafe.URL(r.cfg.Target)), r.fromReport)
	if r.probeNote != "" {
		fmt.Fprintf(errw, "%s %s\n", key, termsafe.Text(r.probeNote))
	}

	out, err := term.New(o.Output, r.a.Streams.Out, cmdutil.Style(r.a.OutColor, false), true)
	if err != nil {
		return cmdutil.Usagef("--output: %w", err)
	}
	// Under GitHub Actions a collector beside the output keeps the rerun
	// for the job summary, as check's run does.
	var col *term.Collector
	if reportfile.StepSummary() != "" {
		col = &term.Collector{}
		out = term.Tee(out, col)
	}
	var junit term.Reporter
	if o.JUnit != "" {
		// Suites carry the target, as check's do: the reruns of two
		// receivers merged into one file stay apart.
		junit = term.NewJUnit(&o.junit, termsafe.URL(r.cfg.Target))
	}
	sum := &check.RerunSummary{Total: len(r.cases), ReportEnd: r.ended}
	var repErr error
	sent := map[[2]string]bool{} // the cases sent again (or judged not to be), by check and name
	err = check.Rerun(ctx, r.cfg, r.cases, func(res check.RerunResult) {
		sum.Add(res)
		sent[[2]string{res.Case.Check, res.Case.Name}] = true
		c := checkout.RerunCase{RerunResult: res}
		if err := out.Case(c); err != nil && repErr == nil {
			repErr = err
		}
		if junit != nil {
			_ = junit.Case(c)
		}
	})
	if junit != nil {
		r.junitEnd(ctx, junit, sum, sent, err)
	}
	err = rerunEnd(ctx, err, sum, out, junit)
	if col != nil && (err == nil || sum.Interrupted || sum.Unfinished != "") {
		r.jobSummary(col, sum)
	}
	if err != nil {
		return err
	}
	if repErr != nil {
		return repErr
	}
	if !sum.Passed() {
		// A case still failing, or checks the report's run never ran:
		// those are no pass either (the summary names them).
		return cmdutil.ErrChecksFailed
	}
	return nil
}

// warnMasked says, before the first call, which credentials the report
// masks that go out as masks: the headers -H does not give again, and of
// the report's URL its password (xxxxx, sent as the URL's Basic auth),
// its user without a password (****, a token sent as Basic auth the same
// way) or a token in its query (****).
func (r *checkRerun) warnMasked() {
	errw, warn := r.a.Streams.Err, r.a.ErrColor.Warn.Sprint("warning:")
	if masked := maskedLeft(r.cases, r.cfg.Header); len(masked) > 0 {
		fmt.Fprintf(errw, "%s the report masks %s: give %s again with -H, or the receiver sees ****\n",
			warn, strings.Join(masked, ", "), term.Plural(len(masked), "it", "them"))
	}
	if r.fromReport == "" {
		return
	}
	switch m := check.MaskedCredential(r.cfg.Target, "", r.cfg.Header); {
	case m == "the URL's password":
		fmt.Fprintf(errw, "%s the report masks the password of its URL: give --url with it again, or the receiver gets xxxxx\n", warn)
	case m == "the URL's user":
		fmt.Fprintf(errw, "%s the report masks the user of its URL (a token): give --url with it again, or the receiver gets %s\n", warn, termsafe.UserMask)
	case strings.HasPrefix(m, "the query's "):
		fmt.Fprintf(errw, "%s the report masks the %s in its URL's query: give --url with it again, or the receiver gets ****\n",
			warn, termsafe.Text(strings.TrimPrefix(m, "the query's ")))
	}
}

// junitEnd adds the JUnit cases of how the rerun ended (err: check.Rerun's),
// after the cases sent again (sent: by check and name): CI reads the JUnit
// alone, so an interrupted rerun fails there, and a rerun that ended early
// (Ctrl-C, a receiver it cannot reach, a probe at fault) lists each case it
// never sent again as skipped, not absent; then the checks the report's
// run left unrun (UntestedCases).
func (r *checkRerun) junitEnd(ctx context.Context, junit term.Reporter, sum *check.RerunSummary, sent map[[2]string]bool, err error) {
	why := ""
	switch {
	case ctx.Err() != nil:
		_ = junit.Case(checkout.InterruptedRerunCase{RerunSummary: sum})
		why = "the rerun was interrupted"
	case err != nil:
		why = "the rerun did not complete: " + err.Error()
	}
	if why != "" {
		for _, c := range r.cases {
			if !sent[[2]string{c.Check, c.Name}] {
				_ = junit.Case(checkout.NotSentCase{Failed: c, Why: why})
			}
		}
	}
	for _, c := range checkout.UntestedCases(r.opts.Rerun, r.notRunNote(), r.ended) {
		_ = junit.Case(c)
	}
}

// jobSummary appends the rerun's section to the job summary from its
// cases (col): the verdict, a row per check of the cases sent again, the
// first still failing, and, for a rerun that did not complete, why.
func (r *checkRerun) jobSummary(col *term.Collector, sum *check.RerunSummary) {
	js := jobsummary.FromCollector(col, "whsim check --rerun", "check", sum.Passed())
	if note := r.notRunNote(); note != "" {
		js.Headline = note + "; " + js.Headline
	}
	// The checks the report's run never ran are rows of their own, as in
	// check's summary of a run that ended early.
	js.EndedEarly(r.ended.CutShort, r.ended.NotRun)
	js.Target = termsafe.Text(termsafe.URL(r.cfg.Target))
	js.Interrupted = sum.Interrupted
	js.Unfinished = termsafe.Text(sum.Unfinished)
	reportfile.AppendJobSummary(r.a, js)
}

// notRunNote says which checks the report's run left unrun, "" when it
// ran them all: a rerun sends its failed cases again, and the checks it
// cut short or never ran are as untested after the rerun as before.
func (r *checkRerun) notRunNote() string {
	if !r.ended.Untested() {
		return ""
	}
	if r.ended.NoSummary {
		return fmt.Sprintf("%s: its run %s: a rerun sends only its failed cases again; run whsim check again for a verdict on every check",
			termsafe.Text(r.opts.Rerun), checkout.ReportEnded(r.ended))
	}
	return fmt.Sprintf("%s: its run %s: a rerun sends only its failed cases again; run whsim check for %s",
		termsafe.Text(r.opts.Rerun), checkout.ReportEnded(r.ended), term.Plural(len(r.ended.NotRun)+min(len(r.ended.CutShort), 1), "it", "them"))
}

// nothingToRerun ends the rerun of a report in which no case failed: a
// pass, nothing still fails, whose -o json summary and --junit say so.
// -o json wrote nothing (a jq got empty input) and --junit was not
// written, leaving a stale file of an earlier run in its place. A report
// whose run never ran some checks is no pass (exit 1): its text says so
// on stdout too, its JUnit has a failing case and a skipped one per check.
func (r *checkRerun) nothingToRerun() error {
	sum := checkout.RerunSummary{RerunSummary: &check.RerunSummary{ReportEnd: r.ended}}
	headline := "no case failed in " + termsafe.Text(r.opts.Rerun) + ": nothing to rerun"
	if note := r.notRunNote(); note != "" {
		headline = note + "; " + headline
	}
	reportfile.AppendJobSummary(r.a, &jobsummary.Summary{Title: "whsim check --rerun", Pass: sum.Passed(), Headline: headline})
	if r.opts.Output == term.JSON || !sum.Passed() {
		out, err := term.New(r.opts.Output, r.a.Streams.Out, cmdutil.Style(r.a.OutColor, false), true)
		if err != nil {
			return cmdutil.Usagef("--output: %w", err)
		}
		if err := out.Finish(sum); err != nil {
			return err
		}
	}
	if r.opts.JUnit != "" {
		junit := term.NewJUnit(&r.opts.junit, termsafe.URL(r.cfg.Target))
		_ = junit.Case(checkout.NothingToRerun(r.opts.Rerun))
		for _, c := range checkout.UntestedCases(r.opts.Rerun, r.notRunNote(), r.ended) {
			_ = junit.Case(c)
		}
		if err := junit.Finish(sum); err != nil {
			return err
		}
	}
	if !sum.Passed() {
		return cmdutil.ErrChecksFailed
	}
	return nil
}

// rerunEnd finishes a rerun's output as check.Rerun ended: a receiver
// that cannot be reached or a probe at fault is exit 2, its summary (JSON,
// JUnit) saying why; Ctrl-C sums up what was rerun.
func rerunEnd(ctx context.Context, err error, sum *check.RerunSummary, out, junit term.Reporter) error {
	var unreachable *check.UnreachableError
	var probeErr *probe.Error
	switch {
	case errors.As(err, &unreachable):
		rerunAbort(sum, unreachable, out, junit)
		return cmdutil.UsageErr(unreachable)
	case errors.As(err, &probeErr):
		// The probe's fault, not the receiver's: exit 2.
		rerunAbort(sum, probeErr, out, junit)
		return cmdutil.UsageErr(probeErr)
	case ctx.Err() != nil:
		sum.Interrupted = true
		_ = out.Finish(checkout.RerunSummary{RerunSummary: sum})
		if junit != nil {
			_ = junit.Finish(checkout.RerunSummary{RerunSummary: sum})
		}
		return cmdutil.ErrInterrupted
	case err != nil && sum.Fixed+sum.StillFailing+sum.NotRerun == 0:
		return cmdutil.UsageErr(err)
	case err != nil:
		return err
	}
	if err := out.Finish(checkout.RerunSummary{RerunSummary: sum}); err != nil {
		return err
	}
	if junit != nil {
		return junit.Finish(checkout.RerunSummary{RerunSummary: sum})
	}
	return nil
}

// rerunAbort ends the output of a rerun that could not complete with why:
// -o json's summary says it (a jq got empty input), --junit has it as a
// case in error after the cases rerun, under the receiver's name.
func rerunAbort(sum *check.RerunSummary, why error, out, junit term.Reporter) {
	sum.Unfinished = why.Error()
	_ = out.Finish(checkout.RerunSummary{RerunSummary: sum})
	if junit != nil {
		_ = junit.Case(checkout.UnfinishedCase(sum.Unfinished))
		_ = junit.Finish(checkout.RerunSummary{RerunSummary: sum})
	}
}

// rerunReport is what --rerun read: the report's failed cases, how its
// run ended, and, of a --save-cases directory, the first credential its
// saved cases put back where the report masks it ("Authorization in
// cases/x/y.ndjson"; "" for none).
type rerunReport struct {
	cases []check.Failed
	ended check.ReportEnd
	kept  string
}

// readRerun reads the failed cases of a report file, "-" (stdin) or a
// --save-cases directory.
func readRerun(ctx context.Context, a *cmdutil.App, name string) (rerunReport, error) {
	dir := ""
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		dir = name
		name = filepath.Join(name, check.ResultsFile)
		if _, err := os.Stat(name); err != nil {
			return rerunReport{}, cmdutil.Usagef("--rerun %s: no %s: want a directory check --save-cases wrote", filepath.Dir(name), check.ResultsFile)
		}
	}
	shown := ctxio.InputName(name)
	var in io.ReadCloser
	if name == "-" {
		in = io.NopCloser(ctxio.NewReader(ctx, a.Streams.In))
	} else {
		f, err := openRegular(name)
		if err != nil {
			return rerunReport{}, cmdutil.UsageErr(fmt.Errorf("--rerun: %w", err))
		}
		// Reads give way to Ctrl-C and SIGTERM.
		in = readCloser{ctxio.NewReader(ctx, f), f}
	}
	defer in.Close()
	cases, ended, err := check.ReadReport(in)
	if ctx.Err() != nil {
		return rerunReport{}, ctx.Err()
	}
	var le *check.ReportLineError
	switch {
	case errors.As(err, &le):
		// At its place, as every command that reads a file back says it.
		return rerunReport{}, cmdutil.Usagef("--rerun: %s: want the output of whsim check --output json", input.At(shown, le.Line, le.Column, le.Err.Error()))
	case err != nil:
		return rerunReport{}, cmdutil.Usagef("--rerun %s: %w", shown, err)
	}
	rep := rerunReport{cases: cases, ended: ended}
	if dir != "" {
		for i := range cases {
			kept, err := savedHeaders(ctx, dir, &cases[i])
			if err != nil {
				if ctx.Err() != nil {
					return rerunReport{}, ctx.Err()
				}
				return rerunReport{}, cmdutil.Usagef("--rerun %s: %w", dir, err)
			}
			if rep.kept == "" {
				rep.kept = kept
			}
		}
	}
	return rep, nil
}

// savedHeaders takes a case's headers from its saved records, which keep
// the credentials the report masks: the file of the case's check and name
// in dir, wherever the run was started from. It returns the first
// credential header it put back where the report's line masks it, and
// the file ("Authorization in cases/x/y.ndjson"), "" for none.
func savedHeaders(ctx context.Context, dir string, c *check.Failed) (string, error) {
	if c.File == "" || c.Want == "" {
		return "", nil
	}
	// The report is untrusted: the file is its check's folder and a case
	// file in it, as check writes them, so that an edited file member
	// (../calls.ndjson) cannot send another file's credentials, nor a link:
	// the case file, or its check's folder (check writes no link, and a
	// folder linked elsewhere would read a file outside the directory).
	folder, base := filepath.Base(filepath.Dir(c.File)), filepath.Base(c.File)
	if folder != c.Check || !slices.Contains(check.IDs(), folder) || !strings.HasSuffix(base, ".ndjson") {
		return "", fmt.Errorf("%s %s: its file %s is not <check>/<case>.ndjson in the directory: a report and its cases are files check wrote", c.Check, c.Name, termsafe.Text(c.File))
	}
	name := filepath.Join(dir, folder, base)
	for _, p := range []string{filepath.Join(dir, folder), name} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return "", fmt.Errorf("%s: a symbolic link: a report and its cases are files check wrote", p)
		}
	}
	f, err := openRegular(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	// The first record is all that is read: one line, bounded as a report's.
	rec, err := capture.NewReader(io.LimitReader(ctxio.NewReader(ctx, f), check.MaxReport)).Next()
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	// Held to what an HTTP request carries, as the report's headers are
	// (and as replay holds a capture's): an edited file would otherwise
	// fail each delivery and read as the receiver still failing.
	if err := capture.CheckReplayable(http.MethodPost, "", rec.Headers); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	kept := ""
	for _, k := range slices.Sorted(maps.Keys(rec.Headers)) {
		if termsafe.SecretHeader(k) && !slices.Equal(rec.Headers[k], c.Header[k]) {
			kept = k + " in " + name
			break
		}
	}
	c.Header = rec.Headers
	return kept, nil
}

// maskedLeft names the credential headers the cases hold masked that -H
// does not give again.
func maskedLeft(cases []check.Failed, given map[string][]string) []string {
	seen := map[string]bool{}
	var out []string
	note := func(h map[string][]string) {
		for k, vs := range h {
			if _, ok := given[k]; ok || seen[k] || !termsafe.SecretHeader(k) {
				continue
			}
			for _, v := range vs {
				if strings.Contains(v, "****") {
					seen[k] = true
					out = append(out, k)
					break
				}
			}
		}
	}
	for _, c := range cases {
		note(c.Header)
		if c.Effects != nil { // an effects document's calls keep theirs masked too
			for _, call := range c.Effects.Calls {
				note(call.Headers)
			}
		}
	}
	return out
}

// readCloser reads through r and closes c.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// openRegular opens a file a report names, or the report: only a regular
// file. A FIFO (or a device) would block whsim or feed it without end; it
// is opened without blocking and refused.
func openRegular(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %w", name, pe.Err)
		}
		return nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	case fi.IsDir():
		f.Close()
		return nil, fmt.Errorf("%s: is a directory", name)
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file (%s): a report and its cases are files check wrote", name, ctxio.FileKind(fi.Mode()))
	}
	return f, nil
}

// curlTLSOf are the curl flags of the run's TLS settings.
func curlTLSOf(opts *checkOptions) []string {
	return tlsconf.CurlFlags(tlsconf.Options{Insecure: opts.Insecure, CAFile: opts.CACert})
}

// rerunProbe sets the probe the effects cases are asked with: --probe or
// --probe-cmd, else the report's URL probe when it asks the receiver's
// own host (a report is input: its probe must not send whsim elsewhere,
// and a command it names is never run). It returns a line saying which
// probe a rerun asks, "" when no effects case needs one.
func rerunProbe(opts *checkOptions, cfg *check.RerunConfig, cases []check.Failed, curlTLS []string) (string, error) {
	var rec *check.ProbeRecord
	needs := false
	for _, c := range cases {
		needs = needs || c.Check == check.Effects
		if c.Effects != nil && rec == nil {
			rec = &c.Effects.Probe
		}
	}
	switch {
	case opts.Probe != "" && opts.ProbeCmd != "":
		return "", cmdutil.Usagef("--probe and --probe-cmd: give one way to ask the receiver, not both")
	case len(opts.ProbeHeaders) > 0 && opts.Probe == "":
		return "", cmdutil.Usagef("--probe-header needs --probe, the URL it is sent to")
	case opts.Settle < 0:
		return "", cmdutil.Usagef("--settle %s: want 0 or more", opts.Settle)
	case !needs:
		return "", nil
	case opts.Probe != "" || opts.ProbeCmd != "":
		p, err := newProbe(opts, cfg.Client, curlTLS)
		if err != nil {
			return "", err
		}
		cfg.Probe = p
		return "asking " + probe.Name(p) + " what the receiver stored", nil
	case rec == nil:
		return "", nil
	case rec.Cmd != "":
		return "", cmdutil.Usagef("--rerun %s: the report's probe is a command (%s), and whsim runs no command a file names: give --probe-cmd again", termsafe.Text(opts.Rerun), termsafe.Text(rec.Cmd))
	case rec.URL == "":
		return "", nil
	case termsafe.HasCredential(rec.URL):
		return "", cmdutil.Usagef("--rerun %s: the report's probe %s carried a credential, which a report does not keep: give --probe again", termsafe.Text(opts.Rerun), termsafe.Text(termsafe.URLString(rec.URL)))
	}
	p, err := probe.ParseURL(rec.URL, cfg.Client, nil)
	if err != nil {
		return "", cmdutil.Usagef("--rerun %s: the report's probe %s: %w", termsafe.Text(opts.Rerun), termsafe.Text(rec.URL), err)
	}
	pu, err := url.Parse(strings.NewReplacer("{", "", "}", "").Replace(rec.URL))
	if err != nil || pu.Host != cfg.Target.Host || pu.Scheme != cfg.Target.Scheme {
		return "", cmdutil.Usagef("--rerun %s: the report's probe %s asks another host than the receiver %s: give --probe again to ask it", termsafe.Text(opts.Rerun), termsafe.Text(rec.URL), termsafe.Text(termsafe.URL(cfg.Target)))
	}
	if len(rec.Headers) > 0 {
		return "", cmdutil.Usagef("--rerun %s: the report's probe sent %s, whose values a report does not keep: give --probe %s with --probe-header again", termsafe.Text(opts.Rerun), strings.Join(rec.Headers, ", "), shellcmd.Quote(rec.URL))
	}
	p.CurlTLS = curlTLS
	cfg.Probe = p
	return "asking the report's probe " + rec.URL + " what the receiver stored", nil
}
