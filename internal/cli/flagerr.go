package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/config"
)

// flagError rewrites pflag's errors for people (package config says what a
// flag wants, or the flag meant) and makes them usage errors.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if strings.HasPrefix(msg, "unknown shorthand flag: 'v'") {
		msg += " (-v is --verbose, in send, replay and listen; the version is --version)"
	} else {
		msg = config.Explain(cmd.Flags(), msg)
	}
	return usagef("%s: %s", cmd.CommandPath(), msg)
}
