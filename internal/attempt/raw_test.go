package attempt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/sign"

	"github.com/whsim/whsim/internal/testnet"
)

// cannedServer answers every request on a connection with answer, and
// closes the connection after each answer when hangUp is set, without a
// word (a receiver whose keep-alive ran out). It counts the requests whole.
type cannedServer struct {
	ln      net.Listener
	answer  string
	hangUp  bool
	got     atomic.Int64
	mu      sync.Mutex
	headers []http.Header
	hosts   []string
	uris    []string // each request line's target, as sent
}

func newCannedServer(t *testing.T, answer string, hangUp bool) *cannedServer {
	s := &cannedServer{answer: answer, hangUp: hangUp}
	s.ln = testnet.Serve(t, s.serve)
	return s
}

func (s *cannedServer) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return
		}
		s.mu.Lock()
		s.headers = append(s.headers, req.Header)
		s.hosts = append(s.hosts, req.Host)
		s.uris = append(s.uris, req.RequestURI)
		s.mu.Unlock()
		s.got.Add(1)
		if _, err := io.WriteString(c, s.answer); err != nil || s.hangUp {
			return
		}
	}
}

func (s *cannedServer) url() *url.URL {
	u, _ := url.Parse("http://" + s.ln.Addr().String() + "/hook")
	return u
}

// The fast path answers as net/http would: informational answers
// skipped, chunked bodies read, Retry-After and Connection: close honoured,
// a kept-alive connection the receiver dropped redialled.
func TestRawPathAnswers(t *testing.T) {
	tests := []struct {
		name, answer string
		hangUp       bool
		status       int
		retryAfter   bool
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false, 200, false},
		{"chunked", "HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", false, 202, false},
		{"100 continue first", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n", false, 204, false},
		{"connection close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", true, 200, false},
		{"dropped without a word", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true, 200, false},
		{"retry-after", "HTTP/1.1 503 Busy\r\nRetry-After: 7\r\nContent-Length: 0\r\n\r\n", false, 503, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newCannedServer(t, tt.answer, tt.hangUp)
			c, _ := NewClient(ClientOptions{Timeout: 2 * time.Second, Concurrency: 1})
			vs := &virtualSleep{}
			d := &Deliverer{Client: c, Target: srv.url(), Retries: 1, Backoff: DefaultBackoff(func() float64 { return 1 }), Sleep: vs.sleep}
			var results []*Result
			var mu sync.Mutex
			asWorker(d, templates("A", 2), 5, func(r *Result) {
				mu.Lock()
				defer mu.Unlock()
				results = append(results, r)
			})
			if len(results) != 5 {
				t.Fatalf("sent %d", len(results))
			}
			for _, r := range results {
				if r.Last().Status != tt.status || r.Last().Kind != "" {
					t.Errorf("attempt %+v, want status %d", r.Last(), tt.status)
				}
				if tt.retryAfter && (len(r.Attempts) != 2 || r.Attempts[0].Wait != 7*time.Second) {
					t.Errorf("attempts %+v, want a retry after 7s", r.Attempts)
				}
			}
			want := int64(5)
			if tt.retryAfter {
				want = 10
			}
			if srv.got.Load() != want {
				t.Errorf("the receiver got %d requests, want %d", srv.got.Load(), want)
			}
		})
	}
}

// Headers reach the receiver as net/http sends them: the request's own, a
// Host override, a User-Agent, signatures.
func TestRawPathHeaders(t *testing.T) {
	srv := newCannedServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false)
	c, _ := NewClient(ClientOptions{Timeout: 2 * time.Second, Concurrency: 1})
	signer, err := sign.NewSigner("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: c, Target: srv.url(), Signer: signer}
	lane := templates("A", 1)
	lane[0][0].Header = http.Header{"X-Tenant": {"7"}, "Host": {"erp.example.com"}}
	asWorker(d, lane, 1, func(*Result) {})
	if len(srv.headers) != 1 {
		t.Fatalf("%d requests", len(srv.headers))
	}
	h := srv.headers[0]
	for _, k := range []string{"Content-Type", "X-Tenant", "User-Agent", "Webhook-Id", "Webhook-Signature", "Content-Length"} {
		if h.Get(k) == "" {
			t.Errorf("no %s in %v", k, h)
		}
	}
	if srv.hosts[0] != "erp.example.com" || h.Get("Host") != "" {
		t.Errorf("host %q, header %v", srv.hosts[0], h)
	}
}

// The request line carries the query as given, on either path: a '#' in a
// replayed capture's query is a byte of it, not the start of a fragment.
func TestQueryGoesAsGiven(t *testing.T) {
	for _, netHTTP := range []bool{false, true} {
		for _, tt := range []struct{ target, query, want string }{
			{"/hook", "businessType=A&sig=ab#cd", "/hook?businessType=A&sig=ab#cd"},
			{"/hook", "businessType=A#", "/hook?businessType=A#"},
			{"/hook?tenant=7", "businessType=A&x=%zz#y#z", "/hook?tenant=7&businessType=A&x=%zz#y#z"},
			{"/hook#frag", "businessType=A", "/hook?businessType=A"},
			{"/hook", "", "/hook"},
		} {
			t.Run(fmt.Sprintf("net/http %v %s", netHTTP, tt.query), func(t *testing.T) {
				srv := newCannedServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false)
				c, _ := NewClient(ClientOptions{Timeout: 2 * time.Second, Concurrency: 1, NetHTTP: netHTTP})
				target, _ := url.Parse("http://" + srv.ln.Addr().String() + tt.target)
				d := &Deliverer{Client: c, Target: target}
				lane := templates("A", 1)
				lane[0][0].Query = tt.query
				asWorker(d, lane, 2, func(r *Result) {
					if r.Last().Status != 200 {
						t.Errorf("attempt %+v", r.Last())
					}
				})
				srv.mu.Lock()
				defer srv.mu.Unlock()
				if len(srv.uris) != 2 || srv.uris[0] != tt.want || srv.uris[1] != tt.want {
					t.Errorf("request targets %q, want %q twice", srv.uris, tt.want)
				}
			})
		}
	}
}

// TLS, proxies and user:password URLs stay with net/http.
func TestRawPathOnlyForPlainHTTPWithoutProxy(t *testing.T) {
	c, _ := NewClient(ClientOptions{Timeout: time.Second})
	tr := c.Transport.(directTransport).Transport
	for _, tt := range []struct {
		url   string
		proxy bool
		want  bool
	}{
		{"http://127.0.0.1:3000/hook", false, true},
		{"https://127.0.0.1:3000/hook", false, false},
		{"http://me:pw@127.0.0.1:3000/hook", false, false},
		{"http://receiver.example.com/hook", true, false},
	} {
		u, _ := url.Parse(tt.url)
		tr2 := tr.Clone()
		if tt.proxy {
			tr2.Proxy = func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy:3128") }
		}
		if got := rawOK(tr2, u); got != tt.want {
			t.Errorf("%s (proxy %v): fast path %v, want %v", tt.url, tt.proxy, got, tt.want)
		}
	}
}

// readLean keeps what http.ReadResponse would of the fields a delivery
// uses, and leaves the reader at the next answer.
func TestReadLeanAsReadResponse(t *testing.T) {
	for _, answer := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 503 Service Unavailable\r\nretry-after: 7\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 3\r\n\r\nabc",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX-Trailer: 1\r\n\r\n",
		"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\n",
	} {
		const next = "HTTP/1.1 299 Next\r\nContent-Length: 0\r\n\r\n"
		want, err := http.ReadResponse(bufio.NewReader(strings.NewReader(answer)), &http.Request{Method: "POST"})
		if err != nil {
			t.Fatalf("%q: %v", answer, err)
		}
		br := bufio.NewReader(strings.NewReader(answer + next))
		var got, n http.Response
		if err := readLean(br, "POST", &got, nil, nil, nil); err != nil {
			t.Fatalf("%q: %v", answer, err)
		}
		if got.StatusCode != want.StatusCode || got.Close != want.Close ||
			got.Header.Get("Retry-After") != want.Header.Get("Retry-After") || got.Header.Get("Location") != want.Header.Get("Location") {
			t.Errorf("%q: got %d close %v %v, want %d close %v", answer, got.StatusCode, got.Close, got.Header, want.StatusCode, want.Close)
		}
		if err := readLean(br, "POST", &n, nil, nil, nil); err != nil || n.StatusCode != 299 {
			t.Errorf("%q: the next answer read as %v, %v", answer, n, err)
		}
	}
	for _, bad := range []string{"", "HTTP/2 200\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n"} {
		if err := readLean(bufio.NewReader(strings.NewReader(bad)), "POST", &http.Response{}, nil, nil, nil); err == nil {
			t.Errorf("%q read without an error", bad)
		}
	}
}

func FuzzReadLean(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	f.Add("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
	f.Add("HTTP/1.1 503 x\r\nRetry-After: 3\r\n\r\n")
	f.Fuzz(func(t *testing.T, answer string) {
		var got http.Response
		if err := readLean(bufio.NewReader(strings.NewReader(answer)), "POST", &got, nil, nil, nil); err != nil {
			return
		}
		if got.StatusCode < 100 || got.StatusCode > 599 || got.Body != http.NoBody {
			t.Errorf("%q: %+v", answer, got)
		}
	})
}

func templates(event string, n int) [][]Template {
	var pool [][]Template
	for i := range n {
		body := `{"requestId":"00000000-0000-4000-8000-000000000000","businessType":` + string(rune('0'+i%10)) + `}`
		pool = append(pool, []Template{{Event: event, Query: "businessType=" + event, Body: []byte(body), IDOff: len(`{"requestId":"`)}})
	}
	return pool
}

// asWorker makes n deliveries from the pool in turn, one after another
// with one buffer, as a load run's worker does: the fast path is a
// worker's.
func asWorker(d *Deliverer, pool [][]Template, n int, report func(*Result)) {
	ids := reqid.NewIDs(1)
	var bb *Buf
	for i := range n {
		t := &pool[i%len(pool)][0]
		req := &Request{Event: t.Event, Query: t.Query, Header: t.Header, Seq: i + 1}
		req.FromTemplate(t, ids.For(t.Event), 0)
		report(d.DeliverWith(context.Background(), req, &bb))
	}
	if bb != nil {
		bb.Release()
	}
}

// asLanes makes n deliveries of pool's templates on one lane of the event
// loops, as load.Run does, and says false where there are none to make
// them (not Linux, WHSIM_TRANSPORT=net/http).
func asLanes(ctx context.Context, d *Deliverer, pool [][]Template, n int, report func(*Result)) bool {
	ids := reqid.NewIDs(1)
	var mu sync.Mutex
	taken := 0
	return d.RunLanes(ctx, Lanes{
		N: 1,
		Take: func() []*Request {
			mu.Lock()
			defer mu.Unlock()
			if taken == n || ctx.Err() != nil {
				return nil
			}
			t := &pool[taken%len(pool)][0]
			taken++
			req := &Request{Event: t.Event, Query: t.Query, Header: t.Header, Seq: taken}
			req.FromTemplate(t, ids.For(t.Event), 0)
			return []*Request{req}
		},
		Over: func() bool { return ctx.Err() != nil },
		Done: func(_ int, r *Result) { report(r) },
		Skip: func(int, int) {},
	})
}

// TestUnfinishedSplitsReadErrors: what ends an answer's body early still
// counts as an answer; anything else left none. Most answers end with no
// error, and that costs nothing (errors.As's target escaped, an
// allocation a call on send's fast path).
func TestUnfinishedSplitsReadErrors(t *testing.T) {
	cut := bodyError{io.ErrUnexpectedEOF}
	for _, tc := range []struct {
		name             string
		err              error
		wantBody, wantEr error
	}{
		{"a whole answer", nil, nil, nil},
		{"a body past MaxBodyRead", errOver, errOver, nil},
		{"a body cut off", cut, io.ErrUnexpectedEOF, nil},
		{"the same, wrapped", fmt.Errorf("reading: %w", cut), io.ErrUnexpectedEOF, nil},
		{"no answer", io.EOF, nil, io.EOF},
	} {
		body, failed := unfinished(tc.err)
		if !errors.Is(body, tc.wantBody) || (body == nil) != (tc.wantBody == nil) || !errors.Is(failed, tc.wantEr) || (failed == nil) != (tc.wantEr == nil) {
			t.Errorf("%s: unfinished = %v, %v; want %v, %v", tc.name, body, failed, tc.wantBody, tc.wantEr)
		}
	}
	if n := testing.AllocsPerRun(100, func() { unfinished(nil) }); n != 0 {
		t.Errorf("unfinished(nil): %v allocations, want 0", n)
	}
}

// TestUnansweredOneRule: the fast path's words for a call that got no
// byte of an answer. A reset is one whichever system call met it (a
// write that took it leaves the reader the connection's end, EOF); a
// call some of which went out may have been taken (closedAsSent on a
// kept-alive connection, endedAfterSent on a new one); one none of which
// went out was not: on a kept-alive connection it goes on a new one
// (errBusy), on a new one it fails as what ended it.
func TestUnansweredOneRule(t *testing.T) {
	op := func(op string, err error) error {
		return &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(op, err)}
	}
	readReset, writeReset, writePipe := op("read", syscall.ECONNRESET), op("write", syscall.ECONNRESET), op("write", syscall.EPIPE)
	closedHere := op("write", net.ErrClosed)
	deadline := op("read", os.ErrDeadlineExceeded)
	const (
		plain = iota
		ended
		closedAs
		busy
	)
	for _, tc := range []struct {
		name          string
		err, writeErr error
		out, kept     bool
		wrapped       int
		kind          string
	}{
		{"the reader's reset", readReset, nil, true, false, ended, KindReset},
		{"the reader's close", io.EOF, nil, true, false, ended, KindClosed},
		{"the writer took the reset, the reader saw the end", io.EOF, writeReset, true, false, ended, KindReset},
		{"the same, a broken pipe, kept alive", io.EOF, writePipe, true, true, closedAs, KindReset},
		{"the reader's reset, the write ended here", readReset, closedHere, true, true, closedAs, KindReset},
		{"the reader's close, the write ended here", io.EOF, closedHere, true, true, closedAs, KindClosed},
		{"a write that failed part way, new connection", writeReset, writeReset, true, false, ended, KindReset},
		{"a write that failed at once, new connection", writeReset, writeReset, false, false, plain, KindReset},
		{"a write that failed at once, kept alive", writeReset, writeReset, false, true, busy, ""},
		{"no answer in time", deadline, nil, true, true, plain, KindTimeout},
	} {
		err := unanswered(tc.err, tc.writeErr, tc.out, tc.kept)
		wrapped := plain
		switch {
		case err == errBusy:
			wrapped = busy
		case errors.As(err, new(closedAsSent)):
			wrapped = closedAs
		case errors.As(err, new(endedAfterSent)):
			wrapped = ended
		}
		if kind := Classify(err); wrapped != tc.wrapped || wrapped != busy && kind != tc.kind {
			t.Errorf("%s: %v (%T, kind %q); want wrapped %d, kind %q", tc.name, err, err, kind, tc.wrapped, tc.kind)
		}
	}
}
