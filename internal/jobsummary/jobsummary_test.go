package jobsummary

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/term"
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
		"- **c / n**: got 200\n\n  ````\n  curl ```x```\n",
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
	for _, s := range []string{"one\n", "two\n"} {
		if err := Append(p, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(p); string(b) != "one\ntwo\n" {
		t.Errorf("file holds %q", b)
	}
	if err := Append(filepath.Join(p, "nope"), nil); err == nil || !strings.Contains(err.Error(), Env) {
		t.Errorf("an unwritable file: %v", err)
	}
}

func TestSend(t *testing.T) {
	t.Parallel()
	js := []byte(`{"summary":{"sent":10,"succeeded":9,"failed":1,"requestsPerSecond":99.94,"latencyMs":{"p50":1.25,"p90":2,"p99":3,"p99.9":4,"max":5},"failedByStatus":{"503":1},"failedByError":{},"thresholds":[{"threshold":"p99<500ms","metric":"p99","got":3,"unit":"ms","pass":true}]}}`)
	md := string(Send(js, "http://x", false, []Failure{{Title: "#3 E id", Reason: "status 503"}}, 0).Markdown())
	for _, want := range []string{"**10 sent, 9 succeeded, 1 failed, 99.9 req/s**", "| 1.3 ms | 2 ms | 3 ms | 4 ms | 5 ms |",
		"| p99&lt;500ms | p99 3 ms | ✅ ok |", "| status 503 | 1 |", "- **\\#3 E id**: status 503"} {
		if !strings.Contains(md, want) {
			t.Errorf("send summary lacks %q:\n%s", want, md)
		}
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
	col = &term.Collector{}
	_ = col.Case(skipCase{"accepts-valid", ""})
	_ = col.Finish(lastLineSummary("ok every check passed (0 warnings)\n"))
	if md := string(FromCollector(col, "whsim check", "check", true).Markdown()); strings.Contains(md, "skipped") {
		t.Errorf("nothing skipped, yet:\n%s", md)
	}
}
