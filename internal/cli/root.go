// Package cli holds whsim's cobra commands, one file each, all of one
// shape:
//
//	type xOptions struct{ ... }               // the flags, typed
//	func newXCmd(a *app) *cobra.Command       // help text, flags, completion
//	func runX(ctx context.Context, a *app, opts *xOptions) error
//
// runX checks the options (usageErr: exit 2), wires domain packages
// together and returns an error or errChecksFailed (exit 1); tests call it
// with buffers through newApp. A new command is added in newRootCmd.
// Flags several commands share are a struct with a register method
// (payloadFlags, deliveryFlags). What every command shares is here once:
// the streams, each stream's colour and "-" as stdin (streams.go), config
// (config.go), exit codes (exit.go); results people read go through the
// shared reporter (internal/report). Domain rules live in their packages.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/whsim/whsim/internal/buildinfo"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/term/tty"
	"github.com/whsim/whsim/internal/termsafe"
)

// Build describes the binary; release builds set it through -ldflags.
type Build = buildinfo.Build

// app is what every command of one run shares.
type app struct {
	streams Streams
	build   Build
	now     func() time.Time

	configPath string
	noColor    bool
	// errColor colours stderr and stdoutColor stdout (read through
	// outColor): each decided once, when flags and config are read.
	errColor, stdoutColor term.Style
	// ran says a command's RunE started: errors before that are cobra's
	// usage errors.
	ran bool
	// cmdline holds the flags set on the command line, before the
	// environment and the config file fill in the others (onCommandLine).
	cmdline map[string]bool
}

// Main runs whsim with args and returns its exit code. It owns the signals:
// Ctrl-C or SIGTERM cancels the context the commands run under.
func Main(ctx context.Context, args []string, s Streams, b Build) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return newApp(s, b, time.Now).run(ctx, args)
}

// newApp is the one place an app is made: Main, the completion scripts
// and tests. Colour is off until the root command has read the flags.
func newApp(s Streams, b Build, now func() time.Time) *app {
	return &app{streams: s, build: b, now: now, stdoutColor: tty.Colors(false), errColor: tty.Colors(false)}
}

func (a *app) run(ctx context.Context, args []string) int {
	root := newRootCmd(a, commandNamed(args))
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	switch {
	case err == nil:
		return ExitOK
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, errInterrupted)):
		return ExitInterrupted
	}
	if !a.ran && !cmd.HasParent() {
		if u := unknownCommand(root, err); u != nil {
			err = u
		}
	}
	code := codeOf(err, a.ran)
	var ee *exitError
	if errors.As(err, &ee) && ee.err == nil {
		return code
	}
	// Errors quote flags, files and answers from the network: terminal-safe,
	// keeping the lines and tabs of cobra's own ("Did you mean this?\n\tgenerate").
	prefix := "whsim:"
	var fe *flagErr
	if errors.As(err, &fe) {
		prefix = termsafe.Text(fe.path) + ":"
	}
	fmt.Fprintf(a.streams.Err, "%s %s\n", a.errColor.Fail.Sprint(prefix), termsafe.Message(err.Error()))
	if code == ExitUsage && !a.ran {
		fmt.Fprintf(a.streams.Err, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}

// errInterrupted ends a command that stopped early because of a signal,
// after it reported what it had done.
var errInterrupted = &exitError{code: ExitInterrupted}

// commandNamed is the top-level command args run when their first word
// names one outright, "" when the whole tree is needed: help, completion
// and man describe it, and a word that is no command gets a did-you-mean.
func commandNamed(args []string) string {
	if len(args) == 0 {
		return ""
	}
	switch args[0] {
	case "help", "completion", "man", cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
		return ""
	case "--version":
		if len(args) == 1 {
			return rootAlone // the root's own flag: no command is needed
		}
	}
	return args[0]
}

// rootAlone is the only of newRootCmd that builds the root without any
// command: no command is named so.
const rootAlone = "--version"

// newRootCmd builds the command tree, or, when only names one of its
// commands, the root with that command alone: building every command's
// flags was most of what whsim did before running any (#35, start-up).
func newRootCmd(a *app, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "whsim",
		Short: "Simulate an ERP's webhooks: generate, send, receive, validate and replay events",
		Long: `whsim plays the sending side of a business-document system's webhooks so you can
build and test the receiving side. It knows the four events of the interface
(purchase invoices in both shapes, receipt documents with their hidden fields),
makes realistic payloads for them, delivers them to your receiver, receives and
records calls itself, and checks every payload against the interface.

-v is always --verbose (send, replay, listen); the version is --version or
whsim version.`,
		Example: `  whsim events
  whsim generate --event CREATE_RECEIVABLE_DOC --seed 42
  whsim send --event ABANDON_RECEIVABLE_DOC --url http://127.0.0.1:9000/hook
  whsim listen --capture calls.ndjson
  whsim validate calls.ndjson
  whsim replay calls.ndjson --url http://127.0.0.1:9000/hook`,
		Version:       a.build.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// Flags and config are read here, once, for whichever command runs.
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			a.cmdline = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { a.cmdline[f.Name] = true })
			// The config's keys are checked against every command's flags,
			// so a file is read against the whole tree, built for another
			// app so that its flags do not reset this one's.
			tree := func() *cobra.Command {
				if only == "" {
					return cmd.Root()
				}
				return newRootCmd(&app{streams: a.streams, build: a.build, now: a.now}, "")
			}
			if err := loadConfig(cmd, a.configPath, tree); err != nil {
				return err
			}
			noColor := a.noColor || os.Getenv("NO_COLOR") != ""
			a.stdoutColor = tty.Colors(a.streams.OutTTY && !noColor)
			a.errColor = tty.Colors(a.streams.ErrTTY && !noColor)
			return nil
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	// Streams first: cobra's completion command captures its writer when
	// it is created, in setUpCompletionCmd.
	root.SetIn(a.streams.In)
	root.SetOut(a.streams.Out)
	root.SetErr(a.streams.Err)
	root.SetFlagErrorFunc(flagError)
	pf := root.PersistentFlags()
	pf.StringVar(&a.configPath, "config", "", "config file (default ./"+ConfigName+", else the user config directory's whsim/"+ConfigName+")")
	pf.BoolVar(&a.noColor, "no-color", false, "never colour output (also NO_COLOR)")
	// Declared here so cobra gives it no -v: -v is --verbose everywhere.
	root.Flags().Bool("version", false, "print the version (as whsim version does)")

	type command struct {
		name  string
		build func(*app) *cobra.Command
	}
	commands := []command{
		{"events", newEventsCmd},
		{"generate", newGenerateCmd},
		{"send", newSendCmd},
		{"check", newCheckCmd},
		{"listen", newListenCmd},
		{"ready", newReadyCmd},
		{"replay", newReplayCmd},
		{"inspect", newInspectCmd},
		{"export", newExportCmd},
		{"validate", newValidateCmd},
		{"schema", newSchemaCmd},
		{"version", newVersionCmd},
		{"man", newManCmd},
		{"anonymize", newAnonymizeCmd},
	}
	if i := slices.IndexFunc(commands, func(c command) bool { return c.name == only }); i >= 0 {
		commands = commands[i : i+1]
	} else if only == rootAlone {
		commands = nil
	}
	for _, c := range commands {
		root.AddCommand(c.build(a))
	}
	root.SetHelpCommand(newHelpCmd(a, root))
	// Ours are one line (a.run), cobra's a block.
	root.DisableSuggestions = true
	setUpCompletionCmd(root)
	return root
}

// outColor is the palette of stdout.
func (a *app) outColor() term.Style { return a.stdoutColor }

// runE wraps a command's run function so that errors from it are told apart
// from cobra's own usage errors.
func (a *app) runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.ran = true
		return fn(cmd, args)
	}
}

// completeEvent offers the event names of the spec catalog.
func completeEvent(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, e := range spec.Events() {
		out = append(out, e.Name+"\t"+e.Meaning)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeEvents offers them and "all".
func completeEvents(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	out, dir := completeEvent(cmd, args, toComplete)
	return append(out, spec.AllEvents+"\tevery event"), dir
}

func completeShapes(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return spec.ShapeNames(), cobra.ShellCompDirectiveNoFileComp
}

func completeWords(words ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return words, cobra.ShellCompDirectiveNoFileComp
	}
}
