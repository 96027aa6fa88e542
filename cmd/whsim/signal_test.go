package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// interrupt starts a program with stdin an open pipe, sends it SIGTERM
// (SIGINT, as Ctrl-C does, with -INT) after a delay and checks that it stops
// within ten seconds with the given code:
//
//	interrupt [-INT] [-stdout FILE] <code> <delay> <program> [args...]
//
// Its stdout goes to FILE (discarded without -stdout) and its stderr to the
// file interrupt.stderr, for the script to read next. A program the signal
// kills outright before it wrote a byte had not yet set up its handler (a
// slow start on a loaded machine): it is tried again with twice the delay,
// up to three times. Killed after it wrote something, it had a handler that
// failed it: that fails the script at once.
func interrupt(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: interrupt [-INT] [-stdout FILE] <code> <delay> <program> [args...]"
	sig := syscall.SIGTERM
	stdout := ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-INT":
			sig = syscall.SIGINT
		case args[0] == "-stdout" && len(args) > 1:
			stdout = args[1]
			args = args[1:]
		default:
			ts.Fatalf(usage)
		}
		args = args[1:]
	}
	if neg || len(args) < 3 {
		ts.Fatalf(usage)
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	delay, err := time.ParseDuration(args[1])
	ts.Check(err)
	prog := lookPath(ts, args[2])
	for attempt := 0; ; attempt++ {
		r := runInterrupted(ts, sig, delay, prog, args[3:], stdout, "interrupt.stderr")
		if r.killed && r.wrote == 0 && attempt < 3 {
			ts.Logf("%s was killed by %v after %v before it wrote anything: trying again", args[2], sig, delay)
			delay *= 2
			continue
		}
		if r.killed {
			ts.Fatalf("%s was killed by %v after %v (it wrote %d bytes first), want exit %d", args[2], sig, delay, r.wrote, want)
		}
		if r.code != want {
			ts.Fatalf("%s exited %d after %v %v, want %d", args[2], r.code, delay, sig, want)
		}
		return
	}
}

// interrupted is how a program ended: its exit code, or killed when the
// signal ended it before it could answer; wrote counts the bytes it wrote
// to stdout and stderr.
type interrupted struct {
	code   int
	killed bool
	wrote  int64
}

// counter counts what is written through it.
type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// runInterrupted runs prog, its stdout in the file stdout ("" discards it)
// and its stderr in stderr, sends it sig after delay and says how it ended.
func runInterrupted(ts *testscript.TestScript, sig syscall.Signal, delay time.Duration, prog string, args []string, stdout, stderr string) interrupted {
	cmd := exec.Command(prog, args...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = scriptEnv(ts)
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	defer stdin.Close()
	errf, err := os.Create(ts.MkAbs(stderr))
	ts.Check(err)
	defer errf.Close()
	cmd.Stderr = errf
	discarded := &counter{}
	cmd.Stdout = discarded
	if stdout != "" {
		out, err := os.Create(ts.MkAbs(stdout))
		ts.Check(err)
		defer out.Close()
		cmd.Stdout = out
	}
	ts.Check(cmd.Start())
	time.Sleep(delay)
	ts.Check(cmd.Process.Signal(sig))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		ts.Fatalf("%s did not stop within 10s of %v", prog, sig)
	}
	r := interrupted{wrote: discarded.n + size(ts, stdout) + size(ts, stderr)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.killed = true
		}
		r.code = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", prog, err)
	}
	return r
}

// size is the length of a script's file, 0 for none.
func size(ts *testscript.TestScript, name string) int64 {
	if name == "" {
		return 0
	}
	fi, err := os.Stat(ts.MkAbs(name))
	ts.Check(err)
	return fi.Size()
}

// lookPath finds a program on the script's PATH, where testscript puts whsim.
func lookPath(ts *testscript.TestScript, name string) string {
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	ts.Fatalf("%s not found on the script's PATH", name)
	return ""
}

// scriptEnv is the environment a script's exec would pass.
func scriptEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if ts.Getenv(k) == "" {
			env = append(env, kv)
		}
	}
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "NO_COLOR", "WORK", "TMPDIR", "GITHUB_STEP_SUMMARY"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}
