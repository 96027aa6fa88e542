package capture

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/whsim/whsim/internal/ctxio"
)

// PayloadsError says a file given as a capture holds plain payloads, and
// what to do with them instead.
type PayloadsError struct{ Name string }

func (e *PayloadsError) Error() string {
	return fmt.Sprintf("%s holds payloads, not captures: send them with whsim send --file %s", e.Name, e.Name)
}

// OpenInputs opens every named capture file (ctxio.OpenAll: "-" is stdin)
// before any is read, so that a file that cannot be read stops a replay
// before anything is sent. A file that holds payloads is a *PayloadsError;
// any other error names the file. closeAll closes them.
func OpenInputs(ctx context.Context, names []string, stdin io.Reader) (ins []Input, closeAll func(), err error) {
	rs, err := ctxio.OpenAll(ctx, names, stdin)
	if err != nil {
		return nil, nil, err
	}
	closeAll = func() {
		for _, r := range rs {
			r.Close()
		}
	}
	for i, r := range rs {
		if f, ok := r.(*os.File); ok {
			plain, err := HoldsPayloads(f)
			if err != nil {
				closeAll()
				return nil, nil, fmt.Errorf("%s: %w", names[i], err)
			}
			if plain {
				closeAll()
				return nil, nil, &PayloadsError{Name: names[i]}
			}
		}
		ins = append(ins, Input{Name: ctxio.InputName(names[i]), R: r})
	}
	return ins, closeAll, nil
}
