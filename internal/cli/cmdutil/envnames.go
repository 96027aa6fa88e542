package cmdutil

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/whsim/whsim/internal/suggest"
)

// otherEnv are the WHSIM_* variables that name no flag: read by whsim
// (WHSIM_CONFIG, WHSIM_TRANSPORT), set by it for a probe command, or read
// by its tests and scripts (WHSIM_NPM_TOOLS; WHSIM_TEST_*).
var otherEnv = []string{"CONFIG", "TRANSPORT", "DEBUG", "KIND", "CODE", "INVOICE_CODE", "EVENT", "REQUEST_ID", "PROBE_RUN",
	"NPM_TOOLS", "SCREENSHOTS", "PYTHON"}

// MistypedEnv says, for each WHSIM_* variable of environ that no command
// reads but that is one typo from one some command does, which that is
// ("WHSIM_SEND_URLL", "WHSIM_SEND_URL"). A variable whsim does not read is
// ignored without a word, so a mistyped WHSIM_SEND_URL left send to its
// own built-in receiver, and the CI job passed; a variable far from every
// name (another tool's WHSIM_ one) is not said. tree, the whole command
// tree, is built only when some variable is not cmd's own.
func MistypedEnv(cmd *cobra.Command, environ []string, tree func() *cobra.Command) [][2]string {
	if !readsConfig(cmd) {
		return nil
	}
	var names []string
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if value == "" {
			continue // set to "", as unset (LoadConfig)
		}
		if rest, ok := strings.CutPrefix(name, EnvPrefix+"_"); ok && rest != "" && !slices.Contains(otherEnv, rest) && !strings.HasPrefix(rest, "TEST_") {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	own := envNames(cmd, false)
	var known []string
	var out [][2]string
	for _, name := range names {
		if slices.Contains(own, name) {
			continue
		}
		if known == nil {
			known = append(envNames(tree(), true), own...)
			for _, o := range otherEnv {
				known = append(known, EnvPrefix+"_"+o)
			}
		}
		if slices.Contains(known, name) {
			continue
		}
		// Compared after the prefix, which every name shares: a typo is
		// near enough by the length of what the user typed.
		rests := make([]string, len(known))
		for i, k := range known {
			rests[i] = strings.TrimPrefix(k, EnvPrefix+"_")
		}
		if best, ok := suggest.Closest(strings.TrimPrefix(name, EnvPrefix+"_"), rests); ok {
			out = append(out, [2]string{name, EnvPrefix + "_" + best})
		}
	}
	return out
}

// envNames are the variables that set c's flags (and, with subs, those
// of its subcommands): WHSIM_ and the command path's section and the
// flag, or the flag bare, as LoadConfig looks them up.
func envNames(c *cobra.Command, subs bool) []string {
	up := strings.NewReplacer(".", "_", "-", "_", " ", "_")
	section := strings.TrimPrefix(c.CommandPath(), c.Root().Name())
	var out []string
	add := func(f *pflag.Flag) {
		if !configurable(f) {
			return
		}
		bare := EnvPrefix + "_" + strings.ToUpper(up.Replace(f.Name))
		out = append(out, bare)
		if section != "" {
			out = append(out, EnvPrefix+strings.ToUpper(up.Replace(section))+"_"+strings.ToUpper(up.Replace(f.Name)))
		}
	}
	if readsConfig(c) {
		c.LocalFlags().VisitAll(add)
		c.InheritedFlags().VisitAll(add)
	}
	if subs {
		for _, sub := range c.Commands() {
			out = append(out, envNames(sub, true)...)
		}
	}
	return out
}
