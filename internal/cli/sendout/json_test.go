package sendout

import (
	"encoding/json"
	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
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
