// Package inspector is the web inspector as inspect and listen --ui start
// it: --ui-token, the URL as printed, and the warning when other machines
// can reach it.
package inspector

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/inspect"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/replay"
	"github.com/whsim/whsim/internal/termsafe"
)

// Token is --ui-token: the inspector's session token when the user
// chose one, so a bookmark or a script knows it before the run.
type Token struct {
	Value string
	Typed bool // on the command line, not from WHSIM_UI_TOKEN or the config file
}

// TokenFlag declares --ui-token.
func TokenFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "ui-token", "", fmt.Sprintf("the inspector's session token, for a bookmark or a script: %d or more letters, digits, -._~ (also WHSIM_UI_TOKEN; default: drawn per run)", inspect.MinTokenLen))
	_ = cmd.RegisterFlagCompletionFunc("ui-token", cobra.NoFileCompletions)
}

// Check refuses a token too short or too simple to guard the calls.
func (t Token) Check() error {
	if t.Value == "" {
		if t.Typed {
			// --ui-token "$(cat token-file)" with the file missing: a
			// drawn token would break the bookmark without a word.
			return cmdutil.Usagef("--ui-token is empty (a token file that could not be read?): give %d or more letters, digits, -._~, or leave the flag out for a token drawn per run", inspect.MinTokenLen)
		}
		return nil
	}
	if err := inspect.CheckToken(t.Value); err != nil {
		if !t.Typed {
			return cmdutil.Usagef("--ui-token (from WHSIM_UI_TOKEN, WHSIM_<COMMAND>_UI_TOKEN or the config file): %w", err)
		}
		return cmdutil.Usagef("--ui-token: %w", err)
	}
	return nil
}

// Shown is the page's URL as printed on stderr. A token from the
// environment or the config file is long-lived and a log (CI) keeps what
// it is shown, so off a terminal it is masked; on a terminal, and when
// typed or drawn, the URL is whole, to click. --ready-file has it whole.
func (t Token) Shown(a *cmdutil.App, ui *inspect.UI) string {
	if t.Value == "" || t.Typed || a.Streams.ErrTTY {
		return ui.URL
	}
	return strings.Replace(ui.URL, t.Value, "****", 1) + " (the token is --ui-token's, set in the environment or the config file)"
}

// Start serves the inspector, headers masked and replay on (replay.One
// unless opts has its own), on
// addr until ctx is done, and warns when other machines can reach it.
func Start(ctx context.Context, a *cmdutil.App, addr string, opts inspect.Options) (*inspect.UI, error) {
	opts.Mask = termsafe.MaskHeaders
	if opts.Replay == nil {
		opts.Replay = replay.One
	}
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
