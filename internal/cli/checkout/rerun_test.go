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
		{check.RerunSummary{Fixed: 1}, "\n<ok>ok</> the failed case is fixed\n",
			`{"summary":{"allFixed":true,"fixed":1,"interrupted":false,"notRerun":0,"stillFailing":0}}`},
		{check.RerunSummary{Fixed: 1, StillFailing: 1, NotRerun: 1}, "\n<f>FAIL</> 1 of 3 failed cases fixed, 1 still failing, 1 not rerun\n",
			`{"summary":{"allFixed":false,"fixed":1,"interrupted":false,"notRerun":1,"stillFailing":1}}`},
		{check.RerunSummary{Fixed: 1, Interrupted: true, Total: 4}, "\ninterrupted after 1 of 4 failed cases: 1 fixed, 0 still failing\n",
			`{"summary":{"allFixed":false,"fixed":1,"interrupted":true,"notRerun":0,"stillFailing":0}}`},
		// The report's run never ran two checks (it stopped, or was
		// interrupted): every failed case fixed is no pass, nor is
		// nothing to rerun; "notRun" names them, as check's summary does.
		{check.RerunSummary{Fixed: 2, ReportEnd: check.ReportEnd{NotRun: []string{"load", "latency"}}},
			"\n<f>FAIL</> all 2 failed cases are fixed, but the report's run never ran 2 checks (load, latency)\n",
			`{"summary":{"allFixed":false,"fixed":2,"interrupted":false,"notRerun":0,"notRun":["load","latency"],"stillFailing":0}}`},
		{check.RerunSummary{ReportEnd: check.ReportEnd{NotRun: []string{"latency"}}},
			"\n<f>FAIL</> no case failed, nothing to rerun, but the report's run never ran 1 check (latency)\n",
			`{"summary":{"allFixed":false,"fixed":0,"interrupted":false,"notRerun":0,"notRun":["latency"],"stillFailing":0}}`},
		{check.RerunSummary{Fixed: 1, StillFailing: 1, ReportEnd: check.ReportEnd{CutShort: "accepts-valid", NotRun: []string{"latency"}}},
			"\n<f>FAIL</> 1 of 2 failed cases fixed, 1 still failing; the report's run cut accepts-valid short and never ran 1 check (latency)\n",
			`{"summary":{"allFixed":false,"cutShort":"accepts-valid","fixed":1,"interrupted":false,"notRerun":0,"notRun":["latency"],"stillFailing":1}}`},
		// A report without a summary line is of a run that did not end
		// (killed, or the file cut short), or of a whsim that wrote none:
		// what it never ran is unknown, and the verdict says which.
		{check.RerunSummary{Fixed: 3, ReportEnd: check.ReportEnd{NoSummary: true}},
			"\n<f>FAIL</> all 3 failed cases are fixed, but the report's run may not have finished: the report has no summary line, which whsim check writes last on every end (whsim was killed, the file is cut short, or a whsim from before the summary line wrote it), so which checks it ran is unknown\n",
			`{"summary":{"allFixed":false,"fixed":3,"interrupted":false,"notRerun":0,"reportUnfinished":true,"stillFailing":0}}`},
		// Cut short in its last check: the cases it never sent there are
		// no pass either.
		{check.RerunSummary{Fixed: 1, ReportEnd: check.ReportEnd{CutShort: "latency"}},
			"\n<f>FAIL</> the failed case is fixed, but the report's run cut latency short\n",
			`{"summary":{"allFixed":false,"cutShort":"latency","fixed":1,"interrupted":false,"notRerun":0,"stillFailing":0}}`},
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
