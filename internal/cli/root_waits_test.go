package cli

import "testing"

// Main installs its signal handling for every run that may wait, and for
// none of the instant ones, --version alone included.
func TestWaits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--version"}, false},
		{[]string{"version"}, false},
		{[]string{"events"}, false},
		{[]string{"schema", "--format", "openapi"}, false},
		{[]string{"man", "--dir", "x"}, true}, // the whole tree, as help
		{[]string{"send", "--url", "http://127.0.0.1:9/"}, true},
		{[]string{"listen"}, true},
		{[]string{"validate", "-"}, true},
		{[]string{"generate"}, true},
		{[]string{"--version", "send"}, false}, // cobra prints the version
		{[]string{"help"}, true},
		{[]string{"bogus"}, true},
		{nil, true},
	} {
		if got := waits(commandNamed(tc.args)); got != tc.want {
			t.Errorf("waits(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
