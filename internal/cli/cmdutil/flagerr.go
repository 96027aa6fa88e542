package cmdutil

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/config"
)

// FlagError rewrites pflag's errors for people (package config says what a
// flag wants, or the flag meant) and makes them usage errors.
func FlagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if strings.HasPrefix(msg, "unknown shorthand flag: 'v'") {
		msg += " (-v is --verbose, in send, replay and listen; the version is --version)"
	} else {
		msg = config.Explain(cmd.Flags(), msg)
	}
	return UsageErr(&FlagErr{Path: cmd.CommandPath(), Msg: msg})
}

// FlagErr is a flag error of one command: printed after the command's
// path ("whsim send: unknown flag: --bogus"), which stands in for the
// "whsim:" every other error starts with, so the name is not said twice.
type FlagErr struct{ Path, Msg string }

func (e *FlagErr) Error() string { return e.Msg }
