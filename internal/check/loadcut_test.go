package check

import (
	"bufio"
	"context"
	"io"
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
