package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// The overrun: against a receiver that answers in 3 s,
// --rate 50000 --duration 5s worked off the whole backlog for a minute. No
// call starts at or after the end; what the feed still held is counted as
// not started, and sent + not started is the whole feed.
func TestOpenModelStartsNothingAfterTheDuration(t *testing.T) {
	for _, bound := range []int{4, 1000} {
		synctest.Test(t, func(t *testing.T) {
			epoch := time.Now()
			rcv := steady(3 * time.Second)
			const n = 1_000_000
			left := n
			feed := func() []*attempt.Request {
				if left == 0 {
					return nil
				}
				left--
				return []*attempt.Request{{Event: "E"}}
			}
			st := runOpen(t.Context(), rcv.deliver, feed, RunOptions{
				Rate: 50000, MaxConcurrency: bound, Duration: 5 * time.Second, Left: func() (int, bool) { return left, false },
			}, nil)
			end := epoch.Add(5 * time.Second)
			after := 0
			for _, at := range rcv.starts {
				if !at.Before(end) {
					after++
				}
			}
			if after != 0 {
				t.Errorf("bound %d: %d calls started at or after the end of --duration", bound, after)
			}
			if st.Sent != len(rcv.starts) || st.Sent+st.NotStarted != n {
				t.Errorf("bound %d: sent %d (receiver %d), not started %d; want sent + not started = %d", bound, st.Sent, len(rcv.starts), st.NotStarted, n)
			}
			// The calls in flight at the end finish: 3 s after the last start.
			within(t, "elapsed", st.Elapsed, 3*time.Second, 8*time.Second)
		})
	}
}

// A scenario's later events are not started past the end either.
func TestOpenModelGroupStopsAtTheDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		epoch := time.Now()
		rcv := steady(0)
		feed := func() []*attempt.Request { return []*attempt.Request{{Event: "A"}, {Event: "B"}, {Event: "C"}} }
		// 1 call/s: the job at slot 0 has slots 0, 1 and 2 s; the run ends at 1.5 s.
		st := runOpen(t.Context(), rcv.deliver, feed, RunOptions{Rate: 1, Duration: 1500 * time.Millisecond}, nil)
		for _, at := range rcv.starts {
			if !at.Before(epoch.Add(1500 * time.Millisecond)) {
				t.Errorf("a delivery started at +%s", at.Sub(epoch))
			}
		}
		if st.Sent != 2 || st.NotStarted != 1 {
			t.Errorf("sent %d, not started %d; want 2, 1", st.Sent, st.NotStarted)
		}
		// The run ends at its end, not at the slot of the event it skipped.
		if st.Elapsed > 1500*time.Millisecond {
			t.Errorf("elapsed %s, want the run over by the end of --duration", st.Elapsed)
		}
	})
}

// The closed model stops at the end of --duration too, in virtual time.
func TestClosedModelStartsNothingAfterTheDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		epoch := time.Now()
		rcv := steady(700 * time.Millisecond)
		left := 100
		feed := func() []*attempt.Request {
			if left == 0 {
				return nil
			}
			left--
			return []*attempt.Request{{Event: "E"}}
		}
		st := runClosed(t.Context(), rcv.deliver, feed, RunOptions{Concurrency: 3, Duration: 2 * time.Second, Left: func() (int, bool) { return left, false }}, nil)
		for _, at := range rcv.starts {
			if !at.Before(epoch.Add(2 * time.Second)) {
				t.Errorf("a delivery started at +%s", at.Sub(epoch))
			}
		}
		// Starts at 0, 0.7 and 1.4 s on each of 3 workers.
		if st.Sent != 9 || st.NotStarted != 91 {
			t.Errorf("sent %d, not started %d; want 9, 91", st.Sent, st.NotStarted)
		}
	})
}

// Ctrl-C: the deliveries in flight are interrupted, those not started are
// counted apart and never reported, and sent is what the receiver got.
func TestRunInterruptedCountsOnlyWhatStarted(t *testing.T) {
	var got atomic.Int64
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got.Add(1) > 6 {
			select {
			case <-hold:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	defer close(hold)
	d := newTestDeliverer(t, srv, 0, &virtualSleep{})
	ctx, cancel := context.WithCancel(context.Background())
	var (
		mu       sync.Mutex
		reported []*attempt.Result
	)
	report := func(r *attempt.Result) {
		mu.Lock()
		reported = append(reported, r)
		mu.Unlock()
	}
	var done atomic.Int64
	go func() {
		// Cancel once the 4 workers all hold a call the receiver is keeping.
		for got.Load() < 10 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	feed := NewFeed([][][]attempt.Template{templates("A", 3)}, 50, 0, false, 1)
	st := Run(ctx, d, feed.Next, RunOptions{Concurrency: 4, Done: &done, Left: func() (int, bool) { return feed.Left(), false }}, report)
	srv.CloseClientConnections()
	if st.Sent != int(got.Load()) || st.Interrupted != 4 || st.Succeeded != 6 || st.NotStarted != 40 {
		t.Errorf("sent %d (receiver %d), succeeded %d, interrupted %d, not started %d; want receiver's, 6, 4, 40",
			st.Sent, got.Load(), st.Succeeded, st.Interrupted, st.NotStarted)
	}
	if len(reported) != st.Sent {
		t.Errorf("%d deliveries reported, %d sent", len(reported), st.Sent)
	}
}

func TestFeedLeft(t *testing.T) {
	t.Parallel()
	f := NewFeed([][][]attempt.Template{templates("A", 2), templates("B", 2)}, 5, 0, false, 1)
	f.Next()
	f.Next()
	f.Next() // round 2 of 5 filled, one of its two handed out
	if n := f.Left(); n != 7 {
		t.Errorf("Left() = %d, want 7", n)
	}
	if f.Next() != nil {
		t.Error("a feed that told what it had left still hands out")
	}
	if n := NewFeed([][][]attempt.Template{templates("A", 2)}, 0, 0, false, 1).Left(); n != -1 {
		t.Errorf("Left() of an endless feed = %d, want -1", n)
	}
	// With duplicates: what is left plus what was handed out is what a
	// whole run of the same seed hands out.
	whole := 0
	for f := NewFeed([][][]attempt.Template{templates("A", 2)}, 100, 0.5, false, 9); f.Next() != nil; {
		whole++
	}
	if whole <= 100 {
		t.Fatalf("no duplicates drawn: %d", whole)
	}
	for _, taken := range []int{0, 1, 30, 99} {
		f := NewFeed([][][]attempt.Template{templates("A", 2)}, 100, 0.5, false, 9)
		for range taken {
			f.Next()
		}
		if n := f.Left(); taken+n != whole {
			t.Errorf("after %d: Left() = %d, want %d", taken, n, whole-taken)
		}
	}
}

// No call starts after --duration, retries included: a delivery whose next
// attempt would start past the end keeps its last answer (a 503 asking for
// a minute's wait) instead of keeping the run going for it, in both models,
// and says why it was not retried: the user asked for retries.
func TestRetriesStartNothingAfterTheDuration(t *testing.T) {
	for _, rate := range []float64{0, 1} {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(503)
		}))
		vs := &virtualSleep{}
		d := newTestDeliverer(t, srv, 3, vs)
		fed := false
		feed := func() []*attempt.Request {
			if fed {
				return nil
			}
			fed = true
			return []*attempt.Request{{Event: "E", Query: "businessType=E", Body: []byte(`{}`)}}
		}
		// The run ends when its one delivery is done, long before the 50 s.
		var last attempt.Attempt
		st := Run(t.Context(), d, feed, RunOptions{Concurrency: 1, Rate: rate, Duration: 50 * time.Second}, func(r *attempt.Result) { last = r.Last() })
		srv.Close()
		if want := "its retry, in 1m0s, would start after --duration"; last.NotRetried != want {
			t.Errorf("rate %g: last attempt's NotRetried %q, want %q", rate, last.NotRetried, want)
		}
		if calls.Load() != 1 || st.Sent != 1 || st.Retries != 0 || st.ByStatus[503] != 1 || len(vs.waits) != 0 {
			t.Errorf("rate %g: receiver got %d calls; sent %d, retries %d, failed 503×%d, waits %v; want 1 call, no retry, no wait",
				rate, calls.Load(), st.Sent, st.Retries, st.ByStatus[503], vs.waits)
		}
	}
}

// A call Ctrl-C cuts short says so in its error too, on the plain-HTTP
// fast path as on net/http's: not the "i/o timeout" of the deadline that
// cut it.
func TestInterruptedCallSaysInterrupted(t *testing.T) {
	got, release := make(chan struct{}, 1), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- struct{}{}
		<-release
	}))
	defer srv.Close()
	defer close(release)
	d := newTestDeliverer(t, srv, 0, &virtualSleep{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-got; cancel() }()
	fed := false
	feed := func() []*attempt.Request {
		if fed {
			return nil
		}
		fed = true
		return []*attempt.Request{{Event: "E", Query: "businessType=E", Body: []byte(`{}`)}}
	}
	var last attempt.Attempt
	Run(ctx, d, feed, RunOptions{Concurrency: 1}, func(r *attempt.Result) { last = r.Last() })
	if last.Kind != attempt.KindInterrupted || strings.Contains(last.Err, "timeout") || !strings.Contains(last.Err, "context canceled") {
		t.Errorf("attempt %+v, want kind interrupted and error context canceled", last)
	}
}

// Left counts the rounds a run never made instead of walking them: send
// --count 99999999999 stopped by Ctrl-C walked 10^11 rounds (minutes of a
// CPU) before it could print its summary. The count is what the feed would
// have handed out, for lanes whose groups differ in size and cycle at
// different lengths.
func TestFeedLeftCountsRoundsWithoutWalkingThem(t *testing.T) {
	t.Parallel()
	group := func(event string, n int) []attempt.Template {
		var g []attempt.Template
		for _, pool := range templates(event, n) {
			g = append(g, pool...)
		}
		return g
	}
	lanes := [][][]attempt.Template{
		{group("A", 1), group("A", 2), group("A", 3)}, // 6 calls every 3 rounds
		{group("B", 2), group("B", 1)},                // 3 calls every 2 rounds
	}
	tests := []struct {
		rounds, taken int
	}{
		{1, 0}, {2, 1}, {5, 0}, {5, 4}, {7, 3}, {12, 11},
	}
	for _, tt := range tests {
		whole := 0
		f := NewFeed(lanes, tt.rounds, 0, false, 1)
		for job := f.Next(); job != nil; job = f.Next() {
			whole += len(job)
		}
		taken := 0
		f = NewFeed(lanes, tt.rounds, 0, false, 1)
		for range tt.taken {
			taken += len(f.Next())
		}
		if n := f.Left(); taken+n != whole {
			t.Errorf("%d rounds, %d jobs taken: Left() = %d, want %d", tt.rounds, tt.taken, n, whole-taken)
		}
	}
	const huge = 1 << 50 // no loop over these ends within a test's time
	f := NewFeed(lanes, huge, 0, false, 1)
	// One call taken (A's first group); 2^50 mod 3 == 1, so A's first group
	// has one round more than its others.
	f.Next()
	if n, want := f.Left(), huge/3*6+1+huge/2*3-1; n != want {
		t.Errorf("Left() of %d rounds, one call taken = %d, want %d", huge, n, want)
	}
	f = NewFeed(lanes, huge, 0.5, false, 1)
	f.Next()
	if n, low := f.Left(), huge/3*6+huge/2*3; n < low {
		t.Errorf("Left() of %d rounds with duplicates = %d, want more than %d", huge, n, low)
	}
}
