package check

import (
	"slices"
	"testing"
)

// The summary's verdicts, on tallies made by hand: which of them no run
// through a receiver pins (a mutation pass found each unheld).
func TestSummaryVerdicts(t *testing.T) {
	t.Parallel()
	// One failed case fails the run: not two.
	one := &Summary{Order: []string{acceptsValid}, Checks: map[string]*Tally{acceptsValid: {Pass: 4, Fail: 1}}}
	if !one.Failed() {
		t.Error("a run with one failed case: Failed() false")
	}
	if (&Summary{Order: []string{acceptsValid}, Checks: map[string]*Tally{acceptsValid: {Pass: 4}}}).Failed() {
		t.Error("a run with no failed case: Failed() true")
	}
	// A run that ended before a check it would have skipped, or whose
	// inconclusive cases came in a check then said not run, names
	// neither: not run is said apart, never as skipped or unjudged.
	cut := &Summary{
		Order: []string{acceptsValid, duplicates, signature, Effects},
		Checks: map[string]*Tally{
			acceptsValid: {Pass: 2},
			duplicates:   {Warn: 2, Inconclusive: 1},
			signature:    {Skipped: skippedSignature},
			Effects:      {Warn: 3, Inconclusive: 3, Skipped: "needs a probe"},
		},
		NotRun: []string{Effects},
	}
	if got := cut.Skipped(); !slices.Equal(got, []string{signature}) {
		t.Errorf("Skipped() = %q, want [signature] (effects was not run)", got)
	}
	if got := cut.Unjudged(); got != 1 {
		t.Errorf("Unjudged() = %d, want 1 (duplicates'; effects was not run)", got)
	}
}

// cutAt: a run that ended in a check skipped as it began (signature with
// no secret) says it not run, as every check from the one it ended in
// on; an earlier skipped check stays skipped.
func TestCutAtInASkippedCheck(t *testing.T) {
	t.Parallel()
	r := &runner{sum: &Summary{
		Order: []string{acceptsValid, signature, Load},
		Checks: map[string]*Tally{
			acceptsValid: {Pass: 3},
			signature:    {Skipped: skippedSignature},
			Load:         {},
		},
	}}
	r.cutAt(1)
	if !slices.Equal(r.sum.NotRun, []string{signature, Load}) || r.sum.CutShort != "" {
		t.Errorf("ended in signature: not run %q, cut short %q; want [signature load] and none", r.sum.NotRun, r.sum.CutShort)
	}
	r.sum.NotRun, r.sum.CutShort = nil, ""
	r.cutAt(2)
	if !slices.Equal(r.sum.NotRun, []string{Load}) {
		t.Errorf("ended in load: not run %q, want [load] (signature stays skipped)", r.sum.NotRun)
	}
}
