package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// sizedReader returns its input in reads of the sizes it is given, in
// turn (a pipe's or a file's short reads), then fails with err if set.
type sizedReader struct {
	in    []byte
	sizes []int
	i     int
	err   error
}

func (r *sizedReader) Read(p []byte) (int, error) {
	if len(r.in) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n := min(len(p), len(r.in))
	if len(r.sizes) > 0 {
		n = min(n, 1+r.sizes[r.i%len(r.sizes)])
		r.i++
	}
	n = copy(p, r.in[:n])
	r.in = r.in[n:]
	return n, nil
}

// describeItem is every field of an item a line reader sets; a long
// line's Unended aside, which Next sets when the line's end was not in
// its buffer when it knew the line long (a matter of the buffer's size).
func describeItem(it *Item) string {
	unended := it.Unended && !it.Long
	return fmt.Sprintf("%d@%d long=%v torn=%v unended=%v cr=%v el=%d %q", it.Line, it.Offset, it.Long, it.Torn, unended, it.CR, it.Element, it.Body)
}

// readAll reads an input with Next only, or with ReadChunk into chunks of
// chunkCap bytes wherever the reader allows it (Next where it does not).
func readAll(in []byte, sizes []int, readErr error, max, chunkCap int, chunked bool) ([]string, error) {
	rd := NewReader(context.Background(), &sizedReader{in: in, sizes: sizes, err: readErr}, Options{Name: "in.ndjson", Max: max, Buffer: 16})
	if _, err := rd.Kind(); err != nil {
		return nil, err
	}
	var out []string
	dst := make([]byte, 0, chunkCap)
	for {
		if chunked && rd.Chunked() {
			c, err := rd.ReadChunk(dst)
			if n := bytes.Count(c.Bytes, []byte("\n")); c.Lines != n && c.Lines != n+1 {
				return out, fmt.Errorf("chunk of %d lines says %d", n, c.Lines)
			}
			rd.Items(c, func(it *Item) { out = append(out, describeItem(it)) })
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			if err != nil {
				return out, err
			}
			if len(c.Bytes) > 0 {
				continue
			}
		}
		it, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, describeItem(it))
	}
}

// FuzzReadChunk holds chunks to Next: any input, read in reads of any
// sizes into chunks of any size, gives Next's items with the same line
// numbers, offsets and flags, and the same error.
func FuzzReadChunk(f *testing.F) {
	f.Add([]byte("{}\n{\"a\":1}\r\n\n  \n[1]\nx"), []byte{3, 0, 7}, 4, 0, false)
	f.Add([]byte(`{"capture":1,"body":"{}"}`+"\n"+`{"capture":1,"bo`), []byte{100}, 8, 10, true)
	f.Add([]byte("1\n22\n333\n4444\n55555\n"), []byte{1}, 3, 3, false)
	f.Add([]byte("\n\n{}\n"+string(bytes.Repeat([]byte("y"), 200))+"\n{}"), []byte{50, 2}, 16, 64, true)
	f.Fuzz(func(t *testing.T, in, sizes []byte, chunkCap, max int, fail bool) {
		chunkCap = 1 + abs(chunkCap)%300
		max = abs(max) % 100
		reads := make([]int, len(sizes))
		for i, s := range sizes {
			reads[i] = int(s)
		}
		var readErr error
		if fail {
			readErr = errors.New("disk on fire")
		}
		want, wantErr := readAll(in, reads, readErr, max, chunkCap, false)
		got, err := readAll(in, reads, readErr, max, chunkCap, true)
		// A read that fails inside a line longer than max: the line is
		// said long before the error when the reader's buffer filled past
		// max first, else dropped with its start.
		// Either way round: where the reader's buffer fills decides.
		if wantErr != nil && len(want) == len(got)+1 && strings.Contains(want[len(want)-1], "long=true") {
			want = want[:len(got)]
		}
		if err != nil && len(got) == len(want)+1 && strings.Contains(got[len(got)-1], "long=true") {
			got = got[:len(want)]
		}
		// Where a line that runs on past 5*max is given up on depends on
		// where the reader's buffer filled: either may give up first.
		if strings.Contains(fmt.Sprint(err)+fmt.Sprint(wantErr), "runs on") {
			n := min(len(got), len(want))
			got, want, err, wantErr = got[:n], want[:n], nil, nil
		}
		if fmt.Sprint(err) != fmt.Sprint(wantErr) || !slices.Equal(got, want) {
			t.Fatalf("chunked: %v\n%q\nNext: %v\n%q", err, got, wantErr, want)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
