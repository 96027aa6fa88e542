package tty

import "github.com/whsim/whsim/internal/term"

// Colors is the style of a stream: whsim's colours when enabled (the
// stream is a terminal and colour was not turned off), none otherwise.
// It is the one colour system: diagnostics and reports alike.
//
// The sequences are the ones fatih/color wrote (colour_test.go keeps them
// byte for byte), written out: six constant strings did not need the
// library, whose init looked at stdout on every start, whsim --version
// included (#35).
func Colors(enabled bool) term.Style {
	if !enabled {
		return term.Style{}
	}
	return term.Style{
		OK:   term.Wrap{Pre: "\x1b[32m", Post: "\x1b[0m"},
		Warn: term.Wrap{Pre: "\x1b[33m", Post: "\x1b[0m"},
		Fail: term.Wrap{Pre: "\x1b[31;1m", Post: "\x1b[0;22m"},
		Dim:  term.Wrap{Pre: "\x1b[2m", Post: "\x1b[22m"},
		Bold: term.Wrap{Pre: "\x1b[1m", Post: "\x1b[22m"},
		Key:  term.Wrap{Pre: "\x1b[36m", Post: "\x1b[0m"},
	}
}
