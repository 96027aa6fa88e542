package receiver

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/fault"
	"github.com/whsim/whsim/internal/reqid"
)

// backendCall is a call the receiver behind listen got.
type backendCall struct {
	requestID string
	body      []byte
}

// recordingBackend answers 200 to every call and keeps them.
type recordingBackend struct {
	mu    sync.Mutex
	calls []backendCall
}

func (b *recordingBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	b.mu.Lock()
	b.calls = append(b.calls, backendCall{reqid.Read(body), body})
	b.mu.Unlock()
	io.WriteString(w, "ok\n")
}

const faultBody = `{"requestId":"3f2b8c1e-0000-4000-8000-000000000001","businessType":4011,"data":{"code":"CGFP-1"}}`

// Each fault, at rate 1, does to the call what its kind says, at both
// ends, and the capture keeps what the sender sent.
func TestFaultKinds(t *testing.T) {
	tests := []struct {
		spec       string
		sender     int // the status the sender gets
		retryAfter bool
		receiver   int // calls the receiver gets
		check      func(t *testing.T, got []backendCall)
	}{
		{"drop=1", 503, false, 0, nil},
		{"status=1:429", 429, true, 0, nil},
		{"status=1:503", 503, true, 0, nil},
		{"status=1:500", 500, false, 0, nil},
		{"lose-answer=1", 504, false, 1, nil},
		{"delay=1:1ms", 200, false, 1, nil},
		{"reorder=1:2", 200, false, 1, nil}, // one call: its window goes after the hold
		{"duplicate=1", 200, false, 2, nil},
		{"burst=1:4", 200, false, 4, nil},
		{"truncate=1", 200, false, 1, func(t *testing.T, got []backendCall) {
			if len(got[0].body) != len(faultBody)/2 || !strings.HasPrefix(faultBody, string(got[0].body)) {
				t.Errorf("receiver got %q, want the body's first half", got[0].body)
			}
		}},
		{"new-request-id=1", 200, false, 2, func(t *testing.T, got []backendCall) {
			ids := map[string]bool{}
			for _, c := range got {
				ids[c.requestID] = true
			}
			if !ids["3f2b8c1e-0000-4000-8000-000000000001"] || len(ids) != 2 {
				t.Errorf("receiver got requestIds %v, want the sender's and a fresh one", ids)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			be := &recordingBackend{}
			backend := httptest.NewServer(be)
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			plan, err := fault.ParsePlan([]string{tt.spec}, 1)
			if err != nil {
				t.Fatal(err)
			}
			srv, _, mem := start(t, Config{ForwardTo: u, Faults: NewFaults(plan)})
			resp := post(t, srv, ev, faultBody)
			if resp.StatusCode != tt.sender {
				t.Errorf("sender got %d, want %d", resp.StatusCode, tt.sender)
			}
			if got := resp.Header.Get("Retry-After") != ""; got != tt.retryAfter {
				t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
			}
			srv.Close()
			if len(be.calls) != tt.receiver {
				t.Fatalf("receiver got %d calls, want %d", len(be.calls), tt.receiver)
			}
			if tt.check != nil {
				tt.check(t, be.calls)
			}
			rec := mem.recs[0]
			if rec.Body != faultBody {
				t.Errorf("capture holds body %q, want the sender's", rec.Body)
			}
			if rec.Response.Status != tt.sender {
				t.Errorf("capture says the sender got %d", rec.Response.Status)
			}
			f := rec.Fault
			if f == nil || f.Kind != strings.SplitN(tt.spec, "=", 2)[0] || f.Attempt != 1 || f.Sender == "" || f.Receiver == "" {
				t.Fatalf("fault recorded as %+v", f)
			}
			if len(f.Deliveries) != tt.receiver {
				t.Errorf("%d deliveries recorded, the receiver got %d", len(f.Deliveries), tt.receiver)
			}
			if (rec.Forward != nil) != (tt.receiver > 0) {
				t.Errorf("forward recorded as %+v", rec.Forward)
			}
		})
	}
}

// Once listen stops (EndWaits), no call sits out --delay or a fault's
// hold: the stop must not wait an hour for them. (A wait already under
// way ends on the same channel; fault.TestReorderRelease holds calls
// first.)
func TestEndWaits(t *testing.T) {
	tests := []struct {
		name   string
		cfg    func(u *url.URL) Config
		sender string // what the fault's record says the sender got, if any
		// receiver is what it says the receiver got, if any: a reorder
		// window the stop let go said "the call 1 of 1 in a shuffled
		// window", as though its hold had run its course.
		receiver string
	}{
		{"--delay", func(*url.URL) Config { return Config{Delay: time.Hour} }, "", ""},
		{"delay fault", func(u *url.URL) Config {
			return Config{ForwardTo: u, Faults: mustFaults(t, "delay=1:5m")}
		}, "(listen stopped: the 5m0s delay cut short)", ""},
		{"reorder fault", func(u *url.URL) Config {
			return Config{ForwardTo: u, Faults: mustFaults(t, "reorder=1:1m")}
		}, "the receiver's 200", "then let go as listen stopped (alone in its window: not reordered)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			be := &recordingBackend{}
			backend := httptest.NewServer(be)
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			srv, _, mem := start(t, tt.cfg(u))
			srv.rcv.EndWaits()
			// Far below the waits: without EndWaits the call fails here
			// rather than passing once the wait is over.
			client := *srv.Client()
			client.Timeout = 30 * time.Second
			resp, err := client.Post(srv.URL+"/webhook?businessType="+ev, "application/json", strings.NewReader(faultBody))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("sender got %d, want the 200 at once", resp.StatusCode)
			}
			srv.Close()
			if f := mem.recs[0].Fault; tt.sender != "" && (f == nil || !strings.Contains(f.Sender, tt.sender)) {
				t.Errorf("fault recorded as %+v, want its sender to read %q", f, tt.sender)
			}
			if f := mem.recs[0].Fault; tt.receiver != "" && (f == nil || !strings.Contains(f.Receiver, tt.receiver)) {
				t.Errorf("fault recorded as %+v, want its receiver to read %q", f, tt.receiver)
			}
		})
	}
}

// A faulted call a forced stop (a second Ctrl-C) cut short, in the fault's
// wait or in its forward, is said to be so: the sender got nothing, and
// not because it gave up. Its context ends as ServeGrace ends it, with
// errStoppedAtOnce as the cause.
func TestFaultWaitCutByForcedStop(t *testing.T) {
	const stopped = "listen was stopped at once (a second Ctrl-C or SIGTERM)"
	for _, tt := range []struct{ spec, sender, receiver string }{
		{"delay=1:5m", "nothing (" + stopped + " during the delay)", "nothing (not forwarded)"},
		{"reorder=1:1m", "nothing (" + stopped + " while the call was held)", "nothing (not forwarded)"},
		// Cut before a copy could go: none is sent, nor counted as sent
		// (the record said "2 copies, one after the other" and the
		// summary counted them), and the sender got nothing, not
		// "listen's 502 (the forward failed)".
		{"duplicate=1", "nothing (" + stopped + " before the answer)", "nothing (" + stopped + " before it was sent)"},
		{"new-request-id=1", "nothing (" + stopped + " before the answer)", "nothing (" + stopped + " before it was sent)"},
		{"burst=1:3", "nothing (" + stopped + " before the answer)", "nothing (" + stopped + " before it was sent)"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			mem, obs := &memRecorder{}, &observed{}
			u, _ := url.Parse("http://127.0.0.1:1") // never reached: the context has ended
			rcv := New(Config{ForwardTo: u, Faults: mustFaults(t, tt.spec), Capture: mem, Observe: obs.observe})
			ctx, cut := context.WithCancelCause(context.Background())
			cut(errStoppedAtOnce)
			req := httptest.NewRequest(http.MethodPost, "/webhook?businessType="+ev, strings.NewReader(faultBody)).WithContext(ctx)
			req.Header.Set("Content-Type", "application/json")
			rcv.ServeHTTP(httptest.NewRecorder(), req)
			rcv.Close()
			if len(mem.recs) != 1 || len(obs.calls) != 1 {
				t.Fatalf("%d records, %d calls observed, want 1", len(mem.recs), len(obs.calls))
			}
			if f := mem.recs[0].Fault; f == nil || f.Sender != tt.sender || !strings.HasPrefix(f.Receiver, tt.receiver) {
				t.Errorf("fault recorded as %+v, want the sender to have got %q, the receiver %q…", f, tt.sender, tt.receiver)
			}
			if !hasRule(obs.calls[0], ruleUnanswered) || hasRule(obs.calls[0], ruleSenderGone) {
				t.Errorf("findings %+v, want %s and not %s", obs.calls[0].Findings, ruleUnanswered, ruleSenderGone)
			}
			if f := mem.recs[0].Fault; f != nil && len(f.Deliveries) != 0 {
				t.Errorf("deliveries %+v, want none: nothing was sent", f.Deliveries)
			}
		})
	}
}

// A duplicate (or new-request-id) whose first copy a forced stop cut short
// in its forward sends no copy after it: the record said "2 copies, one
// after the other" and the summary counted both as sent to the receiver.
// The receiver cuts the call short itself when the first copy reaches it:
// an event, not a clock.
func TestFaultSecondCopyNotSentAfterForcedStop(t *testing.T) {
	const stopped = "listen was stopped at once (a second Ctrl-C or SIGTERM)"
	for _, spec := range []string{"duplicate=1", "new-request-id=1"} {
		t.Run(spec, func(t *testing.T) {
			ctx, cut := context.WithCancelCause(context.Background())
			var copies atomic.Int32
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				copies.Add(1)
				io.Copy(io.Discard, r.Body)
				cut(errStoppedAtOnce)
				<-r.Context().Done()
			}))
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			mem := &memRecorder{}
			rcv := New(Config{ForwardTo: u, Faults: mustFaults(t, spec), Capture: mem})
			req := httptest.NewRequest(http.MethodPost, "/webhook?businessType="+ev, strings.NewReader(faultBody)).WithContext(ctx)
			req.Header.Set("Content-Type", "application/json")
			rcv.ServeHTTP(httptest.NewRecorder(), req)
			rcv.Close()
			f := mem.recs[0].Fault
			if copies.Load() != 1 || len(f.Deliveries) != 1 {
				t.Errorf("the receiver got %d copies, %d deliveries recorded; want the first only", copies.Load(), len(f.Deliveries))
			}
			if !strings.HasPrefix(f.Receiver, "the call, answered none (") || !strings.HasSuffix(f.Receiver, "; no copy after it ("+stopped+" first)") {
				t.Errorf("receiver side %q, want the first copy and no second", f.Receiver)
			}
		})
	}
}

// A sender that gave up (closed its connection) before a faulted call's
// copies could go is sent none: no copy goes, none is counted as sent to
// the receiver, and the record says the sender got nothing, where it said
// "listen's 502 (the forward failed)", "2 copies, one after the other"
// and the summary counted both as sent. Its context ends as net/http ends
// it when the sender hangs up: canceled, with no stop as the cause.
func TestFaultSenderGoneBeforeCopies(t *testing.T) {
	const gone = "nothing (it gave up before the answer)"
	for _, tt := range []struct{ spec, receiver string }{
		{"duplicate=1", "nothing (the sender gave up before it was sent)"},
		{"new-request-id=1", "nothing (the sender gave up before it was sent)"},
		{"burst=1:3", "nothing (the sender gave up before it was sent)"},
		{"lose-answer=1", "nothing (the sender gave up before it was sent)"},
		{"truncate=1", "nothing (the sender gave up before it was sent)"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			var copies atomic.Int32
			backend := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { copies.Add(1) }))
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			mem := &memRecorder{}
			rcv := New(Config{ForwardTo: u, Faults: mustFaults(t, tt.spec), Capture: mem})
			ctx, hangUp := context.WithCancel(context.Background())
			hangUp()
			req := httptest.NewRequest(http.MethodPost, "/webhook?businessType="+ev, strings.NewReader(faultBody)).WithContext(ctx)
			req.Header.Set("Content-Type", "application/json")
			rcv.ServeHTTP(httptest.NewRecorder(), req)
			rcv.Close()
			f := mem.recs[0].Fault
			if f == nil || f.Sender != gone || f.Receiver != tt.receiver {
				t.Errorf("fault recorded as %+v, want the sender to have got %q, the receiver %q", f, gone, tt.receiver)
			}
			if f != nil && len(f.Deliveries) != 0 {
				t.Errorf("deliveries %+v, want none: nothing was sent", f.Deliveries)
			}
			if copies.Load() != 0 {
				t.Errorf("the receiver got %d copies, want none", copies.Load())
			}
		})
	}
}

// A duplicate (or new-request-id) whose sender gave up during its first
// copy's forward sends no copy after it, nor says it did: the record said
// "2 copies, one after the other" and the summary counted both as sent,
// though the second never left listen, and it said the sender got
// "listen's 502 (the forward failed)" when it got nothing. The receiver
// sees the first copy and then the sender hang up: an event, not a clock.
func TestFaultSenderGoneDuringFirstCopy(t *testing.T) {
	for _, spec := range []string{"duplicate=1", "new-request-id=1"} {
		t.Run(spec, func(t *testing.T) {
			ctx, hangUp := context.WithCancel(context.Background())
			var copies atomic.Int32
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				copies.Add(1)
				io.Copy(io.Discard, r.Body)
				hangUp()
				<-r.Context().Done()
			}))
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			mem := &memRecorder{}
			rcv := New(Config{ForwardTo: u, Faults: mustFaults(t, spec), Capture: mem})
			req := httptest.NewRequest(http.MethodPost, "/webhook?businessType="+ev, strings.NewReader(faultBody)).WithContext(ctx)
			req.Header.Set("Content-Type", "application/json")
			rcv.ServeHTTP(httptest.NewRecorder(), req)
			rcv.Close()
			f := mem.recs[0].Fault
			if copies.Load() != 1 || len(f.Deliveries) != 1 {
				t.Errorf("the receiver got %d copies, %d deliveries recorded; want the first only", copies.Load(), len(f.Deliveries))
			}
			if f.Sender != "nothing (it gave up before the answer)" {
				t.Errorf("sender side %q, want nothing: it gave up", f.Sender)
			}
			if !strings.HasPrefix(f.Receiver, "the call, answered none (") || !strings.HasSuffix(f.Receiver, "; no copy after it (the sender gave up first)") {
				t.Errorf("receiver side %q, want the first copy and no second", f.Receiver)
			}
		})
	}
}

// A forward that failed is said as such on both sides: the sender got
// listen's own status, not "the receiver's nothing"; and a receiver that
// could not be reached got nothing, where the record said "receiver got 2
// copies, one after the other" (the call, 1ms late; the body cut short;
// …), listed each copy as a delivery and the summary counted them sent.
func TestFaultForwardFailed(t *testing.T) {
	// Port 1: nothing listens there (a closed test server's port may be
	// another parallel test's by the time it is called).
	u, _ := url.Parse("http://127.0.0.1:1")
	for _, tt := range []struct{ spec, sender string }{
		{"duplicate=1", "listen's 502 (the forward failed) to the first copy"},
		{"burst=1:3", "listen's 502 (the forward failed) to copy 1"},
		{"new-request-id=1", "listen's 502 (the forward failed) to its own requestId"},
		{"delay=1:1ms", "listen's 502 (the forward failed) after 1ms"},
		{"reorder=1:1ms", "listen's 502 (the forward failed)"},
		{"truncate=1", "listen's 502 (the forward failed)"},
		{"lose-answer=1", "504 from listen"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			srv, obs, mem := start(t, Config{ForwardTo: u, Faults: mustFaults(t, tt.spec)})
			post(t, srv, ev, faultBody)
			srv.Close()
			f := mem.recs[0].Fault
			if f.Sender != tt.sender {
				t.Errorf("sender side %q, want %q", f.Sender, tt.sender)
			}
			if !strings.HasPrefix(f.Receiver, "nothing (not reached: ") || !strings.Contains(f.Receiver, "connection refused") {
				t.Errorf("receiver side %q, want nothing, and why", f.Receiver)
			}
			if len(f.Deliveries) != 0 || !obs.calls[0].Unsent {
				t.Errorf("deliveries %+v, unsent %v: want none, and the call said unsent", f.Deliveries, obs.calls[0].Unsent)
			}
		})
	}
}

// A copy of a faulted call none of which went out (its dial refused: a
// receiver that died, or whose backlog is full, part way through) is not
// one the receiver got: the record said "2 copies, one after the other"
// and "4 copies at once" though the receiver got one and two, while the
// summary, counting deliveries, said otherwise. The receiver refuses every
// connection after the first ones: it counts dials, not time.
func TestFaultCopyNotReached(t *testing.T) {
	for _, tt := range []struct {
		spec     string
		reach    int32 // connections the receiver takes before it refuses
		receiver string
	}{
		{"duplicate=1", 1, "1 of 2 copies, one after the other: the first answered 200, the second not reached (Post "},
		{"new-request-id=1", 1, "the call, answered 200; not the same document as requestId "},
		{"burst=1:4", 2, "2 of 4 copies at once, answered 200, 200; 2 not reached (Post "},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			be := &recordingBackend{}
			backend := httptest.NewServer(be)
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			var dials atomic.Int32
			dialer := &net.Dialer{}
			client := &http.Client{Transport: &http.Transport{
				DisableKeepAlives: true, // each copy on a connection of its own
				DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					if dials.Add(1) > tt.reach {
						return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
					}
					return dialer.DialContext(ctx, network, addr)
				},
			}}
			srv, _, mem := start(t, Config{ForwardTo: u, Client: client, Faults: mustFaults(t, tt.spec)})
			post(t, srv, ev, faultBody)
			srv.Close()
			f := mem.recs[0].Fault
			if !strings.HasPrefix(f.Receiver, tt.receiver) || !strings.Contains(f.Receiver, "connection refused") {
				t.Errorf("receiver side %q, want %q…, and why", f.Receiver, tt.receiver)
			}
			be.mu.Lock()
			got := len(be.calls)
			be.mu.Unlock()
			if got != int(tt.reach) || len(f.Deliveries) != got {
				t.Errorf("the receiver got %d copies, %d deliveries recorded; want %d", got, len(f.Deliveries), tt.reach)
			}
		})
	}
}

// A burst's copies after the first, whose answers no one is given, are
// read and not kept (nor a duplicate's or new-request-id's second): a
// burst of 64 at 32 calls at once behind a receiver that answered 1 MiB
// held 2,048 answers, and listen grew to 2.5 GB. Measured as the bytes
// allocated for one call of 16 copies, whatever the collector did
// meanwhile: about 4 answers' worth for the first copy's (read, recorded,
// sent on), where each other copy's held added 3. Not parallel: nothing
// else allocates while it runs.
func TestFaultBurstAnswersNotKept(t *testing.T) {
	const size, copies = 2 << 20, 16
	answer := bytes.Repeat([]byte("x"), size)
	var got atomic.Int32
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got.Add(1)
		w.Write(answer)
	}))
	defer backend.Close()
	u, _ := url.Parse(backend.URL)
	srv, _, mem := start(t, Config{ForwardTo: u, Faults: mustFaults(t, "burst=1:16"), MaxBody: 4 << 20})
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	post(t, srv, ev, faultBody)
	runtime.ReadMemStats(&after)
	srv.Close()
	if got.Load() != copies {
		t.Fatalf("the receiver got %d copies, want %d", got.Load(), copies)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 10*size {
		t.Errorf("%d MiB allocated for a burst of %d copies each answered %d MiB, want under %d MiB", alloc>>20, copies, size>>20, 10*size>>20)
	}
	if f := mem.recs[0].Forward; f == nil || len(f.Body) != size {
		t.Errorf("the record keeps %+v, want the first copy's answer", f)
	}
}

func mustFaults(t *testing.T, spec string) *Faults {
	t.Helper()
	plan, err := fault.ParsePlan([]string{spec}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return NewFaults(plan)
}

// The same seed faults the same calls; the attempt counts per requestId.
func TestFaultsSeeded(t *testing.T) {
	run := func(seed uint64) []string {
		be := &recordingBackend{}
		backend := httptest.NewServer(be)
		defer backend.Close()
		u, _ := url.Parse(backend.URL)
		plan, _ := fault.ParsePlan([]string{"drop=0.5"}, seed)
		srv, _, mem := start(t, Config{ForwardTo: u, Faults: NewFaults(plan)})
		for i := range 40 {
			id := reqid.For(7, "x", uint64(i%20)) // each id twice: attempts 1 and 2
			post(t, srv, ev, `{"requestId":"`+id+`"}`)
		}
		srv.Close()
		var hit []string
		for _, r := range mem.recs {
			if r.Fault != nil {
				hit = append(hit, reqid.Read([]byte(r.Body))+"#"+string(rune('0'+r.Fault.Attempt)))
			}
		}
		return hit
	}
	a, b, c := run(11), run(11), run(12)
	if strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("seed 11 twice faulted\n%v\n%v", a, b)
	}
	if strings.Join(a, " ") == strings.Join(c, " ") {
		t.Errorf("seeds 11 and 12 faulted the same calls: %v", a)
	}
	if len(a) < 8 || len(a) > 32 {
		t.Errorf("drop=0.5 faulted %d of 40 calls", len(a))
	}
	second := 0
	for _, h := range a {
		if strings.HasSuffix(h, "#2") {
			second++
		}
	}
	if second == 0 {
		t.Errorf("no second attempt faulted: %v", a)
	}
}

// A call sent gzip-compressed is drawn by the requestId of the document
// it decodes to, as listen shows it, so that a retry is its next attempt
// whatever bytes its compression gave: the draw took a hash of the bytes,
// and a retry compressed otherwise (another level, another header) was
// attempt 1 again. And new-request-id's copy carries a fresh requestId in
// the document, compressed again as the call came (as replay
// --new-request-id does): it found no requestId in the compressed bytes
// and sent the call only.
func TestFaultDrawOfCompressedCall(t *testing.T) {
	gz := func(level int, name string) []byte {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, level)
		w.Name = name
		io.WriteString(w, faultBody)
		w.Close()
		return b.Bytes()
	}
	var mu sync.Mutex
	var got []string // the requestIds of the documents the receiver got
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			t.Errorf("the receiver got a body that is not gzip: %v", err)
			return
		}
		doc, _ := io.ReadAll(zr)
		mu.Lock()
		got = append(got, reqid.Read(doc))
		mu.Unlock()
	}))
	defer backend.Close()
	u, _ := url.Parse(backend.URL)
	srv, _, mem := start(t, Config{ForwardTo: u, Faults: mustFaults(t, "new-request-id=1")})
	for _, body := range [][]byte{gz(gzip.BestSpeed, ""), gz(gzip.BestCompression, "retry")} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhook?businessType="+ev, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", "gzip")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	srv.Close()
	var attempts []int
	fresh := map[string]bool{}
	for _, rec := range mem.recs {
		attempts = append(attempts, rec.Fault.Attempt)
		if len(rec.Fault.Deliveries) != 2 || rec.Fault.Deliveries[1].RequestID == "" {
			t.Fatalf("deliveries %+v, want the call and a copy under a fresh requestId", rec.Fault.Deliveries)
		}
		fresh[rec.Fault.Deliveries[1].RequestID] = true
	}
	slices.Sort(attempts)
	if !slices.Equal(attempts, []int{1, 2}) {
		t.Errorf("attempts %v, want 1 and 2: the same requestId twice", attempts)
	}
	const own = "3f2b8c1e-0000-4000-8000-000000000001"
	want := []string{own, own}
	for id := range fresh {
		want = append(want, id)
	}
	slices.Sort(want)
	slices.Sort(got)
	if len(fresh) != 2 || !slices.Equal(got, want) {
		t.Errorf("the receiver got documents with requestIds %v, want %v: the sender's twice and a fresh one per attempt", got, want)
	}
}

// Without faults nothing is drawn: a plan-less receiver records none.
func TestNoFaultsRecordsNone(t *testing.T) {
	be := &recordingBackend{}
	backend := httptest.NewServer(be)
	defer backend.Close()
	u, _ := url.Parse(backend.URL)
	srv, _, mem := start(t, Config{ForwardTo: u})
	post(t, srv, ev, faultBody)
	srv.Close()
	if mem.recs[0].Fault != nil || len(be.calls) != 1 || !bytes.Equal(be.calls[0].body, []byte(faultBody)) {
		t.Errorf("fault %+v, receiver got %d calls", mem.recs[0].Fault, len(be.calls))
	}
}

func TestFaultOptions(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Status: 200, MaxBody: "1MiB", Faults: []string{"drop=0.1"}}, "fault: needs --forward-to"},
		{Options{Status: 200, MaxBody: "1MiB", ForwardTo: "http://127.0.0.1:9", Faults: []string{"dorp=0.1"}}, `fault "dorp=0.1": unknown fault "dorp" (did you mean "drop"?)`},
		{Options{Status: 200, MaxBody: "1MiB", ForwardTo: "http://127.0.0.1:9", Faults: []string{"drop=2"}}, `fault "drop=2": rate "2": want a share`},
	} {
		_, err := tt.o.Config()
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.o.Faults, err, tt.want)
		}
	}
	cfg, err := Options{Status: 200, MaxBody: "1MiB", ForwardTo: "http://127.0.0.1:9", Faults: []string{"drop=0.1"}}.Config()
	if err != nil || cfg.Faults == nil || cfg.Faults.Plan().Seed == 0 {
		t.Errorf("unseeded: %+v, %v; want a drawn seed", cfg.Faults, err)
	}
}

// A copy whose answer began and did not come whole got the receiver's
// status: the fault said "answered none (the receiver answered 200, ...)",
// a contradiction, and a burst's "no answer".
func TestFaultAnswerNotWhole(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ spec, want string }{
		{"duplicate=1", "2 copies, one after the other, answered a 200 not read whole (the receiver answered 200, then its answer was cut short"},
		{"lose-answer=1", "the call, answered a 200 not read whole (the receiver answered 200, then its answer was cut short"},
		{"burst=1:2", "2 copies at once, answered a 200 not read whole, a 200 not read whole"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			u := rawAnswerBackend(t, "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\nok")
			plan, err := fault.ParsePlan([]string{tt.spec}, 1)
			if err != nil {
				t.Fatal(err)
			}
			srv, _, mem := start(t, Config{ForwardTo: u, Faults: NewFaults(plan)})
			post(t, srv, ev, faultBody)
			srv.Close()
			f := mem.recs[0].Fault
			if f == nil || !strings.Contains(f.Receiver, tt.want) || strings.Contains(f.Receiver, "none (") || strings.Contains(f.Receiver, "no answer") {
				t.Errorf("fault %+v, want the receiver's words to say %q", f, tt.want)
			}
		})
	}
}

// A faulted call that could not be recorded is answered 5xx, not what its
// fault would have given the sender: its fault's words say what the
// sender got, as its line and the status do.
func TestFaultSenderWhenNotRecorded(t *testing.T) {
	for _, tt := range []struct {
		spec string
		err  error
		want string
	}{
		{"drop=1", errors.New("disk full"), "listen's 500 (the call could not be recorded) instead of 503 from listen"},
		{"lose-answer=1", errors.New("disk full"), "listen's 500 (the call could not be recorded) instead of 504 from listen"},
		{"duplicate=1", capture.ErrGone, "listen's 503 (the call could not be recorded) instead of the receiver's 200 to the first copy"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			backend := httptest.NewServer(&recordingBackend{})
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			srv, obs, _ := start(t, Config{ForwardTo: u, Faults: mustFaults(t, tt.spec), Capture: &memRecorder{err: tt.err}})
			resp := post(t, srv, ev, faultBody)
			srv.Close()
			c := obs.calls[0]
			if f := c.Record.Fault; f == nil || f.Sender != tt.want || c.Record.Response.Status != resp.StatusCode {
				t.Errorf("sender got %d; the record says %d, its fault %+v; want the fault's sender %q", resp.StatusCode, c.Record.Response.Status, f, tt.want)
			}
		})
	}
}

// A fault's later copy (duplicate's second, new-request-id's copy) does
// not hold the sender's answer: the sender got it
// only once the receiver had answered them too, so a receiver that held
// the second copy held the sender for the forward timeout (30 s). The
// sender gets the first copy's answer while the receiver still holds
// the others; once they are answered, the call's observed record counts
// them, and the capture record, written before the answer, says they
// went after it. The receiver holds each later copy until the test has
// the sender's answer (or, on a listen that waits for them, until its
// hold's bound ends it: the test then fails, not hangs).
func TestFaultLaterCopiesDoNotHoldTheAnswer(t *testing.T) {
	for _, tt := range []struct {
		spec        string
		copies      int
		observed    string // the observed record's receiver side, its start
		recordedEnd string // the capture record's receiver side, its end
	}{
		{"duplicate=1", 2, "2 copies, one after the other, answered 200, 200", "a second copy goes after the sender's answer (this record was written before it went: listen's output says how it fared)"},
		{"new-request-id=1", 2, "the call, answered 200, then the same document as requestId ", "the same document under a fresh requestId goes after the sender's answer (this record was written before it went: listen's output says how it fared)"},
	} {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			h := newHoldingBackend(t)
			answered, calls, heldTooLong, u := h.answered, &h.calls, &h.heldTooLong, h.url
			rec := &wordsAtWrite{}
			srv, obs, _ := start(t, Config{ForwardTo: u, Faults: mustFaults(t, tt.spec), Capture: rec})
			resp := post(t, srv, ev, faultBody)
			close(answered)
			if resp.StatusCode != 200 || heldTooLong.Load() {
				t.Errorf("the sender got %d once the receiver had let the later copies go (held past its bound: %v); want 200 while it held them", resp.StatusCode, heldTooLong.Load())
			}
			srv.Close()
			if n := calls.Load(); n != int32(tt.copies) {
				t.Errorf("the receiver got %d copies, want %d", n, tt.copies)
			}
			f := obs.calls[0].Record.Fault
			if !strings.HasPrefix(f.Receiver, tt.observed) || len(f.Deliveries) != tt.copies {
				t.Errorf("observed receiver side %q with %d deliveries, want %q… and %d", f.Receiver, len(f.Deliveries), tt.observed, tt.copies)
			}
			if got := rec.receiver; !strings.HasSuffix(got, tt.recordedEnd) {
				t.Errorf("recorded receiver side %q, want it to end %q", got, tt.recordedEnd)
			}
		})
	}
}

// wordsAtWrite keeps a record's fault's receiver side as it was written,
// as a capture file's line holds it.
type wordsAtWrite struct {
	mu       sync.Mutex
	receiver string
}

func (w *wordsAtWrite) Write(r *capture.Record) (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if r.Fault != nil {
		w.receiver = r.Fault.Receiver
	}
	return 0, nil
}

// A burst's sender got copy 1's answer once every copy was answered: a
// receiver that held one copy held the sender up to the forward timeout.
// It gets the first answer to come, while the receiver still holds the
// others; once they are answered, the observed record counts them all,
// and the capture record, written before the answer, says they were
// still out.
func TestFaultBurstAnswersTheFirstToCome(t *testing.T) {
	t.Parallel()
	h := newHoldingBackend(t)
	answered, heldTooLong, u := h.answered, &h.heldTooLong, h.url
	rec := &wordsAtWrite{}
	srv, obs, _ := start(t, Config{ForwardTo: u, Faults: mustFaults(t, "burst=1:3"), Capture: rec})
	resp := post(t, srv, ev, faultBody)
	close(answered)
	if resp.StatusCode != 200 || heldTooLong.Load() {
		t.Errorf("the sender got %d once the receiver had let the held copies go (held past its bound: %v); want the first answer, 200, while it held them", resp.StatusCode, heldTooLong.Load())
	}
	srv.Close()
	f := obs.calls[0].Record.Fault
	if want := "3 copies at once, answered 200, 200, 200"; f.Receiver != want || len(f.Deliveries) != 3 {
		t.Errorf("observed receiver side %q with %d deliveries, want %q and 3", f.Receiver, len(f.Deliveries), want)
	}
	if want := "3 copies at once, 1 of them done when this record was written (listen's output says how the others fared)"; rec.receiver != want {
		t.Errorf("recorded receiver side %q, want %q", rec.receiver, want)
	}
}

// A lost answer over --max-body was recorded as "the sender got, and the
// record holds, its first 16 bytes", and the call's line said so: the
// sender got listen's 504, none of it. The record holds the first bytes;
// whose they were is said truly.
func TestFaultLostAnswerCutSaysTheSenderGotNone(t *testing.T) {
	t.Parallel()
	u := answersOver16(t)
	srv, _, mem := start(t, Config{ForwardTo: u, Faults: mustFaults(t, "lose-answer=1"), MaxBody: 16})
	if resp := post(t, srv, ev, `{}`); resp.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("the sender got %d, want 504", resp.StatusCode)
	}
	srv.Close()
	f := mem.recs[0].Forward
	const want = "the receiver's answer body was over the body limit (16 bytes): the record holds its first 16 bytes; the sender got none of it (listen's 504: the answer was discarded)"
	if f == nil || f.BodyCut != want {
		t.Errorf("forward %+v, want bodyCut %q", f, want)
	}
}

// The same of an answer over --max-body to a call that could not be
// recorded: its sender got listen's 500, and no record holds the answer.
func TestForwardCutUnrecordedSaysTheSenderGotNone(t *testing.T) {
	t.Parallel()
	u := answersOver16(t)
	full := &memRecorder{err: errors.New("write calls.ndjson: no space left on device")}
	srv, obs, _ := start(t, Config{ForwardTo: u, MaxBody: 16, Capture: full})
	if resp := post(t, srv, ev, `{}`); resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("the sender got %d, want 500", resp.StatusCode)
	}
	srv.Close()
	f := obs.calls[0].Record.Forward
	const want = "the receiver's answer body was over the body limit (16 bytes): listen's output shows its first 16 bytes; the sender got none of it (listen's 500: the call could not be recorded)"
	if f == nil || f.BodyCut != want {
		t.Errorf("forward %+v, want bodyCut %q", f, want)
	}
}

// A lost answer that never came was said "answered none (…) (discarded)":
// nothing was discarded. The receiver read the call and closed without
// an answer.
func TestFaultLostAnswerThatNeverCame(t *testing.T) {
	t.Parallel()
	u := rawAnswerBackend(t, "")
	srv, _, mem := start(t, Config{ForwardTo: u, Faults: mustFaults(t, "lose-answer=1")})
	post(t, srv, ev, faultBody)
	srv.Close()
	f := mem.recs[0].Fault
	if f == nil || !strings.HasPrefix(f.Receiver, "the call, answered none (") || strings.HasSuffix(f.Receiver, "(discarded)") {
		t.Errorf("fault %+v, want the receiver's words to say it answered none, and no answer discarded", f)
	}
}

// A sender that gave up after its call's first copy was answered and
// before listen's answer (here as its record is written) is sent no copy
// after it: the copy went, and the record said "2 copies", though the
// sender had gone first.
func TestFaultNoLaterCopyAfterTheSenderLeft(t *testing.T) {
	for _, spec := range []string{"duplicate=1", "new-request-id=1"} {
		t.Run(spec, func(t *testing.T) {
			var copies atomic.Int32
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				copies.Add(1)
				io.Copy(io.Discard, r.Body)
			}))
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			ctx, hangUp := context.WithCancel(context.Background())
			rec := &hangUpAtWrite{hangUp: hangUp}
			obs := &observed{}
			rcv := New(Config{ForwardTo: u, Faults: mustFaults(t, spec), Capture: rec, Observe: obs.observe})
			req := httptest.NewRequest(http.MethodPost, "/webhook?businessType="+ev, strings.NewReader(faultBody)).WithContext(ctx)
			req.Header.Set("Content-Type", "application/json")
			rcv.ServeHTTP(httptest.NewRecorder(), req)
			rcv.Close()
			f := obs.calls[0].Record.Fault
			if copies.Load() != 1 || len(f.Deliveries) != 1 || !strings.HasSuffix(f.Receiver, "(the sender gave up first)") {
				t.Errorf("the receiver got %d copies, %d deliveries, receiver side %q; want the first only, and why", copies.Load(), len(f.Deliveries), f.Receiver)
			}
		})
	}
}

// hangUpAtWrite is a capture whose write ends the call's context, as a
// sender that hangs up then does.
type hangUpAtWrite struct{ hangUp context.CancelFunc }

func (h *hangUpAtWrite) Write(*capture.Record) (int64, error) {
	h.hangUp()
	return 0, nil
}

// holdingBackend is a receiver that answers its first call at once and
// holds each later one until answered is closed (the test has the
// sender's answer), or past a bound, which heldTooLong then says: a
// listen that waited for those calls fails its test, not hangs it.
type holdingBackend struct {
	answered    chan struct{}
	calls       atomic.Int32
	heldTooLong atomic.Bool
	url         *url.URL
}

func newHoldingBackend(t *testing.T) *holdingBackend {
	h := &holdingBackend{answered: make(chan struct{})}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if h.calls.Add(1) > 1 {
			select {
			case <-h.answered:
			case <-time.After(10 * time.Second): // a bound, not the assertion
				h.heldTooLong.Store(true)
			}
		}
		io.WriteString(w, "ok\n")
	}))
	t.Cleanup(backend.Close)
	h.url, _ = url.Parse(backend.URL)
	return h
}

// answersOver16 is a receiver that answers every call with 40 bytes, over
// the tests' 16-byte --max-body.
func answersOver16(t *testing.T) *url.URL {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, strings.Repeat("x", 40))
	}))
	t.Cleanup(backend.Close)
	u, _ := url.Parse(backend.URL)
	return u
}
