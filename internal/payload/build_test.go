package payload

import (
	"testing"
	"time"

	"github.com/whsim/whsim/internal/fake"
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

// A line's VAT is computed as the Golden Tax system computes it (domain
// notes §3): the amount rounded to cents first, then its tax rounded, so
// that a receiver that recomputes round2(round2(quantity × price) × rate)
// gets the line's tax exactly.
func TestLineVAT(t *testing.T) {
	t.Parallel()
	dec := func(units int64, scale int) fake.Decimal { return fake.Decimal{Units: units, Scale: scale} }
	for _, tt := range []struct {
		qty, price, rate fake.Decimal
		want             string
	}{
		// the domain notes' worked example: 12 × 85.40 = 1024.80, at 13% 133.22
		{dec(12, 0), dec(8540, 2), dec(13, 2), "133.22"},
		// 6.56 × 3414.37 = 22398.2672 → 22398.27, × 13% = 2911.7751 → 2911.78
		// (on the unrounded product it would be 2911.77)
		{dec(656, 2), dec(341437, 2), dec(13, 2), "2911.78"},
		// a return line: negative quantity, negative tax
		{dec(-30, 0), dec(3730, 2), dec(6, 2), "-67.14"},
		{dec(3, 0), dec(333, 2), dec(0, 2), "0.00"},
	} {
		if got := lineVAT(tt.qty, tt.price, tt.rate).String(); got != tt.want {
			t.Errorf("lineVAT(%s, %s, %s) = %s, want %s", tt.qty, tt.price, tt.rate, got, tt.want)
		}
	}
}
