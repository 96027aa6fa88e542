package attempt

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/testnet"
)

// connectProxy is an http:// proxy on 127.0.0.1 for a test: each
// connection's first request must be a CONNECT, which answer, given its
// Proxy-Authorization, answers ("" opens the tunnel to 127.0.0.1 at the
// port it names, whatever its host). It says each CONNECT's target on
// targets when that is not nil.
func connectProxy(t *testing.T, answer func(auth string) string, targets chan<- string) *url.URL {
	t.Helper()
	ln := testnet.Serve(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil || req.Method != http.MethodConnect {
			return
		}
		if targets != nil {
			targets <- req.Host
		}
		if a := answer(req.Header.Get("Proxy-Authorization")); a != "" {
			_, _ = io.WriteString(c, a)
			return
		}
		_, port, _ := net.SplitHostPort(req.Host)
		up, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err != nil {
			return
		}
		defer up.Close()
		if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			return
		}
		go func() { _, _ = io.Copy(up, br); up.Close() }()
		_, _ = io.Copy(c, up)
	})
	return &url.URL{Scheme: "http", Host: ln.Addr().String()}
}

// throughProxy is a target URL of a receiver on 127.0.0.1, named
// example.com (its certificate's name) to be reached through a proxy
// that maps every host to 127.0.0.1.
func throughProxy(t *testing.T, target string) *url.URL {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = net.JoinHostPort("example.com", u.Port())
	return u
}

// An https:// receiver reached through an http:// proxy (HTTPS_PROXY) is
// watched above its TLS records as one reached directly: its bytes after
// an answer are noted, on every transport. Before, net/http put its own
// TLS on the proxy's tunnel, unwatched, and the second call read them as
// its answer, unsaid.
func TestUnaskedBytesThroughAProxy(t *testing.T) {
	t.Parallel()
	for _, netHTTP := range []bool{false, true} {
		t.Run("net/http "+map[bool]string{false: "off", true: "on"}[netHTTP], func(t *testing.T) {
			t.Parallel()
			conf, roots := http1TLS(t)
			target := unaskedServerOver(t, conf, func(_, _ int, c net.Conn) {
				_, _ = io.WriteString(c, answer200+answer500)
			})
			targets := make(chan string, 4)
			proxy := connectProxy(t, func(string) string { return "" }, targets)
			cl, err := newClient(ClientOptions{Timeout: 10 * time.Second, Concurrency: 1, RootCAs: roots, NetHTTP: netHTTP},
				func(*http.Request) (*url.URL, error) { return proxy, nil })
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(cl.CloseIdleConnections)
			d := &Deliverer{Client: cl, Target: throughProxy(t, target), KeepBody: true, Trace: true}
			a := d.Deliver(context.Background(), &Request{Event: "E", Body: []byte(`{}`)}).Last()
			if a.Status != 200 || a.Conn == nil {
				t.Fatalf("call through the proxy: %+v (%v), want 200 on a watched connection", a, a.Err)
			}
			if got := <-targets; got != d.Target.Host {
				t.Fatalf("the proxy was asked to CONNECT %q, want %q", got, d.Target.Host)
			}
			a.Conn.Settle()
			if _, seen := a.Conn.Unasked(); !seen || !a.Conn.Followed(a.ConnCall) {
				t.Fatalf("the 500 after the answer went unseen through the proxy")
			}
			if got := d.Unasked(); got != 1 {
				t.Fatalf("Unasked() = %d, want 1", got)
			}
		})
	}
}

// dialTunnel opens the proxy's tunnel as net/http does: the proxy URL's
// credentials go as Proxy-Authorization, a proxy's refusal is an error of
// its status text, an unreachable proxy a "proxyconnect" error that is
// classified as its cause, and an HTTP/2 receiver behind it still gets
// HTTP/2.
func TestDialTunnelAsNetHTTP(t *testing.T) {
	t.Parallel()
	t.Run("credentials and refusal", func(t *testing.T) {
		t.Parallel()
		auths := make(chan string, 1)
		proxy := connectProxy(t, func(auth string) string {
			auths <- auth
			return "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n"
		}, nil)
		proxy.User = url.UserPassword("ann", "s3cret")
		cl, err := newClient(ClientOptions{Timeout: 10 * time.Second}, func(*http.Request) (*url.URL, error) { return proxy, nil })
		if err != nil {
			t.Fatal(err)
		}
		d := &Deliverer{Client: cl, Target: &url.URL{Scheme: "https", Host: "example.com:1", Path: "/hook"}}
		a := d.Deliver(context.Background(), &Request{Event: "E", Body: []byte(`{}`)}).Last()
		if !strings.HasSuffix(a.Err, ": Proxy Authentication Required") {
			t.Fatalf("refused by the proxy: %v, want net/http's words (its status text)", a.Err)
		}
		if got, want := <-auths, "Basic YW5uOnMzY3JldA=="; got != want {
			t.Fatalf("Proxy-Authorization %q, want %q", got, want)
		}
	})
	t.Run("an answer that is no HTTP answer", func(t *testing.T) {
		t.Parallel()
		// The proxy's, not the receiver's: it was counted a malformed
		// answer, which check words as the receiver's.
		proxy := connectProxy(t, func(string) string { return "HELLO\r\n\r\n" }, nil)
		for _, netHTTP := range []bool{false, true} {
			cl, err := newClient(ClientOptions{Timeout: 10 * time.Second, NetHTTP: netHTTP}, func(*http.Request) (*url.URL, error) { return proxy, nil })
			if err != nil {
				t.Fatal(err)
			}
			d := &Deliverer{Client: cl, Target: &url.URL{Scheme: "https", Host: "example.com:1", Path: "/hook"}}
			a := d.Deliver(context.Background(), &Request{Event: "E", Body: []byte(`{}`)}).Last()
			if got, want := ShortError(a), `error: proxyconnect tcp: malformed HTTP response "HELLO"`; a.Kind != KindOther || got != want {
				t.Errorf("net/http %v: %s %q, want %s %q", netHTTP, a.Kind, got, KindOther, want)
			}
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		cl, err := newClient(ClientOptions{Timeout: 10 * time.Second}, func(*http.Request) (*url.URL, error) {
			return &url.URL{Scheme: "http", Host: addr}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		d := &Deliverer{Client: cl, Target: &url.URL{Scheme: "https", Host: "example.com:1", Path: "/hook"}}
		a := d.Deliver(context.Background(), &Request{Event: "E", Body: []byte(`{}`)}).Last()
		if !strings.Contains(a.Err, "proxyconnect tcp: dial tcp "+addr) || a.Kind != KindRefused {
			t.Fatalf("unreachable proxy: %v (%s), want a proxyconnect error, connection refused", a.Err, a.Kind)
		}
	})
	t.Run("HTTP/2 receiver", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, r.Proto)
		}))
		srv.EnableHTTP2 = true
		srv.StartTLS()
		t.Cleanup(srv.Close)
		proxy := connectProxy(t, func(string) string { return "" }, nil)
		cl, err := newClient(ClientOptions{Timeout: 10 * time.Second, RootCAs: srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs},
			func(*http.Request) (*url.URL, error) { return proxy, nil })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.CloseIdleConnections)
		d := &Deliverer{Client: cl, Target: throughProxy(t, srv.URL), KeepBody: true}
		r := d.Deliver(context.Background(), &Request{Event: "E", Body: []byte(`{}`)})
		if a := r.Last(); a.Status != 200 || string(r.RespBody) != "HTTP/2.0" {
			t.Fatalf("HTTP/2 receiver through the proxy: %d %q (%v), want 200 over HTTP/2", a.Status, r.RespBody, a.Err)
		}
	})
}
