package cmdutil

import "testing"

func TestSayFlagSources(t *testing.T) {
	t.Parallel()
	a := &App{
		CommandLine: map[string]bool{"event": true},
		FlagSources: map[string]string{"shape": "environment WHSIM_GENERATE_SHAPE", "count": "config file whsim.yaml, line 3"},
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
