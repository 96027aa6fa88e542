package main

import (
	"bytes"
	"fmt"
	"os"
	"time"
)

// streamFeed is a writer of a stream that waits on its reader: it writes
// the lines of a file to another (a FIFO whose reader is whsim send), each
// only once a receiver's capture holds the calls of the lines before it,
// so that a send that reads its whole input before sending never gets the
// second line. The capture's calls are counted from those it holds at the
// start. With a fourth argument it then keeps the stream open, says
// so by writing that file, and closes it once that file is removed.
// A wait bounded at 60 s that runs out ends the stream there, exit 1:
// streamfeed LINES FIFO CAPTURE [FED]
func streamFeed() int {
	args := os.Args[1:]
	if len(args) < 3 || len(args) > 4 {
		fmt.Fprintln(os.Stderr, "usage: streamfeed <lines> <fifo> <capture> [fed]")
		return 2
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out, err := os.OpenFile(args[1], os.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer out.Close()
	// The calls the capture holds already are those of runs before.
	base := 0
	if c, err := os.ReadFile(args[2]); err == nil {
		base = bytes.Count(c, []byte("\n"))
	}
	lns := bytes.SplitAfter(b, []byte("\n"))
	for i, l := range lns {
		if len(l) == 0 {
			continue
		}
		if !(&lines{file: args[2], n: base + i}).wait(60 * time.Second) {
			fmt.Fprintf(os.Stderr, "streamfeed: the calls of the %d lines written did not reach %s within 60s: line %d is not written\n", i, args[2], i+1)
			return 1
		}
		if _, err := out.Write(l); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if len(args) == 4 {
		if !(&lines{file: args[2], n: base + bytes.Count(b, []byte("\n"))}).wait(60 * time.Second) {
			fmt.Fprintf(os.Stderr, "streamfeed: the last line's call did not reach %s within 60s\n", args[2])
			return 1
		}
		if err := os.WriteFile(args[3], []byte("fed\n"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) { // a poll for the event
			if _, err := os.Stat(args[3]); err != nil {
				break
			}
		}
	}
	return 0
}
