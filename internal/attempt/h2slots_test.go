package attempt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
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
			s := &h2Socket{Conn: &chunkConn{b: tc.stream, chunk: chunk}}
			readToEnd(s)
			s.slots.mu.Lock()
			got := s.slots.allowedLocked()
			s.slots.mu.Unlock()
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
		s := &h2Socket{Conn: &chunkConn{b: stream, chunk: 4096}}
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
		s := new(streamSlots)
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
		{"the connection ended", (*streamSlots).end, false},
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
	s := new(streamSlots)
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
	s := new(streamSlots)
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
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.waiters)
}

// waiting returns once a call waits on s for a slot.
func waiting(s *streamSlots) {
	for {
		s.mu.Lock()
		w := len(s.waiters) > 0
		s.mu.Unlock()
		if w {
			return
		}
		runtime.Gosched()
	}
}

// An answer's body gives its slot back once, however often it is closed.
func TestSlotBodyGivesBackOnce(t *testing.T) {
	s := new(streamSlots)
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
	}
	for _, tc := range tests {
		s := new(streamSlots)
		tc.settings(s)
		err := s.noStream(context.DeadlineExceeded)
		if got, want := err.Error(), noStreamWords+": "+tc.want; got != want {
			t.Errorf("%s: %q, want %q", tc.name, got, want)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v is not its context's error", tc.name, err)
		}
	}
}
