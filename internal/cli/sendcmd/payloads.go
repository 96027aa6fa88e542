package sendcmd

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/load"
)

// readPayloads reads every payload of the input name ("-": stdin), each a
// JSON value of at most input.Max bytes; capture records are replay's.
// The error names the input.
func readPayloads(ctx context.Context, name string, stdin io.Reader) ([]load.Payload, error) {
	r, err := ctxio.OpenInput(ctx, name, stdin)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	shown := ctxio.InputName(name)
	rd := input.NewReader(ctx, r, input.Options{Name: name})
	kind, err := rd.Kind()
	if err != nil {
		return nil, input.Named(shown, err)
	}
	if kind == input.Captures {
		return nil, fmt.Errorf("%s holds capture records, not payloads: replay them with whsim replay %s", shown, shown)
	}
	var out []load.Payload
	for {
		it, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err == nil {
			err = rd.Check(it)
		}
		if err != nil {
			return nil, input.Named(shown, err)
		}
		where := ""
		if it.Element >= 0 || it.Line > 0 {
			where = it.What()
		}
		out = append(out, load.Payload{Body: bytes.Clone(it.Body), Where: where})
	}
}
