package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/term"
)

// data returns the JSON the page embeds.
func data(t *testing.T, page []byte) document {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no data element in the page")
	}
	var d document
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatalf("the data: %v", err)
	}
	return d
}

// A value that came from a receiver cannot end the data element or become
// markup: the page holds one data element and one script, whatever it says.
func TestWriteEscapes(t *testing.T) {
	t.Parallel()
	evil := `</script><script>alert(1)</script><!--`
	var b bytes.Buffer
	err := WriteSend(&b, Meta{Title: "whsim send <b>", Target: evil}, &send{Text: evil, Summary: json.RawMessage(`{"summary":{}}`)})
	if err != nil {
		t.Fatal(err)
	}
	page := b.Bytes()
	if n := bytes.Count(page, []byte("<script")); n != 2 {
		t.Errorf("%d script elements, want the data and the page's own", n)
	}
	if !bytes.Contains(page, []byte("<title>whsim send &lt;b&gt;</title>")) {
		t.Errorf("the title is not escaped")
	}
	d := data(t, page)
	if d.Kind != "send" || d.Meta.Target != evil || d.Send.Text != evil {
		t.Errorf("the data does not round-trip: %+v", d)
	}
	for _, ext := range []string{"http://", "https://", "//cdn"} {
		if bytes.Contains(page[:bytes.Index(page, []byte(`id="report-data"`))], []byte(`src="`+ext)) {
			t.Errorf("the page loads %s", ext)
		}
	}
}

// A run that ended before it could report is INCOMPLETE, or INTERRUPTED
// by a signal, never a pass; why is kept whole (a usage error can quote
// anything the user gave) and cannot end the data's script element.
func TestWriteNotRun(t *testing.T) {
	t.Parallel()
	evil := `--url </script><script>alert(1)</script>: no host`
	for _, tc := range []struct {
		interrupted bool
		verdict     string
	}{{false, "incomplete"}, {true, "interrupted"}} {
		var b bytes.Buffer
		if err := WriteNotRun(&b, Meta{Title: "whsim check"}, tc.interrupted, evil); err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b.Bytes(), []byte("<script")); n != 2 {
			t.Errorf("%d script elements, want the data and the page's own", n)
		}
		d := data(t, b.Bytes())
		if d.Kind != "notrun" || d.NotRun == nil || d.NotRun.Verdict != tc.verdict || d.NotRun.Headline != "the run did not complete: "+evil || d.Check != nil || d.Send != nil {
			t.Errorf("interrupted %v: %+v %+v, want a %s notrun report", tc.interrupted, d, d.NotRun, tc.verdict)
		}
	}
}

func TestSendRecorder(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	now := base
	r := &SendRecorder{Now: func() time.Time { return now }}
	// Open model: 10 calls scheduled 100 ms apart, the 5th waits 1 s.
	for i := range 10 {
		lat := 5 * time.Millisecond
		if i == 4 {
			lat = time.Second
		}
		now = base.Add(time.Duration(i)*100*time.Millisecond + lat)
		res := &attempt.Result{Request: &attempt.Request{Seq: i + 1, Event: "E"}, OK: i != 7, FromSchedule: lat,
			Attempts: []attempt.Attempt{{Status: map[bool]int{true: 200, false: 503}[i != 7], Latency: lat}}}
		r.Observe(res)
	}
	s := NewSend(r, []byte(`{"summary":{"sent":10}}`), "text")
	if s.Total != 10 || len(s.Points) != 10 || s.Stride != 1 {
		t.Fatalf("total %d, %d points, stride %d", s.Total, len(s.Points), s.Stride)
	}
	for i, p := range s.Points {
		if want := float64(i * 100); p[0] != want {
			t.Errorf("point %d starts at %v ms, want its scheduled %v", i, p[0], want)
		}
	}
	if s.Points[4][1] != 1000 || s.Points[7][3] != 0 || s.Points[7][2] != 503 {
		t.Errorf("points %v", s.Points)
	}
	if len(s.Failures) != 1 || s.Failures[0].Seq != 8 || s.Failures[0].Status != 503 {
		t.Errorf("failures %+v", s.Failures)
	}
}

// A failure's requestId (a payload's of send --file, a capture's) and its
// error are shown terminal-safe, as the run's text, JSON and JUnit show
// them: a raw U+202E in a table cell reorders what the reader sees.
func TestSendRecorderFailureIsTerminalSafe(t *testing.T) {
	t.Parallel()
	r := &SendRecorder{}
	r.Observe(&attempt.Result{Request: &attempt.Request{Seq: 1, Event: "E", RequestID: "evil\u202etxt.exe\x01"},
		Attempts: []attempt.Attempt{{Kind: "error", Err: "bad \u2067line\r\n"}}})
	s := NewSend(r, []byte(`{"summary":{"sent":1}}`), "text")
	if len(s.Failures) != 1 {
		t.Fatalf("failures %+v", s.Failures)
	}
	if f := s.Failures[0]; f.RequestID != `evil\u202etxt.exe\x01` || f.Error != `bad \u2067line\r\n` {
		t.Errorf("requestId %q, error %q: want them escaped", f.RequestID, f.Error)
	}
}

// A failed status's row carries the start of its answer, as send's line
// and JUnit show it (termsafe.Excerpt): on one line, terminal-safe, "…"
// where it was cut; a call with no answer has none.
func TestSendRecorderFailureAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a    attempt.Attempt
		want string
	}{
		{"answer", attempt.Attempt{Status: 500, BodyPrefix: []byte(`{"error":"db down"}`)}, `{"error":"db down"}`},
		{"cut", attempt.Attempt{Status: 500, BodyPrefix: []byte("abc"), BodyCut: true}, "abc…"},
		{"hostile", attempt.Attempt{Status: 502, BodyPrefix: []byte("<b>x</b> |\n`c`\x1b[31m\u202e")}, "<b>x</b> |\\n`c`\\x1b[31m\\u202e"},
		{"empty", attempt.Attempt{Status: 503}, ""},
		{"no answer", attempt.Attempt{Kind: "refused", Err: "connection refused"}, ""},
	} {
		r := &SendRecorder{}
		r.Observe(&attempt.Result{Request: &attempt.Request{Seq: 1, Event: "E"}, Attempts: []attempt.Attempt{tc.a}})
		s := NewSend(r, []byte(`{"summary":{"sent":1}}`), "text")
		if len(s.Failures) != 1 || s.Failures[0].Answer != tc.want {
			t.Errorf("%s: failures %+v, want the answer %q", tc.name, s.Failures, tc.want)
		}
	}
}

// Past maxPoints the recorder keeps every other point, over the whole run.
func TestSendRecorderSamples(t *testing.T) {
	t.Parallel()
	r := &SendRecorder{}
	n := maxPoints*2 + 10
	for i := range n {
		r.Observe(&attempt.Result{Request: &attempt.Request{Seq: i + 1}, OK: true, FromSchedule: time.Duration(i+1) * time.Microsecond,
			Attempts: []attempt.Attempt{{Status: 200}}})
	}
	s := NewSend(r, nil, "")
	if s.Total != n || s.Stride < 2 || len(s.Points) >= maxPoints || len(s.Points) < maxPoints/2 {
		t.Errorf("total %d, stride %d, %d points", s.Total, s.Stride, len(s.Points))
	}
}

type fakeCase struct{ res check.Result }

func (c fakeCase) Verdict() term.Verdict {
	return map[check.Verdict]term.Verdict{check.Pass: term.Pass, check.Warn: term.Warn, check.Fail: term.Fail}[c.res.Verdict]
}
func (c fakeCase) AppendText(b []byte, _ *term.Style) []byte { return b }
func (c fakeCase) AppendJSON(b []byte, _ *term.Style) []byte {
	j, _ := json.Marshal(map[string]any{"check": c.res.Case.Check, "case": c.res.Case.Name, "verdict": c.res.Verdict,
		"status": c.res.Status, "effects": []string{"row written twice"}})
	return append(j, '\n')
}
func (c fakeCase) JUnit() term.TestCase {
	return term.TestCase{Suite: c.res.Case.Check, Name: c.res.Case.Name, Detail: "curl again"}
}

type fakeSummary struct{}

func (fakeSummary) AppendText(b []byte, _ *term.Style) []byte { return append(b, "FAIL\n"...) }
func (fakeSummary) AppendJSON(b []byte) []byte {
	return append(b, `{"summary":{"checks":{"duplicates":{"pass":1,"warn":0,"fail":1},"new-check":{"pass":2,"warn":0,"fail":0}},"failed":true,"probe":{"effects":3}}}`...)
}
func (fakeSummary) Title() string { return "whsim check" }

// A check the report does not know and members it does not know (a probe's
// effects) come through; the failing case has its request and command.
func TestNewCheck(t *testing.T) {
	t.Parallel()
	target, _ := url.Parse("http://u:secret@127.0.0.1:1/hook")
	rec := &CheckRecorder{Target: target, Header: http.Header{"Authorization": {"Bearer t0k3nvalue"}}}
	col := &term.Collector{}
	for _, r := range []check.Result{
		{Case: &check.Case{Check: "duplicates", Name: "ok"}, Verdict: check.Pass},
		{Case: &check.Case{Check: "duplicates", Name: "twice", Query: "businessType=E", Body: []byte(`{"a":1}`), Copies: 2}, Verdict: check.Fail, Status: 200},
		{Case: &check.Case{Check: "new-check", Name: "n"}, Verdict: check.Pass},
	} {
		rec.Result(r)
		col.Case(fakeCase{r})
	}
	col.Finish(fakeSummary{})
	c := NewCheck(col, rec, []check.Info{{ID: "duplicates", Summary: "again"}}, 7)
	if !c.Failed || len(c.Checks) != 2 || c.Checks[0].ID != "duplicates" || c.Checks[0].Summary != "again" || c.Checks[1].ID != "new-check" {
		t.Fatalf("checks %+v", c.Checks)
	}
	if len(c.Cases) != 1 {
		t.Fatalf("cases %+v", c.Cases)
	}
	cc := c.Cases[0]
	if cc.Repro != "curl again" || cc.Request == nil || cc.Request.URL != "http://u:xxxxx@127.0.0.1:1/hook?businessType=E" || cc.Request.Copies != 2 {
		t.Errorf("case %+v request %+v", cc, cc.Request)
	}
	for _, h := range cc.Request.Header {
		if strings.Contains(h[1], "t0k3nvalue") {
			t.Errorf("a credential in the report: %v", h)
		}
	}
	if !strings.Contains(string(cc.Fields), `"effects":["row written twice"]`) || !strings.Contains(string(c.Summary), `"probe":{"effects":3}`) {
		t.Errorf("unknown members lost: %s %s", cc.Fields, c.Summary)
	}
}

// jsonSummary is a summary whose JSON is given.
type jsonSummary string

func (s jsonSummary) AppendText(b []byte, _ *term.Style) []byte { return append(b, "text\n"...) }
func (s jsonSummary) AppendJSON(b []byte) []byte                { return append(b, s...) }
func (jsonSummary) Title() string                               { return "whsim check" }

// A run that ended early says so in its headline: a stopped run is not
// "0 of 1 checks failed", an interrupted one is not "every check passed".
func TestNewCheckEarlyEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, summary       string
		failed, interrupted bool
		headline            string
	}{
		{"stopped", `{"summary":{"checks":{"accepts-valid":{"pass":19,"warn":0,"fail":0}},"failed":true,"notRun":["load"],"stopped":{"after":"accepts-valid/x","reason":"3 calls in a row got no answer (connection refused)"},"cases":{"run":19,"total":53}}}`,
			true, false, "the receiver stopped answering after accepts-valid/x: 3 calls in a row got no answer (connection refused); 19 of 53 cases run, 1 check not run"},
		{"interrupted", `{"summary":{"checks":{"accepts-valid":{"pass":19,"warn":0,"fail":0}},"failed":false,"interrupted":{"after":"accepts-valid/x","reason":"interrupted"},"cases":{"run":19,"total":53}}}`,
			false, true, "interrupted after accepts-valid/x: 19 of 53 cases run"},
		{"one case", `{"summary":{"checks":{},"failed":false,"interrupted":{"after":"start","reason":"interrupted"},"cases":{"run":0,"total":1}}}`,
			false, true, "interrupted after start: 0 of 1 case run"},
		{"whole", `{"summary":{"checks":{"accepts-valid":{"pass":19,"warn":0,"fail":0}},"failed":false,"cases":{"run":19,"total":19}}}`,
			false, false, ""},
		// Cases not judged are no pass: the headline is the verdict line.
		{"not judged", `{"summary":{"checks":{"accepts-valid":{"pass":0,"warn":19,"fail":0,"inconclusive":19}},"failed":false,"cases":{"run":19,"total":19}}}`,
			false, false, "text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			col := &term.Collector{}
			col.Finish(jsonSummary(tt.summary))
			c := NewCheck(col, nil, []check.Info{{ID: "accepts-valid"}}, 1)
			if c.Failed != tt.failed || c.Interrupted != tt.interrupted || c.Headline != tt.headline {
				t.Errorf("failed %v interrupted %v headline %q, want %v %v %q", c.Failed, c.Interrupted, c.Headline, tt.failed, tt.interrupted, tt.headline)
			}
		})
	}
}

// A run that ended before its first case still has lists, never null (the
// page draws from them), and a skipped check keeps its reason whatever the
// summary's value for it is.
func TestNewCheckEmptyAndSkipped(t *testing.T) {
	t.Parallel()
	c := NewCheck(&term.Collector{}, nil, check.Checks(), 1)
	b, _ := json.Marshal(c)
	if !bytes.Contains(b, []byte(`"checks":[]`)) || !bytes.Contains(b, []byte(`"cases":[]`)) {
		t.Errorf("empty run: %s", b)
	}
}

// A run that ended early lists the check it ended in as cut short and the
// checks it never started as not run, in the run's order: neither reads
// as a pass in the overview (issue 19: never "ok" on Ctrl-C).
func TestNewCheckEndedRows(t *testing.T) {
	t.Parallel()
	col := &term.Collector{}
	col.Finish(jsonSummary(`{"summary":{"checks":{"accepts-valid":{"pass":9,"warn":0,"fail":0}},"failed":true,"notRun":["rejects-malformed","load"],"cutShort":"accepts-valid","interrupted":{"after":"accepts-valid/x","reason":"interrupted"},"cases":{"run":9,"total":57}}}`))
	c := NewCheck(col, nil, []check.Info{{ID: "accepts-valid"}, {ID: "rejects-malformed", Summary: "4xx"}, {ID: "load"}}, 1)
	var got []string
	for _, r := range c.Checks {
		got = append(got, fmt.Sprintf("%s %d %q", r.ID, r.Pass, r.Ended))
	}
	want := []string{`accepts-valid 9 "cut short"`, `rejects-malformed 0 "not run"`, `load 0 "not run"`}
	if !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
}

// A call whose connection ended after it went out may have been taken:
// its row says so, in the words send's line and JUnit use after the
// error (it said only "reset: connection reset"); a call refused before
// it went out, or answered, says nothing of the kind.
func TestSendRecorderFailureMayHaveBeenTaken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a    attempt.Attempt
		want string
	}{
		{"closed as sent", attempt.Attempt{Kind: attempt.KindClosed, Err: "connection closed", ClosedAsSent: true, EndedAfterSent: true},
			"on a kept-alive connection as the call went out (it may have been taken)"},
		{"reset after sent", attempt.Attempt{Kind: attempt.KindReset, Err: "connection reset", EndedAfterSent: true},
			"after the call went out (it may have been taken)"},
		{"refused", attempt.Attempt{Kind: attempt.KindRefused, Err: "connection refused"}, ""},
		{"answered", attempt.Attempt{Status: 503}, ""},
	} {
		r := &SendRecorder{}
		r.Observe(&attempt.Result{Request: &attempt.Request{Seq: 1, Event: "E"}, Attempts: []attempt.Attempt{tc.a}})
		s := NewSend(r, []byte(`{"summary":{"sent":1}}`), "text")
		if len(s.Failures) != 1 {
			t.Fatalf("%s: failures %+v", tc.name, s.Failures)
		}
		b, err := json.Marshal(s.Failures[0])
		if err != nil {
			t.Fatal(err)
		}
		var row map[string]any
		if err := json.Unmarshal(b, &row); err != nil {
			t.Fatal(err)
		}
		if got, _ := row["taken"].(string); got != tc.want {
			t.Errorf("%s: the row's taken is %q, want %q", tc.name, got, tc.want)
		}
	}
}
