package receiver

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/validate"
)

// A client that takes listen for an HTTP proxy (HTTPS_PROXY names it)
// sends CONNECT example.com:443 and reads a 2xx as a tunnel, into which
// it then speaks TLS. listen answered it 200, or --status's or --respond's
// answer, and recorded an empty path. Whatever listen is told to answer,
// CONNECT is answered 405 with Allow and a line saying why, is never
// forwarded, and is recorded with the target it asked for.
func TestConnectIsRefusedAndRecorded(t *testing.T) {
	t.Parallel()
	var forwarded atomic.Int64
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		forwarded.Add(1)
	}))
	t.Cleanup(backend.Close)
	fwd, _ := url.Parse(backend.URL)
	for _, tt := range []struct {
		name string
		cfg  Config
	}{
		{"default", Config{}},
		{"status 201", Config{Status: 201}},
		{"respond 200", Config{Respond: []sequence{{ev, []int{200}}}}},
		{"path", Config{Path: "/hook"}},
		{"forward-to", Config{ForwardTo: fwd}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, obs, mem := start(t, tt.cfg)
			conn, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			io.WriteString(conn, "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodConnect})
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != http.MethodPost ||
				!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") || !strings.Contains(string(body), "no HTTP proxy") ||
				strings.Count(string(body), "\n") != 1 {
				t.Errorf("answered %d %v %q, want 405, Allow: POST and one plain line why", resp.StatusCode, resp.Header, body)
			}
			conn.Close()
			srv.Close()
			if n := forwarded.Load(); n != 0 {
				t.Errorf("forwarded %d calls, want none", n)
			}
			if len(obs.calls) != 1 || len(mem.recs) != 1 {
				t.Fatalf("observed %d calls, recorded %d; want 1", len(obs.calls), len(mem.recs))
			}
			rec := mem.recs[0]
			if rec.Method != http.MethodConnect || rec.Path != "example.com:443" || rec.Forward != nil ||
				rec.Response == nil || rec.Response.Status != http.StatusMethodNotAllowed {
				t.Errorf("recorded %s %q, forward %+v, answer %+v; want CONNECT \"example.com:443\" answered 405, not forwarded",
					rec.Method, rec.Path, rec.Forward, rec.Response)
			}
			c := obs.calls[0]
			if !hasRule(c, validate.RuleHTTPMethod) || hasRule(c, rulePath) {
				t.Errorf("findings %+v, want %s and no %s (no path was asked for)", c.Findings, validate.RuleHTTPMethod, rulePath)
			}
		})
	}
}

// Over HTTP/2 without TLS (h2c), which listen accepts, a CONNECT names
// its target in :authority; it is answered and recorded as over HTTP/1.1.
func TestConnectOverHTTP2(t *testing.T) {
	t.Parallel()
	mem := &memRecorder{}
	rcv := New(Config{Capture: mem, Checker: fakeChecker{}, Status: 201})
	addr := serve(t, rcv, DefaultLimits)
	var h2c http.Protocols
	h2c.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &h2c}
	defer tr.CloseIdleConnections()
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Scheme: "http", Host: addr}, Host: "example.com:443", Header: http.Header{}}
	resp, err := (&http.Client{Timeout: 30 * time.Second, Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("an HTTP/2 CONNECT: %v", err)
	}
	resp.Body.Close()
	tr.CloseIdleConnections()
	rcv.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.ProtoMajor != 2 {
		t.Errorf("answered %d over %s, want 405 over HTTP/2", resp.StatusCode, resp.Proto)
	}
	if len(mem.recs) != 1 {
		t.Fatalf("%d records, want 1", len(mem.recs))
	}
	if rec := mem.recs[0]; rec.Method != http.MethodConnect || rec.Path != "example.com:443" {
		t.Errorf("recorded %s %q, want the CONNECT to \"example.com:443\"", rec.Method, rec.Path)
	}
}
