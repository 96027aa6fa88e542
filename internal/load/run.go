package load

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// RunOptions bound a load run. A run ends when its feed runs dry, when
// Duration has passed (deliveries in flight finish), or when ctx is
// cancelled (deliveries in flight are cut short and counted as
// interrupted). A delivery that was not started by then is neither sent
// nor interrupted: Stats.NotStarted counts it.
type RunOptions struct {
	// Concurrency is the number of workers of the closed model, and the
	// workers the open model starts with.
	Concurrency int
	// Rate, when more than 0, runs the open model: deliveries start on a
	// schedule of Rate per second whatever the answers do.
	Rate float64
	// MaxConcurrency bounds the deliveries in flight in the open model;
	// 0: DefaultMaxConcurrency.
	MaxConcurrency int
	// Duration, when more than 0, is how long deliveries may start: none
	// starts after it (those in flight finish).
	Duration time.Duration
	// Left, when set, is how many deliveries the feed still holds, called
	// once after a run that stopped early (-1: a feed without end), so that
	// they are counted as not started; uncounted, that it also held some
	// it could not count (an input read once, stdin). Without it only the
	// deliveries the run took from the feed and did not start are counted.
	Left func() (n int, uncounted bool)
	// Done counts finished deliveries, for a progress bar; may be nil.
	Done *atomic.Int64
	// Waits says next may wait on its input (a Stream): the run's
	// workers are goroutines, not event loops, where one lane's wait in
	// Take would hold up the answers of every other lane of its loop.
	Waits bool
}

// InFlight is the most deliveries in flight at once, which the connection
// pool is sized to: the open model may need more than its first workers.
func (o RunOptions) InFlight() int {
	if o.Rate > 0 {
		return max(o.MaxConcurrency, o.Concurrency)
	}
	return o.Concurrency
}

// MinRate and MaxRate bound the open model's rate: below one call every
// 1,000 s a schedule is no load test, and above one a microsecond the
// clock cannot keep it (Inf and 1e308 would never stop, 1e-300 never
// start).
const (
	MinRate = 1e-3
	MaxRate = 1e6
)

// DefaultMaxConcurrency bounds the open model's deliveries in flight when
// RunOptions say nothing: a receiver stalled for 1 s at 1,000 calls a
// second holds this many.
const DefaultMaxConcurrency = 1000

// deliverFunc makes one delivery with a worker's body buffer: the
// Deliverer's, or a test's in virtual time.
type deliverFunc func(ctx context.Context, req *attempt.Request, bb **attempt.Buf) *attempt.Result

// Run delivers what next returns until it returns nil. Each slice next
// returns is delivered in order by one worker (a scenario's events for one
// document). next never runs concurrently with itself; report is called
// from many workers at once, so it must be safe for that; the Result it
// gets, and the body of a request from a Feed, are in buffers their worker
// reuses, valid until report returns: report copies what it keeps.
//
// Without a Rate, Concurrency workers each deliver, wait for the answer and
// deliver again (the closed model: as fast as the receiver answers). With
// one, deliveries start on schedule (the open model, see runOpen).
//
// Stats.Unasked counts the connections found holding bytes no call asked
// for during the run, those still open at its end included: they are
// settled (Deliverer.SettleUnasked, bounded by ctx) before the count is
// read.
func Run(ctx context.Context, d *attempt.Deliverer, next func() []*attempt.Request, o RunOptions, report func(*attempt.Result)) *Stats {
	before := d.Unasked()
	st := run(ctx, d, next, o, report)
	d.SettleUnasked(ctx)
	st.Unasked = int(d.Unasked() - before)
	return st
}

func run(ctx context.Context, d *attempt.Deliverer, next func() []*attempt.Request, o RunOptions, report func(*attempt.Result)) *Stats {
	if o.Rate > 0 {
		return runOpen(ctx, d.DeliverWith, next, o, report)
	}
	if o.Waits {
		return runClosed(ctx, d.DeliverWith, next, o, report)
	}
	if st := runLanes(ctx, d, next, o, report); st != nil {
		return st
	}
	return runClosed(ctx, d.DeliverWith, next, o, report)
}

// jobFeed is next for the workers of a closed run: they take jobs from it
// under a lock rather than through a channel fed by another goroutine (no
// hand-off and wake-up per delivery, and the order of jobs is the same).
// No job is taken once the run is over (over: ctx's end or, with a
// Duration, end); dry says next ran dry. start is when the run started.
type jobFeed struct {
	mu         sync.Mutex
	next       func() []*attempt.Request
	dry        bool
	ctx        context.Context
	start, end time.Time
}

// newJobFeed starts a closed run over next now.
func newJobFeed(ctx context.Context, next func() []*attempt.Request, o RunOptions) *jobFeed {
	start := time.Now()
	return &jobFeed{next: next, ctx: ctx, start: start, end: o.end(start)}
}

func (f *jobFeed) take() []*attempt.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dry || over(f.ctx, f.end) {
		return nil
	}
	job := f.next()
	f.dry = job == nil
	return job
}

// runLanes is the closed model on event loops (Deliverer.RunLanes), nil
// where the Deliverer cannot run them.
func runLanes(ctx context.Context, d *attempt.Deliverer, next func() []*attempt.Request, o RunOptions, report func(*attempt.Result)) *Stats {
	conc := max(o.Concurrency, 1)
	f := newJobFeed(ctx, next, o)
	end := f.end
	shards := newShards(conc)
	ran := d.RunLanes(attempt.WithStartBy(ctx, end), attempt.Lanes{
		N:    conc,
		Take: f.take,
		Over: func() bool { return over(ctx, end) },
		Done: func(lane int, res *attempt.Result) {
			shards.of(lane).account(res, report, o.Done)
		},
		Skip: func(lane, n int) { shards.of(lane).skip(n) },
	})
	if !ran {
		return nil
	}
	return shards.finish(conc, o, f)
}

func runClosed(ctx context.Context, do deliverFunc, next func() []*attempt.Request, o RunOptions, report func(*attempt.Result)) *Stats {
	conc := max(o.Concurrency, 1)
	f := newJobFeed(ctx, next, o)
	end := f.end
	take := f.take

	// Stats go to a few shards under locks rather than one per worker: an
	// HDR histogram is ~190 KB, and a run may have a thousand workers.
	shards := newShards(conc)
	var wg sync.WaitGroup
	for w := range conc {
		wg.Go(func() {
			wk := newWorker(attempt.WithStartBy(ctx, end), shards.of(w), o, report)
			defer wk.end()
			for job := take(); job != nil; job = take() {
				for i, req := range job {
					// Checked before each delivery, not through a flag an
					// AfterFunc sets: in the moment before it ran, workers
					// made hundreds of "interrupted" deliveries never sent.
					if over(wk.ctx, end) {
						wk.skip(len(job) - i)
						break
					}
					wk.account(do(wk.ctx, req, &wk.buf))
				}
			}
		})
	}
	wg.Wait()
	return shards.finish(conc, o, f)
}

// finish is the stats of a closed run over f, from the shards of its
// conc workers or lanes, once they are all done.
func (s shards) finish(conc int, o RunOptions, f *jobFeed) *Stats {
	total := s.total()
	total.Elapsed = time.Since(f.start)
	total.MaxConcurrency, total.PeakConcurrency = conc, conc
	o.left(f.dry, total)
	return total
}

// end is when no delivery may start any more, zero without a Duration.
func (o RunOptions) end(start time.Time) time.Time {
	if o.Duration <= 0 {
		return time.Time{}
	}
	return start.Add(o.Duration)
}

// over says whether a run must start no more deliveries: it was
// interrupted, or its Duration is over.
func over(ctx context.Context, end time.Time) bool {
	return ctx.Err() != nil || !end.IsZero() && !time.Now().Before(end)
}

// left counts, in a run that stopped before its feed ran dry (dry: next
// returned nil), what the feed still held as not started; endless says the
// feed had no end, so that nothing it held was counted.
func (o RunOptions) left(dry bool, st *Stats) (endless bool) {
	if o.Left == nil || dry {
		return false
	}
	n, uncounted := o.Left()
	st.NotStartedUncounted = st.NotStartedUncounted || uncounted
	if n >= 0 {
		st.NotStarted += n
		return false
	}
	// A feed without end: nothing was planned past the stop.
	st.NotStarted = 0
	return true
}

// shards hold a run's stats: a few, each under its lock, shared by the
// workers in turn.
type shards []shard

type shard struct {
	mu sync.Mutex
	st *Stats
}

func newShards(workers int) shards {
	s := make(shards, max(min(workers, 2*runtime.GOMAXPROCS(0)), 1))
	for i := range s {
		s[i].st = NewStats()
	}
	return s
}

func (s shards) of(worker int) *shard { return &s[worker%len(s)] }

func (sh *shard) add(r *attempt.Result) {
	sh.mu.Lock()
	sh.st.Add(r)
	sh.mu.Unlock()
}

// account counts a finished delivery in the shard's stats, the report
// and the progress count (done, when not nil).
func (sh *shard) account(res *attempt.Result, report func(*attempt.Result), done *atomic.Int64) {
	sh.add(res)
	if report != nil {
		report(res)
	}
	if done != nil {
		done.Add(1)
	}
}

// skip counts n deliveries taken and not started.
func (sh *shard) skip(n int) {
	sh.mu.Lock()
	sh.st.NotStarted += n
	sh.mu.Unlock()
}

func (s shards) total() *Stats {
	total := NewStats()
	for i := range s {
		total.Merge(s[i].st)
	}
	return total
}

// worker is what one goroutine of a run holds, in either model.
type worker struct {
	// ctx is a child of the run's, not the run's itself: the bookkeeping of
	// each attempt's context then happens under a lock of the worker's own
	// instead of one all workers share.
	ctx    context.Context
	cancel context.CancelFunc
	buf    *attempt.Buf // reused from one delivery to the next
	sh     *shard
	done   *atomic.Int64
	report func(*attempt.Result)
}

func newWorker(ctx context.Context, sh *shard, o RunOptions, report func(*attempt.Result)) *worker {
	ctx, cancel := context.WithCancel(ctx)
	return &worker{ctx: ctx, cancel: cancel, sh: sh, done: o.Done, report: report}
}

// account counts a finished delivery in the stats, the report and the
// progress count.
func (w *worker) account(res *attempt.Result) { w.sh.account(res, w.report, w.done) }

// skip counts n deliveries the worker took and did not start.
func (w *worker) skip(n int) { w.sh.skip(n) }

func (w *worker) end() {
	if w.buf != nil {
		w.buf.Release()
	}
	w.cancel()
}
