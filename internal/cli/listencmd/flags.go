package listencmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/inspector"
	"github.com/whsim/whsim/internal/fault"
)

// registerServerFlags declares where listen takes calls and which it
// accepts: the address, the path, the largest body, and the file that
// says it is listening.
func (o *listenOptions) registerServerFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.Addr, "addr", "127.0.0.1:8080", "address to listen on (:0 picks a free port; a bare :port listens on every interface)")
	f.StringVar(&o.Receiver.Path, "path", "", "only this path takes calls, matched as Go's ServeMux matches, each segment unescaped (/%41 is /A, /a%2Fb is not /a/b); others are answered 404, recorded and flagged (default: any path)")
	f.StringVar(&o.Receiver.MaxBody, "max-body", "10MiB", "largest body accepted; larger ones are answered 413 (e.g. 512KiB, 10MB)")
	f.StringVar(&o.ReadyFile, "ready-file", "", "write the URL to this file once listening (removed when listen stops), for scripts and whsim ready to wait on")
	_ = cmd.RegisterFlagCompletionFunc("ready-file", cmdutil.CompleteFiles)
}

// registerAnswerFlags declares how listen answers a call itself: the
// status, the delay, the failures and each event's sequence.
func (o *listenOptions) registerAnswerFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.IntVar(&o.Receiver.Status, "status", 200, "status code to answer with")
	f.DurationVar(&o.Receiver.Delay, "delay", 0, fmt.Sprintf("wait this long before answering, at most %s (e.g. 500ms, 2s)", fault.MaxDelay))
	cmdutil.DecimalFlag(f, &o.Receiver.FailRate, "fail-rate", 0, "answer 500 for this share of calls, 0 to 1")
	// listen builds no payload: its seed draws --fail-rate's failures and
	// --fault's faults.
	cmdutil.SeedFlag(cmd, &o.Receiver.Seed, "seed for --fail-rate and --fault draws, to fail and fault the same calls every run (0: random)")
	f.StringArrayVar(&o.Receiver.Respond, "respond", nil, "answer an event's calls in turn: EVENT=code,code,... (repeatable; the last code repeats)")
	_ = cmd.RegisterFlagCompletionFunc("respond", completeRespond)
}

// registerForwardFlags declares --forward-to, which passes every call on
// to the user's receiver, and what only it allows: faults on the calls
// passed on, and the probe that asks at the stop what the receiver
// stored.
func (o *listenOptions) registerForwardFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.Receiver.ForwardTo, "forward-to", "", "send every call on to this receiver and answer with its answer")
	f.StringArrayVar(&o.Receiver.Faults, "fault", nil, "with --forward-to: put a fault on this share of calls, KIND=RATE[:ARG] (repeatable; "+strings.Join(fault.KindNames(), ", ")+"; drawn from --seed)")
	_ = cmd.RegisterFlagCompletionFunc("fault", completeFault)
	f.StringVar(&o.Probe, "probe", "", "with --forward-to: at the stop, ask the receiver about each document passed on with a GET of this URL template ({kind}, {code}, {invoiceCode}, {event}, {requestId}), as check's effects do")
	f.StringVar(&o.ProbeCmd, "probe-cmd", "", "ask with this shell command instead (sh -c; $WHSIM_KIND, $WHSIM_CODE, $WHSIM_INVOICE_CODE, $WHSIM_EVENT, $WHSIM_REQUEST_ID); its stdout is the answer")
	_ = cmd.RegisterFlagCompletionFunc("probe-cmd", cmdutil.CompleteFiles)
	f.StringArrayVar(&o.ProbeHeaders, "probe-header", nil, "add a header 'Name: value' to every --probe question (repeatable)")
	f.BoolVarP(&o.Insecure, "insecure", "k", false, "with --forward-to: do not verify the https receiver's TLS certificate (nor --probe's)")
	f.StringVar(&o.CACert, "cacert", "", "with --forward-to: trust the CA certificates in this PEM file, the https receiver's private CA (and --probe's)")
	_ = cmd.MarkFlagFilename("cacert", "pem", "crt", "cer")
	f.DurationVar(&o.Settle, "settle", check.DefaultSettle, "how long a document may take to be stored: a probe that does not match is asked again, with backoff, until then (0: once)")
}

// registerRecordFlags declares where each call is shown and kept: the
// capture file and its durability, stdout's format and detail, and the
// inspector.
func (o *listenOptions) registerRecordFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.Capture, "capture", "", "append every call to this NDJSON capture file (a regular file, created 0600; --output json streams the calls instead)")
	_ = cmd.RegisterFlagCompletionFunc("capture", cmdutil.CompleteFiles)
	f.StringVar(&o.Fsync, "fsync", string(capture.SyncInterval), "capture durability: always (fsync before answering), interval (every second) or never")
	_ = cmd.RegisterFlagCompletionFunc("fsync", cmdutil.CompleteWords(capture.SyncModes()...))
	cmdutil.AddOutputFlag(cmd, &o.Output, "text", "text", "json")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "also show each call's query and headers (secrets masked) and pretty-printed body")
	f.StringVar(&o.UI, "ui", "", "serve the web inspector on this address (e.g. 127.0.0.1:4040; default: off)")
	inspector.TokenFlag(cmd, &o.UIToken.Value)
}
