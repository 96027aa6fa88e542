package sendout

import (
	"encoding/json"
	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/term"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/threshold"
)

// Every metric a threshold may name has a value, and the summary lists
// each threshold in its text and inside its JSON summary object.
func TestThresholdsInSummary(t *testing.T) {
	t.Parallel()
	st := load.NewStats()
	for i := range 10 {
		st.Add(&attempt.Result{Request: &attempt.Request{Seq: i + 1}, OK: i != 3, Attempts: []attempt.Attempt{{Status: map[bool]int{true: 200, false: 500}[i != 3], Latency: time.Duration(i+1) * time.Millisecond}}})
	}
	st.Elapsed = time.Second
	m := st.Measured()
	for _, name := range threshold.Names() {
		if _, ok := m[name]; !ok {
			t.Errorf("no measured value of %s", name)
		}
	}
	if len(m) != len(threshold.Names()) {
		t.Errorf("measured %d metrics, thresholds know %d", len(m), len(threshold.Names()))
	}
	var ts []threshold.Threshold
	for _, s := range []string{"failed<5%", "p99<=11ms", "rps>=20"} {
		th, err := threshold.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	sum := SendSummary{Stats: st, Name: "whsim send", Thresholds: threshold.CheckAll(ts, m)}
	text := string(sum.AppendText(nil, &term.Style{}))
	for _, want := range []string{"thresholds:\n", "  failed<5%  failed 10%  FAILED\n", "  p99<=11ms  p99 10.0ms  ok\n", "  rps>=20    rps 10/s  FAILED\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	var j struct {
		Summary struct {
			Sent       int
			Thresholds []threshold.JSON
		}
	}
	if err := json.Unmarshal(sum.AppendJSON(nil), &j); err != nil {
		t.Fatal(err)
	}
	var pass []bool
	for _, r := range j.Summary.Thresholds {
		pass = append(pass, r.Pass)
	}
	if j.Summary.Sent != 10 || !slices.Equal(pass, []bool{false, true, false}) {
		t.Errorf("JSON summary %+v", j.Summary)
	}
	if got := string((SendSummary{Stats: st}).AppendJSON(nil)); strings.Contains(got, "thresholds") {
		t.Errorf("a run without thresholds lists them: %s", got)
	}
}
