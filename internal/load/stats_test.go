package load

import (
	"reflect"
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
	// The encoding keeps no exact max: read back, it is known to 3
	// significant digits.
	if back.Count() != 2000 || back.Quantile(.5) != h.Quantile(.5) || back.Max() < h.Max() || back.Max() > h.Max()+h.Max()/1000 {
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

// The summary's max is the largest latency recorded, and no percentile
// is over it: the histogram keeps 3 significant digits and reads a value
// back as the top of its bucket, so a run whose longest call took
// 28269.195 ms said max 28278.783 ms, and --threshold 'max<28270ms'
// failed a run whose every call was under 28270 ms.
func TestHistogramMaxIsTheLargestRecorded(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		rec  []time.Duration
	}{
		{"one call", []time.Duration{7200 * time.Microsecond}},
		{"a long one", []time.Duration{time.Millisecond, 3 * time.Second, 28269195 * time.Microsecond}},
		{"sub-microsecond parts", []time.Duration{1_000_999 * time.Nanosecond, 999_999_999}},
	} {
		var h Histogram
		largest := time.Duration(0)
		for _, d := range tt.rec {
			h.Record(d)
			largest = max(largest, d.Truncate(time.Microsecond))
		}
		if h.Max() != largest {
			t.Errorf("%s: max %s, want %s, the largest recorded", tt.name, h.Max(), largest)
		}
		for _, q := range []float64{.5, .9, .99, .999, 1} {
			if got := h.Quantile(q); got > largest {
				t.Errorf("%s: p%g %s, over the largest recorded, %s", tt.name, q*100, got, largest)
			}
		}
		st := NewStats()
		st.Latency, st.Elapsed = h, time.Second
		if m := st.Measured(); m["max"] != attempt.MS(largest) {
			t.Errorf("%s: measured max %v, want %v", tt.name, m["max"], attempt.MS(largest))
		}
		// Merged, as a run's workers are.
		var merged Histogram
		merged.Merge(&h)
		if merged.Max() != largest {
			t.Errorf("%s: merged max %s, want %s", tt.name, merged.Max(), largest)
		}
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
		{Stats{NotStarted: 1}, "1 not started"},
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

// Every delivery is in the ledger where it belongs: a document and a
// deliberate re-delivery counted as such, and a call Ctrl-C stopped in
// the backoff counted as a retry not made (by the status that led to it,
// when answered), which one stopped before its first attempt went out is
// not: it was never answered, and no retry was waited for.
func TestStatsLedger(t *testing.T) {
	doc, dup := &attempt.Request{Document: true}, &attempt.Request{Duplicate: true}
	unsent := attempt.Attempt{Kind: attempt.KindInterrupted, Unsent: true}
	s := NewStats()
	for _, r := range []*attempt.Result{
		{Request: doc, OK: true, Attempts: []attempt.Attempt{{Status: 200}}},
		{Request: dup, OK: true, Attempts: []attempt.Attempt{{Status: 200}}},
		{Request: doc, Attempts: []attempt.Attempt{{Status: 503}, unsent}},                        // waited to retry a 503
		{Request: doc, Attempts: []attempt.Attempt{{Kind: attempt.KindRefused}, unsent}},          // waited to retry no answer
		{Request: doc, Attempts: []attempt.Attempt{unsent}},                                       // stopped before it went out
		{Request: doc, Attempts: []attempt.Attempt{{Status: 200, Kind: attempt.KindInterrupted}}}, // cut in its answer
	} {
		s.Add(r)
	}
	if s.Sent != 6 || s.Documents != 5 || s.Duplicates != 1 || s.Succeeded != 2 || s.Interrupted != 4 || s.Retries != 0 ||
		s.RetryNotMade != 2 || len(s.RetryNotMadeByStatus) != 1 || s.RetryNotMadeByStatus[503] != 1 {
		t.Errorf("sent %d, documents %d, duplicates %d, succeeded %d, interrupted %d, retries %d, retries not made %d %v; want 6 5 1 2 4 0 2 map[503:1] (a retry not made is no retry)",
			s.Sent, s.Documents, s.Duplicates, s.Succeeded, s.Interrupted, s.Retries, s.RetryNotMade, s.RetryNotMadeByStatus)
	}
}

// Merge adds every count of a shard: a count it left out would drop a
// worker's deliveries from the summary. The figures a run sets on the
// total alone (its time, model and concurrency) are not a shard's.
func TestMergeAddsEveryCount(t *testing.T) {
	runs := map[string]bool{"Elapsed": true, "Open": true, "Rate": true, "MaxConcurrency": true, "PeakConcurrency": true, "Late": true}
	o := NewStats()
	v := reflect.ValueOf(o).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Int && !runs[v.Type().Field(i).Name] {
			f.SetInt(int64(i + 1))
		}
	}
	o.NotStartedUncounted = true
	o.ByStatus[503], o.ByError[attempt.KindRefused], o.RetryNotMadeByStatus[429] = 2, 3, 4
	o.Latency.Record(time.Millisecond)
	for _, into := range []*Stats{NewStats(), {ByStatus: map[int]int{}, ByError: map[string]int{}}} {
		into.Merge(o)
		into.Merge(NewStats())
		got := reflect.ValueOf(into).Elem()
		for i := range v.NumField() {
			name := v.Type().Field(i).Name
			if f := v.Field(i); f.Kind() == reflect.Int && !runs[name] && got.Field(i).Int() != f.Int() {
				t.Errorf("merged %s = %d, want the shard's %d", name, got.Field(i).Int(), f.Int())
			}
		}
		if !into.NotStartedUncounted || into.ByStatus[503] != 2 || into.ByError[attempt.KindRefused] != 3 || into.RetryNotMadeByStatus[429] != 4 || into.Latency.Count() != 1 {
			t.Errorf("merged %+v: lost the shard's uncounted input, a map's count or its latency", into)
		}
	}
}

// What a run stopped early left in its feed is counted not started on top
// of what its workers took and did not start; a feed without end (-1)
// planned nothing past the stop, so nothing is; and a feed that ran dry
// left nothing, whatever Left says.
func TestLeftCountsWhatTheFeedHeld(t *testing.T) {
	for _, tt := range []struct {
		name        string
		left        int
		dry         bool
		notStarted  int
		wantEndless bool
	}{
		{"held some", 5, false, 2 + 5, false},
		{"held none", 0, false, 2, false},
		{"without end", -1, false, 0, true},
		{"ran dry", 5, true, 2, false},
	} {
		st := &Stats{NotStarted: 2}
		o := RunOptions{Left: func() (int, bool) { return tt.left, false }}
		if endless := o.left(tt.dry, st); st.NotStarted != tt.notStarted || endless != tt.wantEndless {
			t.Errorf("%s: not started %d, endless %v; want %d, %v", tt.name, st.NotStarted, endless, tt.notStarted, tt.wantEndless)
		}
	}
}

// Measured gives every count a threshold may name, and no latency or
// rate of a run no call of which was answered: a threshold on them fails
// as not measured rather than holding on a 0.
func TestMeasured(t *testing.T) {
	st := NewStats()
	st.Sent, st.Failed, st.Late = 4, 4, 3
	m := st.Measured()
	if m["late"] != 3 || m["sent"] != 4 || m["failed"] != 4 {
		t.Errorf("measured %v, want late 3, sent 4, failed 4", m)
	}
	for _, k := range []string{"rps", "p50", "p90", "p99", "p99.9", "max"} {
		if v, ok := m[k]; ok {
			t.Errorf("no call answered, yet %s measured %v", k, v)
		}
	}
	st.Latency.Record(2 * time.Millisecond)
	st.Elapsed = time.Second
	if m := st.Measured(); m["rps"] != 1 || m["max"] < 1.9 || m["max"] > 2.1 {
		t.Errorf("one call answered in 2ms over 1s: measured %v, want rps 1 and max 2", m)
	}
}
