package term

// The SGR sequences of the colours whsim uses: each colour opens with its
// attribute and closes with the reset of that attribute alone (22 ends
// bold and faint), so a colour never ends another one around it.
var (
	green  = Wrap{"\x1b[32m", "\x1b[0m"}
	yellow = Wrap{"\x1b[33m", "\x1b[0m"}
	redB   = Wrap{"\x1b[31;1m", "\x1b[0;22m"}
	faint  = Wrap{"\x1b[2m", "\x1b[22m"}
	bold   = Wrap{"\x1b[1m", "\x1b[22m"}
	cyan   = Wrap{"\x1b[36m", "\x1b[0m"}
)

// Colors is the style of a stream: whsim's colours when enabled (the
// stream is a terminal and colour was not turned off), none otherwise.
// It is the one colour system: diagnostics and reports alike.
func Colors(enabled bool) Style {
	if !enabled {
		return Style{}
	}
	return Style{OK: green, Warn: yellow, Fail: redB, Dim: faint, Bold: bold, Key: cyan}
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
