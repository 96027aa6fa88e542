package deliver

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// RunOptions bound a load run. A run ends when its feed runs dry, when
// Duration has passed (deliveries in flight finish), or when ctx is
// cancelled (deliveries in flight are cut short and counted as interrupted).
type RunOptions struct {
	Concurrency int
	// Rate caps deliveries per second over the whole run; 0: no cap.
	Rate     float64
	Duration time.Duration
	// Done counts finished deliveries, for a progress bar; may be nil.
	Done *atomic.Int64
}

// Run delivers what next returns until it returns nil. Each slice next
// returns is delivered in order by one worker (a scenario's events for one
// document); slices go to Concurrency workers. Workers call next themselves,
// one at a time under a lock, so it never runs concurrently with itself;
// report is called from many workers at once, so it must be safe for that;
// the body of a request from a Feed is in a buffer its worker reuses, valid
// until report returns.
func Run(ctx context.Context, d *Deliverer, next func() []*Request, o RunOptions, report func(*Result)) *Stats {
	conc := max(o.Concurrency, 1)
	// stopped is read once per delivery; an atomic load is cheaper than a
	// select on stop, which pacing alone needs.
	var stopped atomic.Bool
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() {
		stopOnce.Do(func() {
			stopped.Store(true)
			close(stop)
		})
	}
	start := time.Now()
	if o.Duration > 0 {
		t := time.AfterFunc(o.Duration, halt)
		defer t.Stop()
	}
	defer context.AfterFunc(ctx, halt)()

	// Pacing: delivery k may start at start + k/Rate; workers take slots
	// in turn, so the cap holds across all of them.
	var slot atomic.Int64
	pace := func() bool {
		if o.Rate <= 0 {
			return !stopped.Load()
		}
		k := slot.Add(1) - 1
		at := start.Add(time.Duration(float64(k) / o.Rate * float64(time.Second)))
		if wait := time.Until(at); wait > 0 {
			t := time.NewTimer(wait)
			defer t.Stop()
			select {
			case <-t.C:
			case <-stop:
				return false
			}
		}
		return !stopped.Load()
	}

	// Workers take jobs from next under a lock rather than through a
	// channel fed by another goroutine: no hand-off and wake-up per
	// delivery, and the order of jobs is the same.
	var mu sync.Mutex
	done := false
	take := func() []*Request {
		mu.Lock()
		defer mu.Unlock()
		if done || stopped.Load() {
			return nil
		}
		job := next()
		done = job == nil
		return job
	}

	parts := make([]*Stats, conc)
	var wg sync.WaitGroup
	for w := range conc {
		parts[w] = NewStats()
		wg.Go(func() {
			st := parts[w]
			// Each attempt's context is a child of this one, not of ctx
			// directly: the bookkeeping of children then happens under a
			// lock of the worker's own instead of one all workers share.
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			var buf *bodyBuf
			defer func() {
				if buf != nil {
					buf.release()
				}
			}()
			for job := take(); job != nil; job = take() {
				for _, req := range job {
					if !pace() {
						break
					}
					res := d.deliver(ctx, req, &buf)
					st.Add(res)
					if report != nil {
						report(res)
					}
					if o.Done != nil {
						o.Done.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	total := NewStats()
	for _, p := range parts {
		total.Merge(p)
	}
	total.Elapsed = time.Since(start)
	return total
}
