package validate

import (
	"testing"
	"unsafe"
)

// TestBufferSlab holds the slab's pieces to what readBatches needs of them:
// empty, of the capacity asked for, each in a block that starts at a huge
// page (or made on its own), and never overlapping, so an append past one
// cannot write into the next.
func TestBufferSlab(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
		own   []bool // made on its own, outside a block
	}{
		{"a block's eight chunks, then a new block", []int{512 << 10, 512 << 10, 512 << 10, 512 << 10, 512 << 10,
			512 << 10, 512 << 10, 512 << 10, 512 << 10}, nil},
		{"an array's batches, two to a block", []int{768 << 10, 768 << 10, 768 << 10}, nil},
		{"a small file's, made on their own", []int{1, 7, 64 << 10, hugePage/8 - 1}, []bool{true, true, true, true}},
		{"an eighth of a block and more", []int{hugePage / 8, hugePage/4 + 1, 300 << 10}, nil},
		{"a buffer larger than a block", []int{hugePage / 2, slabBlock + 1, hugePage / 2}, []bool{false, true, false}},
		{"a whole block", []int{slabBlock, hugePage / 4}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s bufferSlab
			type span struct{ start, end uintptr }
			var got []span
			for i, n := range tc.sizes {
				b := s.get(n)
				if len(b) != 0 || cap(b) != n {
					t.Fatalf("get(%d): len %d cap %d, want 0 and %d", n, len(b), cap(b), n)
				}
				start := uintptr(unsafe.Pointer(unsafe.SliceData(b[:1])))
				own := i < len(tc.own) && tc.own[i]
				if !own {
					// The first piece of a block starts at a huge page.
					if len(s.rest) == slabBlock-n {
						if start&(hugePage-1) != 0 {
							t.Fatalf("get(%d), a block's first piece, starts at %#x", n, start)
						}
					}
				}
				for _, o := range got {
					if start < o.end && o.start < start+uintptr(n) {
						t.Fatalf("get(%d) overlaps an earlier piece", n)
					}
				}
				got = append(got, span{start, start + uintptr(n)})
			}
		})
	}
}
