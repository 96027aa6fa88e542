package payload

import (
	"testing"
	"time"
)

// A seed the user gave generates around the anchor whatever the day; a
// random run around now.
func TestAround(t *testing.T) {
	now := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, tt := range []struct {
		seed uint64
		want time.Time
	}{
		{0, now},
		{1, Anchor()},
		{42, Anchor()},
	} {
		if got := Around(tt.seed, now); !got.Equal(tt.want) {
			t.Errorf("Around(%d, %s) = %s, want %s", tt.seed, now, got, tt.want)
		}
	}
}
