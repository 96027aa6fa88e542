package listencmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/cli/cmdutil"
	"github.com/whsim/whsim/internal/receiver"
)

// syncBuffer is a buffer the listen goroutine writes while the test waits.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// listenRun runs listen in-process, sends the calls, stops it as Ctrl-C
// would and returns its error and output.
func listenRun(t *testing.T, opts *listenOptions, send func(url string)) (stdout, stderr string, err error) {
	t.Helper()
	dir := t.TempDir()
	opts.ReadyFile = filepath.Join(dir, "url")
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Fsync == "" {
		opts.Fsync = "interval"
	}
	if opts.Receiver.MaxBody == "" {
		opts.Receiver.MaxBody = "10MiB"
	}
	if opts.Receiver.Status == 0 {
		opts.Receiver.Status = 200
	}
	if opts.Output == "" {
		opts.Output = "text"
	}
	opts.limits = receiver.DefaultLimits
	out, errb := &syncBuffer{}, &syncBuffer{}
	u, cancel, done := startListen(t, opts, out, errb)
	send(u)
	cancel()
	err = <-done
	return out.String(), errb.String(), err
}

// startListen runs listen in-process until cancel, and returns its URL
// once it is ready and where its error comes.
func startListen(t *testing.T, opts *listenOptions, out io.Writer, errb *syncBuffer) (string, context.CancelFunc, chan error) {
	t.Helper()
	a := cmdutil.NewApp(cmdutil.Streams{Out: out, Err: errb}, cmdutil.Build{}, time.Now)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runListen(ctx, a, opts) }()
	// Ready is an event: the ready file, or listen returning without it.
	// No count of polls bounds the wait (a slow start on a loaded machine
	// is no failure); the test's own timeout bounds a hang.
	for {
		if b, err := os.ReadFile(opts.ReadyFile); err == nil {
			return strings.TrimSpace(string(b)), cancel, done
		}
		select {
		case err := <-done:
			cancel()
			t.Fatalf("listen returned before it got ready: %v %s", err, errb.String())
			return "", nil, nil
		case <-time.After(10 * time.Millisecond): // a poll for the file, not a timed expectation
		}
	}
}

func postTo(t *testing.T, u, ct string, h http.Header, body []byte) int {
	t.Helper()
	req, err := http.NewRequest("POST", u, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Content-Type", ct)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Escape sequences in a body, query or header are printed escaped, in the
// call line, the -v body and the JSON output; secrets are masked.
func TestListenPrintsNetworkTextSafely(t *testing.T) {
	t.Parallel()
	body := []byte("{\"requestId\":\"\x1b]0;pwned\x07\u202e\",\"x\":\"\u009b2J\"}")
	hdr := http.Header{"Authorization": {"Bearer s3cret"}, "Webhook-Signature": {"v1,sig"}}
	for _, output := range []string{"text", "json"} {
		t.Run(output, func(t *testing.T) {
			t.Parallel()
			out, errs, err := listenRun(t, &listenOptions{Verbose: true, Output: output}, func(u string) {
				postTo(t, u+"?businessType=CREATE_RECEIVABLE_DOC%1B%E2%80%AE", "application/json", hdr, body)
			})
			if err != nil {
				t.Fatal(err, errs)
			}
			for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u009b", "s3cret", "v1,sig"} {
				if strings.Contains(out, bad) || strings.Contains(errs, bad) {
					t.Errorf("output holds %q raw:\n%s", bad, out)
				}
			}
			if output == "text" && (!strings.Contains(out, `\x1b]0;pwned\x07\u202e`) || !strings.Contains(out, "Authorization: Bearer ****")) {
				t.Errorf("text output:\n%s", out)
			}
			if output == "json" {
				// The call's line, then the summary's.
				call, summary, _ := strings.Cut(out, "\n")
				var o map[string]any
				if err := json.Unmarshal([]byte(call), &o); err != nil {
					t.Fatalf("%v: %s", err, out)
				}
				if o["event"] != "CREATE_RECEIVABLE_DOC\x1b\u202e" || o["headers"].(map[string]any)["Authorization"] != "Bearer ****" {
					t.Errorf("json output %v", o)
				}
				var sum struct {
					Summary struct{ ByEvent map[string]int }
				}
				if err := json.Unmarshal([]byte(summary), &sum); err != nil || sum.Summary.ByEvent["CREATE_RECEIVABLE_DOC\x1b\u202e"] != 1 {
					t.Errorf("summary line %q: %v, %+v", summary, err, sum)
				}
			}
		})
	}
}

// listen --output json ends its calls' lines with a summary line of the
// counts the text summary gives on stderr, as send's stream ends: a job
// reading stdout alone had the calls and no counts.
func TestListenJSONEndsWithSummary(t *testing.T) {
	t.Parallel()
	capPath := filepath.Join(t.TempDir(), "c.ndjson")
	opts := &listenOptions{Output: "json", Capture: capPath, Receiver: receiver.Options{Respond: []string{"AUDIT_PURCHASE_ORDER_INVOICE=500,200"}}}
	out, errs, err := listenRun(t, opts, func(u string) {
		for range 3 {
			postTo(t, u+"?businessType=AUDIT_PURCHASE_ORDER_INVOICE", "application/json", nil, []byte(`{}`))
		}
	})
	if err != nil {
		t.Fatal(err, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 3 calls and the summary:\n%s", len(lines), out)
	}
	var got struct {
		Summary struct {
			Calls      int            `json:"calls"`
			ByEvent    map[string]int `json:"byEvent"`
			ByVerdict  map[string]int `json:"byVerdict"`
			ByStatus   map[string]int `json:"byStatus"`
			Unanswered *int           `json:"unanswered"`
			Capture    string         `json:"capture"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(lines[3]), &got); err != nil {
		t.Fatalf("%v: %s", err, lines[3])
	}
	s := got.Summary
	want := map[string]int{"200": 2, "500": 1}
	if s.Calls != 3 || s.ByEvent["AUDIT_PURCHASE_ORDER_INVOICE"] != 3 || s.ByVerdict["invalid"] != 3 || s.ByVerdict["valid"] != 0 ||
		!maps.Equal(s.ByStatus, want) || s.Unanswered == nil || *s.Unanswered != 0 || s.Capture != capPath {
		t.Errorf("summary %s", lines[3])
	}
}

func TestListenSummaryAndCapture(t *testing.T) {
	t.Parallel()
	capPath := filepath.Join(t.TempDir(), "c.ndjson")
	opts := &listenOptions{Capture: capPath, Receiver: receiver.Options{Respond: []string{"AUDIT_PURCHASE_ORDER_INVOICE=500,200"}}}
	var codes []int
	out, errs, err := listenRun(t, opts, func(u string) {
		for range 3 {
			codes = append(codes, postTo(t, u+"?businessType=AUDIT_PURCHASE_ORDER_INVOICE", "application/json", nil, []byte(`{}`)))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if codes[0] != 500 || codes[1] != 200 || codes[2] != 200 {
		t.Errorf("codes %v", codes)
	}
	if strings.Count(out, "\n  → ") != 0 || strings.Count(out, "POST /  AUDIT_PURCHASE_ORDER_INVOICE") != 3 {
		t.Errorf("stdout:\n%s", out)
	}
	for _, want := range []string{"listen stopped: 3 calls", "by event:   AUDIT_PURCHASE_ORDER_INVOICE 3", "by verdict: invalid 3", "by status:  200 2, 500 1", "capture:    " + capPath} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	b, _ := os.ReadFile(capPath)
	if n := bytes.Count(b, []byte(`{"capture":1,`)); n != 3 {
		t.Errorf("%d records", n)
	}
}

// listen warns, on stderr, when it takes calls from every interface, and
// only then.
func TestListenWarnsOnOpenAddress(t *testing.T) {
	t.Parallel()
	for addr, open := range map[string]bool{"127.0.0.1:0": false, "[::1]:0": false, ":0": true, "0.0.0.0:0": true} {
		t.Run(addr, func(t *testing.T) {
			t.Parallel()
			if ln, err := net.Listen("tcp", addr); err != nil {
				t.Skipf("%s: %v", addr, err) // no IPv6 here
			} else {
				ln.Close()
			}
			_, errs, err := listenRun(t, &listenOptions{Addr: addr}, func(string) {})
			if err != nil {
				t.Fatal(err, errs)
			}
			warned := regexp.MustCompile(`(?m)^warning: listening on \S+:(\d+): every network interface, ` +
				`anyone who can reach this machine can send calls \(use --addr 127\.0\.0\.1:(\d+) to keep it local\)$`)
			m := warned.FindStringSubmatch(errs)
			if open != (m != nil) {
				t.Errorf("warning printed %v, want %v:\n%s", m != nil, open, errs)
			}
			if m != nil && m[1] != m[2] {
				t.Errorf("the hint names port %s, listen has %s", m[2], m[1])
			}
		})
	}
}

// listen says when --capture appends to a file that already holds records,
// and how many.
func TestListenSaysItAppends(t *testing.T) {
	t.Parallel()
	capPath := filepath.Join(t.TempDir(), "c.ndjson")
	post := func(n int) func(string) {
		return func(u string) {
			for range n {
				postTo(t, u+"?businessType=CREATE_RECEIVABLE_DOC", "application/json", nil, []byte(`{}`))
			}
		}
	}
	_, errs, _ := listenRun(t, &listenOptions{Capture: capPath}, post(3))
	if strings.Contains(errs, "appending") {
		t.Errorf("a new capture file is said to be appended to:\n%s", errs)
	}
	_, errs, _ = listenRun(t, &listenOptions{Capture: capPath}, post(1))
	if want := "appending to " + capPath + ", which holds 3 records"; !strings.Contains(errs, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errs)
	}
}

// A capture that fails during the run (here: moved away) makes listen exit
// 1, after the summary: a script must know that calls went unrecorded.
func TestListenExitsOneWhenTheCaptureFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	capPath := filepath.Join(dir, "c.ndjson")
	var statuses []int
	_, errs, err := listenRun(t, &listenOptions{Capture: capPath}, func(u string) {
		statuses = append(statuses, postTo(t, u+"?businessType=CREATE_RECEIVABLE_DOC", "application/json", nil, []byte(`{}`)))
		if err := os.Rename(capPath, filepath.Join(dir, "moved.ndjson")); err != nil {
			t.Fatal(err)
		}
		// The file checks its path once per CheckEvery: past it, the next
		// write must find the file gone.
		time.Sleep(capture.CheckEvery)
		statuses = append(statuses, postTo(t, u+"?businessType=CREATE_RECEIVABLE_DOC", "application/json", nil, []byte(`{}`)))
	})
	if len(statuses) != 2 || statuses[0] != 200 || statuses[1] != 503 {
		t.Fatalf("statuses %v, want [200 503]", statuses)
	}
	if err == nil || cmdutil.CodeOf(err, true) != cmdutil.ExitFailed || !strings.Contains(err.Error(), "failed during the run") {
		t.Fatalf("listen returned %v (exit %d), want exit %d saying the capture failed\n%s", err, cmdutil.CodeOf(err, true), cmdutil.ExitFailed, errs)
	}
	if !strings.Contains(errs, "listen stopped: 2 calls") {
		t.Errorf("no summary:\n%s", errs)
	}
}

// A stop is not held for ever by a stdout nobody reads (listen --output
// json | a stopped reader): listen gives up on the output after the
// shutdown's grace, says so and returns; the capture has every call.
func TestListenStopsWhenStdoutIsNotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pr, pw := io.Pipe() // never read until the end: every write blocks
	defer pr.Close()
	// The stop comes once a write to stdout waits: stdout was not read
	// since before it.
	writing := make(chan struct{})
	stdout := &signalWriter{w: pw, first: sync.OnceFunc(func() { close(writing) })}
	opts := &listenOptions{Addr: "127.0.0.1:0", ReadyFile: filepath.Join(dir, "url"), Capture: filepath.Join(dir, "c.ndjson"),
		Fsync: "never", Output: "json", Receiver: receiver.Options{MaxBody: "1MiB", Status: 200}}
	opts.limits = receiver.DefaultLimits
	// The grace listen gives its output, and the calls in flight: those
	// were answered, but on a loaded machine a connection can take tens
	// of milliseconds to go idle after its answer, and the clean clone's
	// CI run had the stop cut it at 50ms (exit 130, "connections still
	// open"). Three seconds; the output's wait is this test's.
	opts.limits.ShutdownTimeout = 3 * time.Second
	errb := &syncBuffer{}
	u, cancel, done := startListen(t, opts, stdout, errb)
	// One connection, the calls one after another: a shared transport
	// may dial a spare connection for a call (its last one not yet back
	// in its pool) that never carries one, and net/http's Shutdown waits
	// 5s for a connection that sent nothing (the clean-clone CI run:
	// "the connections still open 3s after the stop were closed; no
	// call was being answered", exit 130).
	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	for range 3 {
		req, err := http.NewRequest("POST", u+"?businessType=CREATE_RECEIVABLE_DOC", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	<-writing
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("runListen = %v\n%s", err, errb.String())
		}
	case <-time.After(time.Minute): // a hang, not a timing: the grace is 3s
		t.Fatalf("listen did not stop while its stdout was not read:\n%s", errb.String())
	}
	if want := "listen stopped: stdout was not read for 3s after the stop; the last calls are not printed (" + opts.Capture + " has them)"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, errb.String())
	}
	b, err := os.ReadFile(opts.Capture)
	if err != nil || bytes.Count(b, []byte("\n")) != 3 {
		t.Errorf("capture holds %d records (%v), want 3", bytes.Count(b, []byte("\n")), err)
	}
	pr.CloseWithError(io.ErrClosedPipe) // lets the blocked printer finish
}

// signalWriter runs first as its first write begins.
type signalWriter struct {
	w     io.Writer
	first func()
}

func (s *signalWriter) Write(p []byte) (int, error) {
	s.first()
	return s.w.Write(p)
}

// When the stop's grace runs out with the last calls not printed, listen
// says why as far as it knows it: it used to say "stdout was not read" of
// a printer whose write began during the grace (a slow reader) or that was
// still checking calls, and "the capture has them" of calls whose record
// was still being written.
func TestUnprintedWhy(t *testing.T) {
	t.Parallel()
	stop := time.Date(2026, 12, 3, 17, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name       string
		unrecorded int64
		since      time.Time
		want, note string
	}{
		{"a write waiting since before the grace", 0, stop.Add(-time.Second), "stdout was not read for 30s after the stop", " (c.ndjson has them)"},
		{"a write begun as the grace began", 0, stop, "stdout was not read for 30s after the stop", " (c.ndjson has them)"},
		{"a write begun during the grace", 0, stop.Add(time.Second), "stdout was read too slowly to take the last calls within 30s after the stop", " (c.ndjson has them)"},
		{"no write under way", 0, time.Time{}, "the last calls were still being checked 30s after the stop", " (c.ndjson has them)"},
		{"a call not recorded", 1, stop.Add(-time.Second), "1 call was still being read, forwarded or recorded 30s after the stop", " (c.ndjson has them, but for the 1 not recorded)"},
		{"calls not recorded", 2, time.Time{}, "2 calls were still being read, forwarded or recorded 30s after the stop", " (c.ndjson has them, but for the 2 not recorded)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := unprintedWhy(tt.unrecorded, tt.since, stop, 30*time.Second); got != tt.want {
				t.Errorf("unprintedWhy = %q, want %q", got, tt.want)
			}
			if got := unprintedNote("c.ndjson", tt.unrecorded); got != tt.note {
				t.Errorf("unprintedNote = %q, want %q", got, tt.note)
			}
		})
	}
}

// A call still in flight when the stop's grace runs out is cut short as a
// second Ctrl-C would: left unanswered (exit 130), yet recorded, printed
// and counted, with the true reason. It used to be lost (0 calls, no
// record) and listen said only "context deadline exceeded" (exit 1). The
// call's body is half sent, after the 100 Continue that says the handler
// reads it: an event, not a clock (the grace is short so that it runs
// out, whenever it does).
func TestListenGraceOverKeepsTheCallsInFlight(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := &listenOptions{Addr: "127.0.0.1:0", ReadyFile: filepath.Join(dir, "url"), Capture: filepath.Join(dir, "c.ndjson"),
		Fsync: "never", Output: "text", Receiver: receiver.Options{MaxBody: "1MiB", Status: 200}}
	opts.limits = receiver.DefaultLimits
	opts.limits.ShutdownTimeout = 50 * time.Millisecond
	out, errb := &syncBuffer{}, &syncBuffer{}
	u, cancel, done := startListen(t, opts, out, errb)
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", pu.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"requestId":"r1"}`
	fmt.Fprintf(conn, "POST /hook?businessType=CREATE_RECEIVABLE_DOC HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", len(body))
	if l, err := bufio.NewReader(conn).ReadString('\n'); err != nil || !strings.HasPrefix(l, "HTTP/1.1 100 ") {
		t.Fatalf("read %q, %v, want a 100 Continue", l, err)
	}
	io.WriteString(conn, body[:5])
	cancel()
	err = <-done
	if cmdutil.CodeOf(err, true) != cmdutil.ExitInterrupted {
		t.Errorf("listen returned %v (exit %d), want exit %d", err, cmdutil.CodeOf(err, true), cmdutil.ExitInterrupted)
	}
	errs := errb.String()
	for _, want := range []string{"stopped: the calls in flight were still unanswered 50ms after the stop, and were left so\n", "listen stopped: 1 call "} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if want := "listen's 50ms wait for the calls in flight after Ctrl-C or SIGTERM ran out before the answer: the sender did not get the 400"; !strings.Contains(out.String(), want) {
		t.Errorf("stdout lacks %q:\n%s", want, out.String())
	}
	if strings.Contains(out.String(), "closed network connection") || strings.Contains(out.String(), "(answered 400)") {
		t.Errorf("a reason that is not true:\n%s", out.String())
	}
	if b, err := os.ReadFile(opts.Capture); err != nil || bytes.Count(b, []byte("\n")) != 1 {
		t.Errorf("capture holds %d records (%v), want the call's", bytes.Count(b, []byte("\n")), err)
	}
}

// The inspector's missed calls are where listen keeps them: in the
// --capture file it names, or nowhere. It said "the capture has them" of
// a listen without one.
func TestInspectorMissedSaysWhere(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n       uint64
		capture string
		want    string
	}{
		{3, "calls.ndjson", "the inspector missed 3 calls (its queue was full); calls.ndjson has them"},
		{1, "", "the inspector missed 1 call (its queue was full); without --capture they are gone"},
	} {
		if got := inspectorMissed(tc.n, tc.capture); got != tc.want {
			t.Errorf("inspectorMissed(%d, %q) = %q, want %q", tc.n, tc.capture, got, tc.want)
		}
	}
}

// The stop's notice says what it waits for: with only a fault's copies
// out (every sender answered), it said "waiting for the calls in flight
// to be answered", of calls that were (found by fw44).
func TestAwaitedSaysWhatTheStopWaitsFor(t *testing.T) {
	for _, tt := range []struct {
		calls, copies int64
		want          string
	}{
		{1, 0, "the calls in flight to be answered"},
		{0, 1, "1 copy a fault sends after its call's answer to be answered by the receiver"},
		{0, 3, "3 copies a fault sends after their calls' answers to be answered by the receiver"},
		{2, 1, "the calls in flight to be answered, and 1 copy a fault sends after its call's answer to be answered by the receiver"},
	} {
		if got := awaited(tt.calls, tt.copies); got != tt.want {
			t.Errorf("awaited(%d, %d) = %q, want %q", tt.calls, tt.copies, got, tt.want)
		}
	}
}

// A receiver that writes a second answer after each on a kept-alive
// connection, and closes none: listen says once that it keeps no
// connection to it alive, for the stray bytes it saw. It said "the
// receiver closed a kept-alive connection", which this one never did
// (found by fw46).
func TestListenSaysStrayBytesNotAClose(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
				}
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	opts := &listenOptions{Receiver: receiver.Options{ForwardTo: "http://" + ln.Addr().String() + "/hook"}}
	_, errs, err := listenRun(t, opts, func(u string) {
		for range 2 {
			postTo(t, u+"?businessType=AUDIT_PURCHASE_ORDER_INVOICE", "application/json", nil, []byte(`{}`))
		}
	})
	if err != nil {
		t.Fatal(err, errs)
	}
	if n := strings.Count(errs, "forward: the receiver wrote bytes no call asked for after an answer on a kept-alive connection"); n != 1 || strings.Contains(errs, "the receiver closed a kept-alive connection") {
		t.Errorf("stderr says the stray bytes %d times (want once), or a close:\n%s", n, errs)
	}
}
