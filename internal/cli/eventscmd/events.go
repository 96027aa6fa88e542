// Package eventscmd is whsim events: the webhook events whsim knows.
package eventscmd

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/spec"
)

type eventsOptions struct {
	Output string
}

// New is whsim events.
func New(a *cmdutil.App) *cobra.Command {
	opts := &eventsOptions{}
	cmd := &cobra.Command{
		Use:   "events [--output text|json]",
		Short: "List the webhook events whsim knows",
		Long: `List the four events of the interface: the query businessType name, the body
businessType number(s), the payload kind and what the event means.`,
		Example: `  whsim events
  whsim events --output json | jq -r '.[].name'`,
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			return runEvents(cmd.Context(), a, opts)
		}),
	}
	cmdutil.AddOutputFlag(cmd, &opts.Output, "text", "text", "json")
	return cmd
}

func runEvents(_ context.Context, a *cmdutil.App, opts *eventsOptions) error {
	if opts.Output == "json" {
		return spec.WriteEventsJSON(a.Streams.Out, spec.Events())
	}
	return spec.WriteEventsTable(a.Streams.Out, spec.Events())
}
