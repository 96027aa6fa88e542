// Package manpage renders man(7) pages as roff, directly: cobra/doc renders
// through blackfriday, whose package init (an HTML entity table) cost about
// 1.9 ms a process on the development machine, and every run of whsim would
// pay it to serve a command that packagers run once.
package manpage

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/atomicfile"
)

// Header is what every page's .TH line carries.
type Header struct {
	Date    time.Time
	Source  string // "whsim v1.2.3"
	Section string
}

// Page is one command's page.
type Page struct {
	Name     string // whsim-completion-bash
	Path     string // whsim completion bash
	Short    string
	Long     string // paragraphs separated by blank lines; Short when empty
	Synopsis string
	Commands []Entry // subcommands
	// Options and Inherited are the command's own flags and those of its
	// parents.
	Options, Inherited []Option
	Example            string
	SeeAlso            []string // page names
}

// Entry is a subcommand: its name and one line.
type Entry struct{ Name, Short string }

// Option is a flag: -s, --long <arg>, and its usage with the default.
type Option struct{ Shorthand, Name, Arg, Usage string }

// WriteDir writes each page into dir as NAME.SECTION (whsim-send.1), the
// pages whole or none of them: a disk that filled left a page cut short,
// which man shows as it is, and pages of two versions side by side.
func WriteDir(dir string, pages []Page, h Header) error {
	files := make([]atomicfile.File, len(pages))
	for i, p := range pages {
		files[i] = atomicfile.File{Path: filepath.Join(dir, p.Name+"."+h.Section), Perm: 0o644, Write: func(w io.Writer) error {
			_, err := w.Write(render(p, h))
			return err
		}}
	}
	return atomicfile.WriteAll(files)
}

// render writes p as a man(7) page.
func render(p Page, h Header) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, ".TH %q %q %q %q %q\n", strings.ToUpper(p.Name), h.Section,
		h.Date.Format("2006-01-02"), h.Source, "whsim manual")
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", text(p.Name), text(p.Short))
	b.WriteString(".SH SYNOPSIS\n")
	fmt.Fprintf(&b, ".B %s\n", text(p.Synopsis))

	b.WriteString(".SH DESCRIPTION\n")
	desc := p.Long
	if desc == "" {
		desc = p.Short
	}
	for i, para := range strings.Split(strings.TrimSpace(desc), "\n\n") {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		b.WriteString(lines(para))
	}
	if len(p.Commands) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, c := range p.Commands {
			fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s\n", text(c.Name), text(c.Short))
		}
	}
	options(&b, "OPTIONS", p.Options)
	options(&b, "OPTIONS INHERITED FROM PARENT COMMANDS", p.Inherited)
	if p.Example != "" {
		b.WriteString(".SH EXAMPLES\n.nf\n.RS 2\n")
		for _, line := range strings.Split(strings.TrimRight(p.Example, "\n"), "\n") {
			b.WriteString(lines(strings.TrimSpace(line)))
		}
		b.WriteString(".RE\n.fi\n")
	}
	if len(p.SeeAlso) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		refs := make([]string, len(p.SeeAlso))
		for i, s := range p.SeeAlso {
			refs[i] = fmt.Sprintf("\\fB%s\\fR(%s)", text(s), h.Section)
		}
		b.WriteString(strings.Join(refs, ",\n") + "\n")
	}
	return b.Bytes()
}

func options(b *bytes.Buffer, title string, opts []Option) {
	if len(opts) == 0 {
		return
	}
	fmt.Fprintf(b, ".SH %s\n", title)
	for _, o := range opts {
		b.WriteString(".TP\n")
		if o.Shorthand != "" {
			fmt.Fprintf(b, "\\fB\\-%s\\fR, ", text(o.Shorthand))
		}
		fmt.Fprintf(b, "\\fB\\-\\-%s\\fR", text(o.Name))
		if o.Arg != "" {
			fmt.Fprintf(b, " \\fI%s\\fR", text(o.Arg))
		}
		b.WriteString("\n")
		b.WriteString(lines(o.Usage))
	}
}

// text escapes text for use inside a roff line: backslashes, and hyphens
// so that options stay hyphens when rendered and searched.
func text(s string) string {
	return strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
}

// lines escapes a block of text line by line; a line that starts with a
// dot or an apostrophe would be read as a request, so it is guarded.
func lines(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		line = text(line)
		if strings.HasPrefix(line, ".") || strings.HasPrefix(line, "'") {
			line = `\&` + line
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
