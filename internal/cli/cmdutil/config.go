package cmdutil

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/whsim/whsim/internal/config"
)

// EnvPrefix prefixes the environment variables whsim reads: WHSIM_SEED,
// WHSIM_SEND_URL.
const EnvPrefix = "WHSIM"

// ConfigName is the config file whsim looks for in the working directory and
// in the user config directory (…/whsim/whsim.yaml).
const ConfigName = "whsim.yaml"

// readsConfig says whether a command takes values from the environment and
// the config file: those that only describe whsim work with a broken one,
// and so does ready, a health check that must not fail for a file it does
// not need, and so does completing a command line (what a shell's TAB
// asks), whose answers come from the catalog, not from flag values.
func readsConfig(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "version", "man", "help", "completion", "ready",
			cobra.ShellCompRequestCmd, cobra.ShellCompNoDescRequestCmd:
			return false
		}
	}
	return true
}

// LoadConfig copies values from the environment and the config file into
// the flags of cmd the user did not set, once, so that the commands read
// typed flag values only. Precedence: flag > WHSIM_* > config file > default.
//
// A flag is looked up by its command path first and then bare: for
// `whsim send --url`, WHSIM_SEND_URL, then WHSIM_URL, then the config
// file's send.url, then its url.
//
// viper reads the environment; package config reads the file's YAML nodes,
// to name an unknown key or a bad value by its line.
//
// It returns where each flag it filled came from ("environment
// WHSIM_SEED", "config file whsim.yaml, line 3"), so that an error about
// the value later names its source (App.FlagSources).
func LoadConfig(cmd *cobra.Command, explicit string, tree func() *cobra.Command) (map[string]string, error) {
	return loadConfig(cmd, explicit, tree, nil)
}

// loadConfig is LoadConfig; only, when not nil, names the flags it fills
// (the others are left as they are), and then a config file it cannot
// use leaves those flags to the environment rather than to nothing.
func loadConfig(cmd *cobra.Command, explicit string, tree func() *cobra.Command, only []string) (map[string]string, error) {
	if !readsConfig(cmd) {
		return nil, nil
	}
	// A file named by the environment is said to come from it: a
	// variable set for a whole CI job is otherwise a puzzle.
	fromEnv := ""
	if explicit == "" {
		explicit = os.Getenv(EnvPrefix + "_CONFIG")
		if explicit != "" {
			fromEnv = " (the config file came from environment " + EnvPrefix + "_CONFIG)"
		}
	}
	var errs []error
	name, err := config.Find(explicit, "whsim", ConfigName)
	if err != nil {
		if only == nil {
			return nil, configErr(fmt.Errorf("%w%s", err, fromEnv))
		}
		errs, name = append(errs, fmt.Errorf("%w%s", err, fromEnv)), ""
	}
	// viper, fresh per run, reads the environment; package config reads
	// the file, every key of it: a key viper would drop (one left without
	// a value) is an error there, not a silent default. Any WHSIM_*
	// variable beats any key of the file.
	envKey := strings.NewReplacer(".", "_", "-", "_")
	env := viper.New()
	env.SetEnvPrefix(EnvPrefix)
	env.SetEnvKeyReplacer(envKey)
	env.AutomaticEnv()
	var file *config.File
	var values []error // the file's values that no flag takes, said after the run's own
	if name != "" {
		t := tree()
		file, err = config.Load(name, configSection(t))
		if file != nil {
			values = checkValues(file, t, cmd)
		}
		if err != nil {
			err, values = errors.Join(append([]error{err}, values...)...), nil
			if only == nil {
				return nil, configErr(fmt.Errorf("%w%s", err, fromEnv))
			}
			// Its keys that are right still say where the files a CI
			// job keeps are (junit: beside an unknown key): they say
			// why the run did not begin, not an earlier run's verdict.
			errs = append(errs, fmt.Errorf("%w%s", err, fromEnv))
		}
	}

	section := strings.ReplaceAll(strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "), " ", ".")
	sources := map[string]string{}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed || !configurable(f) || only != nil && !slices.Contains(only, f.Name) {
			return
		}
		keys := []string{section + "." + f.Name, f.Name}
		for _, key := range keys {
			if env.IsSet(key) {
				where := fmt.Sprintf("environment %s_%s", EnvPrefix, strings.ToUpper(envKey.Replace(key)))
				if err := config.SetEnv(f, env.GetString(key)); err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", where, err))
				}
				sources[f.Name] = where
				return
			}
		}
		for _, key := range keys {
			if file.Has(key) {
				errs = append(errs, file.Set(f, key)) // errors.Join drops a nil
				sources[f.Name] = file.Where(key)
				return
			}
		}
	})
	// The run's own keys were set from the file as checkValues set them
	// in its tree: each error once.
	errs = appendNew(errs, values...)
	return sources, configErr(errors.Join(errs...))
}

// checkValues sets the flags of the tree t from every key of file that
// names them, so that a value no flag of its kind takes is an error
// whichever command runs and whatever its command line and the
// environment give: only the keys the run used were read, and a flag or
// variable that beat a bad one, or a run of another command, passed the
// file as good. A section's key must suit its command's flag; a bare key
// one flag of its name at least (each command that has the flag and runs
// with the key still refuses a value it cannot take). t is a tree no run
// reads (configTree's); should it hold run itself, run's flags, which the
// user's values fill, are left alone.
func checkValues(file *config.File, t, run *cobra.Command) []error {
	bad := map[string]error{} // by key; a bare key's is nil once a flag took it
	var visit func(c *cobra.Command, section string)
	visit = func(c *cobra.Command, section string) {
		if c != run && readsConfig(c) {
			set := func(f *pflag.Flag) {
				if !configurable(f) {
					return
				}
				if key := section + "." + f.Name; section != "" && file.Has(key) && bad[key] == nil {
					bad[key] = file.Set(f, key)
				}
				if prior, seen := bad[f.Name]; file.Has(f.Name) && (!seen || prior != nil) {
					bad[f.Name] = file.Set(f, f.Name)
				}
			}
			c.LocalFlags().VisitAll(set)
			c.InheritedFlags().VisitAll(set)
		}
		for _, sub := range c.Commands() {
			visit(sub, strings.TrimPrefix(section+"."+sub.Name(), "."))
		}
	}
	visit(t, "")
	// In the file's order, as a reader fixes them.
	keys := slices.SortedFunc(maps.Keys(bad), func(a, b string) int { return cmp.Or(file.Line(a)-file.Line(b), strings.Compare(a, b)) })
	var errs []error
	for _, key := range keys {
		errs = appendNew(errs, bad[key])
	}
	return errs
}

// appendNew appends to errs each error of more that is not nil and that
// errs does not say already.
func appendNew(errs []error, more ...error) []error {
	for _, err := range more {
		if err != nil && !slices.ContainsFunc(errs, func(e error) bool { return e != nil && e.Error() == err.Error() }) {
			errs = append(errs, err)
		}
	}
	return errs
}

// ConfigError is a config file or WHSIM_* variable whsim cannot use: a
// usage error (exit 2) of a command line that was fine, so no "Run 'whsim
// send --help' for usage" follows it.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// configErr marks err, if any, as a ConfigError and a usage error.
func configErr(err error) error {
	if err == nil {
		return nil
	}
	return UsageErr(&ConfigError{Err: err})
}

// flagNamed finds the flags an error message names: --shape, --count,
// and a shorthand standing alone, -H.
var flagNamed = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s(])(?:--([a-z][a-z0-9-]*)|-([A-Za-z])(?:$|[\s,:;)]))`)
})

// SayFlagSources adds to an error message about flag values where each
// flag it names got its value, when the environment or the config file
// gave it rather than the command line: "--shape: unknown shape" is
// otherwise a puzzle to someone who typed no --shape.
func (a *App) SayFlagSources(msg string) string {
	if len(a.FlagSources) == 0 {
		return msg
	}
	var said []string
	for _, m := range flagNamed().FindAllStringSubmatch(msg, -1) {
		name, as := m[1], "--"+m[1]
		if m[2] != "" {
			// A shorthand is named as the message names it: "-H would
			// go ..." from a config file's header is otherwise a puzzle
			// too (found by hunt48).
			name, as = a.Shorthands[m[2]], "-"+m[2]
		}
		where, ok := a.FlagSources[name]
		if !ok || a.OnCommandLine(name) || slices.Contains(said, name) {
			continue
		}
		said = append(said, name)
		msg += fmt.Sprintf(" (%s came from %s)", as, where)
	}
	return msg
}

// configurable says whether a config key or variable may set f.
func configurable(f *pflag.Flag) bool {
	return f.Name != "config" && f.Name != "help" && f.Name != "version"
}

// configSection describes c's command tree to package config. Hidden
// commands and those that read no config take no section, and the flags of
// the latter are no keys.
func configSection(c *cobra.Command) config.Section {
	s := config.Section{Name: c.Name(), NoSection: c.Hidden || !readsConfig(c), NoConfig: !readsConfig(c)}
	add := func(f *pflag.Flag) {
		if configurable(f) && !slices.Contains(s.Flags, f.Name) {
			s.Flags = append(s.Flags, f.Name)
		}
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	for _, sub := range c.Commands() {
		s.Subs = append(s.Subs, configSection(sub))
	}
	return s
}
