package cmdutil

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// notRun is what a command does when its run never began (WhenNotRun).
type notRun struct {
	flags  []string
	finish func(err error, words []string) error
}

// WhenNotRun sets what cmd does when its run never begins because cobra
// refused a flag or the config could not be read (exit 2): finish gets
// that error and returns the run's, as a run that refused a flag itself
// would. The files a CI job keeps (--junit, --report) are written saying
// why, not left from an earlier run to be read as this one's. flags names
// the flags finish reads: those the command line sets after the one
// refused, which cobra never reached, are read from it first. words are
// the command line's other words: the arguments cobra never read are
// among them, and a file the run would read is never written over.
func (a *App) WhenNotRun(cmd *cobra.Command, flags []string, finish func(err error, words []string) error) {
	if a.notRun == nil {
		a.notRun = map[*cobra.Command]notRun{}
	}
	a.notRun[cmd] = notRun{flags: flags, finish: finish}
}

// NotRun ends cmd, whose run never began, with err (see WhenNotRun); args
// is the whole command line, tree builds the whole command tree (as
// LoadConfig takes it).
func (a *App) NotRun(cmd *cobra.Command, args []string, err error, tree func() *cobra.Command) error {
	n, ok := a.notRun[cmd]
	if !ok {
		return err
	}
	// --config too: the file that may name the others.
	readUnreached(cmd.Flags(), args, append(slices.Clip(n.flags), "config"))
	if a.FlagSources == nil {
		// cobra refused a flag before the root read the environment and
		// the config file, or the file could not be used: a --junit set
		// only in WHSIM_JUNIT (or in the file, for a refused flag) was
		// never set, and a CI job read last build's file as this one's.
		// Their errors are not this run's: the first error is.
		_, _ = loadConfig(cmd, a.ConfigPath, tree, n.flags)
	}
	return n.finish(err, wordsBut(cmd.Flags(), args, n.flags))
}

// wordsBut is args without the flags named and their values.
func wordsBut(fs *pflag.FlagSet, args []string, names []string) []string {
	named := func(word string) (f *pflag.Flag, inline bool) {
		name, _, inline := strings.Cut(strings.TrimLeft(word, "-"), "=")
		switch {
		case strings.HasPrefix(word, "--"):
			f = fs.Lookup(name)
		case strings.HasPrefix(word, "-") && len(name) == 1:
			f = fs.ShorthandLookup(name)
		}
		if f == nil || !slices.Contains(names, f.Name) {
			return nil, false
		}
		return f, inline
	}
	var words []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--" {
			return append(words, args[i+1:]...)
		}
		if f, inline := named(args[i]); f != nil {
			if !inline {
				i++ // its value
			}
			continue
		}
		words = append(words, args[i])
	}
	return words
}

// readUnreached sets each of names that fs did not get (its parse stopped
// at a flag it refused) from args, read by a parse that knows only those
// flags and steps over every other, with its value when it has one. A
// command line that does not give one of them plainly leaves it unset.
func readUnreached(fs *pflag.FlagSet, args []string, names []string) {
	only := pflag.NewFlagSet("unreached", pflag.ContinueOnError)
	only.SetOutput(io.Discard)
	only.ParseErrorsAllowlist.UnknownFlags = true
	for _, name := range names {
		if f := fs.Lookup(name); f != nil && !f.Changed {
			only.StringP(name, f.Shorthand, "", "")
		}
	}
	if !only.HasFlags() || only.Parse(args) != nil {
		return
	}
	only.Visit(func(f *pflag.Flag) { _ = fs.Set(f.Name, f.Value.String()) })
}
