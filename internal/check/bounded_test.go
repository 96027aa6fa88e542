package check

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
)

// A receiver that answers 200 with 200 MiB: no call reads more than
// attempt.MaxBodyRead of it, and what would have passed warns, in
// accepts-valid and in load. Counted in bytes the receiver got out.
func TestHugeAnswerWarnsUnread(t *testing.T) {
	const huge = 200 << 20
	var wrote, calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		calls.Add(1)
		w.Header().Set("Content-Length", strconv.Itoa(huge))
		chunk := []byte(strings.Repeat("x", 64<<10))
		for sent := int64(0); sent < huge; {
			n, err := w.Write(chunk)
			sent += int64(n)
			wrote.Add(int64(n))
			if err != nil {
				break
			}
		}
	}))
	defer srv.Close()
	cfg := testConfig(t, srv.URL)
	cfg.Signer = nil
	cfg.Checks = []string{acceptsValid, Load}
	cfg.LoadCount = 8
	sum, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Checks[acceptsValid]; got.Pass != 0 || got.Warn == 0 {
		t.Errorf("accepts-valid %+v, want warnings and no pass", *got)
	}
	if got := sum.Checks[Load]; got.Warn != 1 {
		t.Errorf("load %+v, want a warning", *got)
	}
	for _, r := range results {
		if !strings.Contains(r.Reason, "over 1 MiB, not read further") {
			t.Errorf("%s %s: reason %q", r.Case.Check, r.Case.Name, r.Reason)
		}
	}
	// The handlers may still be writing into closed connections: a
	// bound far above a MiB and socket buffers a call, far below 200 MiB.
	if n, c := wrote.Load(), calls.Load(); n > c*32<<20 {
		t.Errorf("the receiver got %d bytes out in %d calls: answers read on past the cap", n, c)
	}
}

// A receiver whose answer's body never ends: every call fails when
// --timeout passes, saying the body was unfinished, in accepts-valid and
// in load.
func TestUnfinishedAnswerFails(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Length", "1000")
		_, _ = w.Write([]byte(`{"ok":`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	cfg := testConfig(t, srv.URL)
	// The timeout must outlast the answer's head on a loaded machine, or a
	// call fails as unanswered, not as unfinished: 300 ms did not at a load
	// average of 20.
	client := testClient(t, time.Second)
	cfg.Client, cfg.Signer = client, nil
	cfg.Checks = []string{acceptsValid, Load}
	cfg.LoadCount = 8
	sum, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Checks[acceptsValid]; got.Pass != 0 || got.Warn != 0 || got.Fail == 0 {
		t.Errorf("accepts-valid %+v, want only failures", *got)
	}
	if got := sum.Checks[Load]; got.Fail != 1 {
		t.Errorf("load %+v, want a failure", *got)
	}
	for _, r := range results {
		want := "not finished within --timeout"
		if r.Case.Check == Load {
			want = "8 got 200 with the body unfinished (timeout)"
		}
		if !strings.Contains(r.Reason, want) {
			t.Errorf("%s %s: reason %q, want %q", r.Case.Check, r.Case.Name, r.Reason, want)
		}
	}
}

// A receiver whose answers' chunked framing is malformed: every call
// fails, saying what net/http's reader found, not "cut off (error)".
func TestMalformedAnswerSaysWhy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nok\r\n0\r\n\r\n")
		_ = buf.Flush()
	}))
	defer srv.Close()
	cfg := testConfig(t, srv.URL)
	cfg.Client, cfg.Signer = testClient(t, 10*time.Second), nil
	cfg.Checks = []string{acceptsValid, Load}
	cfg.LoadCount = 8
	_, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range results {
		want := "got 200 but the answer body could not be read (invalid byte in chunk length)"
		if r.Case.Check == Load {
			want = "8 got 200 with the body unfinished (invalid byte in chunk length)"
		}
		if r.Verdict != Fail || !strings.Contains(r.Reason, want) {
			t.Errorf("%s %s: %s %q, want a failure saying %q", r.Case.Check, r.Case.Name, r.Verdict, r.Reason, want)
		}
	}
}

// Without --save-cases, the reproduction of a call too large to print
// inline names no file the run has not written (it used to send
// @case.json), and says what stands in its place and how to get it.
func TestReproOfLargeBodyNamesNoMissingFile(t *testing.T) {
	big := []byte(strings.Repeat("x", maxInlineBody+1))
	rep := &Reporter{Target: mustURL(t, "http://127.0.0.1:9/hook")}
	r := &runner{cfg: Config{Target: rep.Target}}
	bigReq := &attempt.Request{Body: big}
	effects, _ := r.callCommand(sentCall{step: effStep{c: &Case{}}, req: bigReq, retried: bigReq, copies: 2}, "")
	for name, cmd := range map[string]string{
		"curl":    rep.reproduce(&CaseReport{Result: Result{Case: &Case{Body: big}}}),
		"replay":  rep.reproduce(&CaseReport{Result: Result{Case: &Case{Body: big}}, sent: sent{resign: true}}),
		"effects": effects,
	} {
		// The note ends the line: a comment before the loop's done or the
		// retry would leave them out of what the shell runs.
		if cut := strings.Index(cmd, "  # "); cut < 0 || strings.Contains(cmd[:cut], "#") || strings.Contains(cmd[cut+4:], "curl") {
			t.Errorf("%s: %q has its note elsewhere than at its end", name, cmd)
		}
		if strings.Contains(cmd, "case.json") || strings.Contains(cmd, "case.ndjson") {
			t.Errorf("%s: %q names a file the run did not write", name, cmd)
		}
		if !strings.Contains(cmd, strconv.Itoa(len(big))+"-byte body, not written by this run: rerun with --save-cases DIR") {
			t.Errorf("%s: %q does not say the body is not written", name, cmd)
		}
	}
}

// Under whsimtest, which has no --save-cases, the note on a body too
// large to print ends with the whsim check command that saves it (Config
// and Reporter's SaveCommand), for the curl, the replay and the effects
// commands alike: a command at the end of the line runs as printed.
func TestReproOfLargeBodyNamesTheSaveCommand(t *testing.T) {
	big := []byte(strings.Repeat("x", maxInlineBody+1))
	const save = "whsim check --url 'http://127.0.0.1:9/hook' --seed 7 --save-cases whsim-cases --checks "
	rep := &Reporter{Target: mustURL(t, "http://127.0.0.1:9/hook"), SaveCommand: save}
	r := &runner{cfg: Config{Target: rep.Target, SaveCommand: save}}
	bigReq := &attempt.Request{Body: big}
	effects, _ := r.callCommand(sentCall{step: effStep{c: &Case{}}, req: bigReq, retried: bigReq, copies: 2}, "")
	for name, tc := range map[string]struct{ cmd, check string }{
		"curl":    {rep.reproduce(&CaseReport{Result: Result{Case: &Case{Check: acceptsValid, Body: big}}}), acceptsValid},
		"replay":  {rep.reproduce(&CaseReport{Result: Result{Case: &Case{Check: duplicates, Body: big}}, sent: sent{resign: true}}), duplicates},
		"effects": {effects, Effects},
	} {
		if strings.Contains(tc.cmd, "--save-cases DIR") {
			t.Errorf("%s: %q names --save-cases DIR", name, tc.cmd)
		}
		if want := ", with --save-cases: " + save + tc.check; !strings.HasSuffix(tc.cmd, want) || strings.Count(tc.cmd, save) != 1 {
			t.Errorf("%s: %q does not end with the command once: %q", name, tc.cmd, want)
		}
	}
}
