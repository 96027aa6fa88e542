package attempt

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// dialTLS stands in for net/http's own TLS set-up: an HTTP/1.1
// connection is watched above its records, directly or through an http://
// proxy's tunnel (which it opens); one that agreed on HTTP/2, and one to
// an https:// proxy, are the *tls.Conn net/http hands its TLSNextProto
// or its CONNECT, as before; a handshake its time limit ends fails with
// net/http's words, a timeout.
func TestDialTLSWatchesHTTP1AndKeepsTheRest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		alpn    []string
		proxy   string // "http" or "https": reached through a proxy of that scheme
		watched bool
	}{
		{name: "HTTP/1.1", alpn: []string{"http/1.1"}, watched: true},
		{name: "no ALPN", watched: true},
		{name: "HTTP/2", alpn: []string{"h2", "http/1.1"}},
		{name: "HTTP/1.1 to an https proxy", alpn: []string{"http/1.1"}, proxy: "https"},
		{name: "HTTP/1.1 through an http proxy", alpn: []string{"http/1.1"}, proxy: "http", watched: true},
		{name: "HTTP/2 through an http proxy", alpn: []string{"h2", "http/1.1"}, proxy: "http"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			conf, roots := http1TLS(t)
			conf.NextProtos = tc.alpn
			ln := testnet.Serve(t, func(raw net.Conn) {
				c := tls.Server(raw, conf)
				defer c.Close()
				_ = c.Handshake()
				var b [1]byte
				_, _ = c.Read(b[:]) // until the client closes
			})
			notes := new(clientNotes)
			proxy := http.ProxyFromEnvironment
			switch tc.proxy {
			case "https":
				// dialTLS is then net/http's dial of the proxy itself.
				proxy = func(*http.Request) (*url.URL, error) { return url.Parse("https://" + ln.Addr().String()) }
			case "http":
				u := connectProxy(t, func(string) string { return "" }, nil)
				proxy = func(*http.Request) (*url.URL, error) { return u, nil }
			}
			tr := &http.Transport{
				DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					c, err := new(net.Dialer).DialContext(ctx, network, addr)
					if err != nil {
						return nil, err
					}
					return newWatchConn(c, notes), nil
				},
				TLSHandshakeTimeout: time.Minute,
			}
			c, err := dialTLS(context.Background(), tr, proxy, &tls.Config{RootCAs: roots, NextProtos: []string{http2Proto, "http/1.1"}}, notes, "tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			wc, watched := c.(*watchConn)
			if watched != tc.watched {
				t.Fatalf("dialTLS gave %T, want watched above the records: %v", c, tc.watched)
			}
			if watched && (wc.sock == nil || wc.Conn.(*tls.Conn).NetConn() != net.Conn(wc.sock)) {
				t.Fatalf("watched connection %+v is not over TLS on the watched socket", wc)
			}
			if tc, ok := c.(*tls.Conn); ok {
				if _, ok := tc.NetConn().(*watchConn); !ok {
					t.Fatalf("TLS on %T, want the watched socket", tc.NetConn())
				}
			}
		})
	}

	t.Run("handshake timeout", func(t *testing.T) {
		t.Parallel()
		done := make(chan struct{})
		ln := testnet.Serve(t, func(net.Conn) { <-done }) // never answers the ClientHello
		t.Cleanup(func() { close(done) })
		tr := &http.Transport{DialContext: new(net.Dialer).DialContext, TLSHandshakeTimeout: 20 * time.Millisecond}
		_, err := dialTLS(context.Background(), tr, http.ProxyFromEnvironment, &tls.Config{}, nil, "tcp", ln.Addr().String())
		var ne net.Error
		if err == nil || err.Error() != "net/http: TLS handshake timeout" || !errors.As(err, &ne) || !ne.Timeout() || Classify(err) != KindTimeout {
			t.Fatalf("dialTLS: %v, want net/http's TLS handshake timeout", err)
		}
	})
}
