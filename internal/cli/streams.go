package cli

import (
	"io"
	"os"

	"github.com/fatih/color"
	"golang.org/x/term"
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
