package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/endpoint"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/inspect"
	"github.com/whsim/whsim/internal/ready"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/replay"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/validate"
)

type inspectOptions struct {
	File      string
	UI        string
	Token     uiToken
	Origin    string
	ReadyFile string
}

func newInspectCmd(a *cmdutil.App) *cobra.Command {
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
a script, send the token (in the URL --ready-file holds) as a header:
  curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:4040/api/calls`,
		Example: `  whsim inspect calls.ndjson
  whsim inspect calls.ndjson --ui 127.0.0.1:0 --ready-file ui.txt
  whsim inspect calls.ndjson --origin http://localhost:3000`,
		Args: cmdutil.ExactArgs(1, "a capture file"),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"ndjson", "json"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			opts.Token.typed = cmd.Flags().Changed("ui-token")
			return runInspect(cmd.Context(), a, opts)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&opts.UI, "ui", "127.0.0.1:4040", "address the page is served on (:0 picks a free port)")
	f.StringVar(&opts.Origin, "origin", "http://127.0.0.1:8080", "where the calls were sent, for copied commands and HAR URLs")
	f.StringVar(&opts.ReadyFile, "ready-file", "", "write the page's URL (token included) to this file once serving (removed when inspect stops), for scripts to wait on")
	uiTokenFlag(cmd, &opts.Token.value)
	return cmd
}

func runInspect(ctx context.Context, a *cmdutil.App, opts *inspectOptions) error {
	if _, err := endpoint.ParseTarget(opts.Origin); err != nil {
		return cmdutil.Usagef("--origin %w", err)
	}
	if err := opts.Token.check(); err != nil {
		return err
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
		if _, big := errors.AsType[*input.TooLargeError](s.Err); big {
			fmt.Fprintf(a.Streams.Err, "%s %s: %s; skipped\n", pal.Warn.Sprint("warning:"), name, s.Err)
			continue
		}
		fmt.Fprintf(a.Streams.Err, "%s %s: line %d: %s; skipped\n", pal.Warn.Sprint("warning:"), name, s.Line, termsafe.Text(s.Err.Error()))
	}
	if store.Last() == 0 {
		fmt.Fprintf(a.Streams.Err, "%s %s holds no calls: nothing to inspect\n", pal.Key.Sprint("whsim:"), name)
		return nil
	}
	ui, err := startInspector(ctx, a, opts.UI, inspect.Options{
		Store: store, Source: opts.File, Origin: strings.TrimRight(opts.Origin, "/"), Token: opts.Token.value,
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
	fmt.Fprintf(a.Streams.Err, "%s %s (%d calls from %s)\n", pal.OK.Sprint("inspector on"), opts.Token.shown(a, ui), store.Last(), opts.File)
	return ui.Wait()
}

// uiToken is --ui-token: the inspector's session token when the user
// chose one, so a bookmark or a script knows it before the run.
type uiToken struct {
	value string
	typed bool // on the command line, not from WHSIM_UI_TOKEN or the config file
}

func uiTokenFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "ui-token", "", fmt.Sprintf("the inspector's session token, for a bookmark or a script: %d or more letters, digits, -._~ (also WHSIM_UI_TOKEN; default: drawn per run)", inspect.MinTokenLen))
	_ = cmd.RegisterFlagCompletionFunc("ui-token", cobra.NoFileCompletions)
}

// check refuses a token too short or too simple to guard the calls.
func (t uiToken) check() error {
	if t.value == "" {
		return nil
	}
	if err := inspect.CheckToken(t.value); err != nil {
		if !t.typed {
			return cmdutil.Usagef("--ui-token (from WHSIM_UI_TOKEN, WHSIM_<COMMAND>_UI_TOKEN or the config file): %w", err)
		}
		return cmdutil.Usagef("--ui-token: %w", err)
	}
	return nil
}

// shown is the page's URL as printed on stderr. A token from the
// environment or the config file is long-lived and a log (CI) keeps what
// it is shown, so off a terminal it is masked; on a terminal, and when
// typed or drawn, the URL is whole, to click. --ready-file has it whole.
func (t uiToken) shown(a *cmdutil.App, ui *inspect.UI) string {
	if t.value == "" || t.typed || a.Streams.ErrTTY {
		return ui.URL
	}
	return strings.Replace(ui.URL, t.value, "****", 1) + " (the token is --ui-token's, set in the environment or the config file)"
}

// startInspector serves the inspector, headers masked and replay on, on
// addr until ctx is done, and warns when other machines can reach it.
func startInspector(ctx context.Context, a *cmdutil.App, addr string, opts inspect.Options) (*inspect.UI, error) {
	opts.Mask = termsafe.MaskHeaders
	opts.Replay = replay.One
	opts.Version = a.Build.Resolve().Version
	ui, err := inspect.Start(ctx, addr, opts)
	if err != nil {
		return nil, cmdutil.AddrError("--ui", addr, err)
	}
	if !receiver.LoopbackOnly(ui.Addr) {
		fmt.Fprintf(a.Streams.Err, "%s inspector on %s: every network interface, anyone who can reach this machine can read the calls and replay them (use --ui 127.0.0.1:%d to keep it local)\n",
			a.ErrColor.Warn.Sprint("warning:"), ui.Addr, ui.Addr.Port)
	}
	return ui, nil
}
