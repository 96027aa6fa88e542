package receiver

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/validate"
)

// A declared Content-Length costs no memory until its bytes arrive: 50
// connections declaring 10 MB each and sending a byte hold kilobytes, not
// 500 MB. Not parallel: the heap is measured while nothing else runs.
func TestDeclaredSizeIsNotMemory(t *testing.T) {
	const conns = 50
	rcv := New(Config{Capture: &memRecorder{}})
	defer rcv.Close()
	addr := serve(t, rcv, DefaultLimits)

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	head := fmt.Sprintf("POST /?businessType=%s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", ev, 10<<20)
	for range conns {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, head); err != nil {
			t.Fatal(err)
		}
	}
	// Measure once every handler waits inside readBody for the bytes its
	// Content-Length declares: whatever it allocates for them it has by then.
	if n := waitInReadBody(t, conns); n < conns {
		t.Fatalf("%d of %d handlers reached readBody", n, conns)
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 16<<20 {
		t.Errorf("heap grew %d MB for %d connections that declared 10 MB and sent 1 byte, want under 16 MB", grew>>20, conns)
	}
}

// A large body holds its share of the budget until it has been observed;
// another waits for it, then goes through: nothing is refused or lost.
func TestBodyBudgetBoundsBodiesInFlight(t *testing.T) {
	t.Parallel()
	mem := &memRecorder{}
	hold := make(chan struct{})
	var observed atomic.Int32
	rcv := New(Config{BodyBudget: 1 << 20, MaxBody: 1 << 20, Capture: mem, Observe: func(*Call) {
		<-hold
		observed.Add(1)
	}})
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	body := `"` + strings.Repeat("x", 600<<10) + `"`
	send := func() int {
		resp, err := srv.Client().Post(srv.URL+"/?businessType="+ev, "application/json", strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// The second body waits for the budget: its handler blocks in the
	// budget's Acquire (a wait seen, not a time let pass, which on a loaded
	// machine ran out before the second call was even read).
	secondWaitsForBudget(t, send, hold, "body")
	srv.Close()
	rcv.Close()
	if len(mem.recs) != 2 || observed.Load() != 2 || mem.recs[1].Body != body {
		t.Errorf("%d records, %d observed, want 2 whole", len(mem.recs), observed.Load())
	}
}

// A body refused because listen was busy says when to try again; the
// sender's own faults do not.
func TestBodyErrAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err        error
		status     int
		retryAfter string
	}{
		{errBusy, 503, "1"},
		{io.ErrUnexpectedEOF, 400, ""},
		{&net.OpError{Op: "read", Err: timeoutErr{}}, 408, ""},
	}
	for _, tt := range tests {
		w := httptest.NewRecorder()
		bodyErrAnswer(tt.err).write(w)
		if w.Code != tt.status || w.Header().Get("Retry-After") != tt.retryAfter || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%v: status %d, Retry-After %q, Content-Type %q; want %d, %q, application/json",
				tt.err, w.Code, w.Header().Get("Retry-After"), w.Header().Get("Content-Type"), tt.status, tt.retryAfter)
		}
		// The finding names the status the call was answered with.
		rcv := New(Config{Path: "/webhook", Checker: fakeChecker{}})
		c := &Call{Record: &capture.Record{Method: http.MethodPost, Path: "/webhook"}, BodyErr: tt.err}
		want := "(answered " + strconv.Itoa(tt.status) + ")"
		if fs := rcv.protocolFindings(c); !slices.ContainsFunc(fs, func(f validate.Finding) bool {
			return f.Rule == ruleBodyIncomplete && strings.HasSuffix(f.Message, want)
		}) {
			t.Errorf("%v: findings %v, want %s saying %s", tt.err, fs, ruleBodyIncomplete, want)
		}
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// waitInReadBody polls the goroutines' stacks until n of them are in the
// receiver's readBody (or 10 s pass) and returns how many are.
func waitInReadBody(t *testing.T, n int) int {
	t.Helper()
	return waitInStack(t, "receiver.(*Receiver).readBody(", n)
}

// waitInStack polls the goroutines' stacks until n of them are in frame
// (or 10 s pass: a bound that ends a failing test, not a time a passing
// one relies on) and returns how many are.
func waitInStack(t *testing.T, frame string, n int) int {
	t.Helper()
	buf := make([]byte, 4<<20)
	in := 0
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		stacks := string(buf[:runtime.Stack(buf, true)])
		in = strings.Count(stacks, frame)
		if in >= n || time.Now().After(deadline) {
			return in
		}
	}
}

// A receiver's large answer holds its share of the budget until its call
// has been observed, as a large call body does; another waits for it,
// then goes through whole. Forwarded answers were read whatever their
// number: 50 senders each given a 9 MB answer held listen at 3 GB.
func TestBodyBudgetBoundsAnswersInFlight(t *testing.T) {
	t.Parallel()
	answer := `"` + strings.Repeat("x", 600<<10) + `"`
	be := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	}))
	defer be.Close()
	u, _ := url.Parse(be.URL + "/hook")
	mem := &memRecorder{}
	hold := make(chan struct{})
	var observed atomic.Int32
	rcv := New(Config{ForwardTo: u, BodyBudget: 1 << 20, MaxBody: 1 << 20, Capture: mem, Observe: func(*Call) {
		<-hold
		observed.Add(1)
	}})
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	send := func() int {
		resp, err := srv.Client().Post(srv.URL+"/?businessType="+ev, "application/json", strings.NewReader(`{"a":1}`))
		if err != nil {
			t.Error(err)
			return 0
		}
		defer resp.Body.Close()
		if b, _ := io.ReadAll(resp.Body); string(b) != answer {
			t.Errorf("the sender got %d bytes, want the receiver's %d", len(b), len(answer))
		}
		return resp.StatusCode
	}
	// The second answer waits for the budget the first, not yet
	// observed, holds: its handler blocks in the budget's Acquire.
	secondWaitsForBudget(t, send, hold, "answer")
	srv.Close()
	rcv.Close()
	if len(mem.recs) != 2 || observed.Load() != 2 {
		t.Fatalf("%d records, %d observed, want 2", len(mem.recs), observed.Load())
	}
	for i, rec := range mem.recs {
		if rec.Forward == nil || rec.Forward.Body != answer || rec.Forward.Error != "" {
			t.Errorf("record %d: forward %.80v, want the receiver's whole answer", i, rec.Forward)
		}
	}
}

// A call whose own body holds most of the budget still has its answer
// read: the answer takes what the budget has left beside it, never more
// than the budget in all, which the call alone would wait for in vain
// (30 s, then a 502 for an answer the receiver gave).
func TestBodyBudgetAnswerBesideItsCall(t *testing.T) {
	t.Parallel()
	answer := `"` + strings.Repeat("y", 600<<10) + `"`
	be := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, answer)
	}))
	defer be.Close()
	u, _ := url.Parse(be.URL + "/hook")
	mem := &memRecorder{}
	rcv := New(Config{ForwardTo: u, BodyBudget: 1 << 20, MaxBody: 1 << 20, Capture: mem})
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	body := `"` + strings.Repeat("x", 700<<10) + `"`
	resp, err := srv.Client().Post(srv.URL+"/?businessType="+ev, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	srv.Close()
	rcv.Close()
	if resp.StatusCode != 200 {
		t.Errorf("status %d, want the receiver's 200", resp.StatusCode)
	}
	if f := mem.recs[0].Forward; f == nil || f.Body != answer {
		t.Errorf("forward %.120v, want the receiver's whole answer", f)
	}
}

// secondWaitsForBudget sends a call that gets 200, then a second, which
// must wait in the body budget's Acquire (its what: body or answer) and
// stay unanswered until hold is closed, then get 200.
func secondWaitsForBudget(t *testing.T, send func() int, hold chan struct{}, what string) {
	t.Helper()
	if s := send(); s != 200 {
		t.Fatalf("first: status %d, want 200", s)
	}
	second := make(chan int, 1)
	go func() { second <- send() }()
	if n := waitInStack(t, "semaphore.(*Weighted).Acquire(", 1); n < 1 {
		select {
		case s := <-second:
			t.Fatalf("second %s read while the first still held the budget (status %d)", what, s)
		default:
			t.Fatalf("the second %s never waited for the budget", what)
		}
	}
	select {
	case s := <-second:
		t.Fatalf("second call answered while its %s waited for the budget (status %d)", what, s)
	default:
	}
	close(hold)
	if s := <-second; s != 200 {
		t.Errorf("second: status %d, want 200", s)
	}
}
