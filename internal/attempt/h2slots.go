package attempt

import (
	"context"
	"errors"
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
//
// A connection's slots are one of its receiver's (slotPool): a call takes
// a slot on whichever connection has one, and its fields are guarded by
// the pool's mutex.
type streamSlots struct {
	pool  *slotPool
	conn  *h2Conn // whose slots they are, once it joined the pool
	inUse int
	limit uint32 // the receiver's SETTINGS_MAX_CONCURRENT_STREAMS, once seen
	most  uint32 // the highest limit it said on the connection
	seen  bool   // the receiver's first SETTINGS frame came
	over  bool   // a GOAWAY came, or the connection ended: no call is given it
	// dialled says the pool opened the connection (slotPool.grow), and
	// answered that a call on it was answered: one the pool opened that
	// the receiver ended before it answered a call is a refusal
	// (slotPool.refusals).
	dialled, answered bool
}

// slotPool is a receiver's HTTP/2 connections (one authority's, of one
// client) and the calls that wait for a stream on one of them.
//
// net/http's transport hands every call the newest HTTP/2 connection it
// has to the receiver, so calls waited for a stream on that one while the
// others it had opened (one per call that came before the first was set
// up) sat idle, and it opened no other: at --concurrency above the
// receiver's limit, throughput was one connection's streams, and under
// --rate overload the queued calls went out late and timed out after the
// receiver answered. The pool gives a call a slot on the oldest
// connection that has one, and opens another connection, up to a bound,
// when none has.
type slotPool struct {
	mu sync.Mutex
	// conns are the connections that take calls, oldest first.
	conns []*streamSlots
	// waiters are the calls waiting for a slot, first come first given:
	// a freed slot goes to the one that waited longest, not to a call
	// that comes after (a closed run's worker asks again as soon as its
	// answer came, and would take it before a woken waiter ran, again
	// and again, until the waiter's time limit).
	waiters []*slotWaiter
	// concurrency is the client's (ClientOptions.Concurrency): the pool
	// opens at most ceil(concurrency/limit)+1 connections, never more than
	// concurrency. dial opens one in the background (nil: the pool opens
	// none), which joins the pool or fails (dialFailed); dialing counts
	// those under way.
	concurrency int
	dial        func()
	dialing     int
	// refusals counts the connections the pool opened in a row that
	// failed, or that the receiver ended before one answered a call;
	// stuck says there were maxRefusals: a receiver that takes no more
	// connections (one it shuts down as it opens, or refuses), and the
	// pool opens none again, its calls wait for the ones it has. Not one:
	// a receiver also closes a connection that stayed idle (the calls
	// waiting took others' streams first) after its own time.
	refusals int
	stuck    bool
	// closed says the client closed the pool's connections
	// (CloseIdleConnections): one that opens after joins none.
	closed bool
}

// slotWaiter is a call waiting for a slot: ready is closed once it was
// given one (given) or the pool has no connection left (given nil).
type slotWaiter struct {
	ready chan struct{}
	given *streamSlots
}

// defaultStreams is how many streams net/http and x/net open at most on a
// connection whose receiver sets no limit.
const defaultStreams = 1000

// newSlots are the slots of a new connection of the pool p (a pool of its
// own when p is nil); the connection takes calls once it joins p (join).
func newSlots(p *slotPool) *streamSlots {
	if p == nil {
		p = new(slotPool)
	}
	return &streamSlots{pool: p}
}

// join adds s's connection, h, to the pool: it takes calls from now on,
// and the calls waiting get its slots. false when the pool is closed.
func (s *streamSlots) join(h *h2Conn) bool {
	p := s.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.dialled {
		p.dialing--
	}
	if p.closed || s.over {
		return false
	}
	s.conn = h
	p.conns = append(p.conns, s)
	p.giveLocked()
	p.growLocked()
	return true
}

// dialFailed says a connection the pool opened failed before it joined;
// final that the pool can open none (through a proxy, without HTTP/2).
func (p *slotPool) dialFailed(final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dialing--
	p.refusedLocked()
	if final {
		p.stuck = true
	}
}

// maxRefusals is how many connections the pool opened in a row may be
// refused (slotPool.refusals) before it opens no more.
const maxRefusals = 2

func (p *slotPool) refusedLocked() {
	if p.refusals++; p.refusals >= maxRefusals {
		p.stuck = true
	}
}

// take waits for a free slot on one of the pool's connections: the
// connection's slots when it has one, nil when the pool has no
// connection that takes calls, errPoolClosed when the client closed them,
// a noStreamError (ctx's error) when ctx ends first.
func (p *slotPool) take(ctx context.Context) (*streamSlots, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errPoolClosed
	}
	if len(p.conns) == 0 {
		p.mu.Unlock()
		return nil, nil
	}
	if len(p.waiters) == 0 {
		if s := p.freeLocked(); s != nil {
			s.inUse++
			p.mu.Unlock()
			return s, nil
		}
	}
	w := &slotWaiter{ready: make(chan struct{})}
	p.waiters = append(p.waiters, w)
	p.growLocked()
	p.mu.Unlock()
	select {
	case <-w.ready:
		if w.given == nil {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.closed {
				return nil, errPoolClosed
			}
		}
		return w.given, nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-w.ready:
		if s := w.given; s != nil {
			// Given as its time limit ended: to the next.
			s.inUse--
			p.giveLocked()
		}
	default:
		p.waiters = slices.DeleteFunc(p.waiters, func(o *slotWaiter) bool { return o == w })
	}
	return nil, p.noStreamLocked(ctx.Err())
}

// errPoolClosed is a call that waited for a slot of a pool whose
// connections the client closed (CloseIdleConnections): it goes on a new
// connection.
var errPoolClosed = errors.New("http2: the client closed its connections")

// live says the pool has a connection that takes calls.
func (p *slotPool) live() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns) > 0
}

// noStream is the error of a call whose context ended (err) while it
// waited for a stream on s's connection.
func (s *streamSlots) noStream(err error) error {
	p := s.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	return noStreamError{allowed: s.allowedLocked(), seen: s.seen, conns: 1, err: err}
}

// noStreamLocked is the error of a call whose context ended (err) while
// it waited for a slot on any of the pool's connections.
func (p *slotPool) noStreamLocked(err error) error {
	e := noStreamError{conns: len(p.conns), dialing: p.dialing > 0, err: err}
	for _, s := range p.conns {
		if s.seen {
			e.seen = true
			e.allowed += s.allowedLocked()
		}
	}
	return e
}

// overLimit says more slots are given than the receiver now allows.
func (s *streamSlots) overLimit() bool {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	return s.inUse > s.allowedLocked()
}

// served says a call on the connection, one the pool opened, was
// answered: the receiver takes the pool's connections.
func (s *streamSlots) served() {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	s.answered = true
	s.pool.refusals = 0
}

// give hands a slot back.
func (s *streamSlots) give() {
	p := s.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	s.inUse--
	p.giveLocked()
}

// settings is a SETTINGS frame of the receiver's, which set the limit to
// n when has. Its first says the limit for good: none set is no limit.
func (s *streamSlots) settings(has bool, n uint32) {
	p := s.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	first := !s.seen
	s.seen = true
	switch {
	case has:
		s.limit = n
	case first:
		s.limit = defaultStreams
	}
	s.most = max(s.most, s.limit)
	p.giveLocked()
	p.growLocked()
}

// end says the connection takes no new call: it leaves the pool, and when
// it was the last, the calls waiting for a slot go to a new connection
// of net/http's transport. byReceiver says the receiver ended it (a
// GOAWAY, a close), not the client (idle, CloseIdleConnections).
func (s *streamSlots) end(byReceiver bool) {
	p := s.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.over {
		return
	}
	s.over = true
	if s.dialled && byReceiver && !s.answered {
		p.refusedLocked()
	}
	if s.conn == nil {
		return // never joined
	}
	p.conns = slices.DeleteFunc(p.conns, func(o *streamSlots) bool { return o == s })
	if len(p.conns) == 0 {
		p.wakeLocked()
		return
	}
	p.growLocked()
}

// close ends every connection of the pool (the client closed them) and
// opens none again.
func (p *slotPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, s := range p.conns {
		s.over = true
	}
	p.conns = nil
	p.wakeLocked()
}

// wakeLocked wakes the calls waiting: the pool has no connection for them.
func (p *slotPool) wakeLocked() {
	for _, w := range p.waiters {
		close(w.ready)
	}
	p.waiters = nil
}

func (s *streamSlots) allowedLocked() int {
	if !s.seen {
		return 1
	}
	return int(s.limit)
}

// freeLocked is the oldest connection with a free slot, nil when none
// has. The oldest, not the least loaded: calls fill a connection before
// the next, so the pool keeps open the connections the calls at once
// need (ceil(calls/limit), as a sender's HTTP/2 client would), and the
// ones net/http's transport opened past that, or that a burst needed, go
// idle and close (IdleConnTimeout) rather than each carry a call.
func (p *slotPool) freeLocked() *streamSlots {
	for _, s := range p.conns {
		if s.inUse < s.allowedLocked() {
			return s
		}
	}
	return nil
}

// giveLocked gives the free slots to the calls that waited longest.
func (p *slotPool) giveLocked() {
	for len(p.waiters) > 0 {
		s := p.freeLocked()
		if s == nil {
			return
		}
		w := p.waiters[0]
		p.waiters[0] = nil
		p.waiters = p.waiters[1:]
		w.given = s
		s.inUse++
		close(w.ready)
	}
}

// growLocked opens connections for the calls that wait, when every
// connection's slots are in use: as many as the calls waiting need
// beyond those already opening, while the pool holds fewer than
// ceil(concurrency/limit)+1 and fewer than concurrency. Not before every
// connection's limit is known (its first SETTINGS, which comes at once),
// nor for a receiver that never allowed a stream: another connection
// would carry none either. The limit is the highest the receiver said on
// a connection: one it lowered on a connection, even to 0, is no limit
// of the next.
func (p *slotPool) growLocked() {
	if p.dial == nil || p.stuck || p.closed || len(p.waiters) == 0 || len(p.conns) == 0 {
		return
	}
	limit := 0
	for _, s := range p.conns {
		if !s.seen {
			return
		}
		limit = max(limit, int(s.most))
	}
	if limit == 0 {
		return
	}
	bound := min(p.concurrency, (p.concurrency+limit-1)/limit+1)
	for len(p.waiters) > p.dialing*limit && len(p.conns)+p.dialing < bound {
		p.dialing++
		p.dial()
	}
}

// noStreamError is a call whose time limit (or Ctrl-C) ended while it
// waited for a slot: it never went out, and the receiver, which may
// have read no call at all, is neither slow nor out of reach. err is the
// call's context's, which says which ended it.
type noStreamError struct {
	allowed int
	seen    bool // the receiver's SETTINGS came: allowed is its limit
	conns   int  // the connections the call could be given a stream on: allowed is their sum
	dialing bool // another connection was being set up for the calls waiting
	err     error
}

func (e noStreamError) Error() string {
	var why string
	switch {
	case !e.seen:
		why = "the receiver sent no SETTINGS frame yet, and its connection carries one call until it does, held by another"
	case e.allowed == 0:
		why = "the receiver allows no stream at once (SETTINGS_MAX_CONCURRENT_STREAMS 0)"
	case e.conns > 1:
		why = "the receiver allows " + strconv.Itoa(e.allowed) + " at once on " + strconv.Itoa(e.conns) + " connections (SETTINGS_MAX_CONCURRENT_STREAMS), all in use by other calls"
	default:
		why = "the receiver allows " + strconv.Itoa(e.allowed) + " at once (SETTINGS_MAX_CONCURRENT_STREAMS), all in use by other calls"
	}
	if e.dialing {
		// The call waited for a new connection too, which a receiver
		// whose listen backlog is full never sets up.
		why += ", and the connection whsim opened for more was not set up yet"
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
