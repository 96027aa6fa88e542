package whsimtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/cli"
)

// calls records every call a handler got, byte for byte: method, URI,
// header and body, one string each.
type calls struct {
	mu   sync.Mutex
	seen []string
}

func (c *calls) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s\n", r.Method, r.RequestURI)
		for _, k := range slices.Sorted(maps.Keys(r.Header)) {
			v := r.Header[k]
			if k == "Webhook-Timestamp" || k == "Webhook-Signature" {
				// Made at the moment of sending: each run's own. The
				// webhook-id and whether there is a signature still count.
				v = []string{fmt.Sprintf("(%d values)", len(v))}
			}
			fmt.Fprintf(&b, "%s: %q\n", k, v)
		}
		b.Write(body)
		c.mu.Lock()
		c.seen = append(c.seen, b.String())
		c.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

// sorted is the calls in a fixed order: copies at once and the load's
// calls come in any order.
func (c *calls) sorted() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(slices.Values(c.seen))
}

// probeRoute serves the shop's probe over HTTP for whsim check --probe.
func (s *shop) probeRoute(w http.ResponseWriter, r *http.Request) {
	st, _ := s.probe(r.Context(), Document{Kind: r.URL.Query().Get("kind"), Code: r.URL.Query().Get("code")})
	_ = json.NewEncoder(w).Encode(map[string]any{"count": st.Count, "state": st.State, "lines": st.Lines})
}

// For one seed, whsim check and Check send the same calls, byte for
// byte, and reach the same verdicts: they run one battery. The CLI goes
// over TCP (and its raw-socket fast path), Check through ServeHTTP.
func TestCLIAndPackageAgree(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		d      defect
		secret string
	}{{refusesSample, ""}, {storesAgain, ""}, {dropsLines, ""}, {careful, testSecret}} {
		d, secret := tt.d, tt.secret
		t.Run(strings.ReplaceAll(string(d)+" "+secret, " ", "-"), func(t *testing.T) {
			t.Parallel()
			// whsim check, against the shop on a port.
			overTCP := &calls{}
			s := newShop(t, d, secret)
			mux := http.NewServeMux()
			mux.Handle("POST /hooks", overTCP.wrap(s))
			mux.HandleFunc("GET /probe", s.probeRoute)
			srv := httptest.NewServer(mux)
			defer srv.Close()
			var out, errOut bytes.Buffer
			args := []string{"check", "--url", srv.URL + "/hooks?tenant=7", "--seed", "7", "--fixed-ids",
				"--settle", "0", "--probe", srv.URL + "/probe?kind={kind}&code={code}", "--output", "json", "--no-color", "--latency-budget", "10s"}
			// The latency budget is the time limit: neither verdict rests
			// on how fast a loaded machine ran the test.
			opts := []Option{WithSeed(7), WithFixedIDs(), WithSettle(0), WithPath("/hooks?tenant=7"), WithLatencyBudget(10 * time.Second)}
			wantCode := 1 // failed
			if secret != "" {
				args = append(args, "--secret", secret)
				opts = append(opts, WithSecret(secret))
				wantCode = 0
			}
			code := cli.Main(context.Background(), args, cli.Streams{Out: &out, Err: &errOut}, cli.Build{})
			if code != wantCode {
				t.Fatalf("whsim check exited %d, want %d\n%s", code, wantCode, errOut.String())
			}
			cliVerdicts := map[string]string{}
			sc := bufio.NewScanner(&out)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var rec struct{ Check, Case, Verdict string }
				if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Check != "" && rec.Case != "" {
					cliVerdicts[rec.Check+"/"+rec.Case] = rec.Verdict
				}
			}

			// Check, against a fresh shop in memory.
			inMemory := &calls{}
			s = newShop(t, d, secret)
			r := record("TestShop", func(t tb) { checkHandler(t, inMemory.wrap(s), append(opts, WithProbe(s.probe))) })
			pkgVerdicts := map[string]string{}
			for _, n := range r.leaves() {
				c := r.find(n)
				switch {
				case c.skipped && strings.Contains(c.skipMsg, "inconclusive"):
					pkgVerdicts[n] = "warn" // a case not judged: whsim check's warning
				case c.skipped:
					continue // signature: no secret; the CLI says nothing of it per case
				case c.failed:
					pkgVerdicts[n] = "fail"
				case slices.ContainsFunc(c.logs, func(l string) bool { return strings.HasPrefix(l, "warn: ") }):
					pkgVerdicts[n] = "warn"
				default:
					pkgVerdicts[n] = "pass"
				}
			}

			a, b := overTCP.sorted(), inMemory.sorted()
			if len(a) != len(b) || len(a) < 400 {
				t.Fatalf("whsim check sent %d calls, Check %d", len(a), len(b))
			}
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("call %d of %d differs:\nwhsim check: %.600s\nCheck:       %.600s", i, len(a), a[i], b[i])
				}
			}
			if !maps.Equal(cliVerdicts, pkgVerdicts) {
				for k, v := range cliVerdicts {
					if pkgVerdicts[k] != v {
						t.Errorf("%s: whsim check %s, Check %q", k, v, pkgVerdicts[k])
					}
				}
				for k, v := range pkgVerdicts {
					if _, ok := cliVerdicts[k]; !ok {
						t.Errorf("%s: Check %s, whsim check none", k, v)
					}
				}
			}
			if failed := slices.Contains(slices.Collect(maps.Values(pkgVerdicts)), "fail"); failed != (d != careful) {
				t.Errorf("a case failed: %v, want %v: %v", failed, d != careful, pkgVerdicts)
			}
		})
	}
}
