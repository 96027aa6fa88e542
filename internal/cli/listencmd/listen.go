// Package listencmd is whsim listen: a receiver that shows, checks and
// records each webhook call, with faults to inject and the inspector
// (--ui). Its renderers are in listenout.
package listencmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/inspector"
	"github.com/whsim/whsim/internal/cli/listenout"
	"github.com/whsim/whsim/internal/cli/reportfile"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/inspect"
	"github.com/whsim/whsim/internal/pipewatch"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/ready"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/replay"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/tlsconf"
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

	// How an https receiver behind listen is trusted, for the calls
	// passed on and the probe: --insecure, --cacert.
	Insecure bool
	CACert   string
	// tlsTyped says --insecure or --cacert is on the command line (not
	// only in the environment or the config file, where send's may be).
	tlsTyped bool

	// answerFlags names the response flags the user set; they make no
	// sense with --forward-to, where the receiver answers.
	answerFlags []string
	// limits are the server's timeouts; tests shorten them.
	limits receiver.Limits
}

// New is whsim listen: its help (help.go), its flags by what they decide
// (flags.go), and runListen.
func New(a *cmdutil.App) *cobra.Command {
	opts := &listenOptions{limits: receiver.DefaultLimits}
	cmd := &cobra.Command{
		Use:               helpUse,
		Short:             helpShort,
		Long:              helpLong,
		Example:           helpExample,
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			for _, name := range []string{"status", "fail-rate", "respond"} {
				if cmd.Flags().Changed(name) {
					opts.answerFlags = append(opts.answerFlags, "--"+name)
				}
			}
			opts.UIToken.Typed = cmd.Flags().Changed("ui-token")
			opts.tlsTyped = cmd.Flags().Changed("insecure") || cmd.Flags().Changed("cacert")
			return runListen(cmd.Context(), a, opts)
		}),
	}
	opts.registerServerFlags(cmd)
	opts.registerAnswerFlags(cmd)
	opts.registerForwardFlags(cmd)
	opts.registerRecordFlags(cmd)
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
	for _, f := range []struct{ flag, path string }{{"--capture", o.Capture}, {"--ready-file", o.ReadyFile}} {
		if f.path == "" {
			continue
		}
		if err := cmdutil.FileDir(f.flag, f.path); err != nil {
			return receiver.Config{}, cmdutil.UsageErr(err)
		}
	}
	if o.ReadyFile != "" && o.Capture != "" {
		if _, same := reportfile.NamesInput(o.ReadyFile, []string{o.Capture}); same {
			return receiver.Config{}, cmdutil.Usagef("--ready-file %s: the --capture file: %s", o.ReadyFile, readyOverCapture)
		}
	}
	if len(o.Receiver.Faults) > 0 && o.Receiver.ForwardTo == "" {
		return receiver.Config{}, cmdutil.Usagef("--fault needs --forward-to: faults are put on the way to your receiver, and only there")
	}
	if o.Receiver.ForwardTo == "" {
		if o.tlsTyped {
			return receiver.Config{}, cmdutil.Usagef("--insecure and --cacert need --forward-to: they say how listen trusts the https receiver it passes calls on to (and --probe asks)")
		}
	} else if o.Insecure || o.CACert != "" {
		conf, err := tlsconf.Config(o.tlsOptions())
		switch {
		case errors.Is(err, tlsconf.ErrNoCerts):
			return receiver.Config{}, cmdutil.Usagef("--cacert %s: %w", o.CACert, err)
		case err != nil:
			return receiver.Config{}, cmdutil.Usagef("--cacert: %w", err)
		}
		o.Receiver.TLS = conf
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
		return cfg, cmdutil.Usagef("--ui %s: the webhook's address (--addr %s); the inspector needs one of its own (e.g. 127.0.0.1:4040)", o.UI, o.Addr)
	case o.UI == "" && o.UIToken.Typed:
		return cfg, cmdutil.Usagef("--ui-token without --ui: there is no inspector to guard")
	case o.UI != "":
		if err := o.UIToken.Check(); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// readyOverCapture says why --ready-file may not name the capture: the
// ready file is written by a rename onto its path and removed at the
// stop, and every record the capture held went with it.
const readyOverCapture = "the ready file is written in its place and removed at the stop, which would lose its records; give --ready-file a file of its own"

// tlsWarnings are what --insecure and --cacert, given with --forward-to,
// do that the user may not expect: no check of the certificate, or
// nothing at all when no call listen makes is https.
func (o *listenOptions) tlsWarnings(cfg receiver.Config) []string {
	if cfg.ForwardTo == nil || !o.Insecure && o.CACert == "" {
		return nil
	}
	https := cfg.ForwardTo.Scheme == "https" || strings.HasPrefix(strings.ToLower(o.Probe), "https:")
	switch {
	case !https && o.tlsTyped:
		return []string{"--insecure and --cacert do nothing: --forward-to and --probe are http://, no TLS"}
	case https && o.Insecure:
		return []string{"--insecure: the receiver's TLS certificate is not verified"}
	}
	return nil
}

// bodyWarning says, when --capture records bodies over what whsim reads
// back (input.Max), that they will be: listen takes up to --max-body (1
// GiB), and such a record is found out only when validate fails it and
// replay or the inspector cannot give it. "" otherwise.
func (o *listenOptions) bodyWarning(cfg receiver.Config) string {
	if o.Capture == "" || cfg.MaxBody <= input.Max {
		return ""
	}
	return fmt.Sprintf("--max-body %s takes bodies over %d MiB, whose records whsim does not read back: validate fails such a record, replay skips it, and the inspector cannot show it",
		termsafe.Text(o.Receiver.MaxBody), input.Max>>20)
}

// tlsOptions are --insecure and --cacert.
func (o *listenOptions) tlsOptions() tlsconf.Options {
	return tlsconf.Options{Insecure: o.Insecure, CAFile: o.CACert}
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
		client := &http.Client{Timeout: listenProbeTimeout}
		if o.Receiver.TLS != nil {
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.TLSClientConfig = o.Receiver.TLS.Clone()
			client.Transport = tr
		}
		p, err := probe.ParseURL(o.Probe, client, h)
		if err != nil {
			return nil, cmdutil.Usagef("--probe %s: %w", termsafe.Text(termsafe.URLString(o.Probe)), err)
		}
		p.CurlTLS = tlsconf.CurlFlags(o.tlsOptions()) // ask again by hand as listen asked
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
	for _, w := range opts.tlsWarnings(cfg) {
		fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Warn.Sprint("warning:"), w)
	}
	if w := opts.bodyWarning(cfg); w != "" {
		fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Warn.Sprint("warning:"), w)
	}
	// listen | head -1: a write to a stdout whose reader went away
	// returns EPIPE instead of SIGPIPE killing listen (no summary, the
	// ready-file left behind), and listen stops as Ctrl-C stops it.
	// Notified, not acted on: a sender's closed connection raises
	// SIGPIPE too; the failed write to stdout is what stops listen.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	ctx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(nil)
	r, err := opts.build(ctx, a, cfg, func(err error) {
		if errors.Is(err, syscall.EPIPE) {
			stopRun(errStdoutClosed)
		} else {
			stopRun(errStdoutLost)
		}
	})
	if err != nil {
		return err
	}
	if f, ok := a.Streams.Out.(*os.File); ok {
		// listen | head -1 with no call after the line head read: the
		// reader's going away stops listen now, not at the next call's
		// line, which may never come (listen sat on, its ready-file
		// saying it was up, its pipeline never ending).
		if gone := pipewatch.ReaderGone(ctx, f); gone != nil {
			go func() {
				select {
				case <-gone:
					r.stdout.closed(fmt.Errorf("its reader went away: %w", syscall.EPIPE))
				case <-ctx.Done():
				}
			}()
		}
	}
	err = r.run(ctx)
	if err != nil && !errors.Is(err, cmdutil.ErrInterrupted) && !errors.Is(err, cmdutil.ErrChecksFailed) {
		return err // the capture or the probe failed: said with it
	}
	// Calls answered whose lines never reached stdout end the run as such
	// (the summary said why), whether stdout failed before or after a
	// Ctrl-C or SIGTERM, and whether one then cut the stop short: the
	// session's record of the failed write says so, where the stop's cause
	// is whichever came first. As every command's output it could not
	// write, it outweighs a document the probe found broken (on stderr).
	switch p := r.stdoutErr.Load(); {
	case p == nil:
		return err
	case errors.Is(*p, syscall.EPIPE):
		return &cmdutil.ExitError{Code: cmdutil.ExitStdoutClosed}
	default:
		// Output it could not write (a full disk), as every command's:
		// whsim could not run, exit 2.
		return &cmdutil.ExitError{Code: cmdutil.ExitUsage}
	}
}

// outputLost says a write to stdout failed other than for its reader
// going away: a full disk, an I/O error.
func (r *listenSession) outputLost() bool {
	p := r.stdoutErr.Load()
	return p != nil && !errors.Is(*p, syscall.EPIPE)
}

// errStdoutClosed is the cause of a listen stopped because the reader of
// its stdout went away; errStdoutLost because a write to it failed
// otherwise (a full disk, an I/O error).
var (
	errStdoutClosed = errors.New("stdout was closed")
	errStdoutLost   = errors.New("stdout could not be written")
)

// closingWriter is stdout, telling closed once when a write fails, with
// its error: its reader gone (EPIPE), or a disk full; and when the write
// under way began: a stop that gives up on the printer tells a stdout
// nobody reads from a slow one.
type closingWriter struct {
	w      io.Writer
	closed func(err error)
	now    func() time.Time
	// writingSince is when the write under way began (Unix nanoseconds),
	// 0 when none is.
	writingSince atomic.Int64
}

func (c *closingWriter) Write(p []byte) (int, error) {
	c.writingSince.Store(c.now().UnixNano())
	n, err := c.w.Write(p)
	c.writingSince.Store(0)
	if err != nil {
		// A listen whose calls cannot be printed stops, whatever the
		// error: one that went on answering a full disk's calls exited 0
		// having printed none of them. bufio.Writer keeps the first error
		// and writes no more, so this tells it once.
		c.closed(err)
	}
	return n, err
}

// writing is when the write under way began, zero when none is.
func (c *closingWriter) writing() time.Time {
	if ns := c.writingSince.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
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
	// stdout is what out writes to.
	stdout *closingWriter
	p      *listenout.CallPrinter
	feed   *inspect.Feed // nil without --ui
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
	// stdoutClosed stops the run when a write to stdout failed (its
	// reader went away, a full disk); closed says it did, stdoutErr holds
	// the error.
	stdoutClosed func(err error)
	closed       atomic.Bool
	stdoutErr    atomic.Pointer[error]
	// closesKept is set by the forward that first saw the receiver close
	// a kept-alive connection (Config.ClosesKept); closesKeptSaid, the
	// observer's or, after it, the stop's, that the line saying so went
	// out. The forward runs in net/http's goroutines, which share no
	// order with stderr's other writers; the observer's do.
	closesKept     atomic.Bool
	closesKeptSaid bool
	// closesKeptStray says it saw stray bytes on one, not a close.
	closesKeptStray atomic.Bool
}

// sayClosesKept says once, when the receiver was seen to close a kept-alive
// connection, that listen keeps no connection to it from then on: the
// receiver then sees Connection: close on every call, which its developer
// would otherwise find unexplained. Called by the observer, and by the
// stop once the observer is done.
func (r *listenSession) sayClosesKept() {
	if r.closesKeptSaid || !r.closesKept.Load() {
		return
	}
	r.closesKeptSaid = true
	if r.closesKeptStray.Load() {
		// Said as what was seen: the receiver closed nothing.
		fmt.Fprintf(r.a.Streams.Err, "%s the receiver wrote bytes no call asked for after an answer on a kept-alive connection (a second answer, or a body past its Content-Length), which the next call on it would read as its answer; from now on each call goes to it on a connection of its own, with Connection: close\n",
			r.a.ErrColor.Key.Sprint("forward:"))
		return
	}
	fmt.Fprintf(r.a.Streams.Err, "%s the receiver closed a kept-alive connection its answer had not said it would close; from now on each call goes to it on a connection of its own, with Connection: close (a call on a kept one can cross its close and come back 502)\n",
		r.a.ErrColor.Key.Sprint("forward:"))
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
func (o *listenOptions) build(ctx context.Context, a *cmdutil.App, cfg receiver.Config, stdoutClosed func(err error)) (*listenSession, error) {
	r := &listenSession{a: a, opts: o, cfg: cfg, stdoutClosed: stdoutClosed}
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
	r.undo = append(r.undo, r.a.TuneGC())
	r.observe()
	r.cfg.Idle = func() { r.out.Flush() }
	if r.cfg.ForwardTo != nil {
		r.cfg.ClosesKept = func(stray bool) { // said by sayClosesKept
			r.closesKeptStray.Store(stray)
			r.closesKept.Store(true)
		}
	}
	r.rcv = receiver.New(r.cfg)
	return r, nil
}

// openCapture opens --capture for appending, says what it already holds,
// and says when writing it fails during the run.
func (r *listenSession) openCapture(ctx context.Context, sync capture.Sync) error {
	errw, pal, name := r.a.Streams.Err, r.a.ErrColor, r.opts.Capture
	if stream, ok := namesStream(name, r.a.Streams); ok {
		return cmdutil.Usagef("--capture: %s is the file listen's %s writes to: the lines listen prints would overwrite its records; give --capture a file of its own (listen --output json streams the calls to stdout)", name, stream)
	}
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

// namesStream says whether path is the file listen's stdout or stderr
// writes to, and which. A FIFO there is refused as no regular file, but a
// stream redirected to a file (listen --capture /dev/stdout > out.txt) is
// one: writing through its own offset, the stream would overwrite the
// records the capture appends.
func namesStream(path string, streams cmdutil.Streams) (string, bool) {
	at, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	for _, s := range []struct {
		name string
		w    io.Writer
	}{{"stdout", streams.Out}, {"stderr", streams.Err}} {
		f, ok := s.w.(*os.File)
		if !ok {
			continue
		}
		if fi, err := f.Stat(); err == nil && os.SameFile(fi, at) {
			return s.name, true
		}
	}
	return "", false
}

// observe sets where each call goes once answered: the printer, judged
// as forwarded calls are; the documents the probe asks about; the
// inspector's feed.
func (r *listenSession) observe() {
	o := r.opts
	r.stdout = &closingWriter{w: r.a.Streams.Out, now: r.a.Now, closed: func(err error) {
		// The error first: whoever sees closed finds it.
		if r.stdoutErr.CompareAndSwap(nil, &err) {
			r.closed.Store(true)
			r.stdoutClosed(err)
		}
	}}
	r.out = bufio.NewWriterSize(r.stdout, 64<<10)
	r.p = listenout.NewCallPrinter(r.out, o.Output == "json", cmdutil.Style(r.a.OutColor, o.Verbose))
	r.p.Forwarding = r.cfg.ForwardTo != nil
	r.p.Capturing = r.capFile != nil
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
		r.sayClosesKept()
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
			fmt.Fprintf(r.a.Streams.Err, "%s %s\n", r.a.ErrColor.Warn.Sprint("warning:"), inspectorMissed(n, o.Capture))
		}
	})
	r.cfg.Observe = func(c *receiver.Call) {
		observe(c)
		r.feed.Observe(c)
	}
	r.inspector = inspect.Options{Store: store, Token: o.UIToken.Value}
	if r.cfg.ForwardTo != nil {
		r.inspector.ForwardTo = r.cfg.ForwardTo.String() // the replay box's first target
		if o.Insecure || o.CACert != "" {
			r.inspector.Replay = replay.OneWith(o.tlsOptions()) // trusted as the calls passed on
		}
	}
}

// inspectorMissed says that the inspector missed n calls, and where they
// are: it said "the capture has them" of a listen without --capture.
func inspectorMissed(n uint64, capture string) string {
	where := termsafe.Text(capture) + " has them"
	if capture == "" {
		where = "without --capture they are gone"
	}
	return fmt.Sprintf("the inspector missed %d %s (its queue was full); %s", n, term.Plural(int(n), "call", "calls"), where)
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
	// The stop finishes the calls in flight, but does not sit out the
	// waits listen itself put on them (--delay, a fault's hold).
	defer context.AfterFunc(ctx, r.rcv.EndWaits)()
	printed, serveErr := r.stop(r.serve(ctx, srv))
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
	ServeGrace(ctx context.Context, now <-chan struct{}) error
	InFlight() (calls, copies int64)
}

// awaited says what the stop waits for: the calls in flight to be
// answered, or a fault's copies sent after their calls' answers (every
// sender answered already), or both.
func awaited(calls, copies int64) string {
	copiesOut := fmt.Sprintf("%d %s a fault sends after %s to be answered by the receiver",
		copies, term.Plural(int(copies), "copy", "copies"), term.Plural(int(copies), "its call's answer", "their calls' answers"))
	switch {
	case copies == 0:
		return "the calls in flight to be answered"
	case calls == 0:
		return copiesOut
	}
	return "the calls in flight to be answered, and " + copiesOut
}

// stopNotice is how long the stop may wait on calls in flight before
// listen says it waits: a held call must not read as a hung listen.
const stopNotice = 500 * time.Millisecond

// serve serves until ctx is done (Ctrl-C or SIGTERM), then lets the calls
// in flight finish; a second Ctrl-C or SIGTERM meanwhile stops at once,
// leaving them unanswered (cmdutil.ErrInterrupted), as does the end of the
// grace (limits.ShutdownTimeout).
func (r *listenSession) serve(ctx context.Context, srv listener) error {
	errw, pal := r.a.Streams.Err, r.a.ErrColor
	now, served := make(chan struct{}), make(chan struct{})
	defer close(served)
	stopWatching := context.AfterFunc(ctx, func() {
		// A stop listen began itself (its stdout failed) had no Ctrl-C
		// to repeat.
		stopAtOnce := "Ctrl-C again"
		if c := context.Cause(ctx); errors.Is(c, errStdoutClosed) || errors.Is(c, errStdoutLost) {
			stopAtOnce = "Ctrl-C"
		}
		again, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		notice := time.NewTimer(stopNotice)
		defer notice.Stop()
		for {
			select {
			case <-served:
				return
			case <-notice.C:
				calls, copies := srv.InFlight()
				if calls == 0 && copies == 0 {
					// The stop waits on no call (an idle HTTP/2
					// connection taking its GOAWAY, a head still
					// arriving): nothing to say yet.
					notice.Reset(stopNotice)
					continue
				}
				fmt.Fprintf(errw, "%s waiting for %s (up to %s); %s to stop at once\n",
					pal.Warn.Sprint("stopping:"), awaited(calls, copies), r.opts.limits.ShutdownTimeout, stopAtOnce)
			case <-again.Done():
				close(now)
				return
			}
		}
	})
	defer stopWatching()
	err := srv.ServeGrace(ctx, now)
	cutCalls, cutCopies := int64(1), int64(0) // a stop cut short without a count: say what it may have done
	if cs, ok := errors.AsType[*receiver.CutShort](err); ok {
		cutCalls, cutCopies = cs.Calls, cs.Copies
	}
	// Copies a fault sends after their calls' answers (duplicate's,
	// new-request-id's, a burst's): their calls were answered.
	copies := fmt.Sprintf("%d %s a fault sends after %s answer", cutCopies, term.Plural(int(cutCopies), "copy", "copies"), term.Plural(int(cutCopies), "its call's", "their calls'"))
	switch {
	case errors.Is(err, context.Canceled) && cutCalls == 0 && cutCopies > 0:
		fmt.Fprintf(errw, "%s %s %s cut short (see %s)\n", pal.Warn.Sprint("stopped at once:"), copies,
			term.Plural(int(cutCopies), "was", "were"), term.Plural(int(cutCopies), "its line", "their lines"))
		return cmdutil.ErrInterrupted
	case errors.Is(err, context.DeadlineExceeded) && cutCalls == 0 && cutCopies > 0:
		fmt.Fprintf(errw, "%s %s %s still out %s after the stop, and %s cut short (see %s)\n", pal.Warn.Sprint("stopped:"), copies,
			term.Plural(int(cutCopies), "was", "were"), r.opts.limits.ShutdownTimeout, term.Plural(int(cutCopies), "was", "were"), term.Plural(int(cutCopies), "its line", "their lines"))
		return cmdutil.ErrInterrupted
	case errors.Is(err, context.Canceled) && cutCalls == 0:
		fmt.Fprintf(errw, "%s no call was being answered\n", pal.Warn.Sprint("stopped at once:"))
		return cmdutil.ErrInterrupted
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(errw, "%s the calls in flight were left unanswered\n", pal.Warn.Sprint("stopped at once:"))
		return cmdutil.ErrInterrupted
	case errors.Is(err, context.DeadlineExceeded) && cutCalls == 0:
		fmt.Fprintf(errw, "%s the connections still open %s after the stop were closed; no call was being answered\n",
			pal.Warn.Sprint("stopped:"), r.opts.limits.ShutdownTimeout)
		return cmdutil.ErrInterrupted
	case errors.Is(err, context.DeadlineExceeded):
		// Not "context deadline exceeded" (exit 1): the same cut as a
		// second Ctrl-C's, by the clock.
		fmt.Fprintf(errw, "%s the calls in flight were still unanswered %s after the stop, and were left so\n",
			pal.Warn.Sprint("stopped:"), r.opts.limits.ShutdownTimeout)
		return cmdutil.ErrInterrupted
	}
	return err
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
		return nil, cmdutil.Usagef("--forward-to %s: that is this listen itself (%s); every call would come back to it", termsafe.Text(termsafe.URLString(o.Receiver.ForwardTo)), srv.Addr())
	}
	if !receiver.LoopbackOnly(srv.Addr()) {
		fmt.Fprintf(errw, "%s listening on %s: every network interface, anyone who can reach this machine can send calls (use --addr 127.0.0.1:%d to keep it local)\n",
			pal.Warn.Sprint("warning:"), srv.Addr(), srv.Addr().(*net.TCPAddr).Port)
	}
	u := srv.HookURL(o.Receiver.Path)
	var ui *inspect.UI
	if o.UI != "" {
		// --ui localhost:8080 beside --addr 127.0.0.1:8080 is the webhook's
		// socket under another name, whose bind would fail only as "address
		// already in use"; a bare :port is every interface, its too.
		if host, port, err := net.SplitHostPort(o.UI); err == nil && port != "0" {
			if host == "" {
				host = "0.0.0.0"
			}
			if srv.Serves(ctx, &url.URL{Scheme: "http", Host: net.JoinHostPort(host, port)}) {
				return nil, cmdutil.Usagef("--ui %s: the webhook's address (--addr %s); the inspector needs one of its own (e.g. 127.0.0.1:4040)", o.UI, o.Addr)
			}
		}
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
	// Every call taken is now recorded and observed, unless stdout is not
	// read (a pipe to a stopped reader) or a record's write does not end
	// (a disk that does not answer): then listen stops anyway, after the
	// shutdown's grace, leaving the lines it could not print.
	graceStart := r.a.Now()
	grace := time.NewTimer(o.limits.ShutdownTimeout)
	defer grace.Stop()
	closed := r.rcv.CloseWithin(grace.C)
	printed = closed.Observed
	if printed {
		if r.feed != nil {
			r.feed.Close()
		}
		if o.Output == "json" && !r.closed.Load() {
			// The calls' stream ends with their counts, as send's does.
			_ = r.printLast(func(w io.Writer) error { return r.p.SummaryJSON(w, o.Capture) })
		} else {
			r.out.Flush()
		}
	}
	if r.capFile != nil {
		if err := r.capFile.Close(); err != nil && serveErr == nil {
			serveErr = fmt.Errorf("--capture %s: %w", o.Capture, err)
			if errors.Is(err, capture.ErrGone) {
				serveErr = fmt.Errorf("--capture %s was deleted, replaced or moved away during the run, after the last calls were recorded and answered: the file at that path does not hold them (%w)", termsafe.Text(o.Capture), capture.ErrGone)
			}
		}
	}
	if printed {
		// A close seen after the last call was observed.
		r.sayClosesKept()
	}
	switch {
	case printed && r.closed.Load():
		// A stop as Ctrl-C's, but the calls after the reader went away
		// (or the disk filled) are printed nowhere: say so, and where
		// they are.
		why, after := "stdout was closed (its reader went away)", "stdout was closed"
		if r.outputLost() {
			why, after = "stdout could not be written ("+termsafe.Text((*r.stdoutErr.Load()).Error())+")", "it could not be written"
		}
		r.p.Summary(errw, cmdutil.Style(pal, false), "listen stopped: "+why+";", o.Capture)
		fmt.Fprintf(errw, "  not printed: the calls since %s%s\n", after, capturedNote(o.Capture))
	case printed:
		r.p.Summary(errw, cmdutil.Style(pal, false), "listen stopped:", o.Capture)
	default:
		// The printer is inside a call, or a call is not yet recorded:
		// no summary of its counts.
		fmt.Fprintf(errw, "%s %s; the last calls are not printed%s\n", pal.Warn.Sprint("listen stopped:"),
			unprintedWhy(closed.Unrecorded, r.stdout.writing(), graceStart, o.limits.ShutdownTimeout), unprintedNote(o.Capture, closed.Unrecorded))
	}
	return printed, serveErr
}

// judge asks the probe about each document passed on and says whether
// each is held once in its state: cmdutil.ErrChecksFailed when one broke or
// none was judged (unless the capture failed, which is said instead), nil
// when all held.
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
		// The probe's fault: no verdict, exit 2. -o json still ends with
		// its exactlyOnce line, saying why, as check's summary does: a
		// reader found the calls and no verdict at all.
		if r.opts.Output == "json" {
			// A stdout that failed is in the session's record, and in
			// the summary: it is not said again.
			_ = r.printLast(func(w io.Writer) error { return writeExactlyOnceErrorJSON(w, err) })
		}
		return cmdutil.UsageErr(err)
	}
	writeExactlyOnce(errw, pal, r.prb, r.docs, v, r.opts.Settle)
	if r.opts.Output == "json" {
		// A stdout that failed is in the session's record (runListen's
		// exit), and in the summary.
		_ = r.printLast(func(w io.Writer) error { return writeExactlyOnceJSON(w, v) })
	}
	// A run that judged no document verified nothing: no pass, as check
	// fails a run that judged no case (an unattended job would go green).
	if exactlyOnceVerdict(v) != verdictHeld && r.captureLost.Load() == nil {
		return cmdutil.ErrChecksFailed
	}
	return nil
}

// printLast writes the run's last line to stdout as the calls were
// printed, through the writer that records a failure (runListen reads
// the exit from that record): a buffer whose write failed writes no more.
// A stdout that fails only now (not a reader gone) is said here: the
// summary, already printed, could not.
func (r *listenSession) printLast(write func(io.Writer) error) error {
	failedBefore := r.stdoutErr.Load() != nil
	err := write(r.out)
	if err == nil {
		err = r.out.Flush()
	}
	if err != nil && !failedBefore && r.outputLost() {
		fmt.Fprintf(r.a.Streams.Err, "%s %s\n", r.a.ErrColor.Fail.Sprint("whsim:"), termsafe.Text(err.Error()))
	}
	return err
}

// unprintedWhy says why the last calls were not printed when the stop's
// grace (begun at graceStart) ran out: calls still not recorded
// (unrecorded), a write to stdout under way since writingSince (zero:
// none), or neither, a printer still checking calls.
func unprintedWhy(unrecorded int64, writingSince, graceStart time.Time, grace time.Duration) string {
	switch {
	case unrecorded > 0:
		return fmt.Sprintf("%d %s still being read, forwarded or recorded %s after the stop", unrecorded,
			term.Plural(int(unrecorded), "call was", "calls were"), grace)
	case writingSince.IsZero():
		return "the last calls were still being checked " + grace.String() + " after the stop"
	case !writingSince.After(graceStart):
		return "stdout was not read for " + grace.String() + " after the stop"
	}
	return "stdout was read too slowly to take the last calls within " + grace.String() + " after the stop"
}

// unprintedNote says where the unprinted calls are, when listen gave up
// with unrecorded calls not yet in the capture file.
func unprintedNote(capture string, unrecorded int64) string {
	if capture == "" || unrecorded == 0 {
		return capturedNote(capture)
	}
	return " (" + termsafe.Text(capture) + " has them, but for the " + strconv.FormatInt(unrecorded, 10) + " not recorded)"
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
		for _, fl := range j.Judge(reqid.Read(c.Content), c.Verdict() == "invalid", f.Status, c.Record.Time, c.Seq) {
			flags = append(flags, listenout.CallFlag(fl))
		}
		return flags
	}
}
