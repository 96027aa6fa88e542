package sendout

import (
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// A delivery's JUnit time is its wall time, as JUnit readers show a
// case's: its attempts and the backoff waited between them, which its
// detail says. It was the attempts' sum alone: a delivery retried after
// a 1s Retry-After, which took a second, said 0.005s. A wait cut short
// by Ctrl-C (the attempt it led to never made) is not counted whole.
func TestDeliveryJUnitTime(t *testing.T) {
	for _, tt := range []struct {
		name     string
		attempts []attempt.Attempt
		want     time.Duration
		detail   string
	}{
		{"one attempt", []attempt.Attempt{{Status: 200, Latency: 5 * time.Millisecond}}, 5 * time.Millisecond,
			"attempt 1: 200 in 5.0ms\n"},
		{"retried after a backoff", []attempt.Attempt{
			{Status: 503, Latency: 4 * time.Millisecond, Wait: time.Second},
			{Status: 200, Latency: time.Millisecond},
		}, time.Second + 5*time.Millisecond,
			"attempt 1: 503 in 4.0ms, then 1s backoff\nattempt 2: 200 in 1.0ms\n"},
		{"interrupted in the backoff", []attempt.Attempt{
			{Status: 503, Latency: 4 * time.Millisecond, Wait: time.Second},
			{Kind: attempt.KindInterrupted, Unsent: true},
		}, 4 * time.Millisecond,
			"attempt 1: 503 in 4.0ms\ninterrupted in the backoff before the next attempt\n"},
	} {
		res := &attempt.Result{Request: &attempt.Request{Event: "E", RequestID: "id"}, OK: true, Attempts: tt.attempts}
		before := time.Now()
		tc := (*delivery)(res).JUnit()
		if tc.Time != tt.want {
			t.Errorf("%s: time %s, want %s", tt.name, tc.Time, tt.want)
		}
		if tc.End.Before(before) || tc.End.After(time.Now()) {
			t.Errorf("%s: end %s, want the moment it was reported", tt.name, tc.End)
		}
		if !strings.HasPrefix(tc.Detail, tt.detail) {
			t.Errorf("%s: detail %q, want %q", tt.name, tc.Detail, tt.detail)
		}
	}
}
