package cmdutil

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/spec"
)

// The flag sets: every flag that more than one command takes is declared
// here once, with its one name, shorthand, default and help, so that
// send, check, export and replay (and generate, which shares the payload
// set) cannot drift apart again; its config key and WHSIM_ variable follow
// from the name (LoadConfig). A command that takes only some flags of a
// set registers those parts. A part that takes a help sentence is used
// with a command's own where the flag's meaning differs there (each call
// says why); "" is the shared sentence.

// DefaultTimeout is --timeout's for send, replay and check alike (see
// attempt.DefaultTimeout for why 10s).
const DefaultTimeout = attempt.DefaultTimeout

// The delivery set: how whsim reaches the receiver (--url, --timeout,
// --header, --secret, --insecure and --cacert).

func URLFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVarP(p, "url", "u", "", "the receiver's URL (http or https); businessType is added to its query")
}

func TimeoutFlag(cmd *cobra.Command, p *time.Duration) {
	cmd.Flags().DurationVar(p, "timeout", DefaultTimeout, "time limit of one attempt")
}

const headerHelp = "add a request header 'Name: value' (repeatable)"

func HeaderFlag(cmd *cobra.Command, p *[]string, help string) {
	if help == "" {
		help = headerHelp
	}
	cmd.Flags().StringArrayVarP(p, "header", "H", nil, help)
}

// SecretFlag's help is always a command's own: each names its own
// variable (WHSIM_SEND_SECRET, ...) and check's also runs a check.
func SecretFlag(cmd *cobra.Command, p *string, help string) {
	cmd.Flags().StringVar(p, "secret", "", help)
}

// TLSFlags are --insecure and --cacert.
func TLSFlags(cmd *cobra.Command, insecure *bool, cacert *string) {
	f := cmd.Flags()
	f.BoolVarP(insecure, "insecure", "k", false, "do not verify the receiver's TLS certificate")
	PathFlag(cmd, cacert, "cacert", "", false, "trust the CA certificates in this PEM file (a private CA)")
	_ = cmd.MarkFlagFilename("cacert", "pem", "crt", "cer")
}

// TLSFlagsWithoutTLS are the TLS flags given on the command line for a
// target that is http://, where they do nothing: each command warns of
// them in its own way (not refused: the URL may come from WHSIM_URL or
// the config file, and the flags hold for its https days).
func (a *App) TLSFlagsWithoutTLS(scheme string) []string {
	var out []string
	for _, f := range []string{"insecure", "cacert"} {
		if scheme == "http" && a.OnCommandLine(f) {
			out = append(out, f)
		}
	}
	return out
}

// TLSFlagUselessWords is the warning for one of them.
func TLSFlagUselessWords(flag string) string {
	return "--" + flag + " does nothing: the URL is http://, no TLS"
}

// The payload set: which payloads to build (--event, --shape, --seed,
// --set, --unset, and --fixed-ids for the ids a seed gives).

const seedHelp = "seed for reproducible payloads (0: random)"

func SeedFlag(cmd *cobra.Command, p *uint64, help string) {
	if help == "" {
		help = seedHelp
	}
	cmd.Flags().Uint64Var(p, "seed", 0, help)
}

const eventsHelp = "event name, repeatable or comma-separated; " + spec.AllEvents + " for every event"

// EventsFlag is --event as a list; def is nil where no --event means no
// filter (replay) rather than every event.
func EventsFlag(cmd *cobra.Command, p *[]string, def []string, help string) {
	if help == "" {
		help = eventsHelp
	}
	cmd.Flags().StringSliceVarP(p, "event", "e", def, help)
	OneLineList(cmd.Flags(), "event")
	_ = cmd.RegisterFlagCompletionFunc("event", CompleteEvents)
}

func ShapeFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "shape", string(spec.Described),
		"body shape: "+strings.Join(spec.ShapeNames(), "|")+" (sample: the spec's sample bodies)")
	_ = cmd.RegisterFlagCompletionFunc("shape", CompleteShapes)
}

// SetFlags are --set and --unset.
func SetFlags(cmd *cobra.Command, sets, unsets *[]string) {
	f := cmd.Flags()
	f.StringArrayVar(sets, "set", nil, "set a field: <path>=<value>, value as JSON else string (repeatable)")
	f.StringArrayVar(unsets, "unset", nil, "remove a field: <path> (repeatable)")
}

const fixedIDsHelp = "with --seed: the requestIds generate --seed prints and the seed's own document numbers (not generate's), the same every run (default: ids and numbers of the run's own)"

func FixedIDsFlag(cmd *cobra.Command, p *bool, help string) {
	if help == "" {
		help = fixedIDsHelp
	}
	cmd.Flags().BoolVar(p, "fixed-ids", false, help)
}
