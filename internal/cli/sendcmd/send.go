// Package sendcmd is whsim send: events delivered to a receiver, one at a
// time or under load, with --report, the job summary and, without --url,
// a built-in receiver. Its renderers are in sendout; what it shares with
// replay is in delivery.
package sendcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/delivery"
	"github.com/whsim/whsim/internal/cli/payloadflags"
	"github.com/whsim/whsim/internal/cli/reportfile"
	"github.com/whsim/whsim/internal/cli/sendout"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/htmlreport"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/threshold"
)

type sendOptions struct {
	payloadflags.Payloads
	delivery.Flags
	File      string
	Headers   []string
	Sign      string
	Secret    string
	Count     int
	Duration  time.Duration
	Duplicate float64
	Shuffle   bool
	Scenario  string
	FixedIDs  bool
	// Thresholds are --threshold's, Report is --report's file.
	Thresholds []string
	Report     string

	// eventsSet and countSet say --event and --count were given: on the
	// command line, in WHSIM_* or in the config file (App.Given).
	eventsSet, countSet bool
	// reported says the run wrote --report itself (or tried to): when it
	// did not, the file says the run ended before it could.
	reported bool
	// sleep replaces the backoff's real sleep in tests.
	sleep func(context.Context, time.Duration) error
}

// New is whsim send: its help (help.go), its flags by what they decide
// (the payloads', the delivery's, then flags.go), and runSend.
func New(a *cmdutil.App) *cobra.Command {
	opts := &sendOptions{}
	cmd := &cobra.Command{
		Use:               helpUse,
		Short:             helpShort,
		Long:              helpLong(),
		Example:           helpExample,
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			opts.eventsSet = a.Given("event")
			opts.countSet = a.Given("count")
			return opts.finish(a, runSend(cmd.Context(), a, opts))
		}),
	}
	a.WhenNotRun(cmd, []string{"junit", "report", "file"}, func(err error, words []string) error {
		reportfile.NotOver(append(words, opts.File), &opts.JUnit.Path, &opts.Report)
		return opts.finish(a, err)
	})
	opts.Payloads.Register(cmd)
	opts.Flags.Register(cmd)
	opts.registerWorkloadFlags(cmd)
	opts.registerRequestFlags(cmd)
	opts.registerReportFlags(cmd)
	return cmd
}

// finish writes --report and --junit for a run that ended with err, or
// never began (a flag cobra refused).
func (o *sendOptions) finish(a *cmdutil.App, err error) error {
	reportfile.FinishJobSummary(a, "whsim send", err)
	err = reportfile.FinishReport(a, o.Report, o.JUnit.Path, o.reported, err, "whsim send", o.File)
	return o.JUnit.Finish(a, err, "whsim send", "whsim.delivery")
}

// runSend is send: validate, build, run.
func runSend(ctx context.Context, a *cmdutil.App, opts *sendOptions) error {
	opts.Flags.Inputs = []string{opts.File}
	if err := opts.validate(); err != nil {
		return err
	}
	r, err := opts.build(ctx, a)
	if err != nil {
		return err
	}
	defer r.close()
	if err := reportfile.Reserve(a, opts.JUnit.Path, opts.Report, "whsim send", "whsim.delivery"); err != nil {
		return err
	}
	return r.run(ctx)
}

// validate refuses the flags that cannot make a run, before anything is
// built: each a usage error (exit 2) naming the flag. Those that need
// the payloads or the command line (--scenario's name, --file's flags)
// are build's, in the order they have always been said.
func (o *sendOptions) validate() error {
	if _, err := o.Check(); err != nil {
		return err
	}
	switch {
	case o.Count < 1:
		return cmdutil.Usagef("--count %d: want at least 1", o.Count)
	case o.Duration < 0:
		return cmdutil.Usagef("--duration %s: want 0 or more", o.Duration)
	case !(o.Duplicate >= 0 && o.Duplicate <= 1): // NaN too
		return cmdutil.Usagef("--duplicate %g: want a share between 0 and 1", o.Duplicate)
	case o.Scenario != "" && o.File != "":
		return cmdutil.Usagef("--scenario and --file: choose one")
	case o.FixedIDs && o.File != "":
		return cmdutil.Usagef("--file sends the body byte for byte, its requestIds the file's: --fixed-ids does not apply")
	case o.FixedIDs && o.Seed == 0:
		_, err := payloadflags.IDNonce(o.FixedIDs, o.Seed) // the message is payloadflags.IDNonce's, shared with export
		return err
	}
	if _, err := endpoint.ParseHeaders(o.Headers); err != nil {
		return cmdutil.Usagef("--header %w", err)
	}
	_, err := o.thresholds()
	return err
}

// thresholds are --threshold's.
func (o *sendOptions) thresholds() ([]threshold.Threshold, error) {
	var out []threshold.Threshold
	for _, s := range o.Thresholds {
		t, err := threshold.Parse(s)
		if err != nil {
			return nil, cmdutil.Usagef("--threshold: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// sendRun is one send as its flags made it: the lanes of the run and
// how many rounds of them, where they go (with no --url, whsim's own
// receiver), the console and the deliverer, and what --report and the
// job summary are written from.
type sendRun struct {
	a     *cmdutil.App
	opts  *sendOptions
	lanes [][][]attempt.Template
	// stream, in place of lanes, is a --file read as it comes (a pipe, a
	// FIFO, a terminal), src its input, stopReading what ends its reads
	// when --duration is over.
	stream      *load.Stream
	src         *payloadSource
	stopReading context.CancelFunc
	// empty: --file held no payload, and build stopped at the lanes.
	empty         bool
	rounds, total int
	rcv           *builtinReceiver // nil with --url
	target        *url.URL
	con           *sendout.Console
	d             *attempt.Deliverer
	rec           *htmlreport.SendRecorder // nil without --report or a job summary
}

// build turns the flags into the run: the signer, the lanes (every
// delivery's template, made before the first), then the receiver they go
// to, the console and the deliverer. validate has said the flags' errors,
// so only a caller that skipped it meets them here.
func (o *sendOptions) build(ctx context.Context, a *cmdutil.App) (*sendRun, error) {
	expect, err := o.Check()
	if err != nil {
		return nil, err
	}
	if o.Nonce, err = payloadflags.IDNonce(o.FixedIDs, o.Seed); err != nil {
		return nil, err
	}
	header, err := endpoint.ParseHeaders(o.Headers)
	if err != nil {
		return nil, cmdutil.Usagef("--header %w", err)
	}
	thresholds, err := o.thresholds()
	if err != nil {
		return nil, err
	}
	if err := a.Needs(o.MaxConcurrencyNeed(), delivery.SecretNeed(o.Sign, o.Secret, "without it nothing is signed")); err != nil {
		return nil, err
	}
	signer, err := o.signer(a)
	if err != nil {
		return nil, err
	}
	r := &sendRun{a: a, opts: o}
	if o.File != "" && o.streams(a) {
		err = r.openStream(ctx, header)
	} else {
		r.lanes, err = o.lanes(ctx, a, header)
	}
	if err != nil {
		r.close()
		return nil, err
	}
	if o.File != "" && len(r.lanes) == 0 && r.stream == nil {
		r.close()
		r.empty = true
		return r, nil
	}
	if err := reportfile.CheckReportPath(o.Report, o.JUnit.Path, o.File); err != nil {
		return nil, err
	}
	// --report plots every delivery and the job summary lists the first
	// failures: both from what the console's Observe hook is told.
	if o.Report != "" || reportfile.StepSummary() != "" {
		r.rec = &htmlreport.SendRecorder{}
	}
	r.rounds = o.rounds()
	if r.stream == nil {
		r.total = r.rounds * load.PerRound(r.lanes)
	}
	if err := r.connect(expect, thresholds, signer); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// signer is --sign's, nil for none. A secret from WHSIM_* or the config
// file, shared with check and replay, signs nothing here without --sign:
// said, not refused; so is a key shorter than the scheme asks.
func (o *sendOptions) signer(a *cmdutil.App) (*sign.Signer, error) {
	secret := o.Secret
	if o.Sign == "" && secret != "" {
		secret = ""
		fmt.Fprintf(a.Streams.Err, "%s a secret without --sign standard signs nothing: the calls go out unsigned\n", a.ErrColor.Warn.Sprint("warning:"))
	}
	signer, err := sign.SignerFor(o.Sign, secret)
	if err != nil {
		return nil, cmdutil.UsageErr(err)
	}
	if signer != nil && signer.Weak() {
		fmt.Fprintf(a.Streams.Err, "%s --secret: the key is shorter than the %d bytes Standard Webhooks asks; strict receivers may refuse it\n", a.ErrColor.Warn.Sprint("warning:"), sign.GoodKeyBytes)
	}
	return signer, nil
}

// connect starts whsim's own receiver when there is no --url, then builds
// the console and the deliverer for the target.
func (r *sendRun) connect(expect func(int) bool, thresholds []threshold.Threshold, signer *sign.Signer) error {
	a, o := r.a, r.opts
	rawURL := o.URL
	perCall := 1
	if rawURL == "" {
		perCall = 2 // both ends of each connection are in this process
		rcv, err := startBuiltin(a.Streams.Err, cmdutil.Style(a.ErrColor, o.Verbose))
		if err != nil {
			return err
		}
		r.rcv = rcv
		rawURL = rcv.URL
		fmt.Fprintf(a.Streams.Err, "%s no --url: sending to whsim's own receiver at %s\n", a.ErrColor.Key.Sprint("whsim:"), rawURL)
	}
	var err error
	if r.target, err = o.Target(rawURL); err != nil {
		return err
	}
	r.con, err = o.NewConsole(a, "whsim send", r.target, func(co *sendout.ConsoleOptions) {
		co.Thresholds = thresholds
		// A stream's total is not known: each delivery is told as it
		// goes, as the line it came from was.
		co.Each = co.Each || r.stream != nil
		if r.rec != nil {
			co.Observe = r.rec.Observe
		}
		if r.stream != nil {
			// A payload the stream refused: the summary and JUnit say
			// the run stopped there, which the deliveries alone would
			// read as a pass.
			co.Unjudged = r.streamErr
		}
	})
	if err != nil {
		return err
	}
	// Duplicates add to total as the run goes; no more workers than total
	// still leaves each one work.
	o.Fit(r.con, r.total, perCall)
	if r.d, err = o.NewDeliverer(a, r.target, expect, r.con); err != nil {
		return err
	}
	r.d.Signer = signer
	if o.sleep != nil {
		r.d.Sleep = o.sleep
	}
	return nil
}

// close shuts whsim's own receiver down, which prints its tallies, and
// a stream's input.
func (r *sendRun) close() {
	if r.rcv != nil {
		r.rcv.Close()
		r.rcv = nil
	}
	if r.src != nil {
		r.stopReading()
		r.src.close()
		r.src = nil
	}
}

// run sends the lanes' deliveries, then the summary, --report and the
// job summary.
func (r *sendRun) run(ctx context.Context) error {
	a, o, con := r.a, r.opts, r.con
	if r.empty {
		// Nothing sent tested no receiver: in an unattended run an empty
		// file (a generator that wrote nothing, a path mistyped) must not
		// read as a pass. The input's fault, as replay's: exit 2.
		name := termsafe.Text(ctxio.InputName(o.File))
		why := fmt.Sprintf("--file %s holds no payload: nothing was sent", name)
		if n := len(o.Thresholds); n > 0 {
			why += fmt.Sprintf(", so %d %s not checked (%s)", n, term.Plural(n, "threshold was", "thresholds were"), termsafe.Text(strings.Join(o.Thresholds, ", ")))
		}
		if o.Output == term.JUnit {
			// -o junit holds it as --junit does: no output would read as
			// no report, and 0 tests as nothing failed.
			if err := term.WriteJUnitError(a.Streams.Out, "whsim send", "whsim.delivery", why); err != nil {
				return err
			}
		}
		return cmdutil.UsageErr(errors.New(why))
	}
	if o.File != "" && r.rounds != 1 {
		// The summary counts the repeats as duplicates; the receiver sees
		// each requestId again on every round.
		times := "again and again until --duration"
		if r.rounds > 1 {
			times = fmt.Sprintf("%d times", r.rounds)
		}
		con.Warn("--file sends each body byte for byte, so each of its requestIds goes out %s: a receiver that deduplicates answers the repeats as re-deliveries", times)
	}
	if o.File == "" && o.Scenario == "" && len(r.lanes) > 1 && r.rounds > 0 {
		con.Note = fmt.Sprintf("--count %d per event: %d events × %d", r.rounds, len(r.lanes), r.rounds)
	}
	ro := o.RunOptions()
	ro.Duration = o.Duration
	var next func() []*attempt.Request
	if r.stream != nil {
		// The run waits on the input; --duration ends the wait.
		next, ro.Waits = r.stream.Next, true
		if o.Duration > 0 {
			defer time.AfterFunc(o.Duration, r.stopReading).Stop()
		}
	} else {
		feed := load.NewFeed(r.lanes, r.rounds, o.Duplicate, o.Shuffle, o.Seed).WithNonce(o.Nonce)
		next = feed.Next
		ro.Left = func() (int, bool) { return feed.Left(), false }
	}
	var after []func(*load.Stats) error
	if r.rec != nil {
		after = append(after, func(st *load.Stats) error {
			incomplete := ""
			if err := r.streamErr(); err != nil && ctx.Err() == nil {
				incomplete = err.Error()
			}
			return sendReports(a, o, r.rec, con, st, r.target, ctx.Err() != nil, incomplete)
		})
	}
	err := delivery.Run(ctx, con, r.d, next, ro, r.total, after...)
	if ctx.Err() == nil {
		// Said as when the input is read first, once the deliveries
		// before it are summed up.
		if serr := r.streamErr(); serr != nil {
			return serr
		}
	}
	return err
}

// streamErr is why a stream of --file ended the run early, once it has:
// a payload it refused (its reads, ended by --duration, are no fault).
// nil for a run that read its input whole, or no stream.
func (r *sendRun) streamErr() error {
	if r.stream == nil {
		return nil
	}
	if serr := r.stream.Err(); serr != nil && r.src.readCtx.Err() == nil {
		return fileError(ctxio.InputName(r.opts.File), serr, "; sending stopped there")
	}
	return nil
}

// rounds is --count, or 0 to send until --duration.
func (opts *sendOptions) rounds() int {
	if opts.Duration > 0 && !opts.countSet {
		return 0
	}
	return opts.Count
}

// lanes builds the templates of the run before it starts (load.Lanes):
// --file's payloads, a scenario's lives, or generated payloads.
func (opts *sendOptions) lanes(ctx context.Context, a *cmdutil.App, header http.Header) ([][][]attempt.Template, error) {
	if opts.File != "" {
		return opts.fileLanes(ctx, a, header)
	}
	sc, isScenario := payload.LookupScenario(opts.Scenario)
	if isScenario {
		opts.PathEvents = sc.Events // --set is held against the scenario's events
	}
	pl, err := opts.Plan(a)
	if err != nil {
		return nil, err
	}
	// Every document gets numbers of its own, but those --set gives.
	src := load.Lanes{Header: header, Rounds: opts.rounds(),
		Set: payload.OverridePaths(pl.Overrides), UserIDs: payload.OwnsRequestID(pl.Overrides)}
	switch {
	case opts.Scenario == "":
		src.Events, src.Next = pl.Events, pl.Body
	case !isScenario:
		return nil, cmdutil.NotOneOf("--scenario", opts.Scenario, payload.ScenarioNames())
	case opts.eventsSet:
		return nil, cmdutil.Usagef("--scenario %s sends %s: leave out --event", sc.Name, strings.Join(sc.Events, " then "))
	default:
		src.Lives = func(n int) ([][]load.Step, error) {
			lives, err := sc.Lives(payload.New(opts.Seed, pl.Now), pl.Shape, opts.Seed, n, pl.Overrides)
			if err != nil {
				return nil, cmdutil.UsageErr(err)
			}
			steps := make([][]load.Step, len(lives))
			for i, life := range lives {
				for _, st := range life {
					steps[i] = append(steps[i], load.Step{Event: st.Event.Name, Body: payload.Marshal(st.Doc)})
				}
			}
			return steps, nil
		}
	}
	return src.Build()
}

// streams says whether --file is read as it comes, each payload sent
// once read (a stream: stdin, a pipe, a FIFO), rather than whole before
// the first delivery. What needs every payload first reads them all:
// --shuffle and --duplicate draw from the whole file, --count and
// --duration without --count send it again, and --rate's schedule would
// count a line that has not come yet as the receiver's lateness.
func (opts *sendOptions) streams(a *cmdutil.App) bool {
	return opts.rounds() == 1 && !opts.Shuffle && opts.Duplicate == 0 && opts.Rate == 0 &&
		isStream(opts.File, a.Streams.In)
}

// openStream opens --file as a stream (streams) and reads its first
// payload: an input that holds none is r.empty, and a first payload that
// is refused is said before anything is sent, as when the input is read
// first.
func (r *sendRun) openStream(ctx context.Context, header http.Header) error {
	o, a := r.opts, r.a
	if err := o.fileFlags(a); err != nil {
		return err
	}
	events, err := o.fileEvents()
	if err != nil {
		return err
	}
	readCtx, stopReading := context.WithCancel(ctx)
	src, err := openPayloads(readCtx, o.File, a.Streams.In, o.replayThem)
	if err != nil {
		stopReading()
		if ctx.Err() != nil {
			return r.interrupted(ctx, header)
		}
		return cmdutil.Usagef("--file: %w", err)
	}
	src.readCtx = readCtx
	r.src, r.stopReading = src, stopReading
	first, err := src.next()
	switch {
	case ctx.Err() != nil:
		return r.interrupted(ctx, header)
	case err == io.EOF:
		return nil
	case err != nil:
		return cmdutil.Usagef("--file: %w", err)
	}
	r.stream = load.NewStream(&first, src.next, events, header)
	if err := r.stream.Err(); err != nil {
		return fileError(src.shown, err, "")
	}
	return nil
}

// interrupted is a stream Ctrl-C ended before its first payload came:
// the run is made all the same, to say so as any interrupted run does
// (nothing sent, the summary, exit 130), which a stream's wait for its
// first line, as long as a relay's, calls for.
func (r *sendRun) interrupted(ctx context.Context, header http.Header) error {
	r.stream = load.NewStream(nil, func() (load.Payload, error) { return load.Payload{}, ctx.Err() }, nil, header)
	return nil
}

// fileError is the usage error of a payload of --file (shown: its name)
// that cannot be sent, with more said after it.
func fileError(shown string, err error, more string) error {
	var pe *load.PayloadError
	if errors.As(err, &pe) {
		return cmdutil.Usagef("--file: %s%s", pe.Explain(shown), more)
	}
	return cmdutil.Usagef("--file: %w%s", err, more)
}

// fileFlags refuses the flags --file has no use for.
func (opts *sendOptions) fileFlags(a *cmdutil.App) error {
	switch {
	case len(opts.Sets)+len(opts.Unsets) > 0 || opts.Scenario != "":
		return cmdutil.Usagef("--file sends the body byte for byte: --set, --unset and --scenario do not apply")
	case a.OnCommandLine("shape"):
		return cmdutil.Usagef("--file sends the body byte for byte: --shape does not apply")
	}
	return a.Needs(cmdutil.Need{Flag: "--seed", Needs: "--shuffle or --duplicate", Without: !opts.Shuffle && opts.Duplicate == 0,
		Why: "--file sends the bodies byte for byte, and the seed only picks their order and re-deliveries"})
}

// fileEvents are --event's, nil without it: each payload's own.
func (opts *sendOptions) fileEvents() ([]spec.Event, error) {
	if !opts.eventsSet {
		return nil, nil
	}
	events, err := spec.ParseEvents(opts.Events)
	if err != nil {
		return nil, cmdutil.UsageErr(fmt.Errorf("--event: %w", err))
	}
	return events, nil
}

// replayThem is the replay command that sends the captures of --file
// (arg, as printed) where this send was to: its --url, headers, signing
// and TLS flags; "" without --url.
func (opts *sendOptions) replayThem(arg string) (cmd, before string) {
	return opts.Elsewhere("replay "+arg, opts.Headers, opts.Sign, "WHSIM_SEND_SECRET")
}

// fileLanes reads the payloads of --file (input.Reader: a document, an
// array, NDJSON) and sends each byte for byte (load.FileLanes), under
// --event or the event each payload's number names.
func (opts *sendOptions) fileLanes(ctx context.Context, a *cmdutil.App, header http.Header) ([][][]attempt.Template, error) {
	if err := opts.fileFlags(a); err != nil {
		return nil, err
	}
	name := ctxio.InputName(opts.File)
	payloads, err := readPayloads(ctx, opts.File, a.Streams.In, opts.replayThem)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, cmdutil.Usagef("--file: %w", err)
	}
	src := load.Lanes{File: true, Header: header, Payloads: payloads}
	if opts.eventsSet {
		if src.Events, err = spec.ParseEvents(opts.Events); err != nil {
			return nil, cmdutil.UsageErr(fmt.Errorf("--event: %w", err))
		}
	}
	lanes, err := src.Build()
	var pe *load.PayloadError
	if errors.As(err, &pe) {
		return nil, cmdutil.Usagef("--file: %s", pe.Explain(name))
	}
	return lanes, err
}
