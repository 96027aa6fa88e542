// Package cli holds whsim's cobra commands. Commands are thin: each fills an
// options struct and calls a run function that tests call directly with
// buffers; the domain packages do the work.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/spec"
)

// Build describes the binary; release builds set it through -ldflags.
type Build struct {
	Version, Commit, Date string
}

// String is the text of --version and of `whsim version`: the one place a
// build is formatted as text.
func (b Build) String() string {
	i := b.resolve()
	commit := i.Commit
	if i.Modified {
		commit += "+dirty"
	}
	return fmt.Sprintf("whsim %s (commit %s, built %s, %s %s/%s)", i.Version, commit, i.Date,
		i.Go, i.OS, i.Arch)
}

// buildInfo is a Build completed from what the binary knows about itself;
// `whsim version --output json` prints it.
type buildInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Date     string `json:"date"`
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// resolve fills in what the linker did not set. A release build has all
// three from -ldflags. `go install ...@v1.2.3` has none, but the module
// version is in the build info. A build from a clone is "dev", with the
// commit and its time when the go command stamped them (-buildvcs); since
// Go 1.24 it also stamps a pseudo-version from the commit, which says no
// more than the commit does and would read like a release.
func (b Build) resolve() buildInfo {
	i := buildInfo{Version: b.Version, Commit: b.Commit, Date: b.Date,
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if i.Version == "" {
		i.Version = "dev"
		if info, ok := debug.ReadBuildInfo(); ok {
			fromClone := false
			for _, s := range info.Settings {
				switch {
				case s.Key == "vcs.revision":
					fromClone = true
					if i.Commit == "" {
						i.Commit = s.Value
					}
				case s.Key == "vcs.time" && i.Date == "":
					i.Date = s.Value
				case s.Key == "vcs.modified":
					i.Modified = s.Value == "true"
				}
			}
			if v := info.Main.Version; v != "" && v != "(devel)" && !(fromClone && isPseudoVersion(v)) {
				i.Version = v
			}
		}
	}
	if i.Commit == "" {
		i.Commit = "unknown"
	}
	if i.Date == "" {
		i.Date = "unknown"
	}
	return i
}

// isPseudoVersion reports whether v is a Go pseudo-version
// (v0.0.0-20261122042457-1fb8174eae78, v1.2.4-0.2026…-…, optionally +dirty):
// its last two dash-separated parts are a 14-digit time and a 12-digit hash.
func isPseudoVersion(v string) bool {
	v, _, _ = strings.Cut(v, "+")
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return false
	}
	hash, stamp := parts[len(parts)-1], parts[len(parts)-2]
	if len(stamp) < 14 || len(hash) != 12 {
		return false
	}
	stamp = stamp[len(stamp)-14:]
	return strings.Trim(stamp, "0123456789") == "" && strings.Trim(hash, "0123456789abcdef") == ""
}

// app is what every command of one run shares.
type app struct {
	streams Streams
	build   Build
	now     func() time.Time

	configPath string
	noColor    bool
	// errColor colours diagnostics on stderr; set once flags and config are read.
	errColor Palette
	// ran says a command's RunE started: errors before that are cobra's
	// usage errors.
	ran bool
}

// Main runs whsim with args and returns its exit code. It owns the signals:
// Ctrl-C or SIGTERM cancels the context the commands run under.
func Main(ctx context.Context, args []string, s Streams, b Build) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &app{streams: s, build: b, now: time.Now, errColor: newPalette(false)}
	return a.run(ctx, args)
}

func (a *app) run(ctx context.Context, args []string) int {
	root := newRootCmd(a)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	switch {
	case err == nil:
		return ExitOK
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, errInterrupted)):
		return ExitInterrupted
	}
	code := codeOf(err, a.ran)
	var ee *exitError
	if errors.As(err, &ee) && ee.err == nil {
		return code
	}
	fmt.Fprintf(a.streams.Err, "%s %s\n", a.errColor.Fail.Sprint("whsim:"), err)
	if code == ExitUsage && !a.ran {
		fmt.Fprintf(a.streams.Err, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return code
}

// errInterrupted ends a command that stopped early because of a signal,
// after it reported what it had done.
var errInterrupted = &exitError{code: ExitInterrupted}

func newRootCmd(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "whsim",
		Short: "Simulate an ERP's webhooks: generate, send, receive, validate and replay events",
		Long: `whsim plays the sending side of a business-document system's webhooks so you can
build and test the receiving side. It knows the four events of the interface
(purchase invoices in both shapes, receipt documents with their hidden fields),
makes realistic payloads for them, delivers them to your receiver, receives and
records calls itself, and checks every payload against the interface.`,
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
			if err := loadConfig(cmd, a.configPath); err != nil {
				return err
			}
			_, noColorEnv := os.LookupEnv("NO_COLOR")
			noColorEnv = noColorEnv && os.Getenv("NO_COLOR") != ""
			a.errColor = newPalette(a.streams.ErrTTY && !a.noColor && !noColorEnv)
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

	for _, c := range []*cobra.Command{
		newEventsCmd(a),
		newGenerateCmd(a),
		newSendCmd(a),
		newListenCmd(a),
		newReplayCmd(a),
		newValidateCmd(a),
		newSchemaCmd(a),
		newVersionCmd(a),
		newManCmd(a),
	} {
		root.AddCommand(c)
	}
	setUpCompletionCmd(root)
	return root
}

// runE wraps a command's run function so that errors from it are told apart
// from cobra's own usage errors.
func (a *app) runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.ran = true
		return fn(cmd, args)
	}
}

// completeEvents offers event names from the spec catalog.
func completeEvents(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, e := range spec.Events() {
		out = append(out, e.Name+"\t"+e.Meaning)
	}
	return append(out, spec.AllEvents+"\tevery event"), cobra.ShellCompDirectiveNoFileComp
}

func completeShapes(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return spec.ShapeNames(), cobra.ShellCompDirectiveNoFileComp
}

func completeWords(words ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return words, cobra.ShellCompDirectiveNoFileComp
	}
}
