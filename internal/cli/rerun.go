package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

// runRerun is check --rerun: the failed cases of a report, sent again.
func runRerun(ctx context.Context, a *app, opts *checkOptions) error {
	for _, name := range []string{"checks", "exclude-checks", "save-cases", "seed", "strict", "load-count", "load-concurrency", "latency-budget"} {
		if opts.changed != nil && opts.changed(name) {
			return usagef("--rerun sends the failed cases of a report as they were: --%s does not apply", name)
		}
	}
	if err := checkJUnitPath(opts.JUnit); err != nil {
		return err
	}
	cases, err := readRerun(ctx, a, opts.Rerun)
	if err != nil {
		return err
	}
	var cfg check.RerunConfig
	if opts.URL != "" {
		if cfg.Target, err = endpoint.ParseTarget(opts.URL); err != nil {
			return usagef("--url %w", err)
		}
	}
	if cfg.Header, err = endpoint.ParseHeaders(opts.Headers); err != nil {
		return usageErr(err)
	}
	if opts.Secret != "" {
		if cfg.Signer, err = sign.NewSigner(opts.Secret); err != nil {
			return usagef("--secret: %w", err)
		}
	}
	if cfg.Client, err = newClient(attempt.ClientOptions{
		Timeout: opts.Timeout, Concurrency: check.DefaultConcurrent, Insecure: opts.Insecure, CAFile: opts.CACert,
	}); err != nil {
		return err
	}
	cfg.Now, cfg.IDs = a.now, reqid.NewIDs(0)
	key := a.errColor.Key.Sprint("whsim:")
	if len(cases) == 0 {
		fmt.Fprintf(a.streams.Err, "%s %s: no case failed, nothing to rerun\n", key, termsafe.Text(opts.Rerun))
		return nil
	}
	if masked := maskedLeft(cases, cfg.Header); len(masked) > 0 {
		fmt.Fprintf(a.streams.Err, "%s the report masks %s: give %s again with -H, or the receiver sees ****\n",
			a.errColor.Warn.Sprint("warning:"), strings.Join(masked, ", "), term.Plural(len(masked), "it", "them"))
	}
	fmt.Fprintf(a.streams.Err, "%s rerunning %d failed %s of %s\n", key, len(cases), term.Plural(len(cases), "case", "cases"), termsafe.Text(opts.Rerun))

	out, err := term.New(opts.Output, a.streams.Out, style(a.outColor(), false), true)
	if err != nil {
		return usagef("--output: %w", err)
	}
	var junit term.Reporter
	if opts.JUnit != "" {
		junit, _ = term.New(term.JUnit, &opts.junit, term.Style{}, false)
	}
	sum := &check.RerunSummary{Total: len(cases)}
	var repErr error
	err = check.Rerun(ctx, cfg, cases, func(r check.RerunResult) {
		sum.Add(r)
		c := term.RerunCase{RerunResult: r}
		if err := out.Case(c); err != nil && repErr == nil {
			repErr = err
		}
		if junit != nil {
			_ = junit.Case(c)
		}
	})
	var unreachable *check.UnreachableError
	switch {
	case errors.As(err, &unreachable):
		_ = out.Abort()
		return usageErr(unreachable)
	case ctx.Err() != nil:
		sum.Interrupted = true
		_ = out.Finish(term.RerunSummary{RerunSummary: sum})
		if junit != nil {
			_ = junit.Finish(term.RerunSummary{RerunSummary: sum})
		}
		return errInterrupted
	case err != nil && sum.Fixed+sum.StillFailing+sum.NotRerun == 0:
		return usageErr(err)
	case err != nil:
		return err
	}
	if err := out.Finish(term.RerunSummary{RerunSummary: sum}); err != nil {
		return err
	}
	if junit != nil {
		if err := junit.Finish(term.RerunSummary{RerunSummary: sum}); err != nil {
			return err
		}
	}
	if repErr != nil {
		return repErr
	}
	if !sum.AllFixed() {
		return errChecksFailed
	}
	return nil
}

// readRerun reads the failed cases of a report file, "-" (stdin) or a
// --save-cases directory.
func readRerun(ctx context.Context, a *app, name string) ([]check.Failed, error) {
	dir := ""
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		dir = name
		name = filepath.Join(name, check.ResultsFile)
		if _, err := os.Stat(name); err != nil {
			return nil, usagef("--rerun %s: no %s: want a directory check --save-cases wrote", filepath.Dir(name), check.ResultsFile)
		}
	}
	shown := ctxio.InputName(name)
	in, err := ctxio.OpenInput(ctx, name, a.streams.In)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, usageErr(fmt.Errorf("--rerun: %w", err))
	}
	defer in.Close()
	cases, err := check.ReadFailed(in)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var le *check.ReportLineError
	switch {
	case errors.As(err, &le):
		return nil, usagef("--rerun %s: %w: want the output of whsim check --output json", shown, err)
	case err != nil:
		return nil, usagef("--rerun %s: %w", shown, err)
	}
	if dir != "" {
		for i := range cases {
			if err := savedHeaders(dir, &cases[i]); err != nil {
				return nil, usagef("--rerun %s: %w", dir, err)
			}
		}
	}
	return cases, nil
}

// savedHeaders takes a case's headers from its saved records, which keep
// the credentials the report masks: the file of the case's check and name
// in dir, wherever the run was started from.
func savedHeaders(dir string, c *check.Failed) error {
	if c.File == "" || c.Want == "" {
		return nil
	}
	name := filepath.Join(dir, filepath.Base(filepath.Dir(c.File)), filepath.Base(c.File))
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	rec, err := capture.NewReader(f).Next()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	c.Header = rec.Headers
	return nil
}

// maskedLeft names the credential headers the cases hold masked that -H
// does not give again.
func maskedLeft(cases []check.Failed, given map[string][]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cases {
		for k, vs := range c.Header {
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
	return out
}
