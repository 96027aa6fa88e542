package receiver

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/validate"
)

// fakeChecker flags bodies that contain "bad", so tests see findings flow
// without depending on the validator's rules.
type fakeChecker struct{}

func (fakeChecker) Check(body []byte, event string) []validate.Finding {
	if bytes.Contains(body, []byte("bad")) {
		return []validate.Finding{{Rule: "fake", Severity: validate.Error, Message: "bad body for " + event}}
	}
	return nil
}

// CheckUTF8 records that the receiver knew the body was valid UTF-8:
// a finding says so when it was not.
func (f fakeChecker) CheckUTF8(body []byte, event string) []validate.Finding {
	if !utf8.Valid(body) {
		return []validate.Finding{{Rule: "fake-utf8", Severity: validate.Error, Message: "CheckUTF8 given a body that is not UTF-8"}}
	}
	return f.Check(body, event)
}

// memRecorder keeps records in memory.
type memRecorder struct {
	mu   sync.Mutex
	recs []*capture.Record
	err  error
}

// Write says a record's offset is its index.
func (m *memRecorder) Write(r *capture.Record) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return 0, m.err
	}
	m.recs = append(m.recs, r)
	return int64(len(m.recs) - 1), nil
}

// observed collects the calls the observer saw.
type observed struct {
	mu    sync.Mutex
	calls []*Call
}

func (o *observed) observe(c *Call) {
	o.mu.Lock()
	o.calls = append(o.calls, c)
	o.mu.Unlock()
}

// start serves a receiver built from cfg; closing it also closes the
// receiver, so every call is observed when it returns.
func start(t *testing.T, cfg Config) (*testServer, *observed, *memRecorder) {
	t.Helper()
	obs := &observed{}
	mem := &memRecorder{}
	if cfg.Capture == nil {
		cfg.Capture = mem
	}
	if cfg.Checker == nil {
		cfg.Checker = fakeChecker{}
	}
	cfg.Observe = obs.observe
	rcv := New(cfg)
	srv := httptest.NewServer(rcv)
	srv.Client().CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	ts := &testServer{Server: srv, rcv: rcv, close: sync.OnceFunc(func() { srv.Close(); rcv.Close() })}
	t.Cleanup(ts.Close)
	return ts, obs, mem
}

// testServer is an httptest server whose Close also closes the receiver,
// so that every call has been observed when it returns.
type testServer struct {
	*httptest.Server
	rcv   *Receiver
	close func()
}

func (s *testServer) Close() { s.close() }

func post(t *testing.T, srv *testServer, event, body string) *http.Response {
	t.Helper()
	u := srv.URL + "/webhook"
	if event != "" {
		u += "?businessType=" + event
	}
	resp, err := srv.Client().Post(u, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

const ev = "AUDIT_PURCHASE_ORDER_INVOICE"

func TestResponseRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cfg   Config
		calls []string // event of each call
		want  []int
	}{
		{"default 200", Config{}, []string{ev, ""}, []int{200, 200}},
		{"status", Config{Status: 202}, []string{ev, ev}, []int{202, 202}},
		{"fail-rate 1 fails every call", Config{FailRate: 1, Seed: 1}, []string{ev, ev, ev}, []int{500, 500, 500}},
		{"fail-rate 0 fails none", Config{FailRate: 0, Status: 204}, []string{ev, ev}, []int{204, 204}},
		{"sequence then last code repeats", Config{Respond: []sequence{{ev, []int{500, 503, 200}}}},
			[]string{ev, ev, ev, ev}, []int{500, 503, 200, 200}},
		{"sequence is per event", Config{Status: 201, Respond: []sequence{{ev, []int{500, 200}}}},
			[]string{"CREATE_RECEIVABLE_DOC", ev, "CREATE_RECEIVABLE_DOC", ev, ""}, []int{201, 500, 201, 200, 201}},
		{"sequence wins over fail-rate", Config{FailRate: 1, Seed: 3, Respond: []sequence{{ev, []int{202}}}},
			[]string{ev, "CREATE_RECEIVABLE_DOC"}, []int{202, 500}},
		{"a later sequence for the event wins", Config{Respond: []sequence{{ev, []int{500}}, {ev, []int{202}}}},
			[]string{ev, ev}, []int{202, 202}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, _, mem := start(t, tt.cfg)
			var got []int
			for _, e := range tt.calls {
				got = append(got, post(t, srv, e, `{}`).StatusCode)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("statuses %v, want %v", got, tt.want)
			}
			for i, r := range mem.recs {
				if r.Response.Status != tt.want[i] {
					t.Errorf("record %d: response %d, want %d", i, r.Response.Status, tt.want[i])
				}
			}
		})
	}
}

// A seeded fail rate answers the same calls 500 every run, and about the
// share asked for.
func TestFailRateSeeded(t *testing.T) {
	t.Parallel()
	run := func(seed uint64) []int {
		srv, _, _ := start(t, Config{FailRate: 0.3, Seed: seed})
		var got []int
		for range 200 {
			got = append(got, post(t, srv, ev, `{}`).StatusCode)
		}
		return got
	}
	a, b, c := run(7), run(7), run(8)
	if !slices.Equal(a, b) {
		t.Error("same seed, different answers")
	}
	if slices.Equal(a, c) {
		t.Error("different seeds, same answers")
	}
	fails := 0
	for _, s := range a {
		if s == 500 {
			fails++
		} else if s != 200 {
			t.Fatalf("status %d", s)
		}
	}
	if fails < 30 || fails > 90 { // 60 expected; far outside means the rate is ignored
		t.Errorf("%d of 200 failed at rate 0.3", fails)
	}
}

func TestDelay(t *testing.T) {
	t.Parallel()
	srv, _, _ := start(t, Config{Delay: 150 * time.Millisecond})
	begin := time.Now()
	post(t, srv, ev, `{}`)
	// A lower bound only: a timer never fires early, however loaded the
	// machine is.
	if d := time.Since(begin); d < 150*time.Millisecond {
		t.Errorf("answered after %v, want at least the 150ms delay", d)
	}
}

func TestForward(t *testing.T) {
	t.Parallel()
	var got struct {
		method, path, query, ct, sig, conn string
		body                               []byte
	}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.method, got.path, got.query = r.Method, r.URL.Path, r.URL.RawQuery
		got.ct, got.sig, got.conn = r.Header.Get("Content-Type"), r.Header.Get("Webhook-Signature"), r.Header.Get("X-Custom-Hop")
		got.body, _ = io.ReadAll(r.Body)
		w.Header().Set("X-Receiver", "theirs")
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "queued\n")
	}))
	defer backend.Close()
	u, _ := url.Parse(backend.URL)
	srv, obs, mem := start(t, Config{ForwardTo: u, Status: 500}) // Status does not apply when forwarding

	body := []byte("{\"a\":\"\xff\xfe\"}") // not UTF-8: forwarded byte for byte all the same
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/hooks/erp?businessType="+ev+"&x=1", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Webhook-Signature", "v1,secret")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	if resp.StatusCode != 202 || string(rb) != "queued\n" || resp.Header.Get("X-Receiver") != "theirs" || resp.Header.Get("Content-Type") != "text/plain" {
		t.Errorf("sender got %d %q %v, want the receiver's 202, body and headers", resp.StatusCode, rb, resp.Header)
	}
	if got.method != "POST" || got.path != "/hooks/erp" || got.query != "businessType="+ev+"&x=1" ||
		!bytes.Equal(got.body, body) || got.ct != "application/json; charset=utf-8" || got.sig != "v1,secret" {
		t.Errorf("receiver got %+v", got)
	}
	srv.Close()
	if len(mem.recs) != 1 {
		t.Fatalf("%d records", len(mem.recs))
	}
	f := mem.recs[0].Forward
	if f == nil || f.Status != 202 || f.Body != "queued\n" || f.Headers.Get("X-Receiver") != "theirs" || f.LatencyMS <= 0 || f.Error != "" {
		t.Errorf("forward recorded as %+v", f)
	}
	if !strings.HasPrefix(f.URL, backend.URL+"/hooks/erp?") {
		t.Errorf("forward URL %q", f.URL)
	}
	if r := mem.recs[0].Response; r.Status != 202 || r.Body != "queued\n" {
		t.Errorf("response recorded as %+v", r)
	}
	_ = obs
}

func TestForwardFixedPathAndFailure(t *testing.T) {
	t.Parallel()
	var path string
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.Path + "?" + r.URL.RawQuery
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	u, _ := url.Parse(backend.URL + "/their/path?token=t")
	srv, _, mem := start(t, Config{ForwardTo: u})
	// A redirect comes back to the sender as it is, never followed.
	if s := post(t, srv, ev, `{}`).StatusCode; s != http.StatusFound {
		t.Errorf("status %d, want the receiver's 302", s)
	}
	if path != "/their/path?token=t&businessType="+ev {
		t.Errorf("forwarded to %q", path)
	}
	backend.Close()
	if s := post(t, srv, ev, `{}`).StatusCode; s != http.StatusBadGateway {
		t.Errorf("status %d with the receiver down, want 502", s)
	}
	srv.Close()
	if f := mem.recs[1].Forward; f == nil || f.Error == "" || mem.recs[1].Response.Status != 502 {
		t.Errorf("failed forward recorded as %+v", f)
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	srv, obs, mem := start(t, Config{MaxBody: 100})
	big := strings.Repeat("x", 101)
	if s := post(t, srv, ev, big).StatusCode; s != 413 {
		t.Errorf("status %d, want 413", s)
	}
	// Without a Content-Length the limit holds while reading.
	req, _ := http.NewRequest("POST", srv.URL+"/?businessType="+ev, io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 413 {
		t.Errorf("chunked: status %d, want 413", resp.StatusCode)
	}
	if s := post(t, srv, ev, strings.Repeat("x", 100)).StatusCode; s != 200 {
		t.Errorf("at the limit: status %d, want 200", s)
	}
	srv.Close()
	if len(mem.recs) != 3 || mem.recs[0].Response.Status != 413 || mem.recs[0].Body != "" {
		t.Fatalf("records %+v", mem.recs)
	}
	if !obs.calls[0].TooLarge || !hasRule(obs.calls[0], ruleBodyLimit) {
		t.Errorf("oversized call not flagged: %+v", obs.calls[0].Findings)
	}
	// The records of the two over the limit, sized or chunked, say the body
	// was not kept; the one at the limit is as every record was.
	for i, want := range []int64{100, 100, 0} {
		if got := mem.recs[i].BodyOverLimit; got != want {
			t.Errorf("record %d: BodyOverLimit %d, want %d", i, got, want)
		}
	}
	// Read back from its record (the inspector's store of a capture), an
	// oversized call gets the finding listen gave it.
	rcv := New(Config{MaxBody: 100, Checker: fakeChecker{}})
	defer rcv.Close()
	for i := range 2 {
		fs := rcv.CheckRecord(mem.recs[i])
		want := validate.Finding{Rule: ruleBodyLimit, Severity: validate.Error, Message: "body over the 100-byte limit (answered 413)"}
		if !slices.Contains(fs, want) {
			t.Errorf("record %d: CheckRecord = %+v, want %+v", i, fs, want)
		}
	}
}

func hasRule(c *Call, rule string) bool {
	return slices.ContainsFunc(c.Findings, func(f validate.Finding) bool { return f.Rule == rule })
}

// Calls a receiver developer needs to see are answered, recorded and
// flagged rather than refused.
func TestOddCallsFlagged(t *testing.T) {
	t.Parallel()
	srv, obs, mem := start(t, Config{Path: "/webhook"})
	do := func(method, path, ct, body string) int {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	tests := []struct {
		method, path, ct, body string
		status                 int
		rules                  []string
		verdict                string
	}{
		{"POST", "/webhook?businessType=" + ev, "application/json", `{}`, 200, nil, "valid"},
		{"GET", "/webhook?businessType=" + ev, "", ``, 200, []string{validate.RuleHTTPMethod, validate.RuleHTTPContentType}, "invalid"},
		{"POST", "/webhook?businessType=" + ev, "text/plain", `bad`, 200, []string{validate.RuleHTTPContentType, "fake"}, "invalid"},
		{"POST", "/webhook", "application/json", `{}`, 200, []string{validate.RuleQueryEvent}, "invalid"},
		// the event named twice, differently: receivers read either
		{"POST", "/webhook?businessType=" + ev + "&businessType=ABANDON_RECEIVABLE_DOC", "application/json", `{}`, 200, []string{validate.RuleQueryEvent}, "invalid"},
		// the same twice: Spring reads them joined, "A,A"
		{"POST", "/webhook?businessType=" + ev + "&businessType=" + ev, "application/json", `{}`, 200, []string{validate.RuleQueryRepeated}, "warning"},
		{"POST", "/other?businessType=" + ev, "application/json", `{}`, 404, []string{rulePath}, "invalid"},
	}
	for _, tt := range tests {
		if s := do(tt.method, tt.path, tt.ct, tt.body); s != tt.status {
			t.Errorf("%s %s: status %d, want %d", tt.method, tt.path, s, tt.status)
		}
	}
	srv.Close()
	if len(mem.recs) != len(tests) || len(obs.calls) != len(tests) {
		t.Fatalf("%d records, %d observed, want %d", len(mem.recs), len(obs.calls), len(tests))
	}
	for i, tt := range tests {
		c := obs.calls[i]
		var rules []string
		for _, f := range c.Findings {
			rules = append(rules, f.Rule)
		}
		if !slices.Equal(rules, tt.rules) || c.Verdict() != tt.verdict {
			t.Errorf("%s %s: rules %v verdict %s, want %v %s", tt.method, tt.path, rules, c.Verdict(), tt.rules, tt.verdict)
		}
	}
}

// TestQueryPairSkippedNamed: a call whose businessType pair does not parse
// (a ';' in it) is not said to have no businessType: the finding names the
// pair that Go drops and other receivers read.
func TestQueryPairSkippedNamed(t *testing.T) {
	t.Parallel()
	srv, obs, _ := start(t, Config{})
	resp, err := srv.Client().Post(srv.URL+"/webhook?businessType="+ev+";x=1", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	srv.Close()
	var got []string
	for _, f := range obs.calls[0].Findings {
		if f.Rule == validate.RuleQueryEvent {
			got = append(got, f.Message)
		}
	}
	want := "query has no businessType a Go receiver reads: its pair \"businessType=" + ev + ";x=1\" does not parse (invalid semicolon separator in query), so Go's URL.Query drops it, while receivers that split on '&' alone (Express, PHP) read it (want one of " + eventList() + ")"
	if len(got) != 1 || got[0] != want {
		t.Errorf("query-event findings %q, want [%q]", got, want)
	}
}

func TestCaptureFailureAnswers500(t *testing.T) {
	t.Parallel()
	mem := &memRecorder{err: errors.New("disk full")}
	srv, obs, _ := start(t, Config{Capture: mem})
	if s := post(t, srv, ev, `{}`).StatusCode; s != 500 {
		t.Errorf("status %d, want 500 when the call cannot be recorded", s)
	}
	srv.Close()
	if c := obs.calls[0]; c.CaptureErr == nil || c.Offset != -1 {
		t.Errorf("capture error %v, offset %d; want the error and no offset", c.CaptureErr, c.Offset)
	}
}

// A client that sends its headers one byte a second is cut off by
// ReadHeaderTimeout, long before it finishes.
func TestSlowHeadersCutOff(t *testing.T) {
	t.Parallel()
	rcv := New(Config{})
	defer rcv.Close()
	lim := DefaultLimits
	lim.ReadHeaderTimeout = 300 * time.Millisecond
	s, err := Listen("127.0.0.1:0", rcv, lim)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	defer func() { cancel(); <-done }()

	conn, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST /?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n"
	closed := make(chan struct{})
	go func() {
		io.Copy(io.Discard, conn) // returns when the server closes the connection
		close(closed)
	}()
	sent := 0
	tick := time.NewTicker(time.Second / 10) // ten times faster than one a second; still cut off
	defer tick.Stop()
	for sent < len(head) {
		select {
		case <-closed:
			if sent >= len(head) {
				t.Fatal("headers complete before the cut")
			}
			return
		case <-tick.C:
			if _, err := conn.Write([]byte{head[sent]}); err != nil {
				return // reset by the server: cut off
			}
			sent++
		}
	}
	t.Fatalf("sent all %d header bytes without being cut off", len(head))
}

// The capture file round-trips every call byte for byte, a non-UTF-8 body
// included, and is created 0600.
func TestCaptureRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.ndjson")
	f, torn, err := capture.OpenFile(path, capture.SyncAlways)
	if err != nil || torn {
		t.Fatal(err, torn)
	}
	srv, obs, _ := start(t, Config{Capture: f})
	bodies := [][]byte{
		[]byte(`{"requestId":"x","data":{"收款单":{"汇率":7.1}}}`),
		{0xff, 0xfe, 0x00, '{', 0x1b, '[', '2', 'J'},
		[]byte("line\nwith\ttabs and \u2028 and </script>"),
		{},
	}
	for _, b := range bodies {
		req, _ := http.NewRequest("POST", srv.URL+"/w?businessType="+ev+"&a=%20b", bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer s3cret")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	srv.Close()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	recs := readAll(t, path)
	if len(recs) != len(bodies) {
		t.Fatalf("%d records, want %d", len(recs), len(bodies))
	}
	for i, r := range recs {
		got, err := r.RequestBody()
		if err != nil || !bytes.Equal(got, bodies[i]) {
			t.Errorf("record %d body %q (%v), want %q", i, got, err, bodies[i])
		}
		if r.Query != "businessType="+ev+"&a=%20b" || r.Method != "POST" || r.Path != "/w" ||
			r.Headers.Get("Authorization") != "Bearer s3cret" || r.Response.Status != 200 || r.Remote == "" {
			t.Errorf("record %d: %+v", i, r)
		}
	}
	if recs[1].BodyEncoding != capture.Base64 || recs[0].BodyEncoding != capture.UTF8 {
		t.Errorf("encodings %s %s", recs[0].BodyEncoding, recs[1].BodyEncoding)
	}
	// Each call says where its record is: a reader started there reads it.
	file, _ := os.ReadFile(path)
	for i, c := range obs.calls {
		if c.Offset < 0 || c.Offset >= int64(len(file)) {
			t.Fatalf("call %d: offset %d in a %d-byte file", i, c.Offset, len(file))
		}
		r, err := capture.NewReader(bytes.NewReader(file[c.Offset:])).Next()
		if got, _ := r.RequestBody(); err != nil || !bytes.Equal(got, c.Body) {
			t.Errorf("call %d: at offset %d, body %q (%v), want %q", i, c.Offset, got, err, c.Body)
		}
	}
}

func readAll(t *testing.T, path string) []*capture.Record {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []*capture.Record
	rd := capture.NewReader(fh)
	for {
		r, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		out = append(out, r)
	}
}

// Shutting down with calls in flight: each is finished, answered,
// recorded and observed.
func TestGracefulShutdownLosesNothing(t *testing.T) {
	t.Parallel()
	const n = 20
	path := filepath.Join(t.TempDir(), "c.ndjson")
	f, _, err := capture.OpenFile(path, capture.SyncInterval)
	if err != nil {
		t.Fatal(err)
	}
	obs := &observed{}
	rcv := New(Config{Delay: 300 * time.Millisecond, Capture: f, Observe: obs.observe, Checker: fakeChecker{}})
	var arrived sync.WaitGroup
	arrived.Add(n)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { arrived.Done(); rcv.ServeHTTP(w, r) })
	s, err := Listen("127.0.0.1:0", h, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()

	statuses := make(chan int, n)
	for range n {
		go func() {
			resp, err := http.Post(s.URL()+"/?businessType="+ev, "application/json", strings.NewReader(`{}`))
			if err != nil {
				statuses <- 0
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		}()
	}
	arrived.Wait() // every call is inside the handler, sleeping its delay
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	rcv.Close()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for range n {
		if s := <-statuses; s != 200 {
			t.Errorf("a call in flight got %d", s)
		}
	}
	if got := len(readAll(t, path)); got != n {
		t.Errorf("%d records, want %d", got, n)
	}
	if len(obs.calls) != n {
		t.Errorf("%d observed, want %d", len(obs.calls), n)
	}
}

// A full queue holds handlers back instead of dropping calls.
func TestQueueBackPressure(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var mu sync.Mutex
	seen := 0
	rcv := New(Config{Queue: 1, Observe: func(*Call) {
		<-release
		mu.Lock()
		seen++
		mu.Unlock()
	}})
	srv := &testServer{Server: httptest.NewServer(rcv)}
	srv.close = srv.Server.Close
	defer srv.Close()
	const n = 5
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { post(t, srv, ev, `{}`) })
	}
	time.Sleep(50 * time.Millisecond) // let the queue fill; correctness does not depend on it
	close(release)
	wg.Wait()
	srv.Close()
	rcv.Close()
	if seen != n {
		t.Errorf("observed %d of %d calls", seen, n)
	}
}

// serve runs rcv on a real listener with lim, as listen does, until the
// test ends.
func serve(t *testing.T, rcv *Receiver, lim Limits) string {
	t.Helper()
	return serveAfter(t, rcv, lim, nil)
}

// serveAfter is serve that runs first(addr), when set, on the listening
// socket before the server serves: what it sends waits in the accept
// queue, and is in the server's first read however late a loaded machine
// runs the test (a time limit starts as the server reads).
func serveAfter(t *testing.T, rcv *Receiver, lim Limits, first func(addr string)) string {
	t.Helper()
	s, err := Listen("127.0.0.1:0", rcv, lim)
	if err != nil {
		t.Fatal(err)
	}
	if first != nil {
		first(s.Addr().String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return s.Addr().String()
}

// rawSent writes raw on a fresh connection, half-closed when asked, and
// returns it, closed when the test ends.
func rawSent(t *testing.T, addr, raw string, halfClose bool) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, raw); err != nil {
		t.Fatal(err)
	}
	if halfClose {
		conn.(*net.TCPConn).CloseWrite()
	}
	return conn
}

// answerTo is the status of the answer on conn, 0 when the connection
// was cut without one.
func answerTo(conn net.Conn) int {
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A body that is not read whole is never answered 2xx: what arrived is
// recorded, flagged, and answered 400 (malformed, cut short) or 408 (too
// slow).
func TestIncompleteBodyRecordedNot2xx(t *testing.T) {
	t.Parallel()
	head := "POST /?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
	tests := []struct {
		name      string
		raw       string
		halfClose bool
		status    int
		body      string
	}{
		{"malformed chunked", head + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n", false, 400, "{}"},
		{"half-closed before Content-Length", head + "Content-Length: 10\r\n\r\n{\"a\"", true, 400, `{"a"`},
		{"not finished within the read timeout", head + "Content-Length: 10\r\n\r\n{\"a\"", false, 408, `{"a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mem := &memRecorder{}
			obs := &observed{}
			rcv := New(Config{Capture: mem, Checker: fakeChecker{}, Observe: obs.observe})
			lim := DefaultLimits
			lim.ReadTimeout = 500 * time.Millisecond
			// Sent before the server serves: written after, a write a
			// loaded machine held past the read timeout found the
			// connection ended with nothing read, which is no call.
			var conn net.Conn
			serveAfter(t, rcv, lim, func(addr string) { conn = rawSent(t, addr, tt.raw, tt.halfClose) })
			if s := answerTo(conn); s != tt.status {
				t.Errorf("status %d, want %d", s, tt.status)
			}
			rcv.Close()
			if len(mem.recs) != 1 {
				t.Fatalf("%d records, want 1", len(mem.recs))
			}
			if r := mem.recs[0]; r.Body != tt.body || r.Response == nil || r.Response.Status != tt.status {
				t.Errorf("record body %q response %+v, want %q and %d", r.Body, r.Response, tt.body, tt.status)
			}
			if len(obs.calls) != 1 || !hasRule(obs.calls[0], ruleBodyIncomplete) || obs.calls[0].Verdict() != "invalid" {
				t.Errorf("call not flagged %s: %+v", ruleBodyIncomplete, obs.calls)
			}
		})
	}
}

// A capture file deleted while listen runs: no call is acknowledged after
// it (503), and the reason is reported once, not per call.
func TestCaptureGoneAnswers503(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "c.ndjson")
	f, _, err := capture.OpenFile(path, capture.SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lost []error
	srv, obs, _ := start(t, Config{Capture: f, CaptureLost: func(err error) { lost = append(lost, err) }})
	if s := post(t, srv, ev, `{}`).StatusCode; s != 200 {
		t.Fatalf("status %d before the file was deleted", s)
	}
	os.Remove(path)
	time.Sleep(2 * capture.CheckEvery) // the next write checks
	for range 2 {
		if s := post(t, srv, ev, `{}`).StatusCode; s != http.StatusServiceUnavailable {
			t.Errorf("status %d after the capture file was deleted, want 503", s)
		}
	}
	srv.Close()
	if len(lost) != 1 || !errors.Is(lost[0], capture.ErrGone) {
		t.Errorf("CaptureLost called with %v, want ErrGone once", lost)
	}
	if obs.calls[2].CaptureErr == nil {
		t.Error("the call not recorded is not flagged")
	}
}

// A call read back from the capture is checked as it was when it arrived:
// the protocol problems as well as the body's.
func TestCheckRecordFindsWhatTheCallShowed(t *testing.T) {
	t.Parallel()
	obs := &observed{}
	rcv := New(Config{Path: "/webhook", Checker: fakeChecker{}, Observe: obs.observe})
	srv := httptest.NewServer(rcv)
	calls := []struct{ method, path, query, ctype, body string }{
		{"POST", "/webhook", "businessType=" + ev, "application/json", `{}`},
		{"PUT", "/other", "", "text/plain", `bad`},
		{"POST", "/webhook", "businessType=" + ev, "application/json; charset=utf-8", `{"bad":1}`},
	}
	for _, c := range calls {
		req, _ := http.NewRequest(c.method, srv.URL+c.path+"?"+c.query, strings.NewReader(c.body))
		req.Header.Set("Content-Type", c.ctype)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	srv.Close()
	rcv.Close()
	if len(obs.calls) != len(calls) {
		t.Fatalf("%d calls observed, want %d", len(obs.calls), len(calls))
	}
	rules := func(fs []validate.Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Rule+": "+f.Message)
		}
		return out
	}
	for i, c := range obs.calls {
		if got, want := rules(rcv.CheckRecord(c.Record)), rules(c.Findings); !slices.Equal(got, want) {
			t.Errorf("call %d: CheckRecord %q, the call had %q", i, got, want)
		}
	}
	if len(obs.calls[1].Findings) < 4 {
		t.Errorf("call 1 shows %q; want method, path, content type, query and body findings", rules(obs.calls[1].Findings))
	}
}

// A call with trailers is taken as it is, with a warning that the
// trailers' values are not kept: a record holds headers and body only.
// Its record gives the same warning, from the Trailer header.
func TestTrailersWarned(t *testing.T) {
	t.Parallel()
	obs := &observed{}
	rcv := New(Config{Observe: obs.observe})
	srv := httptest.NewServer(rcv)
	req, _ := http.NewRequest("POST", srv.URL+"/?businessType="+ev, io.MultiReader(strings.NewReader(`{}`)))
	req.ContentLength = -1 // chunked: trailers ride after the last chunk
	req.Header.Set("Content-Type", "application/json")
	req.Trailer = http.Header{"X-Checksum": {"abc"}}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	srv.Close()
	rcv.Close()
	if resp.StatusCode != 200 || len(obs.calls) != 1 {
		t.Fatalf("status %d, %d calls", resp.StatusCode, len(obs.calls))
	}
	c := obs.calls[0]
	var got []validate.Finding
	for _, f := range c.Findings {
		if f.Rule == ruleTrailers {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Severity != validate.Warning || !strings.Contains(got[0].Message, `"X-Checksum"`) {
		t.Fatalf("findings %+v, want one warning naming X-Checksum", c.Findings)
	}
	if again := rcv.CheckRecord(c.Record); !slices.ContainsFunc(again, func(f validate.Finding) bool { return f == got[0] }) {
		t.Errorf("CheckRecord %+v lacks %+v", again, got[0])
	}
}

// CloseWithin gives up on an observer that is stuck (the channel says
// when), and reports whether every call was observed.
func TestCloseWithin(t *testing.T) {
	t.Parallel()
	unblock := make(chan struct{})
	observed := make(chan struct{}, 4)
	rcv := New(Config{Queue: 1, Observe: func(*Call) { observed <- struct{}{}; <-unblock }})
	srv := httptest.NewServer(rcv)
	for range 2 {
		resp, err := srv.Client().Post(srv.URL+"/?businessType="+ev, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	srv.Close()
	<-observed // the observer holds the first call
	stuck := make(chan time.Time)
	close(stuck)
	if rcv.CloseWithin(stuck).Observed {
		t.Fatal("CloseWithin reports every call observed while the observer is stuck")
	}
	close(unblock)
	<-observed // the second call, still observed once the observer is free
	if !rcv.CloseWithin(make(chan time.Time)).Observed {
		t.Fatal("CloseWithin gave up without being told to")
	}
}

// A sender that gives up before the answer (its timeout shorter than
// --delay, the very thing --delay is there to show) never got the status
// listen answered: the call says so, rather than read as acknowledged.
func TestSenderGoneBeforeTheAnswer(t *testing.T) {
	t.Parallel()
	taken := make(chan struct{}) // the receiver has the call: Now is its first step
	var once sync.Once
	now := func() time.Time { once.Do(func() { close(taken) }); return time.Now() }
	srv, obs, mem := start(t, Config{Delay: time.Hour, Now: now})
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	body := `{}`
	fmt.Fprintf(conn, "POST /webhook?businessType=%s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", ev, len(body), body)
	<-taken
	conn.Close() // gone before the hour is up
	srv.Close()  // returns once the call has been observed
	if len(obs.calls) != 1 || len(mem.recs) != 1 {
		t.Fatalf("%d calls observed, %d recorded, want 1", len(obs.calls), len(mem.recs))
	}
	c := obs.calls[0]
	i := slices.IndexFunc(c.Findings, func(f validate.Finding) bool { return f.Rule == ruleSenderGone })
	if i < 0 || c.Findings[i].Severity != validate.Warning || !strings.Contains(c.Findings[i].Message, "did not wait for the 200") {
		t.Errorf("findings %+v, want the warning %s saying the sender did not wait for the 200", c.Findings, ruleSenderGone)
	}
	if !c.Unanswered {
		t.Errorf("the call of a sender gone is not Unanswered: listen's summary counts its 200 as one the sender got")
	}

	// A sender that waits for its answer is not flagged.
	srv2, obs2, _ := start(t, Config{Delay: time.Millisecond})
	post(t, srv2, ev, `{}`)
	srv2.Close()
	if len(obs2.calls) != 1 || slices.ContainsFunc(obs2.calls[0].Findings, func(f validate.Finding) bool { return f.Rule == ruleSenderGone }) {
		t.Errorf("a sender that waited: findings %+v", obs2.calls[0].Findings)
	}
	if obs2.calls[0].Unanswered {
		t.Errorf("a sender that waited for its answer: Unanswered")
	}
}

// A body sent with Content-Encoding is checked as the document it decodes
// to, recorded as the bytes that came; one that cannot be decoded is said
// to be so, not reported as a JSON syntax error.
func TestCompressedBodies(t *testing.T) {
	t.Parallel()
	// Padded: it compresses to far less than its size.
	doc := `{"requestId":"11111111-2222-4333-8444-555555555555","bad":1` + strings.Repeat(" ", 2000) + "}"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(doc))
	zw.Close()
	for _, tc := range []struct {
		name, encoding string
		body           []byte
		maxBody        int64
		want           string // the rule of the only finding
		wantID         string // the requestId read from the call
	}{
		{"gzip", "gzip", gz.Bytes(), 0, "fake", "11111111-2222-4333-8444-555555555555"},
		{"gzip cut short", "gzip", gz.Bytes()[:gz.Len()-4], 0, validate.RuleContentEncoding, ""},
		{"unknown", "br", gz.Bytes(), 0, validate.RuleContentEncoding, ""},
		{"over the body limit decoded", "gzip", gz.Bytes(), int64(gz.Len()) + 1, validate.RuleContentEncoding, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, obs, mem := start(t, Config{MaxBody: tc.maxBody})
			req, _ := http.NewRequest("POST", srv.URL+"/?businessType="+ev, bytes.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Content-Encoding", tc.encoding)
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			srv.Close()
			c := obs.calls[0]
			if len(c.Findings) != 1 || c.Findings[0].Rule != tc.want {
				t.Fatalf("findings %+v, want one %s", c.Findings, tc.want)
			}
			if tc.wantID != "" && !strings.Contains(string(c.Content), tc.wantID) {
				t.Errorf("Content = %q, want the decoded document", c.Content)
			}
			got, _ := mem.recs[0].RequestBody()
			if !bytes.Equal(got, tc.body) {
				t.Errorf("recorded body %q, want the bytes sent %q", got, tc.body)
			}
			// Read back from its record, the call gets the same findings.
			rcv := New(Config{MaxBody: tc.maxBody, Checker: fakeChecker{}})
			defer rcv.Close()
			if fs := rcv.CheckRecord(mem.recs[0]); len(fs) != 1 || fs[0].Rule != tc.want {
				t.Errorf("CheckRecord = %+v, want one %s", fs, tc.want)
			}
		})
	}
}

// methodChecker names, as its one finding's rule, the method the receiver
// checked a body with.
type methodChecker struct{}

func (methodChecker) Check([]byte, string) []validate.Finding {
	return []validate.Finding{{Rule: "Check"}}
}

func (methodChecker) CheckUTF8([]byte, string) []validate.Finding {
	return []validate.Finding{{Rule: "CheckUTF8"}}
}

// A body is checked as known UTF-8 only when its record found it so, as
// it came: the validator then skips its own UTF-8 checks, which must
// never be skipped on a body that is not UTF-8.
func TestCheckUTF8OnlyWhenKnown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		body []byte
		want string
	}{
		{"UTF-8", []byte(`{"收款单":{"收款单编号":"SKD1"}}`), "CheckUTF8"},
		{"ASCII", []byte(`{"a":1}`), "CheckUTF8"},
		{"empty", nil, "CheckUTF8"},
		{"not UTF-8", []byte("{\"a\":\"\xff\xfe\"}"), "Check"},
		{"a sequence cut short", []byte("{\"a\":\"\xe6\x94\"}"), "Check"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, obs, _ := start(t, Config{Checker: methodChecker{}})
			req, _ := http.NewRequest("POST", srv.URL+"/?businessType="+ev, bytes.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			srv.Close()
			if fs := obs.calls[0].Findings; len(fs) != 1 || fs[0].Rule != tc.want {
				t.Fatalf("findings %+v, want the body checked by %s", fs, tc.want)
			}
		})
	}
}

// A call that names businessType more than once is in doubt: with two
// values the finding (an error) names both and what receivers read
// (Express made an array of them, not the first as the message said;
// Spring joins them); with the same value twice, which listen passed
// without a word, a warning says that Spring reads "A,A".
func TestQueryNamedTwice(t *testing.T) {
	t.Parallel()
	srv, obs, _ := start(t, Config{})
	for _, q := range []string{"businessType=" + ev + "&businessType=ABANDON_RECEIVABLE_DOC", "businessType=" + ev + "&businessType=" + ev} {
		resp, err := srv.Client().Post(srv.URL+"/webhook?"+q, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	srv.Close()
	if len(obs.calls) != 2 {
		t.Fatalf("%d calls", len(obs.calls))
	}
	find := func(c *Call, rule string) *validate.Finding {
		for i, f := range c.Findings {
			if f.Rule == rule {
				return &c.Findings[i]
			}
		}
		return nil
	}
	two := find(obs.calls[0], validate.RuleQueryEvent)
	if two == nil || two.Severity != validate.Error {
		t.Fatalf("two values: findings %+v, want a query-event error", obs.calls[0].Findings)
	}
	for _, want := range []string{`"` + ev + `"`, `"ABANDON_RECEIVABLE_DOC"`, `"` + ev + `,ABANDON_RECEIVABLE_DOC"`, "Express makes an array", "PHP"} {
		if !strings.Contains(two.Message, want) {
			t.Errorf("two values: %q lacks %s", two.Message, want)
		}
	}
	same := find(obs.calls[1], validate.RuleQueryRepeated)
	if same == nil || same.Severity != validate.Warning || !strings.Contains(same.Message, `"`+ev+","+ev+`"`) {
		t.Errorf("the same value twice: findings %+v, want a query-event-repeated warning saying what Spring reads", obs.calls[1].Findings)
	}
	if f := find(obs.calls[1], validate.RuleQueryEvent); f != nil {
		t.Errorf("the same value twice: %+v, want no query-event error", f)
	}
}

// TestContentTypeMissingSaidSo: a call without a Content-Type is said to
// have none, not to have one named "none" (which a sender may send, and
// which reads the same way quoted).
func TestContentTypeMissingSaidSo(t *testing.T) {
	t.Parallel()
	srv, obs, _ := start(t, Config{})
	for _, ct := range []string{"", "none"} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhook?businessType="+ev, strings.NewReader(`{}`))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	srv.Close()
	want := []string{"no content type, the spec sends application/json", `content type "none", the spec sends application/json`}
	for i, w := range want {
		var got []string
		for _, f := range obs.calls[i].Findings {
			if f.Rule == validate.RuleHTTPContentType {
				got = append(got, f.Message)
			}
		}
		if len(got) != 1 || got[0] != w {
			t.Errorf("call %d: content-type findings %q, want [%q]", i, got, w)
		}
	}
}
