package cli

import (
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/cli/cmdutil"
)

// A flag error says what was meant and which help to read, in words.
func TestFlagErrorsHelp(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	tests := []struct {
		args []string
		want []string
		not  string
	}{
		{[]string{"generate", "--coutn", "3"}, []string{"unknown flag: --coutn (did you mean --count?)", "Run 'whsim generate --help' for usage."}, ""},
		{[]string{"send", "--urll", "http://x"}, []string{"(did you mean --url?)", "Run 'whsim send --help'"}, ""},
		{[]string{"generate", "--zzzzzz"}, []string{"unknown flag: --zzzzzz\n"}, "did you mean"},
		{[]string{"generate", "--seed", "-3"}, []string{`invalid argument "-3" for "--seed": want a whole number, 0 or more`}, "strconv"},
		{[]string{"generate", "-n", "x"}, []string{`invalid argument "x" for "--count": want a whole number`}, "strconv"},
		// pflag reads integers in any base: 010 was 8, 0x10 16, 1_0 10.
		{[]string{"generate", "-n", "0x10"}, []string{`invalid argument "0x10" for "--count": not a decimal number: want a whole number such as 10`}, "strconv"},
		{[]string{"generate", "--seed", "1_0"}, []string{`invalid argument "1_0" for "--seed": not a decimal number`}, "strconv"},
		{[]string{"send", "--rate", "0x1p4"}, []string{`invalid argument "0x1p4" for "--rate": not a decimal number: want digits with an optional point, such as 200 or 0.5`}, "strconv"},
		{[]string{"send", "--timeout", "soon"}, []string{`for "--timeout": want a duration`}, "time:"},
		{[]string{"generate", "--event", "create_recievable_doc"}, []string{`unknown event "create_recievable_doc" (did you mean "CREATE_RECEIVABLE_DOC"?)`}, ""},
		{[]string{"validate", "--ignore", "line-taks"}, []string{`--ignore: unknown rule "line-taks" (did you mean "line-tax"?)`}, ""},
		{[]string{"nope"}, []string{"Run 'whsim --help' for usage."}, ""},
		// A comma-separated list read as CSV keeps its first line only:
		// "accepts-valid\nlatency" (args: | of the Action, a quoted list
		// over two lines) ran accepts-valid alone, and an excluded check
		// after the break ran. A line break is refused, not cut at.
		{[]string{"check", "--url", "http://127.0.0.1:1/hook", "--checks", "accepts-valid\nlatency"}, []string{`for "--checks" flag: a line break in a comma-separated list`}, ""},
		{[]string{"check", "--url", "http://127.0.0.1:1/hook", "--exclude-checks", "load,\r\nlatency"}, []string{`for "--exclude-checks" flag: a line break`}, ""},
		{[]string{"check", "--url", "http://127.0.0.1:1/hook", "--exclude-cases", "*/sample\nnulls"}, []string{`for "--exclude-cases" flag: a line break`}, ""},
		{[]string{"generate", "--event", "CREATE_RECEIVABLE_DOC\nABANDON_RECEIVABLE_DOC"}, []string{`--event" flag: a line break`}, ""},
		{[]string{"validate", "--ignore", "line-tax\nline-sum"}, []string{`for "--ignore" flag: a line break`}, ""},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, tt.args...)
		if code != cmdutil.ExitUsage {
			t.Errorf("%q: exit %d, want %d", tt.args, code, cmdutil.ExitUsage)
		}
		for _, w := range tt.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%q: stderr %q, want %q", tt.args, stderr, w)
			}
		}
		if tt.not != "" && strings.Contains(stderr, tt.not) {
			t.Errorf("%q: stderr %q holds %q", tt.args, stderr, tt.not)
		}
	}
}
