package receiver

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestForwarded(t *testing.T) {
	type call struct {
		id      string
		invalid bool
		status  int
		want    string // the flagged checks, comma-separated
	}
	tests := []struct {
		name  string
		calls []call
	}{
		{"valid accepted", []call{{"a", false, 200, ""}}},
		{"invalid refused", []call{{"a", true, 400, ""}}},
		{"invalid accepted", []call{{"a", true, 202, RejectsMalformed}}},
		{"invalid without id accepted", []call{{"", true, 200, RejectsMalformed}}},
		{"re-delivery accepted", []call{{"a", false, 200, ""}, {"a", false, 200, ""}}},
		{"re-delivery refused", []call{{"a", false, 200, ""}, {"a", false, 409, Duplicates}}},
		// A receiver that refused the first delivery too refuses the
		// call, not its re-delivery: "must be accepted again" was false
		// of it (a receiver down answers every retry 500).
		{"re-delivery after a 500 refused again", []call{{"a", false, 500, ""}, {"a", false, 500, ""}}},
		{"re-delivery after no answer refused", []call{{"a", false, 0, ""}, {"a", false, 503, ""}}},
		{"refused, accepted, then refused", []call{{"a", false, 500, ""}, {"a", false, 200, ""}, {"a", false, 409, Duplicates}}},
		{"re-delivery of an invalid call refused", []call{{"a", true, 400, ""}, {"a", true, 400, ""}}},
		{"re-delivery with no answer", []call{{"a", false, 200, ""}, {"a", false, 0, ""}}},
		{"other ids", []call{{"a", false, 200, ""}, {"b", false, 409, ""}}},
		{"long re-delivery refused", []call{{longID('a'), false, 200, ""}, {longID('a'), false, 409, Duplicates}}},
		{"long ids differing at the end", []call{{longID('a'), false, 200, ""}, {longID('b'), false, 409, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewForwarded()
			for i, c := range tt.calls {
				var got []string
				for _, fl := range f.Judge(c.id, c.invalid, c.status, time.Unix(int64(i+1), 0), uint64(i+1)) {
					if fl.Reason == "" {
						t.Errorf("call %d: flag %s has no reason", i+1, fl.Check)
					}
					got = append(got, fl.Check)
				}
				if strings.Join(got, ",") != c.want {
					t.Errorf("call %d: flags %v, want %q", i+1, got, c.want)
				}
			}
		})
	}
}

// TestForwardedForgetsOldest: memory stays bounded on a long listen.
func TestForwardedForgetsOldest(t *testing.T) {
	f := NewForwarded()
	for i := range maxRemembered + 1 {
		f.Judge(strconv.Itoa(i), false, 200, time.Unix(1, 0), uint64(i+1))
	}
	if f.accepted.Len() != maxRemembered {
		t.Fatalf("remembers %d ids, want %d", f.accepted.Len(), maxRemembered)
	}
	if flags := f.Judge("0", false, 409, time.Unix(2, 0), maxRemembered+2); len(flags) != 0 {
		t.Errorf("the oldest id is still remembered: %v", flags)
	}
	if flags := f.Judge("2", false, 409, time.Unix(2, 0), maxRemembered+3); len(flags) != 1 {
		t.Errorf("a recent id is forgotten: %v", flags)
	}
}

// longID is a requestId of 1 MiB ending in last: a sender's ids can be as
// long as a body.
func longID(last byte) string { return strings.Repeat("r", 1<<20-1) + string(last) }

// Forwarded keeps no sender's requestId whole: it kept each one, so that a
// sender writing 1 MiB ids made a plain listen --forward-to grow by 1 MiB
// a call (806 MB after 800 calls), up to maxRemembered of them.
func TestForwardedKeepsNoLongID(t *testing.T) {
	const ids = 32
	f := NewForwarded()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range ids {
		f.Judge(longID(byte('A'+i)), false, 200, time.Unix(1, 0), uint64(i+1))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 1<<20 {
		t.Errorf("after %d requestIds of 1 MiB, Forwarded holds %d bytes more, want at most 1 MiB: it keeps the ids whole", ids, grew)
	}
	runtime.KeepAlive(f)
}

// Calls judged out of the order they came (listen judges a fault's call
// once its later copy is answered, after calls that came behind it): a
// call is the re-delivery only of one accepted that came before it. The
// first call, refused, judged after its retry was accepted, was flagged
// "accepted before (2xx) and this re-delivery got 409".
func TestForwardedJudgedOutOfOrder(t *testing.T) {
	type call struct {
		came   int64 // when it came
		status int
		want   string
	}
	tests := []struct {
		name  string
		calls []call // in the order judged
	}{
		{"the first, refused, judged after its accepted retry", []call{{2, 200, ""}, {1, 409, ""}}},
		{"then a later re-delivery refused", []call{{2, 200, ""}, {1, 409, ""}, {3, 409, Duplicates}}},
		{"an earlier accepted call judged late moves the first acceptance", []call{{3, 200, ""}, {1, 200, ""}, {2, 409, Duplicates}}},
		{"in order", []call{{1, 200, ""}, {2, 409, Duplicates}}},
		// A sender's retry answered (refused) before its original (a
		// fault's call, judged once its later copy is answered; or one
		// the receiver answered late): the retry's line had gone out
		// without the flag. The original's judgement gives it, of the
		// retry (found by fw45).
		{"a refused retry judged before its accepted original", []call{{2, 409, ""}, {1, 200, Duplicates + " of 2"}}},
		{"two refused retries judged before it", []call{{3, 409, ""}, {2, 500, ""}, {1, 200, Duplicates + " of 3," + Duplicates + " of 2"}}},
		{"then a later one refused", []call{{2, 409, ""}, {1, 200, Duplicates + " of 2"}, {3, 409, Duplicates}}},
		{"a refused one that came first is no re-delivery", []call{{1, 409, ""}, {2, 200, ""}}},
		{"an earlier refused one judged before a later acceptance", []call{{1, 409, ""}, {3, 409, ""}, {2, 200, Duplicates + " of 3"}}},
		{"flagged once only", []call{{2, 409, ""}, {1, 200, Duplicates + " of 2"}, {0, 200, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewForwarded()
			for i, c := range tt.calls {
				var got []string
				for _, fl := range f.Judge("a", false, c.status, time.Unix(c.came, 0), uint64(c.came)) {
					if fl.Of != 0 {
						if fl.Of == uint64(c.came) || !strings.Contains(fl.Reason, "#"+strconv.FormatUint(fl.Of, 10)) {
							t.Errorf("judged %d: flag of %d, reason %q: it must name the call it judges", i+1, fl.Of, fl.Reason)
						}
						got = append(got, fl.Check+" of "+strconv.FormatUint(fl.Of, 10))
						continue
					}
					got = append(got, fl.Check)
				}
				if strings.Join(got, ",") != c.want {
					t.Errorf("judged %d (came %d, got %d): flags %v, want %q", i+1, c.came, c.status, got, c.want)
				}
			}
		})
	}
}
