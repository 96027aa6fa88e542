package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/chromedp/chromedp"
)

// A send stopped by Ctrl-C is no pass in its HTML report or its job
// summary, however few calls failed: the calls never made could have, and
// the headline counts those cut short and those never started. The
// receiver answers 2 calls and holds the rest; the signal comes once it
// holds 2 more (an event, not a clock), so the counts are exact.
func TestInterruptedSendReportInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	if testing.Short() {
		t.Skip("-short: the browser tests start Chromium")
	}
	recv, held := answersTwoThenHolds(t)
	dir := t.TempDir()
	file, summary := filepath.Join(dir, "run.html"), filepath.Join(dir, "summary.md")
	cmd := exec.Command("whsim", "send", "--url", recv.URL+"/hook", "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1",
		"--count", "20", "--concurrency", "2", "--output", "json", "--report", file)
	cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+summary, "NO_COLOR=1")
	interruptWhenTwoHeld(t, cmd, held)
	const headline = "4 sent (4 documents, 0 duplicates), 2 succeeded, 0 failed, 2 interrupted, 16 not started"
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "### whsim send: ⚠️ interrupted") || !strings.Contains(string(md), "**"+headline+", ") {
		t.Errorf("the job summary of an interrupted send:\n%s", md)
	}
	p := openReport(t, file)
	var verdict, head string
	p.run(t, "read the verdict",
		chromedp.Text(`#verdict`, &verdict, chromedp.ByQuery),
		chromedp.Text(`#headline`, &head, chromedp.ByQuery))
	if verdict != "INTERRUPTED" || head != headline {
		t.Errorf("verdict %q, headline %q; want INTERRUPTED, %q", verdict, head, headline)
	}
	p.clean(t)
}

// A send --file of a stream that stopped at a payload it refused is no
// pass either (exit 2): its HTML report, job summary, JUnit and JSON
// summary say the run did not complete. They said pass: the deliveries
// before the bad line all succeeded.
func TestIncompleteStreamSendReportInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	if testing.Short() {
		t.Skip("-short: the browser tests start Chromium")
	}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "ok")
	}))
	defer recv.Close()
	dir := t.TempDir()
	file, summary, junit := filepath.Join(dir, "run.html"), filepath.Join(dir, "summary.md"), filepath.Join(dir, "run.xml")
	cmd := exec.Command("whsim", "send", "--url", recv.URL+"/hook", "--file", "-", "--output", "json", "--report", file, "--junit", junit)
	cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+summary, "NO_COLOR=1")
	// A pipe: send reads it as a stream, sending each payload as it comes.
	cmd.Stdin = strings.NewReader(`{"requestId":"r1","businessType":5007,"data":{}}` + "\nnot json\n")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != 2 {
		t.Fatalf("send exited %v, want 2:\n%s", err, stderr.String())
	}
	const why = "--file: <stdin>:2:2: not JSON"
	if !strings.Contains(stdout.String(), `"incomplete":"`+why) {
		t.Errorf("the JSON summary does not say the run is incomplete:\n%s", stdout.String())
	}
	if x, err := os.ReadFile(junit); err != nil || !strings.Contains(string(x), `errors="1"`) || !strings.Contains(string(x), `<error message="--file: &lt;stdin&gt;:2:2: not JSON`) {
		t.Errorf("the JUnit has no case in error (%v):\n%s", err, x)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "### whsim send: ⚠️ did not complete") || !strings.Contains(string(md), why) {
		t.Errorf("the job summary of an incomplete send:\n%s", md)
	}
	p := openReport(t, file)
	var verdict, head string
	p.run(t, "read the verdict",
		chromedp.Text(`#verdict`, &verdict, chromedp.ByQuery),
		chromedp.Text(`#headline`, &head, chromedp.ByQuery))
	if verdict != "INCOMPLETE" || !strings.HasPrefix(head, "the run did not complete: "+why) {
		t.Errorf("verdict %q, headline %q; want INCOMPLETE, the run did not complete", verdict, head)
	}
	p.clean(t)
}

// The thresholds of a send Ctrl-C stopped read as not judged in its HTML
// report, and why: the table said "ok" for a failed share of the calls
// answered so far, and the headline counted it held. The receiver answers
// 2 calls and holds the rest; the signal comes once it holds 2 more.
func TestInterruptedSendThresholdsInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	if testing.Short() {
		t.Skip("-short: the browser tests start Chromium")
	}
	recv, held := answersTwoThenHolds(t)
	file := filepath.Join(t.TempDir(), "run.html")
	cmd := exec.Command("whsim", "send", "--url", recv.URL+"/hook", "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1",
		"--count", "20", "--concurrency", "2", "--threshold", "failed<1%", "--report", file)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	interruptWhenTwoHeld(t, cmd, held)
	const why = "interrupted after 4 of 20 calls"
	p := openReport(t, file)
	var head, row string
	p.run(t, "read the thresholds",
		chromedp.Text(`#headline`, &head, chromedp.ByQuery),
		chromedp.Text(`#thresholds tbody tr`, &row, chromedp.ByQuery))
	if !strings.Contains(head, "; 0 of 1 thresholds held, 1 not judged ("+why+")") {
		t.Errorf("headline %q, want it to say the threshold was not judged, and why", head)
	}
	if !strings.Contains(row, "failed 0% so far") || !strings.Contains(row, "not judged "+why) || strings.Contains(row, "ok") {
		t.Errorf("threshold row %q, want failed 0%% so far, not judged %s", row, why)
	}
	p.clean(t)
}

// answersTwoThenHolds is a receiver that answers its first 2 calls and
// holds the others until the test ends; held hears of each call held.
func answersTwoThenHolds(t *testing.T) (recv *httptest.Server, held <-chan struct{}) {
	var mu sync.Mutex
	calls := 0
	holding := make(chan struct{}, 16)
	stop := make(chan struct{})
	recv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n <= 2 {
			io.WriteString(w, "ok")
			return
		}
		holding <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	// Cleanups run last first: the held calls are let go before the
	// server's Close waits for them.
	t.Cleanup(recv.Close)
	t.Cleanup(func() { close(stop) })
	return recv, holding
}

// interruptWhenTwoHeld starts cmd, a send to answersTwoThenHolds, sends it
// Ctrl-C once the receiver holds 2 calls and wants its exit 130. Two calls
// held is the event; a send that ends first (it could not start, or never
// got that far) fails the test instead of hanging it.
func interruptWhenTwoHeld(t *testing.T, cmd *exec.Cmd, held <-chan struct{}) {
	t.Helper()
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for range 2 {
		select {
		case <-held:
		case err := <-exited:
			t.Fatalf("send ended (%v) before the receiver held 2 calls:\n%s", err, stderr.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err == nil || cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("send exited %v, want 130:\n%s", err, stderr.String())
	}
}
