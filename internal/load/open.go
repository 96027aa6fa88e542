package load

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// runOpen is the open model (vegeta's, wrk2's, k6's constant-arrival-rate):
// delivery k is scheduled at start + k/Rate and handed at that time to an
// idle worker, or to a new one while fewer than MaxConcurrency are busy, so
// a receiver that stalls does not slow the arrivals down. Each delivery's
// latency counts from its scheduled start: when every worker is busy at the
// bound, the delivery waits for one, starts late, is counted in Stats.Late,
// and its wait is part of its latency rather than silently left out
// (coordinated omission).
func runOpen(ctx context.Context, do deliverFunc, next func() []*attempt.Request, o RunOptions, report func(*attempt.Result)) *Stats {
	bound := o.MaxConcurrency
	if bound <= 0 {
		bound = DefaultMaxConcurrency
	}
	bound = max(bound, o.Concurrency, 1)
	start := time.Now()
	slot := func(k int) time.Time { return slotAt(start, o.Rate, k) }

	// A call is a job and the scheduled start of its first delivery; the
	// job's later deliveries (a scenario's next event) have the slots that
	// follow.
	type call struct {
		job []*attempt.Request
		k   int
		// behind: the call was handed out while calls waited for a
		// worker at the bound; its deliveries that then start after
		// their slots are late (Result.Late, counted in Stats.Late).
		behind bool
	}
	calls := make(chan call)

	shards := newShards(bound)

	end := o.end(start)
	// inFlight and peak count deliveries, not workers: the workers the
	// run starts with, or one spawned while another was still getting
	// ready, may never hold a call ("at most 5 in flight" of 4 calls).
	var inFlight, peak atomic.Int64
	var wg sync.WaitGroup
	work := func(w int, first *call) {
		wk := newWorker(attempt.WithStartBy(ctx, end), shards.of(w), o, report)
		defer wk.end()
		run := func(c call) {
			for i, req := range c.job {
				at := slot(c.k + i)
				// No delivery starts past --duration, nor once
				// interrupted: the rest of the job is not started.
				past := !end.IsZero() && !at.Before(end)
				if past || i > 0 && !sleepUntil(wk.ctx, at) || over(wk.ctx, end) {
					wk.skip(len(c.job) - i)
					return
				}
				if n := inFlight.Add(1); n > peak.Load() {
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
				}
				lag := time.Since(at)
				res := do(wk.ctx, req, &wk.buf)
				inFlight.Add(-1)
				res.FromSchedule = max(time.Since(at), 1)
				if c.behind && lag > 0 {
					// Said per delivery, so that the ledger shows which
					// of them the summary's late count are.
					res.Late = lag
				}
				wk.account(res)
			}
		}
		if first != nil {
			run(*first)
		}
		for c := range calls {
			run(c)
		}
	}
	live, unstarted := 0, 0
	spawn := func(first *call) {
		w := live
		live++
		wg.Go(func() { work(w, first) })
	}
	for range max(o.Concurrency, 1) {
		spawn(nil)
	}

	// deadline fires at the end of --duration: a call waiting for a worker
	// at the bound then gives up rather than start late past the end (a
	// receiver answering in 3 s kept a 5 s run sending for a minute).
	var deadline <-chan time.Time
	if !end.IsZero() {
		t := time.NewTimer(time.Until(end))
		defer t.Stop()
		deadline = t.C
	}
	// behind is set when a call had to wait for a worker at the bound, and
	// stays set while the calls after it are handed out past their slots.
	behind := false
	dry := false
	// heldAt is the number of calls handed out when the bound held a call
	// due before the end past it (-1: none was): the rest due before the
	// end never started either (Stats.HeldBack).
	heldAt := -1
dispatch:
	for k := 0; !over(ctx, end); {
		at := slot(k)
		if !end.IsZero() && !at.Before(end) {
			break
		}
		job := next()
		if job == nil {
			dry = true
			break
		}
		if !at.Before(time.Now()) {
			behind = false
			if !sleepUntil(ctx, at) {
				unstarted += len(job)
				break
			}
		}
		c := call{job: job, k: k, behind: behind}
		k += len(job)
		select {
		case calls <- c:
		default:
			if live < bound {
				spawn(&c)
				break
			}
			behind = true
			c.behind = true
			select {
			case calls <- c:
			case <-ctx.Done():
				unstarted += len(job)
				break dispatch
			case <-deadline:
				unstarted += len(job)
				heldAt = k - len(job)
				break dispatch
			}
		}
	}
	close(calls)
	wg.Wait()

	total := shards.total()
	total.Elapsed = time.Since(start)
	total.Open, total.Rate = true, o.Rate
	total.MaxConcurrency, total.PeakConcurrency = bound, int(peak.Load())
	total.NotStarted += unstarted
	if o.left(dry, total) && !end.IsZero() && ctx.Err() == nil {
		// The feed had no end but the schedule had: the calls due before
		// --duration ended that the bound held back past it never started
		// (k6's dropped iterations); left unsaid, "sent 6" of a --rate 50
		// --duration 2s run hid the 94 the receiver's stall cost.
		total.NotStarted = max(slotsBefore(end, start, o.Rate)-total.Sent, 0)
	}
	if heldAt >= 0 {
		// Of what never started, those due before the end; the feed may
		// have held fewer.
		total.HeldBack = min(max(slotsBefore(end, start, o.Rate)-heldAt, 0), total.NotStarted)
	}
	return total
}

// slotAt is the scheduled start of delivery k of a run at rate per second.
func slotAt(start time.Time, rate float64, k int) time.Time {
	return start.Add(time.Duration(math.Round(float64(k) * float64(time.Second) / rate)))
}

// slotsBefore is how many deliveries of a run at rate per second from
// start are scheduled before end.
func slotsBefore(end, start time.Time, rate float64) int {
	n := int(math.Ceil(end.Sub(start).Seconds() * rate))
	for n > 0 && !slotAt(start, rate, n-1).Before(end) {
		n--
	}
	for slotAt(start, rate, n).Before(end) {
		n++
	}
	return n
}

// sleepUntil waits for t; false when ctx ends first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
