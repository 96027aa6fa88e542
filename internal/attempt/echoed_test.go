package attempt

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/sign"
)

// echoServer answers every call 401 with its credentials quoted in the
// status line's reason, a header of its own and the body, after pad dots
// (?pad=): a receiver's error page that echoes the request.
func echoServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		pad, _ := strconv.Atoi(r.URL.Query().Get("pad"))
		auth := r.Header.Get("Authorization")
		echo := fmt.Sprintf("%s%s; signature %s; url %s; %s", strings.Repeat(".", pad), auth,
			r.Header.Get("Webhook-Signature"), r.URL.RequestURI(), body)
		conn, bw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		fmt.Fprintf(bw, "HTTP/1.1 401 Refused %s\r\nX-Echoed: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
			auth, auth, len(echo), echo)
		bw.Flush()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// What the receiver answered is masked with the run's credentials on
// every path an answer is read on: the status line, the headers and the
// body kept (-v), and the start of the body a failure line shows,
// including a credential the start cuts in two (?pad=190 puts the token
// across MaxBodyPrefix).
func TestAnswerMasksTheCallsCredentials(t *testing.T) {
	t.Parallel()
	srv := echoServer(t)
	signer, err := sign.NewSigner("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"s3cr3t-t", "q-t0ken", "v1,"}
	for _, p := range paths {
		for _, pad := range []int{0, 190} {
			t.Run(p.name+"/pad "+strconv.Itoa(pad), func(t *testing.T) {
				t.Parallel()
				c, err := newTestClient(ClientOptions{Timeout: 10 * time.Second, Concurrency: 1, FollowRedirects: p.follow})
				if err != nil {
					t.Fatal(err)
				}
				u, _ := url.Parse(srv.URL + "/hook?token=q-t0ken-77&pad=" + strconv.Itoa(pad))
				d := &Deliverer{Client: c, Target: u, KeepBody: p.keep, KeepFailed: true, Signer: signer}
				res := deliverWithToken(d, p.worker)
				a := res.Last()
				if a.Status != http.StatusUnauthorized || !a.BodyCut == (pad > 0) {
					t.Fatalf("got %+v", a)
				}
				shown := map[string]string{"the body's start": string(a.BodyPrefix), "the status line": a.StatusLine,
					"the headers": fmt.Sprint(a.Header), "the kept headers": fmt.Sprint(res.RespHeader), "the kept body": string(res.RespBody)}
				if !p.keep {
					delete(shown, "the kept headers") // not shown without -v, not masked
				}
				for what, text := range shown {
					for _, s := range secrets {
						if strings.Contains(text, s) {
							t.Errorf("%s holds %q: %q", what, s, text)
						}
					}
				}
				if pad == 0 && !strings.HasPrefix(string(a.BodyPrefix), "Bearer ****; signature ****; url /hook?token=****&pad=0") {
					t.Errorf("the body's start is %q", a.BodyPrefix)
				}
				if p.keep && (a.StatusLine != "401 Refused Bearer ****" || a.Header.Get("X-Echoed") != "Bearer ****") {
					t.Errorf("status %q, header %q", a.StatusLine, a.Header.Get("X-Echoed"))
				}
			})
		}
	}
}

// An answer to a call without a credential costs no allocation for the
// masking: a load run's failures keep their body's start (KeepFailed), and
// without a credential given nothing is looked for in it.
func TestMaskWithoutCredentialsAllocatesNothing(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:1/hook")
	d := &Deliverer{Client: &http.Client{}, Target: u}
	tg, err := d.urlFor("businessType=A")
	if err != nil {
		t.Fatal(err)
	}
	res := &Result{SentHeader: http.Header{"Content-Type": {"application/json"}}}
	a := Attempt{Status: 500, BodyPrefix: []byte(`{"error":"down"}`)}
	if n := testing.AllocsPerRun(100, func() { d.mask(&a, tg, res) }); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}

// A malformed answer's error quotes the bytes it refused (net/http's
// "malformed HTTP status code ..."): an answer that echoes the call's
// token there has it masked, on every path.
func TestMalformedAnswerMasksTheCallsCredentials(t *testing.T) {
	t.Parallel()
	// The answer quotes the token the call carries, as an echo would.
	srv := newScriptServer(t, func(int, []byte) (string, bool, bool, bool) {
		return "HTTP/1.1 s3cr3t-token Refused\r\nContent-Length: 0\r\n\r\n", true, false, false
	})
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			c, err := newTestClient(ClientOptions{Timeout: 10 * time.Second, Concurrency: 1, FollowRedirects: p.follow})
			if err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse("http://" + srv.ln.Addr().String() + "/hook")
			d := &Deliverer{Client: c, Target: u, KeepBody: p.keep, KeepFailed: true}
			a := deliverWithToken(d, p.worker).Last()
			if a.Kind != KindMalformed || !strings.Contains(a.Err, "****") || strings.Contains(a.Err, "s3cr3t") {
				t.Errorf("got %s %q", a.Kind, a.Err)
			}
		})
	}
}

// deliverWithToken makes one call carrying "Authorization: Bearer
// s3cr3t-token", as a worker does (worker) or as Deliver does.
func deliverWithToken(d *Deliverer, worker bool) *Result {
	h := http.Header{"Authorization": {"Bearer s3cr3t-token"}}
	if !worker {
		return d.Deliver(context.Background(), &Request{Body: []byte(`{}`), Header: h, RequestID: "r-1"})
	}
	var res *Result
	pool := templates("A", 1)
	pool[0][0].Header = h
	asWorker(d, pool, 1, func(r *Result) { res = r })
	return res
}
