package receiver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/validate"
)

// serveRaw serves a receiver on a real socket, as listen does; stop shuts
// it down and closes the receiver, so every call has been observed after.
func serveRaw(t *testing.T, lim Limits) (addr string, obs *observed, mem *memRecorder, stop func()) {
	t.Helper()
	return serveRawAfter(t, lim, nil)
}

// serveRawAfter is serveRaw that runs first(addr), when set, on the
// listening socket before the server serves: what it sends waits in the
// accept queue, and reaches the server in its first read, however late a
// loaded machine runs the test.
func serveRawAfter(t *testing.T, lim Limits, first func(addr string)) (addr string, obs *observed, mem *memRecorder, stop func()) {
	t.Helper()
	obs, mem = &observed{}, &memRecorder{}
	rcv := New(Config{Capture: mem, Checker: fakeChecker{}, Observe: obs.observe})
	s, err := Listen("127.0.0.1:0", rcv, lim)
	if err != nil {
		t.Fatal(err)
	}
	if first != nil {
		first(s.Addr().String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
		rcv.Close()
	}
	t.Cleanup(stop)
	return s.Addr().String(), obs, mem, stop
}

// sendRaw writes raw to a new connection and returns all it is answered,
// up to the server closing it.
func sendRaw(t *testing.T, addr string, raw []byte) []byte {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if first, rest, ok := bytes.Cut(raw, []byte("{}")); ok && len(rest) > 0 && bytes.HasPrefix(rest, []byte("POST")) {
		// Two requests: the second once the first is answered, as a
		// keep-alive client sends it.
		conn.Write(append(first, "{}"...))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		raw = rest
	}
	go conn.Write(raw) // a head over the limit is answered while it is still being sent
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	answer, _ := io.ReadAll(conn)
	return answer
}

// A request net/http refuses itself (the handler never runs) reached
// listen all the same: it is recorded, observed and reported, with why
// and what the server answered, never lost.
func TestRejectedRequestsAreCalls(t *testing.T) {
	t.Parallel()
	const ok = "POST /hook?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	big := "POST /hook HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 2<<20) + "\r\n\r\n"
	for _, tc := range []struct {
		name, raw string
		status    int
		reason    string // in the record's reason
		method    string
		path      string
		event     string
	}{
		{"bad header name", "POST /hook?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nBad Name: v\r\nContent-Length: 2\r\n\r\n{}", 400, "invalid header name", "POST", "/hook", ev},
		{"two Content-Lengths", "POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400, "multiple Content-Length headers", "POST", "/hook", ""},
		{"no Host", "POST /hook HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 400, "missing required Host header", "POST", "/hook", ""},
		{"Transfer-Encoding gzip alone", "POST /hook HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n{}", 501, `unsupported transfer encoding: "gzip"`, "POST", "/hook", ""},
		{"malformed request line", "GARBAGE-NOT-A-REQUEST-LINE-AT-ALL\r\n\r\n", 400, "malformed HTTP", "", "", ""},
		// Targets that are no path are kept as they came, as for a call
		// the handler saw; an absolute one by its path.
		{"CONNECT, two Content-Lengths", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, "multiple Content-Length headers", "CONNECT", "example.com:443", ""},
		{"OPTIONS * without Host", "OPTIONS * HTTP/1.1\r\n\r\n", 400, "missing required Host header", "OPTIONS", "*", ""},
		{"absolute target, two Content-Lengths", "POST http://x/hook?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400, "multiple Content-Length headers", "POST", "/hook", ev},
		{"unknown Expect", "POST /a%20b HTTP/1.1\r\nHost: x\r\nExpect: later\r\nContent-Length: 2\r\n\r\n{}", 417, "Expectation Failed", "POST", "/a b", ""},
		{"head over the limit", big, 431, "Request Header Fields Too Large", "POST", "/hook", ""},
		{"after a good call on the same connection", ok + "POST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400, "multiple Content-Length", "POST", "/2", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr, obs, mem, stop := serveRaw(t, DefaultLimits)
			answer := sendRaw(t, addr, []byte(tc.raw))
			stop()
			// A head over the limit is answered while the sender is still
			// sending it; the server then closes with bytes unread, and the
			// reset that follows may discard the answer on the sender's
			// side before it reads it: the record below says what went.
			if !bytes.Contains(answer, []byte(" "+strconv.Itoa(tc.status)+" ")) && (tc.status != 431 || len(answer) > 0) {
				t.Errorf("answered %.80q, want %d", answer, tc.status)
			}
			good := 0
			if strings.HasPrefix(tc.raw, ok) {
				good = 1 // the first call is an ordinary one
			}
			if len(obs.calls) != good+1 || len(mem.recs) != good+1 {
				t.Fatalf("observed %d calls, recorded %d; want %d", len(obs.calls), len(mem.recs), good+1)
			}
			if good == 1 && obs.calls[0].Record.Rejected != nil {
				t.Errorf("the good call is recorded rejected")
			}
			c := obs.calls[good]
			rec := c.Record
			if rec.Rejected == nil || rec != mem.recs[good] {
				t.Fatalf("record %+v, want the rejected request's", rec)
			}
			if !strings.Contains(rec.Rejected.Reason, tc.reason) {
				t.Errorf("reason %q, want %q in it", rec.Rejected.Reason, tc.reason)
			}
			if rec.Response == nil || rec.Response.Status != tc.status {
				t.Errorf("recorded answer %+v, want %d", rec.Response, tc.status)
			}
			if rec.Method != tc.method || rec.Path != tc.path || c.Event != tc.event {
				t.Errorf("method %q path %q event %q, want %q %q %q", rec.Method, rec.Path, c.Event, tc.method, tc.path, tc.event)
			}
			// The head as it came, only this request's, bounded.
			head, err := rec.Rejected.RawHead()
			rest := strings.TrimPrefix(tc.raw, ok)
			want := rest[:min(len(rest), capture.MaxRejectedHead)]
			if err != nil || string(head) != want {
				t.Errorf("head %.60q (%v), want %.60q", head, err, want)
			}
			if rec.Rejected.HeadBytes < int64(len(want)) || rec.Rejected.HeadBytes > int64(len(rest)) {
				t.Errorf("headBytes %d, want %d to %d", rec.Rejected.HeadBytes, len(want), len(rest))
			}
			if len(c.Findings) != 1 || c.Findings[0].Rule != validate.RuleRejected || c.Verdict() != "invalid" {
				t.Errorf("findings %+v, want one %s", c.Findings, validate.RuleRejected)
			}
			// Written as a record of its own version, read back as it was.
			line, err := capture.Append(nil, rec)
			if err != nil || !bytes.HasPrefix(line, []byte(`{"capture":2,`)) {
				t.Fatalf("record line %.40q (%v), want format 2", line, err)
			}
			back, err := capture.NewReader(bytes.NewReader(line)).Next()
			if err != nil || back.Rejected == nil || back.Rejected.Reason != rec.Rejected.Reason {
				t.Errorf("read back %+v, %v", back, err)
			}
		})
	}
}

// A head cut off by ReadHeaderTimeout, and one whose sender closed the
// connection half way, are answered with nothing by net/http: they are
// calls that came, reported as such.
func TestUnfinishedHeadsAreCalls(t *testing.T) {
	t.Parallel()
	lim := DefaultLimits
	lim.ReadHeaderTimeout = 200 * time.Millisecond
	// The half head is sent before the server serves: the time limit
	// starts as the server reads, and finds it there. Written after, a
	// write a loaded machine held past the limit found the connection
	// ended with nothing read, which is no call.
	var conn net.Conn
	_, obs, mem, stop := serveRawAfter(t, lim, func(addr string) {
		var err error
		if conn, err = net.Dial("tcp", addr); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Write([]byte("POST /slow HTTP/1.1\r\nHost: x\r\n")); err != nil {
			t.Fatal(err)
		}
	})
	defer conn.Close()
	// The server closes it when the head is late: wait for that.
	if n, _ := io.Copy(io.Discard, conn); n != 0 {
		t.Errorf("answered %d bytes, want none", n)
	}
	stop()
	if len(mem.recs) != 1 || len(obs.calls) != 1 {
		t.Fatalf("recorded %d, observed %d; want the unfinished head", len(mem.recs), len(obs.calls))
	}
	rec := mem.recs[0]
	if rec.Rejected == nil || rec.Response != nil || rec.Path != "/slow" || !strings.Contains(rec.Rejected.Reason, "in time") {
		t.Errorf("record %+v (rejected %+v), want an unanswered rejected /slow", rec, rec.Rejected)
	}
}

// A request line still coming when ReadHeaderTimeout runs out is answered
// 400 by net/http, which reads the part that came as the whole line and
// calls it malformed: the record says the line was late, not malformed.
func TestLateRequestLineIsLateNotMalformed(t *testing.T) {
	t.Parallel()
	lim := DefaultLimits
	lim.ReadHeaderTimeout = 200 * time.Millisecond
	var conn net.Conn
	_, _, mem, stop := serveRawAfter(t, lim, func(addr string) {
		var err error
		if conn, err = net.Dial("tcp", addr); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Write([]byte("POST /slo")); err != nil {
			t.Fatal(err)
		}
	})
	defer conn.Close()
	answer, _ := io.ReadAll(conn) // the server closes it when the line is late
	stop()
	if !bytes.HasPrefix(answer, []byte("HTTP/1.1 400 ")) {
		t.Errorf("answered %q, want net/http's 400", answer)
	}
	if len(mem.recs) != 1 || mem.recs[0].Rejected == nil {
		t.Fatalf("recorded %d, want the late request line", len(mem.recs))
	}
	why := mem.recs[0].Rejected.Reason
	if !strings.Contains(why, "the request line did not arrive whole in time") || strings.Contains(why, "malformed") {
		t.Errorf("reason %q, want the request line late, and no malformed request", why)
	}
}

// A connection's head buffer goes back to a pool when it ends; one that
// ended holding its last head (an HTTP/1.0 call, closed after its answer;
// an HTTP/2 one, whose preface the buffer kept) must not hand those bytes
// to the next connection: a refused request after them was recorded with
// the call before's head (its Authorization, its path and event), or, behind
// the HTTP/2 preface, not recorded at all.
func TestRejectedHeadIsOnlyItsOwn(t *testing.T) {
	t.Parallel()
	const garbage = "GARBAGE\r\n\r\n"
	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	for _, tc := range []struct {
		name   string
		before func(t *testing.T, addr string)
	}{
		{"after an HTTP/1.0 call", func(t *testing.T, addr string) {
			// The server closes the connection after the answer: read to
			// its end, so that its buffer went back first.
			sendRaw(t, addr, []byte("POST /?businessType="+ev+" HTTP/1.0\r\nHost: x\r\nAuthorization: Bearer s3cret\r\nContent-Length: 2\r\n\r\n{}"))
		}},
		{"after an HTTP/2 call", func(t *testing.T, addr string) {
			client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Protocols: &h2c}}
			resp, err := client.Post("http://"+addr+"/?businessType="+ev, "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			client.CloseIdleConnections()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr, _, mem, stop := serveRaw(t, DefaultLimits)
			const rounds = 20
			for range rounds {
				tc.before(t, addr)
				if answer := sendRaw(t, addr, []byte(garbage)); !bytes.HasPrefix(answer, []byte("HTTP/1.1 400 ")) {
					t.Fatalf("garbage answered %.40q, want 400", answer)
				}
			}
			stop()
			rejected := 0
			for _, rec := range mem.recs {
				if rec.Rejected == nil {
					continue
				}
				rejected++
				head, err := rec.Rejected.RawHead()
				if err != nil || string(head) != garbage || rec.Method != "" || rec.Path != "" || rec.Rejected.HeadBytes != int64(len(garbage)) {
					t.Errorf("rejected record: method %q path %q head %.120q (%d bytes, %v), want only %q", rec.Method, rec.Path, head, rec.Rejected.HeadBytes, err, garbage)
				}
			}
			if rejected != rounds {
				t.Errorf("recorded %d refused requests, want %d", rejected, rounds)
			}
		})
	}
}

// "OPTIONS *" reaches the handler as any call does: net/http used to
// answer it itself (200, no handler), which listen recorded as a request
// the server refused, "OK (answered 200)".
func TestOptionsStarIsACall(t *testing.T) {
	t.Parallel()
	addr, obs, mem, stop := serveRaw(t, DefaultLimits)
	answer := sendRaw(t, addr, []byte("OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
	stop()
	if !bytes.HasPrefix(answer, []byte("HTTP/1.1 200 ")) {
		t.Errorf("answered %.40q, want listen's 200", answer)
	}
	if len(obs.calls) != 1 || len(mem.recs) != 1 {
		t.Fatalf("observed %d calls, recorded %d; want 1", len(obs.calls), len(mem.recs))
	}
	c := obs.calls[0]
	if rec := c.Record; rec.Rejected != nil || rec.Method != "OPTIONS" || rec.Path != "*" {
		t.Fatalf("recorded %s %q (rejected %+v), want OPTIONS * as a call", rec.Method, rec.Path, rec.Rejected)
	}
	flagged := false
	for _, f := range c.Findings {
		flagged = flagged || f.Rule == validate.RuleHTTPMethod
	}
	if !flagged {
		t.Errorf("findings %+v, want %s", c.Findings, validate.RuleHTTPMethod)
	}
}

// Ordinary calls, on one keep-alive connection and on many, are never
// taken for rejected ones.
func TestNoRejectionOnOrdinaryCalls(t *testing.T) {
	t.Parallel()
	addr, obs, _, stop := serveRaw(t, DefaultLimits)
	client := &http.Client{Timeout: 30 * time.Second}
	for i := range 20 {
		req, _ := http.NewRequest("POST", "http://"+addr+"/?businessType="+ev, strings.NewReader(`{"a":1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Close = i%2 == 0
		if i == 3 {
			req.Header.Set("Expect", "100-continue")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// Pipelined: two requests in one write.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	one := "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
	conn.Write([]byte(one + one + "POST /p HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"))
	rd := bufio.NewReader(conn)
	for range 3 {
		resp, err := http.ReadResponse(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	conn.Close()
	client.CloseIdleConnections()
	stop()
	if len(obs.calls) != 23 {
		t.Errorf("observed %d calls, want 23", len(obs.calls))
	}
	for _, c := range obs.calls {
		if c.Record.Rejected != nil {
			t.Errorf("call %d taken for rejected: %+v", c.Seq, c.Record.Rejected)
		}
	}
}

// http.Server's Shutdown and Close close connections holding the
// server's lock: closing one with an unfinished head must not wait for
// its report, which can wait for a stuck observer. Serve waits for the
// report after, within its bound.
func TestCloseDoesNotWaitForTheReport(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stuck, reported := make(chan struct{}), make(chan *Rejection, 1)
	wl := newWatchListener(ln, func(rj *Rejection) { <-stuck; reported <- rj })
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	conn, err := wl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	client.Write([]byte("POST /half HTTP/1.1\r\n"))
	buf := make([]byte, 64)
	if n, err := conn.Read(buf); err != nil || n == 0 {
		t.Fatalf("read %d, %v", n, err)
	}
	conn.Close() // returns although the report cannot
	gaveUp := make(chan struct{})
	close(gaveUp)
	wl.waitReports(gaveUp) // bounded: returns when its bound is done
	close(stuck)
	wl.waitReports(make(chan struct{}))
	if rj := <-reported; rj.Status != 0 || !bytes.HasPrefix(rj.Head, []byte("POST /half")) {
		t.Errorf("reported %+v, want the unanswered head", rj)
	}
}

// A refused request sent right behind the one before it, in one write, is
// still a call, whether net/http read its head with that one or apart.
func TestPipelinedRejectedRequestIsACall(t *testing.T) {
	t.Parallel()
	const good = "POST /1?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
	const bad = "POST /2 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}"
	addr, obs, _, stop := serveRaw(t, DefaultLimits)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	conn.Write([]byte(good + bad))
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	answer, _ := io.ReadAll(conn)
	conn.Close()
	stop()
	if !bytes.Contains(answer, []byte("HTTP/1.1 400 ")) {
		t.Fatalf("answered %q, want a 200 then a 400", answer)
	}
	if len(obs.calls) != 2 {
		t.Fatalf("observed %d calls, want the good one and the refused one", len(obs.calls))
	}
	rec := obs.calls[1].Record
	if rec.Rejected == nil || rec.Response == nil || rec.Response.Status != 400 {
		t.Fatalf("second call recorded as %+v, want refused with 400", rec)
	}
	if head, _ := rec.Rejected.RawHead(); len(head) > 0 && string(head) != bad {
		t.Errorf("head %q, want none or the whole request %q", head, bad)
	}
}

// A request pipelined behind one in flight when the stop begins was read
// with it into net/http's buffer, and net/http, stopping, closes the
// connection after that one's answer without reading on: it is a call
// listen closed while stopping, reported with its head, not dropped
// unseen.
func TestPipelinedCallAtTheStopIsACall(t *testing.T) {
	t.Parallel()
	const first = "POST /1?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
	const behind = "POST /2?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
	answer, mem, obs := pipelinedAtStop(t, first, behind)
	if n := bytes.Count(answer, []byte("HTTP/1.1 ")); n != 1 {
		t.Errorf("answered %q, want the first call's answer alone", answer)
	}
	if len(mem.recs) != 2 || len(obs.calls) != 2 {
		t.Fatalf("recorded %d, observed %d; want both calls", len(mem.recs), len(obs.calls))
	}
	rec := mem.recs[1]
	if rec.Rejected == nil {
		t.Fatalf("second record %+v, want the pipelined call, rejected", rec)
	}
	head, _ := rec.Rejected.RawHead()
	if !obs.calls[1].StopClosed || obs.calls[0].StopClosed {
		t.Errorf("StopClosed %v, %v; want the pipelined call's only", obs.calls[0].StopClosed, obs.calls[1].StopClosed)
	}
	if rec.Path != "/2" || string(head) != behind || rec.Rejected.Reason != stoppingReason {
		t.Errorf("second record %+v (rejected %+v), want the pipelined call, closed as listen stopped", rec, rec.Rejected)
	}
	// The record says so for every reader, and the call is not put on the
	// sender's account: listen's stop closed it unread.
	if !rec.Rejected.ClosedAtStop || mem.recs[0].Rejected != nil {
		t.Errorf("second record: closedAtStop %v, want true", rec.Rejected.ClosedAtStop)
	}
	fs := obs.calls[1].Findings
	if len(fs) != 1 || fs[0].Rule != validate.RuleClosedAtStop || obs.calls[1].Verdict() != "warning" || strings.Contains(fs[0].Message, "refused") {
		t.Errorf("findings of the call closed at the stop %+v (verdict %s), want the one warning %s, not a refusal", fs, obs.calls[1].Verdict(), validate.RuleClosedAtStop)
	}
}

// pipelinedAtStop writes first and behind to listen in one write (read
// together), stops listen while its --delay holds first (an event: the
// handler's Now), lets first be answered once the stop has begun, and
// returns what the sender read and what listen recorded and observed.
func pipelinedAtStop(t *testing.T, first, behind string) ([]byte, *memRecorder, *observed) {
	t.Helper()
	obs, mem := &observed{}, &memRecorder{}
	arrived := make(chan struct{}, 1)
	rcv := New(Config{Capture: mem, Checker: fakeChecker{}, Observe: obs.observe, Delay: time.Hour,
		Now: func() time.Time {
			select {
			case arrived <- struct{}{}:
			default:
			}
			return time.Now()
		}})
	s, err := Listen("127.0.0.1:0", rcv, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()
	conn, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.Write([]byte(first + behind))
	<-arrived // the first call's handler runs (its --delay holds it)
	cancel()
	for { // the stop began once the listener refuses connections
		c, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			break
		}
		c.Close()
		runtime.Gosched()
	}
	rcv.EndWaits() // the first call is answered now
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	answer, _ := io.ReadAll(conn)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	rcv.Close()
	return answer, mem, obs
}

// net/http reads one byte in the background while a handler runs; when
// the next request's first byte comes then, the head of that request, if
// it is refused, still starts with it.
func TestBackgroundReadByteStartsTheNextHead(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	var got *Rejection
	l := newWatchListener(nil, func(rj *Rejection) { got = rj })
	c := &watchedConn{Conn: server, l: l, watching: true}
	go func() {
		client.Write([]byte("P"))
		client.Write([]byte("OST /2 HTTP/1.1\r\n\r\n"))
		io.Copy(io.Discard, client)
	}()
	c.handed(true) // a handler runs; the server reads a byte in the background
	one := make([]byte, 1)
	if n, err := c.Read(one); n != 1 || err != nil {
		t.Fatal(n, err)
	}
	c.idle() // the answer is done
	rest := make([]byte, 64)
	if _, err := c.Read(rest); err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
	if got == nil || !bytes.HasPrefix(got.Head, []byte("POST /2")) || got.HeadBytes != int64(len("POST /2 HTTP/1.1\r\n\r\n")) {
		t.Fatalf("rejection %+v, want the head from its first byte", got)
	}
}

// A request whose head arrived whole as listen's stop began is one net/http
// drops, closing its connection: its record says so, not that the head
// was not complete (which stays the reason for a head cut short).
func TestHeadReadAsTheStopBeganIsSaidSo(t *testing.T) {
	const whole = "POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
	for _, tt := range []struct {
		name     string
		sent     string
		stopping bool
		reason   string
	}{
		{"whole, stopping", whole, true, "listen was stopping (Ctrl-C or SIGTERM) when the request arrived, and closed its connection: no answer"},
		{"cut short, stopping", "POST /hook HTTP/1.1\r\nHost:", true, "the connection ended before the request's head was complete: no answer"},
		{"whole, not stopping", whole, false, "the connection ended before the request's head was complete: no answer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server, client := net.Pipe()
			defer client.Close()
			var got *Rejection
			l := newWatchListener(nil, func(rj *Rejection) { got = rj })
			l.stopping.Store(tt.stopping)
			c := &watchedConn{Conn: server, l: l, watching: true}
			go client.Write([]byte(tt.sent))
			buf := make([]byte, 256)
			if n, err := c.Read(buf); n != len(tt.sent) || err != nil {
				t.Fatal(n, err)
			}
			c.Close()
			l.waitReports(make(chan struct{}))
			if got == nil || got.Reason != tt.reason {
				t.Fatalf("rejection %+v, want the reason %q", got, tt.reason)
			}
			if want := tt.reason == stoppingReason; got.StopClosed != want {
				t.Errorf("StopClosed %v, want %v", got.StopClosed, want)
			}
		})
	}
}

// Connections still in the kernel's accept queue when the stop begins
// carry calls that reached listen: closing the socket used to reset them,
// unrecorded. The stop takes them, reads their heads and reports each; a
// connection that sent nothing is no call. Nothing accepts here: every
// connection is still queued when Close runs.
func TestQueuedConnectionsAreCallsAtTheStop(t *testing.T) {
	t.Parallel()
	wl, ln, reported := stoppingListener(t)
	const call = "POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
	var clients []net.Conn
	for i := range 4 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if i < 3 { // the fourth sends nothing
			if _, err := c.Write([]byte(call)); err != nil {
				t.Fatal(err)
			}
		}
		clients = append(clients, c)
	}
	wl.stopping.Store(true)
	wl.Close()
	got := reported()
	if len(got) != 3 {
		t.Fatalf("%d calls reported, want the 3 that sent one: %+v", len(got), got)
	}
	for _, rj := range got {
		if string(rj.Head) != call || !strings.HasPrefix(rj.Reason, "listen was stopping (Ctrl-C or SIGTERM)") {
			t.Errorf("reported %+v, want the whole call, closed as listen stopped", rj)
		}
	}
	for _, c := range clients {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if b, err := io.ReadAll(c); len(b) > 0 || err != nil {
			t.Errorf("a client read %q, %v; want the connection closed, unanswered (not reset)", b, err)
		}
	}
}

// TestQueuedConnectionsAreCallsOnALoadedMachine: the stop's drain takes
// every queued call, and reads what each sent, however long a loaded
// machine holds it after it set a bound (a deadline already past fails an
// Accept or a Read before it looks: the drain once lost the calls so).
func TestQueuedConnectionsAreCallsOnALoadedMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("off Linux the drain still leans on a deadline (drainaccept_other.go)")
	}
	t.Parallel()
	wl, ln, reported := stoppingListener(t)
	// The scheduler's pause, longer than the bounds the drain sets (the
	// accept queue's 20 ms off Linux, a connection's 250 ms): a stimulus,
	// not a wait for an event.
	wl.pause = func() { time.Sleep(drainWait + 50*time.Millisecond) }
	const call = "POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
	for range 3 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte(call)); err != nil {
			t.Fatal(err)
		}
	}
	wl.stopping.Store(true)
	wl.Close()
	if got := reported(); len(got) != 3 {
		t.Fatalf("%d calls reported, want the 3 queued", len(got))
	}
}

// TestStopReadsTheCallWaitingOnAnOpenConnection: the stop closes an idle
// keep-alive connection (or one whose answer just went) while the next
// call its sender sent waits in the socket, unread by a goroutine a loaded
// machine has not run yet: that call reached listen, and is reported as
// one the stop closed, with its whole head (not lost, nor cut to the one
// byte net/http's background read took).
func TestStopReadsTheCallWaitingOnAnOpenConnection(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("off Linux what a socket holds is not looked at (drainaccept_other.go)")
	}
	t.Parallel()
	const call = "POST /hook?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
	for _, tc := range []struct {
		name  string
		early bool // net/http's background read took the first byte
	}{
		{"idle", false},
		{"first byte read in the background", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wl, ln, reported := stoppingListener(t)
			defer ln.Close()
			client, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			sc, err := wl.Accept()
			if err != nil {
				t.Fatal(err)
			}
			c := sc.(*watchedConn)
			if _, err := client.Write([]byte(call)); err != nil {
				t.Fatal(err)
			}
			if tc.early {
				c.handed(true) // the call before's handler runs
				if n, err := c.Read(make([]byte, 1)); n != 1 || err != nil {
					t.Fatal(n, err)
				}
				c.idle() // its answer went
			}
			// On loopback a write is in the peer's socket once it returns;
			// wait for it all the same, as an event.
			waiting := len(call)
			if tc.early {
				waiting--
			}
			for bufferedBytes(c.Conn) < waiting {
				runtime.Gosched()
			}
			wl.stopping.Store(true)
			c.Close()
			got := reported()
			if len(got) != 1 {
				t.Fatalf("%d calls reported, want the one waiting in the socket", len(got))
			}
			if rj := got[0]; string(rj.Head) != call || rj.HeadBytes != int64(len(call)) || rj.Reason != stoppingReason || !rj.StopClosed || rj.Status != 0 {
				t.Errorf("reported head %q (%d bytes), status %d, reason %q; want the whole call, closed as listen stopped", rj.Head, rj.HeadBytes, rj.Status, rj.Reason)
			}
		})
	}
}

// stoppingListener is a watched listener on 127.0.0.1 that nothing
// accepts on, as the stop finds one: reported waits until the reports its
// Close started have returned and gives them.
func stoppingListener(t *testing.T) (wl *watchListener, ln net.Listener, reported func() []*Rejection) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []*Rejection
	wl = newWatchListener(ln, func(rj *Rejection) { mu.Lock(); got = append(got, rj); mu.Unlock() })
	return wl, ln, func() []*Rejection {
		wl.waitReports(make(chan struct{}))
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

// TestHeadReadPastItsDeadline: what a sender sent is read, however long a
// loaded machine held the connection's goroutine past its read deadline
// (ReadHeaderTimeout) before it looked: a read whose deadline is past
// fails before it looks, and the call waiting in the socket was closed as
// a head that never came. The deadline already past when Read runs
// stands in for the held goroutine.
func TestHeadReadPastItsDeadline(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("off Linux a read its deadline failed is not retried (drainaccept_other.go)")
	}
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wl := newWatchListener(ln, func(*Rejection) {})
	defer wl.Close()
	const call = "POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(call)); err != nil { // on loopback, in the peer's socket once written
		t.Fatal(err)
	}
	sc, err := wl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	// net/http's abort of its background read (a deadline of time.Unix(1,
	// 0)) is no bound on the sender: it ends the read without a look at
	// the socket, and the bytes stay for the next read.
	sc.SetReadDeadline(time.Unix(1, 0))
	buf := make([]byte, 4096)
	if n, err := sc.Read(buf); n != 0 || !timeout(err) {
		t.Fatalf("Read under an abort: %q, %v; want the timeout and nothing read", buf[:n], err)
	}
	sc.SetReadDeadline(time.Now().Add(-time.Second))
	n, err := sc.Read(buf)
	if err != nil || string(buf[:n]) != call {
		t.Fatalf("Read: %q, %v; want the call the sender sent", buf[:n], err)
	}
	// Nothing more in the socket: the deadline decides, as before.
	if _, err := sc.Read(buf); err == nil || !timeout(err) {
		t.Fatalf("second Read: %v, want the timeout", err)
	}
}

// TestTimeoutReadsDeadlinesWithoutAllocating: timeout runs on the read
// net/http aborts after every call (its background read, given a past
// deadline), so it answers a net.Error without errors.As (whose target
// escaped, an allocation a call, and whose reflection grew that
// goroutine's stack, a copy a call), and still finds a wrapped one.
func TestTimeoutReadsDeadlinesWithoutAllocating(t *testing.T) {
	deadline := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"a read past its deadline", deadline, true},
		{"the same, wrapped", fmt.Errorf("reading the head: %w", deadline), true},
		{"a reset", reset, false},
		{"no net error", io.ErrUnexpectedEOF, false},
	} {
		if got := timeout(tc.err); got != tc.want {
			t.Errorf("%s: timeout = %v, want %v", tc.name, got, tc.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { timeout(deadline) }); n != 0 {
		t.Errorf("timeout of a net.Error: %v allocations, want 0", n)
	}
}

// Every request pipelined behind the call in flight at the stop is a call
// of its own: three sent behind it were recorded, printed and counted as
// one call whose head held all three. A head cut short after them is one
// more. So are those past one head's bound (8 KiB). The first call's --delay holds it until the stop has begun: an
// event (its Now), not a clock.
func TestEveryPipelinedCallAtTheStopIsACall(t *testing.T) {
	t.Parallel()
	call := func(path string) string {
		return "POST " + path + "?businessType=" + ev + " HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
	}
	const chunked = "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
	const cut = "POST /cut HTTP/1.1\r\nHost:"
	// 99 behind the first: 9 KiB, past one head's bound (10 of them were
	// counted as one call).
	var hundred []string
	for i := 2; i <= 100; i++ {
		hundred = append(hundred, call("/"+strconv.Itoa(i)))
	}
	for _, tt := range []struct {
		name   string
		behind []string
	}{
		{"one", []string{call("/2")}},
		{"three", []string{call("/2"), chunked, call("/4")}},
		{"two and a head cut short", []string{call("/2"), call("/3"), cut}},
		{"a hundred", hundred},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.behind) > 3 && runtime.GOOS != "linux" {
				t.Skip("off Linux what a socket holds is not looked at (drainaccept_other.go)")
			}
			t.Parallel()
			_, mem, obs := pipelinedAtStop(t, call("/1"), strings.Join(tt.behind, ""))
			if len(mem.recs) != 1+len(tt.behind) || len(obs.calls) != len(mem.recs) {
				t.Fatalf("recorded %d, observed %d; want %d calls", len(mem.recs), len(obs.calls), 1+len(tt.behind))
			}
			for i, want := range tt.behind {
				rec, cl := mem.recs[1+i], obs.calls[1+i]
				if rec.Rejected == nil || !cl.StopClosed {
					t.Errorf("record %d %+v, want a call the stop closed", 1+i, rec)
					continue
				}
				head, _ := rec.Rejected.RawHead()
				if string(head) != want || rec.Rejected.HeadBytes != int64(len(want)) {
					t.Errorf("record %d holds %q (%d bytes), want %q", 1+i, head, rec.Rejected.HeadBytes, want)
				}
			}
		})
	}
}

// A request sent behind one after whose answer the connection closes (it
// asked to, with Connection: close or as HTTP/1.0, or listen's 413 did)
// reached listen, and net/http closes the connection without reading it:
// it was neither answered, recorded, printed nor counted. Now each is a
// call, refused unread, whose reason says why. Nothing behind is no call.
func TestRequestBehindAClosingOneIsACall(t *testing.T) {
	t.Parallel()
	call := func(path, proto, extra string, body string) string {
		return "POST " + path + "?businessType=" + ev + " " + proto + "\r\nHost: x\r\nContent-Type: application/json\r\n" + extra +
			"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	b2, b3 := call("/b2", "HTTP/1.1", "", "{}"), call("/b3", "HTTP/1.1", "", "{}")
	for _, tt := range []struct {
		name   string
		first  string
		behind []string
	}{
		{"Connection: close", call("/1", "HTTP/1.1", "Connection: close\r\n", "{}"), []string{b2}},
		{"HTTP/1.0", call("/1", "HTTP/1.0", "", "{}"), []string{b2}},
		{"a body over the limit", call("/1", "HTTP/1.1", "", strings.Repeat("a", 2048)), []string{b2}},
		{"two behind", call("/1", "HTTP/1.1", "Connection: close\r\n", "{}"), []string{b2, b3}},
		{"nothing behind", call("/1", "HTTP/1.1", "Connection: close\r\n", "{}"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obs, mem := &observed{}, &memRecorder{}
			rcv := New(Config{Capture: mem, Checker: fakeChecker{}, Observe: obs.observe, MaxBody: 1024})
			s, err := Listen("127.0.0.1:0", rcv, DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			conn, cancel, served := serveAndDial(t, s)
			conn.Write([]byte(tt.first + strings.Join(tt.behind, "")))
			answer, _ := io.ReadAll(conn) // until listen closes the connection
			cancel()
			if err := <-served; err != nil {
				t.Fatal(err)
			}
			rcv.Close()
			if n := bytes.Count(answer, []byte(" 200 OK\r\n")) + bytes.Count(answer, []byte(" 413 ")); n != 1 {
				t.Errorf("answered %q, want the first call's answer alone", answer)
			}
			if len(mem.recs) != 1+len(tt.behind) || len(obs.calls) != len(mem.recs) {
				t.Fatalf("recorded %d, observed %d; want %d calls", len(mem.recs), len(obs.calls), 1+len(tt.behind))
			}
			for i, want := range tt.behind {
				rec, cl := mem.recs[1+i], obs.calls[1+i]
				if rec.Rejected == nil || cl.StopClosed || rec.Response != nil {
					t.Errorf("record %d %+v, want a request refused unread, unanswered, not by the stop", 1+i, rec)
					continue
				}
				head, _ := rec.Rejected.RawHead()
				if string(head) != want || rec.Rejected.Reason != closedBehindReason {
					t.Errorf("record %d holds %q, reason %q; want %q, %q", 1+i, head, rec.Rejected.Reason, want, closedBehindReason)
				}
			}
		})
	}
}

// A request the server refused is recorded with its path as listen
// records a call's: decoded, and as the sender wrote it (rawPath) where
// that is not Go's escaping. It was decoded alone, /a%2Fb/%41 shown as
// /a/b/A.
func TestRejectedRequestKeepsThePathAsSent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ target, path, raw string }{
		{"/a%2Fb/%41?x=1", "/a/b/A", "/a%2Fb/%41"},
		{"/a%20b", "/a b", ""},
		{"/hook", "/hook", ""},
	} {
		addr, obs, _, stop := serveRaw(t, DefaultLimits)
		sendRaw(t, addr, []byte("POST "+tc.target+" HTTP/1.1\r\nHost: x\r\nExpect: later\r\nContent-Length: 2\r\n\r\n{}"))
		stop()
		if len(obs.calls) != 1 || obs.calls[0].Record.Rejected == nil {
			t.Fatalf("%s: observed %d calls, want the one refused", tc.target, len(obs.calls))
		}
		if rec := obs.calls[0].Record; rec.Path != tc.path || rec.RawPath != tc.raw {
			t.Errorf("%s: recorded path %q rawPath %q, want %q %q", tc.target, rec.Path, rec.RawPath, tc.path, tc.raw)
		}
	}
}

// requestLine reads a head no sender can be trusted to have written: it
// never panics, and what it gives is a target a record can hold (a path,
// "*", a CONNECT's authority) with the query that target carries.
func FuzzRequestLine(f *testing.F) {
	for _, s := range []string{
		"POST /hook?businessType=X HTTP/1.1\r\n", "CONNECT example.com:443 HTTP/1.1\r\n", "OPTIONS * HTTP/1.1\r\n",
		"POST http://x/hook?q=1 HTTP/1.1\r\n", "POST https://x?q HTTP/1.1\r\n", "GET http://x HTTP/1.1\r\n", "GARBAGE\r\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		method, target, query := requestLine(head)
		switch {
		case target == "":
			if query != "" {
				t.Fatalf("no target, query %q", query)
			}
		case target == "*" || method == http.MethodConnect && target[0] != '/':
			if query != "" {
				t.Fatalf("target %q, query %q", target, query)
			}
		case target[0] != '/':
			t.Fatalf("target %q is no path, \"*\" or a CONNECT's authority (method %q)", target, method)
		default:
			if _, q, _ := strings.Cut(target, "?"); q != query {
				t.Fatalf("target %q, query %q", target, query)
			}
		}
	})
}
