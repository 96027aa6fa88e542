package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/deliver"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/report"
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
on stdout (event, requestId, status, latency); on a terminal, a run of more
than one delivery prints only the failed ones, under a progress bar on
stderr (done, percent, rate, time left, failures). Then a summary: sent,
succeeded, failed by status and by error kind, duplicates, requests per
second, latency p50/p90/p99/p99.9/max, and which load model ran. Retry
notices and warnings go to stderr. --count is per event: --event all
--count 100 sends 400.

--output json prints one JSON object per delivery and a final
{"summary": ...} object instead, with the latency histogram (HdrHistogram,
base64) so that runs on several machines can be merged.

Without --rate, --concurrency workers each send and wait for the answer
(the closed model: as fast as the receiver answers). With --rate, calls
start on schedule whatever the receiver does, up to --max-concurrency in
flight (the open model, like vegeta or k6's constant-arrival-rate), and
each latency counts from the call's scheduled start, so a receiver that
stalls shows it.

Exit status: 0 when every delivery got an expected status (--expect-status,
default any 2xx), 1 otherwise, 2 for usage errors, 130 when interrupted
(the summary is still printed).`,
		Example: `  whsim send --event CREATE_RECEIVABLE_DOC
  whsim send --url http://localhost:3000/webhook --event all
  whsim send --url https://erp-hook.example.com/in?tenant=7 --event AUDIT_PURCHASE_ORDER_INVOICE --set data.status=REFUSAL
  whsim send --url http://localhost:3000/webhook --file payload.json --event CREATE_PURCHASE_ORDER_INVOICE
  whsim send --url http://localhost:3000/webhook --scenario invoice-lifecycle --count 100 --shuffle --duplicate 0.1
  whsim send --url http://localhost:3000/webhook --event all --count 50000 --concurrency 32 --output json > results.ndjson
  whsim send --url http://localhost:3000/webhook --event all --rate 200 --duration 1m
  whsim send --url https://localhost:8443/hook --cacert ca.pem --sign standard --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			opts.eventsSet = cmd.Flags().Changed("event")
			opts.countSet = cmd.Flags().Changed("count")
			return runSend(cmd.Context(), a, opts)
		}),
	}
	opts.payloadFlags.register(cmd)
	opts.deliveryFlags.register(cmd)
	f := cmd.Flags()
	f.StringVarP(&opts.File, "file", "f", "", "send this body byte for byte, or each line of NDJSON as one delivery (- for stdin); the event from --event, else from its businessType")
	f.StringArrayVarP(&opts.Headers, "header", "H", nil, "add a request header 'Name: value' (repeatable)")
	f.StringVar(&opts.Sign, "sign", "", "sign deliveries: standard (Standard Webhooks headers; needs --secret)")
	f.StringVar(&opts.Secret, "secret", "", "signing secret, whsec_<base64> (also WHSIM_SEND_SECRET; never printed)")
	f.IntVarP(&opts.Count, "count", "n", 1, "deliveries of each event: --event all -n 10 sends 40 (with --scenario: documents)")
	f.DurationVar(&opts.Duration, "duration", 0, "stop sending after this long (without --count: send until then)")
	f.Float64Var(&opts.Duplicate, "duplicate", 0, "re-deliver this share of calls (0-1) with the same requestId and body")
	f.BoolVar(&opts.Shuffle, "shuffle", false, "deliver out of order (mixed in windows of 64)")
	f.StringVar(&opts.Scenario, "scenario", "", "send a document's lifecycle: "+strings.Join(payload.ScenarioNames(), "|"))
	_ = cmd.RegisterFlagCompletionFunc("sign", completeWords("standard"))
	_ = cmd.RegisterFlagCompletionFunc("scenario", completeWords(payload.ScenarioNames()...))
	_ = cmd.MarkFlagFilename("file", "json")
	return cmd
}

func (d *deliveryFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVarP(&d.URL, "url", "u", "", "the receiver's URL (http or https); businessType is added to its query")
	f.DurationVar(&d.Timeout, "timeout", 10*time.Second, "time limit of one attempt")
	f.IntVar(&d.Retries, "retries", 0, "retry connection errors, timeouts, 429 and 5xx this many times (exponential backoff with jitter, Retry-After honoured)")
	f.BoolVarP(&d.Insecure, "insecure", "k", false, "do not verify the receiver's TLS certificate")
	f.StringVar(&d.CACert, "cacert", "", "trust the CA certificates in this PEM file (a private CA)")
	f.BoolVar(&d.FollowRedirects, "follow-redirects", false, "follow 3xx (a 301/302/303 turns the POST into a GET without the body)")
	f.IntVarP(&d.Concurrency, "concurrency", "c", 1, "deliveries in flight at once (with --rate: workers to start with)")
	f.Float64Var(&d.Rate, "rate", 0, "start this many deliveries per second whatever the receiver does, latency from each scheduled start (0: each of --concurrency waits for its answer)")
	f.IntVar(&d.MaxConcurrency, "max-concurrency", deliver.DefaultMaxConcurrency, "with --rate: at most this many deliveries in flight (calls that wait for one are counted late)")
	f.StringVar(&d.ExpectStatus, "expect-status", "2xx", "statuses that count as success: codes, classes and ranges (200,202 or 2xx or 200-204)")
	f.BoolVarP(&d.Verbose, "verbose", "v", false, "show each request and the receiver's response (headers and body)")
	f.BoolVar(&d.Each, "each", false, "print a line per delivery on a terminal too (default there: a progress bar, the failures and the summary)")
	addOutputFlag(cmd, &d.Output, "text", report.Text, report.JSON, report.JUnit)
	_ = cmd.MarkFlagFilename("cacert", "pem", "crt", "cer")
}

// check validates the shared flags (usage errors).
func (d *deliveryFlags) check() (func(int) bool, error) {
	switch {
	case d.Concurrency < 1:
		return nil, usagef("--concurrency %d: want at least 1", d.Concurrency)
	case d.Rate < 0:
		return nil, usagef("--rate %g: want 0 or more", d.Rate)
	case d.Rate > 0 && d.MaxConcurrency < 1:
		return nil, usagef("--max-concurrency %d: want at least 1", d.MaxConcurrency)
	case d.Retries < 0:
		return nil, usagef("--retries %d: want 0 or more", d.Retries)
	case d.Timeout <= 0:
		return nil, usagef("--timeout %s: want more than 0", d.Timeout)
	}
	expect, err := deliver.ParseExpect(d.ExpectStatus)
	if err != nil {
		return nil, usagef("--expect-status: %v", err)
	}
	return expect, nil
}

// target checks --url, or u when it is set (send's built-in receiver).
func (d *deliveryFlags) target(u string) (*url.URL, error) {
	if u == "" {
		u = d.URL
	}
	t, err := deliver.ParseTarget(u)
	if err != nil {
		return nil, usagef("--url %v", err)
	}
	return t, nil
}

// inFlight is the most deliveries in flight at once, which the connection
// pool is sized to: the open model may need more than its first workers.
func (d *deliveryFlags) inFlight() int {
	if d.Rate > 0 {
		return max(d.MaxConcurrency, d.Concurrency)
	}
	return d.Concurrency
}

// newDeliverer builds the client and the deliverer for target.
func (d *deliveryFlags) newDeliverer(a *app, target *url.URL, expect func(int) bool, rep *deliveryReporter) (*deliver.Deliverer, error) {
	client, err := newClient(d.CACert, deliver.ClientOptions{
		Timeout: d.Timeout, Concurrency: d.inFlight(), Insecure: d.Insecure, FollowRedirects: d.FollowRedirects,
	})
	if err != nil {
		return nil, err
	}
	if d.Insecure && target.Scheme == "https" {
		rep.warn("--insecure: the receiver's TLS certificate is not verified")
	}
	if d.FollowRedirects {
		rep.warn("--follow-redirects: a 301, 302 or 303 turns the POST into a GET and drops the body")
	}
	return &deliver.Deliverer{
		Client: client, Target: target, Retries: d.Retries,
		Backoff: deliver.DefaultBackoff(rand.Float64), Now: a.now,
		Expect: expect, KeepBody: d.Verbose, OnRetry: rep.retry,
	}, nil
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
	case opts.Duplicate < 0 || opts.Duplicate > 1:
		return usagef("--duplicate %g: want a share between 0 and 1", opts.Duplicate)
	case opts.Scenario != "" && opts.File != "":
		return usagef("--scenario and --file: choose one")
	}
	header := http.Header{}
	for _, h := range opts.Headers {
		k, v, err := deliver.ParseHeader(h)
		if err != nil {
			return usagef("--header %v", err)
		}
		header.Add(k, v)
	}
	var signer *deliver.Signer
	switch opts.Sign {
	case "":
		if opts.Secret != "" {
			return usagef("--secret needs --sign standard")
		}
	case "standard":
		if opts.Secret == "" {
			return usagef("--sign standard needs --secret whsec_...")
		}
		if signer, err = deliver.NewSigner(opts.Secret); err != nil {
			return usagef("--secret: %v", err)
		}
		if signer.Weak() {
			fmt.Fprintf(a.streams.Err, "%s --secret: the key is shorter than the %d bytes Standard Webhooks asks; strict receivers may refuse it\n", a.errColor.Warn.Sprint("warning:"), deliver.GoodKeyBytes)
		}
	default:
		return usagef("--sign %q: the one scheme is standard", opts.Sign)
	}
	lanes, err := opts.lanes(ctx, a, header)
	if err != nil {
		return err
	}

	rep, err := newDeliveryReporter(a, "whsim send", &opts.deliveryFlags)
	if err != nil {
		return err
	}
	rawURL := opts.URL
	if rawURL == "" {
		rcv, err := startBuiltinReceiver(a.streams.Err, a.errColor, opts.Verbose)
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
	d, err := opts.newDeliverer(a, target, expect, rep)
	if err != nil {
		return err
	}
	d.Signer = signer
	if opts.sleep != nil {
		d.Sleep = opts.sleep
	}

	rounds := opts.Count
	if opts.Duration > 0 && !opts.countSet {
		rounds = 0 // until --duration
	}
	if opts.File == "" && opts.Scenario == "" && len(lanes) > 1 && rounds > 0 {
		rep.note = fmt.Sprintf("--count %d per event: %d events × %d", rounds, len(lanes), rounds)
	}
	feed := deliver.NewFeed(lanes, rounds, opts.Duplicate, opts.Shuffle, opts.Seed)
	return runDeliveries(ctx, a, rep, d, feed.Next, deliver.RunOptions{
		Concurrency: opts.Concurrency, Rate: opts.Rate, MaxConcurrency: opts.MaxConcurrency, Duration: opts.Duration,
	}, rounds*deliver.PerRound(lanes))
}

// runDeliveries runs the deliveries, prints the summary and decides the exit.
func runDeliveries(ctx context.Context, a *app, rep *deliveryReporter, d *deliver.Deliverer, next func() []*deliver.Request, ro deliver.RunOptions, total int) error {
	if total == 1 {
		rep.quiet = false // one delivery is one line, whatever came of it, and no bar
	}
	if a.streams.ErrTTY && total != 1 {
		rep.startBar(total, ro.Duration)
	}
	st := deliver.Run(ctx, d, next, ro, rep.report)
	if err := rep.summary(st); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return errInterrupted
	}
	if st.Failed == 0 {
		return nil
	}
	// One receiver that cannot be reached: one clear line, not a page.
	if kinds := st.ErrorKinds(); len(kinds) == 1 && st.ByError[kinds[0]] == st.Sent {
		why := kinds[0]
		if first := rep.firstErr.Load(); first != nil && first.Kind == deliver.KindTLS {
			why = deliver.FailureText(*first)
		}
		return &exitError{code: ExitFailed, err: fmt.Errorf("cannot reach %s: %s", d.Target.Redacted(), why)}
	}
	return errChecksFailed
}

// lanes builds the templates of the run before it starts.
func (opts *sendOptions) lanes(ctx context.Context, a *app, header http.Header) ([][][]deliver.Template, error) {
	if opts.File != "" {
		return opts.fileLanes(ctx, a, header)
	}
	pl, err := opts.plan(a.now())
	if err != nil {
		return nil, err
	}
	ovs, err := opts.overrides()
	if err != nil {
		return nil, err
	}
	count := opts.Count
	if opts.Duration > 0 && !opts.countSet {
		count = 0 // until --duration
	}
	if opts.Scenario != "" {
		return opts.scenarioLanes(pl, deliver.Pool(count), header, ovs)
	}
	return deliver.EventLanes(pl.Events, deliver.Pool(count), header, !payload.OwnsRequestID(ovs), pl.nextBody)
}

// scenarioLanes is one lane of n documents' lives.
func (opts *sendOptions) scenarioLanes(pl *payloadPlan, n int, header http.Header, ovs []payload.Override) ([][][]deliver.Template, error) {
	sc, ok := payload.LookupScenario(opts.Scenario)
	if !ok {
		return nil, usagef("--scenario %q: want one of %s", opts.Scenario, strings.Join(payload.ScenarioNames(), ", "))
	}
	if opts.eventsSet {
		return nil, usagef("--scenario %s sends %s: leave out --event", sc.Name, strings.Join(sc.Events, " then "))
	}
	lives, err := sc.Lives(payload.New(opts.Seed, pl.Now), pl.Shape, opts.Seed, n, ovs)
	if err != nil {
		return nil, usageErr(err)
	}
	steps := make([][]deliver.Step, len(lives))
	for i, life := range lives {
		for _, st := range life {
			steps[i] = append(steps[i], deliver.Step{Event: st.Event.Name, Body: payload.Marshal(st.Doc)})
		}
	}
	return deliver.LifeLanes(steps, header, !payload.OwnsRequestID(ovs)), nil
}
