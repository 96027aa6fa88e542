package fake

import (
	"hash/fnv"
	"math/bits"
)

// givenNumbers holds the numbers a Faker gave under each head (own), in
// about a byte a number where they come one after another, as an ERP's do
// and as own's runs do (a run of a million receipts numbered 1 to 526,687
// of one prefix): kept a map entry each (31 bytes), generate --count
// 1000000 held its 2.3 million numbers in 168 MB, and 4,000,000 in 619 MB.
//
// A head's numbers are kept 64 to a block, a bit each. A full block also
// points at a block at or after which the next block not full lies, and a
// search leaves each full block it passed pointing at the one it found (a
// union-find's path compression): draws fall in a small range that fills
// up, and stepping block by block over a run of full ones would cost each
// number the run so far again.
//
// Numbers drawn far apart (an invoice's, one of a billion) take a block
// each, a map entry as before.
type givenNumbers struct {
	// words maps a block's key (blockKey) to its bits: bit i set, the
	// block's number i was given. An empty block has none.
	words map[uint64]uint64
	// past maps a full block's key to a block from which the next one not
	// full lies.
	past map[uint64]uint64
	// probes counts the lookups a search made, so that a test can hold a
	// run's numbering to a few per number however crowded its range gets.
	probes uint64
}

// fullWord is the bits of a block whose every number was given.
const fullWord = ^uint64(0)

// headKey is the hash a head's numbers are kept by. Two heads of one hash
// would share their numbers, as two numbers of one hash did when each was
// kept by its text's: at 64 bits, a chance of about one in ten billion for
// a million heads. width is in it so that a head numbered at two widths
// (none is) would keep them apart, as their texts (0042, 00000042) differ.
func headKey(head []byte, width int) uint64 {
	h := fnv.New64a()
	h.Write(head)
	h.Write([]byte{byte(width)})
	return h.Sum64()
}

// blockKey is the key of head h's block b: for one head, one key a block
// (multiplying by an odd number is one-to-one), and spread across heads.
func blockKey(h, b uint64) uint64 { return h ^ b*0x9e3779b97f4a7c15 }

// firstFree is the first number from n on that head h has not given.
func (g *givenNumbers) firstFree(h, n uint64) uint64 {
	b := n / 64
	g.probes++
	w := g.words[blockKey(h, b)]
	if free := ^w >> (n % 64); free != 0 {
		return n + uint64(bits.TrailingZeros64(free))
	}
	// Nothing from n to its block's end is free: on to the first number
	// free in the next block not full.
	if w != fullWord {
		b++
		g.probes++
		w = g.words[blockKey(h, b)]
	}
	from := b
	for w == fullWord {
		g.probes += 2
		b = g.past[blockKey(h, b)]
		w = g.words[blockKey(h, b)]
	}
	for m := from; m != b; {
		k := blockKey(h, m)
		m, g.past[k] = g.past[k], b
	}
	return b*64 + uint64(bits.TrailingZeros64(^w))
}

// give marks number n of head h given; it was not.
func (g *givenNumbers) give(h, n uint64) {
	if g.words == nil {
		g.words, g.past = map[uint64]uint64{}, map[uint64]uint64{}
	}
	b := n / 64
	k := blockKey(h, b)
	w := g.words[k] | 1<<(n%64)
	g.words[k] = w
	if w == fullWord {
		g.past[k] = b + 1
	}
}
