package ctxio

import (
	"cmp"
	"context"
	"errors"
	"io"
	"os"
)

// stdinName is how messages name standard input.
const stdinName = "<stdin>"

// InputName is how messages name the input a command line named: "-" is
// stdinName.
func InputName(name string) string {
	if name == "-" {
		return stdinName
	}
	return name
}

// OpenInput opens an input file named on a command line; "-" is stdin
// (closing it does nothing). Opening a FIFO, and reading stdin or any
// input that is not a regular file, give way to ctx: a writer that opens a
// FIFO and never writes must not keep whsim from stopping. A regular file
// comes back as its *os.File. An error is ctx's, or names the input once
// ("dir: is a directory", "x.json: no such file or directory": an
// *os.PathError's own operation and path dropped, its cause kept).
func OpenInput(ctx context.Context, name string, stdin io.Reader) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(NewReader(ctx, stdin)), nil
	}
	f, err := open(ctx, name)
	if err != nil {
		return nil, cmp.Or(ctx.Err(), named(name, err))
	}
	if fi, err := f.Stat(); err != nil || fi.IsDir() {
		f.Close()
		if err == nil {
			err = errors.New("is a directory")
		}
		return nil, named(name, err)
	}
	if fi, _ := f.Stat(); !fi.Mode().IsRegular() {
		return readCloser{NewReader(ctx, f), f}, nil
	}
	return f, nil
}

// OpenError is an input that could not be opened: "name: cause".
type OpenError struct {
	Name string
	Err  error
}

func (e *OpenError) Error() string { return e.Name + ": " + e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }

func named(name string, err error) error {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		err = pe.Err
	}
	return &OpenError{Name: name, Err: err}
}

type readCloser struct {
	io.Reader
	io.Closer
}

// OpenAll opens every named input as OpenInput does, before any is read,
// so that one that cannot be opened stops a run before anything happens.
// On an error the inputs already open are closed, and the error is
// OpenInput's.
func OpenAll(ctx context.Context, names []string, stdin io.Reader) ([]io.ReadCloser, error) {
	rs := make([]io.ReadCloser, 0, len(names))
	for _, name := range names {
		r, err := OpenInput(ctx, name, stdin)
		if err != nil {
			for _, r := range rs {
				r.Close()
			}
			return nil, cmp.Or(ctx.Err(), err)
		}
		rs = append(rs, r)
	}
	return rs, nil
}
