package sendcmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/threshold"
)

// registerWorkloadFlags declares what a run sends beyond the payload
// flags: a file's bodies or a scenario's lifecycles, how many and for how
// long, repeated and shuffled how, and whether its ids are the seed's.
func (o *sendOptions) registerWorkloadFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	cmdutil.PathFlag(cmd, &o.File, "file", "f", false, "send this body byte for byte, or each line of NDJSON or element of a JSON array as one delivery (- for stdin; a pipe or FIFO is sent as it comes); the event from --event, else from its businessType")
	_ = cmd.RegisterFlagCompletionFunc("file", cmdutil.CompletePayloadFiles)
	f.StringVar(&o.Scenario, "scenario", "", "send a document's lifecycle: "+strings.Join(payload.ScenarioNames(), "|"))
	_ = cmd.RegisterFlagCompletionFunc("scenario", cmdutil.CompleteWords(payload.ScenarioNames()...))
	f.IntVarP(&o.Count, "count", "n", 1, "deliveries of each event: --event all -n 10 sends 40 (with --scenario: documents)")
	f.DurationVar(&o.Duration, "duration", 0, "start no call after this long, those in flight finish (without --count: send until then)")
	cmdutil.DecimalFlag(f, &o.Duplicate, "duplicate", 0, "re-deliver this share of calls (0-1) with the same requestId and body")
	f.BoolVar(&o.Shuffle, "shuffle", false, "deliver out of order (mixed in windows of 64)")
	cmdutil.FixedIDsFlag(cmd, &o.FixedIDs, "")
}

// registerRequestFlags declares what each call carries besides its body:
// the user's headers and the signature.
func (o *sendOptions) registerRequestFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	cmdutil.HeaderFlag(cmd, &o.Headers, "")
	f.StringVar(&o.Sign, "sign", "", "sign deliveries: standard (Standard Webhooks headers; needs --secret)")
	_ = cmd.RegisterFlagCompletionFunc("sign", cmdutil.CompleteWords(sign.SchemeStandard))
	cmdutil.SecretFlag(cmd, &o.Secret, "signing secret, whsec_<base64> (also WHSIM_SEND_SECRET; never printed)")
}

// registerReportFlags declares what a run writes besides its console
// (the delivery flags' --output and --junit): the HTML report and the
// thresholds that make it a gate.
func (o *sendOptions) registerReportFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	cmdutil.PathFlag(cmd, &o.Report, "report", "", false, "also write a self-contained HTML report to this file: summary, percentiles, latency over time, histogram, errors by kind; written on every exit (INCOMPLETE, saying why, when the run ended before it could report)")
	_ = cmd.MarkFlagFilename("report", "html")
	f.StringArrayVar(&o.Thresholds, "threshold", nil, "fail the run (exit 1) unless this holds at the end, e.g. 'p99<500ms', 'failed<1%', 'rps>=200' (repeatable; metrics: "+strings.Join(threshold.Names(), ", ")+")")
	// The metric, then no space: the comparison follows it (p99<500ms).
	_ = cmd.RegisterFlagCompletionFunc("threshold", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return threshold.Names(), cobra.ShellCompDirectiveNoSpace | cobra.ShellCompDirectiveNoFileComp
	})
}
