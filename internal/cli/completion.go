package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/suggest"
)

// setUpCompletionCmd adds cobra's completion command now, rather than when
// the root executes, so that it carries install examples like every other
// command. The scripts it prints ask `whsim __complete` at run time, so event
// names, shapes and formats always come from the running binary's catalog.
func setUpCompletionCmd(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Example = `  whsim completion bash > ~/.local/share/bash-completion/completions/whsim
  whsim completion zsh > "${fpath[1]}/_whsim"
  whsim completion fish > ~/.config/fish/completions/whsim.fish
  whsim completion powershell >> $PROFILE`
		// Runnable, so that cobra checks its arguments: an unknown shell is
		// a usage error, not help and exit 0.
		c.RunE = func(cmd *cobra.Command, args []string) error { return cmd.Help() }
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			shells := commandNames(cmd)
			return cmdutil.UsageErr(&cmdutil.FlagErr{Path: cmd.CommandPath(), Msg: fmt.Sprintf("unknown shell %q: want %s%s",
				args[0], strings.Join(shells, ", "), suggest.Hint(args[0], shells))})
		}
	}
}

// CompletionScript returns what `whsim completion <shell>` prints for the
// current command tree; the scripts in completions/ are written from it and
// tested against it.
func CompletionScript(shell string) ([]byte, error) {
	var out, errb bytes.Buffer
	a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, Build{}, time.Now)
	if code := Execute(context.Background(), a, []string{"completion", shell}); code != cmdutil.ExitOK {
		return nil, fmt.Errorf("whsim completion %s: exit %d: %s", shell, code, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}
