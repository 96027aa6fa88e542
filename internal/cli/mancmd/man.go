// Package mancmd is whsim man: a man page for every command, or the
// Markdown reference (docs/reference.md), written from the commands' own help.
package mancmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/manpage"
	"github.com/whsim/whsim/internal/suggest"
	"github.com/whsim/whsim/internal/termsafe"
)

type manOptions struct {
	Dir    string
	Format string         // man or markdown
	root   *cobra.Command // the tree to document
}

// ReferenceFile is the Markdown reference --format markdown writes into
// --dir: docs/reference.md in this repository.
const ReferenceFile = "reference.md"

// New is whsim man, which writes the pages packagers ship (the release's
// before hook) and people who install from source put on their MANPATH.
func New(a *cmdutil.App) *cobra.Command {
	opts := &manOptions{}
	cmd := &cobra.Command{
		Use:   "man --dir <dir>",
		Short: "Write a man page for every command into a directory",
		Long: `Write a man page (roff, section 1) for whsim and each of its commands into
a directory, created if missing. To read them with man, put the directory on
MANPATH (export MANPATH="$PWD/manpages:$MANPATH"; man whsim-send) or copy the
pages into ~/.local/share/man/man1.

With --format markdown it writes the same pages as one Markdown file,
reference.md, instead: the command reference in the repository's docs/.`,
		Example: `  whsim man --dir manpages
  whsim man --dir ~/.local/share/man/man1
  whsim man --format markdown --dir docs`,
		Args:              cmdutil.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.RunE(func(cmd *cobra.Command, args []string) error {
			opts.root = cmd.Root()
			return runMan(cmd.Context(), a, opts)
		}),
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "directory to write the pages into (created if missing; the pages whole, or a run that failed leaves those there as they were)")
	cmd.Flags().StringVar(&opts.Format, "format", "man", "man (roff pages, one a command) or markdown (one reference.md)")
	_ = cmd.RegisterFlagCompletionFunc("format", cmdutil.CompleteWords("man", "markdown"))
	_ = cmd.MarkFlagRequired("dir")
	_ = cmd.MarkFlagDirname("dir")
	return cmd
}

func runMan(_ context.Context, a *cmdutil.App, opts *manOptions) error {
	if opts.Format != "man" && opts.Format != "markdown" {
		return cmdutil.Usagef("--format %s: want man or markdown%s", termsafe.Text(opts.Format), suggest.Hint(opts.Format, []string{"man", "markdown"}))
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return cmdutil.UsageErr(err)
	}
	if opts.Format == "markdown" {
		path := filepath.Join(opts.Dir, ReferenceFile)
		if err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
			_, err := w.Write(manpage.Markdown(manPages(opts.root)))
			return err
		}); err != nil {
			return outputErr("reference", err)
		}
		fmt.Fprintf(a.Streams.Err, "wrote %s\n", path)
		return nil
	}
	// A release dates its pages by its build date, so that one build
	// writes the same bytes; a build from source by today.
	date := a.Now()
	if d, err := time.Parse(time.RFC3339, a.Build.Date); err == nil {
		date = d
	}
	h := manpage.Header{Date: date, Source: "whsim " + a.Build.Resolve().Version, Section: "1"}
	pages := manPages(opts.root)
	if err := manpage.WriteDir(opts.Dir, pages, h); err != nil {
		return outputErr("man pages", err)
	}
	fmt.Fprintf(a.Streams.Err, "wrote %d man pages to %s\n", len(pages), opts.Dir)
	return nil
}

// outputErr is err, writing what, as man ends with it: a file it could
// not write (a full disk, a directory it may not write in) is output
// whsim could not write, exit 2 as everywhere else; it was 1, which CI
// reads as a check that failed.
func outputErr(what string, err error) error {
	err = fmt.Errorf("%s: %w", what, err)
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		return cmdutil.UsageErr(err)
	}
	return err
}

// manPages are the pages of c and of every available command under it.
func manPages(c *cobra.Command) []manpage.Page {
	pages := []manpage.Page{manPage(c)}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			pages = append(pages, manPages(sub)...)
		}
	}
	return pages
}

// PageName is a command's page name: whsim-completion-bash.
func PageName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-")
}

// manPage is what a command's man page shows.
func manPage(c *cobra.Command) manpage.Page {
	p := manpage.Page{Name: PageName(c), Path: c.CommandPath(), Short: c.Short, Long: c.Long, Synopsis: c.UseLine(), Example: c.Example,
		Options: manFlags(c.NonInheritedFlags()), Inherited: manFlags(c.InheritedFlags())}
	if c.HasAvailableSubCommands() && !c.Runnable() {
		p.Synopsis = c.CommandPath() + " <command>"
	}
	if c.HasParent() {
		p.SeeAlso = append(p.SeeAlso, PageName(c.Parent()))
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			p.Commands = append(p.Commands, manpage.Entry{Name: sub.Name(), Short: sub.Short})
			p.SeeAlso = append(p.SeeAlso, PageName(sub))
		}
	}
	return p
}

func manFlags(fs *pflag.FlagSet) []manpage.Option {
	var out []manpage.Option
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		arg, usage := pflag.UnquoteUsage(f)
		if def := f.DefValue; def != "" && def != "false" && def != "[]" && def != "0" {
			usage += " (default " + def + ")"
		}
		out = append(out, manpage.Option{Shorthand: f.Shorthand, Name: f.Name, Arg: arg, Usage: usage})
	})
	return out
}
