// Package cmdutil is what every whsim command shares, once: the app of one
// run (its streams, build, clock, colours and the flags typed on the
// command line), exit codes and usage errors, the flag sets several
// commands take, shell completion of their values, and config reading.
// Each command lives in its own package under internal/cli and gets an
// *App; none of them imports another's. Pieces only some commands share
// live in a package named for what they are, not here.
package cmdutil

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/buildinfo"
	"github.com/whsim/whsim/internal/gctune"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/term/tty"
)

// Build describes the binary; release builds set it through -ldflags.
type Build = buildinfo.Build

// App is what every command of one run shares. The root command (package
// cli) fills in the flags and colours before a command runs.
type App struct {
	Streams Streams
	Build   Build
	Now     func() time.Time

	// ConfigPath and NoColor are the root's --config and --no-color.
	ConfigPath string
	NoColor    bool
	// ErrColor colours stderr and OutColor stdout: each decided once, when
	// flags and config are read.
	ErrColor, OutColor term.Style
	// Ran says a command's RunE started: errors before that are cobra's
	// usage errors.
	Ran bool
	// CommandLine holds the flags set on the command line, before the
	// environment and the config file fill in the others (OnCommandLine).
	CommandLine map[string]bool
	// FlagSources says where the environment or the config file set a
	// flag the command line did not ("environment WHSIM_SEED"), for
	// errors about its value (SayFlagSources).
	FlagSources map[string]string
	// Shorthands maps the command's one-letter flags to their names
	// ("H" to "header"), for SayFlagSources.
	Shorthands map[string]string
	// Summarized says the run appended its section to the GitHub job
	// summary (reportfile.AppendJobSummary): a run that ends without one
	// (reportfile.FinishJobSummary) appends one saying why.
	Summarized bool
	// notRun holds, per command, what it does when its run never began
	// (WhenNotRun).
	notRun map[*cobra.Command]notRun
	// EndsWithRun says the process ends when the command returns (Main):
	// what a run set for the whole process for itself is then left set
	// (TuneGC), not put back for nobody.
	EndsWithRun bool
}

// TuneGC sets the collector for a command whose heap is mostly garbage
// (gctune.Set) and returns what puts it back: nothing in a process that
// ends with the run. There, GOGC put back to 100 under the garbage the run
// left made the run's last allocations start a collection cycle as the
// process ended (validate's streamed run, which runs without one, had one
// in 1 run of 14 on a loaded machine: validate_no_gc_cycle.txtar); a
// run in a process that goes on (a test's) has it put back.
func (a *App) TuneGC() (restore func()) {
	restore = gctune.Set()
	if a.EndsWithRun {
		return func() {}
	}
	return restore
}

// NewApp is the one place an App is made: Main, the completion scripts
// and tests. Colour is off until the root command has read the flags.
func NewApp(s Streams, b Build, now func() time.Time) *App {
	return &App{Streams: s, Build: b, Now: now, OutColor: tty.Colors(false), ErrColor: tty.Colors(false)}
}

// RunE wraps a command's run function so that errors from it are told apart
// from cobra's own usage errors.
func (a *App) RunE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.Ran = true
		return fn(cmd, args)
	}
}
