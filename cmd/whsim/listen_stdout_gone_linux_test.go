package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// listen | head -1 with no call after the line head read: the reader's
// going away stops listen by itself, as the README's exit codes say. It
// stopped only at the next call's line, so with none listen sat on, its
// ready-file saying it was up and its pipeline never ending. The minute
// bounds only a hang; listen is waited for, not timed.
func TestListenStopsWhenStdoutsReaderGoesWithNoCallAfter(t *testing.T) {
	stdout, childOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	cmd, errs, url := startListen(t, childOut)
	childOut.Close()
	if code := postReceipt(t, url, "r1"); code != 200 {
		t.Errorf("the call was answered %d", code)
	}
	// head -1: one line read, then the reader goes away, and no call comes.
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	err = errs.exited(t, cmd, time.Minute)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 141 {
		t.Errorf("exit %v, want status 141", err)
	}
	if all := errs.text(); !strings.Contains(all, "listen stopped: stdout was closed") || !strings.Contains(all, "1 call") {
		t.Errorf("stderr has no summary saying stdout was closed:\n%s", all)
	}
	// startListen's --ready-file
	readyFile := cmd.Args[slices.Index(cmd.Args, "--ready-file")+1]
	if _, err := os.Stat(readyFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the ready-file is left behind (%v)", err)
	}
}
