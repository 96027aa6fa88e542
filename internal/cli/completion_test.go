package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/whsim/whsim/internal/buildinfo"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/cli/mancmd"
	"github.com/whsim/whsim/internal/spec"
)

// complete asks the live command tree what a shell would get for args, the
// way the generated scripts do, and returns the values (descriptions cut)
// and the directive.
func complete(t *testing.T, args ...string) (values []string, directive string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{cobra.ShellCompRequestCmd}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d: %s", args, code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	directive = lines[len(lines)-1]
	for _, l := range lines[:len(lines)-1] {
		values = append(values, strings.SplitN(l, "\t", 2)[0])
	}
	return values, directive
}

// The directives cobra prints after the values.
const (
	dirNoFileComp = ":4"
	dirFileExt    = ":8"
)

// liveCommands is every command a user can run, including those other
// branches add: the tests below hold for all of them.
func liveCommands(t *testing.T) []*cobra.Command {
	t.Helper()
	root := newRootCmd(cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader("")}, Build{}, time.Now), "")
	var out []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() {
				out = append(out, sub)
				walk(sub)
			}
		}
	}
	walk(root)
	return out
}

// path is the arguments that reach c: "completion bash" for whsim completion bash.
func path(c *cobra.Command) []string {
	return strings.Fields(strings.TrimPrefix(c.CommandPath(), "whsim "))
}

func TestCompleteCommands(t *testing.T) {
	got, dir := complete(t, "")
	for _, want := range []string{"events", "generate", "version", "completion", "man"} {
		if !slices.Contains(got, want) {
			t.Errorf("__complete '': %q missing from %q", want, got)
		}
	}
	if dir != dirNoFileComp {
		t.Errorf("directive %s, want %s", dir, dirNoFileComp)
	}
}

// TestCompleteEvents: every command with --event offers the catalog's
// event names and "all", and no files.
func TestCompleteEvents(t *testing.T) {
	want := append(spec.EventNames(), spec.AllEvents)
	n := 0
	for _, c := range liveCommands(t) {
		if c.Flags().Lookup("event") == nil {
			continue
		}
		n++
		for _, flag := range []string{"--event", "-e"} {
			if flag == "-e" && c.Flags().ShorthandLookup("e") == nil {
				continue
			}
			args := append(path(c), flag, "")
			got, dir := complete(t, args...)
			// validate and send may leave "all" out; the four names must be there.
			for _, w := range want[:len(want)-1] {
				if !slices.Contains(got, w) {
					t.Errorf("__complete %s: %q missing from %q", strings.Join(args, " "), w, got)
				}
			}
			if dir != dirNoFileComp {
				t.Errorf("__complete %s: directive %s, want %s", strings.Join(args, " "), dir, dirNoFileComp)
			}
		}
	}
	if n == 0 {
		t.Fatal("no command has --event")
	}
}

func TestCompleteShapes(t *testing.T) {
	for _, c := range liveCommands(t) {
		if c.Flags().Lookup("shape") == nil {
			continue
		}
		args := append(path(c), "--shape", "")
		got, dir := complete(t, args...)
		for _, w := range spec.ShapeNames() {
			if !slices.Contains(got, w) {
				t.Errorf("__complete %s: %q missing from %q", strings.Join(args, " "), w, got)
			}
		}
		if dir != dirNoFileComp {
			t.Errorf("__complete %s: directive %s", strings.Join(args, " "), dir)
		}
	}
}

// TestCompleteOutput: every --output offers exactly the formats its help
// names (cmdutil.AddOutputFlag keeps the two together).
func TestCompleteOutput(t *testing.T) {
	n := 0
	for _, c := range liveCommands(t) {
		f := c.Flags().Lookup("output")
		if f == nil {
			continue
		}
		n++
		_, list, ok := strings.Cut(f.Usage, ": ")
		if !ok {
			t.Errorf("%s --output: usage %q does not list the formats", c.CommandPath(), f.Usage)
			continue
		}
		args := append(path(c), "--output", "")
		got, dir := complete(t, args...)
		if want := strings.Split(list, "|"); !slices.Equal(got, want) {
			t.Errorf("__complete %s: %q, want %q", strings.Join(args, " "), got, want)
		}
		if dir != dirNoFileComp {
			t.Errorf("__complete %s: directive %s", strings.Join(args, " "), dir)
		}
	}
	if n == 0 {
		t.Fatal("no command has --output")
	}
}

// TestCompletePayloadFiles: the commands that read payloads and captures
// through one reader (validate, replay, inspect, anonymize, send --file)
// complete the files it reads: .json, and .ndjson and .jsonl, which it
// reads as NDJSON whatever their first line. It checks them on the live
// tree once they exist, and the helper on a stand-in command always.
func TestCompletePayloadFiles(t *testing.T) {
	want := []string{"json", "ndjson", "jsonl"}
	for _, c := range liveCommands(t) {
		var args []string
		switch c.Name() {
		case "validate", "replay", "inspect", "anonymize":
			args = []string{c.Name(), ""}
		case "send":
			args = []string{c.Name(), "--file", ""}
		default:
			continue
		}
		got, dir := complete(t, args...)
		if !slices.Equal(got, want) || dir != dirFileExt {
			t.Errorf("__complete %s: %q %s, want %q with %s (cmdutil.CompletePayloadFiles)", strings.Join(args, " "), got, dir, want, dirFileExt)
		}
	}

	stand := &cobra.Command{Use: "x", ValidArgsFunction: cmdutil.CompletePayloadFiles, Run: func(*cobra.Command, []string) {}}
	root := &cobra.Command{Use: "whsim"}
	root.AddCommand(stand)
	var out strings.Builder
	root.SetOut(&out)
	root.SetErr(&strings.Builder{})
	root.SetArgs([]string{cobra.ShellCompRequestCmd, "x", ""})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "json\nndjson\njsonl\n"+dirFileExt+"\n" {
		t.Errorf("completePayloadFiles: %q", got)
	}
}

// TestHelpFollowsDesign checks every command's help the way design.md asks:
// Use starts with the command's name, a one-line Short, and Example lines
// that start with whsim. Commands cobra adds (completion's shells) are
// cobra's own text and are left alone.
func TestHelpFollowsDesign(t *testing.T) {
	for _, c := range liveCommands(t) {
		if c.HasParent() && c.Parent().Name() == "completion" {
			continue
		}
		name := c.CommandPath()
		if f := strings.Fields(c.Use); len(f) == 0 || f[0] != c.Name() {
			t.Errorf("%s: Use %q", name, c.Use)
		}
		if c.Short == "" || strings.Contains(c.Short, "\n") || strings.HasSuffix(c.Short, ".") {
			t.Errorf("%s: Short %q: want one line without a full stop", name, c.Short)
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s: no Example", name)
		}
		for _, line := range strings.Split(c.Example, "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "whsim ") {
				t.Errorf("%s: Example line %q does not start with whsim", name, line)
			}
		}
	}
}

// TestHelpExamplesMakeTheirDirectories: an example that writes into a
// directory under ~ (completion bash > ~/.local/share/bash-completion/
// completions/whsim) fails with "No such file or directory" on an account
// that never made it, as a fresh one has not: the command's help says to
// make it first.
func TestHelpExamplesMakeTheirDirectories(t *testing.T) {
	redirect := regexp.MustCompile(`>>? *(~/\S+)/[^/\s]+`)
	for _, c := range liveCommands(t) {
		// The long help's commands too: cobra's own for each shell
		// (completion fish > ~/.config/fish/completions/whsim.fish).
		for _, line := range strings.Split(c.Example+"\n"+c.Long, "\n") {
			for _, m := range redirect.FindAllStringSubmatch(line, -1) {
				if want := "mkdir -p " + m[1]; !strings.Contains(c.Long, want) {
					t.Errorf("%s: example %q writes into %s, and its help does not say %q", c.CommandPath(), strings.TrimSpace(line), m[1], want)
				}
			}
		}
	}
}

func TestVersion(t *testing.T) {
	_, flag, _ := runCLI(t, "--version")
	code, text, stderr := runCLI(t, "version")
	if code != 0 || text != flag || stderr != "" {
		t.Errorf("version: exit %d, %q (stderr %q), want the same as --version %q", code, text, stderr, flag)
	}
	code, out, _ := runCLI(t, "version", "--output", "json")
	var got buildinfo.Info
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
		t.Fatalf("version --output json: exit %d, %q: %v", code, out, err)
	}
	if got.Version != "v1.2.3" || got.Commit != "abc" || got.Date != "2026-11-22" || !strings.HasPrefix(got.Go, "go") || got.OS == "" || got.Arch == "" {
		t.Errorf("version --output json: %+v", got)
	}
	if strings.Count(out, "\n") != 1 {
		t.Errorf("version --output json: want one line, got %q", out)
	}
}

func TestMan(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man")
	code, stdout, stderr := runCLI(t, "man", "--dir", dir)
	if code != 0 || stdout != "" || !strings.Contains(stderr, "man pages to "+dir) {
		t.Fatalf("man: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	want := []string{"whsim.1"}
	for _, c := range liveCommands(t) {
		want = append(want, mancmd.PageName(c)+".1")
	}
	slices.Sort(want)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, want) {
		t.Errorf("pages %q, want %q", got, want)
	}
	page, err := os.ReadFile(filepath.Join(dir, "whsim-generate.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		`.TH "WHSIM-GENERATE" "1" "2026-11-22" "whsim v1.2.3" "whsim manual"`,
		`whsim\-generate \- Print realistic payloads for events`,
		`\fB\-e\fR, \fB\-\-event\fR \fIstrings\fR`,
		`whsim generate \-\-event CREATE_RECEIVABLE_DOC`,
		`\fBwhsim\fR(1)`,
	} {
		if !strings.Contains(string(page), w) {
			t.Errorf("whsim-generate.1 lacks %q:\n%s", w, page)
		}
	}

	if code, _, stderr := runCLI(t, "man"); code != cmdutil.ExitUsage || !strings.HasPrefix(stderr, "whsim man: --dir is required: ") {
		t.Errorf("man without --dir: exit %d, %q", code, stderr)
	}
}

// TestReferenceUpToDate fails when docs/reference.md is not what the
// commands' help generates: a help text changed without the reference.
// Regenerate with: go run ./cmd/whsim man --format markdown --dir docs
func TestReferenceUpToDate(t *testing.T) {
	dir := t.TempDir()
	if code, stdout, stderr := runCLI(t, "man", "--format", "markdown", "--dir", dir); code != 0 || stdout != "" {
		t.Fatalf("man --format markdown: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	got, err := os.ReadFile(filepath.Join(dir, mancmd.ReferenceFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("..", "..", "docs", mancmd.ReferenceFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/%s is stale: run go run ./cmd/whsim man --format markdown --dir docs", mancmd.ReferenceFile)
	}
	if code, _, stderr := runCLI(t, "man", "--format", "html", "--dir", dir); code != cmdutil.ExitUsage || !strings.Contains(stderr, "want man or markdown") {
		t.Errorf("man --format html: exit %d, %q", code, stderr)
	}
}

// TestCompleteListFlags: a flag that takes a comma-separated list completes
// its next name after a comma too. The shell's word is then "a,", so only
// candidates that start with it are offered: "a,b" for each b not given yet.
func TestCompleteListFlags(t *testing.T) {
	n := 0
	for _, c := range liveCommands(t) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() != "stringSlice" {
				return
			}
			if _, ok := c.GetFlagCompletionFunc(f.Name); !ok {
				return
			}
			args := append(path(c), "--"+f.Name)
			first, _ := complete(t, append(args, "")...)
			if len(first) < 2 {
				t.Errorf("__complete %s '': %q, want at least two names", strings.Join(args, " "), first)
				return
			}
			n++
			typed := first[0] + ","
			got, dir := complete(t, append(args, typed)...)
			var want []string
			for _, name := range first[1:] {
				if name != spec.AllEvents {
					want = append(want, typed+name)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("__complete %s %s: %q, want %q", strings.Join(args, " "), typed, got, want)
			}
			if dir != dirNoFileComp {
				t.Errorf("__complete %s %s: directive %s", strings.Join(args, " "), typed, dir)
			}
			// Two names typed: neither is offered again.
			typed2 := typed + first[1] + ","
			got2, _ := complete(t, append(args, typed2)...)
			for _, g := range got2 {
				if !strings.HasPrefix(g, typed2) || g == typed2+first[0] || g == typed2+first[1] {
					t.Errorf("__complete %s %s: offers %q", strings.Join(args, " "), typed2, g)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no list flag completes")
	}
}

// TestBashScriptMatchesTyped: the bash script offers a described candidate
// that starts with the word as typed, not only as printf %q escapes it
// (after "--event A," the comma). A cobra whose script no longer holds the
// line writeBashScript replaces fails here, before anyone ships it
// (completion_bash.txtar runs the script itself in bash).
func TestBashScriptMatchesTyped(t *testing.T) {
	for _, args := range [][]string{{"completion", "bash"}, {"completion", "bash", "--no-descriptions"}} {
		code, script, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		if strings.Contains(script, bashMatchEscaped) || strings.Count(script, bashMatchEither) != 1 {
			t.Errorf("%q: want the line %q once in place of %q", args, bashMatchEither, bashMatchEscaped)
		}
	}
}

// TestFishScriptFiltersByExtension: the fish script filters a file
// argument by the extensions the command reads, in place of the block of
// cobra's that gave up and offered every file. A cobra whose script no
// longer holds that block fails here, before anyone ships it
// (completion_fish.txtar runs the script itself in fish).
func TestFishScriptFiltersByExtension(t *testing.T) {
	for _, args := range [][]string{{"completion", "fish"}, {"completion", "fish", "--no-descriptions"}} {
		code, script, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		if strings.Contains(script, fishFilterGivenUp) || strings.Count(script, fishFilterByExt) != 1 {
			t.Errorf("%q: want the block %q once in place of %q", args, fishFilterByExt, fishFilterGivenUp)
		}
	}
}

// fileFlags are the flags whose value is a file or a directory (or a
// command, which may be a script's path): the only ones whose completion
// may be the shell's own, the working directory's files. Every other flag
// offers its values, or nothing.
var fileFlags = []string{"config", "out", "capture", "ready-file", "probe-cmd"}

// TestCompleteNoFilesForValues: a flag whose value is never a file (a URL,
// an address, a header, a secret, a size, a path of the receiver, a
// --set expression, a number or a duration) offers no files, in every
// command: --url offered the working directory's files (found by ux44).
// The sweep covers every flag of every command, so that a new one is
// decided, not left to the shell's default.
func TestCompleteNoFilesForValues(t *testing.T) {
	n := 0
	for _, c := range liveCommands(t) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "bool" || slices.Contains(fileFlags, f.Name) {
				return
			}
			n++
			args := append(path(c), "--"+f.Name, "")
			if _, dir := complete(t, args...); dir == ":0" {
				t.Errorf("__complete %s: directive %s, the shell's files; want %s (or values of its own)", strings.Join(args, " "), dir, dirNoFileComp)
			}
		})
	}
	if n < 50 {
		t.Fatalf("only %d flags swept", n)
	}
	// What the sweep found, one by one, as a shell gets it.
	for _, args := range [][]string{
		{"send", "--url", ""}, {"check", "--url", ""}, {"replay", "--url", ""}, {"export", "k6", "--url", ""}, {"export", "vegeta", "--url", ""},
		{"listen", "--addr", ""}, {"listen", "--forward-to", ""}, {"listen", "--max-body", ""}, {"listen", "--path", ""}, {"listen", "--ui", ""},
		{"inspect", "--origin", ""}, {"send", "--header", ""}, {"send", "--secret", ""}, {"generate", "--set", ""},
		{"anonymize", "--key", ""},
	} {
		got, dir := complete(t, args...)
		if dir != dirNoFileComp || len(got) != 0 {
			t.Errorf("__complete %s: %q %s, want nothing and %s", strings.Join(args, " "), got, dir, dirNoFileComp)
		}
	}
}
