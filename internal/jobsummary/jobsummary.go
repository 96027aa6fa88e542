// Package jobsummary writes a run's short Markdown summary for the GitHub
// Actions job summary: when GITHUB_STEP_SUMMARY names a file, check, send
// and validate append the verdict, a table and the first failures to it,
// where CI users look first. Text that came from a receiver or a payload
// is escaped, so it reads as text and cannot become markup.
package jobsummary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/term"
)

// Env names the file GitHub Actions gives a step for its summary.
const Env = "GITHUB_STEP_SUMMARY"

// MaxFailures is how many failures a summary shows in full, and maxCode
// how much of each one's code: the job summary is short, the report whole.
const (
	MaxFailures = 5
	maxCode     = 1500
)

// Summary is one run's section of the job summary.
type Summary struct {
	Title  string // "whsim check"
	Target string // the receiver or the inputs
	Pass   bool
	// Interrupted: Ctrl-C ended the run, which is then no pass.
	Interrupted bool
	// Skipped names what could not run (a check), which the heading says
	// beside the verdict: a skip is no pass.
	Skipped  []string
	Headline string
	Tables   []table
	Failures []Failure
	// More is how many failures are not shown.
	More int
	// Note ends the section (where the full report is).
	Note string
}

// table is a Markdown table; Right marks the columns aligned right.
type table struct {
	Caption string
	Head    []string
	Right   []bool
	Rows    [][]string
}

// Failure is one failure shown in full: what failed, why, and a block of
// code (the command that reproduces it, the findings).
type Failure struct {
	Title, Reason, Code string
}

// Markdown renders the section.
func (s *Summary) Markdown() []byte {
	var b bytes.Buffer
	mark := "✅ pass"
	switch {
	case s.Interrupted: // no verdict: the run did not finish
		mark = "⚠️ interrupted"
	case !s.Pass:
		mark = "❌ FAIL"
	}
	if len(s.Skipped) > 0 && !s.Interrupted {
		mark += ", " + strings.Join(s.Skipped, ", ") + " skipped"
	}
	fmt.Fprintf(&b, "### %s: %s\n\n", text(s.Title), mark)
	if s.Target != "" {
		fmt.Fprintf(&b, "%s\n\n", code(s.Target))
	}
	if s.Headline != "" {
		fmt.Fprintf(&b, "**%s**\n\n", text(s.Headline))
	}
	for _, t := range s.Tables {
		t.write(&b)
	}
	if len(s.Failures) > 0 {
		fmt.Fprintf(&b, "#### First failures\n\n")
		for _, f := range s.Failures {
			fmt.Fprintf(&b, "- **%s**: %s\n", text(f.Title), text(f.Reason))
			if f.Code != "" {
				code := f.Code
				if len(code) > maxCode {
					cut := maxCode
					for cut > 0 && !utf8.RuneStart(code[cut]) {
						cut--
					}
					code = code[:cut] + fmt.Sprintf("… (%d more bytes)", len(code)-cut)
				}
				fence := strings.Repeat("`", max(3, longestRun(f.Code, '`')+1))
				fmt.Fprintf(&b, "\n  %s\n", fence)
				for line := range strings.SplitSeq(strings.TrimRight(code, "\n"), "\n") {
					fmt.Fprintf(&b, "  %s\n", line)
				}
				fmt.Fprintf(&b, "  %s\n\n", fence)
			}
		}
		if s.More > 0 {
			fmt.Fprintf(&b, "\n…and %d more.\n", s.More)
		}
		b.WriteByte('\n')
	}
	if s.Note != "" {
		fmt.Fprintf(&b, "%s\n\n", text(s.Note))
	}
	// One blank line between blocks, however they ended.
	out := b.Bytes()
	for bytes.Contains(out, []byte("\n\n\n")) {
		out = bytes.ReplaceAll(out, []byte("\n\n\n"), []byte("\n\n"))
	}
	return out
}

func (t table) write(b *bytes.Buffer) {
	if len(t.Head) == 0 {
		return
	}
	if t.Caption != "" {
		fmt.Fprintf(b, "%s\n\n", text(t.Caption))
	}
	row := func(cells []string) {
		b.WriteByte('|')
		for _, c := range cells {
			b.WriteString(" " + cell(c) + " |")
		}
		b.WriteByte('\n')
	}
	row(t.Head)
	b.WriteByte('|')
	for i := range t.Head {
		if i < len(t.Right) && t.Right[i] {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteByte('\n')
	for _, r := range t.Rows {
		row(r)
	}
	b.WriteByte('\n')
}

// text escapes what Markdown or HTML would read as markup.
func text(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '#', '|', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func cell(s string) string { return text(s) }

// code is s as inline code, the fence longer than any backtick run in it.
func code(s string) string {
	s = strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	return fence + " " + s + " " + fence
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// Append adds md to the job summary file at path, creating it.
func Append(path string, md []byte) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", Env, err)
	}
	if _, err := f.Write(md); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", Env, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", Env, err)
	}
	return nil
}

// FromCollector is the summary of a run reported through a collector
// (check, validate): a table of each suite's pass, warn and fail counts,
// the headline the run's text summary ends with, and the first failures
// with their reason and detail (check's reproduce command, validate's
// findings). name heads the suite column.
func FromCollector(col *term.Collector, title, name string, pass bool) *Summary {
	_, txt, _, _ := col.Summary()
	s := &Summary{Title: title, Pass: pass, Headline: lastLine(txt)}
	t := table{Head: []string{name, "pass", "warn", "fail"}, Right: []bool{false, true, true, true}}
	tallies := col.Tallies()
	for _, tl := range tallies {
		if tl.Skipped > 0 {
			s.Skipped = append(s.Skipped, tl.Suite)
		}
	}
	if len(s.Skipped) > 0 {
		// A column of its own: a skipped case counted in pass would read
		// as proved.
		t.Head, t.Right = append(t.Head, "skipped"), append(t.Right, false)
	}
	for _, tl := range tallies {
		row := []string{tl.Suite, strconv.Itoa(tl.Pass), strconv.Itoa(tl.Warn), strconv.Itoa(tl.Fail)}
		if len(s.Skipped) > 0 {
			row = append(row, "")
			if tl.Skipped > 0 {
				row[4] = "skipped"
			}
		}
		t.Rows = append(t.Rows, row)
	}
	s.Tables = append(s.Tables, t)
	cases, dropped := col.Cases()
	for _, c := range cases {
		if c.Verdict != term.Fail {
			continue
		}
		if len(s.Failures) == MaxFailures {
			s.More++
			continue
		}
		title := c.Test.Name
		if c.Test.Suite != "" && !strings.HasPrefix(c.Test.Name, c.Test.Suite) {
			title = c.Test.Suite + " / " + c.Test.Name
		}
		s.Failures = append(s.Failures, Failure{Title: title, Reason: c.Test.Failure, Code: c.Test.Detail})
	}
	s.More += dropped
	return s
}

// lastLine is the last line of text that says something.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// Send is the summary of a send run from its --output json summary: the
// counts, the throughput and latency, each threshold, and the first
// failures given.
func Send(summaryJSON []byte, target string, pass bool, failures []Failure, more int) *Summary {
	var j struct {
		Summary struct {
			Sent, Succeeded, Failed int
			RequestsPerSecond       float64
			LatencyMS               map[string]float64 `json:"latencyMs"`
			FailedByStatus          map[string]int
			FailedByError           map[string]int
			Thresholds              []struct {
				Threshold, Metric, Unit string
				Got                     float64
				Pass                    bool
			}
		} `json:"summary"`
	}
	_ = json.Unmarshal(summaryJSON, &j)
	sum := j.Summary
	s := &Summary{Title: "whsim send", Target: target, Pass: pass, Failures: failures, More: more,
		Headline: fmt.Sprintf("%d sent, %d succeeded, %d failed, %s req/s", sum.Sent, sum.Succeeded, sum.Failed, num(sum.RequestsPerSecond))}
	lat := table{Head: []string{"p50", "p90", "p99", "p99.9", "max"}, Right: []bool{true, true, true, true, true}}
	var row []string
	for _, k := range lat.Head {
		row = append(row, num(sum.LatencyMS[k])+" ms")
	}
	lat.Rows = [][]string{row}
	lat.Caption = "Latency"
	s.Tables = append(s.Tables, lat)
	if len(sum.Thresholds) > 0 {
		t := table{Caption: "Thresholds", Head: []string{"threshold", "measured", "result"}}
		for _, th := range sum.Thresholds {
			got := num(th.Got)
			switch th.Unit {
			case "ms":
				got += " ms"
			case "percent":
				got += "%"
			case "perSecond":
				got += "/s"
			}
			verdict := "✅ ok"
			if !th.Pass {
				verdict = "❌ FAILED"
			}
			t.Rows = append(t.Rows, []string{th.Threshold, th.Metric + " " + got, verdict})
		}
		s.Tables = append(s.Tables, t)
	}
	if len(sum.FailedByStatus)+len(sum.FailedByError) > 0 {
		t := table{Caption: "Errors by kind", Head: []string{"kind", "deliveries"}, Right: []bool{false, true}}
		for _, k := range sortedKeys(sum.FailedByStatus) {
			t.Rows = append(t.Rows, []string{"status " + k, strconv.Itoa(sum.FailedByStatus[k])})
		}
		for _, k := range sortedKeys(sum.FailedByError) {
			t.Rows = append(t.Rows, []string{k, strconv.Itoa(sum.FailedByError[k])})
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

func num(v float64) string { return strconv.FormatFloat(float64(int64(v*10+0.5))/10, 'f', -1, 64) }

func sortedKeys(m map[string]int) []string {
	return slices.Sorted(maps.Keys(m))
}
