package check

import "testing"

// Unjudged counts the inconclusive cases of the checks that ran: not those
// of a check the run never reached, which are no cases graded.
func TestSummaryUnjudged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		sum  Summary
		want int
	}{
		{"none", Summary{Order: []string{"a"}, Checks: map[string]*Tally{"a": {Pass: 3}}}, 0},
		{"two checks", Summary{Order: []string{"a", "b"}, Checks: map[string]*Tally{"a": {Warn: 2, Inconclusive: 2}, "b": {Pass: 1, Warn: 3, Inconclusive: 1}}}, 3},
		{"a check not run", Summary{Order: []string{"a", "b"}, NotRun: []string{"b"}, Checks: map[string]*Tally{"a": {Inconclusive: 1}, "b": {Inconclusive: 4}}}, 1},
		{"a check without a tally", Summary{Order: []string{"a"}, Checks: map[string]*Tally{}}, 0},
	} {
		if got := tc.sum.Unjudged(); got != tc.want {
			t.Errorf("%s: Unjudged() = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// NothingJudged: a run that ran cases and judged none (every one
// inconclusive) verified nothing, and Failed says so; one judged case of
// any kind (a pass, a failure, a warning of its own) is a verdict.
func TestSummaryNothingJudged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		sum  Summary
		want bool
	}{
		{"every case inconclusive", Summary{Order: []string{"a", "b"}, Checks: map[string]*Tally{"a": {Warn: 19, Inconclusive: 19}, "b": {Warn: 8, Inconclusive: 8}}}, true},
		{"one pass beside them", Summary{Order: []string{"a", "b"}, Checks: map[string]*Tally{"a": {Warn: 19, Inconclusive: 19}, "b": {Pass: 1}}}, false},
		{"a warning of its own", Summary{Order: []string{"a"}, Checks: map[string]*Tally{"a": {Warn: 3, Inconclusive: 2}}}, false},
		{"a failure", Summary{Order: []string{"a"}, Checks: map[string]*Tally{"a": {Fail: 1, Warn: 2, Inconclusive: 2}}}, false},
		{"beside a skipped check", Summary{Order: []string{"a", "effects"}, Checks: map[string]*Tally{"a": {Warn: 1, Inconclusive: 1}, "effects": {Skipped: "needs a probe"}}}, true},
		{"the judged check not run", Summary{Order: []string{"a", "b"}, NotRun: []string{"b"}, Checks: map[string]*Tally{"a": {Warn: 1, Inconclusive: 1}, "b": {Pass: 4}}}, true},
		{"no case at all", Summary{Order: []string{"a"}, Checks: map[string]*Tally{"a": {}}}, false},
		{"every case passed", Summary{Order: []string{"a"}, Checks: map[string]*Tally{"a": {Pass: 3}}}, false},
	} {
		if got := tc.sum.NothingJudged(); got != tc.want {
			t.Errorf("%s: NothingJudged() = %v, want %v", tc.name, got, tc.want)
		}
		if got := tc.sum.Failed(); got != tc.want && tc.sum.Checks["a"].Fail == 0 {
			t.Errorf("%s: Failed() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A run cut short is said as such: NothingJudged leaves it to Stopped and
// Interrupted, however few of its cases were judged.
func TestSummaryNothingJudgedCutShort(t *testing.T) {
	t.Parallel()
	tally := map[string]*Tally{"a": {Warn: 2, Inconclusive: 2}}
	for _, s := range []Summary{
		{Order: []string{"a"}, Checks: tally, Stopped: &Stop{Reason: "timed out"}},
		{Order: []string{"a"}, Checks: tally, Interrupted: &Stop{Reason: "interrupted"}},
	} {
		if s.NothingJudged() {
			t.Errorf("NothingJudged() of a run cut short (%+v, %+v) = true", s.Stopped, s.Interrupted)
		}
		if !s.Failed() {
			t.Errorf("Failed() of a run cut short = false")
		}
	}
}
