// Package delivery is what send and replay share to deliver calls: the
// delivery flags (--url, --timeout, --retries, --concurrency, --rate,
// --output, ...), the console and deliverer they build, and the run that
// decides the exit; and the one HTTP client every command that calls a
// receiver builds (send, replay, check).
package delivery

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/reportfile"
	"github.com/whsim/whsim/internal/cli/sendout"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/threshold"
)

// Flags are what send and replay share: how to reach the receiver
// and how to report.
type Flags struct {
	URL             string
	Timeout         time.Duration
	Retries         int
	Insecure        bool
	CACert          string
	FollowRedirects bool
	Concurrency     int
	MaxConcurrency  int
	Rate            float64
	ExpectStatus    string
	Output          string
	Verbose         bool
	Each            bool
	// JUnit is --junit FILE.
	JUnit reportfile.JUnit
	// Inputs are the files the run reads (send's --file, replay's
	// captures): --junit is refused when it names one.
	Inputs []string
}

// Register declares the flags on cmd.
func (d *Flags) Register(cmd *cobra.Command) {
	f := cmd.Flags()
	cmdutil.URLFlag(cmd, &d.URL)
	cmdutil.TimeoutFlag(cmd, &d.Timeout)
	f.IntVar(&d.Retries, "retries", 0, "retry connection errors, timeouts, answers cut short, 408, 429 and 5xx this many times (exponential backoff with jitter, Retry-After honoured)")
	cmdutil.TLSFlags(cmd, &d.Insecure, &d.CACert)
	f.BoolVar(&d.FollowRedirects, "follow-redirects", false, "follow 3xx (a 301/302/303 turns the POST into a GET without the body)")
	f.IntVarP(&d.Concurrency, "concurrency", "c", 1, "deliveries in flight at once (with --rate: workers to start with)")
	cmdutil.DecimalFlag(f, &d.Rate, "rate", 0, "start this many deliveries per second whatever the receiver does, latency from each scheduled start (0: each of --concurrency waits for its answer)")
	f.IntVar(&d.MaxConcurrency, "max-concurrency", load.DefaultMaxConcurrency, "with --rate: at most this many deliveries in flight (calls that wait for one are counted late)")
	f.StringVar(&d.ExpectStatus, "expect-status", "2xx", "statuses that count as success: codes, classes and ranges (200,202 or 2xx or 200-204)")
	f.BoolVarP(&d.Verbose, "verbose", "v", false, "show each request and the receiver's response (headers and body)")
	f.BoolVar(&d.Each, "each", false, "print a line per delivery on a terminal too (default there: a progress bar, the failures and the summary)")
	cmdutil.AddOutputFlag(cmd, &d.Output, "text", term.Text, term.JSON, term.JUnit)
	d.JUnit.Register(cmd, "one testcase per delivery, a suite per event")
}

// Check validates the shared flags (usage errors).
func (d *Flags) Check() (func(int) bool, error) {
	switch {
	case d.Concurrency < 1:
		return nil, cmdutil.Usagef("--concurrency %d: want at least 1", d.Concurrency)
	case d.Rate != 0 && !(d.Rate >= load.MinRate && d.Rate <= load.MaxRate):
		// NaN fails every comparison: it is refused here too.
		// Written as decimals, as the flag takes them: %g said 1e+06.
		return nil, cmdutil.Usagef("--rate %s: want 0 (no rate) or from %s to %s calls a second", plainNumber(d.Rate), plainNumber(load.MinRate), plainNumber(load.MaxRate))
	case d.Rate > 0 && d.MaxConcurrency < 1:
		return nil, cmdutil.Usagef("--max-concurrency %d: want at least 1", d.MaxConcurrency)
	case d.Retries < 0:
		return nil, cmdutil.Usagef("--retries %d: want 0 or more", d.Retries)
	case d.Timeout <= 0:
		return nil, cmdutil.Usagef("--timeout %s: want more than 0", d.Timeout)
	}
	expect, err := endpoint.ParseExpect(d.ExpectStatus)
	if err != nil {
		return nil, cmdutil.Usagef("--expect-status: %w", err)
	}
	return expect, nil
}

// Target checks --url, or u when it is set (send's built-in receiver).
func (d *Flags) Target(u string) (*url.URL, error) {
	if u == "" {
		u = d.URL
	}
	t, err := endpoint.ParseHookTarget(u)
	if err != nil {
		return nil, cmdutil.Usagef("--url %w", err)
	}
	return t, nil
}

// RunOptions are the load model the flags ask for.
func (d *Flags) RunOptions() load.RunOptions {
	return load.RunOptions{Concurrency: d.Concurrency, Rate: d.Rate, MaxConcurrency: d.MaxConcurrency}
}

// NewConsole is the run's console to target: the report on stdout (and
// --junit's), the rest on stderr.
// A command's own options (send's thresholds and report) are set by more.
func (d *Flags) NewConsole(a *cmdutil.App, title string, target *url.URL, more ...func(*sendout.ConsoleOptions)) (*sendout.Console, error) {
	if err := reportfile.CheckJUnitPath(d.JUnit.Path, d.Inputs...); err != nil {
		return nil, err
	}
	o := sendout.ConsoleOptions{
		Title: title, Format: d.Output, Out: a.Streams.Out, Err: a.Streams.Err,
		OutStyle: cmdutil.Style(a.OutColor, d.Verbose), ErrStyle: cmdutil.Style(a.ErrColor, false),
		OutTTY: a.Streams.OutTTY, ErrTTY: a.Streams.ErrTTY, Each: d.Each,
		Target: termsafe.URL(target), JUnit: d.JUnit.Writer(),
	}
	for _, f := range more {
		f(&o)
	}
	c, err := sendout.NewConsole(o)
	if err != nil {
		return nil, cmdutil.Usagef("--output: %w", err)
	}
	return c, nil
}

// Fit lowers --concurrency to the total deliveries (0: unknown) and the
// deliveries in flight to what the file descriptors allow, each holding
// perCall, saying so once when the descriptors are the bound.
func (d *Flags) Fit(con *sendout.Console, total, perCall int) {
	ro, note := d.RunOptions().Fit(total, load.FilesNow(), perCall)
	d.Concurrency, d.MaxConcurrency = ro.Concurrency, ro.MaxConcurrency
	if note != "" {
		con.Warn("%s", note)
	}
}

// NewDeliverer builds the client and the deliverer for target.
func (d *Flags) NewDeliverer(a *cmdutil.App, target *url.URL, expect func(int) bool, con *sendout.Console) (*attempt.Deliverer, error) {
	client, err := NewClient(attempt.ClientOptions{
		Timeout: d.Timeout, Concurrency: d.RunOptions().InFlight(), Insecure: d.Insecure, FollowRedirects: d.FollowRedirects, CAFile: d.CACert,
	})
	if err != nil {
		return nil, err
	}
	if d.Insecure && target.Scheme == "https" {
		con.Warn("--insecure: the receiver's TLS certificate is not verified")
	}
	for _, f := range a.TLSFlagsWithoutTLS(target.Scheme) {
		con.Warn("%s", cmdutil.TLSFlagUselessWords(f))
	}
	if d.FollowRedirects {
		con.Warn("--follow-redirects: a 301, 302 or 303 turns the POST into a GET and drops the body")
	}
	return &attempt.Deliverer{
		Client: client, Target: target, Retries: d.Retries,
		Backoff: attempt.DefaultBackoff(rand.Float64), Now: a.Now,
		Expect: expect, KeepBody: d.Verbose, KeepFailed: true, OnRetry: con.Retry,
	}, nil
}

// NewClient builds a run's one HTTP client; its errors are those of the
// --cacert file and of WHSIM_TRANSPORT, which net/http makes send every
// call through Go's own transport instead of the fast path, and
// goroutines make a run's calls on the fast path from a goroutine per
// connection instead of event loops.
func NewClient(co attempt.ClientOptions) (*http.Client, error) {
	switch v := os.Getenv(attempt.TransportEnv); v {
	case "":
	case attempt.TransportNetHTTP:
		co.NetHTTP = true
	case attempt.TransportGoroutines:
		co.Goroutines = true
	default:
		return nil, cmdutil.Usagef("%s=%s: want %s (every call through Go's net/http), %s (a load run's calls from a goroutine per connection, not event loops) or nothing (the fast path and its event loops where they apply)",
			attempt.TransportEnv, termsafe.Text(v), attempt.TransportNetHTTP, attempt.TransportGoroutines)
	}
	client, err := attempt.NewClient(co)
	switch {
	case errors.Is(err, attempt.ErrNoCerts):
		return nil, cmdutil.Usagef("--cacert %s: %w", co.CAFile, err)
	case err != nil:
		return nil, cmdutil.Usagef("--cacert: %w", err)
	}
	return client, nil
}

// Run runs the deliveries, prints the summary, gives the stats to
// each of after (send's report and job summary) and decides the exit: a
// failed threshold is named.
func Run(ctx context.Context, con *sendout.Console, d *attempt.Deliverer, next func() []*attempt.Request, ro load.RunOptions, total int, after ...func(*load.Stats) error) error {
	st, err := con.Run(ctx, d, next, ro, total)
	if err != nil {
		return err
	}
	if ctx.Err() == nil {
		// A --duration over before the first call: nothing tested the
		// receiver, which must not read as a pass, nor its report or job
		// summary say one (as for an empty --file, which writes none).
		if err := sendout.NothingSent(st, ro); err != nil {
			return cmdutil.UsageErr(err)
		}
	}
	for _, f := range after {
		if err := f(st); err != nil {
			return err
		}
	}
	failed := threshold.Failed(con.Thresholds())
	switch {
	case ctx.Err() != nil:
		return cmdutil.ErrInterrupted
	case len(failed) > 0:
		names := make([]string, len(failed))
		for i, r := range failed {
			names[i] = r.String()
		}
		return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: fmt.Errorf("%d of %d thresholds failed: %s",
			len(failed), len(con.Thresholds()), strings.Join(names, ", "))}
	case st.Failed == 0 && st.Unasked > 0:
		// Every delivery counted answered as expected, on answers some
		// of which may have been other calls': the receiver's fault,
		// which no count shows.
		return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: errors.New(sendout.UnaskedWords(st))}
	case st.Failed == 0:
		return nil
	}
	if line := con.Unreachable(st, d.Target); line != "" {
		return &cmdutil.ExitError{Code: cmdutil.ExitFailed, Err: errors.New(line)}
	}
	return cmdutil.ErrChecksFailed
}

// MaxConcurrencyNeed is send's and replay's: without --rate, --concurrency
// alone bounds the deliveries in flight.
func (d *Flags) MaxConcurrencyNeed() cmdutil.Need {
	return cmdutil.Need{Flag: "--max-concurrency", Needs: "--rate", Without: d.Rate == 0,
		Why: "without a rate, --concurrency is the deliveries in flight"}
}

// SecretNeed is send's and replay's: a secret alone signs nothing.
func SecretNeed(signScheme, secret string, what string) cmdutil.Need {
	return cmdutil.Need{Flag: "--secret", Needs: "--sign standard", Without: signScheme == "" && secret != "", Why: what}
}

// Elsewhere is a whsim command line that sends other calls where this
// run sends them, printed for a user to run instead (send's hint to
// replay a capture, replay's to send payloads): command ("replay
// ./x.ndjson") with the run's --url, its -H headers, --sign with the
// secret as the variable secretVar, and its TLS flags; each credential a
// variable the shell fills in (shellcmd.Whsim's Vars), never shown. The
// hints named the file alone, so that replay's sent the payloads to
// whsim's own receiver, not the user's. before says which variables to
// set first, "" when none; both are "" without --url.
func (d *Flags) Elsewhere(command string, headers []string, signScheme, secretVar string) (cmd, before string) {
	if d.URL == "" {
		return "", ""
	}
	header, err := endpoint.ParseHeaders(headers)
	if err != nil {
		header = nil // refused before any input is read
	}
	var tail []string
	if signScheme != "" {
		tail = append(tail, "--sign "+shellcmd.Word(signScheme), `--secret "$`+secretVar+`"`)
	}
	if d.Insecure {
		tail = append(tail, "--insecure")
	}
	if d.CACert != "" {
		tail = append(tail, "--cacert "+shellcmd.Path(d.CACert))
	}
	cmd = (&shellcmd.Whsim{Command: command, URL: d.URL, Header: header, Vars: true, Tail: strings.Join(tail, " ")}).String()
	if names, n := shellcmd.VarsNamed([]string{cmd}); n > 0 {
		before = fmt.Sprintf("set %s first: the command reads the run's credentials from %s", names, term.Plural(n, "it", "them"))
	}
	return cmd, before
}

// plainNumber is v as a plain decimal, as DecimalFlag takes it.
func plainNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
