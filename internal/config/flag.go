package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/whsim/whsim/internal/suggest"
)

func setNode(f *pflag.Flag, n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return errors.New("no value (give one, or remove the key)")
		}
		return set(f, n.Value)
	case yaml.SequenceNode:
		items := make([]string, 0, len(n.Content))
		for _, it := range n.Content {
			if it.Kind == yaml.AliasNode {
				it = it.Alias
			}
			if pair := unquotedPair(it); pair != "" {
				return fmt.Errorf("line %d: want a value, got the mapping %s: quote it, %q (YAML reads a colon and a space as a key's end)", it.Line, pair, pair)
			}
			if it.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: want a value, got a nested list or mapping", it.Line)
			}
			items = append(items, it.Value)
		}
		return set(f, items)
	}
	return errors.New("want a value, got a mapping")
}

// unquotedPair is "Name: value" when n is a mapping of one key to one
// value, as YAML reads a header written unquoted in a list (- X-Env: dev),
// else "".
func unquotedPair(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 || n.Content[0].Kind != yaml.ScalarNode || n.Content[1].Kind != yaml.ScalarNode {
		return ""
	}
	return n.Content[0].Value + ": " + n.Content[1].Value
}

// SetEnv sets f from an environment variable's value. Lists take the config
// file's syntax, [a, b] (a YAML flow sequence, or JSON), for every
// repeatable flag; a flag of names (such as --event) also takes a,b.
func SetEnv(f *pflag.Flag, val string) error {
	if _, ok := f.Value.(pflag.SliceValue); ok && strings.HasPrefix(strings.TrimSpace(val), "[") {
		var items []string
		if err := yaml.Unmarshal([]byte(val), &items); err == nil {
			return set(f, items)
		}
		// [X-Env: dev] is a list holding a mapping, not the header
		// it looks like: say how to quote it rather than take the
		// whole text as one value.
		var list yaml.Node
		if yaml.Unmarshal([]byte(val), &list) == nil && len(list.Content) == 1 && list.Content[0].Kind == yaml.SequenceNode {
			for _, it := range list.Content[0].Content {
				if pair := unquotedPair(it); pair != "" {
					return fmt.Errorf("%q: want a list of values, got the mapping %s in it: quote it, [%q] (YAML reads a colon and a space as a key's end)", val, pair, pair)
				}
			}
		}
	}
	return set(f, val)
}

// set sets a flag from a string or a list ([]string). Text for a flag of
// names (--event) splits on commas; a --set or --header value may hold
// commas itself and does not.
func set(f *pflag.Flag, val any) error {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		items, ok := val.([]string)
		if !ok {
			items = []string{val.(string)}
			if f.Value.Type() == "stringSlice" {
				// A name holds no space: "A, B" is A and B.
				items = strings.Split(items[0], ",")
				for i := range items {
					items[i] = strings.TrimSpace(items[i])
				}
			}
		}
		return sv.Replace(items)
	}
	s, ok := val.(string)
	if !ok {
		return errors.New("want one value, got a list")
	}
	if err := f.Value.Set(s); err != nil {
		if want := wantValue(f, s); want != "" {
			return fmt.Errorf("%q: %s", s, want)
		}
		return fmt.Errorf("%q: %w", s, err)
	}
	return nil
}

// wantValue says in words what a flag of a standard type takes instead of
// s, "" for the types whose own errors already say so. A number or
// duration too large to hold is told so, with the limit: "want a
// duration" of a well-formed 9999999h would send the user looking for a
// typo. A value of whsim's own type says itself what it wants (Wanter).
func wantValue(f *pflag.Flag, s string) string {
	if w, ok := f.Value.(Wanter); ok {
		if want := w.Want(s); want != "" {
			return want
		}
	}
	switch t := f.Value.Type(); {
	case strings.HasPrefix(t, "uint"):
		if _, err := strconv.ParseUint(s, 0, bitsOf(t)); errors.Is(err, strconv.ErrRange) {
			return fmt.Sprintf("too large: want a whole number up to %d", uint64(math.MaxUint64)>>(64-bitsOf(t)))
		}
		return "want a whole number, 0 or more"
	case strings.HasPrefix(t, "int"):
		if _, err := strconv.ParseInt(s, 0, bitsOf(t)); errors.Is(err, strconv.ErrRange) {
			limit := int64(math.MaxInt64) >> (64 - bitsOf(t))
			if strings.HasPrefix(s, "-") {
				return fmt.Sprintf("too small: want a whole number down to %d", -limit-1)
			}
			return fmt.Sprintf("too large: want a whole number up to %d", limit)
		}
		return "want a whole number"
	case strings.HasPrefix(t, "float"):
		return "want a number"
	case t == "bool":
		return "want true or false"
	case t == "duration":
		if regexp.MustCompile(durationSyntax).MatchString(s) {
			// Well formed, so time.ParseDuration refused it for
			// overflowing an int64 of nanoseconds.
			return "too large: a duration is at most " + time.Duration(math.MaxInt64).Truncate(time.Second).String()
		}
		return "want a duration such as 500ms, 10s or 1m30s"
	}
	return ""
}

// Wanter is a flag value that says what it takes instead of a value it
// refused ("want a file name, not blanks"), as wantValue says it for the
// standard types; "" leaves it to the words for its type.
type Wanter interface{ Want(s string) string }

// durationSyntax is what time.ParseDuration reads, whatever the numbers'
// size: a sign, then one or more numbers, each with its unit. Compiled
// when a duration is refused, not at every start (#35).
const durationSyntax = `^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+$`

// bitsOf is the size of the integer flag type t ("int", "uint16").
func bitsOf(t string) int {
	if n, err := strconv.Atoi(strings.TrimLeft(t, "uint")); err == nil {
		return n
	}
	return strconv.IntSize
}

// The errors pflag returns that are reworded, compiled when one is, not at
// every start (#35).
const (
	unknownFlag = `^unknown flag: --([^\s=]+)`
	badArgument = `^invalid argument "(.*)" for "(?:-\S, )?--([^"]+)" flag: `
)

// Explain rewrites a pflag parse error of flags for people, in the words
// of the config errors: an unknown flag gets the nearest of flags, and a
// bad number or duration says what it wants instead of quoting strconv.
// Other messages are returned as they are.
func Explain(flags *pflag.FlagSet, msg string) string {
	if m := regexp.MustCompile(unknownFlag).FindStringSubmatch(msg); m != nil {
		var names []string
		flags.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if c, ok := suggest.Closest(m[1], names); ok {
			msg += fmt.Sprintf(" (did you mean --%s?)", c)
		}
	} else if m := regexp.MustCompile(badArgument).FindStringSubmatch(msg); m != nil {
		// pflag quoted the value (%q): it is read back before it is
		// judged and quoted again, or a tab was said as \\t.
		val, err := strconv.Unquote(`"` + m[1] + `"`)
		if f := flags.Lookup(m[2]); f != nil && err == nil {
			if want := wantValue(f, val); want != "" {
				msg = fmt.Sprintf("invalid argument %q for \"--%s\": %s", val, f.Name, want)
			}
		}
	}
	return msg
}
