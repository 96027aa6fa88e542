// Package ctxio makes blocking reads and opens give way to a context: a
// terminal, a pipe or a FIFO nobody writes to must not keep whsim from
// stopping on Ctrl-C or SIGTERM.
package ctxio

import (
	"context"
	"io"
	"io/fs"
	"os"
)

// NewReader returns a reader of r whose reads end with ctx.Err() once ctx
// is done. Each read runs in its own goroutine, into a buffer of its own,
// and is abandoned (left to finish or block) when ctx ends first.
func NewReader(ctx context.Context, r io.Reader) io.Reader {
	return &reader{ctx: ctx, r: r}
}

type reader struct {
	ctx context.Context
	r   io.Reader
	buf []byte
}

func (c *reader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if len(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	buf := c.buf[:len(p)]
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := c.r.Read(buf)
		done <- result{n, err}
	}()
	select {
	case res := <-done:
		return copy(p, buf[:res.n]), res.err
	case <-c.ctx.Done():
		c.buf = nil // the abandoned read still owns it
		return 0, c.ctx.Err()
	}
}

// Checked returns a reader of r whose reads end with ctx.Err() once ctx
// is done, checked before each read: for reads that never block (a
// regular file), where NewReader's goroutine and copy would be waste, yet
// a large input must still give way between reads.
func Checked(ctx context.Context, r io.Reader) io.Reader { return checked{ctx, r} }

type checked struct {
	ctx context.Context
	r   io.Reader
}

func (c checked) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// open opens a file for reading; opening a FIFO blocks until a writer
// comes, so it gives up with ctx.Err() once ctx is done.
func open(ctx context.Context, name string) (*os.File, error) {
	if fi, err := os.Stat(name); err != nil || fi.Mode().IsRegular() || fi.IsDir() {
		return os.Open(name)
	}
	type result struct {
		f   *os.File
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := os.Open(name)
		done <- result{f, err}
	}()
	select {
	case res := <-done:
		return res.f, res.err
	case <-ctx.Done():
		go func() { // close it should the open still succeed
			if res := <-done; res.f != nil {
				res.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// FileKind names a file that is not a regular one ("a FIFO", "a device"),
// for the message that refuses it: a FIFO or a device opened where a file
// is wanted would block or be read without end.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}
