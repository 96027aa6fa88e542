package fake

import (
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"

	"github.com/brianvoe/gofakeit/v7/source"
)

// Rand is the one seeded source every draw comes from: gofakeit's JSF
// generator behind math/rand/v2.
//
// whsim links gofakeit's source package rather than its Faker: the Faker's
// package init builds its English data tables and function registry at
// every process start (about 4.5 ms here, nearly the whole run of a
// hello-world binary), and whsim uses none of that data: its Chinese word
// lists are its own.
type Rand struct {
	r *rand.Rand
}

// newRand returns a source seeded with seed; 0 draws a random seed.
func newRand(seed uint64) *Rand {
	if seed == 0 {
		var b [8]byte
		_, _ = crand.Read(b[:]) // never fails on supported platforms
		seed = binary.LittleEndian.Uint64(b[:]) | 1
	}
	return &Rand{r: rand.New(source.NewJSF(seed))}
}

// IntN returns an int in [0, n).
func (r *Rand) IntN(n int) int { return r.r.IntN(n) }

// IntRange returns an int in [lo, hi], both included.
func (r *Rand) IntRange(lo, hi int) int {
	if lo >= hi {
		return lo
	}
	return lo + r.r.IntN(hi-lo+1)
}

// Float32 returns a float32 in [0, 1).
func (r *Rand) Float32() float32 { return r.r.Float32() }

// Float64 returns a float64 in [0, 1).
func (r *Rand) Float64() float64 { return r.r.Float64() }

// Uint64 returns a uniformly distributed uint64.
func (r *Rand) Uint64() uint64 { return r.r.Uint64() }

// Pick draws index i with probability w[i]/Σw. Whole weights (summing below
// 65536) draw with IntN, fractional ones with Float32: the two consume the
// source differently, and each keeps the sequence its seeds always gave.
func Pick[W uint16 | float32](r *Rand, w []W) int {
	var total W
	for _, x := range w {
		total += x
	}
	var x W
	if _, frac := any(total).(float32); frac {
		x = W(r.Float32()) * total
	} else {
		x = W(r.IntN(int(total)))
	}
	for i, v := range w {
		if x < v {
			return i
		}
		x -= v
	}
	return len(w) - 1
}
