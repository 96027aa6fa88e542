package whsimtest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

// testSecret signs the runs that test the signature check.
const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// defect is one mistake a receiver makes in what it answers or stores;
// careful makes none.
type defect string

const (
	careful defect = ""
	// storesAgain inserts every create, its re-deliveries too.
	storesAgain defect = "stores re-deliveries"
	// raceCopies checks, then inserts without a lock or unique key: copies
	// arriving together all pass the check.
	raceCopies defect = "check-then-insert race"
	// ignoresVoids answers 2xx to a void and never applies it.
	ignoresVoids defect = "ignores voids"
	// refusesSample answers 422 to the spec's sample shape.
	refusesSample defect = "refuses the sample shape"
	// dedupesOnRequestID holds a requestId once, and the document as many
	// times as it comes under new requestIds.
	dedupesOnRequestID defect = "de-duplicates on requestId only"
	// dropsLines stores each document without its lines (a header row
	// whose lines' insert failed unnoticed): its probe counts 0 lines.
	dropsLines defect = "stores no lines"
)

// raceWindow is how long the racing receiver waits, after its check, for
// a second copy of the same document to pass the check too before it
// inserts: the time a slow insert leaves open. A second copy ends the wait
// at once, and while another call of the same document is in the handler
// the wait goes on, so copies sent together (under one requestId or new
// ones) always race; a lone call pays it once.
const raceWindow = 50 * time.Millisecond

// shop is a receiver written the way users write one: it verifies the
// signature (with the Standard Webhooks library), validates the call,
// and keeps each document by its number in a map; its probe reads the
// map. With a defect it makes that one mistake.
type shop struct {
	d   defect
	val *validate.Validator
	wh  *standardwebhooks.Webhook

	mu      sync.Mutex
	seen    map[string]bool          // requestIds processed
	rows    map[string][]*row        // kind/code -> the records held
	waiting map[string]chan struct{} // raceCopies: documents checked and not yet inserted
	inside  map[string]int           // raceCopies: calls in the handler, by kind/code
}

type row struct {
	state string
	lines int
	stub  bool // left by a follow-up that came before its create
}

func newShop(t testing.TB, d defect, secret string) *shop {
	t.Helper()
	v, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := &shop{d: d, val: v, seen: map[string]bool{}, rows: map[string][]*row{}, waiting: map[string]chan struct{}{}, inside: map[string]int{}}
	if secret != "" {
		if s.wh, err = standardwebhooks.NewWebhook(secret); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func (s *shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	if s.wh != nil {
		if err := s.wh.Verify(body, r.Header); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
	}
	event := r.URL.Query().Get("businessType")
	e, ok := spec.Lookup(event)
	if !ok {
		http.Error(w, "unknown businessType", http.StatusBadRequest)
		return
	}
	if fs := s.val.Check(body, event); s.val.Failed(fs) {
		http.Error(w, "invalid: "+fs[0].Message, http.StatusBadRequest)
		return
	}
	var env struct {
		RequestID    string         `json:"requestId"`
		BusinessType int            `json:"businessType"`
		Data         map[string]any `json:"data"`
	}
	_ = json.Unmarshal(body, &env)
	kind, code, lines, sample := docOf(e, env.Data)
	key := kind + "/" + code
	if s.d == raceCopies {
		// Counted by document, not requestId: copies sent at once under
		// new requestIds are in the handler together as well.
		s.mu.Lock()
		s.inside[key]++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.inside[key]--
			s.mu.Unlock()
		}()
	}
	if s.d == refusesSample && sample {
		http.Error(w, "unexpected fields", http.StatusUnprocessableEntity)
		return
	}
	if s.d == dropsLines {
		lines = 0
	}
	w.WriteHeader(s.apply(env.RequestID, event, key, lines))
}

// docOf reads the document a call carries: its kind, number, lines, and
// whether it is in the sample shape (records, hidden receipt fields).
func docOf(e spec.Event, data map[string]any) (kind, code string, lines int, sample bool) {
	if e.Kind == spec.Receipt {
		hdr, _ := data[spec.ReceiptHeader].(map[string]any)
		code, _ = hdr["收款单编号"].(string)
		ls, _ := data[spec.ReceiptLines].([]any)
		for _, l := range ls {
			line, _ := l.(map[string]any)
			for k := range line {
				sample = sample || strings.HasSuffix(k, "-隐")
			}
		}
		return "receipt", code, len(ls), sample
	}
	code, _ = data["code"].(string)
	ls, _ := data[spec.FieldItems].([]any)
	if rs, ok := data[spec.FieldRecords].([]any); ok {
		ls, sample = rs, true
	}
	return "invoice", code, len(ls), sample
}

// apply stores one call and says what to answer.
func (s *shop) apply(id, event, key string, lines int) int {
	follow := event == "AUDIT_PURCHASE_ORDER_INVOICE" || event == "ABANDON_RECEIVABLE_DOC"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[id] && s.d != storesAgain && s.d != raceCopies {
		return http.StatusOK
	}
	s.seen[id] = true
	rows := s.rows[key]
	switch {
	case !follow && len(rows) > 0 && rows[0].stub:
		// A stub an early audit or void left: the create fills in its
		// lines and never takes its state back.
		rows[0].lines, rows[0].stub = lines, false
	case !follow && (s.d == storesAgain || s.d == dedupesOnRequestID):
		// Insert, looking for nothing but a stub.
		s.rows[key] = append(rows, &row{state: Created, lines: lines})
	case !follow && s.d == raceCopies:
		if len(rows) > 0 {
			return http.StatusOK
		}
		// Checked: not held. Insert after a slow moment, without the
		// lock; a second copy checking meanwhile ends the moment.
		ch, other := s.waiting[key]
		if other {
			close(ch)
			delete(s.waiting, key)
		} else {
			ch = make(chan struct{})
			s.waiting[key] = ch
			for met := false; !met; {
				s.mu.Unlock()
				select {
				case <-ch:
					met = true
				case <-time.After(raceWindow):
				}
				s.mu.Lock()
				// Alone in the handler: no other copy is coming to the
				// check now.
				met = met || s.inside[key] <= 1
			}
			if s.waiting[key] == ch {
				delete(s.waiting, key)
			}
		}
		s.rows[key] = append(s.rows[key], &row{state: Created, lines: lines})
	case !follow && len(rows) > 0:
		// Held already: an upsert on the document number.
		rows[0].lines = lines
	case !follow:
		s.rows[key] = []*row{{state: Created, lines: lines}}
	case s.d == ignoresVoids && event == "ABANDON_RECEIVABLE_DOC":
	case len(rows) > 0:
		rows[len(rows)-1].state = stateAfter(event)
	default:
		// A follow-up before its create: kept as a stub in its state.
		s.rows[key] = []*row{{state: stateAfter(event), stub: true}}
	}
	return http.StatusOK
}

func stateAfter(event string) string {
	if event == "ABANDON_RECEIVABLE_DOC" {
		return Voided
	}
	return Audited
}

// probe reads the map, as a team's probe reads its own store.
func (s *shop) probe(_ context.Context, d Document) (Stored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rows := s.rows[d.Kind+"/"+d.Code]
	if len(rows) == 0 {
		return Stored{}, nil
	}
	last := rows[len(rows)-1]
	return Stored{Count: len(rows), State: last.state, Lines: last.lines}, nil
}
