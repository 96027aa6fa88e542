package capture

import (
	"bytes"
	"context"
	"io"
	"os"
)

// countRecords counts the records of a capture stream without decoding
// them: its non-blank complete lines (a torn last line is no record). It
// reads in large blocks, checking ctx between them: a capture may be
// gigabytes.
func countRecords(ctx context.Context, r io.Reader) (int64, error) {
	buf := make([]byte, 1<<20)
	var n int64
	prev := byte('\n') // the byte before buf[0]: a newline at the start is a blank line
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := r.Read(buf)
		b := buf[:k]
		for len(b) > 0 {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				prev = b[len(b)-1]
				break
			}
			if i > 0 || prev != '\n' {
				n++
			}
			prev = '\n'
			b = b[i+1:]
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// heldRecords counts the records of an existing, non-empty capture file,
// the one a run is about to append to; ok is false for a new or empty one
// (or one that cannot be read: OpenFile says what is wrong).
func heldRecords(ctx context.Context, path string) (n int64, ok bool) {
	if !regularFile(path) {
		return 0, false
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return 0, false
	}
	n, err = countRecords(ctx, f)
	return n, err == nil
}
