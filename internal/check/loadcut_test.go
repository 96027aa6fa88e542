package check

import (
	"bufio"
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A load some calls of which got 503 and others 2xx cut short fails for
// the 503s, and its reason says the answers cut short too: with a
// failure beside them they were left out, and the calls the reason
// counted did not add up to those that failed a sender (60 got 503, 60
// malformed of 300, with 60 more 2xx cut short said nowhere). Found by
// ck47.
func TestLoadFailureSaysTheAnswersCutShortToo(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch n.Add(1) % 3 {
		case 0:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 1:
			c, buf, err := http.NewResponseController(w).Hijack()
			if err != nil {
				return
			}
			writeCut(buf)
			c.Close()
		}
	}))
	defer srv.Close()
	cfg := testConfig(t, srv.URL)
	cfg.Checks = []string{Load}
	_, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	load := ofCheck(results, Load)
	if len(load) != 1 || load[0].Verdict != Fail {
		t.Fatalf("load %+v, want one case, failed", load)
	}
	for _, want := range []string{" got 503", " calls got 2xx but the answer was cut short before its declared length"} {
		if !strings.Contains(load[0].Reason, want) {
			t.Errorf("reason %q, want it to say %q", load[0].Reason, want)
		}
	}
}

// writeCut writes a 200 that declares 100 bytes of body and has 5.
func writeCut(buf *bufio.ReadWriter) {
	_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort")
	_ = buf.Flush()
}

// The load's figures count what its reason says (LoadStats): a receiver
// answering 503 with a body over the bound is counted by status, and not
// as a 2xx over the bound, which the reason said of every such call
// ("64 of 64 calls got 2xx but the answer body is over 1 MiB") beside
// the 503s: an oversized answer was counted whatever its status.
func TestLoadStatsCountWhatTheReasonSays(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 2<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, big)
	}))
	defer srv.Close()
	cfg := testConfig(t, srv.URL)
	cfg.Checks = []string{Load}
	sum, results, err := run(t, context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	load := ofCheck(results, Load)
	if len(load) != 1 || load[0].Verdict != Fail {
		t.Fatalf("load %+v, want one case, failed", load)
	}
	if strings.Contains(load[0].Reason, "got 2xx") {
		t.Errorf("reason %q says 2xx of calls that got 503", load[0].Reason)
	}
	l := sum.Load
	if l == nil {
		t.Fatal("no load figures")
	}
	if want := map[int]int{503: l.Calls}; l.Calls == 0 || !maps.Equal(l.FailedByStatus, want) || len(l.FailedByError) != 0 || l.OverBound2xx != 0 || l.CutShort2xx != 0 {
		t.Errorf("load figures %+v, want every call counted a 503 and nothing else", *l)
	}
}
