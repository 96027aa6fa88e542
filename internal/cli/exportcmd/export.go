// Package exportcmd is whsim export: the deliveries send would make,
// written for vegeta or k6 to load from many machines.
package exportcmd

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/payloadflags"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/export"
	"github.com/whsim/whsim/internal/suggest"
)

// exportOptions are what both engines' exports share: the deliveries send
// would make, rendered instead of sent.
type exportOptions struct {
	payloadflags.Payloads
	URL      string
	Count    int
	Headers  []string
	FixedIDs bool
	// Timeout, Insecure and CACert are send's: the engines are told them
	// (vegeta's flags printed, k6's script and a copy of the CA file).
	Timeout  time.Duration
	Insecure bool
	CACert   string
}

func (o *exportOptions) register(cmd *cobra.Command) {
	o.Payloads.Register(cmd)
	f := cmd.Flags()
	cmdutil.URLFlag(cmd, &o.URL)
	f.IntVarP(&o.Count, "count", "n", 100, fmt.Sprintf("calls per event, each its own requestId and data (at most %d calls in all: export holds them in memory)", export.MaxCalls))
	cmdutil.HeaderFlag(cmd, &o.Headers, "")
	cmdutil.FixedIDsFlag(cmd, &o.FixedIDs, "")
	cmdutil.TimeoutFlag(cmd, &o.Timeout)
	cmdutil.TLSFlags(cmd, &o.Insecure, &o.CACert)
}

// reach is how the engine is to reach target, as send would: its time
// limit, and the TLS trust of an https URL. The TLS flags are warned
// about and left out for an http:// URL, as send warns.
func (o *exportOptions) reach(a *cmdutil.App, target *url.URL) (export.Reach, error) {
	r := export.Reach{Timeout: o.Timeout, Insecure: o.Insecure, CAFile: o.CACert}
	if target.Scheme == "http" {
		for _, f := range a.TLSFlagsWithoutTLS(target.Scheme) {
			fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Warn.Sprint("warning:"), cmdutil.TLSFlagUselessWords(f))
		}
		r.Insecure, r.CAFile = false, ""
	}
	if err := r.Check(); err != nil {
		return r, cmdutil.UsageErr(err)
	}
	if r.Insecure {
		fmt.Fprintf(a.Streams.Err, "%s --insecure: the engine will not verify the receiver's TLS certificate\n", a.ErrColor.Warn.Sprint("warning:"))
	}
	return r, nil
}

type k6ExportOptions struct {
	exportOptions
	export.K6Config
}

// New is whsim export.
func New(a *cmdutil.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export <vegeta|k6> --url <url> [flags]",
		Short: "Write the deliveries send would make for vegeta or k6, to load from many machines",
		Long: `When one machine is not enough load, hand whsim's realistic traffic (every
call its own requestId and varied data) to the engines that already run on
many: vegeta's JSON targets, or a k6 script with its data file and a
k6-operator TestRun. How to run them, and how to split the load over two
machines, is printed on stderr.`,
		Example: `  whsim export vegeta --url http://receiver:3000/webhook --event all --count 1000 > targets.json
  whsim export k6 --url http://receiver:3000/webhook --event all --out k6/`,
		// Without a run function cobra prints the help and exits 0 for
		// anything this gets, and it parses the flags first: a typo of the
		// engine (whsim export vegta --url ...) read "unknown flag: --url"
		// or passed in a CI script. The flags are the engine's, so only
		// the engine is looked at here.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			for i, arg := range args {
				value := i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=")
				switch {
				case arg == "-h" || arg == "--help":
					return cmd.Help()
				case !strings.HasPrefix(arg, "-") && !value: // not the value of --url and the like
					return cmdutil.UsageErr(&cmdutil.FlagErr{Path: cmd.CommandPath(), Msg: fmt.Sprintf("unknown engine %q: want vegeta or k6%s",
						arg, suggest.Hint(arg, []string{"vegeta", "k6"}))})
				}
			}
			if len(args) > 0 {
				return cmdutil.UsageErr(&cmdutil.FlagErr{Path: cmd.CommandPath(), Msg: "name the engine first: whsim export vegeta|k6 " + strings.Join(args, " ")})
			}
			// No engine: nothing was exported, which help and exit 0
			// said as if it had been (a CI step passed).
			return cmdutil.UsageErr(&cmdutil.FlagErr{Path: cmd.CommandPath(), Msg: "name an engine: want vegeta or k6"})
		},
	}
	cmd.AddCommand(newExportVegetaCmd(a), newExportK6Cmd(a))
	return cmd
}

func newExportVegetaCmd(a *cmdutil.App) *cobra.Command {
	opts := &exportOptions{}
	cmd := &cobra.Command{
		Use:   "vegeta --url <url> [--event <name>]... [--count <n>] [flags]",
		Short: "Write vegeta JSON targets on stdout, one per line",
		Long: `Write vegeta's JSON targets on stdout, one per line: method, url (with
businessType), header and body (base64), every target its own requestId and
varied data. vegeta cycles through targets it reads whole, and stops at
-duration even when it fell behind (the last targets unsent): the commands
printed on stderr read them with -lazy, in turn, each once, as this does
the 2,000 of the first example below; it ends at the first hit past the
last, which vegeta report counts as a request of status code 0, "no
targets to attack", that is no call:

  vegeta attack -format json -lazy -targets targets.json -rate 100/s -duration 0 -redirects 0 -timeout 10s | vegeta report

Signatures are not exported (vegeta cannot make them at send time, and a
Standard Webhooks timestamp goes stale; see whsim export k6).

--seed fixes the content; each export still gets requestIds and document
numbers of its own, so a deduplicating receiver does not answer a second
export's load as duplicates. --seed n --fixed-ids repeats both: the same
targets every run.`,
		Example: `  whsim export vegeta --url http://localhost:3000/webhook --event all --count 500 --seed 7 > targets.json
  whsim export vegeta --url https://staging.example.com/hook -H 'Authorization: Bearer t0ken' --count 5000 > targets.json`,
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			return runExportVegeta(cmd.Context(), a, opts)
		}),
	}
	opts.register(cmd)
	return cmd
}

func newExportK6Cmd(a *cmdutil.App) *cobra.Command {
	opts := &k6ExportOptions{}
	cmd := &cobra.Command{
		Use:   "k6 --url <url> --out <dir> [--event <name>]... [--count <n>] [flags]",
		Short: "Write a k6 script, its data file and a k6-operator TestRun",
		Long: `Write into --out a k6 script (script.js), its data (data.json: the calls,
loaded into a SharedArray) and a k6-operator TestRun manifest (testrun.yaml).
Call i is the data's call i by exec.scenario.iterationInTest, so machines
each running their own --execution-segment deliver every call exactly once
between them; past the data, calls cycle: the same documents again, each
under a fresh requestId (one you --set stays yours). The script checks each
answer is 2xx and sets thresholds on failures and p95.

Without --rate, shared-iterations delivers each call once with --vus VUs;
with --rate and --duration, constant-arrival-rate (the open model). Each
call's time limit is --timeout, as send's; an https receiver on a private CA
is trusted with --cacert (a copy, ca.pem, goes beside the script and k6
reads it through SSL_CERT_FILE, as the commands printed set it). With
--secret, every call is signed at run time (Standard Webhooks) with the
secret k6 reads from the WEBHOOK_SECRET environment variable: the secret is
never written to the files.

--seed fixes the content; each export still gets requestIds and document
numbers of its own, so a deduplicating receiver does not answer a second
export's load as duplicates. --seed n --fixed-ids repeats both: the same
files every run.`,
		Example: `  whsim export k6 --url http://localhost:3000/webhook --event all --count 500 --out k6/
  whsim export k6 --url http://localhost:3000/webhook --rate 200 --duration 1m --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw --out k6/
  whsim export k6 --url https://localhost:8443/hook --cacert "$(mkcert -CAROOT)/rootCA.pem" --timeout 5s --out k6/`,
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			return runExportK6(cmd.Context(), a, opts)
		}),
	}
	opts.register(cmd)
	f := cmd.Flags()
	f.StringVar(&opts.Out, "out", "", "directory to write script.js, data.json and testrun.yaml into (made if missing; the three whole: a run stopped or failed leaves those there as they were)")
	// k6 signs at run time: whsim only checks the secret.
	cmdutil.SecretFlag(cmd, &opts.Secret, "sign calls at run time (Standard Webhooks); k6 reads the secret from WEBHOOK_SECRET, this checks it")
	f.IntVar(&opts.Rate, "rate", 0, "calls per second (constant-arrival-rate, with --duration); 0: each call once (shared-iterations)")
	f.DurationVar(&opts.Duration, "duration", 0, "with --rate: how long")
	f.IntVar(&opts.VUs, "vus", 10, "VUs to start with")
	f.IntVar(&opts.MaxVUs, "max-vus", 0, "with --rate: at most this many VUs, not fewer than --vus (0: twice the rate)")
	f.DurationVar(&opts.P95, "p95", time.Second, "threshold: fail the run when p95 of http_req_duration is not below this")
	f.IntVar(&opts.Parallelism, "parallelism", 2, "TestRun: pods, each its own execution segment")
	f.StringVar(&opts.Name, "name", "whsim", "TestRun and ConfigMap name: a DNS-1123 name of at most 51, so k6-operator's <name>-initializer stays within 63")
	_ = cmd.MarkFlagDirname("out")
	return cmd
}

// calls builds the deliveries send would make, from the same templates.
func (o *exportOptions) calls(a *cmdutil.App) ([]export.Call, export.Reach, error) {
	if o.URL == "" {
		return nil, export.Reach{}, cmdutil.Usagef("--url: give the URL the engine will call")
	}
	if o.Count < 1 {
		return nil, export.Reach{}, cmdutil.Usagef("--count %d: want at least 1", o.Count)
	}
	target, err := endpoint.ParseHookTarget(o.URL)
	if err != nil {
		return nil, export.Reach{}, cmdutil.Usagef("--url %w", err)
	}
	// As a -H value's (HeaderText): the query keeps its raw bytes, which
	// the engines' JSON strings cannot.
	if !utf8.ValidString(target.String()) {
		return nil, export.Reach{}, cmdutil.Usagef("--url: its query is not valid UTF-8, which the engines' JSON files (vegeta's targets, k6's data) cannot carry byte for byte: they would send U+FFFD in its place (percent-encode the byte, %%FF)")
	}
	reach, err := o.reach(a, target)
	if err != nil {
		return nil, reach, err
	}
	header, err := endpoint.ParseHeaders(o.Headers)
	if err != nil {
		return nil, reach, cmdutil.Usagef("--header %w", err)
	}
	if err := export.HeaderText(header); err != nil {
		return nil, reach, cmdutil.Usagef("--header %w", err)
	}
	// As send does, an -H Content-Type replaces application/json: added
	// beside it, vegeta would send two and k6 one "a, b" of both.
	if header.Get("Content-Type") == "" {
		header.Set("Content-Type", "application/json")
	}
	if o.Nonce, err = payloadflags.IDNonce(o.FixedIDs, o.Seed); err != nil {
		return nil, reach, err
	}
	pl, err := o.Plan(a)
	if err != nil {
		return nil, reach, err
	}
	// Every call is held in memory and written out before the engine
	// starts (a k6 data file is loaded whole by every k6): past a bound,
	// --count 1000000000 ran until the kernel killed it, with no word.
	if events := len(pl.Plan.Events); o.Count > export.MaxCalls/max(events, 1) {
		return nil, reach, cmdutil.Usagef("--count %d: %d event(s) would make more than %d calls, which export holds in memory (for more load, vegeta cycles its targets and k6 with --rate cycles its data)",
			o.Count, events, export.MaxCalls)
	}
	calls, err := export.Generated(target, header, pl.Plan, o.Count, o.Seed, o.Nonce)
	return calls, reach, payloadflags.Err(err)
}

func runExportVegeta(ctx context.Context, a *cmdutil.App, o *exportOptions) error {
	calls, reach, err := o.calls(a)
	if err != nil {
		return err
	}
	if err := reach.VegetaCheck(); err != nil {
		return cmdutil.UsageErr(err)
	}
	file := stdoutFile(a.Streams.Out)
	held := linesHeld(a.Streams.Out, file)
	w := bufio.NewWriter(a.Streams.Out)
	if err := export.Vegeta(ctx, w, calls); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("export vegeta: %w", err)
	}
	fmt.Fprint(a.Streams.Err, a.ErrColor.Key.Sprint("whsim:")+" ")
	n, ids := len(calls), export.IDWords(calls)
	if held > 0 {
		// Appended (>>) to targets already there: the commands run the
		// file, so they count all of its targets, each once.
		n, ids = held+len(calls), fmt.Sprintf("the %d this run wrote after the %d %s held, %s", len(calls), held, file, ids)
	}
	return export.VegetaUsage(a.Streams.Err, n, ids, file, reach)
}

// linesHeld counts the lines the regular file out, named file, held before
// this export wrote to it: a shell's >> appends to targets already there.
// 0 for a file > emptied, or one that cannot be read back.
func linesHeld(out io.Writer, file string) int {
	f, ok := out.(*os.File)
	if !ok || file == "" {
		return 0
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return 0
	}
	r, err := os.Open(file)
	if err != nil {
		return 0
	}
	defer r.Close()
	n, buf := 0, make([]byte, 64<<10)
	for rest := io.LimitReader(r, fi.Size()); ; {
		k, err := rest.Read(buf)
		n += bytes.Count(buf[:k], []byte("\n"))
		if err != nil {
			return n
		}
	}
}

// stdoutFile is the name of the regular file out is, for the commands
// printed to name the targets by (relative to the working directory when
// inside it): a shell's > names it, and a targets.json of another export
// would send its targets, to its URL. "" for anything else (a pipe, a
// terminal, a buffer) or where it cannot be known (no /proc), and when
// the name found is no longer that file.
func stdoutFile(out io.Writer) string {
	f, ok := out.(*os.File)
	if !ok {
		return ""
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		return ""
	}
	if at, err := os.Stat(name); err != nil || !os.SameFile(fi, at) {
		return ""
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, name); err == nil && filepath.IsLocal(rel) {
			return rel
		}
	}
	return name
}

func runExportK6(ctx context.Context, a *cmdutil.App, o *k6ExportOptions) error {
	if err := a.Needs(cmdutil.Need{Flag: "--max-vus", Needs: "--rate", Without: o.Rate == 0, Why: "without a rate, --vus VUs share the calls"}); err != nil {
		return err
	}
	if o.Rate == 0 && !a.OnCommandLine("duration") {
		o.Duration = 0 // send's, from WHSIM_DURATION or the config file
	}
	if err := o.Check(); err != nil {
		return cmdutil.UsageErr(err)
	}
	calls, reach, err := o.calls(a)
	if err != nil {
		return err
	}
	// Only --set makes a body that is not text.
	if err := export.K6Text(calls); err != nil {
		return cmdutil.Usagef("--set: %w", err)
	}
	ko, tr := o.Options(len(calls), reach)
	ko.UserIDs = export.UserIDs(calls)
	tr.Credentials = strings.Join(export.Credentials(calls), ", ")
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return cmdutil.Usagef("--out: %w", err)
	}
	cm, err := export.WriteK6(ctx, o.Out, calls, ko, tr)
	tr.ConfigMapBytes = cm
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			// A file --out cannot hold, or a disk that fills, is output
			// export could not write, exit 2, as generate's --out.
			return cmdutil.Usagef("--out: %w", pe)
		}
		return err
	}
	fmt.Fprint(a.Streams.Err, a.ErrColor.Key.Sprint("whsim:")+" ")
	return export.K6Usage(a.Streams.Err, o.Out, export.TestRunFile, ko, tr)
}
