package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/deliver"
	"github.com/whsim/whsim/internal/report"
	"github.com/whsim/whsim/internal/reqid"
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
	FixedIDs      bool
	ExcludeCases  []string
}

func newCheckCmd(a *app) *cobra.Command {
	opts := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check --url <url> [--checks <id>,...] [--exclude-checks <id>,...] [--secret <whsec_...>] [--junit <file>] [flags]",
		Short: "Grade a receiver: send valid, malformed, repeated, out-of-order and signed calls and judge every answer",
		Long: `Run a battery of black-box checks against your receiver and say, per case
and per check, whether it behaves the way a webhook receiver must:

` + checkList() + `
The signature check runs only with --secret; every call of the run is then
signed (Standard Webhooks). Failing cases print one line each with the
reason, then the warnings, then a table per check, then a curl command per failure that
sends the same request again (credentials from -H masked: put yours back).
--save-cases writes every case's body to a directory, and the commands then
read the bodies from there. Every failing or warning reason carries the
receiver's answer: its status line and the first 200 bytes of its body.
The warnings of one check are one line with their count; -v lists them and
shows the answer's headers too, as send -v does.

Every run sends fresh requestIds and webhook-ids, even with --seed, so that a
receiver that keeps its data does not see a second run as duplicates: --seed
fixes the documents, --fixed-ids the ids too (a byte-exact repeat).

A receiver that stops answering (refused, reset, or no answer within
--timeout, several calls in a row) stops the run at once: one line says after
which case, and the checks left are reported as not run. When every call got
the same 404, 405, 401 or 403 the summary says so first, with the likely
cause. On a terminal a progress line on stderr shows the check, the case and
the time taken; Ctrl-C stops the run and says how far it got.

--latency-budget defaults to 1s: the spec names no time-out, senders commonly
give up after 5 to 30 seconds, and a receiver should answer first and work
after; one second at p99 leaves room for a cold start while catching one that
processes each document before answering.

Exit status: 0 when no check failed (warnings allowed), 1 when one did or the
receiver stopped answering, 2 for usage errors or a receiver that cannot be
reached at all (or answers nothing to the first call within --timeout), 130
when interrupted.`,
		Example: `  whsim check --url http://localhost:3000/webhook
  whsim check --url http://localhost:3000/webhook --checks accepts-valid,rejects-malformed
  whsim check --url http://localhost:3000/webhook --exclude-checks load,latency --seed 42
  whsim check --url https://hooks.example.com/erp -H 'Authorization: Bearer t0k3n' --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
  whsim check --url http://localhost:3000/webhook --junit check.xml --save-cases cases/
  whsim check --url http://localhost:3000/webhook --exclude-cases 'type/*/*' -v
  whsim check --url http://localhost:3000/webhook --seed 42 --fixed-ids
  whsim check --url http://localhost:3000/webhook --output json | jq 'select(.verdict == "fail")'`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd.Context(), a, opts)
		}),
	}
	f := cmd.Flags()
	f.StringVarP(&opts.URL, "url", "u", "", "the receiver's URL (http or https); businessType is added to its query")
	f.StringSliceVar(&opts.Checks, "checks", nil, "run only these checks (comma-separated): "+strings.Join(check.IDs(), ", "))
	f.StringSliceVar(&opts.ExcludeChecks, "exclude-checks", nil, "leave out these checks (comma-separated)")
	f.Uint64Var(&opts.Seed, "seed", 0, "seed for reproducible cases (0: random, printed on stderr)")
	f.DurationVar(&opts.Timeout, "timeout", 5*time.Second, "time limit of one call; a call that takes longer fails")
	f.StringArrayVarP(&opts.Headers, "header", "H", nil, "add a request header 'Name: value' to every call (repeatable)")
	f.StringVar(&opts.Secret, "secret", "", "sign every call (Standard Webhooks) with this whsec_<base64> secret and run the signature check (also WHSIM_CHECK_SECRET; never printed)")
	f.BoolVarP(&opts.Insecure, "insecure", "k", false, "do not verify the receiver's TLS certificate")
	f.StringVar(&opts.CACert, "cacert", "", "trust the CA certificates in this PEM file (a private CA)")
	f.BoolVar(&opts.Strict, "strict", false, "a type error inside data answered 2xx fails instead of warning")
	f.DurationVar(&opts.LatencyBudget, "latency-budget", check.DefaultLatencyBudget, "the p99 latency every call of the run must stay within")
	f.IntVar(&opts.LoadCount, "load-count", 300, "calls the load check makes")
	f.IntVar(&opts.LoadConc, "load-concurrency", 16, "calls in flight at once in the load check")
	addOutputFlag(cmd, &opts.Output, "text", "text", "json")
	f.StringVar(&opts.JUnit, "junit", "", "also write a JUnit XML report to this file (one testcase per case, a suite per check)")
	f.StringVar(&opts.SaveCases, "save-cases", "", "write every case's request body to this directory")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "show the receiver's whole answer (status, headers, body) under each failing or warning case, and list every warning (otherwise one line per check with their count)")
	f.BoolVar(&opts.FixedIDs, "fixed-ids", false, "keep the requestIds and webhook-ids the seed gives, for a byte-exact repeat of a run (default: fresh ids every run)")
	f.StringSliceVar(&opts.ExcludeCases, "exclude-cases", nil, "leave out the cases whose name (or check/name) matches one of these globs (comma-separated; * does not match /)")
	_ = cmd.RegisterFlagCompletionFunc("checks", completeWords(check.IDs()...))
	_ = cmd.RegisterFlagCompletionFunc("exclude-checks", completeWords(check.IDs()...))
	_ = cmd.MarkFlagFilename("cacert", "pem", "crt", "cer")
	_ = cmd.MarkFlagFilename("junit", "xml")
	_ = cmd.MarkFlagDirname("save-cases")
	return cmd
}

func checkList() string {
	var b strings.Builder
	for _, c := range check.Checks() {
		fmt.Fprintf(&b, "  %-23s %s\n", c.ID, c.Summary)
	}
	return b.String()
}

func runCheck(ctx context.Context, a *app, opts *checkOptions) error {
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
	case opts.LoadConc < 1:
		return usagef("--load-concurrency %d: want at least 1", opts.LoadConc)
	}
	if err := check.ValidateExclude(opts.ExcludeCases); err != nil {
		return usageErr(err)
	}
	target, err := deliver.ParseTarget(opts.URL)
	if err != nil {
		return usagef("--url %v", err)
	}
	header, err := deliver.ParseHeaders(opts.Headers)
	if err != nil {
		return usageErr(err)
	}
	var signer *deliver.Signer
	if opts.Secret != "" {
		if signer, err = deliver.NewSigner(opts.Secret); err != nil {
			return usagef("--secret: %v", err)
		}
	}
	client, err := newClient(deliver.ClientOptions{
		Timeout: opts.Timeout, Concurrency: max(opts.LoadConc, check.DefaultConcurrent), Insecure: opts.Insecure, CAFile: opts.CACert,
	})
	if err != nil {
		return err
	}
	if opts.SaveCases != "" {
		if err := os.MkdirAll(opts.SaveCases, 0o755); err != nil {
			return usagef("--save-cases: %v", err)
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

	rep, err := newCheckReporter(a, opts, target, header)
	if err != nil {
		return err
	}
	var nonce uint64
	if !opts.FixedIDs {
		nonce = reqid.RandomSeed()
	}
	prog := newProgress(a.streams.Err, a.streams.ErrTTY)
	sum, err := check.Run(ctx, check.Config{
		Client: client, Target: target, Checks: ids, Seed: seed, Anchor: anchor, Now: a.now,
		Header: header, Signer: signer, Strict: opts.Strict, LatencyBudget: opts.LatencyBudget,
		LoadCount: opts.LoadCount, LoadConcurrency: opts.LoadConc,
		Nonce: nonce, ExcludeCases: opts.ExcludeCases, Progress: prog.update,
		Notice: func(msg string) {
			prog.clear()
			fmt.Fprintf(a.streams.Err, "%s %s\n", key, msg)
		},
	}, func(res check.Result) {
		prog.clear()
		rep.Result(res)
	})
	prog.stop()
	var unreachable *check.UnreachableError
	switch {
	case errors.As(err, &unreachable):
		return usageErr(unreachable)
	case ctx.Err() != nil:
		if sum != nil {
			_ = rep.Finish(sum)
		}
		return errInterrupted
	case err != nil:
		return fmt.Errorf("check %s: %w", termsafe.Text(target.Redacted()), err)
	}
	if err := rep.Finish(sum); err != nil {
		return err
	}
	if sum.Failed() {
		return errChecksFailed
	}
	return nil
}

func newCheckReporter(a *app, opts *checkOptions, target *url.URL, header http.Header) (*check.Reporter, error) {
	out, err := report.New(opts.Output, a.streams.Out, style(a.outColor(), false), true)
	if err != nil {
		return nil, usagef("--output: %v", err)
	}
	r := &check.Reporter{Out: out, Target: target, Header: header, SaveDir: opts.SaveCases, Budget: opts.LatencyBudget, Verbose: opts.Verbose}
	if opts.JUnit != "" {
		f, err := os.Create(opts.JUnit)
		if err != nil {
			return nil, usagef("--junit: %v", err)
		}
		// The reporter writes the file whole at Finish; closing it is the
		// process's exit (a check run is one per process).
		r.JUnit, _ = report.New(report.JUnit, f, report.Style{}, false)
	}
	return r, nil
}

// progress is the line on a terminal's stderr that says where a run is,
// redrawn as cases are graded and every half second between (a long load
// check or a slow receiver would otherwise look stuck).
type progress struct {
	w    io.Writer
	mu   sync.Mutex
	last check.Progress
	on   bool // a line is drawn
	done chan struct{}
	t0   time.Time
}

func newProgress(w io.Writer, tty bool) *progress {
	if !tty {
		return nil
	}
	p := &progress{w: w, done: make(chan struct{}), t0: time.Now()}
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
				p.mu.Lock()
				p.draw()
				p.mu.Unlock()
			}
		}
	}()
	return p
}

func (p *progress) update(pr check.Progress) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = pr
	p.draw()
}

// draw writes the line; the caller holds mu.
func (p *progress) draw() {
	pr := p.last
	el := time.Since(p.t0).Round(time.Second)
	if pr.Total == 0 {
		fmt.Fprintf(p.w, "\r\x1b[K%s starting", el)
	} else {
		fmt.Fprintf(p.w, "\r\x1b[K%s case %d of %d (%s), %s", pr.Check, pr.Done, pr.Total, termsafe.Text(pr.Case), el)
	}
	p.on = true
}

// clear removes the line before a case's own line is printed.
func (p *progress) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.on = false
	}
}

func (p *progress) stop() {
	if p == nil {
		return
	}
	close(p.done)
	p.clear()
}
