// Package tty says whether a stream is a terminal: the one importer of
// golang.org/x/term, kept apart from package term so the packages whose
// reports term renders do not link a terminal library.
package tty

import (
	"os"

	"golang.org/x/term"
)

// Is reports whether f is a terminal.
func Is(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
