package load

import (
	"testing"
	"time"
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
