package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/suggest"
)

// noArgs refuses positional arguments in the words of our usage errors
// (cobra's NoArgs calls an argument an "unknown command"). An event name
// given bare is what --event was meant for, and is said so.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("takes no arguments, got %q", args[0])
	if _, err := spec.ParseEvents(args[:1]); err == nil && cmd.Flags().Lookup("event") != nil {
		msg += fmt.Sprintf(" (did you mean --event %s?)", args[0])
	}
	return usageErr(&flagErr{path: cmd.CommandPath(), msg: msg})
}

// exactArgs wants n arguments, what names them.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		return usageErr(&flagErr{path: cmd.CommandPath(), msg: fmt.Sprintf("wants %d argument%s (%s), got %d", n, plural(n), what, len(args))})
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// commandNames are the commands a did-you-mean may offer.
func commandNames(root *cobra.Command) []string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			names = append(names, c.Name())
		}
	}
	return names
}

// cobraUnknown is the error cobra's root returns for a word that is not a
// command (its suggestions are turned off: ours are one line). Compiled
// when an error needs it, not at every start (#35).
const cobraUnknown = `^unknown command ("(?:[^"\\]|\\.)*") for "[^"]*"$`

// unknownCommand rewrites cobra's unknown-command error of the root in our
// style, with one did-you-mean; nil when err is not that.
func unknownCommand(root *cobra.Command, err error) error {
	m := regexp.MustCompile(cobraUnknown).FindStringSubmatch(err.Error())
	if m == nil {
		return nil
	}
	word, uerr := strconv.Unquote(m[1])
	if uerr != nil {
		return nil
	}
	return usageErr(fmt.Errorf("unknown command %q%s", word, suggest.Hint(word, commandNames(root))))
}

// newHelpCmd is cobra's help command, except that a topic it does not know
// is a usage error (cobra prints the root's usage and exits 0).
func newHelpCmd(a *app, root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help provides help for any command in the application.\nSimply type whsim help [path to command] for full details.",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			cmd, _, err := root.Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, s := range cmd.Commands() {
				if (s.IsAvailableCommand() || s.Name() == "help") && strings.HasPrefix(s.Name(), toComplete) {
					out = append(out, s.Name()+"\t"+s.Short)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: a.runE(func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 || cmd == nil {
				topic := args[len(args)-1]
				parent := root
				if err == nil && cmd != nil {
					parent, topic = cmd, rest[0]
				}
				return usageErr(&flagErr{path: c.CommandPath(), msg: fmt.Sprintf("unknown help topic %q%s", topic, suggest.Hint(topic, commandNames(parent)))})
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		}),
	}
}
