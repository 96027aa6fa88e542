package cmdutil

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/spec"
)

// CompleteEvent offers the event names of the spec catalog.
func CompleteEvent(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, e := range spec.Events() {
		out = append(out, e.Name+"\t"+e.Meaning)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// CompleteEvents offers them and "all", for a comma-separated list (see
// CompleteList).
func CompleteEvents(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	out, dir := CompleteEvent(cmd, args, toComplete)
	return ListCandidates(append(out, spec.AllEvents+"\tevery event"), toComplete), dir
}

// CompleteList turns the completion of one name into that of a flag that
// takes a comma-separated list (a string slice): after "a," the shell's
// word is "a,", so a candidate must start with it to be offered at all.
func CompleteList(one cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		out, dir := one(cmd, args, toComplete)
		return ListCandidates(out, toComplete), dir
	}
}

// ListCandidates prefixes each candidate ("name" or "name\tdescription")
// with the names already typed before toComplete's last comma, leaving out
// those names and, after the first name, "all" (which stands alone).
func ListCandidates(cands []string, toComplete string) []string {
	i := strings.LastIndexByte(toComplete, ',')
	if i < 0 {
		return cands
	}
	typed := toComplete[:i+1]
	given := strings.Split(toComplete[:i], ",")
	var out []string
	for _, c := range cands {
		name, _, _ := strings.Cut(c, "\t")
		if name == spec.AllEvents || slices.Contains(given, name) {
			continue
		}
		out = append(out, typed+c)
	}
	return out
}

// CompleteShapes offers the body shapes.
func CompleteShapes(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return spec.ShapeNames(), cobra.ShellCompDirectiveNoFileComp
}

// CompleteWords offers words.
func CompleteWords(words ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return words, cobra.ShellCompDirectiveNoFileComp
	}
}

// CompletePayloadFiles completes the files of commands that read payloads
// or capture logs through package input (the arguments of validate,
// replay, inspect and anonymize, send --file): .json files, those input
// reads as NDJSON (.ndjson, .jsonl), and directories to descend into.
func CompletePayloadFiles(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return append([]cobra.Completion{"json"}, input.NDJSONExtensions()...), cobra.ShellCompDirectiveFilterFileExt
}

// AddOutputFlag adds --output/-o with its allowed values, checked before the
// command runs and offered by shell completion.
func AddOutputFlag(cmd *cobra.Command, target *string, def string, allowed ...string) {
	cmd.Flags().StringVarP(target, "output", "o", def, "output format: "+strings.Join(allowed, "|"))
	_ = cmd.RegisterFlagCompletionFunc("output", CompleteWords(allowed...))
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if !slices.Contains(allowed, *target) {
			return NotOneOf("--output", *target, allowed)
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// CompleteFiles offers the shell's own completion, the working
// directory's files: for a flag whose value is a file (or a command,
// which may be a script's path). NoFilesForValues leaves such a flag
// alone.
func CompleteFiles(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveDefault
}

// NoFilesForValues gives every flag of cmd and its subcommands that takes
// a value and completes nothing of its own a completion that offers
// nothing: the shells' default, the working directory's files, is never a
// URL, an address, a header, a secret, a size, a number or a duration,
// and --url offered them. A flag whose value is a file says so
// (CompleteFiles, an extension filter, MarkFlagDirname).
func NoFilesForValues(cmd *cobra.Command) {
	visit := func(f *pflag.Flag) {
		if _, ok := cmd.GetFlagCompletionFunc(f.Name); ok || f.Value.Type() == "bool" {
			return
		}
		if _, ok := f.Annotations[cobra.BashCompFilenameExt]; ok {
			return
		}
		if _, ok := f.Annotations[cobra.BashCompSubdirsInDir]; ok {
			return
		}
		_ = cmd.RegisterFlagCompletionFunc(f.Name, cobra.NoFileCompletions)
	}
	cmd.Flags().VisitAll(visit)
	cmd.PersistentFlags().VisitAll(visit)
	for _, sub := range cmd.Commands() {
		NoFilesForValues(sub)
	}
}
