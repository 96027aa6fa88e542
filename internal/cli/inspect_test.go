package cli

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/inspect"
	"github.com/whsim/whsim/internal/term/tty"
)

func TestInspectUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"inspect", filepath.Join(dir, "missing.ndjson"), "--ui", "127.0.0.1:0"}, "missing.ndjson"},
		{[]string{"inspect"}, "accepts 1 arg"},
		{[]string{"inspect", filepath.Join(dir, "x"), "--origin", "ftp://x"}, "--origin"},
		{[]string{"listen", "--addr", "127.0.0.1:0", "--ui", "nonsense"}, "--ui nonsense"},
		{[]string{"listen", "--addr", "127.0.0.1:8931", "--ui", "127.0.0.1:8931"}, "the webhook's address"},
	} {
		code, _, stderr := runCLI(t, tt.args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("whsim %s: exit %d, stderr %q; want %d and %q", strings.Join(tt.args, " "), code, stderr, ExitUsage, tt.want)
		}
	}
}

func TestInspectorWarnsOffLoopback(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		addr string
		warn bool
	}{{"127.0.0.1:0", false}, {":0", true}} {
		var errb bytes.Buffer
		a := &app{streams: Streams{Out: io.Discard, Err: &errb}, errColor: tty.Colors(false)}
		ctx, cancel := context.WithCancel(context.Background())
		ui, err := startInspector(ctx, a, tt.addr, inspect.Options{Store: inspect.NewStore(1)})
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
