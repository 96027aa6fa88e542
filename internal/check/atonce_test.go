package check

import (
	"context"
	"sync"
)

// copiesAtOnce makes a racy test receiver's race happen on every run,
// whatever the machine's load: a copy of a burst that passed the
// receiver's check is held before its insert until another copy of the
// same key has passed the check too (the race shown), or until every copy
// of the burst has arrived (no other copy shares its key: nothing to race
// with). A sleep there stood in for this and lost the race when the
// machine was slow to deliver the second copy.
//
// Which calls are a burst's copies is told by Config.copyHeld (held),
// which the run calls for each copy before it goes out: a call that
// arrives while copies are due is one of them, as a run's checks go one
// after another and nothing else is in flight during a burst. A call
// sent alone (serial re-deliveries, accepts-valid, load) is never held.
type copiesAtOnce struct {
	size int // copies per burst: Config.Concurrent

	mu      sync.Mutex
	calls   int           // held calls so far, over every burst
	ready   chan struct{} // closed once the burst's copies all called held
	due     int           // copies announced that have not arrived
	checked map[string]int
	changed chan struct{} // closed, and replaced, when due or checked change
}

func newCopiesAtOnce(size int) *copiesAtOnce {
	return &copiesAtOnce{size: size, checked: map[string]int{}, changed: make(chan struct{})}
}

// held is a Config.copyHeld: it holds each copy until all the burst's
// copies are announced, so that none reaches the receiver before the
// receiver knows how many are due.
func (a *copiesAtOnce) held(int, func(int) <-chan struct{}) {
	a.mu.Lock()
	if a.calls%a.size == 0 {
		a.ready = make(chan struct{})
		clear(a.checked)
	}
	a.calls++
	ready := a.ready
	if a.calls%a.size == 0 {
		a.due += a.size
		close(ready)
	}
	a.mu.Unlock()
	<-ready
}

// arrive counts a call reaching the receiver and says whether it is a
// copy of a burst; every call of a racy receiver passes here.
func (a *copiesAtOnce) arrive() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.due == 0 {
		return false
	}
	a.due--
	a.signal()
	return true
}

// checkedThenWait is a copy that found key absent: it waits until another
// copy of key has found it absent too, or no copy is still due, or ctx
// ends (the call was given up).
func (a *copiesAtOnce) checkedThenWait(ctx context.Context, key string) {
	a.mu.Lock()
	a.checked[key]++
	a.signal()
	for a.checked[key] < 2 && a.due > 0 {
		changed := a.changed
		a.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
		a.mu.Lock()
	}
	a.mu.Unlock()
}

// signal wakes every waiter; a.mu is held.
func (a *copiesAtOnce) signal() {
	close(a.changed)
	a.changed = make(chan struct{})
}
