package tty

import (
	"strings"

	"github.com/fatih/color"

	"github.com/whsim/whsim/internal/term"
)

// Colors is the style of a stream: whsim's colours when enabled (the
// stream is a terminal and colour was not turned off), none otherwise.
// It is the one colour system: diagnostics and reports alike.
func Colors(enabled bool) term.Style {
	if !enabled {
		return term.Style{}
	}
	return term.Style{
		OK: wrapOf(color.FgGreen), Warn: wrapOf(color.FgYellow), Fail: wrapOf(color.FgRed, color.Bold),
		Dim: wrapOf(color.Faint), Bold: wrapOf(color.Bold), Key: wrapOf(color.FgCyan),
	}
}

// wrapOf asks fatih/color once for the bytes it writes around a text in
// the colour: text built by appending then needs no fmt or allocation per
// coloured span, and the sequences stay the library's.
func wrapOf(attrs ...color.Attribute) term.Wrap {
	c := color.New(attrs...)
	c.EnableColor()
	pre, post, _ := strings.Cut(c.Sprint("|"), "|")
	return term.Wrap{Pre: pre, Post: post}
}
