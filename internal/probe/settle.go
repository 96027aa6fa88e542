package probe

import (
	"context"
	"sync"
	"time"
)

// Concurrency is how many questions Settle asks at once: enough that a
// run's documents are probed in a moment (a curl-style probe answers in a
// few milliseconds, most of them waiting), few enough for a probe that
// starts a database client per Question.
const Concurrency = 8

// Settle asks about n documents, Concurrency at a time. ask asks about
// the i-th once and says whether it is settled: its answer matched, or it
// cannot be asked. One that is not is asked again with backoff, from 25 ms
// doubling to 400 ms, until deadline has passed; then its last answer
// stands. Each document is asked by one goroutine at a time, so ask may
// keep what it learns in the i-th document's own fields, read once Settle
// has returned. The first error ends every question and is returned; the
// end of ctx is returned as its error.
func Settle(ctx context.Context, n int, deadline time.Time, ask func(ctx context.Context, i int) (settled bool, err error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var once sync.Once
	var first error
	var wg sync.WaitGroup
	for range min(Concurrency, n) {
		wg.Go(func() {
			for i := range jobs {
				if err := settleOne(ctx, i, deadline, ask); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		})
	}
	for i := range n {
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// settleOne asks about the i-th document until it is settled or deadline
// has passed.
func settleOne(ctx context.Context, i int, deadline time.Time, ask func(context.Context, int) (bool, error)) error {
	return AskUntil(ctx, deadline, func(ctx context.Context) (bool, error) { return ask(ctx, i) })
}

// AskUntil asks about one document until ask says it is settled or
// deadline has passed, with Settle's backoff: from 25 ms doubling to
// 400 ms, the last wait cut to the deadline. The end of ctx is returned
// as its error.
func AskUntil(ctx context.Context, deadline time.Time, ask func(context.Context) (settled bool, err error)) error {
	wait := 25 * time.Millisecond
	for {
		settled, err := ask(ctx)
		if err != nil || settled {
			return err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil
		}
		t := time.NewTimer(min(wait, left))
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 400*time.Millisecond)
	}
}

// Sent is one document that matched as check or listen first asked about
// it, of more than one call: the calls went out from Began to End, and the
// probe first answered about it at FirstAnswer.
type Sent struct{ Began, End, FirstAnswer time.Time }

// AgainAt is when the documents of more than one call that matched, held,
// are asked once more, and whether they are; each is judged on that
// answer. A receiver that held some document of the run only when asked
// again (late) stores after it answers, so a copy or a later event of a
// document it held once may land after the match: they are asked when the
// settle time is out, at deadline. One that held every document when
// first asked may still store from a queue quicker than the probe came:
// they are asked when such a queue has stored their last calls
// (lastLanded), deadline at most. With settle 0 each is asked once.
func AgainAt(held []Sent, late bool, settle time.Duration, deadline time.Time) (time.Time, bool) {
	switch {
	case len(held) == 0, !late && settle == 0:
		return time.Time{}, false
	case late:
		return deadline, true
	}
	var at time.Time
	for _, s := range held {
		at = later(at, lastLanded(s.FirstAnswer, s.Began, s.End))
	}
	return earlier(at, deadline), true
}

// WaitUntil returns at at, or at ctx's end with its error.
func WaitUntil(ctx context.Context, at time.Time) error {
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// lastLanded is when a receiver that held a document of more than one call
// when first asked (at asked) has stored every one of them, if it stores
// from a queue that keeps each call about the same time before storing it:
// whichever of the calls, sent from began to end, it held by then, that
// time is at most asked-began, so the last call is stored by
// end+(asked-began), and QueueJitter more for a queue whose time varies.
// A document held once when first asked whose copy the receiver stores
// again a moment later is then seen for one more question.
func lastLanded(asked, began, end time.Time) time.Time {
	return asked.Add(end.Sub(began) + QueueJitter)
}

// QueueJitter is how much a queue's time before it stores a call may vary
// from call to call and lastLanded still hold: a worker polling its queue
// ten times a second. A run pays it once, all documents asked together.
const QueueJitter = 100 * time.Millisecond

// earlier is the earlier of a and b.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
