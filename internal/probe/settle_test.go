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
