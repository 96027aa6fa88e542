package cmdutil

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/spec"
)

// NoArgs refuses positional arguments in the words of our usage errors
// (cobra's NoArgs calls an argument an "unknown command"). An event name
// given bare is what --event was meant for, and is said so.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("takes no arguments, got %q", args[0])
	if _, err := spec.ParseEvents(args[:1]); err == nil && cmd.Flags().Lookup("event") != nil {
		msg += fmt.Sprintf(" (did you mean --event %s?)", args[0])
	}
	return UsageErr(&FlagErr{Path: cmd.CommandPath(), Msg: msg})
}

// ExactArgs wants n arguments, what names them.
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		return UsageErr(&FlagErr{Path: cmd.CommandPath(), Msg: fmt.Sprintf("wants %d argument%s (%s), got %d", n, plural(n), what, len(args))})
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
