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
// document); slices go to Concurrency workers. next is called from one
// goroutine; report from many at once, so it must be safe for that.
func Run(ctx context.Context, d *Deliverer, next func() []*Request, o RunOptions, report func(*Result)) *Stats {
	conc := max(o.Concurrency, 1)
	jobs := make(chan []*Request, conc*2)
	stop := make(chan struct{})
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }) }
	stopped := func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}
	start := time.Now()
	if o.Duration > 0 {
		t := time.AfterFunc(o.Duration, halt)
		defer t.Stop()
	}
	go func() {
		<-ctx.Done()
		halt()
	}()

	// Pacing: delivery k may start at start + k/Rate; workers take slots
	// in turn, so the cap holds across all of them.
	var slot atomic.Int64
	pace := func() bool {
		if o.Rate <= 0 {
			return !stopped()
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
		return !stopped()
	}

	go func() {
		defer close(jobs)
		for !stopped() {
			job := next()
			if job == nil {
				return
			}
			select {
			case jobs <- job:
			case <-stop:
				return
			}
		}
	}()

	parts := make([]*Stats, conc)
	var wg sync.WaitGroup
	for w := range conc {
		parts[w] = NewStats()
		wg.Go(func() {
			st := parts[w]
			for job := range jobs {
				for _, req := range job {
					if !pace() {
						break
					}
					res := d.Deliver(ctx, req)
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
