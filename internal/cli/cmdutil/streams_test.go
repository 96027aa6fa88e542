package cmdutil

import "testing"

// A terminal that says TERM=dumb gets what a pipe gets: no colour and no
// progress line redrawn with \r\x1b[K, which it would show as text.
func TestDrawsOn(t *testing.T) {
	tests := []struct {
		tty  bool
		term string
		want bool
	}{
		{true, "xterm-256color", true},
		{true, "", true},
		{true, "dumb", false},
		{false, "xterm-256color", false},
		{false, "dumb", false},
	}
	for _, tt := range tests {
		if got := drawsOn(tt.tty, tt.term); got != tt.want {
			t.Errorf("drawsOn(%v, %q) = %v, want %v", tt.tty, tt.term, got, tt.want)
		}
	}
}
