package check

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A receiver that answers every call 200 with a body saying it failed
// ({"success":false}) and stores nothing: effects' cases say the
// receiver's own answers said so, not that the probe may be wrong (it
// answered 404 for every document, rightly) nor that the documents were
// acknowledged and lost, as of a receiver that said nothing of it; the
// summary's figures do not doubt the probe either. Found by ck47.
func TestEffectsReceiverSaidItFailed(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.NotFound(w, r) // holds nothing
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"success":false,"message":"not stored"}`)
	}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Checks, cfg.Settle = []string{acceptsValid, Load, Effects}, 0
	sum, results := runAll(t, cfg)
	if sum.Effects == nil || sum.Effects.ProbeNotFound {
		t.Errorf("effects stats %+v: the probe doubted, though the receiver said every call failed", sum.Effects)
	}
	if sum.Effects != nil && sum.Effects.SaidFailed != `"success": false` {
		t.Errorf("effects stats %+v, want SaidFailed `\"success\": false`", sum.Effects)
	}
	failed := 0
	for _, r := range ofCheck(results, Effects) {
		if r.Verdict != Fail {
			continue
		}
		failed++
		const want = `its calls got 2xx, but the body of each said the call failed ("success": false)`
		if !strings.Contains(r.Reason, want) {
			t.Errorf("%s: reason %q, want it to say %q", r.Case.Name, r.Reason, want)
		}
		for _, not := range []string{"the probe itself may be wrong", "acknowledged and lost"} {
			if strings.Contains(r.Reason, not) {
				t.Errorf("%s: reason %q says %q", r.Case.Name, r.Reason, not)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no effects case failed")
	}
}
