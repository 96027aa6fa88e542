package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
//	interrupt [-INT] [-stdout FILE] [-stdin FILE] <code> <delay> <program> [args...]
//
// With -stdin, FILE's bytes are written to the pipe, which stays open (a
// stream with more to come, as a pipe from a live producer).
//
// Its stdout goes to FILE (discarded without -stdout) and its stderr to the
// file interrupt.stderr, for the script to read next. A program the signal
// kills outright before it wrote a byte had not yet set up its handler (a
// slow start on a loaded machine): it is tried again with twice the delay,
// up to three times. Killed after it wrote something, it had a handler that
// failed it: that fails the script at once.
func interrupt(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: interrupt [-INT] [-stdout FILE] [-stdin FILE] [-after FILE:N] <code> <delay> <program> [args...]"
	sig := syscall.SIGTERM
	stdout, stdin := "", ""
	var after *lines
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "-INT":
			sig = syscall.SIGINT
		case args[0] == "-stdout" && len(args) > 1:
			stdout = args[1]
			args = args[1:]
		case args[0] == "-stdin" && len(args) > 1:
			stdin = ts.MkAbs(args[1])
			args = args[1:]
		case args[0] == "-after" && len(args) > 1:
			name, n, ok := strings.Cut(args[1], ":")
			want, err := strconv.Atoi(n)
			if !ok || err != nil {
				ts.Fatalf(usage)
			}
			after = &lines{file: ts.MkAbs(name), n: want}
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
		r := runInterrupted(ts, sig, delay, after, prog, args[3:], stdin, stdout, "interrupt.stderr")
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

// lines is an event a signal waits for: file holds n lines (a receiver's
// capture has n calls).
type lines struct {
	file string
	n    int
}

// wait waits for the file to hold its lines, up to limit; false if it
// did not.
func (l *lines) wait(limit time.Duration) bool {
	end := time.Now().Add(limit)
	for time.Now().Before(end) {
		if b, err := os.ReadFile(l.file); err == nil && bytes.Count(b, []byte("\n")) >= l.n {
			return true
		}
		time.Sleep(5 * time.Millisecond) // a poll for the event, not a timed expectation
	}
	return false
}

// runInterrupted runs prog, its stdin an open pipe given the bytes of the
// file stdinFile ("": none), its stdout in the file stdout ("" discards it)
// and its stderr in stderr, sends it sig after delay, or with after once
// its event came (delay then bounds the wait), and says how it ended.
func runInterrupted(ts *testscript.TestScript, sig syscall.Signal, delay time.Duration, after *lines, prog string, args []string, stdinFile, stdout, stderr string) interrupted {
	cmd := exec.Command(prog, args...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = scriptEnv(ts)
	stdin, err := cmd.StdinPipe()
	ts.Check(err)
	defer stdin.Close()
	if stdinFile != "" {
		in, err := os.ReadFile(stdinFile)
		ts.Check(err)
		// Written as the program reads: a pipe holds 64 KiB. A write
		// that fails (the program gone) ends it.
		go stdin.Write(in)
	}
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
	if after == nil {
		time.Sleep(delay)
	} else if !after.wait(delay) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ts.Fatalf("%s did not hold %d lines within %v", after.file, after.n, delay)
	}
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

// waitAnswered waits until a receiver's capture holds every call a run
// says was answered (succeeded or failed): the receiver records a call
// before it answers it: waitanswered CAPTURE OUTPUT
func waitAnswered(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitanswered <capture> <output>")
	}
	out, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	m := summaryCounts.FindStringSubmatch(string(out))
	if m == nil {
		ts.Fatalf("%s holds no summary", args[1])
	}
	ok, _ := strconv.Atoi(m[2] + m[7])
	failed, _ := strconv.Atoi(m[3] + m[8])
	if !(&lines{file: ts.MkAbs(args[0]), n: ok + failed}).wait(60 * time.Second) {
		ts.Fatalf("%s did not hold the %d calls answered within 60s", args[0], ok+failed)
	}
}

// summaryCounts reads the counts of a text or JSON send/replay summary.
var summaryCounts = regexp.MustCompile(`(?m)^sent (\d+)  succeeded (\d+)  failed (\d+)(?:  interrupted (\d+))?(?:  not started (\d+))?  |"summary":\{"sent":(\d+),"succeeded":(\d+),"failed":(\d+),"interrupted":(\d+),"notStarted":(\d+),`)

// accounts checks a cut-short run's summary adds up, whichever calls the
// signal found in flight: each sent call succeeded, failed or was
// interrupted (at least one); the receiver got (n) every answered call and
// at most the interrupted ones besides (a call cut before its bytes went
// out never reached it); the rest of total never started; as many
// deliveries as were interrupted say so (lines matching cut):
// accounts OUTPUT N TOTAL CUT-REGEXP
func accounts(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: accounts <output> <received> <total> <interrupted-line-regexp>")
	}
	out, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	m := summaryCounts.FindStringSubmatch(string(out))
	if m == nil {
		ts.Fatalf("%s holds no summary", args[0])
	}
	num := func(i int) int {
		n, _ := strconv.Atoi(m[i] + m[i+5]) // the text's group or the JSON's
		return n
	}
	sent, ok, failed, cut, notStarted := num(1), num(2), num(3), num(4), num(5)
	got, err := strconv.Atoi(args[1])
	ts.Check(err)
	total, err := strconv.Atoi(args[2])
	ts.Check(err)
	lines := len(regexp.MustCompile(args[3]).FindAllString(string(out), -1))
	if got < ok+failed || got > sent || ok+failed+cut != sent || cut < 1 || notStarted != total-sent || lines != cut {
		ts.Fatalf("summary %q: sent %d (receiver got %d), succeeded+failed+interrupted %d, interrupted %d (%d lines say so), not started %d of %d",
			m[0], sent, got, ok+failed+cut, cut, lines, notStarted, total)
	}
}
