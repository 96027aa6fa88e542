package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/whsim/whsim/internal/suggest"
)

// EnvPrefix prefixes the environment variables whsim reads: WHSIM_SEED,
// WHSIM_SEND_URL.
const EnvPrefix = "WHSIM"

// ConfigName is the config file whsim looks for in the working directory and
// in the user config directory (…/whsim/whsim.yaml).
const ConfigName = "whsim.yaml"

// maxConfigSize bounds a config file, which is read whole.
const maxConfigSize = 1 << 20

// configFile finds the config file: the explicit one (--config or
// WHSIM_CONFIG, which must exist), else whsim.yaml in the working directory,
// else in the user config directory. It returns "" when there is none.
func configFile(explicit string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", usagef("config file: %w", err)
		}
		return explicit, nil
	}
	candidates := []string{ConfigName}
	if dir, err := os.UserConfigDir(); err == nil {
		candidates = append(candidates, filepath.Join(dir, "whsim", ConfigName))
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", usagef("config file: %w", err)
		}
	}
	return "", nil
}

// readConfig reads a config file: a regular file (not a device or a FIFO,
// which could be endless or never answer) of at most maxConfigSize bytes.
func readConfig(file string) ([]byte, *yaml.Node, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return nil, nil, usagef("config file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, usagef("config file %s: not a regular file", file)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, usagef("config file: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return nil, nil, usagef("config file %s: %w", file, unwrapPath(err))
	}
	if len(b) > maxConfigSize {
		return nil, nil, usagef("config file %s: larger than %d KiB", file, maxConfigSize>>10)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		// yaml's errors read "yaml: line 3: ...".
		return nil, nil, usagef("config file %s: %s", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return b, &doc, nil
}

// readsConfig says whether a command takes values from the environment and
// the config file: those that only describe whsim work with a broken one.
func readsConfig(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "version", "man", "help", "completion":
			return false
		}
	}
	return true
}

// loadConfig copies values from the environment and the config file into
// the flags of cmd the user did not set, once, so that the commands read
// typed flag values only. Precedence: flag > WHSIM_* > config file > default.
//
// A flag is looked up by its command path first and then bare: for
// `whsim send --url`, WHSIM_SEND_URL, then WHSIM_URL, then the config
// file's send.url, then its url.
//
// viper reads the environment and the file; the file's YAML nodes are read
// too, to name an unknown key or a bad value by its line.
func loadConfig(cmd *cobra.Command, explicit string) error {
	if !readsConfig(cmd) {
		return nil
	}
	if explicit == "" {
		explicit = os.Getenv(EnvPrefix + "_CONFIG")
	}
	file, err := configFile(explicit)
	if err != nil {
		return err
	}
	// Two viper instances, fresh per run: the environment's and the file's,
	// so that any WHSIM_* variable beats any key of the file.
	env := viper.New()
	env.SetEnvPrefix(EnvPrefix)
	env.SetEnvKeyReplacer(strings.NewReplacer(".", "_", "-", "_"))
	env.AutomaticEnv()
	conf := viper.New()
	entries := map[string]*yaml.Node{}
	if file != "" {
		b, doc, err := readConfig(file)
		if err != nil {
			return err
		}
		if entries, err = configEntries(cmd.Root(), file, doc); err != nil {
			return err
		}
		conf.SetConfigType("yaml")
		if err := conf.ReadConfig(bytes.NewReader(b)); err != nil {
			return usagef("config file %s: %v", file, err)
		}
	}

	section := strings.ReplaceAll(strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "), " ", ".")
	var errs []error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed || f.Name == "config" || f.Name == "help" || f.Name == "version" {
			return
		}
		keys := []string{section + "." + f.Name, f.Name}
		for _, key := range keys {
			if env.IsSet(key) {
				if err := setFlag(f, envValue(f, env.GetString(key))); err != nil {
					errs = append(errs, fmt.Errorf("environment %s: %w", envName(key), err))
				}
				return
			}
		}
		for _, key := range keys {
			// The file's value as viper read it, with the line its node
			// holds for a message.
			if n, ok := entries[key]; ok && conf.InConfig(key) {
				if err := setFlagNode(f, n); err != nil {
					errs = append(errs, fmt.Errorf("config file %s, line %d: %s: %w", file, n.Line, key, err))
				}
				return
			}
		}
	})
	return usageErr(errors.Join(errs...))
}

func envName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(key))
}

// configEntries flattens the config file's keys: "seed", "send.url". A key
// is a flag of some command, bare, or of the command whose section it is
// under; any other key is an error naming its line, with a suggestion.
func configEntries(root *cobra.Command, file string, doc *yaml.Node) (map[string]*yaml.Node, error) {
	entries := map[string]*yaml.Node{}
	if doc.Kind == 0 || len(doc.Content) == 0 { // empty, or only comments
		return entries, nil
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, usagef("config file %s, line %d: want keys and values (seed: 42)", file, top.Line)
	}
	var anyFlag []string
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		anyFlag = append(anyFlag, flagNames(c)...)
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(root)

	var errs []error
	var walk func(c *cobra.Command, prefix string, m *yaml.Node)
	walk = func(c *cobra.Command, prefix string, m *yaml.Node) {
		flags := flagNames(c)
		if c == root {
			flags = anyFlag
		}
		var subs []string
		for _, sub := range c.Commands() {
			if readsConfig(sub) && !sub.Hidden {
				subs = append(subs, sub.Name())
			}
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i], m.Content[i+1]
			if v.Kind == yaml.AliasNode {
				v = v.Alias
			}
			if slices.Contains(subs, k.Value) {
				sub, _, _ := c.Find([]string{k.Value})
				if v.Kind != yaml.MappingNode {
					errs = append(errs, fmt.Errorf("%s in %s, line %d: want keys of the %s command under it, such as %s: {%s: ...}",
						k.Value, file, k.Line, k.Value, k.Value, flagNames(sub)[0]))
					continue
				}
				walk(sub, prefix+k.Value+".", v)
				continue
			}
			if slices.Contains(flags, k.Value) {
				entries[prefix+k.Value] = v
				continue
			}
			where := ""
			if c != root {
				where = " under " + strings.TrimSuffix(prefix, ".")
			}
			errs = append(errs, fmt.Errorf("unknown key %q%s in %s, line %d%s", k.Value, where, file, k.Line,
				suggest.Hint(k.Value, append(flags, subs...))))
		}
	}
	walk(root, "", top)
	if len(errs) > 0 {
		return nil, usageErr(errors.Join(errs...))
	}
	return entries, nil
}

// flagNames lists the flags a config key may set for c.
func flagNames(c *cobra.Command) []string {
	var names []string
	add := func(f *pflag.Flag) {
		if f.Name != "config" && f.Name != "help" && f.Name != "version" && !slices.Contains(names, f.Name) {
			names = append(names, f.Name)
		}
	}
	c.LocalFlags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	return names
}

// envValue reads an environment variable as a flag value. Lists take the
// config file's syntax, [a, b] (a YAML flow sequence, or JSON), for every
// repeatable flag; a flag of names (such as --event) also takes a,b.
func envValue(f *pflag.Flag, val string) any {
	if _, ok := f.Value.(pflag.SliceValue); ok && strings.HasPrefix(strings.TrimSpace(val), "[") {
		var items []string
		if err := yaml.Unmarshal([]byte(val), &items); err == nil {
			return items
		}
	}
	return val
}

// setFlagNode sets a flag from a config file value: a scalar, or a list of
// scalars for a repeatable flag.
func setFlagNode(f *pflag.Flag, n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return errors.New("no value")
		}
		return setFlag(f, n.Value)
	case yaml.SequenceNode:
		items := make([]string, 0, len(n.Content))
		for _, it := range n.Content {
			if it.Kind == yaml.AliasNode {
				it = it.Alias
			}
			if it.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: want a value, got a nested list or mapping", it.Line)
			}
			items = append(items, it.Value)
		}
		return setFlag(f, items)
	}
	return errors.New("want a value, got a mapping")
}

// setFlag sets a flag from a config or environment value: a string, or a
// list ([]string). Text for a flag of names (--event) splits on commas; a
// --set or --header value may hold commas itself and does not.
func setFlag(f *pflag.Flag, val any) error {
	if sv, ok := f.Value.(pflag.SliceValue); ok {
		items, ok := val.([]string)
		if !ok {
			items = []string{val.(string)}
			if f.Value.Type() == "stringSlice" {
				items = strings.Split(items[0], ",")
			}
		}
		return sv.Replace(items)
	}
	s, ok := val.(string)
	if !ok {
		return errors.New("want one value, got a list")
	}
	if err := f.Value.Set(s); err != nil {
		if want := wantValue(f); want != "" {
			return fmt.Errorf("%q: %s", s, want)
		}
		return fmt.Errorf("%q: %w", s, err)
	}
	return nil
}
