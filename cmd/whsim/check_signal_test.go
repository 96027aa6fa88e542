package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// checkCounts checks that the summary of a check (or check --rerun) run
// cut short by a signal adds up, whichever case the signal found in flight:
//
//	checkcounts OUTPUT CAPTURE MIN
//
// OUTPUT is the run's stdout (text or --output json), CAPTURE the
// receiver's capture, which records a call before answering it, and MIN
// the fewest cases the run must have graded (the signal was sent after an
// event that proves them answered). For check: the tallies and the skipped
// checks make the cases run, at least MIN and no more than the calls the
// receiver recorded; "after" names a case of a check that graded some (the
// cut-short one when there is one), "the start" only when none ran. For
// --rerun: at least MIN and at most the calls recorded were sent again,
// and the cases said fixed or still failing are as many as counted.
func checkCounts(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: checkcounts <output> <capture> <min>")
	}
	out, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	capt, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	recorded := bytes.Count(capt, []byte("\n"))
	least, err := strconv.Atoi(args[2])
	ts.Check(err)
	// A failure shows what the run printed: a flake under load is then
	// told by its output, not guessed at from the one line that failed.
	accounted := false
	defer func() {
		if !accounted {
			ts.Logf("%s held:\n%s\n%s holds %d calls", args[0], out, args[1], recorded)
		}
	}()
	var run int
	switch {
	case rerunText.Match(out) || bytes.Contains(out, []byte(`"interrupted":true`)):
		run = rerunAccounts(ts, args[0], out)
	default:
		run = runAccounts(ts, args[0], out)
	}
	if run < least || run > recorded {
		ts.Fatalf("%d cases run: want at least %d (answered before the signal) and at most the %d calls the receiver recorded", run, least, recorded)
	}
	accounted = true
}

var (
	runText   = regexp.MustCompile(`(?m)^interrupted after (.+): (\d+) of (\d+) cases run$`)
	tallyText = regexp.MustCompile(`(?m)^([a-z-]+) +(\d+) +(\d+) +(\d+)(?:  FAILED)?(  skipped)?(  \(cut short\))?$`)
	rerunText = regexp.MustCompile(`(?m)^interrupted after (\d+) of (\d+) failed cases?: (\d+) fixed, (\d+) still failing$`)
)

// runAccounts checks a check run's summary and says how many cases ran.
func runAccounts(ts *testscript.TestScript, name string, out []byte) int {
	type tally struct {
		Pass, Warn, Fail int
		Skipped          string
	}
	var (
		after, cutShort string
		run, total      int
		checks          = map[string]tally{}
	)
	if m := runText.FindSubmatch(out); m != nil {
		after = string(m[1])
		run, _ = strconv.Atoi(string(m[2]))
		total, _ = strconv.Atoi(string(m[3]))
		for _, t := range tallyText.FindAllSubmatch(out, -1) {
			n := func(i int) int { v, _ := strconv.Atoi(string(t[i])); return v }
			tl := tally{Pass: n(2), Warn: n(3), Fail: n(4)}
			if len(t[5]) > 0 {
				tl.Skipped = "skipped"
			}
			checks[string(t[1])] = tl
			if len(t[6]) > 0 {
				cutShort = string(t[1])
			}
		}
	} else {
		var s struct {
			Summary *struct {
				Checks      map[string]tally `json:"checks"`
				Failed      bool             `json:"failed"`
				Interrupted *struct {
					After, Reason string
				} `json:"interrupted"`
				Cases *struct{ Run, Total int } `json:"cases"`
			} `json:"summary"`
		}
		i := bytes.LastIndex(out, []byte(`{"summary":`))
		if i < 0 || json.Unmarshal(out[i:], &s) != nil || s.Summary == nil || s.Summary.Interrupted == nil || s.Summary.Cases == nil {
			ts.Fatalf("%s holds no summary of an interrupted check run", name)
		}
		sum := s.Summary
		if !sum.Failed || sum.Interrupted.Reason != "interrupted" {
			ts.Fatalf("interrupted run: failed %v, reason %q; want failed and reason interrupted", sum.Failed, sum.Interrupted.Reason)
		}
		after, run, total, checks = sum.Interrupted.After, sum.Cases.Run, sum.Cases.Total, sum.Checks
	}
	if len(checks) == 0 {
		ts.Fatalf("%s: no check tallies in the summary", name)
	}
	graded := 0
	for _, t := range checks {
		graded += t.Pass + t.Warn + t.Fail
		if t.Skipped != "" {
			graded++ // a skipped check reports one result, no tally
		}
	}
	if graded != run || run > total {
		ts.Fatalf("tallies %v make %d cases, the summary says %d of %d run", checks, graded, run, total)
	}
	id, _, _ := strings.Cut(after, "/")
	switch t, ok := checks[id]; {
	case run == 0 && after == "the start":
	case run == 0, !ok, t.Pass+t.Warn+t.Fail == 0:
		ts.Fatalf("interrupted after %q, %d cases run: want a case of a check that graded some", after, run)
	case cutShort != "" && cutShort != id:
		ts.Fatalf("interrupted after %q, but %s was cut short", after, cutShort)
	}
	return run
}

// rerunAccounts checks a check --rerun summary and says how many cases
// were sent again.
func rerunAccounts(ts *testscript.TestScript, name string, out []byte) int {
	if m := rerunText.FindSubmatch(out); m != nil {
		n := func(i int) int { v, _ := strconv.Atoi(string(m[i])); return v }
		run, total, fixed, failing := n(1), n(2), n(3), n(4)
		said := len(regexp.MustCompile(`(?m)^FIXED `).FindAll(out, -1))
		if fixed+failing > run || run > total || said != fixed {
			ts.Fatalf("%q: %d fixed and %d still failing of %d run (of %d), %d lines say FIXED", m[0], fixed, failing, run, total, said)
		}
		return run
	}
	var s struct {
		Summary *struct {
			Fixed, StillFailing, NotRerun int
			AllFixed, Interrupted         bool
		} `json:"summary"`
	}
	i := bytes.LastIndex(out, []byte(`{"summary":`))
	if i < 0 || json.Unmarshal(out[i:], &s) != nil || s.Summary == nil {
		ts.Fatalf("%s holds no summary of an interrupted rerun", name)
	}
	sum := s.Summary
	fixed := bytes.Count(out, []byte(`"rerun":"fixed"`))
	if !sum.Interrupted || sum.AllFixed || fixed != sum.Fixed {
		ts.Fatalf("rerun summary %+v: want interrupted, not all fixed, and as many fixed as the %d cases that say so", *sum, fixed)
	}
	return sum.Fixed + sum.StillFailing + sum.NotRerun
}

// holdRecv is a receiver that answers the first n calls 200 at once
// (none by default) and holds every later one until the caller gives up:
// it writes a line to logfile as each request arrives, so a script sees
// which calls are in flight by the log, not by a clock (a probe or a
// receiver that hangs; a run cut short with exactly n answered and the
// rest of the log in flight):
//
//	exec holdrecv <readyfile> <logfile> [n] &
//
// It writes its URL to readyfile. SIGINT or SIGTERM stops it.
func holdRecv() int {
	if len(os.Args) != 3 && len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: holdrecv <readyfile> <logfile> [n]")
		return 2
	}
	ready, logName := os.Args[1], os.Args[2]
	answered := 0
	if len(os.Args) == 4 {
		n, err := strconv.Atoi(os.Args[3])
		if err != nil || n < 0 {
			fmt.Fprintln(os.Stderr, "holdrecv: n: want a count, got", os.Args[3])
			return 2
		}
		answered = n
	}
	logf, err := os.OpenFile(logName, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "holdrecv:", err)
		return 1
	}
	defer logf.Close()
	var mu sync.Mutex
	calls := 0
	stopped := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		calls++
		answer := calls <= answered
		fmt.Fprintf(logf, "%s %s\n", r.Method, r.URL.RequestURI())
		mu.Unlock()
		if answer {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"code":0}`)
			return
		}
		select {
		case <-r.Context().Done():
		case <-stopped:
		}
	})
	return serveUntilSignal("holdrecv", ready, "/", h, func() { close(stopped) })
}
