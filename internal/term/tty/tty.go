// Package tty is the terminal side of term: whether a stream is a terminal
// and the colours to write there (fatih/color), kept apart from package term
// so the packages whose reports term renders link no terminal library.
package tty

import (
	"os"

	"golang.org/x/term"
)

// Is reports whether f is a terminal.
func Is(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
