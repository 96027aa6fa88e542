package fake

import "testing"

// TestPickKeepsTheDraws holds Pick to the two pickers it replaced, so that
// every seed keeps its bytes: whole weights drew with IntN, fractional ones
// with Float32.
func TestPickKeepsTheDraws(t *testing.T) {
	whole := func(r *Rand, w []uint16) int {
		t := 0
		for _, x := range w {
			t += int(x)
		}
		n := r.IntN(t)
		for i, x := range w {
			if n -= int(x); n < 0 {
				return i
			}
		}
		return len(w) - 1
	}
	frac := func(r *Rand, w []float32) int {
		var total float32
		for _, x := range w {
			total += x
		}
		x := r.Float32() * total
		for i, v := range w {
			if x < v {
				return i
			}
			x -= v
		}
		return len(w) - 1
	}
	ws := [][]uint16{{1}, {80, 8, 7, 0, 2, 3, 0}, {712, 698, 649, 3059}, {15, 85}}
	fs := [][]float32{{45, 45, 10}, {35, 30, 18, 10, 7}, {0.5, 0.25, 0.25}}
	a, b := newRand(42), newRand(42)
	for i := range 20000 {
		w := ws[i%len(ws)]
		got, want := Pick(a, w), whole(b, w)
		if got != want {
			t.Fatalf("draw %d: Pick(%v) = %d, want %d", i, w, got, want)
		}
		f := fs[i%len(fs)]
		got, want = Pick(a, f), frac(b, f)
		if got != want {
			t.Fatalf("draw %d: Pick(%v) = %d, want %d", i, f, got, want)
		}
	}
	for _, i := range []int{3, 6} {
		if n := Pick(newRand(uint64(i)), []uint16{0, 5, 0}); n != 1 {
			t.Errorf("Pick chose a zero weight: %d", n)
		}
	}
}
