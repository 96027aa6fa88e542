package sendcmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/shellcmd"
)

// payloadSource reads the payloads of one input, each a JSON value of at
// most input.Max bytes; capture records are replay's.
type payloadSource struct {
	r     io.Closer
	rd    *input.Reader
	shown string
	// readCtx is what its reads give way to (a stream's, which --duration
	// ends).
	readCtx context.Context
}

// openPayloads opens the input name ("-": stdin) and reads as far as
// needed to tell what it holds. The error names the input; of captures,
// it says to replay them with replay, the replay command that sends them
// where this send was to (given the file as its argument), and what to
// do before running it.
func openPayloads(ctx context.Context, name string, stdin io.Reader, replay func(arg string) (cmd, before string)) (*payloadSource, error) {
	r, err := ctxio.OpenInput(ctx, name, stdin)
	if err != nil {
		return nil, err
	}
	shown := ctxio.InputName(name)
	rd := input.NewReader(ctx, r, input.Options{Name: name})
	kind, err := rd.Kind()
	if err == nil && kind == input.Captures {
		// replay reads stdin as "-" (not as "<stdin>", the name shown)
		// and needs --url, as its usage line says.
		arg := shellcmd.Path(name)
		if name == "" || name == "-" {
			arg = "-"
		}
		cmd, before := replay(arg)
		if cmd == "" { // a send to its own receiver: replay has none
			cmd = "whsim replay " + arg + " --url <url>"
		}
		if before != "" {
			before = " (" + before + ")"
		}
		err = fmt.Errorf("%s holds capture records, not payloads: replay them%s with %s", shown, before, cmd)
	} else if err != nil {
		err = input.Named(shown, err)
	}
	if err != nil {
		r.Close()
		return nil, err
	}
	return &payloadSource{r: r, rd: rd, shown: shown}, nil
}

// jsonSpace is JSON's white space (RFC 8259): space, tab, CR and LF.
const jsonSpace = " \t\r\n"

// next is the next payload, io.EOF at the end; an error names the input
// and the payload.
func (s *payloadSource) next() (load.Payload, error) {
	it, err := s.rd.Next()
	if err == io.EOF {
		return load.Payload{}, io.EOF
	}
	if err == nil {
		err = s.rd.Check(it)
	}
	if err != nil {
		return load.Payload{}, input.Named(s.shown, err)
	}
	where := ""
	if it.Element >= 0 || it.Line > 0 {
		where = it.What()
	}
	body := it.Body
	if kind, _ := s.rd.Kind(); kind == input.Document {
		// A pretty-printed document is the reader's whole file, the
		// blank lines around the value and the file's last newline
		// with it (the reader places findings by them): no part of the
		// JSON value, and not sent, as an array's elements are not.
		body = bytes.Trim(body, jsonSpace)
	}
	return load.Payload{Body: bytes.Clone(body), Where: where}, nil
}

func (s *payloadSource) close() { s.r.Close() }

// readPayloads reads every payload of the input name ("-": stdin). The
// error names the input.
func readPayloads(ctx context.Context, name string, stdin io.Reader, replay func(arg string) (cmd, before string)) ([]load.Payload, error) {
	src, err := openPayloads(ctx, name, stdin, replay)
	if err != nil {
		return nil, err
	}
	defer src.close()
	var out []load.Payload
	for {
		p, err := src.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
}

// isStream says whether the input name ("-": stdin) is read as it comes
// (a pipe, a FIFO, a terminal, a socket) rather than a regular file,
// whose end is there to read at once.
func isStream(name string, stdin io.Reader) bool {
	if name != "-" {
		fi, err := os.Stat(name)
		return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
	}
	f, ok := stdin.(*os.File)
	if !ok {
		return true
	}
	fi, err := f.Stat()
	return err != nil || !fi.Mode().IsRegular()
}
