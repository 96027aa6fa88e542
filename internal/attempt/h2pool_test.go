package attempt

import (
	"context"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// heldH2Server is Go's HTTP/2 server over TLS whose handler holds each
// call until the test releases it: in hears of each call the handler
// holds (its connection's remote address), release lets one answer.
type heldH2Server struct {
	ts      *httptest.Server
	roots   *x509.CertPool
	in      chan string
	release chan struct{}
	mu      sync.Mutex
	open    map[net.Conn]bool // the connections open now
	opened  int               // every connection the receiver took
	change  chan struct{}     // closed, and made anew, when one opens or closes
}

func newHeldH2Server(t *testing.T, maxStreams uint32) *heldH2Server {
	t.Helper()
	s := newUnstartedHeldH2Server(t, maxStreams)
	s.ts.StartTLS()
	s.roots.AddCert(s.ts.Certificate())
	return s
}

// newUnstartedHeldH2Server is a heldH2Server to start (StartTLS) and
// trust (roots.AddCert).
func newUnstartedHeldH2Server(t *testing.T, maxStreams uint32) *heldH2Server {
	t.Helper()
	s := &heldH2Server{in: make(chan string, 100), release: make(chan struct{}), open: map[net.Conn]bool{}, change: make(chan struct{})}
	s.ts = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s.in <- r.RemoteAddr
		select {
		case <-s.release:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	s.ts.EnableHTTP2 = true
	s.ts.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: int(maxStreams)}
	s.ts.Config.ConnState = func(c net.Conn, st http.ConnState) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch st {
		case http.StateNew:
			s.open[c] = true
			s.opened++
		case http.StateClosed, http.StateHijacked:
			delete(s.open, c)
		default:
			return
		}
		close(s.change)
		s.change = make(chan struct{})
	}
	t.Cleanup(s.ts.Close)
	s.roots = x509.NewCertPool()
	return s
}

func (s *heldH2Server) url() *url.URL {
	u, _ := url.Parse(s.ts.URL + "/hook")
	return u
}

func (s *heldH2Server) counts() (open, opened int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.open), s.opened
}

// closed returns once the receiver has no connection open, after the
// client closed its own (CloseIdleConnections): whsim leaves none behind.
func (s *heldH2Server) closed(t *testing.T) {
	t.Helper()
	for {
		s.mu.Lock()
		open, ch := len(s.open), s.change
		s.mu.Unlock()
		if open == 0 {
			return
		}
		<-ch
	}
}

// With more calls at once than the receiver allows streams on a
// connection (SETTINGS_MAX_CONCURRENT_STREAMS), whsim opens another
// connection rather than queue them on the one it has, as a sender's
// HTTP/2 client does. Calls waited for a stream on the newest connection
// net/http's transport had, whatever the others (--concurrency 6 against
// a limit of 2: two calls in the receiver at once, four timed out
// waiting, "the receiver allows 2 at once, all in use by other calls").
func TestHTTP2MoreConnectionsForConcurrency(t *testing.T) {
	srv := newHeldH2Server(t, 2)
	const conc, limit = 6, 2
	cl, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: conc, RootCAs: srv.roots})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: cl, Target: srv.url()}
	deliver := func(results chan<- *Result) {
		results <- d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
	}
	// A first call alone sets the first connection up, and its SETTINGS
	// say the limit: the calls after find it. net/http's transport opens
	// a connection for each call that comes before it holds one, and it
	// holds one a moment after the call it opened it for got it (in a
	// goroutine of its own, late on a loaded machine): a call after it
	// opened another, which joined the pool as the calls at once came,
	// and they went on four connections. Here it opens none but the
	// first (MaxConnsPerHost counts the connections it opened, not the
	// pool's): the connections beside it are the pool's.
	cl.Transport.(directTransport).MaxConnsPerHost = 1
	results := make(chan *Result, conc)
	go deliver(results)
	<-srv.in
	srv.release <- struct{}{}
	if r := <-results; !r.OK {
		t.Fatalf("the first call: %+v", r.Attempts)
	}
	for range conc {
		go deliver(results)
	}
	conns := map[string]int{}
	for n := 0; n < conc; n++ {
		select {
		case addr := <-srv.in:
			conns[addr]++
		case r := <-results:
			t.Fatalf("a call ended with %d in the receiver at once, on %d connections, want %d: %+v", n, len(conns), conc, r.Attempts)
		}
	}
	for addr, n := range conns {
		if n > limit {
			t.Errorf("connection %s carried %d calls at once, past the receiver's limit of %d", addr, n, limit)
		}
	}
	if open, opened := srv.counts(); len(conns) != conc/limit || open != conc/limit || opened != conc/limit {
		t.Errorf("the calls went on %d connections, %d open of %d opened; want %d, each full", len(conns), open, opened, conc/limit)
	}
	close(srv.release)
	for range conc {
		if r := <-results; !r.OK || r.Tries() != 1 {
			t.Errorf("a call: %+v", r.Attempts)
		}
	}
	cl.CloseIdleConnections()
	srv.closed(t)
}

// heldStream is a call an h2Server holds: its answer is the test's.
type heldStream struct {
	w  *h2Writer
	id uint32
}

func (h heldStream) answer() { h.w.headers(h.id, true, ":status", "200") }

// A receiver that lowers its limit on a connection mid-run (a SETTINGS
// frame) has the calls after go out on another connection, not wait for
// a stream of that one's.
func TestHTTP2LoweredLimitCallsMove(t *testing.T) {
	limit := func(n uint32) http2.Setting { return http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: n} }
	in := make(chan heldStream, 10)
	srv := newH2Server(t, []http2.Setting{limit(2)}, func(w *h2Writer, id uint32) { in <- heldStream{w, id} })
	cl, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 4, RootCAs: srv.roots})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: cl, Target: srv.url()}
	results := make(chan *Result, 5)
	deliver := func() {
		go func() { results <- d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}) }()
	}
	// held waits for a call in the receiver; none may end before.
	held := func(what string) heldStream {
		t.Helper()
		select {
		case h := <-in:
			return h
		case r := <-results:
			t.Fatalf("%s: a call ended before it: %+v", what, r.Attempts)
		}
		return heldStream{}
	}
	ok := func(what string) {
		t.Helper()
		if r := <-results; !r.OK || r.Tries() != 1 {
			t.Errorf("%s: %+v", what, r.Attempts)
		}
	}
	deliver()
	first := held("the first call")
	<-srv.acked // the client read the connection's SETTINGS
	first.answer()
	ok("the first call")
	deliver()
	deliver()
	a1, a2 := held("two calls on the first connection"), held("two calls on the first connection")
	if a1.w != first.w || a2.w != first.w {
		t.Fatalf("two calls went on another connection, with the first one's two streams free")
	}
	first.w.do(func(fr *http2.Framer) error { return fr.WriteSettings(limit(1)) })
	<-srv.acked
	a1.answer()
	ok("a call answered after the limit was lowered")
	// The first connection carries a2, its one stream now: the next calls
	// go on another.
	deliver()
	deliver()
	b1, b2 := held("a call after the limit was lowered"), held("a call after the limit was lowered")
	if b1.w == first.w || b2.w == first.w {
		t.Errorf("a call went on the connection whose one stream another holds")
	}
	for _, h := range []heldStream{a2, b1, b2} {
		h.answer()
	}
	for range 3 {
		ok("a call")
	}
	if got := srv.streams.Load(); got != 5 {
		t.Errorf("the receiver read %d calls, want 5", got)
	}
	cl.CloseIdleConnections()
	for range srv.accepted.Load() {
		<-srv.ended
	}
}

// A receiver that shuts each connection down (GOAWAY) after a few calls,
// under load, with more calls at once than one connection's streams,
// loses no call: each is answered, the calls above a GOAWAY's last
// stream are made again on another connection, the receiver read as
// many calls as whsim counted attempts, and no connection is left open.
func TestHTTP2GoAwayUnderLoad(t *testing.T) {
	const workers, each, perConn = 6, 20, 5
	type conn struct {
		n    int
		last uint32 // the GOAWAY's last stream, once sent
		gone bool
	}
	var mu sync.Mutex
	conns := map[*h2Writer]*conn{}
	var srv *h2Server
	srv = newH2Server(t, []http2.Setting{{ID: http2.SettingMaxConcurrentStreams, Val: 2}}, func(w *h2Writer, id uint32) {
		mu.Lock()
		c := conns[w]
		if c == nil {
			c = new(conn)
			conns[w] = c
		}
		switch {
		case c.gone && id > c.last:
			// Above the GOAWAY's last stream: not processed, not read.
			srv.streams.Add(-1)
			mu.Unlock()
			return
		case !c.gone:
			c.last = max(c.last, id)
			if c.n++; c.n == perConn {
				c.gone = true
				w.do(func(fr *http2.Framer) error { return fr.WriteGoAway(c.last, http2.ErrCodeNo, nil) })
			}
		}
		mu.Unlock()
		w.headers(id, true, ":status", "200")
	})
	cl, err := NewClient(ClientOptions{Timeout: 10 * time.Second, Concurrency: workers, RootCAs: srv.roots})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: cl, Target: srv.url()}
	var wg sync.WaitGroup
	var tries, ok atomic.Int64
	for range workers {
		wg.Go(func() {
			for range each {
				r := d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
				tries.Add(int64(r.Tries()))
				if r.OK {
					ok.Add(1)
				} else {
					t.Errorf("a call failed: %+v", r.Attempts)
				}
			}
		})
	}
	wg.Wait()
	if got, want := srv.streams.Load(), tries.Load(); got != want || ok.Load() != workers*each {
		t.Errorf("%d of %d calls answered; the receiver read %d calls, whsim counted %d attempts", ok.Load(), workers*each, got, want)
	}
	cl.CloseIdleConnections()
	for ended := int64(0); ended < srv.accepted.Load(); ended++ {
		<-srv.ended
	}
}

// stallingListener hands the server its first connection, and takes the
// ones after without a word: their TLS handshake never ends. ended hears
// of each of those the client closed.
type stallingListener struct {
	net.Listener
	first   bool
	stalled atomic.Int64 // the connections taken without a word
	ended   chan struct{}
}

func (l *stallingListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil || !l.first {
			l.first = true
			return c, err
		}
		l.stalled.Add(1)
		go func() {
			_, _ = io.Copy(io.Discard, c)
			c.Close()
			l.ended <- struct{}{}
		}()
	}
}

// A call that waits for a stream while the connection whsim opened for
// more is not set up (a receiver that takes no more, its listen backlog
// full) times out within its time limit and says so; the client's close
// ends that connection's set-up, and leaves nothing open.
func TestHTTP2NewConnectionNotSetUp(t *testing.T) {
	srv := newUnstartedHeldH2Server(t, 1)
	stall := &stallingListener{Listener: srv.ts.Listener, ended: make(chan struct{}, 10)}
	srv.ts.Listener = stall
	srv.ts.StartTLS()
	srv.roots.AddCert(srv.ts.Certificate())
	// The client's time limit bounds its dials too: the call that waits
	// has a shorter one, of a client that shares the connections.
	cl, err := NewClient(ClientOptions{Timeout: time.Minute, Concurrency: 2, RootCAs: srv.roots})
	if err != nil {
		t.Fatal(err)
	}
	short := *cl
	short.Timeout = 300 * time.Millisecond
	first := make(chan *Result, 1)
	go func() {
		first <- (&Deliverer{Client: cl, Target: srv.url()}).Deliver(context.Background(), &Request{Body: []byte(`{}`)})
	}()
	<-srv.in
	r := (&Deliverer{Client: &short, Target: srv.url()}).Deliver(context.Background(), &Request{Body: []byte(`{}`)})
	want := "timeout: " + noStreamWords + ": the receiver allows 1 at once (SETTINGS_MAX_CONCURRENT_STREAMS), all in use by other calls, and the connection whsim opened for more was not set up yet"
	if got := ShortError(r.Last()); r.OK || r.Tries() != 1 || got != want {
		t.Errorf("the call that waited: %q, want %q (%+v)", got, want, r.Attempts)
	}
	srv.release <- struct{}{}
	if r := <-first; !r.OK {
		t.Errorf("the first call: %+v", r.Attempts)
	}
	cl.CloseIdleConnections()
	for range stall.stalled.Load() {
		<-stall.ended
	}
	srv.closed(t)
}

// A call waiting for a stream when the client closes its connections
// (CloseIdleConnections) goes out on a new connection, at once: it is
// neither failed nor left to wait for a stream of the one shut down.
func TestHTTP2WaitingCallAfterClose(t *testing.T) {
	srv := newHeldH2Server(t, 1)
	cl, err := NewClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, RootCAs: srv.roots})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: cl, Target: srv.url()}
	results := make(chan *Result, 2)
	go func() { results <- d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}) }()
	first := <-srv.in
	go func() { results <- d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}) }()
	p := onlyPool(cl)
	for {
		p.mu.Lock()
		n := len(p.waiters)
		p.mu.Unlock()
		if n == 1 {
			break
		}
		runtime.Gosched()
	}
	cl.CloseIdleConnections()
	select {
	case second := <-srv.in:
		if second == first {
			t.Errorf("the waiting call went on the connection shut down")
		}
	case r := <-results:
		t.Fatalf("a call ended before the waiting one reached the receiver: %+v", r.Attempts)
	}
	close(srv.release)
	for range 2 {
		if r := <-results; !r.OK || r.Tries() != 1 {
			t.Errorf("a call: %+v", r.Attempts)
		}
	}
	cl.CloseIdleConnections()
	srv.closed(t)
}

// onlyPool is the one pool of a client's HTTP/2 connections.
func onlyPool(cl *http.Client) *slotPool {
	h2 := cl.Transport.(directTransport).h2
	h2.mu.Lock()
	defer h2.mu.Unlock()
	for _, p := range h2.pools {
		return p
	}
	return nil
}

// A receiver that takes one connection and shuts every other down
// (GOAWAY) as it opens has the calls that wait for a stream wait for its
// one connection's, and each is answered: whsim stops opening more once
// one was shut down before it answered a call, and a call is not failed
// for the connections whsim opened. Each round of calls had whsim open
// as many as the bound allows again, each shut down: a call given one of
// them (after its SETTINGS, before its GOAWAY) counted as taken.
func TestHTTP2ReceiverTakesOneConnection(t *testing.T) {
	var conns atomic.Int64
	var first atomic.Pointer[h2Writer]
	in := make(chan heldStream, 10)
	var srv *h2Server
	srv = newGreetingH2Server(t, []http2.Setting{{ID: http2.SettingMaxConcurrentStreams, Val: 1}}, func(w *h2Writer) {
		if conns.Add(1) == 1 {
			first.Store(w)
			return
		}
		w.do(func(fr *http2.Framer) error {
			return fr.WriteGoAway(0, http2.ErrCodeNo, []byte("one connection a client"))
		})
	}, func(w *h2Writer, id uint32) {
		if w != first.Load() {
			// Above the GOAWAY's last stream: not processed, not read.
			srv.streams.Add(-1)
			return
		}
		in <- heldStream{w, id}
	})
	const calls = 4
	cl, err := NewClient(ClientOptions{Timeout: 10 * time.Second, Concurrency: calls, RootCAs: srv.roots})
	if err != nil {
		t.Fatal(err)
	}
	d := &Deliverer{Client: cl, Target: srv.url()}
	results := make(chan *Result, calls)
	deliver := func() {
		go func() { results <- d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}) }()
	}
	deliver()
	h := <-in
	h.answer()
	if r := <-results; !r.OK {
		t.Fatalf("the first call: %+v", r.Attempts)
	}
	// Two rounds of calls, more than the one connection's streams: the
	// first has whsim open connections (as many as the calls waiting
	// need, at once), which the receiver shuts down; the second none.
	var accepted [2]int64
	for round := range 2 {
		for range calls {
			deliver()
		}
		// The one connection's stream held, until the other calls wait
		// and the connections whsim opened for them are set up, and shut
		// down.
		held := <-in
		for p := onlyPool(cl); ; runtime.Gosched() {
			p.mu.Lock()
			settled := len(p.waiters) == calls-1 && p.dialing == 0 && len(p.conns) == 1
			p.mu.Unlock()
			if settled {
				break
			}
			if n := srv.accepted.Load(); n > 2*calls {
				t.Fatalf("round %d: whsim opened %d connections, one after another as each was shut down", round+1, n)
			}
		}
		accepted[round] = srv.accepted.Load()
		held.answer()
		// Then one at a time on the one connection, each answered as the
		// receiver reads it.
		for done := 0; done < calls; {
			select {
			case h := <-in:
				h.answer()
			case r := <-results:
				done++
				if !r.OK || r.Tries() != 1 {
					t.Errorf("round %d: a call: %+v", round+1, r.Attempts)
				}
			}
		}
	}
	if got := srv.streams.Load(); got != 2*calls+1 {
		t.Errorf("the receiver read %d calls, want %d", got, 2*calls+1)
	}
	// The first round: the first connection, at most calls-1 more at once
	// (ceil(calls/limit)+1, never more than calls), and one more for each
	// shut down before the maxRefusals-th: calls+maxRefusals-1 on a quiet
	// machine. On a loaded one net/http may also dial for calls it queued
	// before the pool knew its one connection full (one each, at most;
	// seen in 5 of 80 runs beside two CPU hogs under -race, on the tree
	// that brought the pool too): 2*calls bounds it, as the wait above
	// does. The second round: none, which is the point.
	if most := int64(2 * calls); accepted[0] > most || accepted[1] != accepted[0] {
		t.Errorf("whsim opened %d connections, then %d more, to a receiver that shut each after the first down; want at most %d, then none", accepted[0], accepted[1]-accepted[0], most)
	}
	cl.CloseIdleConnections()
	for range srv.accepted.Load() {
		<-srv.ended
	}
}
