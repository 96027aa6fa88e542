package receiver

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/validate"
)

// A sender (or a proxy in front of it: Envoy and the like often speak
// HTTP/2 without TLS upstream) that talks HTTP/2 over plain TCP from the
// first byte is answered, and its call recorded, as any other: not seen as
// a call of method PRI with no body, answered in HTTP/1.1 and lost.
func TestPriorKnowledgeHTTP2IsACall(t *testing.T) {
	t.Parallel()
	mem := &memRecorder{}
	obs := &observed{}
	rcv := New(Config{Capture: mem, Checker: fakeChecker{}, Observe: obs.observe})
	s, err := Listen("127.0.0.1:0", rcv, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()

	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Protocols: &h2c}}
	body := `{"requestId":"r-1","businessType":5007,"data":{}}`
	resp, err := client.Post(s.URL()+"/hook?businessType=CREATE_RECEIVABLE_DOC", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("an HTTP/2 call: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	client.CloseIdleConnections()
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	rcv.Close()
	if resp.StatusCode != 200 || resp.ProtoMajor != 2 {
		t.Errorf("answered %d over %s, want 200 over HTTP/2", resp.StatusCode, resp.Proto)
	}
	if len(mem.recs) != 1 || mem.recs[0].Method != "POST" || mem.recs[0].Path != "/hook" || mem.recs[0].Body != body {
		t.Fatalf("recorded %+v, want the POST and its body", mem.recs)
	}
	if len(obs.calls) != 1 || len(obs.calls[0].Findings) != 0 {
		t.Errorf("calls %+v, want one without findings", obs.calls)
	}
	if p := mem.recs[0].Proto; p != "HTTP/2.0" {
		t.Errorf("recorded protocol %q, want HTTP/2.0 (a HAR export said HTTP/1.1)", p)
	}
}

// A call's record says the protocol it came in when it is not HTTP/1.1
// (curl -0 sends HTTP/1.0): the HAR export gives it as httpVersion, which
// was HTTP/1.1 for every call.
func TestRecordSaysHTTP10(t *testing.T) {
	t.Parallel()
	mem := &memRecorder{}
	rcv := New(Config{Capture: mem, Checker: fakeChecker{}})
	s, err := Listen("127.0.0.1:0", rcv, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx) }()
	body := `{"requestId":"r-1","businessType":5007,"data":{}}`
	for _, proto := range []string{"HTTP/1.0", "HTTP/1.1"} {
		conn, err := net.Dial("tcp", s.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, "POST /hook?businessType=CREATE_RECEIVABLE_DOC "+proto+"\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		resp, err := io.ReadAll(conn) // the answer, to the close
		conn.Close()
		if err != nil || !bytes.HasPrefix(resp, []byte(proto+" 200")) {
			t.Fatalf("%s: answered %q (%v)", proto, resp, err)
		}
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	rcv.Close()
	if len(mem.recs) != 2 {
		t.Fatalf("recorded %d calls, want 2", len(mem.recs))
	}
	if p := mem.recs[0].Proto; p != "HTTP/1.0" {
		t.Errorf("an HTTP/1.0 call recorded with protocol %q", p)
	}
	if p := mem.recs[1].Proto; p != "" {
		t.Errorf("an HTTP/1.1 call recorded with protocol %q, want none (HTTP/1.1 is the default, as in records before the member)", p)
	}
}

// writeWatch is a client's connection that says when what it wrote
// contains want.
type writeWatch struct {
	net.Conn
	want    string
	mu      sync.Mutex
	written []byte
	sent    chan struct{}
}

func (w *writeWatch) Write(p []byte) (int, error) {
	n, err := w.Conn.Write(p)
	w.mu.Lock()
	had := bytes.Contains(w.written, []byte(w.want))
	w.written = append(w.written, p[:n]...)
	if !had && bytes.Contains(w.written, []byte(w.want)) {
		close(w.sent)
	}
	w.mu.Unlock()
	return n, err
}

// A call made over HTTP/2 with prior knowledge that is still in the
// kernel's accept queue when the stop begins reached listen as much as an
// HTTP/1 one: it is reported as a call listen closed while stopping, with
// its method, path and query read from its HEADERS frame, not dropped for
// being HTTP/2.
func TestQueuedH2CCallIsACallAtTheStop(t *testing.T) {
	t.Parallel()
	wl, ln, reported := stoppingListener(t)

	const body = `{"requestId":"r-1","businessType":5007,"data":{}}`
	dialed := &writeWatch{want: body, sent: make(chan struct{})}
	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	client := &http.Client{Transport: &http.Transport{
		Protocols: &h2c,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			dialed.Conn = c
			return dialed, err
		},
	}}
	answered := make(chan error, 1)
	go func() {
		resp, err := client.Post("http://"+ln.Addr().String()+"/hook?businessType=CREATE_RECEIVABLE_DOC", "application/json", strings.NewReader(body))
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()
	<-dialed.sent // the call is in the queue: nothing accepts here

	wl.stopping.Store(true)
	wl.Close()
	got := reported()
	if err := <-answered; err == nil {
		t.Errorf("the sender got an answer, want its connection closed unanswered")
	}
	if len(got) != 1 {
		t.Fatalf("%d calls reported, want the HTTP/2 call: %+v", len(got), got)
	}
	rj := got[0]
	if rj.Method != "POST" || rj.Target != "/hook?businessType=CREATE_RECEIVABLE_DOC" || !strings.HasPrefix(rj.Reason, "listen was stopping (Ctrl-C or SIGTERM)") {
		t.Errorf("reported %+v, want the POST to /hook, closed as listen stopped", rj)
	}
	if !bytes.HasPrefix(rj.Head, []byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")) {
		t.Errorf("head %q, want the connection's bytes from its preface", rj.Head)
	}

	// Its record and the call printed: the request's own method, path,
	// query and headers, not the preface's "PRI *".
	mem, obs := &memRecorder{}, &observed{}
	rcv := New(Config{Capture: mem, Observe: obs.observe})
	rcv.Rejected(rj)
	rcv.Close()
	if len(mem.recs) != 1 || len(obs.calls) != 1 {
		t.Fatalf("%d records, %d calls; want 1 each", len(mem.recs), len(obs.calls))
	}
	rec, c := mem.recs[0], obs.calls[0]
	if rec.Method != "POST" || rec.Path != "/hook" || rec.Query != "businessType=CREATE_RECEIVABLE_DOC" || rec.Headers.Get("Content-Type") != "application/json" {
		t.Errorf("record %+v, want the POST to /hook?businessType=CREATE_RECEIVABLE_DOC and its headers", rec)
	}
	if rec.Rejected == nil || rec.Rejected.Reason != rj.Reason || rec.Response != nil {
		t.Errorf("rejected %+v, response %+v; want the reason %q, no answer", rec.Rejected, rec.Response, rj.Reason)
	}
	if !c.HasEvent || c.Event != "CREATE_RECEIVABLE_DOC" || !hasRule(c, validate.RuleClosedAtStop) {
		t.Errorf("call %+v, want its event and %s", c, validate.RuleClosedAtStop)
	}
}

// A sender whose bytes begin as the HTTP/2 preface but stop short of it
// (its write side closed after "PRI * HTTP/2.0\r\n", or one byte later)
// is answered 400 by net/http, reading it as HTTP/1: the call
// reached listen, and is recorded and counted as one the server refused.
// Listen stopped watching such a connection at the preface's first line,
// taking it for HTTP/2: the 400 went out and no line, record or count
// said so.
func TestPartialH2PrefaceIsACall(t *testing.T) {
	t.Parallel()
	for _, sent := range []string{"PRI * HTTP/2.0\r\n", "PRI * HTTP/2.0\r\n\r"} {
		t.Run(strings.TrimSpace(sent), func(t *testing.T) {
			t.Parallel()
			addr, obs, mem, stop := serveRaw(t, DefaultLimits)
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetReadDeadline(time.Now().Add(time.Minute)) // a guard: never reached
			io.WriteString(c, sent)
			c.(*net.TCPConn).CloseWrite()
			answer, _ := io.ReadAll(c) // net/http closes once it answered
			stop()
			if len(mem.recs) != 1 || len(obs.calls) != 1 {
				t.Fatalf("answered %q; %d records, %d calls, want the call", answer, len(mem.recs), len(obs.calls))
			}
			rec := mem.recs[0]
			if rec.Rejected == nil {
				t.Fatalf("recorded %+v, want a request the server refused", rec)
			}
			head, _ := rec.Rejected.RawHead()
			status := 0
			if rec.Response != nil {
				status = rec.Response.Status
			}
			if string(head) != sent || !bytes.HasPrefix(answer, []byte("HTTP/1.1 "+strconv.Itoa(status)+" ")) {
				t.Errorf("recorded head %q answered %d; sent %q, answered %q", head, status, sent, answer)
			}
		})
	}
}
