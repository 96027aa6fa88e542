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
