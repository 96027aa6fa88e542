package checkcmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/cli/cmdutil"
)

// registerReceiverFlags declares where check's calls go and how they are
// made: the receiver's URL, the headers, the signing secret, TLS and the
// time an answer may take.
func (o *checkOptions) registerReceiverFlags(cmd *cobra.Command) {
	cmdutil.URLFlag(cmd, &o.URL)
	cmdutil.TimeoutFlag(cmd, &o.Timeout)
	cmdutil.HeaderFlag(cmd, &o.Headers, "")
	// Check's secret also runs the signature check.
	cmdutil.SecretFlag(cmd, &o.Secret, "sign every call (Standard Webhooks) with this whsec_<base64> secret and run the signature check (also WHSIM_CHECK_SECRET; never printed)")
	cmdutil.TLSFlags(cmd, &o.Insecure, &o.CACert)
}

// registerBatteryFlags declares which cases run and what they are judged
// against: the checks and cases chosen, the seed and ids, the strictness,
// the latency budget and the load check's size.
func (o *checkOptions) registerBatteryFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringSliceVar(&o.Checks, "checks", nil, "run only these checks (comma-separated): "+strings.Join(check.IDs(), ", "))
	cmdutil.OneLineList(f, "checks")
	_ = cmd.RegisterFlagCompletionFunc("checks", cmdutil.CompleteList(cmdutil.CompleteWords(check.IDs()...)))
	f.StringSliceVar(&o.ExcludeChecks, "exclude-checks", nil, "leave out these checks (comma-separated)")
	cmdutil.OneLineList(f, "exclude-checks")
	_ = cmd.RegisterFlagCompletionFunc("exclude-checks", cmdutil.CompleteList(cmdutil.CompleteWords(check.IDs()...)))
	f.StringSliceVar(&o.ExcludeCases, "exclude-cases", nil, "leave out the cases whose name (or check/name) matches one of these globs (comma-separated; * does not match /; a glob that matches no case of any check is refused)")
	cmdutil.OneLineList(f, "exclude-cases")
	_ = cmd.RegisterFlagCompletionFunc("exclude-cases", cmdutil.CompleteList(completeCaseNames))
	// The seed fixes cases, not only payloads, and a random one is printed.
	cmdutil.SeedFlag(cmd, &o.Seed, "seed for reproducible cases (0: random, printed on stderr)")
	// Check's fixed ids are webhook-ids and document numbers too.
	cmdutil.FixedIDsFlag(cmd, &o.FixedIDs, "with --seed: use the seed's own requestIds, webhook-ids and document numbers instead of fresh ones per run, for a byte-exact repeat (a receiver that keeps earlier runs' documents then sees them again)")
	f.BoolVar(&o.Strict, "strict", false, "a type error inside data answered 2xx fails instead of warning")
	f.DurationVar(&o.LatencyBudget, "latency-budget", check.DefaultLatencyBudget, "the p99 latency every call of the run must stay within")
	f.IntVar(&o.LoadCount, "load-count", check.DefaultLoadCount, fmt.Sprintf("calls the load check makes, at most %d (whsim send makes bigger loads)", check.MaxLoadCount))
	f.IntVar(&o.LoadConc, "load-concurrency", check.DefaultLoadConcurrency, "calls in flight at once in the load check")
}

// registerProbeFlags declares how the effects check asks the receiver
// what it stored: a URL template or a command, and how long to wait for
// a document to settle.
func (o *checkOptions) registerProbeFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.Probe, "probe", "", "ask the receiver what it holds with a GET of this URL template ({kind}, {code}, {invoiceCode}, {event}, {requestId}) and run the effects check")
	f.StringVar(&o.ProbeCmd, "probe-cmd", "", "ask with this shell command instead (sh -c; $WHSIM_KIND, $WHSIM_CODE, $WHSIM_INVOICE_CODE, $WHSIM_EVENT, $WHSIM_REQUEST_ID); its stdout is the answer")
	_ = cmd.RegisterFlagCompletionFunc("probe-cmd", cmdutil.CompleteFiles)
	f.StringArrayVar(&o.ProbeHeaders, "probe-header", nil, "add a header 'Name: value' to every --probe question, such as a debug endpoint's token (repeatable)")
	f.DurationVar(&o.Settle, "settle", check.DefaultSettle, "how long a document may take to be stored after its last call: its probe is asked again, with backoff, until it matches (0: once)")
}

// registerReportFlags declares what the run writes (stdout's format and
// detail, JUnit, HTML, the saved cases) and --rerun, which reads a
// report or saved cases back.
func (o *checkOptions) registerReportFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	cmdutil.AddOutputFlag(cmd, &o.Output, "text", "text", "json")
	f.BoolVarP(&o.Verbose, "verbose", "v", false, "show the receiver's whole answer (status, headers, body) under each failing or warning case, and list every warning (otherwise one line per check with their count)")
	cmdutil.PathFlag(cmd, &o.JUnit, "junit", "", false, "also write a JUnit XML report to this file (one testcase per case, a suite per check)")
	_ = cmd.MarkFlagFilename("junit", "xml")
	cmdutil.PathFlag(cmd, &o.Report, "report", "", false, "also write a self-contained HTML report to this file: the verdict, a table per check, each failure with its request, answer and reproduce command; written on every exit (INCOMPLETE, saying why, when the run ended before it could report)")
	_ = cmd.MarkFlagFilename("report", "html")
	cmdutil.PathFlag(cmd, &o.SaveCases, "save-cases", "", true, "write every case to this directory as capture records (whsim replay sends them again) and the results as "+check.ResultsFile)
	_ = cmd.MarkFlagDirname("save-cases")
	cmdutil.PathFlag(cmd, &o.Rerun, "rerun", "", false, "send again only the cases that failed in this report (--output json) or --save-cases directory, and say which are fixed")
	_ = cmd.MarkFlagFilename("rerun", "json", "ndjson")
}

// completeCaseNames offers --exclude-cases the cases of every check, as
// it matches them ("check/name"), from the cases check builds: typing a
// name out of -o json's lines was the only way to find one. The load's
// result is named by --load-count and --load-concurrency as typed.
func completeCaseNames(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	f := cmd.Flags()
	count, err1 := f.GetInt("load-count")
	conc, err2 := f.GetInt("load-concurrency")
	if err1 != nil || err2 != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	names, err := check.CaseNames(count, conc)
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}
