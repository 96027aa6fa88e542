// Package readycmd is whsim ready: wait for a ready file (listen
// --ready-file) and say whether the run behind it is up.
package readycmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/ready"
	"github.com/whsim/whsim/internal/termsafe"
)

type readyOptions struct {
	File string
	Wait time.Duration
}

// New is whsim ready.
func New(a *cmdutil.App) *cobra.Command {
	opts := &readyOptions{}
	cmd := &cobra.Command{
		Use:   "ready <ready-file> [--wait <d>]",
		Short: "Exit 0 once the listen that writes <ready-file> accepts connections",
		Long: `Check that a whsim listen (or inspect) started with --ready-file <ready-file>
is up: the file exists and the address of the URL in it accepts a
connection. It prints the URL to stdout and exits 0 when it is; it exits 1
when it is not (no file yet, or a file left behind by a listen that was
killed); 2 when the file is not a ready file. listen and inspect remove
their ready file as soon as they stop.

It opens a connection and closes it, sending no request, so the check is
never recorded as a call. It needs no shell, so it is the health check of
whsim's container image, and it reads no config (whsim.yaml, WHSIM_*), so
a file it does not need cannot fail it. --wait checks every 100ms until
ready or the time is up.`,
		Example: `  whsim listen --addr 0.0.0.0:8080 --ready-file /tmp/listen.url &
  whsim ready /tmp/listen.url --wait 10s && npm test
  whsim ready /tmp/listen.url   # a container health check: exit 0 or 1`,
		Args: cmdutil.ExactArgs(1, "the ready file"),
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			return runReady(cmd.Context(), a, opts)
		}),
	}
	cmd.Flags().DurationVar(&opts.Wait, "wait", 0, "check every 100ms until ready, for at most this long (default: check once)")
	return cmd
}

// readyInterval is how often --wait looks.
const readyInterval = 100 * time.Millisecond

func runReady(ctx context.Context, a *cmdutil.App, opts *readyOptions) error {
	if opts.Wait < 0 {
		return cmdutil.Usagef("--wait %s: want a duration of 0 or more", opts.Wait)
	}
	var u string
	var err error
	if opts.Wait > 0 {
		u, err = ready.Wait(ctx, opts.File, opts.Wait, readyInterval)
	} else {
		u, err = ready.Check(ctx, opts.File)
	}
	var nr *ready.NotReady
	switch {
	case err == nil:
		_, err = fmt.Fprintln(a.Streams.Out, termsafe.Text(u))
		return err
	case errors.As(err, &nr):
		fmt.Fprintf(a.Streams.Err, "%s %s\n", a.ErrColor.Fail.Sprint("not ready:"), termsafe.Message(nr.Reason))
		return cmdutil.ErrChecksFailed
	case ctx.Err() != nil:
		return err
	}
	return cmdutil.UsageErr(err)
}
