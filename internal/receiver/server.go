package receiver

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Limits keep a slow or idle client from holding the server.
type Limits struct {
	// ReadHeaderTimeout cuts off a client that has not sent its headers.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading one whole request, body included.
	ReadTimeout time.Duration
	// IdleTimeout closes a keep-alive connection with no next call.
	IdleTimeout time.Duration
	// ShutdownTimeout is how long calls in flight may take to finish.
	ShutdownTimeout time.Duration
}

// DefaultLimits are listen's limits.
var DefaultLimits = Limits{
	ReadHeaderTimeout: 5 * time.Second,
	ReadTimeout:       60 * time.Second,
	IdleTimeout:       60 * time.Second,
	ShutdownTimeout:   30 * time.Second,
}

// server serves a handler on a bound address.
type server struct {
	ln     net.Listener
	srv    *http.Server
	limits Limits
	// cut cancels the context of every call with a cause (a stopCut):
	// the requests' contexts derive from it.
	cut context.CancelCauseFunc
	// handlers counts the calls whose handler runs, so that a stop that
	// closes their connections can wait until they are recorded; copies
	// the work calls left for after their answers (afterAnswer), which
	// the stop waits for too.
	handlers, copies inflight
}

// stopCut is why the stop cut the calls in flight short, closing their
// connections unanswered: their contexts end with it as their cause,
// which a handler tells apart from a sender that hung up, and which a
// forward's error then reads as. It reads on with " before the answer".
type stopCut string

func (e stopCut) Error() string { return string(e) }

// errStoppedAtOnce is the cause when the stop is forced (ServeGrace's now).
const errStoppedAtOnce = stopCut("listen was stopped at once (a second Ctrl-C or SIGTERM)")

// graceOver is the cause when the stop's grace ran out.
func graceOver(grace time.Duration) stopCut {
	return stopCut("listen's " + grace.String() + " wait for the calls in flight after Ctrl-C or SIGTERM ran out")
}

// stopCause is why the stop cut short the call whose context is ctx, nil
// when it did not.
func stopCause(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	if cause := context.Cause(ctx); isStopCut(cause) {
		return cause
	}
	return nil
}

// isStopCut reports whether err is, or wraps, a stopCut. Its own
// function, called only on an error: errors.As's target escapes.
func isStopCut(err error) bool {
	var cut stopCut
	return errors.As(err, &cut)
}

// cutShortWait bounds the wait for the handlers of the calls a stop cut
// short, and for the reports of the heads it cut: they return within
// milliseconds, unless a capture write or a full observation queue holds
// them (then closing the Receiver gives up on its own).
const cutShortWait = 5 * time.Second

// inflight counts running handlers. Two atomic adds a call, no lock: a
// waiter sets stopping, then reads the count; a handler that ends lowers
// the count, then reads stopping, so one of the two sees the other.
type inflight struct {
	n        atomic.Int64
	stopping atomic.Bool
	left     chan struct{} // one slot: a handler ended while stopping
}

func (f *inflight) enter() { f.n.Add(1) }

func (f *inflight) leave() {
	if f.n.Add(-1) == 0 && f.stopping.Load() {
		select {
		case f.left <- struct{}{}:
		default:
		}
	}
}

// wait waits until no handler runs, or until done is closed, and says
// whether no handler runs.
func (f *inflight) wait(done <-chan struct{}) bool {
	f.stopping.Store(true)
	for f.n.Load() > 0 {
		select {
		case <-f.left:
		case <-done:
			return f.n.Load() == 0
		}
	}
	return true
}

// afterAnswerKey is the context key of a call's afterAnswer, when the
// call came through a server's connection.
type afterAnswerKey struct{}

// afterAnswer is where a handler's work after its answer runs (a fault's
// later copy): under base, the server's context, which its stop cuts
// with a stopCut as calls' are, and counted in work, which the stop
// waits for as for the handlers.
type afterAnswer struct {
	base context.Context
	work *inflight
}

// CutShort is ServeGrace's error when its stop was cut short: Err is
// context.Canceled (a second Ctrl-C) or context.DeadlineExceeded (the
// grace ran out). Such a stop may have cut no call at all: the graceful
// stop also waits for idle HTTP/2 connections to take their GOAWAY, and
// for heads still arriving.
type CutShort struct {
	Err error
	// Calls counts the handlers that ran when the stop was cut short: the
	// calls left unanswered (each says so in its own findings).
	Calls int64
	// Copies counts the copies a fault sends after its call's answer
	// (afterAnswer) that were still out: cut short, their calls answered.
	Copies int64
}

func (e *CutShort) Error() string { return e.Err.Error() }
func (e *CutShort) Unwrap() error { return e.Err }

// InFlight is how many calls' handlers run now, and how many copies a
// fault sends after their calls' answers are still out.
func (s *server) InFlight() (calls, copies int64) { return s.handlers.n.Load(), s.copies.n.Load() }

// Listen binds addr (":0" picks a free port) so that the address is known,
// and connections queue, before Serve runs.
func Listen(addr string, h http.Handler, lim Limits) (*server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	// HTTP/2 over plain TCP from the first byte (prior knowledge) as well
	// as HTTP/1.1: without it, such a sender's preface reads as a call of
	// method PRI, is answered in HTTP/1.1, and its real call is lost.
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	base, cut := context.WithCancelCause(context.Background())
	s := &server{
		ln:       ln,
		limits:   lim,
		cut:      cut,
		handlers: inflight{left: make(chan struct{}, 1)},
		copies:   inflight{left: make(chan struct{}, 1)},
		srv: &http.Server{
			Protocols:         &protocols,
			ReadHeaderTimeout: lim.ReadHeaderTimeout,
			ReadTimeout:       lim.ReadTimeout,
			IdleTimeout:       lim.IdleTimeout,
			MaxHeaderBytes:    1 << 20,
			// "OPTIONS *" is a call like any other: net/http's own answer
			// to it (200, no handler) was recorded as a request the server
			// refused, "OK (answered 200)".
			DisableGeneralOptionsHandler: true,
			// net/http logs accept and handshake errors; a domain package
			// never prints.
			ErrorLog: log.New(io.Discard, "", 0),
		},
	}
	// Once per listener, not per call: the calls' contexts derive from it.
	s.srv.BaseContext = func(net.Listener) context.Context {
		return context.WithValue(base, afterAnswerKey{}, afterAnswer{base: base, work: &s.copies})
	}
	handler := h
	if rr, ok := h.(rejectionReporter); ok {
		// Requests net/http refuses before the handler runs are calls
		// too (see rejected.go).
		wl := newWatchListener(ln, rr.Rejected)
		if hc, ok := h.(interface{ holdsCalls() bool }); ok {
			wl.holds = hc.holdsCalls()
		}
		s.ln = wl
		handler = markHanded(h)
		s.srv.ConnState = wl.connState
		s.srv.ConnContext = withConn
	}
	s.srv.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.handlers.enter()
		defer s.handlers.leave()
		handler.ServeHTTP(w, req)
	})
	return s, nil
}

// rejectionReporter is a handler that takes the requests the server
// refused before it could run: *Receiver is one.
type rejectionReporter interface {
	Rejected(*Rejection)
}

// Addr is the bound address, with the real port.
func (s *server) Addr() net.Addr { return s.ln.Addr() }

// URL is the base URL calls are sent to.
func (s *server) URL() string { return URLOf(s.ln.Addr().(*net.TCPAddr)) }

// HookURL is the URL calls to path are sent to; "" (any path) is shown
// as the root.
func (s *server) HookURL(path string) string {
	if path == "" {
		path = "/"
	}
	return s.URL() + path
}

// URLOf is the base URL of a server bound to a: a local client's way in.
func URLOf(a *net.TCPAddr) string {
	host := a.IP.String()
	if a.IP.IsUnspecified() {
		// Bound to every interface; loopback is one of them and the one a
		// local sender can always use. IPv4's, also when the address is
		// [::]: Go's "tcp" listener on a wildcard (0.0.0.0, [::] or no
		// host) is one dual-stack socket that reports [::] and takes IPv4
		// too, while [::1] is missing where IPv6 is off on the loopback
		// (Docker before 26 on an IPv4-only network), and whsim ready,
		// the image's health check, dialled it in vain.
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(a.Port))
}

// Serves reports whether u reaches this server itself: its port, on a host
// that resolves to an address the socket answers on (localhost, 0.0.0.0 and
// [::1] included; any of this machine's addresses when it is bound to all
// interfaces). Listen refuses to forward calls to itself.
func (s *server) Serves(ctx context.Context, u *url.URL) bool {
	bound := s.ln.Addr().(*net.TCPAddr)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	if port != strconv.Itoa(bound.Port) {
		return false
	}
	var ips []net.IP
	host := strings.ToLower(u.Hostname())
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		// Both loopbacks, whatever /etc/hosts says (RFC 6761).
		ips = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	} else {
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return false // the forward fails on its own, answered 502
		}
		for _, a := range addrs {
			ips = append(ips, a.IP)
		}
	}
	for _, ip := range ips {
		if reaches(ip, bound.IP) {
			return true
		}
	}
	return false
}

// reaches reports whether a connection to ip lands on a socket bound to
// bound. A connection to 0.0.0.0 or [::] goes to this machine's loopback.
func reaches(ip, bound net.IP) bool {
	if ip.IsUnspecified() {
		return bound.IsUnspecified() || bound.IsLoopback()
	}
	if !bound.IsUnspecified() {
		return ip.Equal(bound)
	}
	if ip.IsLoopback() {
		return true
	}
	local, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range local {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// Serve serves until ctx is done, then shuts down gracefully: it stops
// accepting, lets calls in flight finish (up to ShutdownTimeout) and
// returns. Close the Receiver after it to observe the last calls.
func (s *server) Serve(ctx context.Context) error { return s.ServeGrace(ctx, nil) }

// ServeGrace is Serve whose graceful end is cut short when now is closed
// (a second Ctrl-C): the connections are closed at once, the calls in
// flight left unanswered, and it returns a *CutShort of context.Canceled
// (context.DeadlineExceeded when ShutdownTimeout ran out first, which
// leaves them so too) that counts them. Those calls reached the handler all the same: their
// contexts end first, with a stopCut as the cause, and it waits (up to
// cutShortWait) until their handlers have returned, so that they are
// recorded and observed before the Receiver is closed.
func (s *server) ServeGrace(ctx context.Context, now <-chan struct{}) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(s.ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	if wl, ok := s.ln.(*watchListener); ok {
		wl.stopping.Store(true)
		if readsQueued {
			// As long as a connection taken from the accept queue has
			// to send its head (drainWait).
			silent := time.AfterFunc(drainWait, wl.closeSilent)
			defer silent.Stop()
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.limits.ShutdownTimeout)
	defer cancel()
	if now != nil {
		go func() {
			select {
			case <-now:
				cancel()
			case <-sctx.Done():
			}
		}()
	}
	err := s.srv.Shutdown(sctx)
	waited := sctx.Done()
	if err == nil && !s.copies.wait(waited) {
		// Every connection closed, and work a call left for after its
		// answer (a fault's later copy) still runs: the stop's grace
		// bounds it as it bounds the calls, and a second Ctrl-C cuts it.
		err = sctx.Err()
	}
	if cut := errors.Is(err, context.Canceled); cut || errors.Is(err, context.DeadlineExceeded) {
		// The cause before the connections close, which would end the
		// calls' contexts with none.
		err = &CutShort{Err: err, Calls: s.handlers.n.Load(), Copies: s.copies.n.Load()}
		if cut {
			s.cut(errStoppedAtOnce)
		} else {
			s.cut(graceOver(s.limits.ShutdownTimeout))
		}
		s.srv.Close()
		wctx, wcancel := context.WithTimeout(context.Background(), cutShortWait)
		defer wcancel()
		waited = wctx.Done()
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	// The calls cut short, and the unfinished heads the shutdown closed
	// (reported as calls), are recorded before the receiver is closed.
	s.handlers.wait(waited)
	s.copies.wait(waited)
	if wl, ok := s.ln.(*watchListener); ok {
		wl.waitReports(waited)
	}
	return err
}
