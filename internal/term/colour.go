package term

import (
	"strings"

	"github.com/fatih/color"
)

// Colors is the style of a stream: whsim's colours when enabled (the
// stream is a terminal and colour was not turned off), none otherwise.
// It is the one colour system: diagnostics and reports alike.
func Colors(enabled bool) Style {
	if !enabled {
		return Style{}
	}
	return Style{
		OK: wrapOf(color.FgGreen), Warn: wrapOf(color.FgYellow), Fail: wrapOf(color.FgRed, color.Bold),
		Dim: wrapOf(color.Faint), Bold: wrapOf(color.Bold), Key: wrapOf(color.FgCyan),
	}
}

// wrapOf asks fatih/color once for the bytes it writes around a text in
// the colour: text built by appending then needs no fmt or allocation per
// coloured span, and the sequences stay the library's.
func wrapOf(attrs ...color.Attribute) Wrap {
	c := color.New(attrs...)
	c.EnableColor()
	pre, post, _ := strings.Cut(c.Sprint("|"), "|")
	return Wrap{Pre: pre, Post: post}
}

// Sprint returns s in the colour.
func (w Wrap) Sprint(s string) string {
	if w.Pre == "" && w.Post == "" {
		return s
	}
	return w.Pre + s + w.Post
}

// Enabled reports whether the style colours anything.
func (st Style) Enabled() bool { return st.OK.Pre != "" }
