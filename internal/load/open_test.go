package load

import (
	"context"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// fakeReceiver answers after service(arrival time), in virtual time, and
// keeps when each call arrived.
type fakeReceiver struct {
	mu      sync.Mutex
	starts  []time.Time
	service func(time.Time) time.Duration
}

func (f *fakeReceiver) deliver(_ context.Context, req *attempt.Request, _ **attempt.Buf) *attempt.Result {
	now := time.Now()
	f.mu.Lock()
	f.starts = append(f.starts, now)
	f.mu.Unlock()
	time.Sleep(f.service(now))
	res := &attempt.Result{Request: req, OK: true}
	res.Attempts = append(res.Attempts, attempt.Attempt{Status: 200, Latency: time.Since(now)})
	return res
}

// stalling holds every call that arrives in the first second of every
// five until that second ends: the receiver of the stall benchmark.
func stalling(epoch time.Time) *fakeReceiver {
	return &fakeReceiver{service: func(now time.Time) time.Duration {
		if into := now.Sub(epoch) % (5 * time.Second); into < time.Second {
			return time.Second - into
		}
		return 0
	}}
}

func steady(d time.Duration) *fakeReceiver {
	return &fakeReceiver{service: func(time.Time) time.Duration { return d }}
}

func countedFeed(n int) func() []*attempt.Request {
	return func() []*attempt.Request {
		if n == 0 {
			return nil
		}
		n--
		return []*attempt.Request{{Event: "E"}}
	}
}

func within(t *testing.T, what string, got, lo, hi time.Duration) {
	t.Helper()
	if got < lo || got > hi {
		t.Errorf("%s %s, want %s to %s", what, got, lo, hi)
	}
}

// The stall: 200/s for 10 s into a receiver that holds every call
// for the first second of every five. A fifth of the calls wait, so p90 is
// about half a second and p99 near a second, whatever --concurrency says.
func TestOpenModelCountsTheStall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		epoch := time.Now()
		rcv := stalling(epoch)
		st := runOpen(t.Context(), rcv.deliver, countedFeed(1<<30),
			RunOptions{Concurrency: 8, Rate: 200, Duration: 10 * time.Second}, nil)
		if st.Sent != 2000 || st.Succeeded != 2000 || st.Late != 0 || !st.Open {
			t.Fatalf("sent %d, succeeded %d, late %d, open %v; want 2000, 2000, 0, true", st.Sent, st.Succeeded, st.Late, st.Open)
		}
		// Every call started on its slot: none waited for a worker.
		for k, at := range rcv.starts {
			if want := epoch.Add(time.Duration(k) * 5 * time.Millisecond); !at.Equal(want) {
				t.Fatalf("call %d started at +%s, want +%s", k, at.Sub(epoch), want.Sub(epoch))
			}
		}
		within(t, "p50", st.Latency.Quantile(.5), 0, time.Millisecond)
		within(t, "p90", st.Latency.Quantile(.9), 450*time.Millisecond, 550*time.Millisecond)
		within(t, "p99", st.Latency.Quantile(.99), 940*time.Millisecond, 1000*time.Millisecond)
		// 200 calls arrive during one second of stall and all are held.
		if st.PeakConcurrency < 200 || st.PeakConcurrency > 210 {
			t.Errorf("peak concurrency %d, want about 200", st.PeakConcurrency)
		}
		within(t, "elapsed", st.Elapsed, 10*time.Second-5*time.Millisecond, 10*time.Second)
	})
}

// At the bound, calls wait for a worker: they are counted late, and their
// latency still runs from their scheduled start, so the wait is not lost.
func TestOpenModelCountsLateStartsAtTheBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		epoch := time.Now()
		rcv := stalling(epoch)
		st := runOpen(t.Context(), rcv.deliver, countedFeed(1<<30),
			RunOptions{Concurrency: 8, MaxConcurrency: 50, Rate: 200, Duration: 10 * time.Second}, nil)
		if st.Sent != 2000 || st.PeakConcurrency != 50 || st.MaxConcurrency != 50 {
			t.Fatalf("sent %d, peak %d of %d; want 2000, 50 of 50", st.Sent, st.PeakConcurrency, st.MaxConcurrency)
		}
		// Per stall: 50 calls are held, the 150 scheduled after them in
		// that second start when it ends.
		if st.Late != 300 {
			t.Errorf("late %d, want 300", st.Late)
		}
		late := 0
		for k, at := range rcv.starts {
			if at.After(epoch.Add(time.Duration(k) * 5 * time.Millisecond)) {
				late++
			}
		}
		if late != st.Late {
			t.Errorf("%d calls started after their slot, %d counted late", late, st.Late)
		}
		within(t, "p90", st.Latency.Quantile(.9), 450*time.Millisecond, 550*time.Millisecond)
		within(t, "p99", st.Latency.Quantile(.99), 940*time.Millisecond, 1000*time.Millisecond)
	})
}

// Each delivery counted late says so, and by how much (Result.Late, the
// ledger's lateMs): the deliveries that carry it are the summary's late
// count, each started after its slot by what it carries, and none other
// did. Without it a reader of the ledger could not find the 300.
func TestOpenModelLateDeliveriesSayHowLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		epoch := time.Now()
		rcv := stalling(epoch)
		seq := 0
		feed := func() []*attempt.Request {
			if seq == 2000 {
				return nil
			}
			seq++
			return []*attempt.Request{{Event: "E", Seq: seq}}
		}
		var mu sync.Mutex
		var results []*attempt.Result
		started := map[int]time.Time{}
		deliver := func(ctx context.Context, req *attempt.Request, b **attempt.Buf) *attempt.Result {
			mu.Lock()
			started[req.Seq] = time.Now()
			mu.Unlock()
			return rcv.deliver(ctx, req, b)
		}
		st := runOpen(t.Context(), deliver, feed,
			RunOptions{Concurrency: 8, MaxConcurrency: 50, Rate: 200, Duration: 10 * time.Second}, func(r *attempt.Result) {
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			})
		if st.Late != 300 || len(results) != 2000 {
			t.Fatalf("late %d of %d reported; want 300 of 2000", st.Late, len(results))
		}
		marked := 0
		for _, r := range results {
			k := r.Request.Seq - 1
			slot := epoch.Add(time.Duration(k) * 5 * time.Millisecond)
			lag := started[r.Request.Seq].Sub(slot)
			switch {
			case r.Late > 0:
				marked++
				if r.Late != lag {
					t.Errorf("delivery %d: late by %s, started %s after its slot", k+1, r.Late, lag)
				}
			case lag > 0:
				t.Errorf("delivery %d started %s after its slot and says it was not late", k+1, lag)
			}
		}
		if marked != st.Late {
			t.Errorf("%d deliveries say they were late, the summary counts %d", marked, st.Late)
		}
	})
}

// On a receiver that never stalls, the open model keeps the rate exactly:
// n calls at r per second start over (n-1)/r.
func TestOpenModelKeepsTheRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rcv := steady(3 * time.Millisecond)
		st := runOpen(t.Context(), rcv.deliver, countedFeed(1000), RunOptions{Concurrency: 1, Rate: 250}, nil)
		if st.Sent != 1000 || st.Late != 0 {
			t.Fatalf("sent %d, late %d", st.Sent, st.Late)
		}
		span := rcv.starts[len(rcv.starts)-1].Sub(rcv.starts[0])
		if got := 999 / span.Seconds(); math.Abs(got-250) > 1e-9 {
			t.Errorf("rate %g/s, want 250", got)
		}
		within(t, "elapsed", st.Elapsed, 3999*time.Millisecond, 3999*time.Millisecond)
		within(t, "p99", st.Latency.Quantile(.99), 3*time.Millisecond, 3*time.Millisecond+5*time.Microsecond)
	})
}

// A scenario's events go to one worker in order, each on its own slot.
func TestOpenModelGroupsTakeConsecutiveSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rcv := steady(0)
		n := 10
		feed := func() []*attempt.Request {
			if n == 0 {
				return nil
			}
			n--
			return []*attempt.Request{{Event: "A"}, {Event: "B"}}
		}
		st := runOpen(t.Context(), rcv.deliver, feed, RunOptions{Rate: 100}, nil)
		if st.Sent != 20 {
			t.Fatalf("sent %d", st.Sent)
		}
		t0 := rcv.starts[0]
		for k, at := range rcv.starts {
			if want := t0.Add(time.Duration(k) * 10 * time.Millisecond); !at.Equal(want) {
				t.Errorf("delivery %d at +%s, want +%s", k, at.Sub(t0), want.Sub(t0))
			}
		}
	})
}

// The peak is of deliveries in flight, not of the workers started: 50
// workers and 10 calls, each held a second at 1,000 a second, are 10 in
// flight at most, never 50.
func TestOpenModelPeakCountsDeliveries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := runOpen(t.Context(), steady(time.Second).deliver, countedFeed(10),
			RunOptions{Concurrency: 50, MaxConcurrency: 100, Rate: 1000}, nil)
		if st.Sent != 10 || st.PeakConcurrency != 10 {
			t.Errorf("sent %d, peak %d in flight; want 10 and 10", st.Sent, st.PeakConcurrency)
		}
	})
}

// --rate 50 --duration 2s without --count schedules 100 calls. When the
// bound holds up the calls due before the end and the end comes first,
// those never started are counted as not started: sent + not started is the
// schedule, as k6 counts dropped iterations (they were lost from the
// summary: "sent 6, late 4", nothing said of the other 94).
func TestOpenModelCountsDueCallsTheBoundHeldBackAsNotStarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := runOpen(t.Context(), steady(700*time.Millisecond).deliver, countedFeed(1<<30),
			RunOptions{Concurrency: 1, MaxConcurrency: 2, Rate: 50, Duration: 2 * time.Second, Left: func() (int, bool) { return -1, false }}, nil)
		// Two at a time, each held 700ms: started at 0, 20ms, 700ms, 720ms,
		// 1.4s and 1.42s; the next pair would start after the end.
		if st.Sent != 6 || st.NotStarted != 94 || st.HeldBack != 94 {
			t.Errorf("sent %d, not started %d, held back %d; want 6, 94 and 94 (the 100 due in 2s)", st.Sent, st.NotStarted, st.HeldBack)
		}
	})
}

// A run that kept its schedule has nothing left due: not started is 0.
func TestOpenModelWithoutCountKeptScheduleLeavesNoneNotStarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := runOpen(t.Context(), steady(time.Millisecond).deliver, countedFeed(1<<30),
			RunOptions{Concurrency: 1, Rate: 50, Duration: 2 * time.Second, Left: func() (int, bool) { return -1, false }}, nil)
		if st.Sent != 100 || st.NotStarted != 0 {
			t.Errorf("sent %d, not started %d; want 100 and 0", st.Sent, st.NotStarted)
		}
	})
}

// A --count run whose receiver stalls at --max-concurrency holds back the
// calls due before --duration ends: counted among not started with those
// never due, they were said nowhere as due, and the summary's line about
// the bound (said of calls it made start late) said nothing of calls it
// kept from starting at all. HeldBack counts them: here 10 are due in
// the second, 5 start and stall, 5 wait for the bound past the end, and
// the other 10 of the 20 were never due. Found by ck47.
func TestOpenModelCountsDueCallsTheBoundHeldBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		left := 20
		feed := func() []*attempt.Request {
			if left == 0 {
				return nil
			}
			left--
			return []*attempt.Request{{Event: "E"}}
		}
		st := runOpen(t.Context(), steady(10*time.Second).deliver, feed,
			RunOptions{Concurrency: 1, MaxConcurrency: 5, Rate: 10, Duration: time.Second, Left: func() (int, bool) { return left, false }}, nil)
		if st.Sent != 5 || st.NotStarted != 15 || st.HeldBack != 5 {
			t.Errorf("sent %d, not started %d, held back %d; want 5, 15 and 5", st.Sent, st.NotStarted, st.HeldBack)
		}
	})
}
