// Package jobsummary writes a run's short Markdown summary for the GitHub
// Actions job summary: when GITHUB_STEP_SUMMARY names a file, check, send
// and validate append the verdict, a table and the first failures to it,
// where CI users look first. Text that came from a receiver or a payload
// is shown as code, so it reads as text and cannot become markup or a
// link. A step's summary stays within GitHub's 1 MiB (MaxBytes): a larger
// one is dropped whole, so whsim's tables and failures are trimmed, and
// the summary says what it left out and where all of it is.
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

	"github.com/whsim/whsim/internal/atomicfile"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

// Env names the file GitHub Actions gives a step for its summary.
const Env = "GITHUB_STEP_SUMMARY"

// MaxFailures is how many failures a summary shows in full, and maxCode
// how much of each one's code: the job summary is short, the report whole.
// A command is never cut, as a cut one does not run as printed (an open
// quote): it is shown whole up to maxCommand, the most a reproduce
// command with a body inline takes (check inlines bodies up to 4 KiB,
// each ' quoted in four bytes), else where it is said.
const (
	MaxFailures = 5
	maxCode     = 1500
	maxCommand  = 16 << 10
)

// MaxBytes is the most GitHub keeps of one step's job summary: a larger
// file is dropped whole, the run's verdict with it.
const MaxBytes = 1 << 20

// maxSkipped is how many of what was skipped the heading names.
const maxSkipped = 10

// maxField bounds any one value a summary shows (a reason, a title, a
// cell, the target): one 2 MiB answer must not fill the summary.
const maxField = 2000

// Summary is one run's section of the job summary.
type Summary struct {
	Title  string // "whsim check"
	Target string // the receiver or the inputs
	Pass   bool
	// Interrupted: Ctrl-C ended the run, which is then no pass.
	Interrupted bool
	// Unfinished, when set, is why the run ended before its verdict
	// (check's receiver unreachable, its probe at fault: exit 2): the
	// heading says it did not complete, neither pass nor FAIL, and this
	// follows it as code, as it may quote what a receiver or probe said.
	Unfinished string
	// Skipped names what could not run (a check), which the heading says
	// beside the verdict: a skip is no pass.
	Skipped []string
	// Short, when set, says what a run with no failure left undone
	// (check's cases not judged, send's calls not started): the heading
	// says it instead of pass, as a run that judged or sent nothing of
	// what it set out to is none.
	Short    string
	Headline string
	// Notices are run-wide findings that make the rest read differently
	// (check's "every call got 404 Not Found: nothing is routed at this
	// URL"), each a line after the headline, as the run's text puts them
	// before its table: the likely cause, where CI users look first.
	Notices  []string
	Tables   []table
	Failures []Failure
	// More is how many failures are not shown.
	More int
	// Note ends the section (where the full report is).
	Note string
	// Full says where every row and failure is, for the line a trimmed
	// summary adds ("check.html"); "" is the step's log.
	Full string
}

// table is a Markdown table; Right marks the columns aligned right; Code
// the rows whose first cell came from elsewhere (an error a receiver or
// the network gave), shown as code.
type table struct {
	Caption string
	Head    []string
	Right   []bool
	Rows    [][]string
	Code    []int
}

// Failure is one failure shown in full: what failed, why, and a block of
// code (the command that reproduces it, the findings). ID, when set, is
// what names it that came from elsewhere (a payload's requestId), shown
// after the title as code: as text, a URL or an address in it would
// become a link. Command says Code is a command to paste, which is shown
// whole or not at all.
type Failure struct {
	Title, ID, Reason, Code string
	Command                 bool
}

// Markdown renders the section, within MaxBytes.
func (s *Summary) Markdown() []byte { return s.Within(MaxBytes) }

// Within renders the section in at most budget bytes: when the whole does
// not fit, the tables keep their first rows and the failures their first
// ones, as many as fit, and a line says how many were left out and where
// they all are. nil: not even the section's head fits.
func (s *Summary) Within(budget int) []byte {
	rows := 0
	for _, t := range s.Tables {
		rows = max(rows, len(t.Rows))
	}
	for fails := len(s.Failures); fails >= 0; fails-- {
		if md := s.render(rows, fails); len(md) <= budget {
			return md
		}
		// The largest row count per table that fits, by bisection: the
		// size grows with it.
		lo, hi := -1, rows // render(lo) fits (-1: none known), render(hi) does not
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if len(s.render(max(mid, 0), fails)) <= budget {
				lo = mid
			} else {
				hi = mid
			}
		}
		if lo >= 0 {
			return s.render(lo, fails)
		}
	}
	return nil
}

// render renders the section with at most rows rows per table and the
// first fails failures.
func (s *Summary) render(rows, fails int) []byte {
	var b bytes.Buffer
	mark := "✅ pass"
	switch {
	case s.Unfinished != "": // no verdict: whsim could not finish the run
		mark = "⚠️ did not complete"
	case s.Interrupted: // no verdict: the run did not finish
		mark = "⚠️ interrupted"
	case !s.Pass:
		mark = "❌ FAIL"
	case s.Short != "":
		mark = "⚠️ " + s.Short
	}
	if len(s.Skipped) > 0 && !s.Interrupted && s.Unfinished == "" {
		// validate's skipped are file names: text, as in the table, or
		// their markup would be the heading's; and a few, as a heading of
		// thousands would leave no room for the rest.
		names := make([]string, 0, maxSkipped)
		for _, n := range s.Skipped[:min(len(s.Skipped), maxSkipped)] {
			names = append(names, text(clip(n, maxField)))
		}
		mark += ", " + strings.Join(names, ", ")
		if more := len(s.Skipped) - len(names); more > 0 {
			mark += fmt.Sprintf(" and %d more", more)
		}
		mark += " skipped"
	}
	fmt.Fprintf(&b, "### %s: %s\n\n", text(clip(s.Title, maxField)), mark)
	if s.Target != "" {
		fmt.Fprintf(&b, "%s\n\n", code(clip(s.Target, maxField)))
	}
	if s.Unfinished != "" {
		fmt.Fprintf(&b, "**The run did not complete:** %s\n\n", code(clip(s.Unfinished, maxField)))
	}
	if s.Headline != "" {
		fmt.Fprintf(&b, "**%s**\n\n", text(clip(s.Headline, maxField)))
	}
	for _, n := range s.Notices {
		fmt.Fprintf(&b, "⚠️ %s\n\n", text(clip(n, maxField)))
	}
	leftRows := 0
	for _, t := range s.Tables {
		leftRows += t.write(&b, rows)
	}
	if leftRows > 0 {
		fmt.Fprintf(&b, "*%d table %s left out to keep this summary within GitHub's 1 MiB limit; every one is in %s.*\n\n",
			leftRows, plural(leftRows, "row", "rows"), s.full())
	}
	shown := s.Failures[:min(fails, len(s.Failures))]
	if len(shown) > 0 {
		fmt.Fprintf(&b, "#### First failures\n\n")
		for _, f := range shown {
			// The reason holds what the receiver answered: code, never
			// markup or a link.
			id := ""
			if f.ID != "" {
				id = " " + code(clip(f.ID, maxField))
			}
			fmt.Fprintf(&b, "- **%s**%s: %s\n", text(clip(f.Title, maxField)), id, code(clip(f.Reason, maxField)))
			if f.Command && len(f.Code) > maxCommand {
				fmt.Fprintf(&b, "\n  The command that reproduces it (%d bytes) is too long for this summary: it is in %s.\n\n", len(f.Code), s.full())
			} else if f.Code != "" {
				c := f.Code
				if !f.Command {
					c = clip(c, maxCode)
				}
				// Terminal-safe, newlines kept: a raw carriage return would
				// end the line for a Markdown reader, and what follows it,
				// unindented, would leave the list item and its block.
				c = termsafe.Lines(c)
				fence := strings.Repeat("`", max(3, longestRun(c, '`')+1))
				fmt.Fprintf(&b, "\n  %s\n", fence)
				for line := range strings.SplitSeq(strings.TrimRight(c, "\n"), "\n") {
					fmt.Fprintf(&b, "  %s\n", line)
				}
				fmt.Fprintf(&b, "  %s\n\n", fence)
			}
		}
	}
	trimmed := len(s.Failures) - len(shown)
	switch {
	case len(shown) > 0:
		if more := s.More + trimmed; more > 0 {
			fmt.Fprintf(&b, "\n…and %d more.\n", more)
		}
		b.WriteByte('\n')
	case trimmed > 0:
		fmt.Fprintf(&b, "#### Failures\n\n%d failures left out to keep this summary within GitHub's 1 MiB limit; every one is in %s.\n\n",
			trimmed+s.More, s.full())
	}
	if s.Note != "" {
		fmt.Fprintf(&b, "%s\n\n", text(clip(s.Note, maxField)))
	}
	// One blank line between blocks, however they ended.
	out := b.Bytes()
	for bytes.Contains(out, []byte("\n\n\n")) {
		out = bytes.ReplaceAll(out, []byte("\n\n\n"), []byte("\n\n"))
	}
	return out
}

// full is where every row and failure is.
func (s *Summary) full() string {
	if s.Full == "" {
		return "the step's log"
	}
	return code(clip(s.Full, maxField))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// clip cuts s to at most n bytes at a character's start, saying how much
// was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

// write writes the table with its first rows rows and returns how many
// it left out.
func (t table) write(b *bytes.Buffer, rows int) int {
	if len(t.Head) == 0 || len(t.Rows) == 0 {
		// A head over no rows says nothing (a run that ended before its
		// first case).
		return 0
	}
	if t.Caption != "" {
		fmt.Fprintf(b, "%s\n\n", text(t.Caption))
	}
	row := func(cells []string, asCode bool) {
		b.WriteByte('|')
		for i, c := range cells {
			if i == 0 && asCode {
				b.WriteString(" " + codeCell(c) + " |")
			} else {
				b.WriteString(" " + cell(c) + " |")
			}
		}
		b.WriteByte('\n')
	}
	row(t.Head, false)
	b.WriteByte('|')
	for i := range t.Head {
		if i < len(t.Right) && t.Right[i] {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteByte('\n')
	for i, r := range t.Rows[:min(rows, len(t.Rows))] {
		row(r, slices.Contains(t.Code, i))
	}
	b.WriteByte('\n')
	return len(t.Rows) - min(rows, len(t.Rows))
}

// text escapes what Markdown or HTML would read as markup, and, as the
// run's text and JUnit do (termsafe), the control and bidi characters a
// file name or a payload may hold, which would reorder or cut what GitHub
// shows; a line break is a space. GitHub's Markdown also makes a link of
// bare text that looks like one, with no markup to escape (GFM's
// autolinks: www.x, http://x, a@x): validate's file names would so link
// anywhere. The character each starts from is written as an entity,
// which shows the same but is no longer seen as one.
func text(s string) string {
	var b strings.Builder
	s = termsafe.Text(strings.NewReplacer("\n", " ", "\r", " ").Replace(s))
	for i, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '#', '|', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '@': // a@x.example, mailto:a@x
			b.WriteString("&#64;")
		case ':':
			if strings.HasPrefix(s[i+1:], "//") { // http://, https://, ftp://
				b.WriteString("&#58;")
			} else {
				b.WriteRune(r)
			}
		case '.':
			if i >= 3 && strings.EqualFold(s[i-3:i], "www") { // www.x
				b.WriteString("&#46;")
			} else {
				b.WriteRune(r)
			}
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func cell(s string) string { return text(clip(s, maxField)) }

// codeCell is s as inline code in a table cell: a pipe ends a cell even
// inside code, unless escaped.
func codeCell(s string) string {
	return strings.ReplaceAll(code(clip(s, maxField)), "|", `\|`)
}

// code is s as inline code, the fence longer than any backtick run in it,
// terminal-safe (termsafe.Text): one line, as the run's text shows it.
func code(s string) string {
	s = termsafe.Text(s)
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

// Append adds s to the job summary file at path, creating it, within what
// is left of MaxBytes after the sections already there (a step may run
// whsim more than once). When not even the section's head fits, nothing is
// written and the error says so.
func Append(path string, s *Summary) error {
	f, err := atomicfile.OpenInPlace(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", Env, err)
	}
	var held int64
	if fi, err := f.Stat(); err == nil {
		held = fi.Size()
	}
	md := s.Within(MaxBytes - int(min(held, MaxBytes)))
	if md == nil {
		f.Close()
		return fmt.Errorf("%s: the job summary already holds %d bytes, and GitHub drops one over %d: this run's section is left out", Env, held, MaxBytes)
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

// partlySkipped says how much of a suite was skipped when the rest of it
// was judged, " (1 of 3)"; "" when all of it was. A validate input with
// one payload of three not checked is no input skipped: its heading and
// its row would say the other two were not looked at.
func partlySkipped(skipped, judged int) string {
	if judged == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of %d)", skipped, skipped+judged)
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
			s.Skipped = append(s.Skipped, tl.Suite+partlySkipped(tl.Skipped, tl.Pass+tl.Warn+tl.Fail))
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
			switch {
			case tl.Skipped > 0 && tl.Pass+tl.Warn+tl.Fail > 0:
				row[4] = fmt.Sprintf("%d of %d", tl.Skipped, tl.Skipped+tl.Pass+tl.Warn+tl.Fail)
			case tl.Skipped > 0:
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

// EndedEarly marks the check run FromCollector summed as ended before
// its last check (stopped, interrupted): a column says which check it
// ended in ("cut short") and a row per check it never reached ("not
// run"), as check's own table does. A run that graded no case has no
// table to mark: its headline says why.
func (s *Summary) EndedEarly(cutShort string, notRun []string) {
	if len(s.Tables) == 0 || len(s.Tables[0].Rows) == 0 || cutShort == "" && len(notRun) == 0 {
		return
	}
	t := &s.Tables[0]
	t.Head, t.Right = append(t.Head, "ended"), append(t.Right, false)
	for i, row := range t.Rows {
		ended := ""
		if row[0] == cutShort {
			ended = "cut short"
		}
		t.Rows[i] = append(row, ended)
	}
	for _, id := range notRun {
		row := make([]string, len(t.Head))
		row[0], row[len(row)-1] = id, "not run"
		t.Rows = append(t.Rows, row)
	}
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
			Interrupted, NotStarted int
			NotStartedUncounted     bool
			Documents, Duplicates   int
			WithoutDocument         int
			RequestsPerSecond       *float64           // null: no call was answered
			LatencyMS               map[string]float64 `json:"latencyMs"`
			FailedByStatus          map[string]int
			FailedByError           map[string]int
			// Calls on kept-alive connections the receiver closed as
			// they arrived (sendout's summary, when not 0).
			ClosedAsSent, ResentAfterClose int
			// UnaskedAnswers counts kept-alive connections on which the
			// receiver sent bytes no call asked for: the run fails.
			UnaskedAnswers int
			Thresholds     []struct {
				Threshold, Metric, Unit string
				Got                     *float64 // null: not measured
				Pass                    bool
				// NotJudged says why the threshold was not judged:
				// the run did not finish (pass is false).
				NotJudged string
			}
		} `json:"summary"`
	}
	_ = json.Unmarshal(summaryJSON, &j)
	sum := j.Summary
	s := &Summary{Title: "whsim send", Target: target, Pass: pass, Failures: failures, More: more,
		Headline: sendHeadline(sum.Sent, sum.Documents, sum.WithoutDocument, sum.Duplicates, sum.Succeeded, sum.Failed, sum.Interrupted, sum.NotStarted, sum.NotStartedUncounted, sum.RequestsPerSecond)}
	if sum.NotStarted > 0 || sum.NotStartedUncounted {
		// Calls the run set out to make and never started (--duration
		// before --count's end, --max-concurrency full): not sent is no
		// pass, though the exit status counts only what was.
		s.Short = "no delivery failed, " + strconv.Itoa(sum.NotStarted) + " not started"
		if sum.NotStartedUncounted {
			s.Short = "no delivery failed, some not started"
		}
	}
	lat := table{Head: []string{"p50", "p90", "p99", "p99.9", "max"}, Right: []bool{true, true, true, true, true}}
	var row []string
	for _, k := range lat.Head {
		if sum.LatencyMS == nil { // null: no call was answered
			row = append(row, "none")
			continue
		}
		row = append(row, num(sum.LatencyMS[k])+" ms")
	}
	lat.Rows = [][]string{row}
	lat.Caption = "Latency"
	s.Tables = append(s.Tables, lat)
	if len(sum.Thresholds) > 0 {
		t := table{Caption: "Thresholds", Head: []string{"threshold", "measured", "result"}}
		for _, th := range sum.Thresholds {
			// Skipped is no pass, nor a failure: said as what it is.
			notJudged := "⏸️ not judged (" + th.NotJudged + ")"
			if th.Got == nil { // not measured: no call was answered
				verdict := "❌ FAILED"
				if th.NotJudged != "" {
					verdict = notJudged
				}
				t.Rows = append(t.Rows, []string{th.Threshold, th.Metric + " not measured (no call was answered)", verdict})
				continue
			}
			got := num(*th.Got)
			switch th.Unit {
			case "ms":
				got += " ms"
			case "percent":
				got += "%"
			case "perSecond":
				got += "/s"
			}
			verdict := "✅ ok"
			switch {
			case th.NotJudged != "":
				verdict, got = notJudged, got+" so far"
			case !th.Pass:
				verdict = "❌ FAILED"
			}
			t.Rows = append(t.Rows, []string{th.Threshold, th.Metric + " " + got, verdict})
		}
		s.Tables = append(s.Tables, t)
	}
	if len(sum.FailedByStatus)+len(sum.FailedByError)+sum.ResentAfterClose > 0 {
		t := table{Caption: "Errors by kind", Head: []string{"kind", "deliveries"}, Right: []bool{false, true}}
		for _, k := range sortedKeys(sum.FailedByStatus) {
			t.Rows = append(t.Rows, []string{"status " + k, strconv.Itoa(sum.FailedByStatus[k])})
		}
		for _, k := range sortedKeys(sum.FailedByError) {
			t.Rows = append(t.Rows, []string{k, strconv.Itoa(sum.FailedByError[k])})
			t.Code = append(t.Code, len(t.Rows)-1) // the error as the network said it
		}
		// Not a receiver refusing calls: they may have been taken.
		if n := sum.ClosedAsSent; n > 0 {
			t.Rows = append(t.Rows, []string{"of them, on a kept-alive connection the receiver closed as the call arrived (it may have been taken)", strconv.Itoa(n)})
		}
		if n := sum.ResentAfterClose; n > 0 {
			t.Rows = append(t.Rows, []string{"retries of a call whose kept-alive connection the receiver closed as it arrived (it may have taken it twice)", strconv.Itoa(n)})
		}
		s.Tables = append(s.Tables, t)
	}
	if n := sum.UnaskedAnswers; n > 0 {
		conns := "connections"
		if n == 1 {
			conns = "connection"
		}
		s.Headline += fmt.Sprintf("; the receiver sent bytes no call asked for after an answer on %d kept-alive %s (the statuses counted may not be the calls' own)", n, conns)
	}
	return s
}

// sendHeadline says every delivery's fate as send's summary counts them:
// the calls and the documents apart (a repeat is no new document), and
// the calls cut short or never started, which a run that was stopped
// leaves and which are neither succeeded nor failed.
func sendHeadline(sent, documents, without, duplicates, succeeded, failed, interrupted, notStarted int, uncounted bool, rps *float64) string {
	docs := fmt.Sprintf("%d documents", documents)
	if without > 0 {
		docs += fmt.Sprintf(", %d %s no document number", without, plural(without, "call carried", "calls carried"))
	}
	h := fmt.Sprintf("%d sent (%s, %d duplicates), %d succeeded, %d failed", sent, docs, duplicates, succeeded, failed)
	if interrupted > 0 {
		h += fmt.Sprintf(", %d interrupted", interrupted)
	}
	switch {
	case uncounted:
		// Replay of stdin stopped early: what it still held is not
		// known, and "0 not started" would say nothing was left.
		h += fmt.Sprintf(", %d not started and what stdin still held (not counted: it is read once)", notStarted)
	case notStarted > 0:
		h += fmt.Sprintf(", %d not started", notStarted)
	}
	if rps == nil {
		return h + ", no rate (no call was answered)"
	}
	return h + ", " + num(*rps) + " req/s"
}

func num(v float64) string { return strconv.FormatFloat(float64(int64(v*10+0.5))/10, 'f', -1, 64) }

func sortedKeys(m map[string]int) []string {
	return slices.Sorted(maps.Keys(m))
}
