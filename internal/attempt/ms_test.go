package attempt

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// AppendMS writes what strconv.AppendFloat writes of MS(d): at the edges
// (no fraction, trailing zeros, the bound, negatives, the largest
// durations) and for durations drawn over every magnitude.
func TestAppendMS(t *testing.T) {
	us := time.Microsecond
	cases := []time.Duration{0, 1, 999, us, 10 * us, 100 * us, 999 * us, 1000 * us, 1001 * us, 1010 * us, 1100 * us,
		12345678 * us, time.Hour, -us, -1500 * us, (exactMS - 1) * us, exactMS * us, (exactMS + 1) * us,
		1<<53*us + 7*us, time.Duration(1<<63 - 1), time.Duration(-1 << 63)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		// Uniform in the exponent, then in the digits: every magnitude.
		cases = append(cases, time.Duration(rng.Int64N(1<<rng.IntN(63))))
	}
	for _, d := range cases {
		want := strconv.AppendFloat([]byte("x"), MS(d), 'f', -1, 64)
		if got := AppendMS([]byte("x"), d); string(got) != string(want) {
			t.Fatalf("AppendMS(%d) = %s, want %s", d, got, want)
		}
	}
}
