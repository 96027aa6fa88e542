package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/cmdutil"
)

// Main installs its signal handling for every run that may wait, and for
// none of the instant ones, --version alone included.
func TestWaits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--version"}, false},
		{[]string{"version"}, false},
		{[]string{"events"}, false},
		{[]string{"schema", "--format", "openapi"}, false},
		{[]string{"man", "--dir", "x"}, true}, // the whole tree, as help
		{[]string{"send", "--url", "http://127.0.0.1:9/"}, true},
		{[]string{"listen"}, true},
		{[]string{"validate", "-"}, true},
		{[]string{"generate"}, true},
		{[]string{"--version", "send"}, false},  // cobra prints the version
		{[]string{"--version", "--help"}, true}, // help: the whole tree
		{[]string{"help"}, true},
		{[]string{"bogus"}, true},
		{nil, true},
	} {
		if got := waits(commandNamed(tc.args)); got != tc.want {
			t.Errorf("waits(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// --version with --help (or -h) is help, as cobra gives it: the root's
// usage with every command, not the root alone with none.
func TestVersionWithHelpDescribesTheTree(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--version", "--help"}, {"--version", "-h"}, {"--help", "--version"}} {
		var out, errOut bytes.Buffer
		a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errOut},
			Build{Version: "v1.2.3"}, time.Now)
		if code := Execute(context.Background(), a, args); code != cmdutil.ExitOK {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errOut.String())
		}
		for _, want := range []string{"Usage:\n  whsim [command]", "Available Commands:", "\n  send "} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%q: help lacks %q:\n%s", args, want, out.String())
			}
		}
	}
}
