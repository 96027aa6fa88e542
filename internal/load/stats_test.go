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
