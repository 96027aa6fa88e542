// Package reqid derives the requestIds of a run from its seed: the n-th
// delivery of an event gets the same id in `generate --seed` and
// `send --seed`, and no two deliveries of a run, or of runs of other events
// under the same seed, share one.
package reqid

import (
	"encoding/hex"
	"math/rand/v2"
)

// For returns the id of the n-th (from 0) payload of event in a run seeded
// with seed: a version 4 UUID (RFC 9562) whose 122 bits follow from the
// three. For a given seed and event, distinct n give distinct ids: n is
// mixed by a bijection.
func For(seed uint64, event string, n uint64) string {
	a := mix(seed ^ mix(hash(event)^mix(n)))
	c := mix(a ^ 0x9e3779b97f4a7c15)
	var b [16]byte
	for i := range 8 {
		b[i], b[8+i] = byte(a>>(8*i)), byte(c>>(8*i))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// RandomSeed is the seed of a run the user did not seed.
func RandomSeed() uint64 {
	for {
		if s := rand.Uint64(); s != 0 {
			return s
		}
	}
}

// mix is splitmix64's finalizer: a bijection on 64 bits that spreads every
// input bit over the output.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// hash is FNV-1a.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
