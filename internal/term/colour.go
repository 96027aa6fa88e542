package term

// Sprint returns s in the colour.
func (w Wrap) Sprint(s string) string {
	if w.Pre == "" && w.Post == "" {
		return s
	}
	return w.Pre + s + w.Post
}

// Enabled reports whether the style colours anything.
func (st Style) Enabled() bool { return st.OK.Pre != "" }
