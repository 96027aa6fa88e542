package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/deliver"
	"github.com/whsim/whsim/internal/spec"
)

type replayOptions struct {
	deliveryFlags
	Files        []string
	Events       []string
	NewRequestID bool
	Seed         uint64
}

func newReplayCmd(a *app) *cobra.Command {
	opts := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay <capture.ndjson>... --url <url> [--event <name>]... [--rate <n/s>] [--concurrency <n>] [--new-request-id]",
		Short: "Send captured calls again, byte for byte",
		Long: `Send the calls a capture file recorded (whsim listen --capture) to a receiver
again: the same method, query (businessType and the rest, added to --url's
own query), body byte for byte, content type and headers. Headers that belong
to the connection (Host, Content-Length, Connection, Accept-Encoding, ...)
are the client's own.

Calls go in captured order unless --concurrency is above 1. --new-request-id
gives each call a fresh requestId (and changes nothing else) to test a
receiver's deduplication. A torn last line, as a crash leaves it, is reported
and skipped; a file of payloads, or one that is not JSON, is refused (exit 2:
send payloads with whsim send --file). Output, summary and exit status are
those of send.`,
		Example: `  whsim replay capture.ndjson --url http://localhost:3000/webhook
  whsim replay monday.ndjson tuesday.ndjson --url http://localhost:3000/webhook --event AUDIT_PURCHASE_ORDER_INVOICE
  whsim replay capture.ndjson --url http://localhost:3000/webhook --new-request-id --output json`,
		Args: cobra.MinimumNArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"ndjson", "json"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			return runReplay(cmd.Context(), a, opts)
		}),
	}
	opts.deliveryFlags.register(cmd)
	f := cmd.Flags()
	f.StringSliceVarP(&opts.Events, "event", "e", nil, "replay only calls of this event (repeatable)")
	f.BoolVar(&opts.NewRequestID, "new-request-id", false, "give each call a fresh requestId, every other byte unchanged")
	f.Uint64Var(&opts.Seed, "seed", 0, "seed of the fresh requestIds (0: random)")
	_ = cmd.RegisterFlagCompletionFunc("event", completeEvents)
	return cmd
}

func runReplay(ctx context.Context, a *app, opts *replayOptions) error {
	expect, err := opts.check()
	if err != nil {
		return err
	}
	if opts.URL == "" {
		return usagef("--url: say where to replay to")
	}
	target, err := opts.target("")
	if err != nil {
		return err
	}
	only, err := spec.ParseEvents(opts.Events)
	if err != nil {
		return usageErr(fmt.Errorf("--event: %w", err))
	}
	ins, closeAll, err := capture.OpenInputs(ctx, opts.Files, a.streams.In)
	if err != nil {
		return cmp.Or(ctx.Err(), usageErr(err))
	}
	defer closeAll()
	con, err := opts.newConsole(a, "whsim replay")
	if err != nil {
		return err
	}
	d, err := opts.newDeliverer(a, target, expect, con)
	if err != nil {
		return err
	}
	src := &capture.Replayer{Inputs: ins, Events: only, Warn: con.Warn}
	if opts.NewRequestID {
		src.IDs = deliver.NewIDs(opts.Seed)
	}
	err = runDeliveries(ctx, con, d, src.Next, opts.runOptions(), 0)
	if src.Err() != nil && err == nil {
		// A pipe found to hold no captures is the input's fault, as a
		// file is (OpenInputs); a read that broke off is a failed run.
		if _, ok := errors.AsType[*capture.PayloadsError](src.Err()); ok || isInputError(src.Err()) {
			return usageErr(src.Err())
		}
		return &exitError{code: ExitFailed, err: src.Err()}
	}
	return err
}
