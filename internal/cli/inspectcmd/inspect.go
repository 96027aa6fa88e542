// Package inspectcmd is whsim inspect: a capture browsed in a web page
// (search, diff, replay).
package inspectcmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/inspector"
	"github.com/whsim/whsim/internal/cli/reportfile"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/inspect"
	"github.com/whsim/whsim/internal/ready"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/validate"
)

type inspectOptions struct {
	File      string
	UI        string
	Token     inspector.Token
	Origin    string
	ReadyFile string
}

// New is whsim inspect.
func New(a *cmdutil.App) *cobra.Command {
	opts := &inspectOptions{}
	cmd := &cobra.Command{
		Use:   "inspect <capture.ndjson> [--ui 127.0.0.1:4040] [--ui-token <token>] [--origin <url>] [--ready-file <file>]",
		Short: "Browse a capture in a web page: search, diff, replay",
		Long: `Serve the web inspector (the page listen --ui serves) over a capture file:
every call newest first, filters by event, verdict and status, a search over
requestId, path, headers and body, each body as a tree with the validator's
findings at their paths, a diff of two calls, replay to a URL and export as
NDJSON or HAR. The file is only read; the newest 10,000 calls (and 256 MiB
of bodies) are kept in memory and older ones are read back from the file as
the page asks.

It binds 127.0.0.1 only unless --ui names another interface, prints one line
"inspector on <url>" to stderr (and writes the URL to --ready-file, removed
once it stops) and serves until Ctrl-C (exit status 0).

The URL carries a token drawn for this run (?token=...), or the one
--ui-token (WHSIM_UI_TOKEN) names, for a bookmark: opening it sets a
session cookie (not the token) only this page, on this port, sends, and
every /api/ request needs it or the token. A page on
any other site is refused (its browser says so in Sec-Fetch-Site), so no
web page can read, replay or export the calls through your browser. From
a script, send the token (in the URL --ready-file holds) as a header, once
the file is there:
  whsim inspect calls.ndjson --ready-file ui.txt &
  whsim ready ui.txt --wait 10s >/dev/null
  curl -H "Authorization: Bearer $(sed 's/.*token=//' ui.txt)" http://127.0.0.1:4040/api/calls`,
		Example: `  whsim inspect calls.ndjson
  whsim inspect calls.ndjson --ui 127.0.0.1:0 --ready-file ui.txt
  whsim inspect calls.ndjson --origin http://localhost:3000`,
		Args:              cmdutil.ExactArgs(1, "a capture file"),
		ValidArgsFunction: cmdutil.CompletePayloadFiles,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			opts.Token.Typed = cmd.Flags().Changed("ui-token")
			return runInspect(cmd.Context(), a, opts)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&opts.UI, "ui", "127.0.0.1:4040", "address the page is served on (127.0.0.1:0 picks a free port; a bare :port serves every interface)")
	f.StringVar(&opts.Origin, "origin", "http://127.0.0.1:8080", "where the calls were sent, for copied commands and HAR URLs")
	f.StringVar(&opts.ReadyFile, "ready-file", "", "write the page's URL (token included) to this file once serving (removed when inspect stops), for scripts to wait on")
	_ = cmd.RegisterFlagCompletionFunc("ready-file", cmdutil.CompleteFiles)
	inspector.TokenFlag(cmd, &opts.Token.Value)
	return cmd
}

func runInspect(ctx context.Context, a *cmdutil.App, opts *inspectOptions) error {
	if _, err := endpoint.ParseTarget(opts.Origin); err != nil {
		return cmdutil.Usagef("--origin %w", err)
	}
	if strings.ContainsAny(opts.Origin, "?#") {
		return cmdutil.Usagef("--origin %q: the call's path and query are added to it, so it takes none of its own (a query or fragment)", opts.Origin)
	}
	if err := opts.Token.Check(); err != nil {
		return err
	}
	if opts.ReadyFile != "" {
		if err := cmdutil.FileDir("--ready-file", opts.ReadyFile); err != nil {
			return cmdutil.UsageErr(err)
		}
		// The ready file is written by a rename onto its path and
		// removed at the stop: the capture went with it.
		if _, same := reportfile.NamesInput(opts.ReadyFile, []string{opts.File}); same {
			return cmdutil.Usagef("--ready-file %s: the capture inspect reads: the ready file is written in its place and removed at the stop, which would lose its records; give --ready-file a file of its own", opts.ReadyFile)
		}
	}
	v, err := validate.New(validate.Options{Shape: validate.ShapeAuto})
	if err != nil {
		return err
	}
	store, skipped, err := inspect.LoadFile(ctx, opts.File, a.Streams.In, inspect.DefaultWindow, v.CheckRecord)
	if err != nil {
		return cmp.Or(ctx.Err(), cmdutil.UsageErr(err))
	}
	pal := a.ErrColor
	name := termsafe.Text(ctxio.InputName(opts.File))
	for _, s := range skipped {
		// At its place, name:line: (name:line:column: of a line that
		// is not JSON), as replay, validate and anonymize say it.
		what := "skipped"
		_, big := errors.AsType[*input.TooLargeError](s.Err)
		switch {
		case s.ReplayWarned:
			// In replay's words, which say what becomes of it.
			fmt.Fprintf(a.Streams.Err, "%s %s\n", pal.Warn.Sprint("warning:"), termsafe.Text(capture.LineAt(name, s.Line, s.Err)))
			continue
		case big && s.Listed:
			what = "listed as too large to show"
		case s.Listed:
			what = "listed, its body shown as stored"
		}
		fmt.Fprintf(a.Streams.Err, "%s %s; %s\n", pal.Warn.Sprint("warning:"), termsafe.Text(capture.LineAt(name, s.Line, s.Err)), what)
	}
	if store.Last() == 0 && len(skipped) > 0 {
		// Every line was refused: bad input, not an empty capture. Said
		// as an empty one, exit 0, it read as a capture of no calls.
		return cmdutil.Usagef("%s holds no call inspect can show: %d %s skipped (the warnings above say why)",
			name, len(skipped), term.Plural(len(skipped), "line was", "lines were"))
	}
	if store.Last() == 0 {
		fmt.Fprintf(a.Streams.Err, "%s %s holds no calls: nothing to inspect\n", pal.Key.Sprint("whsim:"), name)
		return nil
	}
	ui, err := inspector.Start(ctx, a, opts.UI, inspect.Options{
		Store: store, Source: opts.File, Origin: strings.TrimRight(opts.Origin, "/"), Token: opts.Token.Value,
	})
	if err != nil {
		return err
	}
	if opts.ReadyFile != "" {
		// Gone as soon as inspect stops, as listen's: a script waiting
		// for the file never reads the URL of a stopped page.
		withdraw, err := ready.Announce(ctx, opts.ReadyFile, ui.URL)
		if err != nil {
			return cmdutil.Usagef("--ready-file: %w", err)
		}
		defer withdraw()
	}
	fmt.Fprintf(a.Streams.Err, "%s %s (%d %s from %s)\n", pal.OK.Sprint("inspector on"), opts.Token.Shown(a, ui), store.Last(), term.Plural(int(store.Last()), "call", "calls"), opts.File)
	return ui.Wait()
}
