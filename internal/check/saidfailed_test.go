package check

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
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

// emptyProbe is a probe that holds no document.
type emptyProbe struct{}

func (emptyProbe) Ask(context.Context, probe.Question) (probe.Answer, error) {
	return probe.Answer{Lines: -1, Raw: `{"count":0}`}, nil
}

func (emptyProbe) Command(probe.Question) string { return "true" }

// The rerun of an effects document the receiver answered 200 saying it
// failed, and stored nothing of, says what the run's reason says: the
// receiver's own 2xx answers said the call failed. It said only that the
// probe answered count 0 (found by ck47, left for the rerun).
func TestRerunEffectsReceiverSaidItFailed(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"success":false,"message":"not stored"}`)
	}))
	t.Cleanup(srv.Close)
	body := `{"requestId":"8f1c2a34-0000-4000-8000-000000000001","businessType":4000,"data":{"code":"CGFP00000001"}}`
	cases := []Failed{{Check: Effects, Name: "created/CREATE_PURCHASE_ORDER_INVOICE/sample", Effects: &EffectsRecord{
		Kind: "invoice", Code: "CGFP00000001", Event: "CREATE_PURCHASE_ORDER_INVOICE", RequestID: "8f1c2a34-0000-4000-8000-000000000001", WantLines: -1,
		Calls: []EffectsCall{{Event: "CREATE_PURCHASE_ORDER_INVOICE", Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE", Body: body, BodyEncoding: "utf8", Copies: 1}},
	}}}
	var out []RerunResult
	cfg := RerunConfig{Client: srv.Client(), Target: mustURL(t, srv.URL+"/hook"), Now: time.Now, Probe: emptyProbe{}, IDs: reqid.NewIDs(1)}
	if err := Rerun(context.Background(), cfg, cases, func(r RerunResult) { out = append(out, r) }); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Outcome != StillFailing {
		t.Fatalf("%+v, want one still failing", out)
	}
	const want = `holds nothing for it, as the receiver said: its calls got 2xx, but the body of each said the call failed ("success": false); the ERP takes any 2xx as delivered and never sends the call again`
	if !strings.Contains(out[0].Reason, want) {
		t.Errorf("reason %q\nwant it to say %q", out[0].Reason, want)
	}
	if !strings.Contains(out[0].Reason, `the probe answered {"count":0}, want held once; calls: 1. CREATE_PURCHASE_ORDER_INVOICE got 200`) {
		t.Errorf("reason %q lost the probe's answer or the calls", out[0].Reason)
	}
}
