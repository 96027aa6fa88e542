package ctxio

import (
	"cmp"
	"context"
	"errors"
	"io"
	"os"
)

// StdinName is how messages name standard input.
const StdinName = "<stdin>"

// InputName is how messages name the input a command line named: "-" is
// StdinName.
func InputName(name string) string {
	if name == "-" {
		return StdinName
	}
	return name
}

// OpenInput opens an input file named on a command line; "-" is stdin
// (closing it does nothing). Opening a FIFO, and reading stdin or any
// input that is not a regular file, give way to ctx: a writer that opens a
// FIFO and never writes must not keep whsim from stopping. A regular file
// comes back as its *os.File. A directory is refused with an error naming
// it.
func OpenInput(ctx context.Context, name string, stdin io.Reader) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(NewReader(ctx, stdin)), nil
	}
	f, err := Open(ctx, name)
	if err != nil {
		return nil, cmp.Or(ctx.Err(), err)
	}
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		f.Close()
		if err == nil {
			err = &os.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
		}
		return nil, err
	}
	if fi, _ := f.Stat(); !fi.Mode().IsRegular() {
		return readCloser{NewReader(ctx, f), f}, nil
	}
	return f, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// ReadInput reads a whole input as OpenInput opens it.
func ReadInput(ctx context.Context, name string, stdin io.Reader) ([]byte, error) {
	r, err := OpenInput(ctx, name, stdin)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	return b, cmp.Or(ctx.Err(), err)
}
