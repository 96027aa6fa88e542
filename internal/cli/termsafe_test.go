package cli

import (
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/termsafe"
)

// assertTermSafe fails when out holds anything a terminal would act on.
func assertTermSafe(t *testing.T, what, out string) {
	t.Helper()
	if termsafe.Lines(out) != out {
		t.Errorf("%s is not terminal-safe:\n%q", what, out)
	}
}

// Errors from outside (here a URL a user pasted with a control character)
// are printed terminal-safe.
func TestErrorsTerminalSafe(t *testing.T) {
	t.Chdir(t.TempDir())
	code, _, stderr := runCLI(t, "send", "--url", "http://x/\x1b]0;title\x07\u202e", "--event", "CREATE_RECEIVABLE_DOC")
	if code != 2 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	assertTermSafe(t, "stderr", stderr)
}

// An unknown command's suggestion is one line, in our style.
func TestErrorsKeepCobraLayout(t *testing.T) {
	_, _, stderr := runCLI(t, "genrate")
	if !strings.Contains(stderr, `whsim: unknown command "genrate" (did you mean "generate"?)`+"\n") {
		t.Errorf("stderr %q", stderr)
	}
}
