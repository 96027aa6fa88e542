package attempt

import (
	"context"
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// streamSlots is how many calls an HTTP/2 connection is given at once: no
// more than the receiver allows streams open, as its SETTINGS frames say
// on the socket (h2Socket), and one until its first SETTINGS frame came.
//
// whsim waits for a free stream itself rather than in the ClientConn. On
// Go 1.27 x/net's ClientConn wraps net/http's, which reserves a stream
// before each call (Reserve) and then takes the lock that every call's
// stream opening needs. A call that finds every stream in use waits for
// one holding that lock, and counts the reservations of the calls behind
// it, which wait for the lock, as streams in use: it waits for calls that
// wait for it, until their time limit (TestHTTP2OneStreamAtATime: calls
// timed out that the receiver never read). A call given the connection
// only when one of its streams is free does not wait there, but for a
// stream net/http lets go a moment after its answer, which it does on
// its own.
type streamSlots struct {
	mu    sync.Mutex
	inUse int
	limit uint32 // the receiver's SETTINGS_MAX_CONCURRENT_STREAMS, once seen
	seen  bool   // the receiver's first SETTINGS frame came
	over  bool   // a GOAWAY came, or the connection ended: no call is given it
	// waiters are the calls waiting for a slot, first come first given:
	// a freed slot goes to the one that waited longest, not to a call
	// that comes after (a closed run's worker asks again as soon as its
	// answer came, and would take it before a woken waiter ran, again
	// and again, until the waiter's time limit).
	waiters []*slotWaiter
}

// slotWaiter is a call waiting for a slot: ready is closed once it was
// given one (given) or the connection ended.
type slotWaiter struct {
	ready chan struct{}
	given bool
}

// defaultStreams is how many streams net/http and x/net open at most on a
// connection whose receiver sets no limit.
const defaultStreams = 1000

// take waits for a free slot: true when it has one, false when the
// connection takes no new call, a noStreamError (ctx's error) when ctx
// ends first.
func (s *streamSlots) take(ctx context.Context) (bool, error) {
	s.mu.Lock()
	switch {
	case s.over:
		s.mu.Unlock()
		return false, nil
	case len(s.waiters) == 0 && s.inUse < s.allowedLocked():
		s.inUse++
		s.mu.Unlock()
		return true, nil
	}
	w := &slotWaiter{ready: make(chan struct{})}
	s.waiters = append(s.waiters, w)
	s.mu.Unlock()
	select {
	case <-w.ready:
		return w.given, nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-w.ready:
		if w.given {
			// Given as its time limit ended: to the next.
			s.inUse--
			s.giveLocked()
		}
	default:
		s.waiters = slices.DeleteFunc(s.waiters, func(o *slotWaiter) bool { return o == w })
	}
	return false, s.noStreamLocked(ctx.Err())
}

// noStream is the error of a call whose context ended (err) while it
// waited for a stream.
func (s *streamSlots) noStream(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.noStreamLocked(err)
}

func (s *streamSlots) noStreamLocked(err error) error {
	return noStreamError{allowed: s.allowedLocked(), seen: s.seen, err: err}
}

// overLimit says more slots are given than the receiver now allows.
func (s *streamSlots) overLimit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inUse > s.allowedLocked()
}

// give hands a slot back.
func (s *streamSlots) give() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inUse--
	s.giveLocked()
}

// settings is a SETTINGS frame of the receiver's, which set the limit to
// n when has. Its first says the limit for good: none set is no limit.
func (s *streamSlots) settings(has bool, n uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	first := !s.seen
	s.seen = true
	switch {
	case has:
		s.limit = n
	case first:
		s.limit = defaultStreams
	}
	s.giveLocked()
}

// end says the connection takes no new call: the calls waiting for a slot
// go to another.
func (s *streamSlots) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.over = true
	for _, w := range s.waiters {
		close(w.ready)
	}
	s.waiters = nil
}

func (s *streamSlots) allowedLocked() int {
	if !s.seen {
		return 1
	}
	return int(s.limit)
}

// giveLocked gives the free slots to the calls that waited longest.
func (s *streamSlots) giveLocked() {
	for len(s.waiters) > 0 && !s.over && s.inUse < s.allowedLocked() {
		w := s.waiters[0]
		s.waiters[0] = nil
		s.waiters = s.waiters[1:]
		w.given = true
		s.inUse++
		close(w.ready)
	}
}

// noStreamError is a call whose time limit (or Ctrl-C) ended while it
// waited for a slot: it never went out, and the receiver, which may
// have read no call at all, is neither slow nor out of reach. err is the
// call's context's, which says which ended it.
type noStreamError struct {
	allowed int
	seen    bool // the receiver's SETTINGS came: allowed is its limit
	err     error
}

func (e noStreamError) Error() string {
	var why string
	switch {
	case !e.seen:
		why = "the receiver sent no SETTINGS frame yet, and its connection carries one call until it does, held by another"
	case e.allowed == 0:
		why = "the receiver allows no stream at once (SETTINGS_MAX_CONCURRENT_STREAMS 0)"
	default:
		why = "the receiver allows " + strconv.Itoa(e.allowed) + " at once (SETTINGS_MAX_CONCURRENT_STREAMS), all in use by other calls"
	}
	return noStreamWords + ": " + why
}

// noStreamWords start a noStreamError's words, which ShortError looks for
// in an attempt's error.
const noStreamWords = "waited for a free HTTP/2 stream, the call never went out"

func (e noStreamError) Unwrap() error { return e.err }

// slotBody is an answer's body that gives its call's slot back when it is
// closed: the stream is the call's until then.
type slotBody struct {
	io.ReadCloser
	slots *streamSlots
	gave  atomic.Bool
}

func (b *slotBody) Close() error {
	err := b.ReadCloser.Close()
	if b.gave.CompareAndSwap(false, true) {
		b.slots.give()
	}
	return err
}
