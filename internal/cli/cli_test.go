package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli/cmdutil"
)

// runCLI runs whsim in-process with buffers and a fixed clock.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, Build{Version: "v1.2.3", Commit: "abc", Date: "2026-11-22"},
		func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) })
	code = Execute(context.Background(), a, args)
	return code, out.String(), errb.String()
}

func TestExitCodesAndStreams(t *testing.T) {
	t.Chdir(t.TempDir()) // no whsim.yaml from the developer's tree
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	tests := []struct {
		args       []string
		code       int
		stdout     string // substring; "" means empty
		stderr     string
		stdoutLine int // number of lines on stdout, when > 0
	}{
		{args: []string{"--version"}, code: 0, stdout: "whsim v1.2.3 (commit abc, built 2026-11-22, go"},
		{args: []string{"events"}, code: 0, stdout: "ABANDON_RECEIVABLE_DOC", stdoutLine: 5},
		{args: []string{"generate", "--event", "CREATE_RECEIVABLE_DOC", "--seed", "9"}, code: 0, stdout: `"businessType": 5007`},
		{args: []string{"generate", "--count", "3", "--event", "CREATE_RECEIVABLE_DOC", "--event", "ABANDON_RECEIVABLE_DOC"}, code: 0, stdoutLine: 6},
		{args: []string{"generate", "--event", "CREATE_RECEIVABLE_DOC", "--count", "2", "--output", "json"}, code: 0, stdout: "[\n{"},
		{args: []string{"generate", "--event", "NOPE"}, code: 2, stderr: `whsim generate: --event: unknown event "NOPE"`},
		{args: []string{"generate", "--count", "0"}, code: 2, stderr: "--count 0: want at least 1"},
		{args: []string{"generate", "--seed", "-3"}, code: 2, stderr: `invalid argument "-3" for "--seed"`},
		{args: []string{"generate", "--event", "CREATE_RECEIVABLE_DOC", "--set", "data.收款明细.x=1"}, code: 2, stderr: "not an array index at data.收款明细.x"},
		{args: []string{"nope"}, code: 2, stderr: `unknown command "nope"`},
		{args: []string{"--config", "/nonexistent/whsim.yaml", "events"}, code: 2, stderr: "config file: stat /nonexistent/whsim.yaml"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if tt.stdout == "" && tt.stdoutLine == 0 && stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stdout, tt.stdout) {
				t.Errorf("stdout %q, want it to contain %q", stdout, tt.stdout)
			}
			if tt.stdoutLine > 0 && strings.Count(stdout, "\n") != tt.stdoutLine {
				t.Errorf("stdout has %d lines, want %d:\n%s", strings.Count(stdout, "\n"), tt.stdoutLine, stdout)
			}
			if tt.stderr == "" && stderr != "" {
				t.Errorf("stderr %q, want nothing", stderr)
			}
			if !strings.Contains(stderr, tt.stderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr, tt.stderr)
			}
			if strings.Contains(stderr, "goroutine") || strings.Count(stderr, "whsim:") > 1 {
				t.Errorf("stderr has a stack trace or a repeated error: %q", stderr)
			}
		})
	}
}

func TestColourOnlyOnATerminal(t *testing.T) {
	tests := []struct {
		tty     bool
		noColor string
		term    string
		flag    bool
		force   string // CLICOLOR_FORCE
		want    bool
	}{
		{tty: true, want: true},
		{tty: true, term: "xterm-256color", want: true},
		// A terminal that draws no escapes (Emacs' M-x compile, some CI
		// log viewers) says so: no colour, as git and ls do.
		{tty: true, term: "dumb", want: false},
		{tty: false, want: false},
		{tty: true, noColor: "1", want: false},
		{tty: true, flag: true, want: false},
		{tty: true, noColor: "", want: true},
		// CLICOLOR_FORCE colours a pipe (a CI log that shows colour,
		// less -R), and a dumb terminal, asked; NO_COLOR and --no-color
		// win over it; 0 forces nothing.
		{tty: false, force: "1", want: true},
		{tty: true, term: "dumb", force: "1", want: true},
		{tty: false, force: "0", want: false},
		{tty: false, force: "1", noColor: "1", want: false},
		{tty: false, force: "1", flag: true, want: false},
	}
	for _, tt := range tests {
		t.Setenv("NO_COLOR", tt.noColor)
		t.Setenv("TERM", tt.term)
		t.Setenv("CLICOLOR_FORCE", tt.force)
		var errb bytes.Buffer
		a := cmdutil.NewApp(cmdutil.Streams{Out: &bytes.Buffer{}, Err: &errb, ErrTTY: tt.tty}, Build{}, time.Now)
		args := []string{"generate", "--event", "NOPE"}
		if tt.flag {
			args = append(args, "--no-color")
		}
		Execute(context.Background(), a, args)
		if got := strings.Contains(errb.String(), "\x1b["); got != tt.want {
			t.Errorf("tty %v NO_COLOR %q TERM %q --no-color %v CLICOLOR_FORCE %q: colour %v, want %v (%q)", tt.tty, tt.noColor, tt.term, tt.flag, tt.force, got, tt.want, errb.String())
		}
	}
}

// TestOutputLostIsExit2: a command whose output cannot be written (stdout
// on a full disk) could not run, exit 2, whatever it would have said: exit
// 1 told CI that a valid payload was invalid, or that a receiver failed.
func TestOutputLostIsExit2(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	dir := t.TempDir()
	t.Chdir(dir) // no whsim.yaml from the developer's tree
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	valid := filepath.Join(dir, "valid.json")
	if code, _, stderr := runCLI(t, "generate", "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1", "--out", valid); code != 0 {
		t.Fatalf("generate --out: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{
		{"validate", valid},
		{"generate", "--count", "1000", "--event", "all"},
		{"events"},
		// cobra's help and version, whose write errors it drops.
		{"send", "--help"},
		{"--help"},
		{"help", "check"},
		{"--version"},
	} {
		var errb bytes.Buffer
		a := cmdutil.NewApp(cmdutil.Streams{In: strings.NewReader(""), Out: full, Err: &errb}, Build{}, time.Now)
		if code := Execute(context.Background(), a, args); code != cmdutil.ExitUsage || !strings.Contains(errb.String(), "no space left on device") || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%q > /dev/full: exit %d, stderr %q; want exit 2 saying why in one line", args, code, errb.String())
		}
	}
}
