package sendout

import (
	"encoding/json"
	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/term"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A delivery's JSON, plain and with -v: escapes as encoding/json writes
// them (HTML left alone), secrets masked, fields in the contract's order.
func TestResultJSON(t *testing.T) {
	t.Parallel()
	failed := &attempt.Result{
		Request: &attempt.Request{Seq: 7, Event: "CREATE_RECEIVABLE_DOC", RequestID: "id\"<x>&\u2028\xff", Duplicate: true},
		URL:     "http://h/?a=1&businessType=X", OK: false,
		Attempts: []attempt.Attempt{{Status: 503, Latency: 1500 * time.Microsecond, Wait: 200 * time.Millisecond},
			{Kind: "connection refused", Err: "dial: \x1b refused", Latency: time.Millisecond, Location: "/x"}},
		SentHeader: http.Header{"Webhook-Signature": {"v1,abc"}, "Content-Type": {"application/json"}, "X-A": {"<b>&\u2028"}},
		RespHeader: http.Header{"Content-Type": {"text/plain"}},
		RespBody:   []byte("not <json> \xff\u2028\x1b"),
	}
	ok := &attempt.Result{Request: &attempt.Request{Seq: 1, Event: "收款", RequestID: ""}, URL: "http://h/", OK: true,
		Attempts: []attempt.Attempt{{Status: 200, Latency: 3 * time.Second}}}
	const failedJSON = `{"seq":7,"event":"CREATE_RECEIVABLE_DOC","requestId":"id\"<x>&\u2028\ufffd","duplicate":true,"url":"http://h/?a=1&businessType=X","status":0,"ok":false,"latencyMs":1,"errorKind":"connection refused","error":"dial: \u001b refused","attempts":[{"status":503,"latencyMs":1.5,"waitMs":200},{"latencyMs":1,"errorKind":"connection refused","error":"dial: \u001b refused","location":"/x"}]`
	const okJSON = `{"seq":1,"event":"收款","requestId":"","duplicate":false,"url":"http://h/","status":200,"ok":true,"latencyMs":3000,"attempts":[{"status":200,"latencyMs":3000}]`
	for _, c := range []struct {
		res     *attempt.Result
		verbose bool
		want    string
	}{
		{failed, false, failedJSON + "}\n"},
		{failed, true, failedJSON + `,"requestHeaders":{"Content-Type":["application/json"],"Webhook-Signature":["****"],"X-A":["<b>&\u2028"]},"responseHeaders":{"Content-Type":["text/plain"]},"responseBody":"not <json> \ufffd\u2028\u001b"}` + "\n"},
		{ok, false, okJSON + "}\n"},
		{ok, true, okJSON + `,"responseBody":""}` + "\n"},
	} {
		got := appendResultJSON(nil, c.res, c.verbose)
		if string(got) != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("invalid JSON %s", got)
		}
	}
}

// A delivery that started late (--rate, at --max-concurrency) says by how
// much, lateMs after latencyMs; one on time has no lateMs, so that a
// seeded run's ledger without late deliveries is as it was. The lines
// with lateMs are the summary's late count.
func TestLateDeliveriesInTheLedger(t *testing.T) {
	t.Parallel()
	st := load.NewStats()
	var ledger []byte
	for i, late := range []time.Duration{0, 1500 * time.Microsecond, 0, 2 * time.Second} {
		res := &attempt.Result{Request: &attempt.Request{Seq: i + 1, Event: "E"}, URL: "http://h/", OK: true,
			Attempts: []attempt.Attempt{{Status: 200, Latency: time.Millisecond}}, FromSchedule: 3 * time.Second, Late: late}
		st.Add(res)
		ledger = appendResultJSON(ledger, res, false)
	}
	lines := strings.Split(strings.TrimSuffix(string(ledger), "\n"), "\n")
	const late = `{"seq":2,"event":"E","requestId":"","duplicate":false,"url":"http://h/","status":200,"ok":true,"latencyMs":3000,"lateMs":1.5,"attempts":[{"status":200,"latencyMs":1}]}`
	const onTime = `{"seq":1,"event":"E","requestId":"","duplicate":false,"url":"http://h/","status":200,"ok":true,"latencyMs":3000,"attempts":[{"status":200,"latencyMs":1}]}`
	if lines[1] != late || lines[0] != onTime {
		t.Errorf("got\n%s\n%s\nwant\n%s\n%s", lines[0], lines[1], onTime, late)
	}
	marked := 0
	for _, l := range lines {
		var d struct {
			LateMS *float64 `json:"lateMs"`
		}
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		if d.LateMS != nil {
			marked++
		}
	}
	var j statsJSON
	if err := json.Unmarshal(appendStatsJSON(nil, st), &j); err != nil {
		t.Fatal(err)
	}
	if marked != 2 || j.Summary.Late != marked {
		t.Errorf("%d lines with lateMs, summary late %d; want 2 and 2", marked, j.Summary.Late)
	}
}

func TestStatsJSON(t *testing.T) {
	t.Parallel()
	st := load.NewStats()
	st.Add(&attempt.Result{Request: &attempt.Request{}, Attempts: []attempt.Attempt{{Status: 500, Latency: time.Millisecond}}})
	st.Add(&attempt.Result{Request: &attempt.Request{}, Attempts: []attempt.Attempt{{Kind: "timeout", Latency: time.Millisecond}}})
	var j statsJSON
	if err := json.Unmarshal(appendStatsJSON(nil, st), &j); err != nil {
		t.Fatal(err)
	}
	if s := j.Summary; s.Sent != 2 || s.Failed != 2 || s.FailedByStatus["500"] != 1 || s.FailedByError["timeout"] != 1 {
		t.Errorf("summary %+v", s)
	}
}

// TestStatsJSONNoCallAnswered: with no call answered there is no rate and
// no latency; the summary said "requestsPerSecond":0 and a latencyMs of
// zeros, which another tool reads as measured. They are null.
func TestStatsJSONNoCallAnswered(t *testing.T) {
	t.Parallel()
	st := load.NewStats()
	st.Add(&attempt.Result{Request: &attempt.Request{}, Attempts: []attempt.Attempt{{Kind: attempt.KindRefused}}})
	st.Elapsed = time.Second
	line := string(appendStatsJSON(nil, st))
	if !strings.Contains(line, `"requestsPerSecond":null,`) || !strings.Contains(line, `"latencyMs":null,`) {
		t.Errorf("no call answered: %s", line)
	}
	st.Add(&attempt.Result{Request: &attempt.Request{}, Attempts: []attempt.Attempt{{Status: 200, Latency: time.Millisecond}}})
	line = string(appendStatsJSON(nil, st))
	if !strings.Contains(line, `"requestsPerSecond":1,`) || !strings.Contains(line, `"latencyMs":{"p50":1,`) {
		t.Errorf("a call answered: %s", line)
	}
}

// Calls that went out on a kept-alive connection the receiver closed as
// they arrived, with no answer, are said apart from a receiver that
// closed a fresh connection: in JSON "closedAsSent" (failed so, counted in
// failedByError too) and "resentAfterClose" (retries of such a call, which
// the receiver may have taken twice); in text, a line saying what may have
// happened. Both runs said only "connection closed", or "retries 1".
func TestStatsClosedAsSent(t *testing.T) {
	t.Parallel()
	closed := attempt.Attempt{Kind: attempt.KindClosed, ClosedAsSent: true, Err: "closed"}
	st := load.NewStats()
	st.Add(&attempt.Result{Request: &attempt.Request{}, Attempts: []attempt.Attempt{closed}})
	st.Add(&attempt.Result{Request: &attempt.Request{}, Attempts: []attempt.Attempt{{Kind: attempt.KindClosed}}})
	st.Add(&attempt.Result{Request: &attempt.Request{}, OK: true, Attempts: []attempt.Attempt{closed, {Status: 200, Latency: time.Millisecond}}})
	st.Elapsed = time.Second
	line := string(appendStatsJSON(nil, st))
	if !strings.Contains(line, `"failedByError":{"connection closed":2},"closedAsSent":1,"resentAfterClose":1,`) {
		t.Errorf("JSON: %s", line)
	}
	text := string(SendSummary{Stats: st}.AppendText(nil, nil))
	for _, want := range []string{
		"failed by error: connection closed×2\n" +
			"  1 of them went out on a kept-alive connection the receiver closed as the call arrived, without an answer: its idle timeout is shorter than the sender's (it closes a connection its answer kept alive, without 'Connection: close'), or its handler died on the call; the call may have been taken\n",
		"1 retry resent a call whose kept-alive connection the receiver closed as it arrived, without an answer: the receiver may have taken it twice\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text:\n%s\nwant in it:\n%s", text, want)
		}
	}
	// None of them: nothing said, and the JSON as it was.
	st = load.NewStats()
	st.Add(&attempt.Result{Request: &attempt.Request{}, Attempts: []attempt.Attempt{{Kind: attempt.KindClosed}}})
	if line := string(appendStatsJSON(nil, st)); strings.Contains(line, "closedAsSent") || strings.Contains(line, "resentAfterClose") {
		t.Errorf("JSON without such calls: %s", line)
	}
	if text := string(SendSummary{Stats: st}.AppendText(nil, nil)); strings.Contains(text, "kept-alive") {
		t.Errorf("text without such calls: %s", text)
	}
}

// A delivery that failed so says it on its line, in its JUnit case and on
// the retry line: "connection closed" alone sends the user to look for a
// receiver that refuses calls.
// One whose new connection ended after the call went out may have had it
// taken as well: the note is what went out, not the connection's reuse.
func TestDeliveryClosedAsSent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a    attempt.Attempt
		said string
	}{
		{attempt.Attempt{Kind: attempt.KindClosed, ClosedAsSent: true, EndedAfterSent: true, Latency: time.Millisecond},
			"connection closed on a kept-alive connection as the call went out (it may have been taken)"},
		{attempt.Attempt{Kind: attempt.KindReset, EndedAfterSent: true, Latency: time.Millisecond},
			"connection reset after the call went out (it may have been taken)"},
		{attempt.Attempt{Kind: attempt.KindRefused, Latency: time.Millisecond}, "connection refused"},
	} {
		res := &attempt.Result{Request: &attempt.Request{Event: "E", RequestID: "id"}, Attempts: []attempt.Attempt{tt.a}}
		if got := string((*delivery)(res).AppendText(nil, &term.Style{})); !strings.Contains(got, "--- "+tt.said+"\n") {
			t.Errorf("line %q, want %q in it", got, tt.said)
		}
		tc := (*delivery)(res).JUnit()
		if !strings.HasSuffix(tc.Failure, ": "+tt.said) || !strings.HasPrefix(tc.Detail, "attempt 1: "+tt.said+" in ") {
			t.Errorf("JUnit failure %q, detail %q, want %q", tc.Failure, tc.Detail, tt.said)
		}
	}
}

// The calls due before --duration ended that the bound held back are in
// the JSON summary too ("heldBack", of "notStarted"), for a tool that
// reads it as the text's line (found by ck47).
func TestStatsJSONHeldBack(t *testing.T) {
	t.Parallel()
	st := load.NewStats()
	st.Open, st.Rate, st.MaxConcurrency = true, 10, 5
	st.NotStarted, st.HeldBack = 15, 5
	if line := string(appendStatsJSON(nil, st)); !strings.Contains(line, `"notStarted":15,`) || !strings.Contains(line, `"heldBack":5,`) {
		t.Errorf("held back: %s", line)
	}
	st.HeldBack = 0
	if line := string(appendStatsJSON(nil, st)); strings.Contains(line, `"heldBack"`) {
		t.Errorf("none held back: %s", line)
	}
}
