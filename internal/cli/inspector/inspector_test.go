package inspector

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/inspect"
	"github.com/whsim/whsim/internal/term/tty"
)

func TestInspectorWarnsOffLoopback(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		addr string
		warn bool
	}{{"127.0.0.1:0", false}, {":0", true}} {
		var errb bytes.Buffer
		a := &cmdutil.App{Streams: cmdutil.Streams{Out: io.Discard, Err: &errb}, ErrColor: tty.Colors(false)}
		ctx, cancel := context.WithCancel(context.Background())
		ui, err := Start(ctx, a, tt.addr, inspect.Options{Store: inspect.NewStore(1)})
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := ui.Wait(); err != nil {
			t.Errorf("%s: serve: %v", tt.addr, err)
		}
		if got := strings.Contains(errb.String(), "warning: inspector on"); got != tt.warn || !(strings.HasPrefix(ui.URL, "http://127.0.0.1:") || strings.HasPrefix(ui.URL, "http://[::1]:")) {
			t.Errorf("--ui %s: url %s, stderr %q (want a warning: %v)", tt.addr, ui.URL, errb.String(), tt.warn)
		}
	}
}

// A chosen token is refused when weak, whatever set it, and the printed
// URL hides one the environment or config set, except on a terminal.
func TestUIToken(t *testing.T) {
	const good = "3f9c2a7b1e5d4c8a9b0f6e2d1c3a5b7e"
	for _, tt := range []struct {
		tok     Token
		errTTY  bool
		refused string // a piece of the usage error, "" for none
		shown   string
	}{
		{tok: Token{}, shown: "http://127.0.0.1:4040/?token=drawn-one"},
		{tok: Token{Value: good, Typed: true}, shown: "http://127.0.0.1:4040/?token=" + good},
		{tok: Token{Value: good}, shown: "http://127.0.0.1:4040/?token=**** (the token is --ui-token's, set in the environment or the config file)"},
		{tok: Token{Value: good}, errTTY: true, shown: "http://127.0.0.1:4040/?token=" + good},
		{tok: Token{Value: "short", Typed: true}, refused: "--ui-token: 5 characters"},
		{tok: Token{Value: "short"}, refused: "--ui-token (from WHSIM_UI_TOKEN"},
		{tok: Token{Typed: true}, refused: "--ui-token is empty"},
	} {
		err := tt.tok.Check()
		if tt.refused != "" {
			if err == nil || !strings.Contains(err.Error(), tt.refused) || cmdutil.CodeOf(err, true) != cmdutil.ExitUsage {
				t.Errorf("%+v: error %v, want a usage error saying %q", tt.tok, err, tt.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v refused: %v", tt.tok, err)
		}
		tok := cmp.Or(tt.tok.Value, "drawn-one")
		ui := &inspect.UI{URL: "http://127.0.0.1:4040/?token=" + tok, Token: tok}
		a := cmdutil.NewApp(cmdutil.Streams{ErrTTY: tt.errTTY}, cmdutil.Build{}, nil)
		if got := tt.tok.Shown(a, ui); got != tt.shown {
			t.Errorf("%+v, terminal %v: shown %q, want %q", tt.tok, tt.errTTY, got, tt.shown)
		}
	}
}
