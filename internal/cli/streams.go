package cli

import (
	"errors"
	"io"
	"os"
	"strings"

	"github.com/fatih/color"
	"golang.org/x/term"

	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/report"
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
	return Streams{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		InTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// Palette colours diagnostics on one stream. Its colours are decided once
// per stream, never by flipping color.NoColor, which looks at stdout only.
type Palette struct {
	Enabled                        bool
	OK, Warn, Fail, Dim, Bold, Key *color.Color
}

func newPalette(enabled bool) Palette {
	mk := func(attrs ...color.Attribute) *color.Color {
		c := color.New(attrs...)
		if enabled {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
		return c
	}
	return Palette{
		Enabled: enabled,
		OK:      mk(color.FgGreen),
		Warn:    mk(color.FgYellow),
		Fail:    mk(color.FgRed, color.Bold),
		Dim:     mk(color.Faint),
		Bold:    mk(color.Bold),
		Key:     mk(color.FgCyan),
	}
}

// wrapOf is a colour as the text around what it colours, worked out once:
// text built by appending needs no fmt.
func wrapOf(c interface{ Sprint(...any) string }) report.Wrap {
	pre, post, _ := strings.Cut(c.Sprint("\x00"), "\x00")
	return report.Wrap{Pre: pre, Post: post}
}

// style is how reports on a stream coloured by pal look.
func style(pal Palette, verbose bool) report.Style {
	return report.Style{
		OK: wrapOf(pal.OK), Warn: wrapOf(pal.Warn), Fail: wrapOf(pal.Fail),
		Dim: wrapOf(pal.Dim), Bold: wrapOf(pal.Bold), Key: wrapOf(pal.Key),
		Verbose: verbose,
	}
}

// isInputError reports whether err is an input holding what a command
// cannot read (input.SyntaxError, TooLargeError, FormatError): the user's
// to fix, exit 2.
func isInputError(err error) bool {
	_, syn := errors.AsType[*input.SyntaxError](err)
	_, big := errors.AsType[*input.TooLargeError](err)
	_, format := errors.AsType[*input.FormatError](err)
	return syn || big || format
}
