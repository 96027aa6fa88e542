// Package listencmd is whsim listen: a receiver that shows, checks and
// records each webhook call, with faults to inject and the inspector
// (--ui). Its renderers are in listenout.
package listencmd

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/inspector"
	"github.com/whsim/whsim/internal/cli/listenout"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/fault"
	"github.com/whsim/whsim/internal/inspect"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/ready"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/validate"
)

type listenOptions struct {
	Addr      string
	Receiver  receiver.Options // the answer flags, checked by the receiver
	Capture   string
	Fsync     string
	ReadyFile string
	UI        string
	UIToken   inspector.Token
	Output    string
	Verbose   bool

	// The exactly-once judge over the calls passed on (--probe).
	Probe        string
	ProbeCmd     string
	ProbeHeaders []string
	Settle       time.Duration

	// answerFlags names the response flags the user set; they make no
	// sense with --forward-to, where the receiver answers.
	answerFlags []string
	// limits are the server's timeouts; tests shorten them.
	limits receiver.Limits
}

// New is whsim listen.
func New(a *cmdutil.App) *cobra.Command {
	opts := &listenOptions{limits: receiver.DefaultLimits}
	cmd := &cobra.Command{
		Use: "listen [--addr 127.0.0.1:8080] [--path <path>] [--capture <file.ndjson>] [--status <code>] " +
			"[--delay <d>] [--fail-rate <ratio>] [--respond '<EVENT>=<code>,<code>,...']... [--forward-to <url> [--fault <KIND=RATE[:ARG]>]... [--probe <url-template>|--probe-cmd <command>]] " +
			"[--max-body <size>] [--fsync always|interval|never] [--ready-file <file>] [--ui 127.0.0.1:4040 [--ui-token <token>]] [--output text|json] [-v]",
		Short: "Receive webhook calls: show, check and record each one",
		Long: `Run a local webhook receiver. Every call is answered, checked against the spec
(query event against body, every field) and shown as it arrives; --capture
records each call, byte for byte, before it is answered, for validate and replay.

Answers: --status (default 200), --delay, --fail-rate (answer 500 for that
share of calls) and per-event sequences --respond EVENT=500,500,200 (the last
code repeats) show how a sender retries. --forward-to passes every call on to
your own receiver and returns its answer instead.

With --forward-to, --fault KIND=RATE[:ARG] puts a real sender's worst day
on that share of the calls, at most one fault per call, drawn from --seed,
the requestId and its attempt (the same seed faults the same calls): toward
the receiver duplicate, burst[:N], delay:DURATION, reorder[:N|DURATION],
truncate, new-request-id; toward the sender drop (503), lose-answer
(forwarded, answered 504), status:CODE. The plan is printed at start; each
fault shows on the call's line, in its capture record and JSON (a "fault"
member) and in the summary; the record of what the sender sent is unchanged.
--probe or --probe-cmd (check's probe contract) then asks at the stop about
each document that passed through: held once, in the state of its last
acknowledged event? Those that broke are named with their faults (exit 1).

It binds 127.0.0.1 only unless --addr names another interface. Once it accepts
connections it prints one line "listening on <url>" to stderr (and writes the
URL to --ready-file). Ctrl-C or SIGTERM finishes the calls in flight, closes
the capture file and prints a summary; the exit status is then 0, or 1 when
the capture failed during the run (calls after it were answered 5xx, unrecorded)
or --probe found a document not held once in its state.

--ui serves the web inspector on its own address (never the webhook's): the
calls live in a browser, each body as a tree with its findings, search,
diff, replay and export (see whsim inspect for a capture file). It keeps
the newest 1,000 calls and 64 MiB of bodies in memory; with --capture,
older calls and bodies are read back from the file as the page asks,
without it they are gone from the page. The URL printed carries the
session's token, drawn per run unless --ui-token (WHSIM_UI_TOKEN) names one
(see whsim inspect --help for the API with curl).`,
		Example: `  whsim listen
  whsim listen --addr 127.0.0.1:0 --ready-file url.txt --capture calls.ndjson
  whsim listen --respond AUDIT_PURCHASE_ORDER_INVOICE=500,500,200 --delay 2s
  whsim listen --forward-to http://localhost:3000/webhooks/erp --capture calls.ndjson -v
  whsim listen --forward-to http://localhost:3000/hook --fault lose-answer=0.2 --seed 7 --probe 'http://localhost:3000/debug/{kind}/{code}'
  whsim listen --output json | jq -c 'select(.verdict != "valid")'
  whsim listen --capture calls.ndjson --ui 127.0.0.1:4040
  whsim listen --ui 127.0.0.1:4040 --ui-token "$(cat ~/.config/whsim/ui-token)"`,
		Args: cmdutil.NoArgs,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			for _, name := range []string{"status", "fail-rate", "respond"} {
				if cmd.Flags().Changed(name) {
					opts.answerFlags = append(opts.answerFlags, "--"+name)
				}
			}
			opts.UIToken.Typed = cmd.Flags().Changed("ui-token")
			return runListen(cmd.Context(), a, opts)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&opts.Addr, "addr", "127.0.0.1:8080", "address to listen on (:0 picks a free port; a bare :port listens on every interface)")
	f.StringVar(&opts.Receiver.Path, "path", "", "only this path takes calls; others are answered 404, recorded and flagged (default: any path)")
	f.StringVar(&opts.Capture, "capture", "", "append every call to this NDJSON capture file (created 0600)")
	f.IntVar(&opts.Receiver.Status, "status", 200, "status code to answer with")
	f.DurationVar(&opts.Receiver.Delay, "delay", 0, "wait this long before answering (e.g. 500ms, 2s)")
	f.Float64Var(&opts.Receiver.FailRate, "fail-rate", 0, "answer 500 for this share of calls, 0 to 1")
	// listen builds no payload: its seed draws --fail-rate's failures and
	// --fault's faults.
	cmdutil.SeedFlag(cmd, &opts.Receiver.Seed, "seed for --fail-rate and --fault draws, to fail and fault the same calls every run (0: random)")
	f.StringArrayVar(&opts.Receiver.Respond, "respond", nil, "answer an event's calls in turn: EVENT=code,code,... (repeatable; the last code repeats)")
	f.StringVar(&opts.Receiver.ForwardTo, "forward-to", "", "send every call on to this receiver and answer with its answer")
	f.StringArrayVar(&opts.Receiver.Faults, "fault", nil, "with --forward-to: put a fault on this share of calls, KIND=RATE[:ARG] (repeatable; "+strings.Join(fault.KindNames(), ", ")+"; drawn from --seed)")
	f.StringVar(&opts.Probe, "probe", "", "with --forward-to: at the stop, ask the receiver about each document passed on with a GET of this URL template ({kind}, {code}, {invoiceCode}, {event}, {requestId}), as check's effects do")
	f.StringVar(&opts.ProbeCmd, "probe-cmd", "", "ask with this shell command instead (sh -c; $WHSIM_KIND, $WHSIM_CODE, $WHSIM_INVOICE_CODE, $WHSIM_EVENT, $WHSIM_REQUEST_ID); its stdout is the answer")
	f.StringArrayVar(&opts.ProbeHeaders, "probe-header", nil, "add a header 'Name: value' to every --probe question (repeatable)")
	f.DurationVar(&opts.Settle, "settle", check.DefaultSettle, "how long a document may take to be stored: a probe that does not match is asked again, with backoff, until then (0: once)")
	f.StringVar(&opts.Receiver.MaxBody, "max-body", "10MiB", "largest body accepted; larger ones are answered 413 (e.g. 512KiB, 10MB)")
	f.StringVar(&opts.Fsync, "fsync", string(capture.SyncInterval), "capture durability: always (fsync before answering), interval (every second) or never")
	f.StringVar(&opts.ReadyFile, "ready-file", "", "write the URL to this file once listening (removed when listen stops), for scripts and whsim ready to wait on")
	f.StringVar(&opts.UI, "ui", "", "serve the web inspector on this address (e.g. 127.0.0.1:4040; default: off)")
	inspector.TokenFlag(cmd, &opts.UIToken.Value)
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "also show each call's headers (secrets masked) and pretty-printed body")
	cmdutil.AddOutputFlag(cmd, &opts.Output, "text", "text", "json")
	_ = cmd.RegisterFlagCompletionFunc("fsync", cmdutil.CompleteWords(capture.SyncModes()...))
	_ = cmd.RegisterFlagCompletionFunc("respond", completeRespond)
	_ = cmd.RegisterFlagCompletionFunc("fault", completeFault)
	return cmd
}

// completeRespond offers EVENT= for each event of the catalog.
func completeRespond(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	names, _ := cmdutil.CompleteEvents(cmd, args, toComplete)
	var out []string
	for _, n := range names {
		name, meaning, _ := strings.Cut(n, "\t")
		if !strings.Contains(name, "_") {
			continue // "all" has no sequence
		}
		out = append(out, name+"=\t"+meaning)
	}
	return out, cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
}

// validate checks the flags and turns the answer flags into the
// receiver's config (the receiver parses them, so checking them is
// parsing them). Every problem is a usage error naming the flag.
func (o *listenOptions) validate() (receiver.Config, error) {
	if len(o.Receiver.Faults) > 0 && o.Receiver.ForwardTo == "" {
		return receiver.Config{}, cmdutil.Usagef("--fault needs --forward-to: faults are put on the way to your receiver, and only there")
	}
	cfg, err := o.Receiver.Config()
	if err != nil {
		return cfg, cmdutil.Usagef("--%w", err)
	}
	if cfg.ForwardTo != nil && len(o.answerFlags) > 0 {
		return cfg, cmdutil.Usagef("%s with --forward-to: the receiver behind listen answers forwarded calls", strings.Join(o.answerFlags, ", "))
	}
	switch {
	case o.Probe != "" && o.ProbeCmd != "":
		return cfg, cmdutil.Usagef("--probe and --probe-cmd: give one way to ask the receiver, not both")
	case (o.Probe != "" || o.ProbeCmd != "") && cfg.ForwardTo == nil:
		return cfg, cmdutil.Usagef("--probe and --probe-cmd need --forward-to: they ask the receiver behind listen what it holds")
	case o.Settle < 0:
		return cfg, cmdutil.Usagef("--settle %s: want 0 or more", o.Settle)
	case len(o.ProbeHeaders) > 0 && o.Probe == "":
		return cfg, cmdutil.Usagef("--probe-header needs --probe, the URL it is sent to")
	case o.UI != "" && o.UI == o.Addr && !strings.HasSuffix(o.UI, ":0"):
		return cfg, cmdutil.Usagef("--ui %s: the webhook's address; the inspector needs one of its own (e.g. 127.0.0.1:4040)", o.UI)
	case o.UI == "" && o.UIToken.Typed:
		return cfg, cmdutil.Usagef("--ui-token without --ui: there is no inspector to guard")
	case o.UI != "":
		if err := o.UIToken.Check(); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// listenProbeTimeout bounds one probe question at the stop.
const listenProbeTimeout = 10 * time.Second

// probe is the probe --probe or --probe-cmd asks with, nil for none.
func (o *listenOptions) probe() (probe.Probe, error) {
	switch {
	case o.Probe != "":
		h, err := endpoint.ParseHeaders(o.ProbeHeaders)
		if err != nil {
			return nil, cmdutil.Usagef("--probe-header: %w", err)
		}
		p, err := probe.ParseURL(o.Probe, &http.Client{Timeout: listenProbeTimeout}, h)
		if err != nil {
			return nil, cmdutil.Usagef("--probe %s: %w", termsafe.Text(o.Probe), err)
		}
		return p, nil
	case o.ProbeCmd != "":
		return &probe.Cmd{Run: o.ProbeCmd, Timeout: listenProbeTimeout}, nil
	}
	return nil, nil
}

func runListen(ctx context.Context, a *cmdutil.App, opts *listenOptions) error {
	cfg, err := opts.validate()
	if err != nil {
		return err
	}
	r, err := opts.build(ctx, a, cfg)
	if err != nil {
		return err
	}
	return r.run(ctx)
}

// listenSession is one listen as its flags made it: the receiver, its
// capture file, the printer of its calls, the inspector's feed and the
// documents the probe asks about at the stop.
type listenSession struct {
	a    *cmdutil.App
	opts *listenOptions
	cfg  receiver.Config
	rcv  *receiver.Receiver
	prb  probe.Probe         // nil without --probe or --probe-cmd
	docs *receiver.Documents // the documents passed on, when prb asks
	out  *bufio.Writer       // stdout, flushed when the receiver is idle
	p    *listenout.CallPrinter
	feed *inspect.Feed // nil without --ui
	// inspector is the web inspector's config (--ui), completed once the
	// webhook's address is known.
	inspector inspect.Options
	capFile   *capture.File
	// captureLost holds why the capture failed during the run: listen then
	// exits 1, as a script needs to know that calls went unrecorded.
	captureLost atomic.Pointer[error]
	// undo holds what the run set up, undone in reverse order when it
	// ends, however it ends.
	undo []func()
}

// close undoes what the run set up, last first.
func (r *listenSession) close() {
	for i := len(r.undo) - 1; i >= 0; i-- {
		r.undo[i]()
	}
}

// build turns the checked flags into a receiver that is not yet bound:
// the probe, the checker, the capture file (opened, and said what it
// holds), the printer and the inspector's store.
func (o *listenOptions) build(ctx context.Context, a *cmdutil.App, cfg receiver.Config) (*listenSession, error) {
	r := &listenSession{a: a, opts: o, cfg: cfg}
	var err error
	if r.prb, err = o.probe(); err != nil {
		return nil, err
	}
	sync, err := capture.ParseSync(o.Fsync)
	if err != nil {
		return nil, cmdutil.Usagef("--fsync: %w", err)
	}
	v, err := validate.New(validate.Options{Shape: validate.ShapeAuto})
	if err != nil {
		return nil, err
	}
	r.cfg.Checker = v
	r.cfg.Now = a.Now
	if o.Capture != "" {
		if err := r.openCapture(ctx, sync); err != nil {
			return nil, err
		}
	}
	r.undo = append(r.undo, receiver.TuneRuntime())
	r.observe()
	r.cfg.Idle = func() { r.out.Flush() }
	r.rcv = receiver.New(r.cfg)
	return r, nil
}

// openCapture opens --capture for appending, says what it already holds,
// and says when writing it fails during the run.
func (r *listenSession) openCapture(ctx context.Context, sync capture.Sync) error {
	errw, pal, name := r.a.Streams.Err, r.a.ErrColor, r.opts.Capture
	var held capture.Appending
	var err error
	if r.capFile, held, err = capture.OpenAppend(ctx, name, sync); err != nil {
		return cmdutil.Usagef("--capture: %w", err)
	}
	// Closed by run on the normal path; this covers early returns.
	r.undo = append(r.undo, func() { r.capFile.Close() })
	if held.Counted {
		fmt.Fprintf(errw, "%s appending to %s, which holds %d %s\n", pal.Key.Sprint("capture:"), termsafe.Text(name),
			held.Records, term.Plural(int(held.Records), "record", "records"))
	}
	if held.Torn {
		fmt.Fprintf(errw, "%s %s ends in a torn line (a crash while writing?); readers skip it, new records start on a fresh line\n",
			pal.Warn.Sprint("warning:"), termsafe.Text(name))
	}
	r.cfg.Capture = r.capFile
	r.cfg.CaptureLost = func(err error) {
		fmt.Fprintf(errw, "%s --capture: %v; no call is acknowledged from now on (5xx) until listen is restarted\n",
			pal.Fail.Sprint("error:"), err)
		r.captureLost.Store(&err)
	}
	return nil
}

// observe sets where each call goes once answered: the printer, judged
// as forwarded calls are; the documents the probe asks about; the
// inspector's feed.
func (r *listenSession) observe() {
	o := r.opts
	r.out = bufio.NewWriterSize(r.a.Streams.Out, 64<<10)
	r.p = listenout.NewCallPrinter(r.out, o.Output == "json", cmdutil.Style(r.a.OutColor, o.Verbose))
	judge := judgeForwarded()
	if r.cfg.Faults != nil {
		judge = skipTruncated(judge)
		for _, f := range r.cfg.Faults.Plan().Faults {
			r.p.Faults = append(r.p.Faults, f.Label())
		}
	}
	if r.prb != nil {
		r.docs = receiver.NewDocuments()
	}
	observe := func(c *receiver.Call) {
		r.p.Observe(c, judge(c))
		if r.docs != nil {
			r.docs.Observe(c)
		}
	}
	r.cfg.Observe = observe
	if o.UI == "" {
		// The printer keeps nothing of a call, and without --forward-to no
		// body is still being sent on after the answer: each call's memory
		// can serve a later one. The inspector's feed keeps calls.
		r.cfg.Recycle = r.cfg.ForwardTo == nil
		return
	}
	// Calls that left the page's window are checked as listen checked them.
	store := inspect.NewListenStore(o.Capture, func(rec *capture.Record) []validate.Finding { return r.rcv.CheckRecord(rec) })
	r.feed = store.NewFeed()
	r.undo = append(r.undo, func() {
		if n := store.Dropped(); n > 0 {
			fmt.Fprintf(r.a.Streams.Err, "%s the inspector missed %d calls (its queue was full); the capture has them\n", r.a.ErrColor.Warn.Sprint("warning:"), n)
		}
	})
	r.cfg.Observe = func(c *receiver.Call) {
		observe(c)
		r.feed.Observe(c)
	}
	r.inspector = inspect.Options{Store: store, Token: o.UIToken.Value}
	if r.cfg.ForwardTo != nil {
		r.inspector.ForwardTo = r.cfg.ForwardTo.String() // the replay box's first target
	}
}

// run binds the webhook's address and serves until ctx is done, then
// finishes the calls in flight, sums up and, with a probe, judges
// whether each document passed on is held once.
func (r *listenSession) run(ctx context.Context) error {
	defer r.close()
	srv, err := r.start(ctx)
	if err != nil {
		r.rcv.Close()
		return err
	}
	printed, serveErr := r.stop(srv.Serve(ctx))
	if r.docs != nil && printed && serveErr == nil {
		if err := r.judge(ctx); err != nil {
			return err
		}
	}
	if lost := r.captureLost.Load(); lost != nil && serveErr == nil {
		serveErr = fmt.Errorf("--capture %s failed during the run (%w): the calls after it were answered 5xx and not recorded", termsafe.Text(r.opts.Capture), *lost)
	}
	return serveErr
}

// listener is what listen needs of the server receiver.Listen binds.
type listener interface {
	Addr() net.Addr
	URL() string
	HookURL(path string) string
	Serves(ctx context.Context, u *url.URL) bool
	Serve(ctx context.Context) error
}

// start binds the webhook's address, starts the inspector, writes
// --ready-file and says where listen listens. On an error the caller
// closes the receiver.
func (r *listenSession) start(ctx context.Context) (listener, error) {
	o, errw, pal := r.opts, r.a.Streams.Err, r.a.ErrColor
	srv, err := receiver.Listen(o.Addr, r.rcv, o.limits)
	if err != nil {
		return nil, cmdutil.AddrError("--addr", o.Addr, err)
	}
	if r.cfg.ForwardTo != nil && srv.Serves(ctx, r.cfg.ForwardTo) {
		return nil, cmdutil.Usagef("--forward-to %s: that is this listen itself (%s); every call would come back to it", o.Receiver.ForwardTo, srv.Addr())
	}
	if !receiver.LoopbackOnly(srv.Addr()) {
		fmt.Fprintf(errw, "%s listening on %s: every network interface, anyone who can reach this machine can send calls (use --addr 127.0.0.1:%d to keep it local)\n",
			pal.Warn.Sprint("warning:"), srv.Addr(), srv.Addr().(*net.TCPAddr).Port)
	}
	u := srv.HookURL(o.Receiver.Path)
	var ui *inspect.UI
	if o.UI != "" {
		r.inspector.Source, r.inspector.Origin = "listen "+u, srv.URL()
		uiCtx, stopUI := context.WithCancel(ctx)
		r.undo = append(r.undo, stopUI)
		if ui, err = inspector.Start(uiCtx, r.a, o.UI, r.inspector); err != nil {
			return nil, err
		}
		r.undo = append(r.undo, func() { stopUI(); _ = ui.Wait() })
	}
	if o.ReadyFile != "" {
		// Gone as soon as listen stops (ctx done), before it finishes the
		// calls in flight and asks the probe, so that whsim ready (a
		// health check) and scripts waiting for the file never take a
		// stopping listen for a ready one.
		withdraw, err := ready.Announce(ctx, o.ReadyFile, u)
		if err != nil {
			return nil, cmdutil.Usagef("--ready-file: %w", err)
		}
		r.undo = append(r.undo, withdraw)
	}
	// The socket is listening: calls queue in the kernel until Serve takes them.
	fmt.Fprintf(errw, "%s %s\n", pal.OK.Sprint("listening on"), u)
	if r.cfg.Faults != nil {
		plan := r.cfg.Faults.Plan()
		fmt.Fprintf(errw, "%s %s (seed %d: --seed %d faults the same calls again)\n", pal.Warn.Sprint("faults:"), plan.Describe(), plan.Seed, plan.Seed)
	}
	if ui != nil {
		fmt.Fprintf(errw, "%s %s\n", pal.OK.Sprint("inspector on"), o.UIToken.Shown(r.a, ui))
	}
	return srv, nil
}

// stop finishes what serving left once it ended with serveErr: the calls
// in flight printed, the capture closed, the summary. printed is false
// when stdout was not read and the last calls could not be printed.
func (r *listenSession) stop(serveErr error) (printed bool, _ error) {
	o, errw, pal := r.opts, r.a.Streams.Err, r.a.ErrColor
	// Every call answered is now observed, unless stdout is not read
	// (a pipe to a stopped reader): then listen stops anyway, after the
	// shutdown's grace, leaving the lines it could not print.
	grace := time.NewTimer(o.limits.ShutdownTimeout)
	defer grace.Stop()
	printed = r.rcv.CloseWithin(grace.C)
	if printed {
		if r.feed != nil {
			r.feed.Close()
		}
		r.out.Flush()
	}
	if r.capFile != nil {
		if err := r.capFile.Close(); err != nil && serveErr == nil {
			serveErr = fmt.Errorf("--capture %s: %w", o.Capture, err)
		}
	}
	if printed {
		r.p.Summary(errw, cmdutil.Style(pal, false), "listen stopped:", o.Capture)
	} else {
		// The printer is blocked inside a call: no summary of its counts.
		fmt.Fprintf(errw, "%s stdout was not read for %s after the stop; the last calls are not printed%s\n",
			pal.Warn.Sprint("listen stopped:"), o.limits.ShutdownTimeout, capturedNote(o.Capture))
	}
	return printed, serveErr
}

// judge asks the probe about each document passed on and says whether
// each is held once in its state: cmdutil.ErrChecksFailed when one broke (unless
// the capture failed, which is said instead), nil when all held.
func (r *listenSession) judge(ctx context.Context) error {
	errw, pal := r.a.Streams.Err, r.a.ErrColor
	// The run's context is done (that is the stop); the probe still
	// asks, each question bounded by listenProbeTimeout, until a
	// second Ctrl-C or SIGTERM.
	jctx, stopJudge := signal.NotifyContext(context.WithoutCancel(ctx), os.Interrupt, syscall.SIGTERM)
	defer stopJudge()
	v, err := r.docs.Judge(jctx, r.prb, r.opts.Settle)
	if jctx.Err() != nil {
		fmt.Fprintf(errw, "%s interrupted while asking the receiver: no verdict\n", pal.Warn.Sprint("exactly-once:"))
		return cmdutil.ErrInterrupted
	}
	if err != nil {
		return cmdutil.UsageErr(err)
	}
	writeExactlyOnce(errw, pal, r.prb, r.docs, v)
	if r.opts.Output == "json" {
		writeExactlyOnceJSON(r.a.Streams.Out, v)
	}
	if len(v.Broke) > 0 && r.captureLost.Load() == nil {
		return cmdutil.ErrChecksFailed
	}
	return nil
}

// capturedNote says where the unprinted calls are, if anywhere.
func capturedNote(capture string) string {
	if capture == "" {
		return ""
	}
	return " (" + termsafe.Text(capture) + " has them)"
}

// judgeForwarded returns the flags of forwarded calls' answers, judged as
// whsim check would (an invalid call accepted, a re-delivery refused).
// Like the observer that calls it, it runs on one goroutine.
func judgeForwarded() func(c *receiver.Call) []listenout.CallFlag {
	j := receiver.NewForwarded()
	return func(c *receiver.Call) []listenout.CallFlag {
		f := c.Record.Forward
		if f == nil || f.Error != "" {
			return nil
		}
		var flags []listenout.CallFlag
		for _, fl := range j.Judge(reqid.Read(c.Body), c.Verdict() == "invalid", f.Status) {
			flags = append(flags, listenout.CallFlag(fl))
		}
		return flags
	}
}
