package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/htmlreport"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/threshold"
)

type sendOptions struct {
	payloadFlags
	deliveryFlags
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

	eventsSet, countSet bool
	// sleep replaces the backoff's real sleep in tests.
	sleep func(context.Context, time.Duration) error
}

func newSendCmd(a *app) *cobra.Command {
	opts := &sendOptions{}
	cmd := &cobra.Command{
		Use:   "send [--url <url>] [--event <name>]... [--file <payload.json>|-] [--count <n>] [--concurrency <n>] [flags]",
		Short: "Deliver events to a receiver, one at a time or under load",
		Long: `Deliver webhook calls the way the ERP does: POST <url>?businessType=<EVENT>
with content-type application/json and the JSON envelope as the body. Any
query the URL already has is kept.

Without --url, whsim starts its own receiver on 127.0.0.1, sends there and
shows what it received (on stderr).

When stdout is not a terminal, or with --each, each delivery prints one line
on stdout (event, requestId, status, latency; an unexpected answer adds the
start of its body); on a terminal, a run of more than one delivery prints
only the failed ones, under a progress bar on stderr (done, percent, rate,
time left, failures). Then a summary: sent (the calls that started),
succeeded, failed by status and by error kind, interrupted (started and cut
short by Ctrl-C), not started (what --count had left when Ctrl-C or
--duration ended the run), documents (the distinct documents the calls
carried), duplicates (repeats: --duplicate's, --file's rounds), requests
per second, latency p50/p90/p99/p99.9/max, and which load model ran. Retry
notices and warnings go to stderr. --count is documents per event: --event
all --count 100 sends 400, each a document with numbers of its own (an
invoice's code and invoiceCode, a receipt's 收款单编号).

--seed fixes the content; each run still gets requestIds and document
numbers of its own, so a deduplicating receiver does not answer a second
run as duplicates. --seed n --fixed-ids repeats both, every run.

--output json prints one JSON object per delivery and a final
{"summary": ...} object instead, with the latency histogram (HdrHistogram,
base64) so that runs on several machines can be merged.

Without --rate, --concurrency workers each send and wait for the answer
(the closed model: as fast as the receiver answers). With --rate, calls
start on schedule whatever the receiver does, up to --max-concurrency in
flight (the open model, like vegeta or k6's constant-arrival-rate), and
each latency counts from the call's scheduled start, so a receiver that
stalls shows it. In both, no call starts after --duration. In-flight calls
are bounded by the file descriptors too (the soft limit is raised to the
hard one; a lower bound is said once), and a failure of the sending
machine itself is counted as "local", not as the receiver's.

--report writes the run as one HTML file that opens without a network (a CI
artifact): the summary, the percentiles, each call's latency against its
scheduled start (a stall shows as in vegeta's plot), a histogram and the
errors by kind. Under GitHub Actions ($GITHUB_STEP_SUMMARY set) the counts,
latency, thresholds and first failures are appended to the job summary.

--threshold makes the run a gate, as k6's thresholds do: each is a metric
of the summary, a comparison (< <= > >= == !=) and a value (a duration for
latencies, a count or a share of sent for counts, per second for rps),
checked at the end; the summary lists each with its measured value.
Metrics: ` + strings.Join(threshold.Names(), ", ") + `.

Environment: WHSIM_TRANSPORT=net/http sends every call through Go's
net/http instead of whsim's faster plain-HTTP path (to rule it out); the
flags' WHSIM_* variables are in docs/commands.md.

Exit status: 0 when every delivery got an expected status (--expect-status,
default any 2xx) and every --threshold held, 1 otherwise (a failed
threshold is named), 2 for usage errors (an unknown metric is one), 130
when interrupted (the summary is still printed).`,
		Example: `  whsim send --event CREATE_RECEIVABLE_DOC
  whsim send --url http://localhost:3000/webhook --event all
  whsim send --url https://erp-hook.example.com/in?tenant=7 --event AUDIT_PURCHASE_ORDER_INVOICE --set data.status=REFUSAL
  whsim send --url http://localhost:3000/webhook --file payload.json --event CREATE_PURCHASE_ORDER_INVOICE
  whsim send --url http://localhost:3000/webhook --scenario invoice-lifecycle --count 100 --shuffle --duplicate 0.1
  whsim send --url http://localhost:3000/webhook --event all --count 50000 --concurrency 32 --output json > results.ndjson
  whsim send --url http://localhost:3000/webhook --event all --rate 200 --duration 1m
  whsim send --url http://localhost:3000/webhook --event all --rate 200 --duration 30s --threshold 'p99<500ms' --threshold 'failed<1%'
  whsim send --url http://localhost:3000/webhook --event all --rate 100 --duration 1m --report run.html
  whsim send --url https://localhost:8443/hook --cacert ca.pem --sign standard --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw`,
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			opts.eventsSet = cmd.Flags().Changed("event")
			opts.countSet = cmd.Flags().Changed("count")
			return opts.junit.finish(a, runSend(cmd.Context(), a, opts), "whsim send", "whsim.delivery")
		}),
	}
	opts.payloadFlags.register(cmd)
	opts.deliveryFlags.register(cmd)
	f := cmd.Flags()
	f.StringVarP(&opts.File, "file", "f", "", "send this body byte for byte, or each line of NDJSON or element of a JSON array as one delivery (- for stdin); the event from --event, else from its businessType")
	headerFlag(cmd, &opts.Headers, "")
	f.StringVar(&opts.Sign, "sign", "", "sign deliveries: standard (Standard Webhooks headers; needs --secret)")
	secretFlag(cmd, &opts.Secret, "signing secret, whsec_<base64> (also WHSIM_SEND_SECRET; never printed)")
	f.IntVarP(&opts.Count, "count", "n", 1, "deliveries of each event: --event all -n 10 sends 40 (with --scenario: documents)")
	f.DurationVar(&opts.Duration, "duration", 0, "start no call after this long, those in flight finish (without --count: send until then)")
	f.Float64Var(&opts.Duplicate, "duplicate", 0, "re-deliver this share of calls (0-1) with the same requestId and body")
	f.BoolVar(&opts.Shuffle, "shuffle", false, "deliver out of order (mixed in windows of 64)")
	fixedIDsFlag(cmd, &opts.FixedIDs, "")
	f.StringVar(&opts.Scenario, "scenario", "", "send a document's lifecycle: "+strings.Join(payload.ScenarioNames(), "|"))
	f.StringVar(&opts.Report, "report", "", "also write a self-contained HTML report to this file: summary, percentiles, latency over time, histogram, errors by kind")
	_ = cmd.MarkFlagFilename("report", "html")
	f.StringArrayVar(&opts.Thresholds, "threshold", nil, "fail the run (exit 1) unless this holds at the end, e.g. 'p99<500ms', 'failed<1%', 'rps>=200' (repeatable; metrics: "+strings.Join(threshold.Names(), ", ")+")")
	_ = cmd.RegisterFlagCompletionFunc("sign", completeWords(sign.SchemeStandard))
	_ = cmd.RegisterFlagCompletionFunc("scenario", completeWords(payload.ScenarioNames()...))
	_ = cmd.MarkFlagFilename("file", "json")
	return cmd
}

func runSend(ctx context.Context, a *app, opts *sendOptions) error {
	expect, err := opts.check()
	if err != nil {
		return err
	}
	switch {
	case opts.Count < 1:
		return usagef("--count %d: want at least 1", opts.Count)
	case opts.Duration < 0:
		return usagef("--duration %s: want 0 or more", opts.Duration)
	case !(opts.Duplicate >= 0 && opts.Duplicate <= 1): // NaN too
		return usagef("--duplicate %g: want a share between 0 and 1", opts.Duplicate)
	case opts.Scenario != "" && opts.File != "":
		return usagef("--scenario and --file: choose one")
	case opts.FixedIDs && opts.File != "":
		return usagef("--file sends the body byte for byte, its requestIds the file's: --fixed-ids does not apply")
	}
	if opts.Nonce, err = idNonce(opts.FixedIDs, opts.Seed); err != nil {
		return err
	}
	header, err := endpoint.ParseHeaders(opts.Headers)
	if err != nil {
		return usagef("--header %w", err)
	}
	var thresholds []threshold.Threshold
	for _, s := range opts.Thresholds {
		t, err := threshold.Parse(s)
		if err != nil {
			return usagef("--threshold: %w", err)
		}
		thresholds = append(thresholds, t)
	}
	if err := a.needs(opts.maxConcurrencyNeed(), secretNeed(opts.Sign, opts.Secret, "without it nothing is signed")); err != nil {
		return err
	}
	// A secret from WHSIM_* or the config file, shared with check and
	// replay, signs nothing here without --sign: said, not refused.
	secret := opts.Secret
	if opts.Sign == "" && secret != "" {
		secret = ""
		fmt.Fprintf(a.streams.Err, "%s a secret without --sign standard signs nothing: the calls go out unsigned\n", a.errColor.Warn.Sprint("warning:"))
	}
	signer, err := sign.SignerFor(opts.Sign, secret)
	if err != nil {
		return usageErr(err)
	}
	if signer != nil && signer.Weak() {
		fmt.Fprintf(a.streams.Err, "%s --secret: the key is shorter than the %d bytes Standard Webhooks asks; strict receivers may refuse it\n", a.errColor.Warn.Sprint("warning:"), sign.GoodKeyBytes)
	}
	lanes, err := opts.lanes(ctx, a, header)
	if err != nil {
		return err
	}
	if opts.File != "" && len(lanes) == 0 {
		fmt.Fprintf(a.streams.Err, "%s --file %s holds no payload: nothing to send\n", a.errColor.Key.Sprint("whsim:"), termsafe.Text(ctxio.InputName(opts.File)))
		return nil
	}

	if err := checkReportPath(opts.Report); err != nil {
		return err
	}
	// --report plots every delivery and the job summary lists the first
	// failures: both from what the console's Observe hook is told.
	var rec *htmlreport.SendRecorder
	if opts.Report != "" || stepSummary() != "" {
		rec = &htmlreport.SendRecorder{}
	}
	rounds := opts.rounds()
	total := rounds * load.PerRound(lanes)
	rawURL := opts.URL
	perCall := 1
	if rawURL == "" {
		perCall = 2 // both ends of each connection are in this process
		rcv, err := startBuiltin(a.streams.Err, style(a.errColor, opts.Verbose))
		if err != nil {
			return err
		}
		defer rcv.Close()
		rawURL = rcv.URL
		fmt.Fprintf(a.streams.Err, "%s no --url: sending to whsim's own receiver at %s\n", a.errColor.Key.Sprint("whsim:"), rawURL)
	}
	target, err := opts.target(rawURL)
	if err != nil {
		return err
	}
	con, err := opts.newConsole(a, "whsim send", target, func(o *term.ConsoleOptions) {
		o.Thresholds = thresholds
		if rec != nil {
			o.Observe = rec.Observe
		}
	})
	if err != nil {
		return err
	}
	// Duplicates add to total as the run goes; no more workers than total
	// still leaves each one work.
	opts.fit(con, total, perCall)
	d, err := opts.newDeliverer(a, target, expect, con)
	if err != nil {
		return err
	}
	d.Signer = signer
	if opts.sleep != nil {
		d.Sleep = opts.sleep
	}

	if opts.File != "" && rounds != 1 {
		// The summary counts the repeats as duplicates; the receiver sees
		// each requestId again on every round.
		times := "again and again until --duration"
		if rounds > 1 {
			times = fmt.Sprintf("%d times", rounds)
		}
		con.Warn("--file sends each body byte for byte, so each of its requestIds goes out %s: a receiver that deduplicates answers the repeats as re-deliveries", times)
	}
	if opts.File == "" && opts.Scenario == "" && len(lanes) > 1 && rounds > 0 {
		con.Note = fmt.Sprintf("--count %d per event: %d events × %d", rounds, len(lanes), rounds)
	}
	feed := load.NewFeed(lanes, rounds, opts.Duplicate, opts.Shuffle, opts.Seed).WithNonce(opts.Nonce)
	ro := opts.runOptions()
	ro.Duration = opts.Duration
	ro.Left = feed.Left
	var after []func(*load.Stats) error
	if rec != nil {
		after = append(after, func(st *load.Stats) error { return sendReports(a, opts, rec, con, st, target) })
	}
	return runDeliveries(ctx, con, d, feed.Next, ro, total, after...)
}

// idNonce is the nonce of a run's requestIds (reqid.Mix): 0 with
// --fixed-ids, which repeats the ids generate --seed prints; else a fresh
// one, so that --seed fixes the content and each run still has ids of its
// own (a deduplicating receiver would take repeated ids for re-deliveries).
func idNonce(fixed bool, seed uint64) (uint64, error) {
	switch {
	case fixed && seed == 0:
		return 0, usagef("--fixed-ids needs --seed: the ids are the seed's")
	case fixed:
		return 0, nil
	}
	return reqid.Nonce(), nil
}

// rounds is --count, or 0 to send until --duration.
func (opts *sendOptions) rounds() int {
	if opts.Duration > 0 && !opts.countSet {
		return 0
	}
	return opts.Count
}

// lanes builds the templates of the run before it starts.
func (opts *sendOptions) lanes(ctx context.Context, a *app, header http.Header) ([][][]attempt.Template, error) {
	if opts.File != "" {
		return opts.fileLanes(ctx, a, header)
	}
	if sc, ok := payload.LookupScenario(opts.Scenario); ok {
		opts.PathEvents = sc.Events // --set is held against the scenario's events
	}
	pl, err := opts.plan(a)
	if err != nil {
		return nil, err
	}
	ovs := pl.Overrides
	// Every document gets numbers of its own, but those --set gives.
	var set [][]string
	for _, ov := range ovs {
		set = append(set, ov.Path)
	}
	docs := load.NewDocPaths(set)
	if opts.Scenario != "" {
		return opts.scenarioLanes(pl, load.Pool(opts.rounds()), header, ovs, docs)
	}
	return load.EventLanes(pl.Events, load.Pool(opts.rounds()), header, !payload.OwnsRequestID(ovs), docs, pl.nextBody)
}

// scenarioLanes is one lane of n documents' lives.
func (opts *sendOptions) scenarioLanes(pl *payloadPlan, n int, header http.Header, ovs []payload.Override, docs load.DocPaths) ([][][]attempt.Template, error) {
	sc, ok := payload.LookupScenario(opts.Scenario)
	if !ok {
		return nil, notOneOf("--scenario", opts.Scenario, payload.ScenarioNames())
	}
	if opts.eventsSet {
		return nil, usagef("--scenario %s sends %s: leave out --event", sc.Name, strings.Join(sc.Events, " then "))
	}
	lives, err := sc.Lives(payload.New(opts.Seed, pl.Now), pl.Shape, opts.Seed, n, ovs)
	if err != nil {
		return nil, usageErr(err)
	}
	steps := make([][]load.Step, len(lives))
	for i, life := range lives {
		for _, st := range life {
			steps[i] = append(steps[i], load.Step{Event: st.Event.Name, Body: payload.Marshal(st.Doc)})
		}
	}
	return load.LifeLanes(steps, header, !payload.OwnsRequestID(ovs), docs), nil
}

// fileLanes reads the payloads of --file (input.Reader: a document, an
// array, NDJSON) and sends each byte for byte (load.FileLanes), under
// --event or the event each payload's number names.
func (opts *sendOptions) fileLanes(ctx context.Context, a *app, header http.Header) ([][][]attempt.Template, error) {
	switch {
	case len(opts.Sets)+len(opts.Unsets) > 0 || opts.Scenario != "":
		return nil, usagef("--file sends the body byte for byte: --set, --unset and --scenario do not apply")
	case a.onCommandLine("shape"):
		return nil, usagef("--file sends the body byte for byte: --shape does not apply")
	}
	if err := a.needs(need{flag: "--seed", needs: "--shuffle or --duplicate", without: !opts.Shuffle && opts.Duplicate == 0,
		why: "--file sends the bodies byte for byte, and the seed only picks their order and re-deliveries"}); err != nil {
		return nil, err
	}
	name := ctxio.InputName(opts.File)
	payloads, err := readPayloads(ctx, opts.File, a.streams.In)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, usagef("--file: %w", err)
	}
	var given []spec.Event
	if opts.eventsSet {
		if given, err = spec.ParseEvents(opts.Events); err != nil {
			return nil, usageErr(fmt.Errorf("--event: %w", err))
		}
	}
	lanes, err := load.FileLanes(payloads, given, header)
	var pe *load.PayloadError
	if errors.As(err, &pe) {
		return nil, usagef("--file %s", pe.Explain(name))
	}
	return lanes, err
}
