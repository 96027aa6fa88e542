package manpage

import (
	"bytes"
	"fmt"
	"strings"
)

// Markdown renders pages as one Markdown reference, a section a page in
// the order given: the per-command reference in docs/ is this, generated
// from the same help text as the man pages, so the two cannot disagree.
// It carries no date or version, so that the file changes only when the
// help does.
func Markdown(pages []Page) []byte {
	var b bytes.Buffer
	b.WriteString("<!-- Generated from each command's help by `go run ./cmd/whsim man --format markdown --dir docs`.\n")
	b.WriteString("     Do not edit: change the help text in internal/cli and run the command again. -->\n\n")
	b.WriteString("# whsim command reference\n\n")
	b.WriteString("Every command's help, as `whsim <command> --help` prints it. The concepts behind the\n")
	b.WriteString("commands (the probe contract, the capture format, the inspector's security, what each\n")
	b.WriteString("command reads) are in [concepts.md](concepts.md), the validation policy in\n")
	b.WriteString("[validation.md](validation.md).\n\n")
	for _, p := range pages {
		fmt.Fprintf(&b, "- [`%s`](#%s): %s\n", title(p), anchor(p), mdText(p.Short))
	}
	for _, p := range pages {
		markdownPage(&b, p)
	}
	return b.Bytes()
}

func markdownPage(b *bytes.Buffer, p Page) {
	fmt.Fprintf(b, "\n## %s\n\n", title(p))
	desc := p.Long
	if desc == "" {
		desc = p.Short
	}
	b.WriteString(fence(p.Synopsis))
	b.WriteString("\n")
	b.WriteString(fence(strings.TrimSpace(desc)))
	if len(p.Commands) > 0 {
		b.WriteString("\nCommands:\n\n")
		for _, c := range p.Commands {
			fmt.Fprintf(b, "- `%s`: %s\n", c.Name, mdText(c.Short))
		}
	}
	mdOptions(b, "Options", p.Options)
	mdOptions(b, "Options inherited from parent commands", p.Inherited)
	if p.Example != "" {
		b.WriteString("\nExamples:\n\n")
		b.WriteString(fence(strings.TrimRight(p.Example, "\n")))
	}
}

func mdOptions(b *bytes.Buffer, heading string, opts []Option) {
	if len(opts) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s:\n\n", heading)
	var lines []string
	for _, o := range opts {
		flag := "    "
		if o.Shorthand != "" {
			flag = "-" + o.Shorthand + ", "
		}
		flag += "--" + o.Name
		if o.Arg != "" {
			flag += " " + o.Arg
		}
		lines = append(lines, flag+"\n        "+strings.ReplaceAll(o.Usage, "\n", "\n        "))
	}
	b.WriteString(fence(strings.Join(lines, "\n")))
}

// title is a page's heading: its command path (whsim completion bash).
func title(p Page) string { return p.Path }

// anchor is the id GitHub gives title's heading.
func anchor(p Page) string { return strings.ReplaceAll(p.Path, " ", "-") }

// fence puts text in a code block whose fence is longer than any run of
// backticks inside it, so help text shows as it prints.
func fence(s string) string {
	n := 3
	for run, i := 0, 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + "text\n" + s + "\n" + f + "\n"
}

// mdText escapes the characters that would turn one line of help into
// Markdown markup.
func mdText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "<", `&lt;`, "[", `\[`, "`", "\\`").Replace(s)
}
