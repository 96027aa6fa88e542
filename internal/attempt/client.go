package attempt

import (
	"bufio"
	"encoding/base64"
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
	return newClient(o, http.ProxyFromEnvironment)
}

// newClient is NewClient with the proxy a call's URL is reached through
// (HTTPS_PROXY and the rest of the environment's, in NewClient), which a
// test cannot set for a 127.0.0.1 receiver: the environment's never
// proxies a loopback address.
func newClient(o ClientOptions, proxy func(*http.Request) (*url.URL, error)) (*http.Client, error) {
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
		// An https:// receiver behind an http:// proxy is dialled by
		// dialTLS, CONNECT included, so that its TLS is watched above
		// the records as a direct one is (tunnelledBy).
		Proxy: func(req *http.Request) (*url.URL, error) {
			p, err := proxy(req)
			if err == nil && tunnelledBy(req.URL.Scheme, p) {
				return nil, nil
			}
			return p, err
		},
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
		return dialH2(ctx, tr, proxy, tlsConf, authority)
	}
	tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return dialTLS(ctx, tr, proxy, tlsConf, notes, network, addr)
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
// (slotPool). Not through a proxy: a receiver reached through one
// (proxy, the client's: HTTPS_PROXY) gets no connection but those tr
// opens.
func dialH2(ctx context.Context, tr *http.Transport, proxy func(*http.Request) (*url.URL, error), conf *tls.Config, authority string) (*tls.Conn, error) {
	if p, err := proxy(&http.Request{URL: &url.URL{Scheme: "https", Host: authority}}); err != nil || p != nil {
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
// where an answer's bytes cannot be told from a session ticket. A
// receiver the client reaches through an http:// proxy (proxy,
// tunnelledBy) is dialled through the proxy's CONNECT tunnel (dialTunnel),
// as net/http would, and watched the same: the tunnel carries the
// receiver's bytes alone. One that agreed on HTTP/2 is handed back as it
// is, for tr's TLSNextProto, as is one to an https:// proxy: tr dials
// addr over TLS then for the proxy itself, and what goes over that is
// the proxy's, not the receiver's (the receiver's TLS runs inside,
// net/http's own, unwatched above its records).
func dialTLS(ctx context.Context, tr *http.Transport, proxy func(*http.Request) (*url.URL, error), conf *tls.Config, notes *clientNotes, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	p, err := proxy(&http.Request{URL: &url.URL{Scheme: "https", Host: addr}})
	proxied := err != nil || p != nil
	var c net.Conn
	if err == nil && tunnelledBy("https", p) {
		c, err = dialTunnel(ctx, tr, p, network, addr)
		proxied = false
	} else {
		c, err = tr.DialContext(ctx, network, addr)
	}
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
	if tc.ConnectionState().NegotiatedProtocol == http2Proto || proxied {
		return tc, nil
	}
	wc, ok := c.(*watchConn)
	if !ok {
		return tc, nil
	}
	return newTLSWatch(tc, wc, notes), nil
}

// tunnelledBy says whether a call to a URL of scheme is made through the
// proxy p by a CONNECT tunnel the client opens itself (dialTLS): an
// https:// receiver behind an http:// proxy. net/http would open it on
// the proxy's connection and put its own TLS on top, where the
// receiver's bytes, above the records, are not seen.
func tunnelledBy(scheme string, p *url.URL) bool {
	return scheme == "https" && p != nil && p.Scheme == "http"
}

// dialTunnel opens a connection to addr through the http:// proxy p, as
// net/http does for an https:// URL: tr's dial to the proxy (its dial
// errors named "proxyconnect", as net/http names them), a CONNECT with
// the proxy URL's credentials as Proxy-Authorization, and a 200 that
// opens the tunnel; another status is an error of its text, as
// net/http's. Bounded by ctx (the attempt's). The CONNECT is written and
// read on the socket under the watch: its bytes are no call's.
func dialTunnel(ctx context.Context, tr *http.Transport, p *url.URL, network, addr string) (net.Conn, error) {
	c, err := tr.DialContext(ctx, network, proxyAddr(p))
	if err != nil {
		return nil, &net.OpError{Op: "proxyconnect", Net: "tcp", Err: err}
	}
	raw := unwrap(c)
	hdr := make(http.Header)
	if u := p.User; u != nil {
		pass, _ := u.Password()
		hdr.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pass)))
	}
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: addr}, Host: addr, Header: hdr}
	// The deadline ends a proxy that never answers with ctx; a past one
	// wakes the read at once.
	stop := context.AfterFunc(ctx, func() { _ = raw.SetDeadline(time.Unix(1, 0)) })
	var resp *http.Response
	err = req.Write(raw)
	if err == nil {
		// Nothing may follow the proxy's answer but the receiver's TLS,
		// which speaks only when spoken to: a buffered reader is safe,
		// and what it holds past the answer is refused below.
		br := bufio.NewReader(raw)
		if resp, err = http.ReadResponse(br, req); err == nil && br.Buffered() > 0 {
			err = errors.New("the proxy sent bytes after its answer to CONNECT")
		} else if err != nil {
			// Whatever ended the proxy's answer (bytes that are no HTTP
			// answer, its close) is the proxy's: its words say so, as an
			// unreachable proxy's do.
			err = &net.OpError{Op: "proxyconnect", Net: "tcp", Err: err}
		}
	}
	if !stop() {
		err = ctx.Err()
	}
	if err == nil && resp.StatusCode != http.StatusOK {
		_, text, ok := strings.Cut(resp.Status, " ")
		err = errors.New(text)
		if !ok {
			err = errors.New("unknown status code")
		}
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// proxyAddr is the host:port of the http:// proxy p, port 80 when it
// names none, as net/http dials it.
func proxyAddr(p *url.URL) string {
	port := p.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(p.Hostname(), port)
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

// redirectError is a redirect that cannot be followed through: it is
// the receiver's configuration, no passing fault, so it is not retried.
type redirectError string

func (e redirectError) Error() string { return string(e) }

// dropCredentials follows a redirect, without the request's credential
// headers when it leaves the first call's origin (another host, port or
// scheme): net/http keeps only Authorization and Cookie from another
// domain, and would hand X-Api-Key, X-Auth-Token and the signature to it.
// The names are those every output masks (termsafe.SecretHeader). The
// Referer goes too: net/http sets it to the first URL, query included,
// which may hold a ?token= the user gave for the receiver alone.
func dropCredentials(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return redirectError("stopped after " + strconv.Itoa(maxRedirects) + " redirects")
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		// Said before the transport's "unsupported protocol scheme",
		// which would be retried as if the receiver might mend.
		return redirectError("redirected to " + strconv.Quote(req.URL.String()) + ", which is not http or https")
	}
	first := via[0].URL
	if onThisMachine(first.Hostname()) && !onThisMachine(req.URL.Hostname()) {
		// A receiver under test on this machine does not get whsim to
		// send its calls (documents, signatures) to another one.
		return redirectError("redirected to " + strconv.Quote(req.URL.Redacted()) + ", off this machine, from a receiver on it")
	}
	if strings.EqualFold(req.URL.Host, first.Host) && req.URL.Scheme == first.Scheme {
		return nil
	}
	for name := range req.Header {
		if termsafe.SecretHeader(name) {
			delete(req.Header, name)
		}
	}
	req.Header.Del("Referer")
	return nil
}

// onThisMachine says whether host (a URL's, without its port) is this
// machine's: a loopback address, localhost or a name under it. Another
// name is not resolved: it may be anywhere.
func onThisMachine(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
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

// NewConnectionEachCall is a client like c (its time limit, TLS, proxy,
// redirects, HTTP/2 connections) whose every HTTP/1 call goes out on a
// new connection, ended after its answer (net/http says Connection:
// close on it), through net/http: the fast path keeps its connections
// alive. For a receiver that answers no call but the first on a
// connection: a sender that keeps connections alive gets nothing from
// it. A client of another transport (whsimtest's, in memory) is c.
func NewConnectionEachCall(c *http.Client) *http.Client {
	nc := *c
	switch t := c.Transport.(type) {
	case directTransport:
		t.Transport = t.Transport.Clone()
		t.Transport.DisableKeepAlives = true
		t.netHTTP = true
		nc.Transport = t
	case idleClosing:
		t.Transport = t.Transport.Clone()
		t.Transport.DisableKeepAlives = true
		nc.Transport = t
	default:
		return c
	}
	return &nc
}
