package tty

import (
	"testing"

	"github.com/whsim/whsim/internal/term"
)

// The colours are the bytes fatih/color writes, as before term:
// scripts and eyes that know whsim's output see the same sequences.
func TestColors(t *testing.T) {
	on := Colors(true)
	for _, c := range []struct {
		w    term.Wrap
		want string
	}{
		{on.OK, "\x1b[32mX\x1b[0m"},
		{on.Warn, "\x1b[33mX\x1b[0m"},
		{on.Fail, "\x1b[31;1mX\x1b[0;22m"},
		{on.Dim, "\x1b[2mX\x1b[22m"},
		{on.Bold, "\x1b[1mX\x1b[22m"},
		{on.Key, "\x1b[36mX\x1b[0m"},
		{Colors(false).Fail, "X"},
	} {
		if got := c.w.Sprint("X"); got != c.want {
			t.Errorf("Sprint = %q, want %q", got, c.want)
		}
	}
	if !on.Enabled() || Colors(false).Enabled() {
		t.Error("Enabled is wrong")
	}
}
