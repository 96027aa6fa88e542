package probe

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// Settle asks each document until it settles, again only while the
// deadline has not passed; the first error ends every question.
func TestSettle(t *testing.T) {
	t.Parallel()
	errProbe := errors.New("probe failed")
	tests := []struct {
		name      string
		deadline  time.Time
		settleAt  int   // the ask that settles each document; 0 never
		failAt    int   // the document whose first ask fails; -1 none
		wantAsks  int32 // per document, when no error
		wantError error
	}{
		{"settled at once", time.Now().Add(time.Hour), 1, -1, 1, nil},
		{"settled on the third ask", time.Now().Add(time.Hour), 3, -1, 3, nil},
		{"deadline passed: asked once", time.Now(), 0, -1, 1, nil},
		{"an error ends it", time.Now().Add(time.Hour), 0, 5, 0, errProbe},
	}
	for _, tt := range tests {
		const n = 20
		var asks [n]atomic.Int32
		err := Settle(context.Background(), n, tt.deadline, func(ctx context.Context, i int) (bool, error) {
			k := asks[i].Add(1)
			if i == tt.failAt {
				return false, errProbe
			}
			return tt.settleAt > 0 && int(k) >= tt.settleAt, nil
		})
		if !errors.Is(err, tt.wantError) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.wantError)
			continue
		}
		if tt.wantError != nil {
			continue
		}
		for i := range n {
			if got := asks[i].Load(); got != tt.wantAsks {
				t.Errorf("%s: document %d asked %d times, want %d", tt.name, i, got, tt.wantAsks)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Settle(ctx, 3, time.Now().Add(time.Hour), func(context.Context, int) (bool, error) { return false, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled run: %v, want context.Canceled", err)
	}
}

// lastLanded: whatever time a queue keeps each call before storing it,
// give or take QueueJitter, if it had stored any of a document's calls
// when the probe answered, it has stored every one by lastLanded; and the
// slowest such queue stores its last call then, so nothing earlier would
// do.
func TestLastLanded(t *testing.T) {
	began := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	for _, tt := range []struct {
		name  string
		calls []time.Duration // when each call was answered, after began
		asked time.Duration   // when the probe answered, after began
	}{
		{"one moment", []time.Duration{0, 0}, 5 * ms},
		{"copies in turn", []time.Duration{1 * ms, 12 * ms, 25 * ms, 40 * ms}, 45 * ms},
		{"a retry long after", []time.Duration{0, 30 * time.Second}, 31 * time.Second},
		{"asked long after", []time.Duration{0, 40 * ms}, time.Minute},
	} {
		end := began.Add(tt.calls[len(tt.calls)-1])
		asked := began.Add(tt.asked)
		got := lastLanded(asked, began, end)
		slowest := time.Duration(0)
		for keep := time.Duration(0); keep <= tt.asked+ms; keep += ms / 2 {
			// The held call stored soonest, the others up to
			// QueueJitter later.
			heldOne, last := false, time.Time{}
			for _, c := range tt.calls {
				heldOne = heldOne || !began.Add(c+keep).After(asked)
				last = later(last, began.Add(c+keep+QueueJitter))
			}
			if !heldOne {
				continue
			}
			if last.After(got) {
				t.Errorf("%s: a queue keeping each call %v stores the last at %v, after lastLanded %v", tt.name, keep, last.Sub(began), got.Sub(began))
			}
			slowest = max(slowest, last.Sub(began))
		}
		// No later than it need be: began stands for the first answer.
		if over := got.Sub(began) - slowest; over > tt.calls[0]+ms/2 {
			t.Errorf("%s: lastLanded %v, %v after the slowest queue's last call %v", tt.name, got.Sub(began), over, slowest)
		}
		if earlier(got, asked) != asked || later(got, asked) != got {
			t.Errorf("%s: earlier and later of %v and %v", tt.name, got, asked)
		}
	}
}

// AgainAt: late documents wait for the settle time, documents held at
// once for the latest of their queues' last calls (no later than the
// deadline), and nothing is asked again with settle 0 or nothing held.
func TestAgainAt(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	quick := Sent{Began: at(0), End: at(10), FirstAnswer: at(20)}  // lands by 20+10+100
	slow := Sent{Began: at(0), End: at(300), FirstAnswer: at(350)} // lands by 350+300+100
	for _, tt := range []struct {
		name     string
		held     []Sent
		late     bool
		settle   time.Duration
		deadline time.Time
		want     time.Time
		again    bool
	}{
		{"nothing held", nil, true, 2 * time.Second, at(2000), time.Time{}, false},
		{"settle 0", []Sent{quick}, false, 0, at(0), time.Time{}, false},
		{"late waits for the deadline", []Sent{quick}, true, 2 * time.Second, at(2000), at(2000), true},
		{"held at once: its last call", []Sent{quick}, false, 2 * time.Second, at(2000), at(130), true},
		{"held at once: the latest of them", []Sent{quick, slow, quick}, false, 2 * time.Second, at(2000), at(750), true},
		{"held at once: no later than the deadline", []Sent{slow}, false, 500 * time.Millisecond, at(500), at(500), true},
	} {
		got, again := AgainAt(tt.held, tt.late, tt.settle, tt.deadline)
		if !got.Equal(tt.want) || again != tt.again {
			t.Errorf("%s: AgainAt = %v, %v; want %v, %v", tt.name, got.Sub(t0), again, tt.want.Sub(t0), tt.again)
		}
	}
}

func TestWaitUntilEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WaitUntil(ctx, time.Now().Add(time.Hour)); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitUntil of a cancelled context: %v, want context.Canceled", err)
	}
	if err := WaitUntil(context.Background(), time.Now().Add(-time.Second)); err != nil {
		t.Errorf("WaitUntil of a time gone: %v", err)
	}
}
