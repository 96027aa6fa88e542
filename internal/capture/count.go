package capture

import (
	"bytes"
	"context"
	"io"
)

// CountRecords counts the records of a capture stream without decoding
// them: its non-blank complete lines (a torn last line is no record). It
// reads in large blocks, checking ctx between them: a capture may be
// gigabytes.
func CountRecords(ctx context.Context, r io.Reader) (int64, error) {
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
