package cmdutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/config"
)

func TestSayFlagSources(t *testing.T) {
	t.Parallel()
	a := &App{
		CommandLine: map[string]bool{"event": true},
		FlagSources: map[string]string{"shape": "environment WHSIM_GENERATE_SHAPE", "count": "config file whsim.yaml, line 3", "header": "config file whsim.yaml, line 2", "event": "environment WHSIM_EVENT"},
		Shorthands:  map[string]string{"H": "header", "e": "event"},
	}
	tests := []struct{ msg, want string }{
		{`--shape: unknown shape "x"`, `--shape: unknown shape "x" (--shape came from environment WHSIM_GENERATE_SHAPE)`},
		{"--count 0: want at least 1", "--count 0: want at least 1 (--count came from config file whsim.yaml, line 3)"},
		// each flag once, in the order the message names them
		{"--shape and --count clash (--shape wins)", "--shape and --count clash (--shape wins) (--shape came from environment WHSIM_GENERATE_SHAPE) (--count came from config file whsim.yaml, line 3)"},
		// typed, or not set by the environment or the file: nothing to add
		{"--event: unknown event", "--event: unknown event"},
		{"--seed: bad", "--seed: bad"},
		// a word that only contains --shape is no flag
		{"x--shape", "x--shape"},
		// a shorthand, named as the message names it (found by hunt48:
		// "-H would go to the report's URL" said nothing of the file)
		{"--rerun r.json: -H would go to the report's URL", "--rerun r.json: -H would go to the report's URL (-H came from config file whsim.yaml, line 2)"},
		{"-H and --shape: x", "-H and --shape: x (-H came from config file whsim.yaml, line 2) (--shape came from environment WHSIM_GENERATE_SHAPE)"},
		// a shorthand typed, unknown, or inside a word or longer one: nothing
		{"-e: bad", "-e: bad"},
		{"-k: bad", "-k: bad"},
		{"x-H y", "x-H y"},
		{"-Hx y", "-Hx y"},
	}
	for _, tt := range tests {
		if got := a.SayFlagSources(tt.msg); got != tt.want {
			t.Errorf("SayFlagSources(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
	if got := (&App{}).SayFlagSources("--shape: x"); got != "--shape: x" {
		t.Errorf("no sources: %q", got)
	}
}

// Given counts a value from WHSIM_* or the config file as given, as one
// typed; OnCommandLine only the typed one.
func TestGiven(t *testing.T) {
	t.Parallel()
	a := &App{
		CommandLine: map[string]bool{"event": true},
		FlagSources: map[string]string{"count": "environment WHSIM_SEND_COUNT"},
	}
	for _, tt := range []struct {
		name         string
		given, typed bool
	}{
		{"event", true, true},
		{"count", true, false},
		{"seed", false, false},
	} {
		if got := a.Given(tt.name); got != tt.given {
			t.Errorf("Given(%q) = %v, want %v", tt.name, got, tt.given)
		}
		if got := a.OnCommandLine(tt.name); got != tt.typed {
			t.Errorf("OnCommandLine(%q) = %v, want %v", tt.name, got, tt.typed)
		}
	}
	if (&App{}).Given("count") {
		t.Error("an App before its flags were read gives nothing")
	}
}

// checkValues refuses a value no flag of its key takes, whichever command
// runs: a section's key against its command's flag, a bare key against
// every flag of its name, good when one takes it.
func TestCheckValues(t *testing.T) {
	t.Parallel()
	tree := func() *cobra.Command {
		root := &cobra.Command{Use: "whsim"}
		send := &cobra.Command{Use: "send"}
		send.Flags().Duration("timeout", 0, "")
		send.Flags().Int("count", 1, "")
		gen := &cobra.Command{Use: "generate"}
		gen.Flags().String("count", "", "") // a bare count: text here, a number in send
		root.AddCommand(send, gen)
		return root
	}
	for _, tt := range []struct{ name, yaml, want string }{
		{"good", "send:\n  timeout: 5s\ncount: 3\n", ""},
		{"a section's bad value", "send:\n  timeout: soon\n", `config file whsim.yaml, line 2: send.timeout: "soon": want a duration such as 500ms, 10s or 1m30s`},
		{"a bare key one flag takes", "count: some\n", ""},
		{"a bare key no flag takes", "timeout: soon\n", `config file whsim.yaml, line 1: timeout: "soon": want a duration such as 500ms, 10s or 1m30s`},
		{"each bad value", "send:\n  timeout: soon\n  count: many\n", "config file whsim.yaml, line 2: send.timeout: \"soon\": want a duration such as 500ms, 10s or 1m30s\nconfig file whsim.yaml, line 3: send.count: \"many\": want a whole number"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			name := filepath.Join(t.TempDir(), "whsim.yaml")
			if err := os.WriteFile(name, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			root := tree()
			file, err := config.Load(name, configSection(root))
			if err != nil {
				t.Fatal(err)
			}
			got := errors.Join(checkValues(file, root, nil)...)
			msg := ""
			if got != nil {
				msg = strings.ReplaceAll(got.Error(), name, "whsim.yaml")
			}
			if msg != tt.want {
				t.Errorf("checkValues:\n got %q\nwant %q", msg, tt.want)
			}
		})
	}
}
