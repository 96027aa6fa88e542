package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

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
		Args: cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return runEvents(cmd.Context(), a, opts)
		}),
	}
	addOutputFlag(cmd, &opts.Output, "text", "text", "json")
	return cmd
}

// eventJSON is the stable --output json form of an event.
type eventJSON struct {
	Name         string `json:"name"`
	Number       int    `json:"number"`
	SampleNumber int    `json:"sampleNumber"`
	Numbers      []int  `json:"numbers"`
	Payload      string `json:"payload"`
	Meaning      string `json:"meaning"`
}

func runEvents(_ context.Context, a *app, opts *eventsOptions) error {
	out := a.streams.Out
	events := spec.Events()
	if opts.Output == "json" {
		list := make([]eventJSON, len(events))
		for i, e := range events {
			list[i] = eventJSON{e.Name, e.Number, e.SampleNumber, e.Numbers(), string(e.Kind), e.Meaning}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EVENT\tNUMBER\tPAYLOAD\tMEANING")
	for _, e := range events {
		nums := make([]string, len(e.Numbers()))
		for i, n := range e.Numbers() {
			nums[i] = strconv.Itoa(n)
		}
		number := strings.Join(nums, ", ")
		if e.SampleNumber != e.Number {
			number = fmt.Sprintf("%d (samples: %d)", e.Number, e.SampleNumber)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, number, e.Kind, e.Meaning)
	}
	return tw.Flush()
}

// addOutputFlag adds --output/-o with its allowed values, checked before the
// command runs and offered by shell completion.
func addOutputFlag(cmd *cobra.Command, target *string, def string, allowed ...string) {
	cmd.Flags().StringVarP(target, "output", "o", def, "output format: "+strings.Join(allowed, "|"))
	_ = cmd.RegisterFlagCompletionFunc("output", completeWords(allowed...))
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if !slices.Contains(allowed, *target) {
			return usagef("--output %q: want one of %s", *target, strings.Join(allowed, ", "))
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}
