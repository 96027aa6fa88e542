package check

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
)

// A receiver whose every answer has a status from 600 to 999 (well-formed
// three digits HTTP defines no meaning for; net/http's server writes one)
// answered each call: on net/http's transport and on the fast path alike
// the run is no "cannot reach" or "no HTTP answer", and every check that
// wants 2xx or 4xx fails on its status, said as it is and as a sender
// takes it (a 5xx, RFC 9110 15), in the same words on both.
func TestStatusBeyond599FailsAsA5xx(t *testing.T) {
	for _, status := range []int{600, 999} {
		var reasons [2]map[string]string
		for i, netHTTP := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/net/http %v", status, netHTTP), func(t *testing.T) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(status)
				}))
				defer srv.Close()
				cfg := testConfig(t, srv.URL)
				c, err := attempt.NewClient(attempt.ClientOptions{Timeout: callTimeout, Concurrency: 16, NetHTTP: netHTTP})
				if err != nil {
					t.Fatal(err)
				}
				cfg.Client, cfg.Checks = c, []string{acceptsValid, rejectsMalformed, UnknownEvent}
				var mu sync.Mutex
				reasons[i] = map[string]string{}
				sum, err := Run(context.Background(), cfg, func(r Result) {
					mu.Lock()
					defer mu.Unlock()
					reasons[i][r.Case.Check+"/"+r.Case.Name] = string(r.Verdict) + " " + r.Reason
					if r.Verdict != Fail {
						t.Errorf("%s/%s: %s %q, want a failure", r.Case.Check, r.Case.Name, r.Verdict, r.Reason)
					}
					if want := fmt.Sprintf("got %d (no status HTTP defines: a sender takes it as a 5xx)", status); !strings.HasPrefix(r.Reason, want) {
						t.Errorf("%s/%s: reason %q, want it to start %q", r.Case.Check, r.Case.Name, r.Reason, want)
					}
				})
				if err != nil {
					t.Fatalf("run: %v, want every case judged on its answer", err)
				}
				if !sum.Failed() {
					t.Error("the run passed")
				}
			})
		}
		if fmt.Sprint(reasons[0]) != fmt.Sprint(reasons[1]) {
			t.Errorf("%d: the transports differ:\nfast path: %v\nnet/http:  %v", status, reasons[0], reasons[1])
		}
	}
}

// Three characters that are no status from 100 to 999 ("000", "099",
// "2x0") make a malformed answer, not an answer with a status, on
// net/http's transport and on the fast path alike: the case whose call got
// one fails in the same words on both, and its JSON record says what its
// result says (status 0, the reason whole).
func TestMalformedStatusSaidAlikeOnBothTransports(t *testing.T) {
	for _, status := range []string{"000", "099", "2x0"} {
		var reasons [2]string
		for i, netHTTP := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/net/http %v", status, netHTTP), func(t *testing.T) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.Copy(io.Discard, r.Body)
					if r.URL.Query().Get("businessType") != "CREATE_RECEIVABLE_DOC" {
						return
					}
					conn, bw, err := http.NewResponseController(w).Hijack()
					if err != nil {
						t.Error(err)
						return
					}
					defer conn.Close()
					bw.WriteString("HTTP/1.1 " + status + " X\r\nContent-Length: 2\r\n\r\nok")
					bw.Flush()
				}))
				defer srv.Close()
				cfg := testConfig(t, srv.URL)
				c, err := attempt.NewClient(attempt.ClientOptions{Timeout: callTimeout, Concurrency: 16, NetHTTP: netHTTP})
				if err != nil {
					t.Fatal(err)
				}
				cfg.Client, cfg.Checks, cfg.Signer = c, []string{acceptsValid}, nil
				_, results, err := run(t, context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				var sample *Result
				for i := range results {
					if results[i].Case.Name == "CREATE_RECEIVABLE_DOC/sample" {
						sample = &results[i]
					}
				}
				if sample == nil {
					t.Fatalf("no CREATE_RECEIVABLE_DOC/sample: %+v", results)
				}
				want := "a malformed answer (the receiver's answer is not valid HTTP: malformed HTTP status code \"" + status
				if sample.Verdict != Fail || !strings.HasPrefix(sample.Reason, want) {
					t.Errorf("%s %q, want a failure saying %q", sample.Verdict, sample.Reason, want)
				}
				var rec struct {
					Status int    `json:"status"`
					Reason string `json:"reason"`
				}
				if err := json.Unmarshal(reported(t, &Reporter{Target: cfg.Target}, *sample), &rec); err != nil {
					t.Fatal(err)
				}
				if rec.Status != 0 || rec.Reason != sample.Reason {
					t.Errorf("JSON record: status %d, reason %q; want 0 and the result's reason", rec.Status, rec.Reason)
				}
				reasons[i] = sample.Reason
			})
		}
		if reasons[0] != reasons[1] {
			t.Errorf("%s: the fast path says %q, net/http's %q", status, reasons[0], reasons[1])
		}
	}
}
