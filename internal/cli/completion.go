package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
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
		// A fresh account has neither directory the examples write into,
		// and the shell's redirection does not make it.
		c.Long = strings.TrimRight(c.Long, "\n") + `

The scripts ask the installed whsim at each TAB, so event names, shapes and
formats always match it. bash-completion and fish load a user's scripts
from the directories below, which a fresh account does not have yet: make
them first (mkdir -p ~/.local/share/bash-completion/completions, or
mkdir -p ~/.config/fish/completions), then open a new shell.

PowerShell loads it from your profile: add the line below to it (notepad
$PROFILE), as cobra's own help says. Do not append the script with
>> $PROFILE: Windows PowerShell 5.1 writes UTF-16 there, which breaks a
profile saved as UTF-8.`
		c.Example = `  whsim completion bash > ~/.local/share/bash-completion/completions/whsim
  whsim completion zsh > "${fpath[1]}/_whsim"
  whsim completion fish > ~/.config/fish/completions/whsim.fish
  whsim completion powershell | Out-String | Invoke-Expression   # PowerShell: this line in $PROFILE`
		// The shell is needed: the usage line says so, and lists them.
		c.Use = "completion <" + strings.Join(commandNames(c), "|") + ">"
		// Runnable, so that cobra checks its arguments: an unknown shell,
		// or none, is a usage error, not help and exit 0 (a script that
		// wrote "whsim completion > file" got the help in its file).
		c.RunE = func(cmd *cobra.Command, args []string) error {
			return cmdutil.UsageErr(&cmdutil.FlagErr{Path: cmd.CommandPath(), Msg: "name a shell: want " + strings.Join(commandNames(cmd), ", ")})
		}
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			shells := commandNames(cmd)
			return cmdutil.UsageErr(&cmdutil.FlagErr{Path: cmd.CommandPath(), Msg: fmt.Sprintf("unknown shell %q: want %s%s",
				args[0], strings.Join(shells, ", "), suggest.Hint(args[0], shells))})
		}
		for _, sh := range c.Commands() {
			// cobra's NoArgs calls an argument an unknown command.
			sh.Args = cmdutil.NoArgs
			switch sh.Name() {
			case "bash":
				sh.RunE = writeBashScript
				// cobra's help names /etc/bash_completion.d, root's.
				sh.Long = strings.TrimRight(sh.Long, "\n") + `

For your account alone (bash-completion 2 loads it; a fresh account has
no such directory yet):

	mkdir -p ~/.local/share/bash-completion/completions
	whsim completion bash > ~/.local/share/bash-completion/completions/whsim
`
			case "fish":
				sh.RunE = writeFishScript
				// cobra's help writes into a directory a fresh account
				// lacks, and the redirection does not make it.
				sh.Long = strings.Replace(sh.Long, "\twhsim completion fish > ~/.config/fish/completions/whsim.fish",
					"\tmkdir -p ~/.config/fish/completions\n\twhsim completion fish > ~/.config/fish/completions/whsim.fish", 1)
			}
		}
	}
}

// The line of cobra's bash script (v1.10) that keeps a described candidate
// only when its printf %q form starts with the word typed, and what it
// becomes: a candidate also matches as it is. Bash's %q escapes a comma
// (brace expansion), which nobody types, so after "--event
// CREATE_RECEIVABLE_DOC," no name was offered at all; the escaped form
// still matches what a user typed escaped ("a\ b" for a space).
const (
	bashMatchEscaped = `[[ $comp == "$cur"* ]] || continue`
	bashMatchEither  = `[[ $comp == "$cur"* || ${compline%%$tab*} == "$cur"* ]] || continue`
)

// writeBashScript is completion bash's run: cobra's script, with a
// described candidate matched as typed (bashMatchEither). A cobra whose
// script lacks the line is written as it is (TestBashScriptMatchesTyped
// fails on it first).
func writeBashScript(cmd *cobra.Command, _ []string) error {
	noDesc, _ := cmd.Flags().GetBool("no-descriptions")
	var b strings.Builder
	if err := cmd.Root().GenBashCompletionV2(&b, !noDesc); err != nil {
		return err
	}
	_, err := io.WriteString(cmd.OutOrStdout(), strings.Replace(b.String(), bashMatchEscaped, bashMatchEither, 1))
	return err
}

// The block of cobra's fish script (v1.10) that gives up on a filtered file
// completion, and what it becomes: the directories and the files with one
// of the extensions the command reads. Given up, fish offered every file,
// so validate's, replay's and send --file's arguments listed files none of
// them reads, where bash and zsh list .json, .ndjson and .jsonl only. The
// files come from fish's own completion of the word for a command without
// completions of its own, so paths, ~ and quoting work as they do there.
const (
	fishFilterGivenUp = `    if test $filefilter -eq 1; or test $dirfilter -eq 1
        __whsim_debug "File extension filtering or directory filtering not supported"
        # Do full file completion instead
        return 1
    end
`
	fishFilterByExt = `    if test $filefilter -eq 1
        # whsim: the directories, and the files with one of the extensions
        # the command reads (cobra's script offered every file).
        set -l files (complete -C "__whsim_no_completions "(commandline -ct) | string replace -r '\t.*' '')
        set -l keep (string match -r -- '^.*/$' $files)
        for ext in $__whsim_comp_results
            set -a keep (string match -r -- '^.*\.'(string escape --style=regex -- $ext)'$' $files)
        end
        set --global __whsim_comp_results $keep
        return 0
    end
    if test $dirfilter -eq 1
        __whsim_debug "Directory filtering not supported"
        # Do full file completion instead
        return 1
    end
`
)

// writeFishScript is completion fish's run: cobra's script, with file
// completion filtered by extension (fishFilterByExt). A cobra whose script
// lacks the block is written as it is (TestFishScriptFiltersByExtension
// fails on it first).
func writeFishScript(cmd *cobra.Command, _ []string) error {
	noDesc, _ := cmd.Flags().GetBool("no-descriptions")
	var b strings.Builder
	if err := cmd.Root().GenFishCompletion(&b, !noDesc); err != nil {
		return err
	}
	_, err := io.WriteString(cmd.OutOrStdout(), strings.Replace(b.String(), fishFilterGivenUp, fishFilterByExt, 1))
	return err
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
