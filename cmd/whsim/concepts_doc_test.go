package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/export"
	"github.com/whsim/whsim/internal/spec"
)

// docs/concepts.md holds what the commands' help does not say; the flags,
// synopses and examples are docs/reference.md's, generated from the help
// (TestReferenceUpToDate keeps that one current). Were concepts.md to
// restate them again, the two would drift apart, as commands.md and the
// help once did (#31). These rules catch the usual ways a restatement
// creeps back in; rewording a help text into prose is left to review.

var (
	// A table body row whose first cell is a flag: `| `--status <code>` | ...`.
	flagTableRow = regexp.MustCompile("^\\|\\s*`-")
	// A list item that opens with a flag: "- `--seed n` makes ...".
	flagListItem = regexp.MustCompile("^\\s*[-*]\\s+(\\*\\*)?`-")
	// A usage synopsis, as the help prints it: "whsim listen [--addr ...".
	synopsisLine = regexp.MustCompile(`^\s*whsim( [a-z0-9]+)+ \[`)
	// A link into the generated reference, and its anchor.
	referenceLink = regexp.MustCompile(`\]\(reference\.md#([a-z0-9-]+)\)`)
	// What the help's text blocks hold in reference.md.
	helpBlock = regexp.MustCompile("(?s)```text\n(.*?)```")
	// Where a help sentence ends.
	sentenceEnd = regexp.MustCompile(`[.:;]\s+`)
)

// minRepeat is the shortest help sentence whose verbatim repetition
// counts: shorter ones ("default 2s", a flag's name) recur by nature.
const minRepeat = 60

// conceptsProblems lists where concepts restates the help that reference
// (docs/reference.md) carries, or fails to point at it: a flag table, a
// list of flags, a synopsis, a help sentence repeated word for word, a
// "## " section with no link to a command's reference section, or a link
// to a section reference.md does not have.
func conceptsProblems(concepts, reference string) []string {
	anchors := map[string]bool{}
	for _, line := range strings.Split(reference, "\n") {
		if name, ok := strings.CutPrefix(line, "## "); ok {
			anchors[strings.ReplaceAll(strings.TrimSpace(name), " ", "-")] = true
		}
	}
	var helpSentences []string
	for _, m := range helpBlock.FindAllStringSubmatch(reference, -1) {
		for _, s := range sentenceEnd.Split(normalizeProse(m[1]), -1) {
			if len(s) >= minRepeat {
				helpSentences = append(helpSentences, s)
			}
		}
	}

	var problems []string
	section, sectionLinks := "", 0
	endSection := func() {
		if section != "" && sectionLinks == 0 {
			problems = append(problems, section+": no link to a command's section in reference.md")
		}
	}
	inCode := false
	for i, line := range strings.Split(concepts, "\n") {
		at := "line " + strconv.Itoa(i+1)
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if synopsisLine.MatchString(line) {
			problems = append(problems, at+": a usage synopsis (the help's): "+line)
		}
		if inCode {
			continue
		}
		if strings.HasPrefix(line, "## ") {
			endSection()
			section, sectionLinks = strings.TrimSpace(line), 0
		}
		if flagTableRow.MatchString(line) && !isTableHeader(concepts, i) {
			problems = append(problems, at+": a flag table row (the help lists flags): "+line)
		}
		if flagListItem.MatchString(line) {
			problems = append(problems, at+": a list item that opens with a flag (the help lists flags): "+line)
		}
		for _, m := range referenceLink.FindAllStringSubmatch(line, -1) {
			sectionLinks++
			if !anchors[m[1]] {
				problems = append(problems, at+": reference.md has no section #"+m[1])
			}
		}
	}
	endSection()

	prose := normalizeProse(concepts)
	for _, s := range helpSentences {
		if strings.Contains(prose, s) {
			problems = append(problems, "repeats the help word for word: "+s)
		}
	}
	return problems
}

// isTableHeader says whether line i of text is a table's header row: the
// row before its |---| separator (a header may name a flag: `--fsync`).
func isTableHeader(text string, i int) bool {
	lines := strings.Split(text, "\n")
	return i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|---")
}

// normalizeProse drops code ticks and folds white space, so a sentence
// reads the same in the help's plain text and in Markdown.
func normalizeProse(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "`", "")), " ")
}

func TestConceptsProblems(t *testing.T) {
	const reference = "## whsim listen\n\n```text\n" +
		"Run a local webhook receiver. Every call is answered, checked against the spec and shown as it arrives.\n" +
		"```\n"
	tests := []struct {
		name     string
		concepts string
		want     []string // a substring of each problem, in order
	}{
		{"clean", "## Forwarding\n\n[`listen --forward-to`](reference.md#whsim-listen) sends each call on.\n", nil},
		{"a table whose header names a flag", "## Capture\n\n[listen](reference.md#whsim-listen)\n\n| `--fsync` | survives |\n|---|---|\n| `always` | power loss |\n", nil},
		{"a flag table", "## Answers\n\n[listen](reference.md#whsim-listen)\n\n| flag | effect |\n|---|---|\n| `--status <code>` | answer with this code |\n", []string{"line 7: a flag table row"}},
		{"a list of flags", "## Generate\n\n[listen](reference.md#whsim-listen)\n\n- `--seed n` makes the bytes reproducible\n- **`--shape`** sample\n", []string{"line 5: a list item", "line 6: a list item"}},
		{"a synopsis in a code block", "## Listen\n\n[listen](reference.md#whsim-listen)\n\n```\nwhsim listen [--addr 127.0.0.1:8080]\n```\n", []string{"line 6: a usage synopsis"}},
		{"a help sentence pasted", "## Listen\n\n[listen](reference.md#whsim-listen): run a local webhook receiver. Every call is `answered`, checked against the spec and\nshown as it arrives.\n", []string{"repeats the help word for word: Every call is answered"}},
		{"a section without a reference link", "## Limits\n\nA client gets 5 s to send its headers.\n## Faults\n\n[listen](reference.md#whsim-listen)\n", []string{"## Limits: no link"}},
		{"a link to no section", "## Send\n\n[send](reference.md#whsim-sned)\n", []string{"line 3: reference.md has no section #whsim-sned"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := conceptsProblems(tt.concepts, reference)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to hold %q", i, got[i], w)
				}
			}
		})
	}
}

// TestConceptsLeavesFlagsToTheHelp holds docs/concepts.md to the rules
// above against the reference generated from the help.
func TestConceptsLeavesFlagsToTheHelp(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, p := range conceptsProblems(read("concepts.md"), read("reference.md")) {
		t.Errorf("docs/concepts.md: %s", p)
	}
}

// The split of vegeta targets over machines that concepts shows is the
// one export prints: split -n r/2 deals the lines in turn, so the halves
// differ by one target at most. The l/2 it showed halves the bytes: of
// 4000 targets (seed 1) it made 1999 and 2001, and each machine's
// "-rate 100/s -duration 20s" then sent one target twice and left one
// unsent.
func TestConceptsSplitsTargetsAsExportDoes(t *testing.T) {
	b, err := os.ReadFile("../../docs/concepts.md")
	if err != nil {
		t.Fatal(err)
	}
	var usage strings.Builder
	if err := export.VegetaUsage(&usage, 4000, "", "", export.Reach{Timeout: attempt.DefaultTimeout}); err != nil {
		t.Fatal(err)
	}
	split := regexp.MustCompile(`split -n [a-z]/[0-9]+`)
	want := split.FindString(usage.String())
	if want == "" {
		t.Fatalf("export's usage splits no targets:\n%s", usage.String())
	}
	for _, got := range split.FindAllString(string(b), -1) {
		if got != want {
			t.Errorf("concepts.md: %q, export prints %q", got, want)
		}
	}
	// Its vegeta commands are those export prints, flag for flag: it
	// showed -rate 50/s -duration 40s, which stops at 40 s with the last
	// targets unsent on a machine that falls behind, where export's -lazy
	// sends each once.
	attack := regexp.MustCompile(`vegeta attack -[^>|\n]*?-targets part-0[01] [^>|\n]*`)
	printed := attack.FindAllString(usage.String(), -1)
	if len(printed) != 2 {
		t.Fatalf("export's usage has no vegeta command for each machine:\n%s", usage.String())
	}
	shown := attack.FindAllString(string(b), -1)
	if len(shown) == 0 {
		t.Errorf("concepts.md shows no vegeta command for a machine")
	}
	for _, got := range shown {
		if !slices.Contains(printed, got) {
			t.Errorf("concepts.md: %q, export prints %q", got, printed)
		}
	}
}

// The generator's choices where the spec is silent are the ones
// docs/concepts.md states: the 单据状态 of a voided receipt, and the
// integers the sample shape writes for PASS and REFUSAL. It said a
// receipt reads 未开始 until submitted, and a voided one (never submitted)
// reads 已作废; the integers were in no document.
func TestConceptsStatesTheGeneratorsChoices(t *testing.T) {
	b, err := os.ReadFile("../../docs/concepts.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(b)), " ")
	for _, want := range []string{
		"its void reads 单据状态 " + spec.RecStateVoided,
		fmt.Sprintf("writes %d for %s and %d for %s", spec.SampleStatus(spec.StatusPass), spec.StatusPass,
			spec.SampleStatus(spec.StatusRefusal), spec.StatusRefusal),
		"An invoice's `status` is " + spec.StatusPass + " when it is created",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("docs/concepts.md does not say %q", want)
		}
	}
}
