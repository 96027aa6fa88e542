package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Man pages are written here as roff directly rather than with cobra/doc:
// cobra/doc renders through blackfriday, whose package init (an HTML entity
// table) cost about 1.9 ms a process on the development machine, and every
// run of whsim would pay it to serve a command that packagers run once.

type manOptions struct {
	Dir string
}

// newManCmd is hidden: it exists for packagers (the release's before hook),
// not for people at a terminal.
func newManCmd(a *app) *cobra.Command {
	opts := &manOptions{}
	cmd := &cobra.Command{
		Use:    "man --dir <dir>",
		Short:  "Write a man page for every command into a directory",
		Hidden: true,
		Example: `  whsim man --dir manpages
  man ./manpages/whsim-generate.1`,
		Args: cobra.NoArgs,
		RunE: a.runE(func(cmd *cobra.Command, args []string) error {
			return runMan(a, cmd.Root(), opts)
		}),
	}
	cmd.Flags().StringVar(&opts.Dir, "dir", "", "directory to write the pages into (created if missing)")
	_ = cmd.MarkFlagRequired("dir")
	_ = cmd.MarkFlagDirname("dir")
	return cmd
}

// manHeader is what every page's .TH line carries.
type manHeader struct {
	Date    time.Time
	Source  string // "whsim v1.2.3"
	Section string
}

func runMan(a *app, root *cobra.Command, opts *manOptions) error {
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return usageErr(err)
	}
	// A release dates its pages by its build date, so that one build
	// writes the same bytes; a build from source by today.
	date := a.now()
	if d, err := time.Parse(time.RFC3339, a.build.Date); err == nil {
		date = d
	}
	h := manHeader{Date: date, Source: "whsim " + a.build.Resolve().Version, Section: "1"}
	n := 0
	var walk func(*cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c != root {
			return nil
		}
		name := filepath.Join(opts.Dir, manName(c)+"."+h.Section)
		if err := os.WriteFile(name, manPage(c, h), 0o644); err != nil {
			return err
		}
		n++
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	fmt.Fprintf(a.streams.Err, "wrote %d man pages to %s\n", n, opts.Dir)
	return nil
}

// manName is a command's page name: whsim-completion-bash.
func manName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-")
}

// manPage renders one command as a man(7) page.
func manPage(c *cobra.Command, h manHeader) []byte {
	var b bytes.Buffer
	name := manName(c)
	fmt.Fprintf(&b, ".TH %q %q %q %q %q\n", strings.ToUpper(name), h.Section,
		h.Date.Format("2006-01-02"), h.Source, "whsim manual")
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", roffText(name), roffText(c.Short))

	b.WriteString(".SH SYNOPSIS\n")
	use := c.UseLine()
	if c.HasAvailableSubCommands() && !c.Runnable() {
		use = c.CommandPath() + " <command>"
	}
	fmt.Fprintf(&b, ".B %s\n", roffText(use))

	b.WriteString(".SH DESCRIPTION\n")
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	for i, para := range strings.Split(strings.TrimSpace(desc), "\n\n") {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		b.WriteString(roffLines(para))
	}

	if c.HasAvailableSubCommands() {
		b.WriteString(".SH COMMANDS\n")
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s\n", roffText(sub.Name()), roffText(sub.Short))
			}
		}
	}
	manFlags(&b, "OPTIONS", c.NonInheritedFlags())
	manFlags(&b, "OPTIONS INHERITED FROM PARENT COMMANDS", c.InheritedFlags())

	if c.Example != "" {
		b.WriteString(".SH EXAMPLES\n.nf\n.RS 2\n")
		for _, line := range strings.Split(strings.TrimRight(c.Example, "\n"), "\n") {
			b.WriteString(roffLines(strings.TrimSpace(line)))
		}
		b.WriteString(".RE\n.fi\n")
	}

	var see []*cobra.Command
	if c.HasParent() {
		see = append(see, c.Parent())
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			see = append(see, sub)
		}
	}
	if len(see) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		refs := make([]string, len(see))
		for i, s := range see {
			refs[i] = fmt.Sprintf("\\fB%s\\fR(%s)", roffText(manName(s)), h.Section)
		}
		b.WriteString(strings.Join(refs, ",\n") + "\n")
	}
	return b.Bytes()
}

func manFlags(b *bytes.Buffer, title string, fs *pflag.FlagSet) {
	if !fs.HasAvailableFlags() {
		return
	}
	fmt.Fprintf(b, ".SH %s\n", title)
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		varname, usage := pflag.UnquoteUsage(f)
		b.WriteString(".TP\n")
		if f.Shorthand != "" {
			fmt.Fprintf(b, "\\fB\\-%s\\fR, ", roffText(f.Shorthand))
		}
		fmt.Fprintf(b, "\\fB\\-\\-%s\\fR", roffText(f.Name))
		if varname != "" {
			fmt.Fprintf(b, " \\fI%s\\fR", roffText(varname))
		}
		b.WriteString("\n")
		if def := f.DefValue; def != "" && def != "false" && def != "[]" && def != "0" {
			usage += " (default " + def + ")"
		}
		b.WriteString(roffLines(usage))
	})
}

// roffText escapes text for use inside a roff line: backslashes, and
// hyphens so that options stay hyphens when rendered and searched.
func roffText(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
}

// roffLines escapes a block of text line by line; a line that starts with a
// dot or an apostrophe would be read as a request, so it is guarded.
func roffLines(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		line = roffText(line)
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			line = `\&` + line
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
