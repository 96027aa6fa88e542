package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/cmdutil"
)

// TestHelpExamplesParse: every whsim command line in every command's
// Examples names flags the command has, with values of their type, as a
// user pasting it would run it: each is run with --help appended, which
// parses the flags and arguments and stops before doing anything. A
// renamed or removed flag, or a value it no longer takes (--duration 1m),
// fails here rather than in a user's terminal.
func TestHelpExamplesParse(t *testing.T) {
	t.Chdir(t.TempDir()) // no whsim.yaml from the developer's tree
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := newRootCmd(cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader("")}, Build{}, time.Now), "")
	n := 0
	for _, c := range append(liveCommands(t), root) {
		if c.HasParent() && c.Parent().Name() == "completion" {
			continue // cobra's own text
		}
		for _, line := range strings.Split(c.Example, "\n") {
			for _, args := range exampleCommands(line) {
				n++
				code, _, stderr := runCLI(t, append(args[1:], "--help")...)
				if code != 0 || stderr != "" {
					t.Errorf("%s: example %q: exit %d: %s", c.CommandPath(), strings.TrimSpace(line), code, stderr)
				}
			}
		}
	}
	if n < 80 {
		t.Errorf("%d whsim command lines in the examples, want every command's (80 or more)", n)
	}
}

// TestHelpExamplesQuoteGlobs: no example holds a ?, * or [ outside
// quotes. bash leaves an unmatched glob as typed, but zsh (macOS's shell)
// stops at it, "no matches found", so send's --url https://.../in?tenant=7
// did not run there as printed.
func TestHelpExamplesQuoteGlobs(t *testing.T) {
	root := newRootCmd(cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader("")}, Build{}, time.Now), "")
	for _, c := range append(liveCommands(t), root) {
		for _, line := range strings.Split(c.Example, "\n") {
			if at := unquotedGlob(line); at >= 0 {
				t.Errorf("%s: example %q: %q unquoted at byte %d", c.CommandPath(), strings.TrimSpace(line), line[at], at)
			}
		}
	}
	for line, want := range map[string]int{
		`  whsim send --url 'http://h/x?a=1'`:     -1,
		`  whsim send --url http://h/x?a=1`:       29,
		`  x > "${fpath[1]}/_whsim"  # a [note]?`: -1,
		`  jq 'select(.a == "b")' a\*`:            -1,
	} {
		if got := unquotedGlob(line); got != want {
			t.Errorf("unquotedGlob(%q) = %d, want %d", line, got, want)
		}
	}
}

// TestHelpProseKeepsCommandsWhole: a command line in a help's prose is
// not broken where its flags start. send's help wrapped its relay,
// "tail -f calls.ndjson | jq ... | whsim send" then "--file - passes on
// ...": pasted, the shell ran a whsim send without --file (to its own
// receiver) and then a command named --file. A line ending in a command
// (whsim, whsim send, ...) or a pipe, whose next starts with a flag, is
// such a break.
func TestHelpProseKeepsCommandsWhole(t *testing.T) {
	broken := regexp.MustCompile(`(?m)(\bwhsim(?: [a-z0-9]+)*|\|)[ \t]*\n[ \t]*-`)
	root := newRootCmd(cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader("")}, Build{}, time.Now), "")
	for _, c := range append(liveCommands(t), root) {
		if m := broken.FindStringIndex(c.Long); m != nil {
			t.Errorf("%s: its help breaks a command over two lines: %q", c.CommandPath(), c.Long[max(0, m[0]-60):min(len(c.Long), m[1]+20)])
		}
	}
}

// TestDocsQuoteURLGlobs: no command line of the README's and the docs'
// shell blocks (sh, bash, console after its prompt) holds a URL with a ?,
// * or [ outside quotes. concepts.md's inspector recipe "curl ...
// http://127.0.0.1:4040/api/stream?event=..." stopped in zsh (macOS's
// shell) at "no matches found", as the help's examples did (above). A
// glob in a word that is no URL (manpages/*.1) is meant as one.
func TestDocsQuoteURLGlobs(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range append(files, "../../README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lang, in := "", false
		for i, line := range strings.Split(string(b), "\n") {
			if fence, ok := strings.CutPrefix(strings.TrimSpace(line), "```"); ok {
				lang, in = fence, !in
				continue
			}
			cmd := strings.TrimSpace(line)
			switch {
			case !in:
				continue
			case lang == "console":
				// "$ whsim ...", "machine-1$ k6 run ...": the prompt's.
				_, after, ok := strings.Cut(cmd, "$ ")
				if !ok || strings.ContainsAny(cmd[:len(cmd)-len(after)-2], " '\"") {
					continue
				}
				cmd = after
			case lang != "sh" && lang != "bash":
				continue
			}
			n++
			for rest, off := cmd, 0; ; {
				at := unquotedGlob(rest)
				if at < 0 {
					break
				}
				at += off
				start := strings.LastIndexAny(cmd[:at], " \t") + 1
				if strings.Contains(cmd[start:at], "://") {
					t.Errorf("%s:%d: %q: a URL's %q unquoted at byte %d", f, i+1, cmd, cmd[at], at)
				}
				rest, off = cmd[at+1:], at+1
			}
		}
	}
	if n < 50 {
		t.Errorf("%d shell command lines in the docs, want the README's and docs/'s (50 or more)", n)
	}
}

// unquotedGlob is the offset of the first ?, * or [ of a shell line that
// is in no quotes, nor escaped, nor in its comment; -1 when there is none.
func unquotedGlob(line string) int {
	single, double := false, false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case single:
			single = ch != '\''
		case ch == '\\':
			i++
		case ch == '\'' && !double:
			single = true
		case ch == '"':
			double = !double
		case double:
		case ch == '#' && (i == 0 || line[i-1] == ' '):
			return -1
		case ch == '?' || ch == '*' || ch == '[':
			return i
		}
	}
	return -1
}

// exampleCommands are the whsim command lines of one example line as the
// shell splits them into words: each of a pipeline or list (|, &&, ;, &),
// up to a redirection or a comment. Quotes are removed; what the shell
// would expand ($KEY, $(cat f)) is left as written, one word.
func exampleCommands(line string) [][]string {
	var cmds [][]string
	var words []string
	var word strings.Builder
	inWord, stopped := false, false
	end := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	endCommand := func() {
		end()
		if len(words) > 0 && words[0] == "whsim" {
			cmds = append(cmds, words)
		}
		words, stopped = nil, false
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == '\'' && !stopped:
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case ch == '"' && !stopped:
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) {
					i++
				}
				word.WriteByte(line[i])
			}
			inWord = true
		case ch == ' ' || ch == '\t':
			end()
		case ch == '|' || ch == ';' || ch == '&':
			endCommand()
			if i+1 < len(line) && line[i+1] == ch {
				i++
			}
		case ch == '#' && !inWord, ch == '>' || ch == '<':
			end()
			stopped = true
		case !stopped:
			word.WriteByte(ch)
			inWord = true
		}
	}
	endCommand()
	return cmds
}

func TestExampleCommands(t *testing.T) {
	for line, want := range map[string][][]string{
		`  whsim events`: {{"whsim", "events"}},
		`  whsim send --url 'http://h/x?a=1&b=2' -H 'Authorization: Bearer t' > out.ndjson`: {{"whsim", "send", "--url", "http://h/x?a=1&b=2", "-H", "Authorization: Bearer t"}},
		`  whsim generate --event all | whsim validate --strict`:                            {{"whsim", "generate", "--event", "all"}, {"whsim", "validate", "--strict"}},
		`  whsim ready f --wait 10s && npm test`:                                            {{"whsim", "ready", "f", "--wait", "10s"}},
		`  whsim listen --ui-token "$(cat ~/.config/whsim/ui-token)" &`:                     {{"whsim", "listen", "--ui-token", "$(cat ~/.config/whsim/ui-token)"}},
		`  whsim anonymize a.ndjson --out fixtures/     # the key from WHSIM_ANONYMIZE_KEY`: {{"whsim", "anonymize", "a.ndjson", "--out", "fixtures/"}},
		`  whsim listen --output json | jq -c 'select(.verdict != "valid")'`:                {{"whsim", "listen", "--output", "json"}},
		`  whsim completion zsh > "${fpath[1]}/_whsim"`:                                     {{"whsim", "completion", "zsh"}},
		`  whsim generate --set 'data.收款单.汇率=7.1' --set a="b c"`:                            {{"whsim", "generate", "--set", "data.收款单.汇率=7.1", "--set", "a=b c"}},
	} {
		if got := exampleCommands(line); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("exampleCommands(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestRootHelpNamesEveryVerbose: whsim --help lists the commands where -v
// is --verbose; it left out check, which has it.
func TestRootHelpNamesEveryVerbose(t *testing.T) {
	var have []string
	for _, c := range liveCommands(t) {
		if f := c.LocalFlags().ShorthandLookup("v"); f != nil && f.Name == "verbose" {
			have = append(have, c.Name())
		}
	}
	start := strings.Index(rootLong, "-v is always --verbose (")
	if start < 0 {
		t.Fatal("whsim --help no longer says where -v is --verbose")
	}
	list, _, _ := strings.Cut(rootLong[start+len("-v is always --verbose ("):], ")")
	said := strings.Split(list, ", ")
	slices.Sort(have)
	slices.Sort(said)
	if !slices.Equal(have, said) {
		t.Errorf("whsim --help says -v is --verbose in %q; the commands with it are %q", said, have)
	}
}
