package manpage

import (
	"strings"
	"testing"
)

func TestMarkdown(t *testing.T) {
	pages := []Page{
		{Name: "whsim", Path: "whsim", Short: "Simulate *webhooks*", Synopsis: "whsim <command>",
			Commands: []Entry{{Name: "send", Short: "Deliver [events]"}}},
		{Name: "whsim-send", Path: "whsim send", Short: "Deliver events", Synopsis: "whsim send [flags]",
			Long:    "Sends events.\n\nA fence ``` inside help.",
			Options: []Option{{Shorthand: "e", Name: "event", Arg: "strings", Usage: "events to send"}, {Name: "dry-run", Usage: "print only"}},
			Example: "  whsim send -e CREATE_RECEIVABLE_DOC\n"},
	}
	md := string(Markdown(pages))
	for _, want := range []string{
		"- [`whsim`](#whsim): Simulate \\*webhooks\\*\n",
		"- [`whsim send`](#whsim-send): Deliver events\n",
		"\n## whsim send\n",
		"- `send`: Deliver \\[events]\n",
		// a run of three backticks in the help gets a four-backtick fence
		"````text\nSends events.\n\nA fence ``` inside help.\n````\n",
		"-e, --event strings\n        events to send\n",
		"    --dry-run\n        print only\n",
		"Examples:\n\n```text\n  whsim send -e CREATE_RECEIVABLE_DOC\n```\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "## whsim\n") > strings.Index(md, "## whsim send\n") {
		t.Error("pages out of the order given")
	}
}
