package checkcmd

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/shellcmd"
	"github.com/whsim/whsim/internal/termsafe"
)

// secretPlaceholder stands for the run's secret in a printed command:
// the variable check reads it from, so the command runs as printed where
// it is set, and the secret itself is never printed.
const secretPlaceholder = `--secret "$WHSIM_CHECK_SECRET"`

// checkCommand is a whsim check command line that runs a check of the
// run again, as printed: the URL (target, as given) and the user's
// headers with each credential's value as a variable named after it
// (shellcmd.URLWord, shellcmd.VarHeader), the secret as a placeholder, the
// probe and its settle time, the TLS flags and the flags that decide the
// verdicts (verdictFlags). The caller appends --checks
// and what else it needs.
func checkCommand(target string, header http.Header, secret bool, opts *checkOptions) string {
	cmd := shellcmd.Whsim{Command: "check", URL: target, Header: header, Vars: true}
	var tail strings.Builder
	if secret {
		tail.WriteString(" " + secretPlaceholder)
	}
	tail.WriteString(probeFlags(opts.Probe, opts.ProbeCmd, opts.ProbeHeaders, opts))
	if opts.Insecure {
		tail.WriteString(" --insecure")
	}
	if opts.CACert != "" {
		tail.WriteString(" --cacert " + shellcmd.Word(opts.CACert))
	}
	tail.WriteString(verdictFlags(opts))
	cmd.Tail = strings.TrimPrefix(tail.String(), " ")
	return termsafe.Lines(cmd.String())
}

// verdictFlags are the flags, where not their defaults, that decide which
// cases a run sends and how it judges them: without them the command would
// run another battery (type errors warning again, the 1s budget, 300 load
// calls, the cases left out sent).
func verdictFlags(opts *checkOptions) string {
	var b strings.Builder
	if opts.Strict {
		b.WriteString(" --strict")
	}
	if opts.LatencyBudget != 0 && opts.LatencyBudget != check.DefaultLatencyBudget {
		b.WriteString(" --latency-budget " + opts.LatencyBudget.String())
	}
	if opts.LoadCount != 0 && opts.LoadCount != check.DefaultLoadCount {
		b.WriteString(" --load-count " + strconv.Itoa(opts.LoadCount))
	}
	if opts.LoadConc != 0 && opts.LoadConc != check.DefaultLoadConcurrency {
		b.WriteString(" --load-concurrency " + strconv.Itoa(opts.LoadConc))
	}
	if opts.Timeout != 0 && opts.Timeout != cmdutil.DefaultTimeout {
		b.WriteString(" --timeout " + opts.Timeout.String())
	}
	if len(opts.ExcludeCases) > 0 {
		b.WriteString(" --exclude-cases " + shellcmd.Word(strings.Join(opts.ExcludeCases, ",")))
	}
	if opts.FixedIDs {
		// The ids are the seed's: --fixed-ids alone is refused.
		b.WriteString(" --seed " + strconv.FormatUint(opts.Seed, 10) + " --fixed-ids")
	}
	return b.String()
}

// probeFlags are the flags that give a probe again: its header values,
// which may be credentials, and a credential in its URL, as variables
// named after them; a command holding a credential as $PROBE_CMD.
func probeFlags(url, cmd string, headers []string, opts *checkOptions) string {
	var b strings.Builder
	switch {
	case url != "":
		b.WriteString(" --probe " + shellcmd.URLWord(url, probe.VarPrefix))
		for _, h := range headers {
			k, _, _ := strings.Cut(h, ":")
			b.WriteString(" --probe-header " + shellcmd.VarHeader(strings.TrimSpace(k), probe.VarPrefix))
		}
	case cmd != "":
		b.WriteString(" --probe-cmd " + (&probe.Cmd{Run: cmd}).Word())
	default:
		return ""
	}
	if opts != nil && opts.Settle != check.DefaultSettle {
		b.WriteString(" --settle " + opts.Settle.String())
	}
	return b.String()
}
