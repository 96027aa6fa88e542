// Package cli is whsim's root command: Main, the signals, the lazy
// command tree (newRootCmd builds only the command a run names), help,
// cobra's completion command (completion.go) and how an error becomes an
// exit code and a line on stderr. Each command is a package of its own,
// internal/cli/<command>cmd, of one shape:
//
//	type xOptions struct{ ... }                 // the flags, typed
//	func New(a *cmdutil.App) *cobra.Command     // help text, flags, completion
//	func runX(ctx context.Context, a *cmdutil.App, opts *xOptions) error
//
// runX checks the options (cmdutil.UsageErr: exit 2), builds the domain
// values and runs them, returning an error or cmdutil.ErrChecksFailed
// (exit 1); a command's tests call it with buffers through cmdutil.NewApp.
// A new command is a package added to commandsFor's list. What every
// command shares is in cmdutil (the app of one run, streams, exit codes,
// usage errors, flag sets, completion helpers, config); what some share is
// a package named for it (payloadflags, delivery, reportfile, inspector);
// results people read go through the renderers beside their commands
// (checkout, sendout, listenout, validateout, anonymizeout). The tests
// here run the whole command line through Execute. Domain rules live in
// their packages.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/whsim/whsim/internal/cli/anonymizecmd"
	"github.com/whsim/whsim/internal/cli/checkcmd"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/eventscmd"
	"github.com/whsim/whsim/internal/cli/exportcmd"
	"github.com/whsim/whsim/internal/cli/generatecmd"
	"github.com/whsim/whsim/internal/cli/inspectcmd"
	"github.com/whsim/whsim/internal/cli/listencmd"
	"github.com/whsim/whsim/internal/cli/mancmd"
	"github.com/whsim/whsim/internal/cli/readycmd"
	"github.com/whsim/whsim/internal/cli/replaycmd"
	"github.com/whsim/whsim/internal/cli/schemacmd"
	"github.com/whsim/whsim/internal/cli/sendcmd"
	"github.com/whsim/whsim/internal/cli/validatecmd"
	"github.com/whsim/whsim/internal/cli/versioncmd"
	"github.com/whsim/whsim/internal/term/tty"
	"github.com/whsim/whsim/internal/termsafe"
)

// Build describes the binary; release builds set it through -ldflags.
type Build = cmdutil.Build

// Streams are the standard streams of one run; tests pass buffers.
type Streams = cmdutil.Streams

// OSStreams returns the process's standard streams.
func OSStreams() Streams { return cmdutil.OSStreams() }

// Main runs whsim with args and returns its exit code. It owns the signals:
// Ctrl-C or SIGTERM cancels the context the commands run under. It is for
// a process that ends when it returns: what a command set for the whole
// process for its run (cmdutil.App.TuneGC) is left set.
func Main(ctx context.Context, args []string, s Streams, b Build) int {
	// A command that waits on nothing (the version, the events, a schema)
	// gets no signal handling, which starts a thread of its own: a signal's
	// default action ends it, as it ends any command still starting up
	// (the shell then says 130 for Ctrl-C, 143 for SIGTERM). Start-up is
	// most of such a run (#35).
	// net/http's transport writes what it has nobody to hand (bytes a
	// receiver sent after its answer: "Unsolicited response received on
	// idle HTTP channel") to the standard logger, on stderr, a line per
	// connection; whsim uses no standard logger, and counts such an answer
	// itself (its connection ends, on every path).
	log.SetOutput(io.Discard)
	if waits(commandNamed(args)) {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	a := cmdutil.NewApp(s, b, time.Now)
	a.EndsWithRun = true
	return Execute(ctx, a, args)
}

// Execute runs args on a's command tree and returns the exit code, without
// Main's signal handling: the completion scripts and the commands' tests
// (through package clitest) run whsim so.
func Execute(ctx context.Context, a *cmdutil.App, args []string) int {
	only := commandNamed(args)
	root := newRootCmd(a, only)
	// cobra writes help, usage and --version through its own writer and
	// drops the write's error: --help > /dev/full exited 0 where any
	// other output that could not be written is exit 2.
	cobraOut := &firstWriteErr{w: a.Streams.Out}
	root.SetOut(cobraOut)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		err = cobraOut.err
	}
	if err != nil && !a.Ran {
		err = a.NotRun(cmd, args, err, configTree(a, root, only))
	}
	switch {
	case err == nil:
		return cmdutil.ExitOK
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, cmdutil.ErrInterrupted)):
		return cmdutil.ExitInterrupted
	}
	if !a.Ran && !cmd.HasParent() {
		if u := unknownCommand(root, err); u != nil {
			err = u
		}
	}
	code := cmdutil.CodeOf(err, a.Ran)
	if code == cmdutil.ExitFailed && a.Streams.OutputLost(err) {
		code = cmdutil.ExitUsage
	}
	var ee *cmdutil.ExitError
	if errors.As(err, &ee) && ee.Err == nil {
		return code
	}
	if code == cmdutil.ExitUsage && !a.Ran {
		err = cobraUsage(cmd, err)
	}
	// Errors quote flags, files and answers from the network: terminal-safe,
	// keeping the lines and tabs of cobra's own ("Did you mean this?\n\tgenerate").
	prefix := "whsim:"
	msg := err.Error()
	usage := code == cmdutil.ExitUsage && commandLineErr(a, err, msg)
	if usage {
		prefix = termsafe.Text(cmd.CommandPath()) + ":"
		if fe, ok := errors.AsType[*cmdutil.FlagErr](err); ok {
			prefix = termsafe.Text(fe.Path) + ":"
		}
	}
	if code == cmdutil.ExitUsage {
		// A value refused by the command, or before it ran (--output):
		// say where it came from when the user did not type it. (A flag
		// cobra refused was typed, and says so itself.)
		msg = a.SayFlagSources(msg)
	}
	fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Fail.Sprint(prefix), termsafe.Message(msg))
	// A file that cannot be read or written is no matter of usage: its
	// --help is no cure, nor for a stdout that cannot be written to.
	if _, onFile := errors.AsType[*fs.PathError](err); usage && !onFile {
		fmt.Fprintf(a.Streams.Err, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}

// commandLineErr says whether err, a usage error (exit 2) whose message is
// msg, is about the command line, which is said in one shape whichever
// refused it: "whsim <command>: <what>", then the command's --help. Such
// are cobra's (an unknown flag, command or argument), those of a flag's
// value (cmdutil.FlagErr), and those a command finds in its flags, which
// name the flag first ("--count -1: want at least 1", "--seed needs
// --new-request-id"). An error of the config file or the environment, or
// of a stdout that cannot be written to, is not.
func commandLineErr(a *cmdutil.App, err error, msg string) bool {
	if _, inConfig := errors.AsType[*cmdutil.ConfigError](err); inConfig || a.Streams.OutputLost(err) {
		return false
	}
	if _, ok := errors.AsType[*cmdutil.FlagErr](err); ok || !a.Ran {
		return true
	}
	return strings.HasPrefix(msg, "--")
}

// cobraRequired is cobra's error for a required flag not given.
const cobraRequired = `^required flag\(s\) "([^"]+)" not set$`

// cobraUsage rewrites the usage errors cobra returns in its own words, of
// a command that is not the root (whose unknown command is
// unknownCommand's), in ours.
func cobraUsage(cmd *cobra.Command, err error) error {
	if !cmd.HasParent() {
		return err
	}
	msg := err.Error()
	if m := regexp.MustCompile(cobraRequired).FindStringSubmatch(msg); m != nil {
		if f := cmd.Flags().Lookup(m[1]); f != nil {
			return cmdutil.UsageErr(&cmdutil.FlagErr{Path: cmd.CommandPath(), Msg: fmt.Sprintf("--%s is required: %s", f.Name, f.Usage)})
		}
	}
	return err
}

// firstWriteErr is stdout as cobra writes to it, keeping the first error
// of a write, which cobra's help and version templates do not return.
type firstWriteErr struct {
	w   io.Writer
	err error
}

func (f *firstWriteErr) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}

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
		// The root's own flag: no command is needed, whatever follows,
		// unless help is asked for too, which describes the whole tree.
		if slices.ContainsFunc(args[1:], func(a string) bool { return a == "-h" || a == "--help" }) {
			return ""
		}
		return rootAlone
	}
	return args[0]
}

// rootAlone is the only of newRootCmd that builds the root without any
// command: no command is named so.
const rootAlone = "--version"

// The root's help, as newRootCmd gives it to cobra.
const (
	rootShort = "Simulate an ERP's webhooks: generate, send, receive, validate and replay events"
	rootLong  = `whsim plays the sending side of a business-document system's webhooks so you can
build and test the receiving side. It knows the four events of the interface
(purchase invoices in both shapes, receipt documents with their hidden fields),
makes realistic payloads for them, delivers them to your receiver, receives and
records calls itself, and checks every payload against the interface.

-v is always --verbose (send, replay, listen, check); the version is --version or
whsim version.`
	rootExample = `  whsim events
  whsim generate --event CREATE_RECEIVABLE_DOC --seed 42
  whsim listen --addr 127.0.0.1:9000 --capture calls.ndjson
  whsim send --event ABANDON_RECEIVABLE_DOC --url http://127.0.0.1:9000/hook
  whsim validate calls.ndjson
  whsim replay calls.ndjson --url http://127.0.0.1:3000/webhook`
)

// newRootCmd builds the command tree, or, when only names one of its
// commands, the root with that command alone: building every command's
// flags was most of what whsim did before running any (#35, start-up).
func newRootCmd(a *cmdutil.App, only string) *cobra.Command {
	root := &cobra.Command{
		Use:           "whsim",
		Short:         rootShort,
		Long:          rootLong,
		Example:       rootExample,
		Version:       a.Build.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// Flags and config are read here, once, for whichever command runs.
		PersistentPreRunE: readFlagsAndConfig(a, only),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	// Streams first: cobra's completion command captures its writer when
	// it is created, in setUpCompletionCmd.
	root.SetIn(a.Streams.In)
	root.SetOut(a.Streams.Out)
	root.SetErr(a.Streams.Err)
	root.SetFlagErrorFunc(cmdutil.FlagError)
	pf := root.PersistentFlags()
	pf.StringVar(&a.ConfigPath, "config", "", "config file (default ./"+cmdutil.ConfigName+", else the user config directory's whsim/"+cmdutil.ConfigName+")")
	_ = root.RegisterFlagCompletionFunc("config", cmdutil.CompleteFiles)
	pf.BoolVar(&a.NoColor, "no-color", false, "never colour output (also NO_COLOR; CLICOLOR_FORCE=1 colours a pipe)")
	// Declared here so cobra gives it no -v: -v is --verbose everywhere.
	root.Flags().Bool("version", false, "print the version (as whsim version does)")
	commands := commandsFor(only)
	for _, c := range commands {
		cmd := c.build(a)
		cmdutil.PlainWholeNumbers(cmd)
		root.AddCommand(cmd)
	}
	if len(commands) > 0 { // cobra adds no help command to a root without any
		root.SetHelpCommand(newHelpCmd(a, root))
	}
	// Ours are one line (Execute), cobra's a block.
	root.DisableSuggestions = true
	if len(commands) > 1 { // the whole tree
		setUpCompletionCmd(root)
		cmdutil.NoFilesForValues(root)
	} else {
		// A run that names its command, or --version, never reaches
		// completion (that word builds the whole tree), and building it
		// with its four shells' help was most of what such a run
		// allocated (#35).
		root.CompletionOptions.DisableDefaultCmd = true
	}
	return root
}

// readFlagsAndConfig is the root's PersistentPreRunE: it notes the flags
// typed on the command line, reads the config file and sets the colours.
func readFlagsAndConfig(a *cmdutil.App, only string) func(cmd *cobra.Command, args []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.CommandLine = map[string]bool{}
		cmd.Flags().Visit(func(f *pflag.Flag) { a.CommandLine[f.Name] = true })
		a.Shorthands = map[string]string{}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Shorthand != "" {
				a.Shorthands[f.Shorthand] = f.Name
			}
		})
		sources, err := cmdutil.LoadConfig(cmd, a.ConfigPath, configTree(a, cmd.Root(), only))
		if err != nil {
			return err
		}
		a.FlagSources = sources
		for _, m := range cmdutil.MistypedEnv(cmd, os.Environ(), configTree(a, cmd.Root(), only)) {
			// Said before the colours are set: plain, as a config error is.
			fmt.Fprintf(a.Streams.Err, "warning: environment %s is no variable whsim reads (did you mean %s?)\n", m[0], m[1])
		}
		// Colour on a terminal; TERM=dumb is one that draws no escape
		// sequences. CLICOLOR_FORCE (set, not 0) colours any stream, a
		// pipe to a CI log that shows colour or to less -R; NO_COLOR and
		// --no-color win over it.
		force := os.Getenv("CLICOLOR_FORCE")
		forced := force != "" && force != "0"
		noColor := a.NoColor || os.Getenv("NO_COLOR") != ""
		dumb := os.Getenv("TERM") == "dumb"
		a.OutColor = tty.Colors(!noColor && (forced || a.Streams.OutTTY && !dumb))
		a.ErrColor = tty.Colors(!noColor && (forced || a.Streams.ErrTTY && !dumb))
		return nil
	}
}

// configTree returns the command tree a config file's keys are checked
// against: every command's flags, so root when it holds the whole tree,
// else a tree built for another app so that its flags do not reset a's.
func configTree(a *cmdutil.App, root *cobra.Command, only string) func() *cobra.Command {
	return func() *cobra.Command {
		if only == "" {
			return root
		}
		return newRootCmd(&cmdutil.App{Streams: a.Streams, Build: a.Build, Now: a.Now}, "")
	}
}

// command is one of whsim's commands: its name and how it is built.
type command struct {
	name  string
	build func(*cmdutil.App) *cobra.Command
	// instant: the command reads no input and calls no one, so nothing
	// it does waits (Main's signal handling).
	instant bool
}

// waits says whether the run of the command named only (commandNamed)
// may wait on input, the network or the clock: all but the instant ones,
// and the whole tree's (help, completion, an unknown word) to be safe.
func waits(only string) bool {
	if only == rootAlone {
		return false
	}
	for _, c := range commandsFor("") {
		if c.name == only {
			return !c.instant
		}
	}
	return true
}

// commandsFor is the commands newRootCmd adds: every one, or only the
// one a run names (none for rootAlone).
func commandsFor(only string) []command {
	commands := []command{
		{name: "events", build: eventscmd.New, instant: true},
		{name: "generate", build: generatecmd.New},
		{name: "send", build: sendcmd.New},
		{name: "check", build: checkcmd.New},
		{name: "listen", build: listencmd.New},
		{name: "ready", build: readycmd.New},
		{name: "replay", build: replaycmd.New},
		{name: "inspect", build: inspectcmd.New},
		{name: "export", build: exportcmd.New},
		{name: "validate", build: validatecmd.New},
		{name: "schema", build: schemacmd.New, instant: true},
		{name: "version", build: versioncmd.New, instant: true},
		{name: "man", build: mancmd.New},
		{name: "anonymize", build: anonymizecmd.New},
	}
	if i := slices.IndexFunc(commands, func(c command) bool { return c.name == only }); i >= 0 {
		return commands[i : i+1]
	}
	if only == rootAlone {
		return nil
	}
	return commands
}
