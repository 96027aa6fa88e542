package check

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// shedder is a receiver that turns calls away with 503 past four in
// flight, as one behind a small worker pool does, and takes every call it
// has room for. What is in flight is made so on every run, whatever the
// machine's load: a copy of a burst it took is held until every copy of
// the burst has arrived (atOnce), and the first four load calls (calls
// after alone, which the run makes before load's) until the fifth has. A
// call sent alone is answered at once.
type shedder struct {
	atOnce *copiesAtOnce
	alone  int // calls before load's; 0: no load call is held

	mu       sync.Mutex
	calls    int
	inFlight int
	shed     int           // 503s answered
	fifth    chan struct{} // closed when the fifth load call arrives
	once     sync.Once
}

func newShedder(copies, alone int) *shedder {
	return &shedder{atOnce: newCopiesAtOnce(copies), alone: alone, fifth: make(chan struct{})}
}

func (s *shedder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	copy := s.atOnce.arrive()
	s.mu.Lock()
	s.calls++
	n := s.calls
	s.inFlight++
	over := s.inFlight > 4
	if over {
		s.shed++
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	load := s.alone > 0 && n > s.alone
	if load && n >= s.alone+5 {
		s.once.Do(func() { close(s.fifth) })
	}
	if over {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	switch {
	case copy:
		s.atOnce.allArrived(r.Context())
	case load && n <= s.alone+4:
		select {
		case <-s.fifth:
		case <-r.Context().Done():
		}
	}
}

// allArrived waits until no copy of the burst is still due, or ctx ends.
func (a *copiesAtOnce) allArrived(ctx context.Context) {
	a.mu.Lock()
	for a.due > 0 {
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

// A receiver that sheds load with 503 past four in flight fails the
// duplicates check's eight copies at once (four turned away each time)
// and the load check; no call it got alone failed. The load reason said
// it "fails valid calls with or without load", counting the copies as
// calls outside load: it says the receiver buckles under load. Where a
// call sent alone failed too, it says so, counting those calls only.
func TestLoadReasonOfAReceiverThatShedsPastFourInFlight(t *testing.T) {
	config := func(url string, s *shedder, checks ...string) Config {
		cfg := testConfig(t, url)
		cfg.Signer = nil
		cfg.Checks = checks
		cfg.copyHeld = s.atOnce.held
		return cfg
	}
	// How many calls duplicates makes: those before load's.
	before := newShedder(8, 0)
	srv := httptest.NewServer(before)
	_, results, err := run(t, context.Background(), config(srv.URL, before, duplicates))
	srv.Close()
	if err != nil || before.calls == 0 || before.shed == 0 {
		t.Fatalf("duplicates alone: %v, %d calls, %d shed", err, before.calls, before.shed)
	}
	if !hasReason(results, duplicates, "turned calls away as too many at once") {
		t.Fatalf("duplicates does not say the copies were turned away: %+v", results)
	}

	s := newShedder(8, before.calls)
	srv = httptest.NewServer(s)
	defer srv.Close()
	_, results, err = run(t, context.Background(), config(srv.URL, s, duplicates, Load))
	if err != nil {
		t.Fatal(err)
	}
	got := ofCheck(results, Load)
	if len(got) != 1 || got[0].Verdict != Fail {
		t.Fatalf("load: %+v, want one failure", got)
	}
	why := got[0].Reason
	if !strings.Contains(why, " got 503") || !strings.Contains(why, "the receiver buckles under load") || strings.Contains(why, "with or without load") {
		t.Errorf("load: %q, want the 503s said as the receiver buckling under load: no call sent alone failed", why)
	}
}

// hasReason says whether a result of check has a reason saying what.
func hasReason(rs []Result, check, what string) bool {
	for _, r := range rs {
		if r.Case.Check == check && strings.Contains(r.Reason, what) {
			return true
		}
	}
	return false
}
