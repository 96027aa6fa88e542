package load

import (
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

func TestHistogramQuantiles(t *testing.T) {
	var h Histogram
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	for _, tt := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Millisecond}, {0.9, 900 * time.Millisecond}, {0.99, 990 * time.Millisecond}, {1, time.Second}} {
		got := h.Quantile(tt.q)
		if diff := float64(got-tt.want) / float64(tt.want); diff < -0.02 || diff > 0.02 {
			t.Errorf("p%g = %s, want %s within 2%%", tt.q*100, got, tt.want)
		}
	}
	if h.Max() < time.Second || h.Max() > time.Second+time.Millisecond || h.Count() != 1000 {
		t.Errorf("max %s count %d", h.Max(), h.Count())
	}
	// Runs merge through the encoded form, as --output json gives it.
	enc, err := h.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeHistogram(enc)
	if err != nil {
		t.Fatal(err)
	}
	back.Merge(&h)
	if back.Count() != 2000 || back.Quantile(.5) != h.Quantile(.5) || back.Max() != h.Max() {
		t.Errorf("merged: count %d p50 %s max %s", back.Count(), back.Quantile(.5), back.Max())
	}
	var empty Histogram
	if empty.Count() != 0 || empty.Quantile(.99) != 0 || empty.Max() != 0 {
		t.Errorf("empty histogram: %d %s %s", empty.Count(), empty.Quantile(.99), empty.Max())
	}
	if _, err := decodeHistogram("not base64!"); err == nil {
		t.Error("a bad histogram decoded")
	}
}

// A call Ctrl-C cut short while its answer's body came is interrupted, as
// one cut before its answer is: its status came but its latency is
// Ctrl-C's, not the receiver's, so it is in neither the latency nor the
// rate of calls answered (the event loops, which drop what they read of
// it, never count it there either).
func TestStatsInterruptedAnswerIsNoLatency(t *testing.T) {
	s := NewStats()
	s.Add(&attempt.Result{Request: &attempt.Request{}, OK: true, Attempts: []attempt.Attempt{{Status: 200, Latency: time.Millisecond}}})
	s.Add(&attempt.Result{Request: &attempt.Request{}, Attempts: []attempt.Attempt{
		{Status: 200, Latency: 700 * time.Millisecond, Kind: attempt.KindInterrupted, BodyKind: attempt.KindInterrupted}}})
	if s.Sent != 2 || s.Succeeded != 1 || s.Interrupted != 1 || s.Failed != 0 || s.Latency.Count() != 1 || s.Latency.Max() > time.Second/2 {
		t.Errorf("sent %d succeeded %d interrupted %d failed %d, %d latencies (max %s); want 2 1 1 0, the success's alone",
			s.Sent, s.Succeeded, s.Interrupted, s.Failed, s.Latency.Count(), s.Latency.Max())
	}
}

// A call that went out on a kept-alive connection the receiver closed as
// it arrived, with no answer, may have been taken (an idle timeout's race
// or a handler that died on it): the stats count the failed ones apart
// from a receiver that refused or dropped a fresh connection, and the
// retries that sent such a call again, which the receiver may have taken
// twice. They were "connection closed" like any other.
func TestStatsClosedAsSent(t *testing.T) {
	closed := attempt.Attempt{Kind: attempt.KindClosed, ClosedAsSent: true}
	req := &attempt.Request{}
	s, o := NewStats(), NewStats()
	for _, r := range []*attempt.Result{
		{Request: req, Attempts: []attempt.Attempt{closed}},                                                // failed so
		{Request: req, Attempts: []attempt.Attempt{{Kind: attempt.KindClosed}}},                            // a fresh connection's
		{Request: req, OK: true, Attempts: []attempt.Attempt{closed, {Status: 200}}},                       // resent, taken twice perhaps
		{Request: req, Attempts: []attempt.Attempt{closed, closed}},                                        // both
		{Request: req, Attempts: []attempt.Attempt{closed, {Kind: attempt.KindInterrupted, Unsent: true}}}, // Ctrl-C in the backoff: not resent
	} {
		s.Add(r)
	}
	o.Add(&attempt.Result{Request: req, Attempts: []attempt.Attempt{closed}})
	s.Merge(o)
	if s.Failed != 4 || s.Interrupted != 1 || s.ByError[attempt.KindClosed] != 4 || s.ClosedAsSent != 3 || s.ResentAfterClose != 2 || s.Retries != 2 {
		t.Errorf("failed %d, interrupted %d, closed %d, closed as sent %d, resent after close %d, retries %d; want 4 1 4 3 2 2",
			s.Failed, s.Interrupted, s.ByError[attempt.KindClosed], s.ClosedAsSent, s.ResentAfterClose, s.Retries)
	}
}

// NotStartedWords never says "0 not started" of a run that left an input
// it could not count.
func TestNotStartedWords(t *testing.T) {
	for _, tc := range []struct {
		st   Stats
		want string
	}{
		{Stats{}, ""},
		{Stats{NotStarted: 3}, "3 not started"},
		{Stats{NotStartedUncounted: true}, "what stdin still held not started (not counted: it is read once)"},
		{Stats{NotStarted: 2, NotStartedUncounted: true}, "2 not started, and what stdin still held (not counted: it is read once)"},
	} {
		if got := tc.st.NotStartedWords(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.st, got, tc.want)
		}
	}
}

// Merge keeps a shard's uncounted input.
func TestMergeKeepsUncounted(t *testing.T) {
	var s Stats
	s.Merge(&Stats{NotStartedUncounted: true})
	s.Merge(&Stats{})
	if !s.NotStartedUncounted {
		t.Error("merged stats lost NotStartedUncounted")
	}
}
