package receiver

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

// resetSecondBackend is a receiver that reads every call whole, answers
// the first call on each connection 200 and keeps it alive, and resets
// the connection on the second, unanswered: a receiver that crashed
// after it read (and may have stored) the call.
type resetSecondBackend struct {
	ln    net.Listener
	calls atomic.Int32
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn // closed at cleanup: listen's client keeps them idle
}

func newResetSecondBackend(t *testing.T) *resetSecondBackend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &resetSecondBackend{ln: ln}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.mu.Lock()
			b.conns = append(b.conns, c)
			b.mu.Unlock()
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				b.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		b.mu.Lock()
		for _, c := range b.conns {
			c.Close()
		}
		b.mu.Unlock()
		b.wg.Wait()
	})
	return b
}

func (b *resetSecondBackend) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for n := 1; ; n++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return
		}
		b.calls.Add(1)
		if n > 1 {
			c.(*net.TCPConn).SetLinger(0) // close sends RST
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	}
}

// A call net/http deems safe to send again (an Idempotency-Key or
// X-Idempotency-Key header, a GET) is forwarded once. When the receiver's
// kept-alive connection failed after the call went out, net/http sent it
// again on a new connection, unseen: the receiver held a copy that the
// sender never sent and that listen's line, record and summary never
// showed (the sender got the second copy's 200). Now the forward fails
// as any other call's does, and the receiver gets each call once.
func TestForwardNotSentAgain(t *testing.T) {
	for _, tt := range []struct {
		name, method, header string
		body                 string
	}{
		{"plain POST", http.MethodPost, "", faultBody},
		{"Idempotency-Key", http.MethodPost, "Idempotency-Key", faultBody},
		{"X-Idempotency-Key", http.MethodPost, "X-Idempotency-Key", faultBody},
		{"GET", http.MethodGet, "", faultBody},
		// No body: net/http makes the call again without asking for one,
		// so GetBody cannot refuse it.
		{"GET, no body", http.MethodGet, "", ""},
		{"Idempotency-Key, no body", http.MethodPost, "Idempotency-Key", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			be := newResetSecondBackend(t)
			u, _ := url.Parse("http://" + be.ln.Addr().String() + "/hook")
			mem := &memRecorder{}
			rcv := New(Config{ForwardTo: u, Capture: mem})
			var got []int
			for i := range 2 {
				req := httptest.NewRequest(tt.method, "/webhook?businessType="+ev, strings.NewReader(tt.body))
				req.Header.Set("Content-Type", "application/json")
				if tt.header != "" {
					req.Header.Set(tt.header, "key-"+string(rune('1'+i)))
				}
				w := httptest.NewRecorder()
				rcv.ServeHTTP(w, req)
				got = append(got, w.Code)
			}
			rcv.Close()
			if n := be.calls.Load(); n != 2 {
				t.Errorf("the receiver read %d calls, want 2: the sender made 2 and listen forwarded each once", n)
			}
			if got[0] != http.StatusOK || got[1] != http.StatusBadGateway {
				t.Errorf("the sender got %v, want [200 502]: the second call's connection was reset unanswered", got)
			}
			if f := mem.recs[1].Forward; f == nil || !strings.Contains(f.Error, "connection reset by peer") {
				t.Errorf("second forward recorded as %+v, want its error: the connection was reset", f)
			}
			// A plain POST's error was net/http's alone ("read: connection
			// reset by peer"), which reads as a receiver never reached; the
			// receiver read it whole.
			if f := mem.recs[1].Forward; f == nil || !strings.Contains(f.Error, "may hold it") {
				t.Errorf("second forward recorded as %+v, want its error to say the receiver may hold the call", f)
			}
		})
	}
}

// The receiver is sent the sender's headers and the sender gets the
// receiver's answer as it was sent. net/http's client asked for gzip
// itself (Accept-Encoding: gzip on a call whose sender sent none) and
// undid the receiver's gzip, dropping its Content-Encoding: the receiver
// saw a header the real sender never sends, and the sender and the
// record got a body the receiver never sent.
func TestForwardKeepsEncodings(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	io.WriteString(zw, `{"stored":true}`)
	zw.Close()
	for _, acceptEncoding := range []string{"", "gzip"} {
		t.Run("Accept-Encoding="+acceptEncoding, func(t *testing.T) {
			var asked atomic.Value
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				asked.Store(r.Header.Values("Accept-Encoding"))
				w.Header().Set("Content-Encoding", "gzip")
				w.Header().Set("Content-Type", "application/json")
				w.Write(zipped.Bytes())
			}))
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			mem := &memRecorder{}
			rcv := New(Config{ForwardTo: u, Capture: mem})
			req := httptest.NewRequest(http.MethodPost, "/webhook?businessType="+ev, strings.NewReader(faultBody))
			req.Header.Set("Content-Type", "application/json")
			if acceptEncoding != "" {
				req.Header.Set("Accept-Encoding", acceptEncoding)
			}
			w := httptest.NewRecorder()
			rcv.ServeHTTP(w, req)
			rcv.Close()
			want := []string(nil)
			if acceptEncoding != "" {
				want = []string{acceptEncoding}
			}
			if got, _ := asked.Load().([]string); !slices.Equal(got, want) {
				t.Errorf("the receiver was sent Accept-Encoding %q, want the sender's %q", got, want)
			}
			if ce := w.Header().Get("Content-Encoding"); ce != "gzip" || !bytes.Equal(w.Body.Bytes(), zipped.Bytes()) {
				t.Errorf("the sender got Content-Encoding %q and %q, want the receiver's gzip bytes", ce, w.Body.Bytes())
			}
			if f := mem.recs[0].Forward; f == nil || f.Headers.Get("Content-Encoding") != "gzip" {
				t.Errorf("forward recorded as %+v, want the receiver's Content-Encoding", f)
			}
		})
	}
}

// A call without a User-Agent is forwarded without one: net/http added
// its own "Go-http-client/1.1", a header the real sender never sends.
func TestForwardAddsNoUserAgent(t *testing.T) {
	for _, userAgent := range []string{"", "ERP/9.1"} {
		t.Run("User-Agent="+userAgent, func(t *testing.T) {
			var sent atomic.Value
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				sent.Store(r.Header.Values("User-Agent"))
			}))
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			rcv := New(Config{ForwardTo: u})
			req := httptest.NewRequest(http.MethodPost, "/webhook?businessType="+ev, strings.NewReader(faultBody))
			req.Header.Set("Content-Type", "application/json")
			var want []string
			if userAgent != "" {
				req.Header.Set("User-Agent", userAgent)
				want = []string{userAgent}
			}
			rcv.ServeHTTP(httptest.NewRecorder(), req)
			rcv.Close()
			if got, _ := sent.Load().([]string); !slices.Equal(got, want) {
				t.Errorf("the receiver was sent User-Agent %q, want the sender's %q", got, want)
			}
		})
	}
}

// A call is said unsent (Call.Unsent, which listen's summary counts by)
// only when none of it went out: the receiver could not be reached. One
// that reached it and got no answer (its connection reset after it read
// the call) was sent.
func TestForwardUnsent(t *testing.T) {
	// Port 1: nothing listens there (a closed test server's port may be
	// another parallel test's by the time it is called).
	const refused = "http://127.0.0.1:1"
	reset := newResetSecondBackend(t)
	for _, tt := range []struct {
		name   string
		url    string
		calls  int
		unsent []bool
	}{
		{"answered", "", 1, []bool{false}},
		{"refused", refused, 1, []bool{true}},
		{"reset after reading", "http://" + reset.ln.Addr().String(), 2, []bool{false, false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			target := tt.url
			if target == "" {
				backend := httptest.NewServer(&recordingBackend{})
				defer backend.Close()
				target = backend.URL
			}
			u, _ := url.Parse(target)
			srv, obs, _ := start(t, Config{ForwardTo: u})
			for range tt.calls {
				post(t, srv, ev, faultBody)
			}
			srv.Close()
			var got []bool
			for _, c := range obs.calls {
				got = append(got, c.Unsent)
			}
			if !slices.Equal(got, tt.unsent) {
				t.Errorf("unsent %v, want %v", got, tt.unsent)
			}
		})
	}
}

// The sender gets the receiver's answer headers, no more: an answer
// without a Content-Type reached the sender with the one net/http's
// server guesses ("text/plain; charset=utf-8"), which neither the
// receiver sent nor the capture's record of the answer holds.
func TestForwardAddsNoContentType(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header()["Content-Type"] = nil // net/http's server would guess one too
		io.WriteString(w, "stored")
	}))
	defer backend.Close()
	u, _ := url.Parse(backend.URL)
	srv, _, mem := start(t, Config{ForwardTo: u})
	resp := post(t, srv, ev, faultBody)
	srv.Close()
	if ct, ok := resp.Header["Content-Type"]; ok {
		t.Errorf("the sender got Content-Type %q, which the receiver did not send", ct)
	}
	if ct, ok := mem.recs[0].Response.Headers["Content-Type"]; ok {
		t.Errorf("the record says the sender got Content-Type %q", ct)
	}
}

// TestForwardKeepsAConnectionPerSender: a sender at a concurrency of 128
// (send --concurrency 128 through listen --forward-to) finds its
// connections to the receiver kept between rounds of calls. With 64 idle
// connections kept, each round after the first dialled 64 anew: at 200
// senders, 5,360 connections for 20,000 calls, each closed one a socket
// in TIME_WAIT.
func TestForwardKeepsAConnectionPerSender(t *testing.T) {
	const senders, rounds = 128, 3
	var dialled atomic.Int32
	var mu sync.Mutex
	inFlight, release := 0, make(chan struct{})
	backend := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		// Every sender's call is in flight at once before any is
		// answered: the round needs all 128 connections.
		mu.Lock()
		inFlight++
		wait := release
		if inFlight == senders {
			inFlight, release = 0, make(chan struct{})
			close(wait)
		}
		mu.Unlock()
		<-wait
	}))
	backend.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dialled.Add(1)
		}
	}
	backend.Start()
	defer backend.Close()
	cfg, err := Options{ForwardTo: backend.URL, Status: 200, MaxBody: "1MiB"}.Config()
	if err != nil {
		t.Fatal(err)
	}
	// The pool's size is tested, not its idle timer (forwardIdle, 1 s),
	// which a loaded machine outran between two rounds: 156 dialled
	// (found by fx47, -race -cpu 1,2,4 beside another package's tests).
	cfg.Client.Transport.(*http.Transport).IdleConnTimeout = 0
	rcv := New(cfg)
	defer rcv.Close()
	for range rounds {
		var wg sync.WaitGroup
		for range senders {
			wg.Go(func() {
				req := httptest.NewRequest(http.MethodPost, "/webhook?businessType="+ev, strings.NewReader(faultBody))
				rec := httptest.NewRecorder()
				rcv.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					t.Errorf("forwarded call answered %d, want 200", rec.Code)
				}
			})
		}
		wg.Wait()
	}
	if n := dialled.Load(); n != senders {
		t.Errorf("%d rounds of %d calls at once dialled %d connections to the receiver, want %d (one a sender)", rounds, senders, n, senders)
	}
}

// rawAnswerBackend reads each call whole and writes answer as its raw
// bytes, then closes the connection.
func rawAnswerBackend(t *testing.T, answer string) *url.URL {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			req, err := http.ReadRequest(bufio.NewReader(c))
			if err == nil {
				io.Copy(io.Discard, req.Body)
				io.WriteString(c, answer)
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	u, _ := url.Parse("http://" + ln.Addr().String() + "/hook")
	return u
}

// A receiver whose answer began and did not end whole (its body cut
// short) took the call and answered its status: the
// forward's error said only "unexpected EOF", which reads as a receiver
// never reached, and hid the status it answered.
func TestForwardAnswerCutShortNamesTheStatus(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, answer string
		maxBody      int64
		want         []string
	}{
		{"body shorter than its length", "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\nok", 0,
			[]string{"the receiver answered 200", "cut short after 2 of 20 bytes of body", "unexpected EOF"}},
		{"chunked body cut", "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", 0,
			[]string{"the receiver answered 201", "cut short after 3 bytes of body"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := rawAnswerBackend(t, tt.answer)
			cfg := Config{ForwardTo: u}
			if tt.maxBody > 0 {
				cfg.MaxBody = tt.maxBody
			}
			srv, _, mem := start(t, cfg)
			resp := post(t, srv, ev, `{"a":1}`)
			srv.Close()
			if resp.StatusCode != http.StatusBadGateway {
				t.Errorf("the sender got %d, want 502: the receiver's answer did not come whole", resp.StatusCode)
			}
			f := mem.recs[0].Forward
			if f == nil {
				t.Fatal("no forward recorded")
			}
			for _, w := range tt.want {
				if !strings.Contains(f.Error, w) {
					t.Errorf("forward error %q, want it to say %q", f.Error, w)
				}
			}
		})
	}
}

// A receiver whose answer body is over the body limit answered, and took
// the call: the sender gets its status and headers, the body cut at the
// limit, and the record says so. Listen answered 502, which has a sender
// send again a call the receiver had stored.
func TestForwardAnswerOverLimitPassesTheStatus(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("x", 40)
	for _, tt := range []struct{ name, answer string }{
		{"with its length", "HTTP/1.1 201 Created\r\nX-Recv: 1\r\nContent-Length: 40\r\n\r\n" + body},
		{"chunked", "HTTP/1.1 201 Created\r\nX-Recv: 1\r\nTransfer-Encoding: chunked\r\n\r\n28\r\n" + body + "\r\n0\r\n\r\n"},
		{"until the close", "HTTP/1.1 201 Created\r\nX-Recv: 1\r\n\r\n" + body},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u := rawAnswerBackend(t, tt.answer)
			srv, _, mem := start(t, Config{ForwardTo: u, MaxBody: 16})
			resp, err := srv.Client().Post(srv.URL+"/webhook?businessType="+ev, "application/json", strings.NewReader(`{"a":1}`))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			srv.Close()
			if resp.StatusCode != http.StatusCreated || resp.Header.Get("X-Recv") != "1" || string(got) != body[:16] {
				t.Errorf("the sender got %d, X-Recv %q, body %q; want the receiver's 201, X-Recv 1 and the body's first 16 bytes", resp.StatusCode, resp.Header.Get("X-Recv"), got)
			}
			f := mem.recs[0].Forward
			if f == nil {
				t.Fatal("no forward recorded")
			}
			want := "over the body limit (16 bytes): the sender got, and the record holds, its first 16 bytes"
			if f.Error != "" || f.Status != http.StatusCreated || f.Body != body[:16] || !strings.Contains(f.BodyCut, want) {
				t.Errorf("forward status %d, error %q, body %q, bodyCut %q; want 201, no error, the first 16 bytes and %q", f.Status, f.Error, f.Body, f.BodyCut, want)
			}
		})
	}
}

// A receiver's status line with a code under 100 (000, 042, 099) is
// one net/http's client takes, as a number no server can write: listen
// passed it to WriteHeader, which panics, so the sender's connection was
// closed with no answer, listen printed no line for the call and waited
// 30 s at its stop for one. It answers 502 and says what came instead.
func TestForwardStatusUnder100(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"000", "042", "099"} {
		t.Run(code, func(t *testing.T) {
			t.Parallel()
			u := rawAnswerBackend(t, "HTTP/1.1 "+code+" Odd\r\nContent-Length: 2\r\n\r\nok")
			srv, _, mem := start(t, Config{ForwardTo: u})
			resp := post(t, srv, ev, `{"a":1}`)
			srv.Close()
			if resp.StatusCode != http.StatusBadGateway {
				t.Errorf("the sender got %d, want 502: the receiver's answer had no HTTP status", resp.StatusCode)
			}
			if len(mem.recs) != 1 || mem.recs[0].Forward == nil {
				t.Fatalf("%d records, want 1 with its forward", len(mem.recs))
			}
			want := "malformed answer: the receiver answered with a head that is no HTTP/1.1 answer's (status code " + code + ", which is no HTTP status (100 to 999))"
			if f := mem.recs[0].Forward; !strings.Contains(f.Error, want) || f.Status != 0 {
				t.Errorf("forward status %d, error %q; want 0 and %q", f.Status, f.Error, want)
			}
		})
	}
}

// A query is passed on byte for byte, a '#' in it too: the receiver's
// server takes a request target's '#' as the query's (net/http does,
// and listen records it so), and replay sends it so. The forward built
// its request from the URL as text, where '#' starts a fragment, which
// is never sent: the receiver got the query cut at the '#', while the
// record's forward url said it went whole.
func TestForwardQueryByteForByte(t *testing.T) {
	t.Parallel()
	got := make(chan string, 1)
	be := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got <- r.RequestURI
	}))
	defer be.Close()
	u, _ := url.Parse(be.URL + "/hook")
	srv, _, mem := start(t, Config{ForwardTo: u})
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const query = "businessType=" + ev + "&note=A#1%20b?c"
	io.WriteString(c, "POST /webhook?"+query+" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"a\":1}")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if uri := <-got; uri != "/hook?"+query {
		t.Errorf("the receiver was sent %q, want %q", uri, "/hook?"+query)
	}
	srv.Close()
	// The record names the query's '#' %23: its url is a URL, which
	// would read a raw '#' as the start of a fragment, the query cut.
	if f := mem.recs[0].Forward; f == nil || f.URL != be.URL+"/hook?"+strings.ReplaceAll(query, "#", "%23") {
		t.Errorf("forward recorded as %+v", f)
	}
}

// A sender that gives up while the receiver works on its call ends the
// forward: the record said "forward failed: Post ...: context canceled",
// which reads as a receiver never reached, though the call went out to it
// whole and it may hold it. It says the sender gave up, and that.
func TestForwardSenderGaveUp(t *testing.T) {
	t.Parallel()
	read, release := make(chan struct{}), make(chan struct{})
	be := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		close(read)
		<-release
	}))
	defer be.Close()
	defer close(release)
	u, _ := url.Parse(be.URL + "/hook")
	srv, _, mem := start(t, Config{ForwardTo: u})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-read; cancel() }()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/webhook?businessType="+ev, strings.NewReader(`{"a":1}`))
	if resp, err := srv.Client().Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the sender got %d, want its own cancel", resp.StatusCode)
	}
	srv.Close()
	f := mem.recs[0].Forward
	if f == nil {
		t.Fatal("no forward recorded")
	}
	for _, w := range []string{"the sender gave up", "the call had gone out to the receiver (it may hold it)"} {
		if !strings.Contains(f.Error, w) {
			t.Errorf("forward error %q, want it to say %q", f.Error, w)
		}
	}
}

// staleOnce is a transport whose first try finds that the receiver had
// closed the kept-alive connection it was given, as net/http says it
// ("server closed idle connection"): its reader met the receiver's FIN
// before the call was to be written. wrote is how much of the call it
// says went out on that connection first (0: none). Later tries go to
// next. The real race (a receiver's idle timeout closing a connection
// just as the pool hands it out) cannot be timed in a test.
type staleOnce struct {
	next    http.RoundTripper
	reused  bool
	wrote   int64
	pending atomic.Bool
}

func (s *staleOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	if !s.pending.CompareAndSwap(true, false) {
		return s.next.RoundTrip(req)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	cc := &countedConn{Conn: a}
	if tr := httptrace.ContextClientTrace(req.Context()); tr != nil && tr.GotConn != nil {
		tr.GotConn(httptrace.GotConnInfo{Conn: cc, Reused: s.reused})
	}
	cc.written.Add(s.wrote)
	return nil, errors.New("http: server closed idle connection")
}

// A call none of which went out, because the receiver had closed the
// kept-alive connection listen's pool gave it (a receiver's idle timeout:
// Node's is 5 s), goes on a new connection. net/http makes that call
// again for a GET only: a POST came back as its error, and the sender got
// listen's 502 for a call its receiver never saw ("receiver got nothing
// (not reached: … server closed idle connection)"), and a duplicate
// fault's copy went missing. A try on a new connection, or one some of
// which went out, is not made again.
func TestForwardStaleConnection(t *testing.T) {
	for _, tt := range []struct {
		name   string
		reused bool
		wrote  int64
		status int
		calls  int32
	}{
		{"kept-alive, nothing sent", true, 0, http.StatusOK, 1},
		{"kept-alive, some sent", true, 10, http.StatusBadGateway, 0},
		{"new connection", false, 0, http.StatusBadGateway, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				calls.Add(1)
			}))
			defer backend.Close()
			u, _ := url.Parse(backend.URL)
			tr := &staleOnce{next: &http.Transport{}, reused: tt.reused, wrote: tt.wrote}
			tr.pending.Store(true)
			mem := &memRecorder{}
			rcv := New(Config{ForwardTo: u, Capture: mem, Client: &http.Client{Transport: tr}})
			req := httptest.NewRequest(http.MethodPost, "/webhook?businessType="+ev, strings.NewReader(faultBody))
			req.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			rcv.ServeHTTP(w, req)
			rcv.Close()
			if w.Code != tt.status {
				t.Errorf("the sender got %d, want %d", w.Code, tt.status)
			}
			if n := calls.Load(); n != tt.calls {
				t.Errorf("the receiver got %d calls, want %d", n, tt.calls)
			}
			f := mem.recs[0].Forward
			if tt.status == http.StatusOK && (f == nil || f.Error != "" || f.Status != http.StatusOK) {
				t.Errorf("forward recorded as %+v, want the receiver's 200", f)
			}
			if tt.status != http.StatusOK && (f == nil || !strings.Contains(f.Error, "server closed idle connection")) {
				t.Errorf("forward recorded as %+v, want its error", f)
			}
		})
	}
}

// A call is forwarded with the request target its sender wrote, byte for
// byte, as replay sends it: a raw '#' or a byte above 0x7f in the path,
// which net/http keeps as it came and url.URL escapes, reached the
// receiver behind listen as %23 and %E4, another path to a receiver that
// routes on the path as sent. A --forward-to with a path of its own still
// names that path, its query before the call's.
func TestForwardSendsTheTargetAsSent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, forwardTo, target, want string
	}{
		{"raw hash in the path", "", "/hook#1/x?businessType=" + ev, "/hook#1/x?businessType=" + ev},
		{"raw byte in the path", "", "/h\xe4k?businessType=" + ev, "/h\xe4k?businessType=" + ev},
		{"raw bytes in the query", "", "/hook?businessType=" + ev + "&n=\xe4#c", "/hook?businessType=" + ev + "&n=\xe4#c"},
		{"a hash then a lone percent in the query", "", "/hook?businessType=" + ev + "&n=#%", "/hook?businessType=" + ev + "&n=#%"},
		{"escapes as sent", "", "/a%2Fb/%41?businessType=" + ev, "/a%2Fb/%41?businessType=" + ev},
		{"lower-case escape", "", "/a%e4?businessType=" + ev, "/a%e4?businessType=" + ev},
		{"an empty query", "", "/hook?", "/hook?"},
		{"a path Go escapes alike", "", "//a/b?businessType=" + ev, "//a/b?businessType=" + ev},
		// Go's client writes an opaque target that starts "//" as an
		// absolute URL: such a path alone goes as url.URL escapes it.
		{"a path that starts // with a raw hash", "", "//a#b?businessType=" + ev, "//a%23b?businessType=" + ev},
		{"absolute form", "", "http://example.com/h#k?businessType=" + ev, "/h#k?businessType=" + ev},
		{"forward-to's root", "/", "/h\xe4k?businessType=" + ev, "/h\xe4k?businessType=" + ev},
		{"forward-to's own path and query", "/their/path?token=t", "/h\xe4k?businessType=" + ev, "/their/path?token=t&businessType=" + ev},
		// A call without a query adds nothing to forward-to's: no '&'
		// with nothing after it.
		{"forward-to's own query, the call without one", "/their/path?token=t", "/hook", "/their/path?token=t"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := make(chan string, 1)
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got <- r.RequestURI
			}))
			t.Cleanup(backend.Close)
			u, _ := url.Parse(backend.URL + tt.forwardTo)
			srv, _, mem := start(t, Config{ForwardTo: u})
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			io.WriteString(conn, "POST "+tt.target+" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("answered %d, want the receiver's 200", resp.StatusCode)
			}
			if g := <-got; g != tt.want {
				t.Errorf("the receiver got the target %q, want %q", g, tt.want)
			}
			srv.Close()
			if len(mem.recs) != 1 || mem.recs[0].Forward == nil || mem.recs[0].Forward.Error != "" {
				t.Fatalf("records %+v, want one forwarded call", mem.recs)
			}
			if f := mem.recs[0].Forward.URL; !strings.HasPrefix(f, backend.URL+"/") {
				t.Errorf("forward URL %q, want one on %s", f, backend.URL)
			}
		})
	}
}

// The target a call goes on with is its sender's, byte for byte, but for
// a byte no HTTP/1.1 request line can hold: a space, which an HTTP/2
// sender may put in its :path, would end the target written raw, and the
// receiver read another request line.
func TestTargetOfAForward(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("http://127.0.0.1:9/")
	for _, tt := range []struct{ requestURI, path, rawPath, rawQuery, named, sent string }{
		{"/hook?businessType=X", "/hook", "", "businessType=X", "http://127.0.0.1:9/hook?businessType=X", "/hook?businessType=X"},
		{"/a#b?x=1", "/a#b", "/a#b", "x=1", "http://127.0.0.1:9/a%23b?x=1", "/a#b?x=1"},
		{"/h\xe4k", "/h\xe4k", "/h\xe4k", "", "http://127.0.0.1:9/h%E4k", "/h\xe4k"},
		{"/a b?x=1 2&y=\x7f", "/a b", "", "x=1 2&y=\x7f", "http://127.0.0.1:9/a%20b?x=1%202&y=%7F", "/a%20b?x=1%202&y=%7F"},
		{"/a b#c", "/a b#c", "/a b#c", "", "http://127.0.0.1:9/a%20b%23c", "/a%20b#c"},
		// A '#' in the query is named %23, as in the path: written raw,
		// the name read as a URL cut the query there, and with a '%'
		// after it (no fragment escape) was no URL at all.
		{"/?n=#%", "/", "", "n=#%", "http://127.0.0.1:9/?n=%23%", "/?n=#%"},
	} {
		req := &http.Request{Method: http.MethodPost, RequestURI: tt.requestURI,
			URL: &url.URL{Path: tt.path, RawPath: tt.rawPath, RawQuery: tt.rawQuery}}
		named, sent := target(base, req)
		if named.String() != tt.named || sent.RequestURI() != tt.sent {
			t.Errorf("%q: named %q, sent %q; want %q, %q", tt.requestURI, named.String(), sent.RequestURI(), tt.named, tt.sent)
		}
	}
}

// An HTTP/2 sender's :path may hold a space, which Go's server takes: the
// call goes on with it as %20, not written raw into the request line,
// where it would end the target.
func TestForwardOfASpaceFromHTTP2(t *testing.T) {
	t.Parallel()
	got := make(chan string, 1)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.RequestURI }))
	t.Cleanup(backend.Close)
	u, _ := url.Parse(backend.URL)
	rcv := New(Config{ForwardTo: u})
	defer rcv.Close()
	addr := serve(t, rcv, DefaultLimits)
	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &h2c}
	defer tr.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader("{}"))
	req.URL.Opaque, req.URL.RawQuery = "/a b#c", "businessType="+ev+"&q=1 2"
	resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("answered %d, want the receiver's 200", resp.StatusCode)
	}
	if g, want := <-got, "/a%20b#c?businessType="+ev+"&q=1%202"; g != want {
		t.Errorf("the receiver got the target %q, want %q", g, want)
	}
}

// FuzzTargetOfAForward: whatever target net/http's server took, the
// request line a forward writes holds no space or control byte, and a
// target in origin form without them (and not starting "//") goes as it
// came, path and query.
func FuzzTargetOfAForward(f *testing.F) {
	for _, s := range []string{"/hook?businessType=X", "/a#b?x=1", "/h\xe4k", "/a%2Fb", "/p?", "//a/b", "/a b?c d", "http://h/p#q?x", "*"} {
		f.Add(s)
	}
	base, _ := url.Parse("http://127.0.0.1:9/")
	f.Fuzz(func(t *testing.T, rt string) {
		u, err := url.ParseRequestURI(rt)
		if err != nil {
			return // net/http's server refuses it
		}
		req := &http.Request{Method: http.MethodPost, RequestURI: rt, URL: u}
		named, sent := target(base, req)
		line := sent.RequestURI()
		if strings.ContainsFunc(line, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			t.Fatalf("%q: request line target %q holds a space or a control byte", rt, line)
		}
		if _, err := url.Parse(named.String()); err != nil {
			t.Fatalf("%q: named %q is no URL: %v", rt, named, err)
		}
		if strings.HasPrefix(rt, "/") && !strings.HasPrefix(rt, "//") && lineSafe(rt) == rt && line != rt {
			t.Fatalf("%q: sent as %q", rt, line)
		}
	})
}

// A header that a Connection header names belongs to that connection
// alone, as Connection itself does (RFC 9110 7.6.1): a proxy drops it in
// both directions. listen dropped only the fixed hop-by-hop names, so a
// receiver's "Connection: X-Hop" with "X-Hop: ..." reached the sender and
// the capture's forward, and a sender's connection-only header reached the
// receiver as though it were the call's.
func TestForwardDropsHeadersConnectionNames(t *testing.T) {
	t.Parallel()
	got := make(chan http.Header, 1)
	be := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got <- r.Header.Clone()
		w.Header().Set("Connection", "X-Hop-One, x-hop-two")
		w.Header().Set("X-Hop-One", "conn")
		w.Header().Set("X-Hop-Two", "conn")
		w.Header().Set("X-Kept", "call")
		io.WriteString(w, `{"ok":true}`)
	}))
	defer be.Close()
	u, _ := url.Parse(be.URL + "/hook")
	srv, _, mem := start(t, Config{ForwardTo: u})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhook?businessType="+ev, strings.NewReader(`{"a":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header["Connection"] = []string{"x-sender-hop", "X-Other-Hop"}
	req.Header.Set("X-Sender-Hop", "conn")
	req.Header.Set("X-Other-Hop", "conn")
	req.Header.Set("X-Sender-Kept", "call")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	srv.Close()
	sent := <-got
	for _, k := range []string{"X-Sender-Hop", "X-Other-Hop"} {
		if v, ok := sent[k]; ok {
			t.Errorf("the receiver got %s: %q, a header the sender's Connection named", k, v)
		}
	}
	if sent.Get("X-Sender-Kept") != "call" {
		t.Errorf("the receiver got X-Sender-Kept %q, want call", sent.Get("X-Sender-Kept"))
	}
	f := mem.recs[0].Forward
	if f == nil {
		t.Fatal("no forward recorded")
	}
	for name, h := range map[string]http.Header{"the sender's answer": resp.Header, "the recorded forward": f.Headers, "the recorded response": mem.recs[0].Response.Headers} {
		for _, k := range []string{"X-Hop-One", "X-Hop-Two"} {
			if v, ok := h[k]; ok {
				t.Errorf("%s has %s: %q, a header the receiver's Connection named", name, k, v)
			}
		}
		if h.Get("X-Kept") != "call" {
			t.Errorf("%s has X-Kept %q, want call", name, h.Get("X-Kept"))
		}
	}
	// The record of the call keeps its headers as they came.
	if mem.recs[0].Headers.Get("X-Sender-Hop") != "conn" {
		t.Errorf("the record's headers lost X-Sender-Hop: %v", mem.recs[0].Headers)
	}
}

// A receiver that took the call and did not answer within the forward's
// time limit had the sender told 502 Bad Gateway, and the record said
// only net/http's "timeout awaiting response headers": read as a receiver
// never reached, or one that answered wrong, where it holds the call and
// was too slow. The sender is told 504 Gateway Timeout, and the record
// says the limit and that the call had gone out.
func TestForwardTimeout(t *testing.T) {
	t.Parallel()
	read, release := make(chan struct{}, 1), make(chan struct{})
	be := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		read <- struct{}{}
		<-release
	}))
	defer be.Close()
	defer close(release)
	u, _ := url.Parse(be.URL + "/hook")
	// The limit is short so that the test waits little for the event it
	// waits for: the receiver answers only once the test ends.
	srv, _, mem := start(t, Config{ForwardTo: u, Client: newClient(1, 50*time.Millisecond, nil)})
	resp := post(t, srv, ev, `{"a":1}`)
	<-read
	srv.Close()
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("the sender got %d, want 504: the receiver took the call and did not answer in time", resp.StatusCode)
	}
	rec := mem.recs[0]
	if rec.Response == nil || rec.Response.Status != http.StatusGatewayTimeout {
		t.Errorf("recorded response %+v, want 504", rec.Response)
	}
	f := rec.Forward
	if f == nil {
		t.Fatal("no forward recorded")
	}
	for _, w := range []string{"the receiver did not answer within 50ms", "the call had gone out to the receiver (it may hold it)"} {
		if !strings.Contains(f.Error, w) {
			t.Errorf("forward error %q, want it to say %q", f.Error, w)
		}
	}
}

// FuzzCopyHeader: whatever a Connection header holds, the copy keeps no
// hop-by-hop header and none it names, keeps every other header whole,
// and leaves the original as it was.
func FuzzCopyHeader(f *testing.F) {
	for _, s := range []string{"close", "X-Hop, x-other", " ,,keep-alive ,X-A\t", "Content-Type", "", "X-A,\x00,Ü"} {
		f.Add(s, "X-A")
	}
	f.Fuzz(func(t *testing.T, conn, other string) {
		src := http.Header{"Connection": {conn}, "Keep-Alive": {"timeout=5"}, "X-Kept": {"1"}}
		named := map[string]bool{}
		for name := range strings.SplitSeq(conn, ",") {
			if name = strings.Trim(name, " \t\r\n"); name != "" {
				named[http.CanonicalHeaderKey(name)] = true
			}
		}
		if other != "" {
			src[http.CanonicalHeaderKey(other)] = []string{"v"}
		}
		before := src.Clone()
		h := copyHeader(src)
		for k := range h {
			if named[k] || slices.Contains(hopHeaders, k) {
				t.Fatalf("Connection %q: the copy keeps %s", conn, k)
			}
		}
		for k, v := range src {
			if !named[k] && !slices.Contains(hopHeaders, k) && !slices.Equal(h[k], v) {
				t.Fatalf("Connection %q: the copy has %s %q, want %q", conn, k, h[k], v)
			}
		}
		if !maps.EqualFunc(src, before, slices.Equal) {
			t.Fatalf("Connection %q: the original changed: %v, was %v", conn, src, before)
		}
	})
}

// An answer of exactly the body limit is the receiver's answer, passed on:
// the limit is the largest body taken, not one byte past the largest.
func TestForwardAnswerAtTheLimit(t *testing.T) {
	t.Parallel()
	u := rawAnswerBackend(t, "HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r\n"+strings.Repeat("x", 16))
	srv, _, mem := start(t, Config{ForwardTo: u, MaxBody: 16})
	resp := post(t, srv, ev, `{"a":1}`)
	srv.Close()
	if f := mem.recs[0].Forward; resp.StatusCode != http.StatusOK || f == nil || f.Error != "" {
		t.Errorf("the sender got %d, forward %+v; want the receiver's 200 passed on", resp.StatusCode, f)
	}
}

// goneAfter is a capture that records its first n records and then fails
// every write, as a capture file moved away does.
type goneAfter struct {
	mu sync.Mutex
	n  int
}

func (g *goneAfter) Write(*capture.Record) (int64, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == 0 {
		return 0, capture.ErrGone
	}
	g.n--
	return 0, nil
}

// Once the capture has failed, every call is answered 5xx, unrecorded,
// and a sender sends it again: listen forwarded each all the same, so the
// receiver took every call its sender was told to retry. Now the one whose
// record failed was forwarded (the failure comes after its answer), and
// none after it is.
func TestForwardStopsOnceTheCaptureFailed(t *testing.T) {
	t.Parallel()
	var got atomic.Int32
	be := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got.Add(1)
	}))
	defer be.Close()
	u, _ := url.Parse(be.URL + "/hook")
	srv, obs, _ := start(t, Config{ForwardTo: u, Capture: &goneAfter{n: 1}})
	want := []int{http.StatusOK, http.StatusServiceUnavailable, http.StatusServiceUnavailable, http.StatusServiceUnavailable}
	for i, w := range want {
		if resp := post(t, srv, ev, `{"a":1}`); resp.StatusCode != w {
			t.Errorf("call %d answered %d, want %d", i+1, resp.StatusCode, w)
		}
	}
	srv.Close()
	if n := got.Load(); n != 2 {
		t.Errorf("the receiver got %d calls, want 2: the one recorded and the one whose record failed", n)
	}
	calls := obs.calls
	if len(calls) != 4 {
		t.Fatalf("%d calls observed, want 4", len(calls))
	}
	for _, c := range calls[2:] {
		f := c.Record.Forward
		if !c.Unsent || f == nil || !strings.HasPrefix(f.Error, "not forwarded: the capture had failed") {
			t.Errorf("call %d: unsent %v, forward %+v; want it unsent, its forward saying it was not forwarded as the capture had failed", c.Seq, c.Unsent, f)
		}
	}
}

// A redirect is passed back to the sender, not followed, whatever its
// code: net/http's client asks for a 307's or 308's body again before it
// asks whether to follow it, which onceOnly refused (the call had gone
// out), so listen answered 502, "the connection to the receiver failed
// after the call went out", to a receiver that had answered.
func TestForwardRedirectPassedBack(t *testing.T) {
	t.Parallel()
	for _, code := range []int{301, 302, 303, 307, 308} {
		t.Run(strconv.Itoa(code), func(t *testing.T) {
			t.Parallel()
			var got atomic.Int32
			be := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				got.Add(1)
				w.Header().Set("Location", "/elsewhere")
				w.WriteHeader(code)
			}))
			defer be.Close()
			u, _ := url.Parse(be.URL + "/hook")
			srv, _, mem := start(t, Config{ForwardTo: u})
			resp := post(t, srv, ev, `{"a":1}`)
			srv.Close()
			if resp.StatusCode != code || resp.Header.Get("Location") != "/elsewhere" {
				t.Errorf("the sender got %d, Location %q; want the receiver's %d, /elsewhere", resp.StatusCode, resp.Header.Get("Location"), code)
			}
			if f := mem.recs[0].Forward; f == nil || f.Status != code || f.Error != "" {
				t.Errorf("forward %+v, want status %d and no error", f, code)
			}
			if n := got.Load(); n != 1 {
				t.Errorf("the receiver got %d calls, want 1", n)
			}
		})
	}
}
