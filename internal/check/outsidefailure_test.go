package check

import (
	"testing"

	"github.com/whsim/whsim/internal/attempt"
)

// What a valid call sent alone got, as the load reason counts it: a
// malformed answer is one (the stop rule counts it answered, the load's
// own figures say "malformed answer"), not "no answer", which the load
// reason said of it beside its own "60 malformed answer" (found by ck47).
func TestOutsideFailureWords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a    attempt.Attempt
		want string
	}{
		{attempt.Attempt{Kind: attempt.KindClosed}, "no answer"},
		{attempt.Attempt{Kind: attempt.KindTimeout}, "no answer"},
		{attempt.Attempt{Kind: attempt.KindClosed, ClosedAsSent: true}, ""},
		{attempt.Attempt{Kind: attempt.KindMalformed, Err: "malformed HTTP response"}, attempt.KindMalformed},
		{attempt.Attempt{Status: 503}, "got 503"},
		{attempt.Attempt{Status: 200}, ""},
	} {
		if got := outsideFailure(tt.a); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.a, got, tt.want)
		}
	}
}
