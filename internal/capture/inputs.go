package capture

import (
	"context"
	"fmt"
	"io"
	"os"
)

// PayloadsError says a file given as a capture holds plain payloads, and
// what to do with them instead.
type PayloadsError struct{ Name string }

func (e *PayloadsError) Error() string {
	return fmt.Sprintf("%s holds payloads, not captures: send them with whsim send --file %s", e.Name, e.Name)
}

// OpenInputs opens every named capture file with open (which returns the
// name messages give it) before any is read, so that a file that cannot be
// read stops a replay before anything is sent. A file that holds payloads
// is a *PayloadsError; any other error is the file's. closeAll closes them.
func OpenInputs(ctx context.Context, names []string, open func(context.Context, string) (io.ReadCloser, string, error)) (ins []Input, closeAll func(), err error) {
	var opened []io.Closer
	closeAll = func() {
		for _, c := range opened {
			c.Close()
		}
	}
	for _, name := range names {
		r, shown, err := open(ctx, name)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		opened = append(opened, r)
		if f, ok := r.(*os.File); ok {
			plain, err := HoldsPayloads(f)
			if err != nil {
				closeAll()
				return nil, nil, fmt.Errorf("%s: %w", name, err)
			}
			if plain {
				closeAll()
				return nil, nil, &PayloadsError{Name: name}
			}
		}
		ins = append(ins, Input{Name: shown, R: r})
	}
	return ins, closeAll, nil
}
