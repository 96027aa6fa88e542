package sendout

import (
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/term"
)

// The text summary's counts of a run that did not end well, on stats
// made by hand: each line a mutation pass found unheld by any test of
// the package.
func TestSummaryTextCountsOfAnUnfinishedRun(t *testing.T) {
	t.Parallel()
	text := func(st *load.Stats) string {
		st.Elapsed = time.Second
		return string(SendSummary{Stats: st, Name: "whsim send"}.AppendText(nil, &term.Style{}))
	}

	// Interrupted before any answer: one cut short, one with no answer,
	// each counted where the summary says it.
	st := load.NewStats()
	st.Sent, st.Interrupted = 2, 1
	got := text(st)
	for _, want := range []string{"  interrupted 1", "no rate: interrupted before a delivery got its final answer (1 cut short, 1 without an answer, over 1s)"} {
		if !strings.Contains(got, want) {
			t.Errorf("2 sent, 1 interrupted, none answered: lacks %q:\n%s", want, got)
		}
	}

	// Two deliveries answered, one of them then interrupted in its
	// backoff, and a third cut short with no answer: one left out of the
	// rate, not two (nor a count of calls with no answer run below zero).
	st = load.NewStats()
	for i := range 2 {
		st.Add(&attempt.Result{Request: &attempt.Request{Seq: i + 1}, OK: true, Attempts: []attempt.Attempt{{Status: 200, Latency: time.Millisecond}}})
	}
	st.Sent, st.Interrupted = 3, 2
	if got, want := text(st), "2.0 answered req/s over 1s (the 1 cut short by the interrupt not counted)\n"; !strings.Contains(got, want) {
		t.Errorf("lacks %q:\n%s", want, got)
	}

	// Calls stdin still held are said, even with none counted.
	st = load.NewStats()
	st.Sent, st.Succeeded, st.NotStartedUncounted = 1, 1, true
	if got, want := text(st), "  not started 0 and "+load.StdinUncounted; !strings.Contains(got, want) {
		t.Errorf("lacks %q:\n%s", want, got)
	}
}
