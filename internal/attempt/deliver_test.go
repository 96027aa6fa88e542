package attempt

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/sign"
)

func TestSignatureVector(t *testing.T) {
	// The Standard Webhooks specification's published test vector.
	s, err := sign.NewSigner("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Signature("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
	for _, bad := range []string{"", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_", "whsec_!!!"} {
		if _, err := sign.NewSigner(bad); err == nil {
			t.Errorf("sign.NewSigner(%q): no error", bad)
		} else if bad != "" && strings.Contains(err.Error(), strings.TrimPrefix(bad, "whsec_")) && len(bad) > 6 {
			t.Errorf("error %q quotes the secret", err)
		}
	}
}

func TestURLFor(t *testing.T) {
	tests := []struct{ target, query, want string }{
		{"http://h/hook", "businessType=A", "http://h/hook?businessType=A"},
		{"http://h/hook?tenant=7&x=a%20b", "businessType=A", "http://h/hook?tenant=7&x=a%20b&businessType=A"},
		{"https://h:8443/", "", "https://h:8443/"},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.target)
		if got := URLFor(u, tt.query); got != tt.want {
			t.Errorf("URLFor(%s, %s) = %s, want %s", tt.target, tt.query, got, tt.want)
		}
	}
}

// virtualSleep records the waits instead of sleeping.
type virtualSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (v *virtualSleep) sleep(ctx context.Context, d time.Duration) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.waits = append(v.waits, d)
	return ctx.Err()
}

func newTestDeliverer(t *testing.T, srv *httptest.Server, retries int, vs *virtualSleep) *Deliverer {
	t.Helper()
	c, err := newTestClient(ClientOptions{Timeout: 2 * time.Second, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL + "/hook")
	return &Deliverer{Client: c, Target: u, Retries: retries, Backoff: DefaultBackoff(func() float64 { return 1 }),
		Sleep: vs.sleep, Now: func() time.Time { return time.Unix(1700000000, 0) }}
}

func TestRetriesBackoffAndRetryAfter(t *testing.T) {
	tests := []struct {
		name      string
		statuses  []int
		header    map[int]string // attempt -> Retry-After
		retries   int
		ok        bool
		attempts  int
		wantWaits []time.Duration
	}{
		{"5xx then success", []int{503, 500, 200}, nil, 3, true, 3, []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}},
		{"gives up after retries", []int{502, 502, 502, 502}, nil, 2, false, 3, []time.Duration{200 * time.Millisecond, 400 * time.Millisecond}},
		{"429 with Retry-After seconds", []int{429, 200}, map[int]string{0: "3"}, 1, true, 2, []time.Duration{3 * time.Second}},
		{"Retry-After as a date", []int{503, 200}, map[int]string{0: "Tue, 14 Nov 2023 22:13:30 GMT"}, 1, true, 2, []time.Duration{10 * time.Second}},
		{"4xx is not retried", []int{400, 200}, nil, 3, false, 1, nil},
		// A receiver's 408 as it closes an idle kept-alive connection, met
		// by the call that went out on it: never processed, sent again.
		{"408 is retried", []int{408, 200}, nil, 1, true, 2, []time.Duration{200 * time.Millisecond}},
		{"no retries asked", []int{500, 200}, nil, 0, false, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				i := int(n.Add(1)) - 1
				if v, ok := tt.header[i]; ok {
					w.Header().Set("Retry-After", v)
				}
				w.WriteHeader(tt.statuses[i])
			}))
			defer srv.Close()
			vs := &virtualSleep{}
			d := newTestDeliverer(t, srv, tt.retries, vs)
			res := d.Deliver(context.Background(), &Request{Event: "E", Query: "businessType=E", Body: []byte(`{}`)})
			if res.OK != tt.ok || len(res.Attempts) != tt.attempts {
				t.Fatalf("ok %v after %d attempts, want %v after %d: %+v", res.OK, len(res.Attempts), tt.ok, tt.attempts, res.Attempts)
			}
			if len(vs.waits) != len(tt.wantWaits) {
				t.Fatalf("waits %v, want %v", vs.waits, tt.wantWaits)
			}
			for i := range vs.waits {
				if vs.waits[i] != tt.wantWaits[i] {
					t.Errorf("wait %d = %s, want %s", i, vs.waits[i], tt.wantWaits[i])
				}
			}
		})
	}
}

func TestBackoffGrowsWithJitterAndCaps(t *testing.T) {
	b := DefaultBackoff(func() float64 { return 0 })
	if got := b.Delay(1, 0); got != 100*time.Millisecond {
		t.Errorf("first retry with zero jitter waits %s, want 100ms", got)
	}
	b.Jitter = func() float64 { return 0.999 }
	prev := time.Duration(0)
	for n := 1; n <= 10; n++ {
		d := b.Delay(n, 0)
		if d < prev || d > b.Max {
			t.Errorf("retry %d waits %s (previous %s, cap %s)", n, d, prev, b.Max)
		}
		prev = d
	}
	if got := b.Delay(1, time.Hour); got != time.Minute {
		t.Errorf("Retry-After of an hour waits %s, want the 1m cap", got)
	}
}

func TestConnectionErrorsRetriedAndClassified(t *testing.T) {
	// Port 1: nothing listens there (a closed port may be another
	// parallel test's by the time it is called).
	addr := "127.0.0.1:1"
	c, _ := newTestClient(ClientOptions{Timeout: time.Second})
	u, _ := url.Parse("http://" + addr + "/")
	vs := &virtualSleep{}
	d := &Deliverer{Client: c, Target: u, Retries: 2, Backoff: DefaultBackoff(nil), Sleep: vs.sleep}
	res := d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
	if res.OK || len(res.Attempts) != 3 || res.Last().Kind != KindRefused {
		t.Fatalf("got ok=%v attempts=%+v, want 3 refused attempts", res.OK, res.Attempts)
	}
	if ShortError(res.Last()) != "connection refused" {
		t.Errorf("short error %q", ShortError(res.Last()))
	}
}

func TestMethodQueryHeadersBody(t *testing.T) {
	type seen struct {
		method, query, ct, custom, sigID string
		body                             []byte
	}
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.URL.RawQuery, r.Header.Get("Content-Type"), r.Header.Get("X-Tenant"), r.Header.Get("Webhook-Id"), b}
	}))
	defer srv.Close()
	d := newTestDeliverer(t, srv, 0, &virtualSleep{})
	d.Signer, _ = sign.NewSigner("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	body := []byte("{\"requestId\":\"r1\",\"businessType\":5007,\"data\":{\"收款单\":{}}}")
	res := d.Deliver(context.Background(), &Request{Query: "businessType=CREATE_RECEIVABLE_DOC", RequestID: "r1",
		Header: http.Header{"X-Tenant": {"7"}}, Body: body})
	s := <-got
	if !res.OK || s.method != "POST" || s.query != "businessType=CREATE_RECEIVABLE_DOC" || s.ct != "application/json" ||
		s.custom != "7" || s.sigID != "r1" || string(s.body) != string(body) {
		t.Errorf("receiver saw %+v (ok %v)", s, res.OK)
	}
	if sig := res.SentHeader.Get("Webhook-Signature"); sig != d.Signer.Signature("r1", 1700000000, body) {
		t.Errorf("signature header %q", sig)
	}
}

// A body without a requestId (send --unset requestId, to see the
// receiver refuse it) was signed with an empty webhook-id, which Standard
// Webhooks receivers refuse as a missing header before their own checks
// run: it gets the id replay --sign makes from the body.
func TestSignedWithoutRequestID(t *testing.T) {
	ids := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		ids <- r.Header.Get("Webhook-Id")
	}))
	defer srv.Close()
	d := newTestDeliverer(t, srv, 0, &virtualSleep{})
	d.Signer, _ = sign.NewSigner("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	body := []byte(`{"businessType":5007,"data":{}}`)
	req := &Request{Query: "businessType=CREATE_RECEIVABLE_DOC", Body: body}
	res := d.Deliver(context.Background(), req)
	want := (&Request{Body: body}).ReplayWebhookID(true)
	if got := <-ids; got != want || !strings.HasPrefix(got, "msg_") {
		t.Errorf("webhook-id %q, want %q, made from the body", got, want)
	}
	if sig := res.SentHeader.Get("Webhook-Signature"); sig != d.Signer.Signature(want, 1700000000, body) {
		t.Errorf("signature header %q, want one over the webhook-id sent", sig)
	}
}

func TestRedirects(t *testing.T) {
	var gets atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/moved", http.StatusFound) })
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			gets.Add(1)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	d := newTestDeliverer(t, srv, 0, &virtualSleep{})
	res := d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
	if res.OK || res.Last().Status != http.StatusFound || res.Last().Location != "/moved" || gets.Load() != 0 {
		t.Errorf("not following: ok=%v last=%+v gets=%d", res.OK, res.Last(), gets.Load())
	}
	c, _ := newTestClient(ClientOptions{Timeout: time.Second, FollowRedirects: true})
	d.Client = c
	res = d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
	if !res.OK || gets.Load() != 1 {
		t.Errorf("following: ok=%v gets=%d: the POST became a GET", res.OK, gets.Load())
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	c, _ := newTestClient(ClientOptions{Timeout: 50 * time.Millisecond})
	u, _ := url.Parse(srv.URL)
	d := &Deliverer{Client: c, Target: u}
	res := d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
	// The attempt's deadline is the only timer, the transport has none of
	// its own; the words say what went out and what came in place of
	// Client.Do's "awaiting headers" (TestTimeoutSaysWhatPassed).
	if res.OK || res.Last().Kind != KindTimeout || !strings.HasSuffix(res.Last().Err, "and no byte of an answer came") {
		t.Errorf("got %+v, want a timeout", res.Last())
	}
}

// A receiver over TLS that negotiates HTTP/2 (Go's own ListenAndServeTLS,
// most proxies) answers "HTTP/2.0": an answer, on every path that takes
// https, not a malformed HTTP/1 status line.
func TestHTTP2OverTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			http.Error(w, "not HTTP/2: "+r.Proto, http.StatusTeapot)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	for _, p := range paths {
		if p.worker {
			continue // the raw paths speak plain HTTP/1.1 only
		}
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewClient(ClientOptions{Timeout: 30 * time.Second, RootCAs: pool, FollowRedirects: p.follow})
			if err != nil {
				t.Fatal(err)
			}
			d := &Deliverer{Client: c, Target: u, KeepBody: p.keep}
			if a := d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}).Last(); a.Status != http.StatusAccepted {
				t.Errorf("got %+v, want the receiver's 202 over HTTP/2", a)
			}
		})
	}
}

func TestTLSWithPrivateCA(t *testing.T) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "whsim test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, _ := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	caCert, _ := x509.ParseCertificate(caDER)
	leafKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	leafDER, _ := x509.CreateCertificate(rand.Reader, leafTmpl, caCert, &leafKey.PublicKey, caKey)

	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}}}
	srv.StartTLS()
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	caPool := x509.NewCertPool()
	caPool.AddCert(caCert)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct {
		name string
		opts ClientOptions
		ok   bool
	}{
		// A generous bound: under -race on a loaded machine a handshake can
		// take over a second, and a timeout is retried where a certificate
		// error must not be.
		{"without the CA", ClientOptions{Timeout: 30 * time.Second}, false},
		{"with --cacert", ClientOptions{Timeout: 30 * time.Second, CAFile: caFile}, true},
		{"with --insecure", ClientOptions{Timeout: 30 * time.Second, Insecure: true}, true},
		{"with RootCAs holding the CA", ClientOptions{Timeout: 30 * time.Second, RootCAs: caPool}, true},
		{"with RootCAs not holding it", ClientOptions{Timeout: 30 * time.Second, RootCAs: x509.NewCertPool()}, false},
		{"with --cacert added to RootCAs", ClientOptions{Timeout: 30 * time.Second, RootCAs: x509.NewCertPool(), CAFile: caFile}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			d := &Deliverer{Client: c, Target: u, Retries: 3, Sleep: (&virtualSleep{}).sleep}
			res := d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
			if res.OK != tt.ok {
				t.Fatalf("ok %v, want %v: %+v", res.OK, tt.ok, res.Last())
			}
			if !tt.ok && (res.Last().Kind != KindTLS || len(res.Attempts) != 1) {
				t.Errorf("a certificate error is %+v after %d attempts, want tls, not retried", res.Last(), len(res.Attempts))
			}
		})
	}
	notPEM := filepath.Join(t.TempDir(), "not.pem")
	if err := os.WriteFile(notPEM, []byte("not pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := newTestClient(ClientOptions{CAFile: notPEM}); err != ErrNoCerts {
		t.Errorf("bad CA file: %v", err)
	}
	if _, err := newTestClient(ClientOptions{CAFile: notPEM + ".missing"}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing CA file: %v", err)
	}
}

func TestDirectTransportErrorsAsClientDo(t *testing.T) {
	// The transport is called directly when no redirect is followed; what
	// users read must not change: the same wrapped error as Client.Do,
	// the URL's credential masked either way (net/http strips a password
	// but keeps a user without one, the token of http://TOKEN@host).
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // refused from now on
	for _, tc := range []struct {
		user   *url.Userinfo
		secret string
	}{
		{url.UserPassword("me", "pw"), "pw"},
		{url.User("tok3n"), "tok3n"},
	} {
		u, _ := url.Parse(srv.URL + "/hook")
		u.User = tc.user
		direct, _ := newTestClient(ClientOptions{Timeout: time.Second})
		d := &Deliverer{Client: direct, Target: u}
		got := d.Deliver(context.Background(), &Request{Body: []byte(`{}`), Query: "businessType=A"}).Last()
		plain := &http.Client{Transport: direct.Transport.(directTransport).Transport, Timeout: time.Second}
		d = &Deliverer{Client: plain, Target: u}
		want := d.Deliver(context.Background(), &Request{Body: []byte(`{}`), Query: "businessType=A"}).Last()
		if got.Kind != KindRefused || got.Err != want.Err || strings.Contains(got.Err, tc.secret) || strings.Contains(want.Err, tc.secret) {
			t.Errorf("%s: direct %q (%s), Client.Do %q (%s)", tc.user, got.Err, got.Kind, want.Err, want.Kind)
		}
	}
}

// TestDirectTransportSendsURLUserinfoAsClientDo: a URL's user and
// password are sent as Basic auth, as Client.Do sends them, on the path
// that calls the transport directly too (it once dropped them: the
// receiver saw no credential, while the curl command check prints for the
// same URL sends one). An Authorization header given wins, as with Do.
func TestDirectTransportSendsURLUserinfoAsClientDo(t *testing.T) {
	t.Parallel()
	got := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Authorization")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/hook")
	u.User = url.UserPassword("me", "p:w")
	direct, _ := newTestClient(ClientOptions{Timeout: 5 * time.Second})
	plain := &http.Client{Transport: direct.Transport.(directTransport).Transport, Timeout: 5 * time.Second}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("me:p:w"))
	for _, tt := range []struct {
		name   string
		client *http.Client
		header http.Header
		signer bool
		want   string
	}{
		{"direct", direct, nil, false, basic},
		{"direct, a header of its own", direct, http.Header{"X-A": {"1"}}, false, basic},
		{"direct, signed", direct, nil, true, basic},
		{"Client.Do", plain, nil, false, basic},
		{"direct, Authorization given", direct, http.Header{"Authorization": {"Bearer t"}}, false, "Bearer t"},
		{"Client.Do, Authorization given", plain, http.Header{"Authorization": {"Bearer t"}}, false, "Bearer t"},
	} {
		d := &Deliverer{Client: tt.client, Target: u}
		if tt.signer {
			d.Signer, _ = sign.NewSigner("whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef")))
		}
		res := d.Deliver(context.Background(), &Request{Body: []byte(`{}`), Query: "businessType=A", Header: tt.header})
		if a := res.Last(); a.Status != 200 {
			t.Fatalf("%s: %+v", tt.name, a)
		}
		if auth := <-got; auth != tt.want {
			t.Errorf("%s: Authorization %q, want %q", tt.name, auth, tt.want)
		}
	}
}

// A delivery that Ctrl-C stops in its backoff made only the calls the
// receiver got: the attempt it was waiting for is no retry in the stats
// (sendout's TestInterruptedInTheBackoffReport checks the report says so).
func TestInterruptedInTheBackoffCountsOnlyCallsMade(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(503)
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := newTestDeliverer(t, srv, 5, &virtualSleep{})
	waits := 0
	d.Sleep = func(ctx context.Context, _ time.Duration) error {
		if waits++; waits == 2 {
			cancel() // Ctrl-C in the second backoff
		}
		return ctx.Err()
	}
	res := d.Deliver(ctx, &Request{Event: "E", RequestID: "id-1", Query: "businessType=E", Body: []byte(`{}`)})
	if got := calls.Load(); got != 2 || res.Tries() != 2 {
		t.Fatalf("receiver got %d calls, result says %d tries; want 2 and 2", got, res.Tries())
	}
}

// --follow-redirects takes the call's credential headers along to the same
// origin only: to another host (or port, or scheme) every header the
// masking list names is dropped, those net/http drops itself and those it
// would forward (X-Api-Key, X-Auth-Token, the signature); the others stay.
// A credential in the URL's query goes no further either: net/http would
// send the first URL, query and all, as the Referer.
func TestRedirectsDropCredentialsAcrossHosts(t *testing.T) {
	creds := []string{"Authorization", "Cookie", "X-Api-Key", "X-Auth-Token", "Webhook-Signature", "X-Session-Id"}
	seen := make(chan http.Header, 2)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen <- r.Header.Clone() }))
	defer other.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/here", func(w http.ResponseWriter, r *http.Request) { seen <- r.Header.Clone() })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, _ := newTestClient(ClientOptions{Timeout: 5 * time.Second, FollowRedirects: true})
	u, _ := url.Parse(srv.URL + "/hook?token=secret-in-the-query")
	d := &Deliverer{Client: c, Target: u}
	for _, tt := range []struct {
		to   string
		kept bool
	}{{"/here", true}, {other.URL + "/there", false}} {
		h := http.Header{"X-Tenant": {"7"}}
		for _, k := range creds {
			h.Set(k, "secret-"+k)
		}
		res := d.Deliver(context.Background(), &Request{Query: "to=" + url.QueryEscape(tt.to), Header: h, Body: []byte(`{}`)})
		if !res.OK {
			t.Fatalf("redirect to %s: %+v", tt.to, res.Last())
		}
		got := <-seen
		for _, k := range creds {
			if (got.Get(k) != "") != tt.kept {
				t.Errorf("redirect to %s: %s %q, want kept %v", tt.to, k, got.Get(k), tt.kept)
			}
		}
		if got.Get("X-Tenant") != "7" {
			t.Errorf("redirect to %s: X-Tenant dropped", tt.to)
		}
		if !tt.kept {
			for k, vs := range got {
				for _, v := range vs {
					if strings.Contains(v, "secret-in-the-query") {
						t.Errorf("redirect to %s: %s: %q carries the query's credential", tt.to, k, v)
					}
				}
			}
		}
	}
}

// closedUnanswered makes a call again only for net/http's own error for a
// connection the receiver closed before the call, however it is wrapped,
// and only on a reused connection; a reset or an error that merely quotes
// the text is the receiver's.
func TestClosedUnanswered(t *testing.T) {
	idle := errors.New("http: server closed idle connection")
	for _, tc := range []struct {
		name   string
		err    error
		reused bool
		want   bool
	}{
		{"bare on a reused connection", idle, true, true},
		{"wrapped by the client", &url.Error{Op: "Post", URL: "http://127.0.0.1/", Err: idle}, true, true},
		{"wrapped twice", fmt.Errorf("attempt: %w", &url.Error{Op: "Post", URL: "http://127.0.0.1/", Err: idle}), true, true},
		{"on a new connection", idle, false, false},
		{"connection reset", errors.New("read tcp 127.0.0.1:1->127.0.0.1:2: read: connection reset by peer"), true, false},
		{"the text inside another error", errors.New("receiver said: http: server closed idle connection"), true, false},
	} {
		if got := closedUnanswered(tc.err, tc.reused); got != tc.want {
			t.Errorf("%s: closedUnanswered(%v, %v) = %v, want %v", tc.name, tc.err, tc.reused, got, tc.want)
		}
	}
}

// ShortError drops Go's wrapping of an error, not the receiver's bytes an
// error quotes, which may hold ": " themselves.
func TestShortError(t *testing.T) {
	for _, tt := range []struct {
		a    Attempt
		want string
	}{
		{Attempt{Kind: KindRefused, Err: `Post "http://127.0.0.1:1/h": dial tcp 127.0.0.1:1: connect: connection refused`}, "connection refused"},
		{Attempt{Kind: KindOther, Err: `Post "http://127.0.0.1:9/h": net/http: HTTP/1.x transport connection broken: malformed MIME header line: "X-A: a\x00b"`},
			`error: malformed MIME header line: "X-A: a\x00b"`},
		{Attempt{Kind: KindOther, Err: `Post "http://127.0.0.1:9/h": malformed HTTP status line "HTTP/1.1 2000: OK\r\n"`},
			`error: malformed HTTP status line "HTTP/1.1 2000: OK\r\n"`},
		{Attempt{Kind: KindOther, Err: `Post "http://127.0.0.1:9/h?a=\"b\": c": unsupported transfer encoding: "gzip, chunked"`},
			`error: unsupported transfer encoding: "gzip, chunked"`},
		{Attempt{Kind: KindOther, Err: `Post "http://127.0.0.1:9/h": http: message cannot contain multiple Content-Length headers; got ["2" "5"]`},
			`error: message cannot contain multiple Content-Length headers; got ["2" "5"]`},
		{Attempt{Kind: KindOther, Err: `something without wrapping: x`}, "error: something without wrapping: x"},
		{Attempt{Kind: KindDNS, Err: `Post "http://nohost.invalid/h": dial tcp: lookup nohost.invalid: no such host`}, "dns: no such host"},
		{Attempt{Kind: KindLocal, Err: `Post "http://127.0.0.1:9/h": dial tcp 127.0.0.1:9: socket: too many open files`}, "local: socket: too many open files"},
		{Attempt{Kind: KindTimeout, Err: `Post "https://127.0.0.1:9/h": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`}, "timeout"},
		{Attempt{Kind: KindTimeout, Err: `Post "https://127.0.0.1:9/h": ` + noStreamWords + `: the receiver allows no stream at once (SETTINGS_MAX_CONCURRENT_STREAMS 0)`},
			"timeout: " + noStreamWords + ": the receiver allows no stream at once (SETTINGS_MAX_CONCURRENT_STREAMS 0)"},
	} {
		if got := ShortError(tt.a); got != tt.want {
			t.Errorf("ShortError(%q) = %q, want %q", tt.a.Err, got, tt.want)
		}
	}
}

// TestResetIsNoTimeoutOnALoadedMachine: a receiver that resets the
// connection before its time limit is said to have, however long a loaded
// machine holds the attempt between the error and the look at its
// deadline (once past by then, any error was called a timeout: "the
// receiver did not answer in time" of one that cut the call off).
func TestResetIsNoTimeoutOnALoadedMachine(t *testing.T) {
	for _, tt := range []struct {
		name, answer string
	}{
		{"before the answer", ""},
		{"in the answer's body", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"ok\""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				buf := make([]byte, 4096)
				got := ""
				for !strings.Contains(got, "\r\n\r\n{}") {
					n, err := c.Read(buf)
					if err != nil {
						break
					}
					got += string(buf[:n])
				}
				c.Write([]byte(tt.answer))
				c.(*net.TCPConn).SetLinger(0) // a reset, not a close
				c.Close()
			}()
			c, err := newTestClient(ClientOptions{Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse("http://" + ln.Addr().String())
			// The scheduler's pause: held until the deadline has passed
			// (an event, not a sleep), after the reset came.
			d := &Deliverer{Client: c, Target: u, pause: func(ctx context.Context) { <-ctx.Done() }}
			a := d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}).Last()
			if a.Kind == KindTimeout || a.BodyKind == KindTimeout || strings.Contains(a.Err, "Timeout") {
				t.Errorf("got %+v, want the reset, not a timeout", a)
			}
			// The reset: before the answer, or as its body was read (an
			// answer cut short). net/http's transport reads a reset before
			// the answer as EOF at times (1 run in 40, at 469abcf too): a
			// connection closed unanswered, which is no timeout either.
			netHTTPClosed := !fastPathOn() && a.Kind == KindClosed
			if a.Kind != KindReset && a.BodyKind != KindReset && !a.Truncated && !netHTTPClosed {
				t.Errorf("got %+v, want the reset", a)
			}
		})
	}
}

// A receiver that answers 408 as it closes a kept-alive connection (its
// idle timeout), met by the call that went out on it, never had that
// call: it is made again on a new connection within its attempt, on every
// path, and spends none of --retries (it was a counted retry, after an
// attempt that said 408; TestKeptAlive408ClosingIsNoAnswer has it on
// every transport, without retries).
func TestKeptAlive408IsSentAgain(t *testing.T) {
	const timedOut = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
	const calls = 3
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			srv := newScriptServer(t, func(k int, _ []byte) (string, bool, bool, bool) {
				if k == 0 {
					return ok200, false, false, false
				}
				return timedOut, true, false, false
			})
			c, err := newTestClient(ClientOptions{Timeout: 5 * time.Second, Concurrency: 1, FollowRedirects: p.follow})
			if err != nil {
				t.Fatal(err)
			}
			vs := &virtualSleep{}
			d := &Deliverer{Client: c, Target: srv.url(), KeepBody: p.keep, Retries: 1, Backoff: DefaultBackoff(func() float64 { return 1 }), Sleep: vs.sleep}
			var got [][]int
			next := func(r *Result) {
				var statuses []int
				for _, a := range r.Attempts {
					statuses = append(statuses, a.Status)
				}
				got = append(got, statuses)
			}
			if p.worker {
				asWorker(d, templates("A", 1), calls, next)
			} else {
				for range calls {
					next(d.Deliver(context.Background(), &Request{Body: []byte(`{}`)}))
				}
			}
			for i, statuses := range got {
				if !slices.Equal(statuses, []int{200}) {
					t.Errorf("call %d: answers %v, want 200 alone", i+1, statuses)
				}
			}
			// Each call after the first met the 408, then went out anew.
			if n := srv.got.Load(); n != 1+2*(calls-1) {
				t.Errorf("the receiver read %d calls, want %d", n, 1+2*(calls-1))
			}
		})
	}
}

// A redirect whsim will not follow through (a loop past maxRedirects, a
// Location that is not http or https) is the receiver's configuration,
// not a passing fault: retrying it only sends the call around the loop
// again; so is one off this machine from a receiver on it. Such an
// attempt is not retried and its kind says redirect.
func TestRedirectsThatCannotEndAreNotRetried(t *testing.T) {
	var calls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Redirect(w, r, r.URL.String(), http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/ftp", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Location", "ftp://files.example/in")
		w.WriteHeader(http.StatusPermanentRedirect)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Redirect(w, r, "http://192.0.2.1/in", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/localhost", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Redirect(w, r, "http://localhost:"+r.URL.Query().Get("port")+"/away", http.StatusTemporaryRedirect)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	for _, tt := range []struct {
		path, words string
		calls       int32
	}{
		{"/loop", "stopped after 10 redirects", maxRedirects},
		{"/ftp", `redirected to "ftp://files.example/in"`, 1},
		// A receiver on this machine is followed on it (localhost), never
		// off it: before, the call went to 192.0.2.1, body and all.
		{"/away", `redirected to "http://192.0.2.1/in", off this machine`, 1},
		{"/localhost?port=" + port, `redirected to "http://192.0.2.1/in", off this machine`, 2},
	} {
		calls.Store(0)
		vs := &virtualSleep{}
		d := newTestDeliverer(t, srv, 3, vs)
		c, _ := newTestClient(ClientOptions{Timeout: 2 * time.Second, FollowRedirects: true})
		d.Client = c
		d.Target, _ = url.Parse(srv.URL + tt.path)
		res := d.Deliver(context.Background(), &Request{Body: []byte(`{}`)})
		last := res.Last()
		if res.OK || len(res.Attempts) != 1 || len(vs.waits) != 0 {
			t.Errorf("%s: ok=%v attempts=%d waits=%v, want one failed attempt and no retry", tt.path, res.OK, len(res.Attempts), vs.waits)
		}
		if last.Kind != KindRedirect || !strings.Contains(ShortError(last), tt.words) {
			t.Errorf("%s: kind %q, error %q; want %q saying %q", tt.path, last.Kind, ShortError(last), KindRedirect, tt.words)
		}
		if got := calls.Load(); got != tt.calls {
			t.Errorf("%s: the receiver got %d calls, want %d", tt.path, got, tt.calls)
		}
	}
}
