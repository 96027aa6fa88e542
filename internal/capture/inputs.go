package capture

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/shellcmd"
)

// PayloadsError says a file given as a capture holds plain payloads, and
// what to do with them instead.
type PayloadsError struct {
	Name string
	// Send is the command that sends them, when the caller knows where
	// (replay's --url, whose calls "whsim send --file" alone sent to
	// whsim's own receiver instead), and Before what to do before running
	// it; "" is whsim send --file Arg().
	Send, Before string
}

// Arg is the file as send --file's argument, as printed: one word that
// is no option, stdin as - ("<stdin>" was a redirect from a file "stdin").
func (e *PayloadsError) Arg() string {
	if e.Name == ctxio.InputName("-") {
		return "-"
	}
	return shellcmd.Path(e.Name)
}

func (e *PayloadsError) Error() string {
	send := e.Send
	if send == "" {
		send = "whsim send --file " + e.Arg()
	}
	before := ""
	if e.Before != "" {
		before = " (" + e.Before + ")"
	}
	return fmt.Sprintf("%s holds payloads, not captures: send them%s with %s", e.Name, before, send)
}

// Input is a capture file to replay and the name messages give it.
type Input struct {
	Name string
	R    io.Reader
	rd   *input.Reader // R's reader, when OpenInputs made it
}

// Reader is the input's reader: the one OpenInputs looked into, else a
// new one over R.
func (in Input) Reader() *input.Reader {
	if in.rd != nil {
		return in.rd
	}
	return input.NewReader(context.Background(), in.R, input.Options{Name: in.Name})
}

// OpenInputs opens every named capture file (ctxio.OpenAll: "-" is stdin)
// before any is read, so that a file that cannot be read stops a replay
// before anything is sent. A regular file is looked into at once
// (CheckInput) and read as far as it was long when opened; a pipe, when
// the replay reaches it. Any error names the file. closeAll closes them.
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
		in := Input{Name: ctxio.InputName(names[i]), R: r}
		var regular os.FileInfo
		if f, ok := r.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
				regular = fi
			}
		}
		if regular == nil {
			in.rd = input.NewReader(ctx, r, input.Options{Name: names[i]})
			ins = append(ins, in)
			continue
		}
		// A file is read as far as it was long when opened: records a
		// listen appends meanwhile (the very calls a replay into that
		// listen makes, among them) would otherwise be replayed in turn,
		// without end. A record being written at that moment reads as a
		// torn last line.
		held, err := heldWhenOpened(r, regular)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("%s: %w", in.Name, err)
		}
		in.rd = input.NewReader(ctx, held, input.Options{Name: names[i]})
		if err := CheckInput(in.Name, in.rd); err != nil {
			closeAll()
			return nil, nil, err
		}
		ins = append(ins, in)
	}
	return ins, closeAll, nil
}

// CheckInput says why an input cannot be read as captures: nil when it
// holds capture records or nothing; a *PayloadsError when it holds
// payloads; else what is wrong with it (not JSON, a line too large, a read
// error), named. It reads as far as the first item, which is lost.
func CheckInput(name string, rd *input.Reader) error {
	kind, err := rd.Kind()
	if err != nil {
		return input.Named(name, err)
	}
	if !kind.Payloads() {
		return nil
	}
	it, err := rd.Next()
	if err == nil {
		err = rd.Check(it)
	}
	if err != nil && err != io.EOF {
		return input.Named(name, err)
	}
	return &PayloadsError{Name: name}
}

// maxUnsized bounds what heldWhenOpened reads of a file that says it is
// empty: the files of /proc and /sys that do so hold a few pages.
const maxUnsized = 64 << 20

// heldWhenOpened is what the regular file r, whose stat is fi, held when
// opened: as much as it was long. A file that says 0 bytes is read to its
// end now instead: the files of /proc and /sys say 0 whatever they hold
// (/proc/self/status, a sysfs attribute), and read as empty they made
// replay say "is empty" of a file that holds text, or that cannot be read
// at all (/proc/self/mem); a capture that is truly empty reads empty at
// once, before any call could be appended to it. An error reading it is
// returned.
func heldWhenOpened(r io.Reader, fi os.FileInfo) (io.Reader, error) {
	if fi.Size() > 0 {
		return io.LimitReader(r, fi.Size()), nil
	}
	b, err := io.ReadAll(io.LimitReader(r, maxUnsized+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxUnsized {
		return nil, fmt.Errorf("says it holds 0 bytes but holds more than %d MiB", maxUnsized>>20)
	}
	return bytes.NewReader(b), nil
}
