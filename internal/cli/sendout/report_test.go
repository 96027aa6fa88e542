package sendout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
)

// Reporting a delivery in JSON, send's load path, allocates nothing: the
// case is a view of the result and the line is built in a pooled buffer.
func TestReportAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	rep, err := term.New(term.JSON, io.Discard, term.Style{}, false)
	if err != nil {
		t.Fatal(err)
	}
	res := &attempt.Result{
		Request: &attempt.Request{Seq: 1, Event: "CREATE_RECEIVABLE_DOC", RequestID: "f87bc202-fd3b-4820-b674-098c23326449"},
		URL:     "http://127.0.0.1:9/webhook?businessType=CREATE_RECEIVABLE_DOC", OK: true,
		Attempts: []attempt.Attempt{{Status: 200, Latency: 1234 * time.Microsecond}},
	}
	_ = rep.Case((*delivery)(res)) // fills the pool
	if n := testing.AllocsPerRun(200, func() { _ = rep.Case((*delivery)(res)) }); n != 0 {
		t.Errorf("%v allocations per delivery, want 0", n)
	}
}

// FuzzDeliveryReport formats a delivery whose every outside text is fuzzed
// (event, requestId, error, redirect, response header and body) in each
// output mode: what comes out is terminal-safe, the JSON parses, and a
// token header's value never shows. The mode (format and verbosity) is
// fuzzed too, one a run: a text or JSON reporter starts with its megabyte
// of buffer, and six of them a run held fuzzing to a hundred runs a
// second, its minimizing to seconds an input; every seed is run in every
// mode.
func FuzzDeliveryReport(f *testing.F) {
	// What a sender or a receiver may put in a query, a header or a body:
	// an OSC 52 clipboard write, a clear-screen, a C1 NEL, a bidi override
	// and a byte that is not UTF-8.
	const hostile = "\x1b]52;c;aGk=\x07\x1b[2J\u0085\u202e\xff"
	reportModes := []struct {
		format  string
		verbose bool
	}{{term.Text, false}, {term.Text, true}, {term.JSON, false}, {term.JSON, true}, {term.JUnit, false}, {term.JUnit, true}}
	for mode := range uint8(len(reportModes)) {
		f.Add("CREATE_RECEIVABLE_DOC", "11111111-1111-4111-8111-111111111111", "", "", "X-Note", "ok", []byte(`{"ok":true}`), 200, mode)
		f.Add(hostile, hostile, hostile, hostile, hostile, hostile, []byte(hostile), 0, mode)
		f.Add("e", "id", "dial tcp: \u0085", "/\u202e", "x-auth-token", "\x1bsecret", []byte("\xff\x7f"), 302, mode)
	}
	f.Fuzz(func(t *testing.T, event, id, errText, location, hname, hvalue string, body []byte, status int, mode uint8) {
		res := &attempt.Result{
			Request:    &attempt.Request{Seq: 1, Event: event, RequestID: id, Body: body},
			URL:        "http://127.0.0.1:9/in?businessType=" + url.QueryEscape(event),
			Attempts:   []attempt.Attempt{{Status: status % 600, Kind: "error", Err: errText, Location: location, BodyPrefix: body}},
			SentHeader: http.Header{hname: {hvalue}}, RespBody: body,
			RespHeader: http.Header{hname: {hvalue}, "X-Auth-Token": {"tok-secret-123"}},
		}
		m := reportModes[int(mode)%len(reportModes)]
		var out bytes.Buffer
		rep, err := term.New(m.format, &out, term.Style{Verbose: m.verbose}, false)
		if err != nil {
			t.Fatal(err)
		}
		_ = rep.Case((*delivery)(res))
		if err := rep.Finish(SendSummary{Stats: &load.Stats{}, Name: "whsim send"}); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		if termsafe.Lines(got) != got {
			t.Fatalf("%s (verbose %v) is not terminal-safe:\n%q", m.format, m.verbose, got)
		}
		if strings.Contains(got, "tok-secret-123") {
			t.Fatalf("%s (verbose %v) shows the token:\n%s", m.format, m.verbose, got)
		}
		if m.format == term.JSON {
			for line := range strings.SplitSeq(strings.TrimSuffix(got, "\n"), "\n") {
				if !json.Valid([]byte(line)) {
					t.Fatalf("invalid JSON line %q", line)
				}
			}
		}
	})
}

// TestSendSummaryRate: a rate is of answered calls; a refused connection
// fails at once and would make one up.
func TestSendSummaryRate(t *testing.T) {
	t.Parallel()
	refused := func(st *load.Stats, n int) {
		for range n {
			st.Add(&attempt.Result{Attempts: []attempt.Attempt{{Kind: attempt.KindRefused}}})
		}
	}
	answered := func(st *load.Stats, n int) {
		for range n {
			st.Add(&attempt.Result{OK: true, Attempts: []attempt.Attempt{{Status: 200, Latency: time.Millisecond}}})
		}
	}
	// Ctrl-C in the call: the delivery has no final answer.
	cutShort := func(st *load.Stats, n int) {
		for range n {
			st.Add(&attempt.Result{Attempts: []attempt.Attempt{{Status: 500, Latency: time.Millisecond, Wait: time.Second}, {Kind: attempt.KindInterrupted}}})
		}
	}
	// Ctrl-C in the backoff after a 429 (Retry-After): the receiver
	// answered, and the retry was never made. No call was cut short.
	waiting := func(st *load.Stats, n int) {
		for range n {
			st.Add(&attempt.Result{Attempts: []attempt.Attempt{{Status: 429, Latency: time.Millisecond, Wait: 30 * time.Second}, {Kind: attempt.KindInterrupted, Unsent: true}}})
		}
	}
	tests := []struct {
		name            string
		ok, refuse, cut int
		want            string
		waited          int
	}{
		{"interrupted waiting to retry a 429", 0, 0, 0, "no rate: interrupted before a delivery got its final answer (1 answered 429 and interrupted waiting to retry, over 2s)\n", 1},
		{"interrupted waiting, and in a call", 0, 1, 1, "no rate: interrupted before a delivery got its final answer (1 cut short, 2 answered 429 and interrupted waiting to retry, 1 without an answer, over 2s)\n", 2},
		{"some waiting", 4, 0, 0, "2.0 answered req/s over 2s (the 1 answered 429 and interrupted waiting to retry not counted)\n", 1},
		{"all refused", 0, 5, 0, "no rate: no call was answered (5 over 2s)\n", 0},
		{"some refused", 4, 4, 0, "2.0 answered req/s over 2s (the 4 calls that got no answer not counted)\n", 0},
		{"all answered", 4, 0, 0, "2.0 req/s over 2s\n", 0},
		{"nothing sent", 0, 0, 0, "no rate: nothing was sent\n", 0},
		{"interrupted in the call", 0, 0, 1, "no rate: interrupted before a delivery got its final answer (1 cut short over 2s)\n", 0},
		{"interrupted, some refused", 0, 2, 1, "no rate: interrupted before a delivery got its final answer (1 cut short, 2 without an answer, over 2s)\n", 0},
		{"some cut short", 4, 0, 2, "2.0 answered req/s over 2s (the 2 cut short by the interrupt not counted)\n", 0},
		{"some cut short, some refused", 4, 1, 2, "2.0 answered req/s over 2s (the 2 cut short by the interrupt and the 1 call that got no answer not counted)\n", 0},
	}
	for _, tt := range tests {
		st := load.NewStats()
		answered(st, tt.ok)
		refused(st, tt.refuse)
		cutShort(st, tt.cut)
		waiting(st, tt.waited)
		st.Elapsed = 2 * time.Second
		if got := string(SendSummary{Stats: st}.AppendText(nil, nil)); !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q lacks %q", tt.name, got, tt.want)
		}
	}
}

// A delivery that got an unexpected answer shows the start of its body on
// its line without -v, as check's reasons do (termsafe.Excerpt): on one
// line, its line breaks escaped, terminal-safe,
// "…" where it was cut (Attempt.BodyCut: a credential masked in it may
// have made it shorter than the bytes it came with); an expected answer
// shows none.
func TestDeliveryLineShowsUnexpectedBody(t *testing.T) {
	long := strings.Repeat("x", attempt.MaxBodyPrefix)
	tests := []struct {
		ok     bool
		status int
		body   string
		cut    bool
		want   string // the line's end
	}{
		{false, 422, "{\"error\":\n  \"duplicate\"}\x1b[2J", false, `unexpected status: {"error":\n  "duplicate"}\x1b[2J`},
		{false, 500, long, true, "unexpected status: " + long + "…"},
		{false, 401, "token Bearer **** refused", true, "unexpected status: token Bearer **** refused…"},
		{false, 500, " \n", false, "unexpected status"},
		{true, 200, "fine", false, "200 1.2ms"},
	}
	for _, tt := range tests {
		res := &attempt.Result{
			Request: &attempt.Request{Seq: 1, Event: "CREATE_RECEIVABLE_DOC", RequestID: "f87bc202-fd3b-4820-b674-098c23326449"},
			OK:      tt.ok, Attempts: []attempt.Attempt{{Status: tt.status, Latency: 1234 * time.Microsecond, BodyPrefix: []byte(tt.body), BodyCut: tt.cut}},
		}
		got := strings.TrimSuffix(string((*delivery)(res).AppendText(nil, &term.Style{})), "\n")
		if !strings.HasSuffix(got, tt.want) || strings.Count(got, "\n") != 0 {
			t.Errorf("line %q, want it to end %q", got, tt.want)
		}
		// The JUnit failure, which CI shows alone, carries the same start
		// of the answer after its status, as check's JUnit reasons do.
		if tt.ok {
			continue
		}
		failure := (*delivery)(res).JUnit().Failure
		answer := strings.TrimPrefix(tt.want, "unexpected status")
		if want := fmt.Sprintf("POST : %d%s", tt.status, answer); failure != want {
			t.Errorf("JUnit failure %q, want %q", failure, want)
		}
	}
}

// The start of the answer belongs to "unexpected status": after a retry or
// on a duplicate it must not read as what the retries or the duplicate
// came to ("429 …  after 2 attempts: ok" read as if the retry had passed).
func TestDeliveryLineBodyFollowsItsStatus(t *testing.T) {
	tests := []struct {
		name      string
		attempts  []attempt.Attempt
		duplicate bool
		want      string // the line's end
	}{
		{"retried", []attempt.Attempt{{Status: 503, BodyPrefix: []byte("down")}, {Status: 429, BodyPrefix: []byte("ok")}}, false,
			"unexpected status: ok  after 2 attempts"},
		{"a duplicate", []attempt.Attempt{{Status: 409, BodyPrefix: []byte("seen")}}, true,
			"unexpected status: seen  duplicate"},
		{"retried duplicate, empty answer", []attempt.Attempt{{Status: 500}, {Status: 500, BodyPrefix: []byte(" \n")}}, true,
			"unexpected status  after 2 attempts  duplicate"},
		{"in the backoff", []attempt.Attempt{{Status: 503, BodyPrefix: []byte("busy")}, {Unsent: true, Kind: "interrupted"}}, false,
			"--- interrupted  after 1 attempt, in the backoff after a 503: its retry not made"},
		{"redirect not followed", []attempt.Attempt{{Status: 302, Location: "/b", BodyPrefix: []byte("moved")}, {Status: 302, Location: "/b", BodyPrefix: []byte("moved")}}, false,
			"unexpected status (redirect to /b not followed; --follow-redirects): moved  after 2 attempts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &attempt.Result{
				Request:  &attempt.Request{Seq: 1, Event: "CREATE_RECEIVABLE_DOC", RequestID: "f87bc202-fd3b-4820-b674-098c23326449", Duplicate: tt.duplicate},
				Attempts: tt.attempts,
			}
			got := strings.TrimSuffix(string((*delivery)(res).AppendText(nil, &term.Style{})), "\n")
			if !strings.HasSuffix(got, tt.want) {
				t.Errorf("line %q, want it to end %q", got, tt.want)
			}
		})
	}
}

// A delivery's latency is the one its summary counts: in the open model
// (--rate) from its scheduled start, its wait for a free worker and its
// retries included, so that the call that made the summary's max is the
// line that shows it; in the closed model its last attempt's. Each
// attempt's own stays in the JSON's attempts.
func TestDeliveryLatencyIsTheSummarys(t *testing.T) {
	tests := []struct {
		name         string
		attempts     []attempt.Attempt
		fromSchedule time.Duration
		line         string // the text line's end
		json         string // the JSON's latencies
	}{
		{"closed", []attempt.Attempt{{Status: 200, Latency: time.Second}}, 0,
			" 200 1.00s", `"latencyMs":1000,"attempts":[{"status":200,"latencyMs":1000}]`},
		{"open, started late", []attempt.Attempt{{Status: 200, Latency: time.Second}}, 3 * time.Second,
			" 200 3.00s", `"latencyMs":3000,"attempts":[{"status":200,"latencyMs":1000}]`},
		{"open, retried", []attempt.Attempt{{Status: 503, Latency: 5 * time.Millisecond, Wait: 200 * time.Millisecond}, {Status: 200, Latency: 4 * time.Millisecond}}, 210 * time.Millisecond,
			" 200 210.0ms  after 2 attempts", `"latencyMs":210,"attempts":[{"status":503,"latencyMs":5,"waitMs":200},{"status":200,"latencyMs":4}]`},
		{"open, no answer", []attempt.Attempt{{Kind: attempt.KindTimeout, Err: "timeout", Latency: time.Second}}, 2 * time.Second,
			"--- timeout", `"latencyMs":2000,"errorKind":"timeout","error":"timeout","attempts":[{"latencyMs":1000,"errorKind":"timeout","error":"timeout"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &attempt.Result{
				Request:  &attempt.Request{Seq: 1, Event: "CREATE_RECEIVABLE_DOC", RequestID: "f87bc202-fd3b-4820-b674-098c23326449"},
				OK:       tt.attempts[len(tt.attempts)-1].Status == 200,
				Attempts: tt.attempts, FromSchedule: tt.fromSchedule,
			}
			if got := strings.TrimSuffix(string((*delivery)(res).AppendText(nil, &term.Style{})), "\n"); !strings.HasSuffix(got, tt.line) {
				t.Errorf("line %q, want it to end %q", got, tt.line)
			}
			if got := string(appendResultJSON(nil, res, false)); !strings.Contains(got, tt.json) {
				t.Errorf("JSON %s, want %s", got, tt.json)
			}
		})
	}
}

// A failed replayed call names the record it was read from, in its line,
// its JSON and its JUnit failure (which CI shows alone); one that passed
// does not need to, and a call made up (send's) has none.
func TestDeliveryNamesItsRecord(t *testing.T) {
	for _, tc := range []struct {
		ok     bool
		source string
		want   bool
	}{
		{false, "cap\x1b[2J.ndjson:12", true},
		{true, "cap.ndjson:12", false},
		{false, "", false},
	} {
		res := &attempt.Result{
			Request: &attempt.Request{Seq: 1, Event: "CREATE_RECEIVABLE_DOC", RequestID: "f87bc202-fd3b-4820-b674-098c23326449", Source: tc.source},
			OK:      tc.ok, Attempts: []attempt.Attempt{{Status: 500, Latency: time.Millisecond}},
		}
		line := string((*delivery)(res).AppendText(nil, &term.Style{}))
		shown := `cap\x1b[2J.ndjson:12`
		if got := strings.Contains(line, "  from "+shown); got != tc.want {
			t.Errorf("ok %v, source %q: line %q names the record: %v, want %v", tc.ok, tc.source, line, got, tc.want)
		}
		if tc.want {
			if f := (*delivery)(res).JUnit().Failure; !strings.HasPrefix(f, shown+": POST ") {
				t.Errorf("JUnit failure %q, want it to start with the record", f)
			}
		}
		js := string(appendResultJSON(nil, res, false))
		if got := strings.Contains(js, `"source":`); got != (tc.source != "") {
			t.Errorf("source %q: JSON %s", tc.source, js)
		}
	}
}

// A delivery --duration kept from its retry says so on its line, in its
// JSON attempt and in its JUnit case: with --retries asked for, a failure
// after one attempt and no word of why read as retries that never worked.
func TestDeliveryNotRetriedSaysWhy(t *testing.T) {
	why := "its retry, in 1m0s, would start after --duration"
	res := &attempt.Result{
		Request:  &attempt.Request{Seq: 1, Event: "CREATE_RECEIVABLE_DOC", RequestID: "f87bc202-fd3b-4820-b674-098c23326449"},
		Attempts: []attempt.Attempt{{Status: 503, Latency: time.Millisecond, NotRetried: why}},
	}
	if line := string((*delivery)(res).AppendText(nil, &term.Style{})); !strings.Contains(line, "  not retried: "+why) {
		t.Errorf("line %q, want it to say %q", line, "not retried: "+why)
	}
	var got struct {
		Attempts []struct {
			NotRetried string `json:"notRetried"`
		} `json:"attempts"`
	}
	if err := json.Unmarshal(appendResultJSON(nil, res, false), &got); err != nil || len(got.Attempts) != 1 || got.Attempts[0].NotRetried != why {
		t.Errorf("JSON attempts %+v (%v), want notRetried %q", got.Attempts, err, why)
	}
	if detail := (*delivery)(res).JUnit().Detail; !strings.Contains(detail, "not retried: "+why) {
		t.Errorf("JUnit detail %q, want it to say %q", detail, "not retried: "+why)
	}
}

// A replayed call's record, in a capture whose name is not UTF-8, is named
// in its JSON as its text line and JUnit name it, the byte as \xff, as
// validate --output json's "at" names a place: encoding/json's U+FFFD
// named no file the text named. Found by sv47.
func TestDeliverySourceNotUTF8(t *testing.T) {
	res := &attempt.Result{
		Request:  &attempt.Request{Seq: 1, Event: "CREATE_RECEIVABLE_DOC", RequestID: "x", Source: "c\xffap.ndjson:1"},
		Attempts: []attempt.Attempt{{Status: 500, Latency: time.Millisecond}},
	}
	js := string(appendResultJSON(nil, res, false))
	if !strings.Contains(js, `"source":"c\\xffap.ndjson:1"`) {
		t.Errorf("JSON %s, want the source as the text says it, c\\xffap.ndjson:1", js)
	}
	if line := string((*delivery)(res).AppendText(nil, &term.Style{})); !strings.Contains(line, `from c\xffap.ndjson:1`) {
		t.Errorf("line %q", line)
	}
}

// An open run whose bound held calls due before --duration ended past it
// says so beside the calls it made start late: they were counted among
// not started with those never due, and the line about the bound spoke
// of late starts only, so a stalled receiver's cost read as a shorter
// schedule (found by ck47).
func TestSendSummarySaysDueCallsTheBoundHeldBack(t *testing.T) {
	t.Parallel()
	st := load.NewStats()
	st.Open, st.Rate, st.MaxConcurrency, st.PeakConcurrency = true, 10, 5, 5
	st.Add(&attempt.Result{Attempts: []attempt.Attempt{{Kind: attempt.KindTimeout}}})
	st.NotStarted, st.HeldBack = 15, 5
	st.Elapsed = 2 * time.Second
	got := string(SendSummary{Stats: st}.AppendText(nil, nil))
	const want = "--max-concurrency 5 reached: 5 calls due before --duration ended never started (of the 15 not started); raise it to keep the rate\n"
	if !strings.Contains(got, want) {
		t.Errorf("%q lacks %q", got, want)
	}
}

// A delivery whose body names no requestId is "-" on its line, null in its
// JSON and its place (#n) in JUnit; one whose body names an empty one ""
// in quotes, "" and "" in quotes (both were "" and #n): not the same call,
// said apart as listen says them. A requestId that is no string is the
// body's, as listen reads it.
func TestDeliveryRequestIDAbsentOrEmpty(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		req               attempt.Request
		text, json, junit string
	}{
		{attempt.Request{Body: []byte(`{"businessType":5007}`), NoRequestID: true}, " - ", `"requestId":null`, "#3"},
		{attempt.Request{Body: []byte(`{"requestId":"","businessType":5007}`)}, ` "" `, `"requestId":""`, `""`},
		{attempt.Request{Body: []byte(`{"requestId":12}`)}, " 12 ", `"requestId":"12"`, "12"},
		{attempt.Request{RequestID: "r-1"}, " r-1 ", `"requestId":"r-1"`, "r-1"},
	} {
		req := tc.req
		req.Seq, req.Event = 3, "CREATE_RECEIVABLE_DOC"
		res := &attempt.Result{Request: &req, OK: true, Attempts: []attempt.Attempt{{Status: 200, Latency: time.Millisecond}}}
		line := string((*delivery)(res).AppendText(nil, &term.Style{}))
		if !strings.HasPrefix(line, "CREATE_RECEIVABLE_DOC        "+tc.text) {
			t.Errorf("%s: line %q, want the requestId %q", req.Body, line, tc.text)
		}
		js := appendResultJSON(nil, res, false)
		if !strings.Contains(string(js), tc.json) || !json.Valid(js) {
			t.Errorf("%s: JSON %s, want %s", req.Body, js, tc.json)
		}
		if got := (*delivery)(res).JUnit().Name; got != tc.junit {
			t.Errorf("%s: JUnit name %q, want %q", req.Body, got, tc.junit)
		}
	}
}
