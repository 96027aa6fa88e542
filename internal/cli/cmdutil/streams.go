package cmdutil

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/term/tty"
)

// Streams are the standard streams of one run; tests pass buffers.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// InTTY, OutTTY and ErrTTY say whether In, Out and Err are terminals.
	InTTY, OutTTY, ErrTTY bool
}

// OSStreams returns the process's standard streams.
func OSStreams() Streams {
	term := os.Getenv("TERM")
	return Streams{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		InTTY:  tty.Is(os.Stdin),
		OutTTY: drawsOn(tty.Is(os.Stdout), term),
		ErrTTY: drawsOn(tty.Is(os.Stderr), term),
	}
}

// drawsOn says whether output to a stream may draw as on a terminal
// (colour, a progress line redrawn with escape sequences): a terminal
// whose TERM is not dumb. Emacs' M-x compile and shell, and some CI log
// viewers, are terminals that say TERM=dumb and show the escapes as text.
func drawsOn(isTTY bool, term string) bool { return isTTY && term != "dumb" }

// OutputLost says whether err is a failed write to s.Out or s.Err (a full
// disk, an I/O error): whsim could not give its output, which says nothing
// of what it checked, so the run could not be done (exit 2), not failed.
func (s Streams) OutputLost(err error) bool {
	pe, ok := errors.AsType[*fs.PathError](err)
	if !ok || pe.Op != "write" {
		return false
	}
	for _, w := range []io.Writer{s.Out, s.Err} {
		if f, ok := w.(*os.File); ok && f.Name() == pe.Path {
			return true
		}
	}
	return false
}

// Style is how reports on a stream coloured by pal look.
func Style(pal term.Style, verbose bool) term.Style {
	pal.Verbose = verbose
	return pal
}

// IsInputError reports whether err is an input holding what a command
// cannot read (input.SyntaxError, TooLargeError, FormatError): the user's
// to fix, exit 2.
func IsInputError(err error) bool {
	_, syn := errors.AsType[*input.SyntaxError](err)
	_, big := errors.AsType[*input.TooLargeError](err)
	_, format := errors.AsType[*input.FormatError](err)
	return syn || big || format
}
