package attempt

import (
	"strconv"
	"strings"

	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/tlsconf"
)

// DefaultTimeout is the time limit of one attempt (--timeout) for send,
// replay and check alike. 10s: check's --latency-budget already judges a
// slow receiver, so the timeout only has to tell a slow answer from none,
// and 10s is a common sender's own limit (GitHub's); a shorter one would
// call a slow receiver one that stopped answering.
const DefaultTimeout = 10 * time.Second

// ClientOptions configure the one HTTP client of a run.
type ClientOptions struct {
	// Timeout bounds one attempt, from dialling to the end of the response
	// body.
	Timeout time.Duration
	// Concurrency sizes the connection pool, so that every worker keeps its
	// connection alive instead of dialling anew.
	Concurrency int
	// CAFile names a PEM file of extra roots (a private CA).
	CAFile string
	// RootCAs, when set, are the roots trusted in place of the system's,
	// as tls.Config.RootCAs (whsimtest.WithRootCAs); CAFile's certificates
	// are added to them.
	RootCAs *x509.CertPool
	// Insecure skips certificate verification.
	Insecure bool
	// FollowRedirects follows 3xx; otherwise a 3xx is the answer.
	FollowRedirects bool
	// NetHTTP sends every call through net/http's transport, never the
	// raw-syscall fast path (raw.go): the way to rule the fast path out
	// (WHSIM_TRANSPORT=net/http, read by the CLI).
	NetHTTP bool
	// Goroutines keeps a closed run's calls on the fast path off the event
	// loops (lanes_linux.go): a goroutine per connection makes them
	// (WHSIM_TRANSPORT=goroutines, read by the CLI).
	Goroutines bool
}

// TransportEnv names the environment variable that chooses the transport:
// TransportNetHTTP turns the fast path off, TransportGoroutines the event
// loops. The CLI reads it and sets ClientOptions.NetHTTP or Goroutines.
const (
	TransportEnv        = "WHSIM_TRANSPORT"
	TransportNetHTTP    = "net/http"
	TransportGoroutines = "goroutines"
)

// ErrNoCerts says a CA file held no PEM certificate.
var ErrNoCerts = tlsconf.ErrNoCerts

// NewClient builds the client. Never http.DefaultClient: it has no timeout,
// a pool of two idle connections per host, and follows redirects, which
// turns a POST into a GET that loses the body.
func NewClient(o ClientOptions) (*http.Client, error) {
	conc := max(o.Concurrency, 1)
	tlsConf, err := tlsconf.Config(tlsconf.Options{Insecure: o.Insecure, CAFile: o.CAFile, RootCAs: o.RootCAs})
	if err != nil {
		return nil, err
	}
	// HTTP/2 offered first, as net/http's own HTTP/2 support would.
	tlsConf.NextProtos = []string{http2Proto, "http/1.1"}
	dialer := &net.Dialer{Timeout: min(o.Timeout, 10*time.Second), KeepAlive: 30 * time.Second}
	if o.Timeout <= 0 {
		dialer.Timeout = 10 * time.Second
	}
	h2 := &h2Conns{t: newH2Transport(idleConnTimeout), concurrency: conc}
	notes := new(clientNotes)
	tr := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		// Each connection watched, so that a kept-alive one the receiver
		// closed is never written on (watchConn).
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return newWatchConn(c, notes), nil
		},
		// HTTP/1.1 over TLS watched above the records too (dialTLS): the
		// answers' bytes are seen there, as on a plain connection.
		TLSClientConfig:     tlsConf,
		TLSHandshakeTimeout: dialer.Timeout,
		MaxIdleConns:        conc * 2,
		MaxIdleConnsPerHost: conc,
		// An answer's head is bounded as on the fast path (maxHead).
		MaxResponseHeaderBytes: maxHead,
		IdleConnTimeout:        idleConnTimeout,
		// No ResponseHeaderTimeout: the attempt's own deadline (Timeout)
		// already bounds the wait for headers, and the transport would
		// start a second timer per request for it.
		// HTTP/2 by x/net's ClientConn, one stream per call (h2.go), in
		// place of net/http's own, which makes calls again unseen.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{
			http2Proto: h2.nextProto,
		},
		// Bodies are JSON the receiver answers briefly; compression would
		// only cost CPU on the hot path.
		DisableCompression: true,
	}
	h2.dial = func(ctx context.Context, authority string) (*tls.Conn, error) {
		return dialH2(ctx, tr, tlsConf, authority)
	}
	tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return dialTLS(ctx, tr, tlsConf, notes, network, addr)
	}
	c := &http.Client{Transport: idleClosing{tr, h2, notes}, Timeout: o.Timeout, CheckRedirect: dropCredentials}
	if !o.FollowRedirects {
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		c.Transport = directTransport{Transport: tr, h2: h2, netHTTP: o.NetHTTP, noLoops: o.Goroutines, notes: notes}
	}
	return c, nil
}

// dialH2 opens a connection to authority (host:port) over TLS that agrees
// on HTTP/2, as tr would for a call (tr's dial, its TLS configuration and
// time limits), for a pool of HTTP/2 connections that needs another
// (slotPool). Not through a proxy: a receiver tr reaches through one
// (HTTPS_PROXY) gets no connection but those tr opens.
func dialH2(ctx context.Context, tr *http.Transport, conf *tls.Config, authority string) (*tls.Conn, error) {
	if proxy, err := tr.Proxy(&http.Request{URL: &url.URL{Scheme: "https", Host: authority}}); err != nil || proxy != nil {
		return nil, errH2Proxied
	}
	host, _, err := net.SplitHostPort(authority)
	if err != nil {
		return nil, err
	}
	c, err := tr.DialContext(ctx, "tcp", authority)
	if err != nil {
		return nil, err
	}
	conf = conf.Clone()
	if conf.ServerName == "" {
		conf.ServerName = host
	}
	tc := tls.Client(c, conf)
	hctx, cancel := context.WithTimeout(ctx, tr.TLSHandshakeTimeout)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		c.Close()
		return nil, err
	}
	if tc.ConnectionState().NegotiatedProtocol != http2Proto {
		tc.Close()
		return nil, errNotH2
	}
	return tc, nil
}

// dialTLS opens an https connection to addr for tr, as tr would on its
// own (tr's dial, its TLS configuration, the handshake bounded by its
// TLSHandshakeTimeout with net/http's words), and watches an HTTP/1.1 one
// above its records (newTLSWatch): under them the socket holds records,
// where an answer's bytes cannot be told from a session ticket. One that
// agreed on HTTP/2 is handed back as it is, for tr's TLSNextProto, as is
// one to a proxy: tr dials addr over TLS itself only for an https proxy
// (an http one gets its CONNECT on tr's DialContext, and the receiver's
// TLS on top, unwatched above the records), and what goes over that is
// the proxy's, not the receiver's.
func dialTLS(ctx context.Context, tr *http.Transport, conf *tls.Config, notes *clientNotes, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	c, err := tr.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	conf = conf.Clone()
	if conf.ServerName == "" {
		conf.ServerName = host
	}
	tc := tls.Client(c, conf)
	hctx, cancel := ctx, context.CancelFunc(func() {})
	if d := tr.TLSHandshakeTimeout; d > 0 {
		hctx, cancel = context.WithTimeoutCause(ctx, d, errTLSHandshakeTimeout)
	}
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		c.Close()
		if context.Cause(hctx) == errTLSHandshakeTimeout {
			return nil, errTLSHandshakeTimeout
		}
		return nil, err
	}
	if tc.ConnectionState().NegotiatedProtocol == http2Proto {
		return tc, nil
	}
	if proxy, err := tr.Proxy(&http.Request{URL: &url.URL{Scheme: "https", Host: addr}}); err != nil || proxy != nil {
		return tc, nil
	}
	wc, ok := c.(*watchConn)
	if !ok {
		return tc, nil
	}
	return newTLSWatch(tc, wc, notes), nil
}

// tlsHandshakeTimeout is net/http's own error for a handshake its
// TLSHandshakeTimeout ended, which dialTLS stands in for: the same words,
// a timeout.
type tlsHandshakeTimeout struct{}

func (tlsHandshakeTimeout) Timeout() bool   { return true }
func (tlsHandshakeTimeout) Temporary() bool { return true }
func (tlsHandshakeTimeout) Error() string   { return "net/http: TLS handshake timeout" }

var errTLSHandshakeTimeout error = tlsHandshakeTimeout{}

var (
	errH2Proxied = errors.New("the receiver is reached through a proxy")
	errNotH2     = errors.New("the receiver did not agree on HTTP/2")
)

// idleConnTimeout is how long a kept-alive connection may stay idle.
const idleConnTimeout = 90 * time.Second

// maxRedirects is how many redirects a call follows, as net/http's default.
const maxRedirects = 10

// dropCredentials follows a redirect, without the request's credential
// headers when it leaves the first call's origin (another host, port or
// scheme): net/http keeps only Authorization and Cookie from another
// domain, and would hand X-Api-Key, X-Auth-Token and the signature to it.
// The names are those every output masks (termsafe.SecretHeader).
func dropCredentials(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return errors.New("stopped after " + strconv.Itoa(maxRedirects) + " redirects")
	}
	first := via[0].URL
	if strings.EqualFold(req.URL.Host, first.Host) && req.URL.Scheme == first.Scheme {
		return nil
	}
	for name := range req.Header {
		if termsafe.SecretHeader(name) {
			delete(req.Header, name)
		}
	}
	return nil
}

// directTransport marks the transport of a client that follows no
// redirects and keeps no cookies: Client.Do would add nothing to one
// round trip but a copy of the headers, a copy of the request, a deadline
// timer and a context per call, so the Deliverer calls the transport
// itself and bounds the attempt with Client.Timeout on its own.
// netHTTP keeps its calls off the fast path (ClientOptions.NetHTTP),
// noLoops a run's off the event loops (ClientOptions.Goroutines).
type directTransport struct {
	*http.Transport
	h2               *h2Conns
	netHTTP, noLoops bool
	notes            *clientNotes
}

// CloseIdleConnections closes the idle connections, HTTP/2's with them.
func (t directTransport) CloseIdleConnections() {
	t.notes.closingIdle.Add(1)
	defer t.notes.closingIdle.Add(-1)
	t.Transport.CloseIdleConnections()
	t.h2.closeIdle()
}

// idleClosing is the transport of a client that follows redirects: its
// CloseIdleConnections closes HTTP/2's idle connections too, which
// net/http's transport leaves to the HTTP/2 side.
type idleClosing struct {
	*http.Transport
	h2    *h2Conns
	notes *clientNotes
}

func (t idleClosing) CloseIdleConnections() {
	t.notes.closingIdle.Add(1)
	defer t.notes.closingIdle.Add(-1)
	t.Transport.CloseIdleConnections()
	t.h2.closeIdle()
}
