package config

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// flags are flags of each kind a config value may set.
func flags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("generate", pflag.ContinueOnError)
	fs.Uint64("seed", 0, "")
	fs.IntP("count", "n", 1, "")
	fs.Float64("rate", 0, "")
	fs.Bool("verbose", false, "")
	fs.Duration("timeout", time.Second, "")
	fs.String("url", "", "")
	fs.StringSlice("event", nil, "") // a list of names: takes a,b
	fs.StringArray("set", nil, "")   // values that may hold commas
	return fs
}

// value is a flag's value as its command reads it.
func value(fs *pflag.FlagSet, name string) string {
	f := fs.Lookup(name)
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		return strings.Join(sv.GetSlice(), "|")
	}
	return f.Value.String()
}

func TestFileSet(t *testing.T) {
	tests := []struct {
		body, key, want, err string
	}{
		{body: "seed: 42\n", key: "seed", want: "42"},
		{body: "generate:\n  seed: 7\n", key: "generate.seed", want: "7"},
		{body: "timeout: 1m30s\n", key: "timeout", want: "1m30s"},
		{body: "verbose: yes\n", key: "verbose", err: `config file F, line 1: verbose: "yes": want true or false`},
		{body: "verbose: true\n", key: "verbose", want: "true"},
		{body: "url: http://x/a,b\n", key: "url", want: "http://x/a,b"},
		{body: "event: [A, B]\n", key: "event", want: "A|B"},
		{body: "event: A,B\n", key: "event", want: "A|B"},
		{body: "event:\n  - A\n  - B\n", key: "event", want: "A|B"},
		{body: "set: [\"x=a, b\", y=2]\n", key: "set", want: "x=a, b|y=2"},
		{body: "set: x=a, b\n", key: "set", want: "x=a, b"},
		{body: "url: &e A\nevent: [*e, B]\n", key: "event", want: "A|B"},
		{body: "# the line counts\nseed: abc\n", key: "seed", err: `config file F, line 2: seed: "abc": want a whole number, 0 or more`},
		{body: "seed: -3\n", key: "seed", err: `config file F, line 1: seed: "-3": want a whole number, 0 or more`},
		{body: "count: x\n", key: "count", err: `config file F, line 1: count: "x": want a whole number`},
		{body: "rate: x\n", key: "rate", err: `config file F, line 1: rate: "x": want a number`},
		{body: "timeout: soon\n", key: "timeout", err: `config file F, line 1: timeout: "soon": want a duration such as 500ms, 10s or 1m30s`},
		{body: "timeout: 9999999h\n", key: "timeout", err: `config file F, line 1: timeout: "9999999h": too large: a duration is at most 2562047h47m16s`},
		{body: "seed:\n", key: "seed", err: "config file F, line 1: seed: no value (give one, or remove the key)"},
		{body: "seed: [1, 2]\n", key: "seed", err: "config file F, line 1: seed: want one value, got a list"},
		{body: "seed: {a: 1}\n", key: "seed", err: "config file F, line 1: seed: want a value, got a mapping"},
		{body: "event:\n  - [A]\n", key: "event", err: "config file F, line 2: event: line 2: want a value, got a nested list or mapping"},
		// a header written unquoted in a list is a mapping to YAML: quote it
		{body: "set:\n  - X-Env: dev\n", key: "set", err: `config file F, line 2: set: line 2: want a value, got the mapping X-Env: dev: quote it, "X-Env: dev" (YAML reads a colon and a space as a key's end)`},
		{body: "set: [X-Env: dev]\n", key: "set", err: `config file F, line 1: set: line 1: want a value, got the mapping X-Env: dev: quote it, "X-Env: dev" (YAML reads a colon and a space as a key's end)`},
	}
	root := Section{Name: "whsim", Subs: []Section{{Name: "generate"}}}
	flags().VisitAll(func(f *pflag.Flag) {
		root.Subs[0].Flags = append(root.Subs[0].Flags, f.Name)
		root.Flags = append(root.Flags, f.Name)
	})
	for _, tt := range tests {
		name := write(t, tt.body)
		file, err := Load(name, root)
		if err != nil {
			t.Fatalf("%q: %v", tt.body, err)
		}
		if !file.Has(tt.key) {
			t.Fatalf("%q: no key %s", tt.body, tt.key)
		}
		fs := flags()
		err = file.Set(fs.Lookup(strings.TrimPrefix(tt.key, "generate.")), tt.key)
		if tt.err != "" {
			if want := strings.ReplaceAll(tt.err, "F", name); err == nil || err.Error() != want {
				t.Errorf("%q: error %v, want %q", tt.body, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.body, err)
		} else if got := value(fs, strings.TrimPrefix(tt.key, "generate.")); got != tt.want {
			t.Errorf("%q: %s = %q, want %q", tt.body, tt.key, got, tt.want)
		}
	}
	var none *File
	if none.Has("seed") {
		t.Error("a nil File has keys")
	}
}

func TestSetEnv(t *testing.T) {
	tests := []struct {
		flag, val, want, err string
	}{
		{flag: "seed", val: "42", want: "42"},
		{flag: "seed", val: "soon", err: `"soon": want a whole number, 0 or more`},
		{flag: "seed", val: "[1, 2]", err: `"[1, 2]": want a whole number, 0 or more`},
		{flag: "url", val: "[x", want: "[x"},
		{flag: "event", val: "A", want: "A"},
		{flag: "event", val: "A,B", want: "A|B"},
		{flag: "event", val: " [A, B]", want: "A|B"},
		{flag: "event", val: `["A", "B"]`, want: "A|B"},
		{flag: "event", val: "[A, B", want: "[A|B"}, // not a list: text, split on commas
		// names never hold a space: WHSIM_EVENT='A, B' was " B", unknown
		{flag: "event", val: "A, B", want: "A|B"},
		{flag: "event", val: " A ,B ", want: "A|B"},
		{flag: "set", val: "x=a, b", want: "x=a, b"},
		{flag: "set", val: `["x=a, b", "y=2"]`, want: "x=a, b|y=2"},
		{flag: "verbose", val: "maybe", err: `"maybe": want true or false`},
		{flag: "set", val: "[X-Env: dev]", err: `"[X-Env: dev]": want a list of values, got the mapping X-Env: dev in it: quote it, ["X-Env: dev"] (YAML reads a colon and a space as a key's end)`},
		{flag: "set", val: "[a=1, X-Env: dev]", err: `"[a=1, X-Env: dev]": want a list of values, got the mapping X-Env: dev in it: quote it, ["X-Env: dev"] (YAML reads a colon and a space as a key's end)`},
		{flag: "set", val: `["X-Env: dev"]`, want: "X-Env: dev"},
	}
	for _, tt := range tests {
		fs := flags()
		err := SetEnv(fs.Lookup(tt.flag), tt.val)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s=%q: error %v, want %q", tt.flag, tt.val, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s=%q: %v", tt.flag, tt.val, err)
		} else if got := value(fs, tt.flag); got != tt.want {
			t.Errorf("%s=%q: %q, want %q", tt.flag, tt.val, got, tt.want)
		}
	}
}

// Explain rewrites pflag's own parse errors, so the cases parse real
// command lines.
func TestExplain(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--coutn", "3"}, "unknown flag: --coutn (did you mean --count?)"},
		{[]string{"--ur=x"}, "unknown flag: --ur (did you mean --url?)"},
		{[]string{"--zzzzzz"}, "unknown flag: --zzzzzz"},
		{[]string{"--seed", "-3"}, `invalid argument "-3" for "--seed": want a whole number, 0 or more`},
		{[]string{"-n", "x"}, `invalid argument "x" for "--count": want a whole number`},
		{[]string{"--timeout", "soon"}, `invalid argument "soon" for "--timeout": want a duration such as 500ms, 10s or 1m30s`},
		{[]string{"--verbose=maybe"}, `invalid argument "maybe" for "--verbose": want true or false`},
		// Well formed but too large to hold: say so, and the limit.
		{[]string{"--timeout", "9999999h"}, `invalid argument "9999999h" for "--timeout": too large: a duration is at most 2562047h47m16s`},
		{[]string{"--timeout", "1h9999999999999999999s"}, `invalid argument "1h9999999999999999999s" for "--timeout": too large: a duration is at most 2562047h47m16s`},
		{[]string{"--timeout", "9999999x"}, `invalid argument "9999999x" for "--timeout": want a duration such as 500ms, 10s or 1m30s`},
		{[]string{"--seed", "99999999999999999999"}, `invalid argument "99999999999999999999" for "--seed": too large: want a whole number up to 18446744073709551615`},
		{[]string{"-n", "99999999999999999999"}, `invalid argument "99999999999999999999" for "--count": too large: want a whole number up to 9223372036854775807`},
		{[]string{"-n", "-99999999999999999999"}, `invalid argument "-99999999999999999999" for "--count": too small: want a whole number down to -9223372036854775808`},
		// pflag quoted the value once: it is quoted once, a tab as \t, not \\t.
		{[]string{"-n", "a\tb"}, `invalid argument "a\tb" for "--count": want a whole number`},
		{[]string{"-n", `"q"`}, `invalid argument "\"q\"" for "--count": want a whole number`},
		{[]string{"-x"}, "unknown shorthand flag: 'x' in -x"},
		{[]string{"--url"}, "flag needs an argument: --url"},
	}
	for _, tt := range tests {
		fs := flags()
		fs.SetOutput(new(strings.Builder))
		err := fs.Parse(tt.args)
		if err == nil {
			t.Fatalf("%q: parsed", tt.args)
		}
		if got := Explain(fs, err.Error()); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.args, got, tt.want)
		}
	}
}
