package term

import (
	"github.com/whsim/whsim/internal/deliver"

	"encoding/json"
	"testing"
	"time"
)

// The hand-written JSON of a delivery is the line the encoder makes of its
// JSON form, escapes and all.
func TestAppendJSONMatchesEncoder(t *testing.T) {
	t.Parallel()
	results := []*deliver.Result{
		{
			Request: &deliver.Request{Seq: 7, Event: "CREATE_RECEIVABLE_DOC", RequestID: "id\"<x>&\u2028\xff", Duplicate: true},
			URL:     "http://h/?a=1&businessType=X", OK: false,
			Attempts: []deliver.Attempt{{Status: 503, Latency: 1500 * time.Microsecond, Wait: 200 * time.Millisecond},
				{Kind: "connection refused", Err: "dial: \x1b refused", Latency: time.Millisecond, Location: "/x"}},
		},
		{Request: &deliver.Request{Seq: 1, Event: "收款", RequestID: ""}, URL: "http://h/", OK: true,
			Attempts: []deliver.Attempt{{Status: 200, Latency: 3 * time.Second}}},
	}
	for _, res := range results {
		want := MarshalJSONLine(resultJSON(res))
		if got := appendResultJSON(nil, res); string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
		if !json.Valid(want) {
			t.Errorf("invalid JSON %s", want)
		}
	}
}

func TestStatsJSON(t *testing.T) {
	t.Parallel()
	st := deliver.NewStats()
	st.Add(&deliver.Result{Request: &deliver.Request{}, Attempts: []deliver.Attempt{{Status: 500, Latency: time.Millisecond}}})
	st.Add(&deliver.Result{Request: &deliver.Request{}, Attempts: []deliver.Attempt{{Kind: "timeout", Latency: time.Millisecond}}})
	var j statsJSON
	if err := json.Unmarshal(appendStatsJSON(nil, st), &j); err != nil {
		t.Fatal(err)
	}
	if s := j.Summary; s.Sent != 2 || s.Failed != 2 || s.FailedByStatus["500"] != 1 || s.FailedByError["timeout"] != 1 {
		t.Errorf("summary %+v", s)
	}
}
