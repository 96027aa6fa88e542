package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/suggest"
)

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
	return cmdutil.UsageErr(fmt.Errorf("unknown command %q%s", word, suggest.Hint(word, commandNames(root))))
}

// newHelpCmd is cobra's help command, except that a topic it does not know
// is a usage error (cobra prints the root's usage and exits 0).
func newHelpCmd(a *cmdutil.App, root *cobra.Command) *cobra.Command {
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
		RunE: a.RunE(func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 || cmd == nil {
				topic := args[len(args)-1]
				parent := root
				if err == nil && cmd != nil {
					parent, topic = cmd, rest[0]
				}
				return cmdutil.UsageErr(&cmdutil.FlagErr{Path: c.CommandPath(), Msg: fmt.Sprintf("unknown help topic %q%s", topic, suggest.Hint(topic, commandNames(parent)))})
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		}),
	}
}
