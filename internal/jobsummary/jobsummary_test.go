package jobsummary

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

func TestText(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain words", "plain words"},
		{"<script>x</script>", "&lt;script&gt;x&lt;/script&gt;"},
		{"a|b", `a\|b`},
		{"*bold* _it_ [l](u) `c` #h", `\*bold\* \_it\_ \[l\](u) \` + "`" + `c\` + "`" + ` \#h`},
		{"two\nlines", "two lines"},
		{"a & b", "a &amp; b"},
		// GFM's autolinks, which need no markup: each loses the
		// character it starts from to an entity, which shows the same.
		{"www.evil.example.json", "www&#46;evil.example.json"},
		{"x WWW.evil.example", "x WWW&#46;evil.example"},
		{"see https://evil.example/x", "see https&#58;//evil.example/x"},
		{"ftp://e.example", "ftp&#58;//e.example"},
		{"a@evil.example mailto:b@e.example", "a&#64;evil.example mailto:b&#64;e.example"},
		{"time 12:30, 3.5 ms", "time 12:30, 3.5 ms"},
	}
	for _, tt := range tests {
		if got := text(tt.in); got != tt.want {
			t.Errorf("text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := code("a ``b`` c"); got != "``` a ``b`` c ```" {
		t.Errorf("code = %q", got)
	}
}

func TestMarkdown(t *testing.T) {
	t.Parallel()
	s := &Summary{Title: "whsim check", Pass: false, Target: "http://x/hook", Headline: "FAIL 1 of 2",
		Tables:   []table{{Head: []string{"check", "fail"}, Right: []bool{false, true}, Rows: [][]string{{"a|b", "1"}}}},
		Failures: []Failure{{Title: "c / n", Reason: "got 200", Code: "curl ```x```\n" + strings.Repeat("é", maxCode)}},
		More:     3, Note: "see report.html"}
	md := string(s.Markdown())
	for _, want := range []string{
		"### whsim check: ❌ FAIL\n\n",
		"` http://x/hook `\n\n",
		"**FAIL 1 of 2**\n\n",
		"| check | fail |\n| --- | ---: |\n| a\\|b | 1 |\n\n",
		"- **c / n**: ` got 200 `\n\n  ````\n  curl ```x```\n",
		"more bytes)\n  ````\n\n…and 3 more.\n\nsee report.html\n\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "\n\n\n") {
		t.Errorf("two blank lines in a row:\n%s", md)
	}
	if !strings.HasPrefix(string((&Summary{Title: "t", Pass: true}).Markdown()), "### t: ✅ pass") {
		t.Errorf("a passing run")
	}
}

func TestAppend(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "summary.md")
	for _, s := range []string{"one", "two"} {
		if err := Append(p, &Summary{Title: s, Pass: true}); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(p); string(b) != "### one: ✅ pass\n\n### two: ✅ pass\n\n" {
		t.Errorf("file holds %q", b)
	}
	if err := Append(filepath.Join(p, "nope"), &Summary{}); err == nil || !strings.Contains(err.Error(), Env) {
		t.Errorf("an unwritable file: %v", err)
	}
}

func TestSend(t *testing.T) {
	t.Parallel()
	js := []byte(`{"summary":{"sent":10,"succeeded":9,"failed":1,"interrupted":0,"notStarted":0,"duplicates":2,"documents":8,"requestsPerSecond":99.94,"latencyMs":{"p50":1.25,"p90":2,"p99":3,"p99.9":4,"max":5},"failedByStatus":{"503":1},"failedByError":{},"thresholds":[{"threshold":"p99<500ms","metric":"p99","got":3,"unit":"ms","pass":true}]}}`)
	md := string(Send(js, "http://x", false, []Failure{{Title: "#3 E", ID: "id", Reason: "status 503"}}, 0).Markdown())
	for _, want := range []string{"### whsim send: ❌ FAIL", "**10 sent (8 documents, 2 duplicates), 9 succeeded, 1 failed, 99.9 req/s**", "| 1.3 ms | 2 ms | 3 ms | 4 ms | 5 ms |",
		"| p99&lt;500ms | p99 3 ms | ✅ ok |", "| status 503 | 1 |", "- **\\#3 E** ` id `: ` status 503 `"} {
		if !strings.Contains(md, want) {
			t.Errorf("send summary lacks %q:\n%s", want, md)
		}
	}
}

// Calls that went out on kept-alive connections the receiver closed as
// they arrived are said apart in the errors table: they may have been
// taken, and those resent may have been taken twice. The table said
// "connection closed | 2" alone.
func TestSendClosedAsSent(t *testing.T) {
	t.Parallel()
	js := []byte(`{"summary":{"sent":10,"succeeded":8,"failed":2,"failedByStatus":{},"failedByError":{"connection closed":2},"closedAsSent":2,"resentAfterClose":3}}`)
	md := string(Send(js, "http://x", false, nil, 0).Markdown())
	for _, want := range []string{"| ` connection closed ` | 2 |",
		"| of them, on a kept-alive connection the receiver closed as the call arrived (it may have been taken) | 2 |",
		"| retries of a call whose kept-alive connection the receiver closed as it arrived (it may have taken it twice) | 3 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("send summary lacks %q:\n%s", want, md)
		}
	}
}

// The calls that carried no document number are said beside the
// documents, and only when there are some.
func TestSendWithoutDocument(t *testing.T) {
	t.Parallel()
	js := []byte(`{"summary":{"sent":6,"succeeded":6,"failed":0,"documents":2,"withoutDocument":3,"duplicates":1,"requestsPerSecond":5}}`)
	md := string(Send(js, "http://x", true, nil, 0).Markdown())
	if want := "**6 sent (2 documents, 3 calls carried no document number, 1 duplicates), 6 succeeded, 0 failed, 5 req/s**"; !strings.Contains(md, want) {
		t.Errorf("send summary lacks %q:\n%s", want, md)
	}
	js = []byte(`{"summary":{"sent":1,"succeeded":1,"failed":0,"documents":0,"withoutDocument":1,"duplicates":0,"requestsPerSecond":5}}`)
	if md := string(Send(js, "http://x", true, nil, 0).Markdown()); !strings.Contains(md, "(0 documents, 1 call carried no document number, 0 duplicates)") {
		t.Errorf("send summary of one call without a document:\n%s", md)
	}
}

// A send stopped by Ctrl-C is no pass, even with nothing failed, and its
// headline counts the calls cut short and those never started.
func TestSendInterrupted(t *testing.T) {
	t.Parallel()
	js := []byte(`{"summary":{"sent":16,"succeeded":8,"failed":0,"interrupted":8,"notStarted":184,"duplicates":0,"documents":16,"requestsPerSecond":5}}`)
	s := Send(js, "http://x", true, nil, 0)
	s.Interrupted = true
	md := string(s.Markdown())
	for _, want := range []string{"### whsim send: ⚠️ interrupted", "**16 sent (16 documents, 0 duplicates), 8 succeeded, 0 failed, 8 interrupted, 184 not started, 5 req/s**"} {
		if !strings.Contains(md, want) {
			t.Errorf("send summary lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "pass") {
		t.Errorf("an interrupted send says pass:\n%s", md)
	}
}

// A replay of stdin stopped early says that what stdin still held was not
// started and not counted, not "0 not started".
func TestReplayOfStdinInterrupted(t *testing.T) {
	t.Parallel()
	js := []byte(`{"summary":{"sent":4,"succeeded":2,"failed":0,"interrupted":2,"notStarted":0,"notStartedUncounted":true,"duplicates":0,"requestsPerSecond":3}}`)
	s := Send(js, "http://x", true, nil, 0)
	s.Interrupted = true
	md := string(s.Markdown())
	want := "**4 sent (0 documents, 0 duplicates), 2 succeeded, 0 failed, 2 interrupted, 0 not started and what stdin still held (not counted: it is read once), 3 req/s**"
	if !strings.Contains(md, want) {
		t.Errorf("summary lacks %q:\n%s", want, md)
	}
}

// validateCase is a validate input as the collector sees it.
type validateCase struct {
	file   string
	fail   bool
	reason string
}

func (c validateCase) Verdict() term.Verdict {
	if c.fail {
		return term.Fail
	}
	return term.Pass
}
func (c validateCase) AppendText(b []byte, _ *term.Style) []byte { return b }
func (c validateCase) AppendJSON(b []byte, _ *term.Style) []byte { return b }
func (c validateCase) JUnit() term.TestCase {
	return term.TestCase{Suite: c.file, Name: c.file + ":1", Failure: c.reason, Detail: "error " + c.reason}
}

// GitHub drops a job summary over 1 MiB whole: one from 12,000 validate
// inputs, and one holding a 2 MiB value, stay within it and say what they
// left out and where all of it is.
func TestSummaryStaysWithinGitHubsLimit(t *testing.T) {
	t.Parallel()
	col := &term.Collector{}
	for i := range 12000 {
		name := fmt.Sprintf("payloads/2026-12-02/receivables/batch-%05d/webhook-receivable-document-%05d.json", i/100, i)
		if err := col.Case(validateCase{file: name, fail: i%3 == 0, reason: "envelope-request-id requestId is not a UUID"}); err != nil {
			t.Fatal(err)
		}
	}
	many := FromCollector(col, "whsim validate", "input", false)
	if whole := len(many.render(12000, len(many.Failures))); whole <= MaxBytes {
		t.Fatalf("the whole summary is %d bytes: the test needs one over %d", whole, MaxBytes)
	}
	huge := strings.Repeat("答", 700_000) // 2.1 MB
	big := &Summary{Title: "whsim check", Target: "http://x/" + huge, Headline: huge,
		Tables:   []table{{Head: []string{"check", "fail"}, Rows: [][]string{{huge, "1"}}}},
		Failures: []Failure{{Title: huge, Reason: huge, Code: huge}}, Note: "see report.html", Full: "report.html"}
	for _, tt := range []struct {
		name string
		s    *Summary
		want []string
	}{
		{"12,000 inputs", many, []string{"table rows left out to keep this summary within GitHub's 1 MiB limit; every one is in the step's log.",
			"| input | pass | warn | fail |", "…and 3995 more."}},
		{"a 2 MiB value", big, []string{"… (2098002 more bytes)", "see report.html"}},
	} {
		md := tt.s.Markdown()
		if len(md) > MaxBytes {
			t.Errorf("%s: %d bytes, over %d", tt.name, len(md), MaxBytes)
		}
		for _, w := range tt.want {
			if !bytes.Contains(md, []byte(w)) {
				t.Errorf("%s: the summary lacks %q", tt.name, w)
			}
		}
	}
	// The count of rows left out is true: shown plus left out is all.
	md := string(many.Markdown())
	shown := strings.Count(md, "\n| payloads/")
	m := regexp.MustCompile(`\*(\d+) table rows left out`).FindStringSubmatch(md)
	if m == nil || shown+atoi(t, m[1]) != 12000 {
		t.Errorf("%d rows shown, %v left out, of 12000", shown, m)
	}
	// A step's earlier sections count: what is left is what is used.
	p := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), MaxBytes-200_000), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Append(p, many); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Size() > MaxBytes || fi.Size() < MaxBytes-200_000+1000 {
		t.Errorf("after appending, the summary is %d bytes", fi.Size())
	}
	// A full summary gets nothing more, and says so.
	if err := Append(p, many); err == nil || !strings.Contains(err.Error(), "left out") {
		t.Errorf("appending to a full summary: %v", err)
	}
	if fi, _ := os.Stat(p); fi.Size() > MaxBytes {
		t.Errorf("the summary grew to %d bytes", fi.Size())
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// What a receiver answered is shown as code: a URL in it is no link, and
// markup in it is no markup.
func TestReceiverTextIsCode(t *testing.T) {
	t.Parallel()
	answer := "got 500: see https://evil.example/login?next=x and www.evil.example, `tick` <b>x</b> [l](https://e.example)"
	s := &Summary{Title: "whsim check", Failures: []Failure{{Title: "c / n", Reason: answer}}}
	md := string(s.Markdown())
	want := "- **c / n**: `` " + answer + " ``\n"
	if !strings.Contains(md, want) {
		t.Errorf("the answer is not one code span:\n%s\nwant %q", md, want)
	}
	// A payload's requestId that names a failure is code too.
	s = &Summary{Title: "whsim send", Failures: []Failure{{Title: "#1 E", ID: "www.evil.example `x` a@evil.example", Reason: "status 500"}}}
	if md := string(s.Markdown()); !strings.Contains(md, "- **\\#1 E** `` www.evil.example `x` a@evil.example ``: ` status 500 `\n") {
		t.Errorf("a requestId is not a code span:\n%s", md)
	}
	js := []byte(`{"summary":{"sent":1,"failed":1,"failedByError":{"lookup https://evil.example|x: no such host":1}}}`)
	md = string(Send(js, "http://x", false, nil, 1).Markdown())
	if !strings.Contains(md, "| ` lookup https://evil.example\\|x: no such host ` | 1 |") {
		t.Errorf("an error from the network is not a code cell:\n%s", md)
	}
}

// The heading names what was skipped: validate's file names, which are
// escaped there as in the table (a name with markup, a line break or a
// link in it stays one heading of text), and at most maxSkipped of them.
func TestHeadingSkippedNamesAreText(t *testing.T) {
	t.Parallel()
	name := "x<img src=x>[click](http:e.example)`c` |a|\n# h.ndjson"
	s := &Summary{Title: "whsim validate", Pass: true, Skipped: []string{name}}
	md := string(s.Markdown())
	want := "### whsim validate: ✅ pass, x&lt;img src=x&gt;\\[click\\](http:e.example)\\`c\\` \\|a\\| \\# h.ndjson skipped\n\n"
	if !strings.HasPrefix(md, want) {
		t.Errorf("heading:\n%s\nwant it to start %q", md, want)
	}
	var many []string
	for i := range maxSkipped + 3 {
		many = append(many, fmt.Sprintf("in%d.ndjson", i))
	}
	s = &Summary{Title: "whsim validate", Pass: true, Skipped: many}
	head, _, _ := strings.Cut(string(s.Markdown()), "\n")
	want = fmt.Sprintf("### whsim validate: ✅ pass, %s and 3 more skipped", strings.ReplaceAll(strings.Join(many[:maxSkipped], ", "), "_", `\_`))
	if head != want {
		t.Errorf("heading %q, want %q", head, want)
	}
	// One past the names shown is counted too: the heading must not read
	// as if every skipped input were named.
	s = &Summary{Title: "whsim validate", Pass: true, Skipped: many[:maxSkipped+1]}
	head, _, _ = strings.Cut(string(s.Markdown()), "\n")
	if !strings.HasSuffix(head, " and 1 more skipped") {
		t.Errorf("heading %q, want it to end \"and 1 more skipped\"", head)
	}
}

// A run-wide finding (check's every call got 404) follows the headline
// as a line of text of its own.
func TestNotices(t *testing.T) {
	t.Parallel()
	s := &Summary{Title: "whsim check", Headline: "FAIL 1 of 1 checks failed: accepts-valid",
		Notices: []string{"every call got 404 Not Found: nothing is routed at this URL: check the path of --url"}}
	want := "**FAIL 1 of 1 checks failed: accepts-valid**\n\n⚠️ every call got 404 Not Found: nothing is routed at this URL: check the path of --url\n\n"
	if md := string(s.Markdown()); !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q:\n%s", want, md)
	}
}

// A command is shown whole, never cut (a cut one does not run as
// printed); one too long for the summary is said to be elsewhere. Other
// code (validate's findings) is cut at maxCode.
func TestCommandsAreWhole(t *testing.T) {
	t.Parallel()
	cmd := "curl -X POST 'http://x/' --data-binary '" + strings.Repeat("d", 3*maxCode) + "'"
	huge := "curl -X POST 'http://x/' --data-binary '" + strings.Repeat("d", maxCommand) + "'"
	s := &Summary{Title: "whsim check", Full: "check.html", Failures: []Failure{
		{Title: "a", Reason: "r", Code: cmd, Command: true},
		{Title: "b", Reason: "r", Code: huge, Command: true},
		{Title: "c", Reason: "r", Code: cmd},
	}}
	md := string(s.Markdown())
	if !strings.Contains(md, "\n  "+cmd+"\n") {
		t.Errorf("the command is not whole")
	}
	if want := fmt.Sprintf("\n  The command that reproduces it (%d bytes) is too long for this summary: it is in ` check.html `.\n", len(huge)); !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q", want)
	}
	if strings.Contains(md, huge[:maxCommand]) {
		t.Errorf("a part of the command too long is shown")
	}
	if want := "\n  " + cmd[:maxCode] + "… (" + strconv.Itoa(len(cmd)-maxCode) + " more bytes)\n"; !strings.Contains(md, want) {
		t.Errorf("code that is no command is not cut at maxCode")
	}
}

// A name that came from outside and is shown as text (validate's file
// names, in its table and as a failure's title) is never a link.
func TestTextNamesAreNoLinks(t *testing.T) {
	t.Parallel()
	s := &Summary{Title: "whsim validate", Headline: "FAIL",
		Tables:   []table{{Head: []string{"input", "fail"}, Rows: [][]string{{"www.evil.example.json", "1"}, {"a@evil.example", "1"}}}},
		Failures: []Failure{{Title: "http://evil.example/x.json:1", Reason: "bad"}}}
	md := string(s.Markdown())
	for _, want := range []string{
		"| www&#46;evil.example.json | 1 |\n",
		"| a&#64;evil.example | 1 |\n",
		"- **http&#58;//evil.example/x.json:1**: ` bad `\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// What GFM's autolink extension would make a link of.
	linkLike := regexp.MustCompile(`(?i)\bwww\.|\b(?:https?|ftp)://|[\w.+-]+@[\w-]+\.`)
	for _, link := range linkLike.FindAllString(md, -1) {
		t.Errorf("%q would be a link:\n%s", link, md)
	}
}

// With little room left, the first failures that fit are shown and the
// rest counted; with none, nothing.
func TestWithinKeepsTheFirstFailuresThatFit(t *testing.T) {
	t.Parallel()
	s := &Summary{Title: "whsim check", Pass: false}
	for i := range 5 {
		s.Failures = append(s.Failures, Failure{Title: fmt.Sprintf("case %d", i), Reason: "got 200", Code: strings.Repeat("x", 1000)})
	}
	whole := len(s.Within(MaxBytes))
	md := string(s.Within(whole - 500))
	if len(md) > whole-500 || !strings.Contains(md, "case 3") || strings.Contains(md, "case 4") || !strings.Contains(md, "…and 1 more.") {
		t.Errorf("within %d bytes:\n%s", whole-500, md)
	}
	md = string(s.Within(200))
	if len(md) > 200 || !strings.Contains(md, "5 failures left out to keep this summary within GitHub's 1 MiB limit") {
		t.Errorf("within 200 bytes: %q", md)
	}
	if got := s.Within(10); got != nil {
		t.Errorf("within 10 bytes: %q, want nothing", got)
	}
}

// skipCase is a case reported to a collector: passed, or not made.
type skipCase struct{ suite, skip string }

func (c skipCase) Verdict() term.Verdict                     { return term.Pass }
func (c skipCase) AppendText(b []byte, _ *term.Style) []byte { return b }
func (c skipCase) AppendJSON(b []byte, _ *term.Style) []byte { return append(b, "{}\n"...) }
func (c skipCase) JUnit() term.TestCase {
	return term.TestCase{Suite: c.suite, Name: "x", Skipped: c.skip}
}

// warnCase is a warning a collector is given; inconclusive, it is also
// not judged (check's TestCase.Skipped on a warning, for JUnit's <skipped>).
type warnCase struct {
	suite        string
	inconclusive bool
}

func (c warnCase) Verdict() term.Verdict                     { return term.Warn }
func (c warnCase) AppendText(b []byte, _ *term.Style) []byte { return b }
func (c warnCase) AppendJSON(b []byte, _ *term.Style) []byte { return append(b, "{}\n"...) }
func (c warnCase) JUnit() term.TestCase {
	tc := term.TestCase{Suite: c.suite, Name: "x", Detail: "warn: why"}
	if c.inconclusive {
		tc.Skipped = "why"
	}
	return tc
}

type lastLineSummary string

func (s lastLineSummary) Title() string                             { return "whsim check" }
func (s lastLineSummary) AppendText(b []byte, _ *term.Style) []byte { return append(b, s...) }
func (s lastLineSummary) AppendJSON(b []byte) []byte                { return b }

// TestFromCollectorSkipped: a check that could not run is said skipped in
// the heading and in a column of its own, never counted a pass.
func TestFromCollectorSkipped(t *testing.T) {
	t.Parallel()
	col := &term.Collector{}
	_ = col.Case(skipCase{"accepts-valid", ""})
	_ = col.Case(skipCase{"effects", "needs a probe"})
	_ = col.Finish(lastLineSummary("ok 1 of 2 checks passed (0 warnings); effects skipped: storage not verified (--probe)\n"))
	md := string(FromCollector(col, "whsim check", "check", true).Markdown())
	for _, want := range []string{
		"### whsim check: ✅ pass, effects skipped\n",
		"| check | pass | warn | fail | skipped |\n",
		"| accepts-valid | 1 | 0 | 0 |  |\n",
		"| effects | 0 | 0 | 0 | skipped |\n",
		"effects skipped: storage not verified (--probe)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// An input of validate with one payload of three not checked: the
	// rest were judged, so neither the heading nor the row says the
	// whole input was skipped.
	col = &term.Collector{}
	_ = col.Case(skipCase{"mix.ndjson", ""})
	_ = col.Case(skipCase{"mix.ndjson", "not checked: the body is not JSON"})
	_ = col.Case(skipCase{"mix.ndjson", ""})
	_ = col.Case(skipCase{"other.ndjson", "not checked: the body is not JSON"})
	_ = col.Finish(lastLineSummary("ok: 2 payloads checked, 2 not checked, 0 failed; 0 errors, 0 warnings\n"))
	md = string(FromCollector(col, "whsim validate", "input", true).Markdown())
	for _, want := range []string{
		"### whsim validate: ✅ pass, mix.ndjson (1 of 3), other.ndjson skipped\n",
		"| input | pass | warn | fail | skipped |\n",
		"| mix.ndjson | 2 | 0 | 0 | 1 of 3 |\n",
		"| other.ndjson | 0 | 0 | 0 | skipped |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	col = &term.Collector{}
	_ = col.Case(skipCase{"accepts-valid", ""})
	_ = col.Finish(lastLineSummary("ok every check passed (0 warnings)\n"))
	if md := string(FromCollector(col, "whsim check", "check", true).Markdown()); strings.Contains(md, "skipped") {
		t.Errorf("nothing skipped, yet:\n%s", md)
	}
}

// TestFromCollectorInconclusiveIsAWarning: a case check could not judge
// (the first delivery of a duplicates case refused) is a warning in
// check's own table, text and HTML; the job summary counts it so, in the
// warn column, and does not call its check skipped, which ran.
func TestFromCollectorInconclusiveIsAWarning(t *testing.T) {
	t.Parallel()
	col := &term.Collector{}
	_ = col.Case(skipCase{"duplicates", ""})
	_ = col.Case(warnCase{"duplicates", true})
	_ = col.Case(warnCase{"duplicates", false})
	_ = col.Finish(lastLineSummary("ok every check passed (2 warnings)\n"))
	md := string(FromCollector(col, "whsim check", "check", true).Markdown())
	for _, want := range []string{
		"### whsim check: ✅ pass\n",
		"| check | pass | warn | fail |\n",
		"| duplicates | 1 | 2 | 0 |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "skipped") {
		t.Errorf("a check that ran is said skipped:\n%s", md)
	}
}

// TestUnfinished: a run that ended before its verdict (check's receiver
// unreachable, its probe at fault: exit 2) is neither pass nor FAIL; the
// section says it did not complete, and why as code (a probe's error
// quotes what the receiver answered).
func TestUnfinished(t *testing.T) {
	t.Parallel()
	s := &Summary{Title: "whsim check", Target: "http://x/hook", Pass: true,
		Unfinished: "probe http://x/p: answered 500: <b>[x](y)</b> | `z`"}
	md := string(s.Markdown())
	for _, want := range []string{
		"### whsim check: ⚠️ did not complete\n\n",
		"**The run did not complete:** `` probe http://x/p: answered 500: <b>[x](y)</b> | `z` ``\n\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "pass") || strings.Contains(md, "FAIL") {
		t.Errorf("a run that did not complete has a verdict:\n%s", md)
	}
}

// TestControlsAreEscaped: a value from outside (a file name validate was
// given, a requestId of a payload send --file read, the findings on a
// key) may hold control and bidi characters. The summary shows them
// escaped, as the run's text and JUnit do (termsafe): raw, a U+202E
// reorders the line GitHub shows, and a carriage return in a failure's
// block ends its line there for a Markdown reader, so that what follows
// leaves the list item and its code block and is read as Markdown.
func TestControlsAreEscaped(t *testing.T) {
	t.Parallel()
	s := &Summary{Title: "whsim send", Target: "http://x/\u202e", Headline: "h",
		Tables:   []table{{Head: []string{"input"}, Rows: [][]string{{"evil\u202etxt.json\x01"}}}},
		Failures: []Failure{{Title: "#1 E evil\u202etxt\x1b[31m", Reason: "got\u202e 500\r", Code: "line 1\r# INJECTED\r<b>x</b>\nline 2\u2067"}}}
	md := string(s.Markdown())
	for _, want := range []string{
		`| evil\\u202etxt.json\\x01 |` + "\n",
		"- **" + `\#1 E evil\\u202etxt\\x1b\[31m` + "**: ` " + `got\u202e 500\r` + " `\n",
		"  ```\n  line 1\\r# INJECTED\\r<b>x</b>\n  line 2\\u2067\n  ```\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for i, r := range md {
		if r == '\r' || r == 0x1b || r == 1 || r == 0x202e || r == 0x2067 {
			t.Errorf("raw %U at byte %d:\n%s", r, i, md)
		}
	}
}

// TestEndedEarly: a check run that ended early (stopped, interrupted)
// shows every check in its table, as check's text and report do: the one
// it ended in cut short, each after it not run, never left out.
func TestEndedEarly(t *testing.T) {
	t.Parallel()
	col := &term.Collector{}
	_ = col.Case(skipCase{"accepts-valid", ""})
	_ = col.Case(warnCase{"rejects-malformed", false})
	_ = col.Finish(lastLineSummary("FAIL the receiver stopped answering after rejects-malformed/x: 3 calls in a row got no answer; 2 of 9 cases run, 2 checks not run\n"))
	s := FromCollector(col, "whsim check", "check", false)
	s.EndedEarly("rejects-malformed", []string{"load", "latency"})
	md := string(s.Markdown())
	want := "| check | pass | warn | fail | ended |\n| --- | ---: | ---: | ---: | --- |\n" +
		"| accepts-valid | 1 | 0 | 0 |  |\n| rejects-malformed | 0 | 1 | 0 | cut short |\n" +
		"| load |  |  |  | not run |\n| latency |  |  |  | not run |\n"
	if !strings.Contains(md, want) {
		t.Errorf("markdown lacks\n%s\nin:\n%s", want, md)
	}
	// A run that ended before its first case has no table to mark.
	empty := FromCollector(&term.Collector{}, "whsim check", "check", false)
	empty.EndedEarly("accepts-valid", []string{"load"})
	if md := string(empty.Markdown()); strings.Contains(md, "| check") {
		t.Errorf("a table of a run that graded nothing:\n%s", md)
	}
}

// A send whose receiver sent bytes no call asked for is no pass, and its
// headline says why, though every delivery counted succeeded.
func TestSendUnaskedAnswers(t *testing.T) {
	t.Parallel()
	js := []byte(`{"summary":{"sent":5,"succeeded":5,"failed":0,"interrupted":0,"notStarted":0,"duplicates":0,"documents":5,"requestsPerSecond":50,"unaskedAnswers":5}}`)
	md := string(Send(js, "http://x", false, nil, 0).Markdown())
	want := "5 sent (5 documents, 0 duplicates), 5 succeeded, 0 failed, 50 req/s; the receiver sent bytes no call asked for after an answer on 5 kept-alive connections (the statuses counted may not be the calls' own)"
	if !strings.Contains(md, want) || strings.Contains(md, "pass") {
		t.Errorf("send summary lacks %q, or says pass:\n%s", want, md)
	}
}

// A run with no failure whose cases were not all judged (check's
// inconclusive) claims no pass in its heading: GitHub shows the heading,
// and a run that judged nothing read "✅ pass". A failure, an interrupt or
// an unfinished run say their own.
func TestHeadingOfUnjudgedCases(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    Summary
		want string
	}{
		{Summary{Title: "c", Pass: true}, "### c: ✅ pass\n"},
		{Summary{Title: "c", Pass: true, Short: "no check failed, 1 case not judged"}, "### c: ⚠️ no check failed, 1 case not judged\n"},
		{Summary{Title: "c", Pass: true, Short: "no check failed, 6 cases not judged", Skipped: []string{"effects"}}, "### c: ⚠️ no check failed, 6 cases not judged, effects skipped\n"},
		{Summary{Title: "c", Pass: false, Short: "x"}, "### c: ❌ FAIL\n"},
		{Summary{Title: "c", Pass: false, Interrupted: true, Short: "x"}, "### c: ⚠️ interrupted\n"},
		// Skipped checks are said by a heading with a verdict: an
		// interrupted or unfinished run has none to qualify.
		{Summary{Title: "c", Pass: false, Interrupted: true, Skipped: []string{"signature"}}, "### c: ⚠️ interrupted\n"},
		{Summary{Title: "c", Pass: false, Unfinished: "probe failed", Skipped: []string{"signature"}}, "### c: ⚠️ did not complete\n"},
		{Summary{Title: "c", Pass: false, Unfinished: "probe failed", Short: "x"}, "### c: ⚠️ did not complete\n"},
	} {
		if md := string(tc.s.Markdown()); !strings.HasPrefix(md, tc.want) {
			t.Errorf("%+v: heading %q, want %q", tc.s, strings.SplitAfter(md, "\n")[0], tc.want)
		}
	}
}

// A send whose calls were not all started (--duration before --count's
// end, --max-concurrency full) with none failed exits 0 as documented,
// but its heading claims no pass: it read "✅ pass" with 90 of 100 calls
// never sent.
func TestSendNotAllStarted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ json, heading string }{
		{`{"summary":{"sent":10,"succeeded":10,"failed":0,"notStarted":90,"documents":10}}`, "### whsim send: ⚠️ no delivery failed, 90 not started\n"},
		{`{"summary":{"sent":10,"succeeded":10,"failed":0,"notStarted":0,"notStartedUncounted":true,"documents":10}}`, "### whsim send: ⚠️ no delivery failed, some not started\n"},
		{`{"summary":{"sent":10,"succeeded":10,"failed":0,"notStarted":0,"documents":10}}`, "### whsim send: ✅ pass\n"},
	} {
		if md := string(Send([]byte(tc.json), "http://x", true, nil, 0).Markdown()); !strings.HasPrefix(md, tc.heading) {
			t.Errorf("%s: heading %q, want %q", tc.json, strings.SplitAfter(md, "\n")[0], tc.heading)
		}
	}
	if md := string(Send([]byte(`{"summary":{"sent":10,"succeeded":9,"failed":1,"notStarted":90}}`), "http://x", false, nil, 0).Markdown()); !strings.HasPrefix(md, "### whsim send: ❌ FAIL\n") {
		t.Errorf("a failed send with calls not started: %q", strings.SplitAfter(md, "\n")[0])
	}
}

// Only failing cases are listed as failures: a warning or a skipped case
// listed under "First failures" would read as one more failure.
func TestFromCollectorListsOnlyFailures(t *testing.T) {
	t.Parallel()
	col := &term.Collector{}
	_ = col.Case(skipCase{"accepts-valid", ""})
	_ = col.Case(skipCase{"effects", "needs a probe"})
	_ = col.Case(warnCase{"rejects-malformed", false})
	_ = col.Case(warnCase{"duplicates", true})
	_ = col.Finish(lastLineSummary("ok 3 of 4 checks passed (2 warnings)\n"))
	s := FromCollector(col, "whsim check", "check", true)
	if len(s.Failures) != 0 || s.More != 0 {
		t.Errorf("failures %+v and %d more, want none", s.Failures, s.More)
	}
	if md := string(s.Markdown()); strings.Contains(md, "failures") {
		t.Errorf("a run with no failure lists some:\n%s", md)
	}
}

// Failures none of which fit are counted whole where the summary says
// they were left out: those past MaxFailures (More) too.
func TestWithinCountsEveryFailureLeftOut(t *testing.T) {
	t.Parallel()
	s := &Summary{Title: "whsim check", Pass: false, More: 3}
	for i := range MaxFailures {
		s.Failures = append(s.Failures, Failure{Title: fmt.Sprintf("case %d", i), Reason: "got 200", Code: strings.Repeat("x", 1000)})
	}
	if md := string(s.Within(200)); !strings.Contains(md, "8 failures left out") {
		t.Errorf("within 200 bytes: %q, want 8 failures left out", md)
	}
}

// A table none of whose rows fit keeps its head and says how many rows
// were left out, rather than the whole section being dropped.
func TestWithinKeepsATableHeadWithNoRow(t *testing.T) {
	t.Parallel()
	s := &Summary{Title: "whsim send", Pass: true, Tables: []table{{Head: []string{"status", "calls"}, Rows: [][]string{{strings.Repeat("5", 2000), "1"}}}}}
	md := string(s.Within(600))
	if md == "" || !strings.Contains(md, "| status | calls |") || !strings.Contains(md, "1 table row left out") {
		t.Errorf("within 600 bytes: %q, want the head and 1 table row left out", md)
	}
}

// A run cut short in its last check has no check left not run, and one
// that stopped between checks none cut short: each still gets the ended
// column, as check's own table does.
func TestEndedEarlyWithOneOfTheTwo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cutShort string
		notRun   []string
		want     string
	}{
		{"latency", nil, "| latency | 1 | 0 | 0 | cut short |\n"},
		{"", []string{"load"}, "| load |  |  |  | not run |\n"},
	} {
		col := &term.Collector{}
		_ = col.Case(skipCase{"accepts-valid", ""})
		_ = col.Case(skipCase{"latency", ""})
		_ = col.Finish(lastLineSummary("interrupted\n"))
		s := FromCollector(col, "whsim check", "check", false)
		s.EndedEarly(tc.cutShort, tc.notRun)
		if md := string(s.Markdown()); !strings.Contains(md, "| check | pass | warn | fail | ended |\n") || !strings.Contains(md, tc.want) {
			t.Errorf("EndedEarly(%q, %q): markdown lacks the ended column or %q:\n%s", tc.cutShort, tc.notRun, tc.want, md)
		}
	}
}

// FuzzText checks what text writes for any input: one line, no markup a
// Markdown reader would act on (a raw < or >, an unescaped markup
// character, a bare autolink), and, read back as Markdown reads its
// escapes and entities, the text termsafe shows.
func FuzzText(f *testing.F) {
	for _, s := range []string{"plain", "<b>x</b>", "a|b", `a\|b`, "*x* _y_ [l](u) `c` #h ~s~", "a\nb\rc",
		"www.evil.example", "WwW.x", "https://evil.example", "a@b.example", "x & y &amp;", "\x1b[31m\xff", "::error::x", "中文 😀"} {
		f.Add(s)
	}
	// What GFM's autolink extension would make a link of.
	linkLike := regexp.MustCompile(`(?i)\bwww\.|\b(?:https?|ftp)://|@`)
	// Markdown's reading of text's escapes: a backslash before ASCII
	// punctuation, and the entities text writes.
	unescape := regexp.MustCompile(`\\[!-/:-@\[-` + "`" + `{-~]|&(?:lt|gt|amp|#[0-9]+);`)
	entities := map[string]string{"&lt;": "<", "&gt;": ">", "&amp;": "&"}
	entity := regexp.MustCompile(`&(?:lt|gt|amp|#[0-9]+);`)
	f.Fuzz(func(t *testing.T, s string) {
		got := text(s)
		if strings.ContainsAny(got, "\n\r<>") {
			t.Fatalf("text(%q) = %q holds a line break or a raw < or >", s, got)
		}
		if link := linkLike.FindString(got); link != "" {
			t.Fatalf("text(%q) = %q holds %q, which GFM would link", s, got, link)
		}
		// Every markup character outside the entities is escaped: an odd
		// run of backslashes before it.
		bare := entity.ReplaceAllString(got, "e")
		for i := 0; i < len(bare); i++ {
			if !strings.ContainsRune("`*_[]#|~", rune(bare[i])) {
				continue
			}
			n := 0
			for j := i - 1; j >= 0 && bare[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				t.Fatalf("text(%q) = %q leaves %q unescaped", s, got, bare[i])
			}
		}
		shown := unescape.ReplaceAllStringFunc(got, func(e string) string {
			if e[0] == '\\' {
				return e[1:]
			}
			if r, ok := entities[e]; ok {
				return r
			}
			n, _ := strconv.Atoi(e[2 : len(e)-1])
			return string(rune(n))
		})
		if want := termsafe.Text(strings.NewReplacer("\n", " ", "\r", " ").Replace(s)); shown != want {
			t.Fatalf("text(%q) = %q reads as %q, want %q", s, got, shown, want)
		}
	})
}

// Each threshold's row says its own verdict: one that held, one that did
// not, and one not measured (no call answered), which fails rather than
// holding on a 0.
func TestSendThresholdVerdicts(t *testing.T) {
	t.Parallel()
	js := []byte(`{"summary":{"sent":10,"succeeded":10,"failed":0,"documents":10,"requestsPerSecond":5,"latencyMs":{"p50":1,"p90":2,"p99":3,"p99.9":4,"max":5},` +
		`"thresholds":[{"threshold":"p99<500ms","metric":"p99","got":3,"unit":"ms","pass":true},` +
		`{"threshold":"rps>=200","metric":"rps","got":5,"unit":"perSecond","pass":false},` +
		`{"threshold":"p50<1ms","metric":"p50","got":null,"unit":"ms","pass":false}]}}`)
	md := string(Send(js, "http://x", false, nil, 0).Markdown())
	for _, want := range []string{"| p99&lt;500ms | p99 3 ms | ✅ ok |", "| rps&gt;=200 | rps 5/s | ❌ FAILED |",
		"| p50&lt;1ms | p50 not measured (no call was answered) | ❌ FAILED |"} {
		if !strings.Contains(md, want) {
			t.Errorf("send summary lacks %q:\n%s", want, md)
		}
	}
}

// A threshold of a run that did not finish reads as not judged, and why,
// never "ok" for a value measured on part of the run.
func TestSendThresholdNotJudged(t *testing.T) {
	t.Parallel()
	js := []byte(`{"summary":{"sent":16,"succeeded":8,"failed":0,"interrupted":8,"notStarted":184,"documents":16,"requestsPerSecond":5,"latencyMs":{"p50":1,"p90":2,"p99":3,"p99.9":4,"max":5},` +
		`"thresholds":[{"threshold":"p99<500ms","metric":"p99","got":3,"unit":"ms","pass":false,"notJudged":"interrupted after 16 of 200 calls"},` +
		`{"threshold":"p50<1ms","metric":"p50","got":null,"unit":"ms","pass":false,"notJudged":"interrupted after 16 of 200 calls"}]}}`)
	md := string(Send(js, "http://x", false, nil, 0).Markdown())
	for _, want := range []string{"| p99&lt;500ms | p99 3 ms so far | ⏸️ not judged (interrupted after 16 of 200 calls) |",
		"| p50&lt;1ms | p50 not measured (no call was answered) | ⏸️ not judged (interrupted after 16 of 200 calls) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("send summary lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "✅") {
		t.Errorf("send summary says a threshold held:\n%s", md)
	}
}

// Counts of one are said as counts, in the singular: one call
// interrupted, one not started, one connection holding bytes no call
// asked for.
func TestSendCountsOfOne(t *testing.T) {
	t.Parallel()
	js := []byte(`{"summary":{"sent":3,"succeeded":2,"failed":0,"interrupted":1,"notStarted":1,"documents":3,"requestsPerSecond":5,"unaskedAnswers":1}}`)
	md := string(Send(js, "http://x", false, nil, 0).Markdown())
	want := "**3 sent (3 documents, 0 duplicates), 2 succeeded, 0 failed, 1 interrupted, 1 not started, 5 req/s; the receiver sent bytes no call asked for after an answer on 1 kept-alive connection (the statuses counted may not be the calls' own)**"
	if !strings.Contains(md, want) {
		t.Errorf("send summary lacks %q:\n%s", want, md)
	}
}

// A summary exactly as long as the budget fits it: nothing is left out of
// one that GitHub would take whole.
func TestWithinKeepsASummaryOfExactlyTheBudget(t *testing.T) {
	t.Parallel()
	s := &Summary{Title: "whsim check", Pass: false, Headline: "1 failed"}
	s.Tables = []table{{Head: []string{"check", "fail"}, Rows: [][]string{{"a", "1"}, {"b", "0"}}}}
	s.Failures = []Failure{{Title: "a / x", Reason: "got 500", Code: "curl x"}}
	whole := s.Markdown()
	if got := s.Within(len(whole)); !bytes.Equal(got, whole) {
		t.Errorf("within %d bytes, the summary of %d bytes became:\n%s\nwant it whole:\n%s", len(whole), len(whole), got, whole)
	}
}
