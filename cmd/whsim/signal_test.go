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

// interrupt starts a program with stdin an open pipe and stdout discarded
// sends it SIGTERM (SIGINT with -INT) after a delay and checks that it stops
// within ten seconds with the given code:
// interrupt [-INT] [-stdout] <code> <delay> <program> [args...]. Its
// stderr is written to the file interrupt.stderr for the script to read;
// with -stdout, its stdout to interrupt.stdout.
func interrupt(ts *testscript.TestScript, neg bool, args []string) {
	sig := syscall.SIGTERM
	keepOut := false
	for len(args) > 0 && (args[0] == "-INT" || args[0] == "-stdout") {
		if args[0] == "-INT" { // Ctrl-C rather than SIGTERM
			sig = syscall.SIGINT
		} else {
			keepOut = true
		}
		args = args[1:]
	}
	if neg || len(args) < 3 {
		ts.Fatalf("usage: interrupt [-INT] [-stdout] <code> <delay> <program> [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	delay, err := time.ParseDuration(args[1])
	ts.Check(err)
	prog := lookPath(ts, args[2])
	// A program killed by the signal itself had not yet set up its handler
	// (a slow start on a loaded machine): try again, waiting longer.
	for attempt := 0; ; attempt++ {
		stdout := ""
		if keepOut {
			stdout = "interrupt.stdout"
		}
		got, killed := runInterrupted(ts, sig, delay, prog, args[3:], stdout, "interrupt.stderr")
		if killed && attempt < 3 {
			delay *= 2
			continue
		}
		if got != want {
			ts.Fatalf("%s exited %d after %v, want %d", args[2], sig, got, want)
		}
		return
	}
}

// runInterrupted runs prog, its stdout in the file stdout ("" discards it)
// and its stderr in stderr, sends it sig after delay and returns its exit
// code, or killed when the signal ended it before it could answer.
func runInterrupted(ts *testscript.TestScript, sig syscall.Signal, delay time.Duration, prog string, args []string, stdout, stderr string) (code int, killed bool) {
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
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -1, true
		}
		return ee.ExitCode(), false
	case err != nil:
		ts.Fatalf("%s: %v", prog, err)
	}
	return 0, false
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
