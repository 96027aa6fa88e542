package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/spec"
)

type eventsOptions struct {
	Output string
}

func newEventsCmd(a *app) *cobra.Command {
	opts := &eventsOptions{}
	cmd := &cobra.Command{
		Use:   "events [--output text|json]",
		Short: "List the webhook events whsim knows",
		Long: `List the four events of the interface: the query businessType name, the body
businessType number(s), the payload kind and what the event means.`,
		Example: `  whsim events
  whsim events --output json | jq -r '.[].name'`,
		Args: noArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return runEvents(cmd.Context(), a, opts)
		}),
	}
	addOutputFlag(cmd, &opts.Output, "text", "text", "json")
	return cmd
}

func runEvents(_ context.Context, a *app, opts *eventsOptions) error {
	if opts.Output == "json" {
		return spec.WriteEventsJSON(a.streams.Out, spec.Events())
	}
	return spec.WriteEventsTable(a.streams.Out, spec.Events())
}

// addOutputFlag adds --output/-o with its allowed values, checked before the
// command runs and offered by shell completion.
func addOutputFlag(cmd *cobra.Command, target *string, def string, allowed ...string) {
	cmd.Flags().StringVarP(target, "output", "o", def, "output format: "+strings.Join(allowed, "|"))
	_ = cmd.RegisterFlagCompletionFunc("output", completeWords(allowed...))
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if !slices.Contains(allowed, *target) {
			return notOneOf("--output", *target, allowed)
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}
