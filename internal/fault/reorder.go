package fault

import (
	"context"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/reqid"
)

// Reorderer holds the calls a reorder fault hits and lets them through in
// a shuffled order: a window fills with up to N calls, or until the first
// of them has waited the longest hold, whichever comes first; then its
// calls go one at a time, each after the one before it was forwarded. No
// call is held longer than the hold plus the forwards ahead of it in its
// window, and none after Release.
type Reorderer struct {
	n    int
	hold time.Duration
	seed uint64
	// release is closed by Release: the calls of a window going one at a
	// time go at once.
	release chan struct{}

	mu       sync.Mutex
	cur      *window
	windows  uint64
	released bool // Release was called: no call is held any more
}

type window struct {
	seq     uint64
	waiters []*waiter
	timer   *time.Timer
	flushed bool
}

type waiter struct {
	turn chan struct{} // closed when this call may go on
	done chan struct{} // closed when it has gone (or given up)
	once sync.Once
	pos  int // its place in the shuffled order, from 1
	of   int // how many calls its window held
}

func (w *waiter) finish() { w.once.Do(func() { close(w.done) }) }

// NewReorderer returns a reorderer for f (a Reorder fault), shuffling
// with seed.
func NewReorderer(f Fault, seed uint64) *Reorderer {
	n, hold := f.N, f.D
	if n < 2 {
		n = DefaultReorder
	}
	if hold <= 0 {
		hold = ReorderHold
	}
	return &Reorderer{n: n, hold: hold, seed: seed, release: make(chan struct{})}
}

// Held is where a held call went in its window.
type Held struct {
	Pos, Of int           // its place in the order the window's calls went, and their number
	Waited  time.Duration // how long it was held
	// Stopped says its turn came after Release: it went at once with the
	// rest of its window, in no set order, its hold cut short (Pos is
	// then only its place in the order drawn).
	Stopped bool
}

// Hold waits for the call's turn. The caller must call done once the call
// was forwarded (or failed), so that the next held call goes; done is
// safe to call more than once. When ctx ends first, Hold returns its
// error and the call's turn passes at once.
func (r *Reorderer) Hold(ctx context.Context) (Held, func(), error) {
	start := time.Now()
	w := &waiter{turn: make(chan struct{}), done: make(chan struct{})}
	r.mu.Lock()
	if r.cur == nil {
		r.windows++
		win := &window{seq: r.windows}
		r.cur = win
		win.timer = time.AfterFunc(r.hold, func() { r.flush(win) })
	}
	win := r.cur
	win.waiters = append(win.waiters, w)
	full := len(win.waiters) >= r.n || r.released
	r.mu.Unlock()
	if full {
		r.flush(win)
	}
	select {
	case <-w.turn:
		held := Held{Pos: w.pos, Of: w.of, Waited: time.Since(start)}
		select {
		case <-r.release:
			held.Stopped = true
		default:
		}
		return held, w.finish, nil
	case <-ctx.Done():
		w.finish()
		return Held{}, w.finish, ctx.Err()
	}
}

// Release lets the calls held now go at once (their turns given in their
// window's shuffled order, without waiting for the forwards ahead), and
// every later call through unheld: listen is stopping, and its stop must
// not wait out a hold that only a fault put on the calls, nor a window's
// forwards one after the other behind a slow receiver.
func (r *Reorderer) Release() {
	r.mu.Lock()
	if !r.released {
		r.released = true
		close(r.release)
	}
	win := r.cur
	r.mu.Unlock()
	if win != nil {
		r.flush(win)
	}
}

// flush closes win to new calls and lets its calls go in a shuffled order.
func (r *Reorderer) flush(win *window) {
	r.mu.Lock()
	if win.flushed {
		r.mu.Unlock()
		return
	}
	win.flushed = true
	win.timer.Stop()
	if r.cur == win {
		r.cur = nil
	}
	ws := win.waiters
	r.mu.Unlock()
	order := shuffle(len(ws), Sub(r.seed, "reorder", int(win.seq), 0))
	for i, j := range order {
		ws[j].pos, ws[j].of = i+1, len(ws)
	}
	go func() {
		for i, j := range order {
			close(ws[j].turn)
			select {
			case <-ws[j].done:
			case <-r.release:
				for _, k := range order[i+1:] {
					close(ws[k].turn)
				}
				return
			}
		}
	}()
}

// shuffle is a permutation of 0..n-1 drawn from x (Fisher-Yates); it
// never leaves a window of two or more in its arrival order, which would
// be no reorder at all.
func shuffle(n int, x uint64) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		x = reqid.Spread(x + 0x9e3779b97f4a7c15)
		j := int(x % uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
	if n >= 2 {
		sorted := true
		for i := range p {
			sorted = sorted && p[i] == i
		}
		if sorted {
			p[0], p[n-1] = p[n-1], p[0]
		}
	}
	return p
}
