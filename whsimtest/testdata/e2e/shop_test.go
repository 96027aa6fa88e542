// Package shop is a receiver team's module, as the end-to-end test of
// whsimtest builds it: a handler written without whsim's help (it checks
// little of what it reads) and its test calling whsimtest.Check.
package shop

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/whsim/whsim/whsimtest"
)

type store struct {
	calls atomic.Int64
	mu    sync.Mutex
	docs  map[string]*doc // kind/code
}

type doc struct {
	state string
	lines int
}

func (s *store) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.calls.Add(1)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	var env struct {
		Data struct {
			Code    string `json:"code"`
			Items   []any  `json:"items"`
			Records []any  `json:"records"`
			Receipt struct {
				Code string `json:"收款单编号"`
			} `json:"收款单"`
			Lines []any `json:"收款明细"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	key, lines, state := "", 0, ""
	switch r.URL.Query().Get("businessType") {
	case "CREATE_PURCHASE_ORDER_INVOICE":
		key, lines, state = "invoice/"+env.Data.Code, len(env.Data.Items)+len(env.Data.Records), whsimtest.Created
	case "AUDIT_PURCHASE_ORDER_INVOICE":
		key, state = "invoice/"+env.Data.Code, whsimtest.Audited
	case "CREATE_RECEIVABLE_DOC":
		key, lines, state = "receipt/"+env.Data.Receipt.Code, len(env.Data.Lines), whsimtest.Created
	case "ABANDON_RECEIVABLE_DOC":
		key, state = "receipt/"+env.Data.Receipt.Code, whsimtest.Voided
	default:
		http.Error(w, "unknown businessType", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[key]
	switch {
	case d == nil:
		s.docs[key] = &doc{state: state, lines: lines}
	case state == whsimtest.Created:
		d.lines = lines // a re-delivery, or the create after an early audit or void
	default:
		d.state = state
	}
	w.WriteHeader(http.StatusOK)
}

func (s *store) probe(_ context.Context, d whsimtest.Document) (whsimtest.Stored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if x := s.docs[d.Kind+"/"+d.Code]; x != nil {
		return whsimtest.Stored{Count: 1, State: x.state, Lines: x.lines}, nil
	}
	return whsimtest.Stored{}, nil
}

func TestReceiver(t *testing.T) {
	s := &store{docs: map[string]*doc{}}
	t.Cleanup(func() { t.Logf("the handler got %d calls", s.calls.Load()) })
	whsimtest.Check(t, s, whsimtest.WithProbe(s.probe), whsimtest.WithSeed(5), whsimtest.WithSettle(0))
}
