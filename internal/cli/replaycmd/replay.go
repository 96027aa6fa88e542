// Package replaycmd is whsim replay: captured calls sent again, byte for
// byte.
package replaycmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/delivery"
	"github.com/whsim/whsim/internal/cli/reportfile"
	"github.com/whsim/whsim/internal/cli/sendout"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/replay"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/spec"
)

type replayOptions struct {
	delivery.Flags
	Files        []string
	Events       []string
	NewRequestID bool
	Seed         uint64
	Sign         string
	Secret       string
	Headers      []string
}

// New is whsim replay.
func New(a *cmdutil.App) *cobra.Command {
	opts := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay <capture.ndjson>... --url <url> [--event <name>]... [--rate <n/s>] [--concurrency <n>] [--new-request-id] [--sign standard --secret <whsec_...>]",
		Short: "Send captured calls again, byte for byte",
		Long: `Send the calls a capture file recorded (whsim listen --capture) to a receiver
again: the same method, query (businessType and the rest, added to --url's
own query), body byte for byte, content type and headers. Headers that belong
to the connection (Host, Content-Length, Connection and the headers it
names, Accept-Encoding, ...) are the client's own.

Calls go in captured order unless --concurrency is above 1. --new-request-id
gives each call a fresh requestId (and changes nothing else) to test a
receiver's deduplication; a body sent compressed (Content-Encoding gzip or
deflate) gets it in the document it holds, and goes out compressed again;
one it finds no requestId in (a byte-order mark first, data that does not
decode) goes out as recorded, with a warning. A record whose requestId an
earlier one had is a re-delivery and counts as a duplicate in the summary.

A captured signature is only good for five minutes (Standard Webhooks
receivers refuse an older webhook-timestamp), and a fresh requestId changes
the bytes it signed. --sign standard --secret signs each call afresh at send
time, as send --sign does, replacing the captured webhook-id, -timestamp and
-signature headers (the webhook-id is kept, so a re-delivery stays one).
The secret is also WHSIM_REPLAY_SECRET or the config file's replay.secret.
-H replaces a captured header: a credential that whsim check --save-cases
wrote masked.

A torn last line, as a crash leaves it, is reported and skipped, and so is
a line that is not a record whsim can replay (each named with its line and
why: a request the HTTP server refused, a body over listen's --max-body,
which listen did not keep); a replay that skipped a line, or could not
read a capture to its end (an I/O error), is incomplete, never a pass: its
summary and --junit say so, and it exits 2 (1 when a delivery failed too).
A body that came cut short (shorter than its Content-Length) is sent as
recorded, with a warning: the sender never made that whole call (one
listen answered 2xx, which it read whole, was edited since). A
file of payloads, or one that is not JSON, is refused (exit 2: send payloads
with whsim send --file). Output, summary and exit status are those of send;
a replay that sent nothing (every line skipped, none of the --event asked,
or only empty files) tested no receiver: it exits 2 and says why, and
--junit holds that as a case in error, never an empty pass.`,
		Example: `  whsim replay capture.ndjson --url http://localhost:3000/webhook
  whsim replay monday.ndjson tuesday.ndjson --url http://localhost:3000/webhook --event AUDIT_PURCHASE_ORDER_INVOICE
  whsim replay capture.ndjson --url http://localhost:3000/webhook --new-request-id --output json
  whsim replay fixtures/calls.ndjson --url http://localhost:3000/webhook --sign standard --secret "$WHSIM_REPLAY_SECRET"
  whsim replay cases/duplicates/CREATE_RECEIVABLE_DOC--concurrent-x8.ndjson --url http://localhost:3000/webhook --concurrency 8`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				// cobra's "requires at least 1 arg(s), only received 0" says
				// nothing of what the argument is.
				return cmdutil.UsageErr(&cmdutil.FlagErr{Path: cmd.CommandPath(), Msg: "no capture file: name one or more (whsim listen --capture writes them), or - for stdin"})
			}
			return nil
		},
		ValidArgsFunction: cmdutil.CompletePayloadFiles,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return opts.JUnit.Finish(a, runReplay(cmd.Context(), a, opts), "whsim replay", "whsim.delivery")
		}),
	}
	opts.Flags.Register(cmd)
	a.WhenNotRun(cmd, []string{"junit"}, func(err error, words []string) error {
		reportfile.NotOver(words, &opts.JUnit.Path)
		return opts.JUnit.Finish(a, err, "whsim replay", "whsim.delivery")
	})
	f := cmd.Flags()
	// A filter of the capture, not payloads to build: no default.
	cmdutil.EventsFlag(cmd, &opts.Events, nil, "replay only calls of this event (repeatable)")
	f.BoolVar(&opts.NewRequestID, "new-request-id", false, "give each call a fresh requestId, every other byte unchanged")
	// Replay builds no payload: the seed is only the fresh ids'.
	cmdutil.SeedFlag(cmd, &opts.Seed, "seed of the fresh requestIds (0: random)")
	f.StringVar(&opts.Sign, "sign", "", "sign each call afresh at send time: standard (Standard Webhooks headers; needs --secret), replacing the captured signature")
	cmdutil.SecretFlag(cmd, &opts.Secret, "signing secret, whsec_<base64> (also WHSIM_REPLAY_SECRET; never printed)")
	// Replay's -H replaces a captured header rather than adding one.
	cmdutil.HeaderFlag(cmd, &opts.Headers, "set a request header 'Name: value' on every call, replacing the captured one (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("sign", cmdutil.CompleteWords(sign.SchemeStandard))
	return cmd
}

func runReplay(ctx context.Context, a *cmdutil.App, opts *replayOptions) error {
	opts.Flags.Inputs = opts.Files
	if err := opts.validate(a); err != nil {
		return err
	}
	r, err := opts.build(ctx, a)
	if err != nil {
		return err
	}
	defer r.close()
	if err := reportfile.Reserve(a, opts.JUnit.Path, "", "whsim replay", "whsim.delivery"); err != nil {
		return err
	}
	return r.run(ctx)
}

// validate refuses the flags before any capture is opened: the delivery
// flags, --url, --event and the flags that do nothing without another.
func (o *replayOptions) validate(a *cmdutil.App) error {
	if _, err := o.Check(); err != nil {
		return err
	}
	if o.URL == "" {
		return cmdutil.Usagef("--url: say where to replay to")
	}
	if _, err := o.Target(""); err != nil {
		return err
	}
	if _, err := spec.ParseEvents(o.Events); err != nil {
		return cmdutil.UsageErr(fmt.Errorf("--event: %w", err))
	}
	return a.Needs(
		o.MaxConcurrencyNeed(),
		cmdutil.Need{Flag: "--seed", Needs: "--new-request-id", Without: !o.NewRequestID, Why: "it seeds the fresh requestIds, and without them the captured ones go out"},
		delivery.SecretNeed(o.Sign, o.Secret, "without it the calls go out with their captured signatures"),
	)
}

// sendThem has the error about a file of payloads print the send command
// that sends them where this replay was to: its --url, headers, signing
// and TLS flags.
func (o *replayOptions) sendThem(pe *capture.PayloadsError) {
	pe.Send, pe.Before = o.Elsewhere("send --file "+pe.Arg(), o.Headers, o.Sign, "WHSIM_REPLAY_SECRET")
}

// replayRun is one replay: the captures, read in order, and the console
// and deliverer that send them again.
type replayRun struct {
	opts  *replayOptions
	src   *replay.Replayer
	con   *sendout.Console
	d     *attempt.Deliverer
	close func()
}

// build turns the checked flags into the run: the signer, the headers,
// the open captures, the console and the deliverer.
func (o *replayOptions) build(ctx context.Context, a *cmdutil.App) (*replayRun, error) {
	expect, _ := o.Check()    // checked by validate
	target, _ := o.Target("") // likewise
	only, _ := spec.ParseEvents(o.Events)
	// A secret alone does not sign: WHSIM_REPLAY_SECRET may be set for
	// the replays that sign and the ones that must not (a capture's own
	// wrong signatures, replayed as they were).
	secret := o.Secret
	if o.Sign == "" {
		secret = ""
	}
	signer, err := sign.SignerFor(o.Sign, secret)
	if err != nil {
		return nil, cmdutil.UsageErr(err)
	}
	header, err := endpoint.ParseHeaders(o.Headers)
	if err != nil {
		return nil, cmdutil.Usagef("--header %w", err)
	}
	ins, closeAll, err := capture.OpenInputs(ctx, o.Files, a.Streams.In)
	if err != nil {
		if pe, ok := errors.AsType[*capture.PayloadsError](err); ok {
			o.sendThem(pe)
		}
		return nil, cmp.Or(ctx.Err(), cmdutil.UsageErr(err))
	}
	r := &replayRun{opts: o, close: closeAll}
	// Files that sent nothing, a capture that could not be read, or lines
	// skipped are a case in error in the JUnit reports (stdout's and
	// --junit's) and said in the summary: a report of the calls sent alone
	// would read as nothing failed.
	unjudged := func(co *sendout.ConsoleOptions) {
		co.Unjudged = func() error { return cmp.Or(r.src.Err(), r.src.NothingSent(), r.src.Skipped()) }
	}
	if r.con, err = o.NewConsole(a, "whsim replay", target, unjudged); err != nil {
		closeAll()
		return nil, err
	}
	o.Fit(r.con, 0, 1)
	if r.d, err = o.NewDeliverer(a, target, expect, r.con); err != nil {
		closeAll()
		return nil, err
	}
	r.d.Signer = signer
	if o.Sign == "" && o.Secret != "" {
		r.con.Warn("a secret without --sign standard signs nothing: the calls go out with their captured signatures")
	}
	if signer != nil && signer.Weak() {
		r.con.Warn("--secret: the key is shorter than the %d bytes Standard Webhooks asks; strict receivers may refuse it", sign.GoodKeyBytes)
	}
	r.src = &replay.Replayer{Inputs: ins, Events: only, Warn: r.con.Warn, Signed: signer != nil, Header: header, Payloads: o.sendThem}
	if o.NewRequestID {
		r.src.IDs = reqid.NewIDs(o.Seed)
	}
	r.src.Reopen = func(i int) (io.ReadCloser, error) { return reopenFile(o.Files[i]) }
	return r, nil
}

// run sends the captures again and decides the exit: a capture that
// could not be read, or lines of it skipped, is the input's fault (exit
// 2), unless a delivery failed too (exit 1).
func (r *replayRun) run(ctx context.Context) error {
	ro := r.opts.RunOptions()
	ro.Left = r.src.Left // a replay cut short counts the records not started
	err := delivery.Run(ctx, r.con, r.d, r.src.Next, ro, 0)
	if r.src.Err() != nil && err == nil {
		// A pipe found to hold no captures, or a read that broke off
		// (an I/O error, a directory on stdin): whsim could not read
		// what it was to send, exit 2 as send --file and validate say
		// of it; 1 would say the receiver failed, which nothing showed.
		return cmdutil.UsageErr(r.src.Err())
	}
	if nothing := r.src.NothingSent(); nothing != nil && err == nil {
		// Inputs that sent nothing (skipped, other events, empty) tested
		// nothing: not a pass, and the input's fault.
		return cmdutil.UsageErr(nothing)
	}
	if skipped := r.src.Skipped(); skipped != nil && err == nil {
		// Every call sent passed, but not every line was sent: the
		// capture held what whsim could not replay, the input's fault
		// (exit 2). A delivery that failed says more, and keeps exit 1.
		return cmdutil.UsageErr(skipped)
	}
	return err
}

// reopenFile opens a capture file again to count what is left in it; nil
// for stdin and anything but a regular file, whose rest cannot be read
// again. It looks before it opens: opening a FIFO whose writer has gone
// would block for good, deaf to the Ctrl-C that asked for the count.
func reopenFile(name string) (io.ReadCloser, error) {
	if name == "-" {
		return nil, nil
	}
	if fi, err := os.Stat(name); err != nil || !fi.Mode().IsRegular() {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, err
	}
	return f, nil
}
