package attempt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"testing"

	"golang.org/x/net/http2"
)

// h2Socket reads the streams the receiver allows open from its SETTINGS
// frames however its reads cut them: the last MAX_CONCURRENT_STREAMS
// said, no limit (net/http's 1000) when the first SETTINGS says none, one
// until a SETTINGS frame came whole, and never from an ACK or another
// frame's bytes.
func TestH2SocketReadsStreamLimit(t *testing.T) {
	frames := func(write func(fr *http2.Framer) error) []byte { return h2Frames(t, write) }
	settings := func(s ...http2.Setting) []byte {
		return frames(func(fr *http2.Framer) error { return fr.WriteSettings(s...) })
	}
	maxStreams := func(n uint32) http2.Setting { return http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: n} }
	window := http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 20}
	ack := frames(func(fr *http2.Framer) error { return fr.WriteSettingsAck() })
	// A DATA frame whose payload reads as a MAX_CONCURRENT_STREAMS of 1.
	data := frames(func(fr *http2.Framer) error { return fr.WriteData(1, false, []byte{0, 3, 0, 0, 0, 1}) })
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	seven := settings(maxStreams(7))
	tests := []struct {
		name   string
		stream []byte
		want   int
	}{
		{"nothing yet", nil, 1},
		{"a limit", seven, 7},
		{"no limit", settings(window), defaultStreams},
		{"an empty SETTINGS frame", settings(), defaultStreams},
		{"the limit among others, last said wins", settings(window, maxStreams(3), maxStreams(9)), 9},
		{"a later SETTINGS without it keeps it", cat(seven, settings(window)), 7},
		{"a later one changes it", cat(seven, ack, settings(maxStreams(2))), 2},
		{"a limit of none", settings(maxStreams(0)), 0},
		{"an ACK is not the receiver's", ack, 1},
		{"another frame's payload is not a setting", cat(seven, data), 7},
		{"a SETTINGS frame cut short", seven[:len(seven)-1], 1},
	}
	for _, tc := range tests {
		for _, chunk := range []int{1, 2, 5, 6, 9, 10, 4096} {
			s := &h2Socket{Conn: &chunkConn{b: tc.stream, chunk: chunk}, slots: newSlots(nil)}
			readToEnd(s)
			s.slots.pool.mu.Lock()
			got := s.slots.allowedLocked()
			s.slots.pool.mu.Unlock()
			if got != tc.want {
				t.Errorf("%s, read %d bytes at a time: %d streams allowed, want %d", tc.name, chunk, got, tc.want)
			}
		}
	}
}

// The socket's end, or a GOAWAY, ends the slots: a call waiting for one
// goes to another connection.
func TestH2SocketEndsSlots(t *testing.T) {
	goAway := h2Frames(t, func(fr *http2.Framer) error { return fr.WriteGoAway(0, http2.ErrCodeNo, nil) })
	for name, stream := range map[string][]byte{"GOAWAY": goAway, "end": nil} {
		// The GOAWAY comes before the socket's end: read once.
		s := &h2Socket{Conn: &chunkConn{b: stream, chunk: 4096}, slots: newSlots(nil)}
		s.slots.join(&h2Conn{sock: s})
		if _, err := s.Read(make([]byte, 4096)); name == "GOAWAY" && err != nil {
			t.Fatal(err)
		}
		if slot, err := s.slots.take(context.Background()); slot || err != nil {
			t.Errorf("after the %s a call got a slot (%v, %v), want none", name, slot, err)
		}
	}
}

// A call waits for a slot while the receiver's streams are all in use,
// and takes one when a call gives its slot back, the limit rises, or goes
// elsewhere when the connection ends; its time limit ends the wait.
func TestStreamSlots(t *testing.T) {
	full := func() *streamSlots {
		s := oneConn()
		s.settings(true, 2)
		for range 2 {
			if slot, err := s.take(context.Background()); !slot || err != nil {
				t.Fatalf("a free slot was not given: %v, %v", slot, err)
			}
		}
		return s
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if slot, err := full().take(cancelled); slot || !errors.Is(err, context.Canceled) {
		t.Errorf("a call past its time limit got %v, %v; want no slot and its context's error", slot, err)
	}
	tests := []struct {
		name string
		free func(*streamSlots)
		want bool
	}{
		{"a slot given back", (*streamSlots).give, true},
		{"the limit raised", func(s *streamSlots) { s.settings(true, 3) }, true},
		{"the connection ended", func(s *streamSlots) { s.end(true) }, false},
	}
	for _, tc := range tests {
		s := full()
		got := make(chan bool)
		go func() {
			slot, err := s.take(context.Background())
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			got <- slot
		}()
		waiting(s)
		tc.free(s)
		if slot := <-got; slot != tc.want {
			t.Errorf("%s: the waiting call got a slot %v, want %v", tc.name, slot, tc.want)
		}
	}
}

// oneConn is the slots of a connection alone in its pool.
func oneConn() *streamSlots {
	s := newSlots(nil)
	s.join(&h2Conn{})
	return s
}

// take takes a slot of s's pool for a call: true when the call got one
// on s's connection.
func (s *streamSlots) take(ctx context.Context) (bool, error) {
	got, err := s.pool.take(ctx)
	return got == s, err
}

// h2Frames is the frames write writes.
func h2Frames(t *testing.T, write func(fr *http2.Framer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(http2.NewFramer(&b, nil)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readToEnd reads s until its connection's reads fail, as a ClientConn's
// reader does.
func readToEnd(s *h2Socket) {
	buf := make([]byte, 8192)
	for {
		if _, err := s.Read(buf); err != nil {
			return
		}
	}
}

// A slot given back goes to the call that waited longest, not to one
// that comes after: in a closed run each worker asks again as soon as
// its answer came, took the freed slot before the woken waiters ran, and
// a few calls waited until --timeout against a receiver that answered
// one call every 50ms (check's load: "37 timed out ... the receiver
// buckles under load", at 16 in flight, a queue of 800ms).
func TestStreamSlotsFirstComeFirstGiven(t *testing.T) {
	s := oneConn()
	s.settings(true, 1)
	if slot, err := s.take(context.Background()); !slot || err != nil {
		t.Fatalf("a free slot was not given: %v, %v", slot, err)
	}
	got := make(chan bool)
	go func() {
		slot, err := s.take(context.Background())
		if err != nil {
			t.Error(err)
		}
		got <- slot
	}()
	waiting(s)
	s.give()
	// A call that comes now finds the slot given to the waiting one.
	late, cancel := context.WithCancel(context.Background())
	cancel()
	if slot, _ := s.take(late); slot {
		t.Errorf("a call that came after the waiting one took the slot given back")
		s.give()
	}
	if !<-got {
		t.Errorf("the waiting call got no slot")
	}
}

// A waiting call whose time limit ends leaves the queue: the slot given
// back next goes to the one behind it, and none is lost.
func TestStreamSlotsWaiterLeaves(t *testing.T) {
	s := oneConn()
	s.settings(true, 1)
	if slot, err := s.take(context.Background()); !slot || err != nil {
		t.Fatalf("a free slot was not given: %v, %v", slot, err)
	}
	first, cancel := context.WithCancel(context.Background())
	left := make(chan error)
	go func() {
		_, err := s.take(first)
		left <- err
	}()
	waiting(s)
	got := make(chan bool)
	go func() {
		slot, _ := s.take(context.Background())
		got <- slot
	}()
	for queued(s) != 2 {
		runtime.Gosched()
	}
	cancel()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Errorf("the call that left got %v, want its context's error", err)
	}
	s.give()
	if !<-got {
		t.Errorf("the call behind got no slot")
	}
	s.give()
	if slot, err := s.take(context.Background()); !slot || err != nil {
		t.Errorf("the slot was lost: %v, %v", slot, err)
	}
}

// queued is how many calls wait on s.
func queued(s *streamSlots) int {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	return len(s.pool.waiters)
}

// waiting returns once a call waits on s for a slot.
func waiting(s *streamSlots) {
	for {
		s.pool.mu.Lock()
		w := len(s.pool.waiters) > 0
		s.pool.mu.Unlock()
		if w {
			return
		}
		runtime.Gosched()
	}
}

// An answer's body gives its slot back once, however often it is closed.
func TestSlotBodyGivesBackOnce(t *testing.T) {
	s := oneConn()
	if slot, _ := s.take(context.Background()); !slot {
		t.Fatal("the first call got no slot")
	}
	body := &slotBody{ReadCloser: io.NopCloser(bytes.NewReader(nil)), slots: s}
	body.Close()
	body.Close()
	if s.inUse != 0 {
		t.Errorf("%d slots in use after the body was closed twice, want 0", s.inUse)
	}
}

// A call whose time limit ended its wait for a slot says why, by what the
// receiver's SETTINGS said, and is its context's error.
func TestNoStreamWords(t *testing.T) {
	tests := []struct {
		name     string
		settings func(*streamSlots)
		want     string
	}{
		{"no SETTINGS yet", func(*streamSlots) {}, "the receiver sent no SETTINGS frame yet, and its connection carries one call until it does, held by another"},
		{"none allowed", func(s *streamSlots) { s.settings(true, 0) }, "the receiver allows no stream at once (SETTINGS_MAX_CONCURRENT_STREAMS 0)"},
		{"all in use", func(s *streamSlots) { s.settings(true, 3) }, "the receiver allows 3 at once (SETTINGS_MAX_CONCURRENT_STREAMS), all in use by other calls"},
		{"all in use on several connections", func(s *streamSlots) {
			s.settings(true, 3)
			other := newSlots(s.pool)
			other.join(&h2Conn{})
			other.settings(true, 2)
		}, "the receiver allows 5 at once on 2 connections (SETTINGS_MAX_CONCURRENT_STREAMS), all in use by other calls"},
		{"all in use, another connection opening", func(s *streamSlots) {
			s.settings(true, 3)
			s.pool.dialing++
		}, "the receiver allows 3 at once (SETTINGS_MAX_CONCURRENT_STREAMS), all in use by other calls, and the connection whsim opened for more was not set up yet"},
	}
	for _, tc := range tests {
		s := oneConn()
		tc.settings(s)
		s.pool.mu.Lock()
		err := s.pool.noStreamLocked(context.DeadlineExceeded)
		s.pool.mu.Unlock()
		if got, want := err.Error(), noStreamWords+": "+tc.want; got != want {
			t.Errorf("%s: %q, want %q", tc.name, got, want)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v is not its context's error", tc.name, err)
		}
	}
}

// A pool opens connections for the calls that wait when every slot is
// in use: as many as they need, at most ceil(concurrency/limit)+1 and
// never more than concurrency; none before the receiver's limit is
// known, for a limit of 0, or after a connection it opened failed or was
// ended by the receiver before it took a call.
func TestSlotPoolGrows(t *testing.T) {
	tests := []struct {
		name        string
		concurrency int
		limit       uint32
		seen        bool
		waiting     int
		before      func(p *slotPool) // the pool's history
		want        int               // connections opened for the waiting calls
		// then, when not the limit, is what a later SETTINGS frame set
		// it to, before the calls came.
		then uint32
	}{
		{"one call waits", 6, 2, true, 1, nil, 1, 2},
		{"as many as the calls waiting need", 6, 2, true, 3, nil, 2, 2},
		{"ceil(concurrency/limit)+1 at most", 6, 2, true, 10, nil, 3, 2},
		{"never more than concurrency", 2, 1, true, 5, nil, 1, 1},
		{"none at concurrency 1", 1, 1, true, 3, nil, 0, 1},
		{"none before the limit is known", 6, 2, false, 3, nil, 0, 2},
		{"none for a limit of 0", 6, 0, true, 3, nil, 0, 0},
		{"by the limit before it was lowered to 0", 6, 2, true, 3, nil, 2, 0},
		{"by the limit it was raised to", 6, 0, true, 3, nil, 2, 2},
		{"more after a dial failed", 6, 2, true, 3, func(p *slotPool) { refuse(p, 1) }, 2, 2},
		{"none after two failed in a row", 6, 2, true, 3, func(p *slotPool) { refuse(p, 2) }, 0, 2},
		{"none after one through a proxy", 6, 2, true, 3, func(p *slotPool) { p.dialing++; p.dialFailed(true) }, 0, 2},
		{"none after the receiver ended two before they answered a call", 6, 2, true, 3, func(p *slotPool) {
			for range 2 {
				opened(p).end(true)
			}
		}, 0, 2},
		{"more when one answered between", 6, 2, true, 3, func(p *slotPool) {
			opened(p).end(true)
			s := opened(p)
			s.served()
			s.end(true)
			opened(p).end(true)
		}, 2, 2},
		{"more after the client closed two", 6, 2, true, 3, func(p *slotPool) {
			for range 2 {
				opened(p).end(false)
			}
		}, 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dialled := 0
			p := &slotPool{concurrency: tc.concurrency}
			if tc.before != nil {
				tc.before(p)
			}
			p.dial = func() { dialled++ }
			s := newSlots(p)
			s.join(&h2Conn{})
			if tc.seen {
				s.settings(true, tc.limit)
				if tc.then != tc.limit {
					s.settings(true, tc.then)
				}
			}
			// The slots are in use.
			for got := true; got; {
				p.mu.Lock()
				got = p.freeLocked() != nil
				if got {
					p.freeLocked().inUse++
				}
				p.mu.Unlock()
			}
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range tc.waiting {
				wg.Go(func() {
					if got, _ := p.take(ctx); got != nil {
						t.Errorf("a call got a slot of a pool whose slots are in use")
					}
				})
			}
			for queued(s) != tc.waiting {
				runtime.Gosched()
			}
			p.mu.Lock()
			got := dialled
			p.mu.Unlock()
			cancel()
			wg.Wait()
			if got != tc.want {
				t.Errorf("%d connections opened for %d calls waiting, want %d", got, tc.waiting, tc.want)
			}
		})
	}
}

// refuse has n connections the pool opened fail.
func refuse(p *slotPool, n int) {
	for range n {
		p.dialing++
		p.dialFailed(false)
	}
}

// opened is a connection the pool opened, joined.
func opened(p *slotPool) *streamSlots {
	p.dialing++
	s := newSlots(p)
	s.dialled = true
	s.join(&h2Conn{})
	return s
}

// A call takes a slot on the oldest connection that has one, and a slot
// freed on any connection goes to the call that waited longest; when the
// last connection ends, the calls waiting go elsewhere (nil).
func TestSlotPoolOldestFirst(t *testing.T) {
	p := new(slotPool)
	a, b := newSlots(p), newSlots(p)
	a.join(&h2Conn{})
	b.join(&h2Conn{})
	a.settings(true, 2)
	b.settings(true, 2)
	for i, want := range []*streamSlots{a, a, b, b} {
		if got, err := p.take(context.Background()); got != want || err != nil {
			t.Fatalf("call %d got connection %p (%v), want %p", i+1, got, err, want)
		}
	}
	got := make(chan *streamSlots)
	go func() {
		s, _ := p.take(context.Background())
		got <- s
	}()
	waiting(a)
	b.give()
	if s := <-got; s != b {
		t.Errorf("the waiting call got %p, want the connection a slot was given back on, %p", s, b)
	}
	go func() {
		s, _ := p.take(context.Background())
		got <- s
	}()
	waiting(a)
	a.end(true)
	b.end(true)
	if s := <-got; s != nil {
		t.Errorf("a call waiting when every connection ended got %p, want none", s)
	}
}
