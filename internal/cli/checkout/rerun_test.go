package checkout

import (
	"testing"
	"time"

	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/term"
)

func TestRerunCase(t *testing.T) {
	t.Parallel()
	failed := check.Failed{Check: "duplicates", Name: "E/serial-x4", Status: 500, Want: "2xx"}
	tests := []struct {
		outcome, reason string
		text, json      string
		failure, fType  string
		detail          string
	}{
		{check.Fixed, "got 200", "<ok>FIXED</> <k>duplicates</> E/serial-x4: got 200\n",
			`{"check":"duplicates","case":"E/serial-x4","rerun":"fixed","status":200,"wasStatus":500,"reason":"got 200","want":"2xx"}`, "", "", "fixed: got 200"},
		{check.StillFailing, "got 500, want 2xx", "<f>STILL FAILING</> <k>duplicates</> E/serial-x4: got 500, want 2xx\n",
			`{"check":"duplicates","case":"E/serial-x4","rerun":"still-failing","status":200,"wasStatus":500,"reason":"got 500, want 2xx","want":"2xx"}`, "got 500, want 2xx", "still-failing", ""},
		{check.NotRerun, "judged over a run", "<f>NOT RERUN</> <k>duplicates</> E/serial-x4: judged over a run\n",
			`{"check":"duplicates","case":"E/serial-x4","rerun":"not-rerun","status":200,"wasStatus":500,"reason":"judged over a run","want":"2xx"}`, "judged over a run", "not-rerun", ""},
	}
	for _, tt := range tests {
		// Its JUnit time is what sending it again took (Took), not the
		// last copy's latency.
		end := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		c := RerunCase{check.RerunResult{Case: failed, Outcome: tt.outcome, Status: 200, Latency: 5 * time.Millisecond, Took: 1500 * time.Millisecond, Ended: end, Reason: tt.reason}}
		if got := string(c.AppendText(nil, &colours)); got != tt.text {
			t.Errorf("%s text %q, want %q", tt.outcome, got, tt.text)
		}
		if got := string(c.AppendJSON(nil, nil)); got != tt.json+"\n" {
			t.Errorf("%s JSON %s, want %s", tt.outcome, got, tt.json)
		}
		j := c.JUnit()
		if j.Failure != tt.failure || j.FailureType != tt.fType || j.Detail != tt.detail || j.Class != "whsim.check.duplicates" || j.Time != 1500*time.Millisecond || !j.End.Equal(end) {
			t.Errorf("%s JUnit %+v", tt.outcome, j)
		}
		if (c.Verdict() == term.Pass) != (tt.outcome == check.Fixed) {
			t.Errorf("%s verdict %d", tt.outcome, c.Verdict())
		}
	}
}

func TestRerunSummary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s          check.RerunSummary
		text, json string
	}{
		{check.RerunSummary{Fixed: 2}, "\n<ok>ok</> all 2 failed cases are fixed\n",
			`{"summary":{"allFixed":true,"fixed":2,"interrupted":false,"notRerun":0,"stillFailing":0}}`},
		{check.RerunSummary{Fixed: 1}, "\n<ok>ok</> all 1 failed case is fixed\n",
			`{"summary":{"allFixed":true,"fixed":1,"interrupted":false,"notRerun":0,"stillFailing":0}}`},
		{check.RerunSummary{Fixed: 1, StillFailing: 1, NotRerun: 1}, "\n<f>FAIL</> 1 of 3 failed cases fixed, 1 still failing, 1 not rerun\n",
			`{"summary":{"allFixed":false,"fixed":1,"interrupted":false,"notRerun":1,"stillFailing":1}}`},
		{check.RerunSummary{Fixed: 1, Interrupted: true, Total: 4}, "\ninterrupted after 1 of 4 failed cases: 1 fixed, 0 still failing\n",
			`{"summary":{"allFixed":false,"fixed":1,"interrupted":true,"notRerun":0,"stillFailing":0}}`},
	}
	for _, tt := range tests {
		s := RerunSummary{&tt.s}
		if got := string(s.AppendText(nil, &colours)); got != tt.text {
			t.Errorf("%+v text %q, want %q", tt.s, got, tt.text)
		}
		if got := string(s.AppendJSON(nil)); got != tt.json+"\n" {
			t.Errorf("%+v JSON %s, want %s", tt.s, got, tt.json)
		}
	}
}
