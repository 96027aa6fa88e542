package check

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/spec"
)

// storeDefects are the mistakes a receiver can make in what it stores,
// one flag each; none set is the careful receiver.
type storeDefects struct {
	storesAgain    bool // inserts every create, re-deliveries too
	raceCopies     bool // checks, then inserts, without a lock
	neverVoids     bool // answers 2xx to a void and does nothing
	reviveVoided   bool // a late create sets a voided document back to created
	loseEarlyAudit bool // answers 2xx to an audit of an unknown document and drops it
	keepFewLines   bool // keeps the first fewLines lines
	// appendsLines keeps each document once but inserts its lines with
	// every delivery of its create (the header upserted, the lines
	// inserted): a re-delivery adds them again.
	appendsLines bool
	extraLine    bool // stores one line more than sent
	dropBusy     bool // answers 2xx and drops documents while busy
	// dropFollowBusy answers 2xx to a void or audit while busy and drops
	// it: the document is kept once, in the state its create left.
	dropFollowBusy bool
	refuseEarly    bool          // 409 to an audit or void of an unknown document (careful too)
	storeAfter     time.Duration // stores from a queue this long after answering (careful too)
	// storeOnAsk stores from a queue that only the probe moves: the
	// first ask about a document finds nothing and then stores its first
	// call, each later ask stores every call of it that came since. With
	// storesAgain, copies land after the first was found held once, on
	// any machine however slow (a clock-timed queue stored the first copy
	// before the first ask when the calls were slow, and the run never
	// asked again).
	storeOnAsk bool
	// copiesOnAsk stores a call at once, but one whose requestId it has
	// seen (a copy) only after the probe is asked about its document:
	// with storesAgain, held once when first asked, with nothing late
	// about any other call of the run.
	copiesOnAsk bool
	// backlog is a queue's worker that takes this long over each call,
	// in the order they came: documents sent last are stored last, and
	// late.
	backlog  time.Duration
	unsigned bool // verifies no signature (the run signs nothing)
	// keysOnRequestID de-duplicates on requestId alone: a create under a
	// requestId not seen inserts a row, even of a document held (a stub
	// an early audit or void left is filled in, as the careful one does).
	keysOnRequestID bool
	// voidInserts stores a void of a held receipt as a record of its
	// own, voided, beside the created one.
	voidInserts bool
	// losesReceipts answers 2xx to every receipt call and stores none,
	// busy or not (as one reading the header under a mis-decoded key);
	// losesInvoices does so with every invoice.
	losesReceipts, losesInvoices bool
	// voidDeletes answers 2xx to a void of a held receipt and deletes it,
	// where it should mark it voided.
	voidDeletes bool
	// routesOnBodyNumber takes the event from the body's businessType,
	// not the query's: 4000, which the sample shape carries for a create
	// and an audit alike, reads as a create, so a sample-shape audit of a
	// held invoice is a create already held.
	routesOnBodyNumber bool
}

const fewLines = 20

// store is a receiver that keeps documents the way users write one, with
// a debug endpoint implementing the probe: GET /probe/{kind}/{code}.
type store struct {
	base     *receiver // verifies signatures and validates calls
	d        storeDefects
	inflight atomic.Int32
	queue    chan job
	// atOnce holds raceCopies' copies at once between check and insert;
	// nil holds none.
	atOnce *copiesAtOnce

	mu   sync.Mutex
	seen map[string]bool   // requestIds processed
	rows map[string][]*row // kind/code -> the rows stored
	// asked serializes storeOnAsk's probe answers: an ask reads what is
	// held and stores what waited before the next ask reads.
	asked   sync.Mutex
	pending map[string][]job // kind/code -> calls storeOnAsk holds
	found   map[string]bool  // kind/code -> asked about before
	arrived map[string]bool  // requestIds copiesOnAsk has had a call of
}

type row struct {
	state string
	lines int
	// created: a create made or filled it (not a stub of an early audit
	// or void).
	created bool
}

type job struct {
	at                    time.Time
	id, kind, code, event string
	lines                 int
}

func newStore(t *testing.T, d storeDefects) *store {
	s := &store{base: newReceiver(t, defects{}), d: d, seen: map[string]bool{}, rows: map[string][]*row{}, pending: map[string][]job{}, found: map[string]bool{}, arrived: map[string]bool{}}
	if d.backlog > 0 {
		s.queue = make(chan job, 4096)
		go func() {
			for j := range s.queue {
				time.Sleep(d.backlog)
				s.apply(context.Background(), j)
			}
		}()
		t.Cleanup(func() { close(s.queue) })
	}
	if d.storeAfter > 0 {
		// One worker takes jobs in the order they came, each storeAfter
		// after its call was answered.
		s.queue = make(chan job, 4096)
		go func() {
			for j := range s.queue {
				time.Sleep(time.Until(j.at.Add(d.storeAfter)))
				s.apply(context.Background(), j)
			}
		}()
		t.Cleanup(func() { close(s.queue) })
	}
	return s
}

func (s *store) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method == http.MethodGet && strings.HasPrefix(req.URL.Path, "/probe/") {
		s.probe(w, strings.TrimPrefix(req.URL.Path, "/probe/"))
		return
	}
	if s.d.dropBusy {
		n := s.inflight.Add(1)
		defer s.inflight.Add(-1)
		time.Sleep(5 * time.Millisecond) // the work that makes it busy
		if n > 3 {
			w.WriteHeader(http.StatusOK)
			return
		}
	}
	if ev := req.URL.Query().Get("businessType"); s.d.dropFollowBusy && (ev == "AUDIT_PURCHASE_ORDER_INVOICE" || ev == "ABANDON_RECEIVABLE_DOC") {
		n := s.inflight.Add(1)
		defer s.inflight.Add(-1)
		time.Sleep(5 * time.Millisecond) // the work that makes it busy, as dropBusy's
		if n > 3 {
			w.WriteHeader(http.StatusOK)
			return
		}
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 16<<20))
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	if !s.d.unsigned && !s.base.verify(req.Header, body) {
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	event := req.URL.Query().Get("businessType")
	e, ok := spec.Lookup(event)
	if !ok || s.base.val.Failed(s.base.val.Check(body, event)) {
		http.Error(w, "invalid", http.StatusBadRequest)
		return
	}
	var env struct {
		RequestID    string         `json:"requestId"`
		BusinessType int            `json:"businessType"`
		Data         map[string]any `json:"data"`
	}
	_ = json.Unmarshal(body, &env)
	if s.d.routesOnBodyNumber && env.BusinessType == spec.SampleInvoiceNumber {
		event = "CREATE_PURCHASE_ORDER_INVOICE"
	}
	if s.d.losesReceipts && e.Kind == spec.Receipt || s.d.losesInvoices && e.Kind == spec.Invoice {
		w.WriteHeader(http.StatusOK)
		return
	}
	j := job{at: time.Now(), id: env.RequestID, kind: probe.KindWord(e.Kind), event: event}
	var lines []any
	if e.Kind == spec.Receipt {
		hdr, _ := env.Data[spec.ReceiptHeader].(map[string]any)
		j.code, _ = hdr["收款单编号"].(string)
		lines, _ = env.Data[spec.ReceiptLines].([]any)
	} else {
		j.code, _ = env.Data["code"].(string)
		lines, _ = env.Data[spec.FieldItems].([]any)
		if records, ok := env.Data[spec.FieldRecords].([]any); ok {
			lines = records
		}
	}
	j.lines = len(lines)
	if s.d.storeOnAsk || s.d.copiesOnAsk {
		s.mu.Lock()
		key := j.kind + "/" + j.code
		hold := s.d.storeOnAsk || s.arrived[j.id]
		if hold {
			s.pending[key] = append(s.pending[key], j)
		}
		s.arrived[j.id] = true
		s.mu.Unlock()
		if hold {
			w.WriteHeader(http.StatusOK)
			return
		}
	}
	if s.queue != nil {
		s.queue <- j
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(s.apply(req.Context(), j))
}

// apply stores one call and says what to answer; ctx is the call's.
func (s *store) apply(ctx context.Context, j job) int {
	key := j.kind + "/" + j.code
	follow := j.event == "AUDIT_PURCHASE_ORDER_INVOICE" || j.event == "ABANDON_RECEIVABLE_DOC"
	atOnce := s.d.raceCopies && s.atOnce != nil && s.atOnce.arrive()
	if s.d.keepFewLines {
		j.lines = min(j.lines, fewLines)
	}
	if s.d.extraLine {
		j.lines++
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[j.id] && !s.d.storesAgain && !s.d.raceCopies && !s.d.appendsLines {
		return http.StatusOK
	}
	rows := s.rows[key]
	switch {
	case !follow && s.d.storesAgain:
		s.rows[key] = append(rows, &row{probe.StateCreated, j.lines, true})
	case !follow && s.d.raceCopies:
		if len(rows) > 0 {
			return http.StatusOK
		}
		// Check, then insert later without holding the lock: copies
		// arriving together all pass the check.
		s.mu.Unlock()
		if atOnce {
			s.atOnce.checkedThenWait(ctx, key)
		}
		s.mu.Lock()
		s.rows[key] = append(s.rows[key], &row{probe.StateCreated, j.lines, true})
	case !follow && s.d.keysOnRequestID && len(rows) > 0 && rows[0].created:
		s.rows[key] = append(rows, &row{probe.StateCreated, j.lines, true})
	case !follow && s.d.appendsLines && len(rows) > 0 && rows[0].created:
		rows[0].lines += j.lines
	case !follow && len(rows) > 0:
		// A stub an early audit or void left: the create fills it in and
		// never takes its state back.
		rows[0].lines, rows[0].created = j.lines, true
		if s.d.reviveVoided {
			rows[0].state = probe.StateCreated
		}
	case !follow:
		s.rows[key] = []*row{{probe.StateCreated, j.lines, true}}
	case s.d.neverVoids && j.event == "ABANDON_RECEIVABLE_DOC":
	case s.d.voidDeletes && j.event == "ABANDON_RECEIVABLE_DOC" && len(rows) > 0:
		delete(s.rows, key)
	case s.d.voidInserts && j.event == "ABANDON_RECEIVABLE_DOC" && len(rows) > 0:
		s.rows[key] = append(rows, &row{probe.StateVoided, j.lines, true})
	case len(rows) > 0:
		rows[0].state = stateAfter(j.event)
	case s.d.refuseEarly:
		return http.StatusConflict
	case s.d.loseEarlyAudit && j.event == "AUDIT_PURCHASE_ORDER_INVOICE":
	default:
		s.rows[key] = []*row{{stateAfter(j.event), j.lines, false}}
	}
	s.seen[j.id] = true
	return http.StatusOK
}

func stateAfter(event string) string {
	if event == "ABANDON_RECEIVABLE_DOC" {
		return probe.StateVoided
	}
	return probe.StateAudited
}

func (s *store) probe(w http.ResponseWriter, key string) {
	onAsk := s.d.storeOnAsk || s.d.copiesOnAsk
	if onAsk {
		s.asked.Lock()
		defer s.asked.Unlock()
	}
	s.mu.Lock()
	rows := s.rows[key]
	var last row
	if len(rows) > 0 {
		last = *rows[len(rows)-1]
	}
	var store []job
	if onAsk {
		store = s.pending[key]
		if s.d.storeOnAsk && !s.found[key] && len(store) > 1 {
			store = store[:1]
		}
		s.pending[key] = s.pending[key][len(store):]
		s.found[key] = true
	}
	s.mu.Unlock()
	for _, j := range store {
		s.apply(context.Background(), j)
	}
	if len(rows) == 0 {
		http.NotFound(w, nil)
		return
	}
	fmt.Fprintf(w, `{"count":%d,"state":%q,"lines":%d,"note":"ignored"}`, len(rows), last.state, last.lines)
}

func probeConfig(t *testing.T, srvURL string) Config {
	t.Helper()
	cfg := testConfig(t, srvURL)
	p, err := probe.ParseURL(srvURL+"/probe/{kind}/{code}", cfg.Client, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Probe = p
	return cfg
}

func runAll(t *testing.T, cfg Config) (*Summary, []Result) {
	t.Helper()
	var mu sync.Mutex
	var results []Result
	sum, err := Run(context.Background(), cfg, func(r Result) {
		mu.Lock()
		defer mu.Unlock()
		results = append(results, r)
	})
	if err != nil {
		t.Fatal(err)
	}
	sayInconclusive(t, results)
	return sum, results
}

// TestEffects: the careful receivers pass every check, effects included;
// each receiver with a storage defect fails effects, and only effects,
// with a reason that names the defect.
func TestEffects(t *testing.T) {
	tests := []struct {
		name   string
		d      storeDefects
		settle time.Duration
		reason string // "" for a receiver that passes
		// only, when set, a regular expression, matches the name of
		// every effects case that fails, and of failing cases alone;
		// onlyN is how many fail.
		only  string
		onlyN int
	}{
		{"careful", storeDefects{}, 0, "", "", 0},
		{"careful, refusing early follow-ups", storeDefects{refuseEarly: true}, 0, "", "", 0},
		{"stores 400ms after answering", storeDefects{storeAfter: 400 * time.Millisecond}, DefaultSettle, "", "", 0},
		{"stores a re-delivery again", storeDefects{storesAgain: true}, 0, "a re-delivery (same requestId, same document) was stored again", "", 0},
		// From a queue, the first copy of a document after the first ask
		// about it, the others after the next: held once when first
		// found, it is held more than once before the settle time is out.
		{"stores a re-delivery again, late", storeDefects{storesAgain: true, storeOnAsk: true}, DefaultSettle, "a re-delivery (same requestId, same document) was stored again", "", 0},
		{"check-then-insert race", storeDefects{raceCopies: true}, 0, "checks, then inserts, without a lock", "", 0},
		{"never voids", storeDefects{neverVoids: true}, 0, "the void was acknowledged and never applied", "", 0},
		{"late create revives a void", storeDefects{reviveVoided: true}, 0, "the late create revived the voided document", "", 0},
		{"loses an early audit", storeDefects{loseEarlyAudit: true}, 0, "an audit answered 200 before its create was lost", "", 0},
		{"keeps the first lines", storeDefects{keepFewLines: true}, 0, "holds 20 lines of the 300 sent", "", 0},
		// Held once, its lines once per delivery: "each document held
		// once, whole" judged the re-delivered documents on their count
		// alone, and this receiver passed.
		// One line too many on every document, re-delivered ones too:
		// no copy of the lines, whatever the deliveries.
		{"stores a line too many", storeDefects{extraLine: true}, 0, "holds 3 lines of the 2 sent: it stored lines the document was not sent with", "", 0},
		{"adds the lines again with each re-delivery", storeDefects{appendsLines: true}, 0,
			"lines of the 2 sent, in one record of a document its calls delivered 4 times: its lines were stored again by a later call (the document kept once, its lines inserted with each)", "re-delivered/", 10},
		{"drops documents while busy", storeDefects{dropBusy: true}, 0, "drops or doubles documents while busy", "", 0},
		{"deletes a voided receipt", storeDefects{voidDeletes: true}, 0, "holds nothing for it after ABANDON_RECEIVABLE_DOC answered 200, though created/CREATE_RECEIVABLE_DOC/described is held: the ABANDON_RECEIVABLE_DOC removed the document instead of marking it voided", "", 0},
		// The requestId trap: the same document under new requestIds.
		// (The run is signed: a receiver keyed on webhook-id is this one.)
		{"de-duplicates on requestId alone", storeDefects{keysOnRequestID: true}, 0, "the receiver de-duplicates on requestId (or on webhook-id, which each signed call carries the same), not on the document", "/" + newRequestID + "-", 4},
		// An audit in the sample shape carries 4000, as a create does:
		// only the query says it is an audit.
		{"routes on the body number", storeDefects{routesOnBodyNumber: true}, 0, "is created after an audit answered 200: the audit was acknowledged and never applied; its body carried businessType 4000, as a create's sample body does: a receiver that takes the event from the body number, not from the query's businessType, reads it as a create", "/after-create-sample$|^under-load/", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStore(t, tt.d)
			srv := httptest.NewServer(st)
			defer srv.Close()
			cfg := probeConfig(t, srv.URL)
			cfg.Settle = tt.settle
			if tt.d.raceCopies {
				st.atOnce = newCopiesAtOnce(cfg.Concurrent)
				cfg.copyHeld = st.atOnce.held
			}
			sum, results := runAll(t, cfg)
			if len(sum.Order) != len(IDs()) {
				t.Fatalf("ran %v, want every check", sum.Order)
			}
			wantFail := tt.reason != ""
			for _, id := range sum.Order {
				tally := sum.Checks[id]
				if failed := tally.Fail > 0; failed != (wantFail && id == Effects) {
					t.Errorf("check %s: %+v, want failing only effects: %v", id, *tally, wantFail)
					for _, r := range results {
						if r.Case.Check == id && r.Verdict != Pass {
							t.Logf("  %s %s: %s", r.Verdict, r.Case.Name, r.Reason)
						}
					}
				}
			}
			if sum.Effects == nil || sum.Effects.Documents != 20+32 || sum.Effects.LoadProbed != 32 {
				t.Errorf("effects figures %+v, want 20 documents and the 32 of load probed", sum.Effects)
			}
			if tt.only != "" {
				n := 0
				for _, r := range results {
					if r.Case.Check != Effects {
						continue
					}
					if failed := r.Verdict == Fail; failed != regexp.MustCompile(tt.only).MatchString(r.Case.Name) {
						t.Errorf("%s: %s %q, want failing only the cases named %q", r.Case.Name, r.Verdict, r.Reason, tt.only)
					} else if failed {
						n++
					}
				}
				if n != tt.onlyN {
					t.Errorf("%d effects cases named %q failed, want %d", n, tt.only, tt.onlyN)
				}
			}
			if !wantFail {
				return
			}
			found := false
			for _, r := range results {
				if r.Case.Check != Effects || r.Verdict != Fail {
					continue
				}
				found = found || strings.Contains(r.Reason, tt.reason)
				// Copies at once doubled whether or not they shared a
				// requestId: a race, not the requestId trap.
				if tt.d.raceCopies && strings.Contains(r.Case.Name, newRequestID+"-concurrent") &&
					(!strings.Contains(r.Reason, "as it did when they shared one") || strings.Contains(r.Reason, "de-duplicates on requestId")) {
					t.Errorf("%s: %q, want the race named, not the requestId trap", r.Case.Name, r.Reason)
				}
				// A receiver that stores every delivery stored the copies
				// in turn under one requestId again too: neither a race
				// between copies at once nor the requestId trap, and
				// naming either sends its author to the wrong fix.
				if tt.d.storesAgain && strings.Contains(r.Case.Name, "re-delivered/") && !strings.HasSuffix(r.Case.Name, "/serial-x4") && !strings.HasSuffix(r.Case.Name, "/sender-retry") &&
					(!strings.Contains(r.Reason, "it stores every delivery") || strings.Contains(r.Reason, "de-duplicates on requestId") || strings.Contains(r.Reason, "checks, then inserts")) {
					t.Errorf("%s: %q, want every delivery stored named, not a race or the requestId trap", r.Case.Name, r.Reason)
				}
				// One line too many is no copy of the lines, on a document
				// delivered once or eight times.
				if tt.d.extraLine && (!strings.Contains(r.Reason, "it stored lines the document was not sent with") || strings.Contains(r.Reason, "its lines were stored again")) {
					t.Errorf("%s: %q, want lines not sent named, not lines stored again", r.Case.Name, r.Reason)
				}
				for _, want := range []string{"calls: 1. ", "the probe answered "} {
					if !strings.Contains(r.Reason, want) {
						t.Errorf("%s: reason %q holds no %q", r.Case.Name, r.Reason, want)
					}
				}
				if !strings.Contains(r.Reason, "invoice CGFP-") && !strings.Contains(r.Reason, "receipt SKD-") {
					t.Errorf("%s: reason %q names no document", r.Case.Name, r.Reason)
				}
				if !strings.Contains(r.Repro, "curl -sS") || !strings.Contains(r.Repro, "/probe/") {
					t.Errorf("%s: reproduction %q lacks the calls or the probe", r.Case.Name, r.Repro)
				}
			}
			if !found {
				t.Errorf("no effects failure says %q", tt.reason)
				for _, r := range results {
					if r.Case.Check == Effects && r.Verdict != Pass {
						t.Logf("  %s %s: %s", r.Verdict, r.Case.Name, r.Reason)
					}
				}
			}
		})
	}
}

// TestEffectsLoadDoublingIsLifecycle: a receiver that stores each void as
// a record of its own doubles every voided load document; the reason names
// the lifecycle defect the same run found, not load.
func TestEffectsLoadDoublingIsLifecycle(t *testing.T) {
	srv := httptest.NewServer(newStore(t, storeDefects{voidInserts: true}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Checks, cfg.Settle = []string{Load, Effects}, 0
	_, results := runAll(t, cfg)
	var lifecycle, load *Result
	for i, r := range results {
		switch {
		case r.Case.Check != Effects || r.Verdict != Fail:
		case r.Case.Name == "lifecycle/ABANDON_RECEIVABLE_DOC/after-create":
			lifecycle = &results[i]
		case strings.HasPrefix(r.Case.Name, "under-load/"):
			load = &results[i]
		}
	}
	if lifecycle == nil || !strings.Contains(lifecycle.Reason, "the ABANDON_RECEIVABLE_DOC was stored as a record of its own") {
		t.Errorf("lifecycle: %+v, want a failure naming the void stored as a record", lifecycle)
	}
	if load == nil || !strings.Contains(load.Reason, "each of them was sent ABANDON_RECEIVABLE_DOC after its create, and lifecycle/ABANDON_RECEIVABLE_DOC/after-create") ||
		strings.Contains(load.Reason, "while busy") {
		t.Errorf("under-load: %+v, want the lifecycle defect named, not load", load)
	}
}

// TestEffectsLoadLossIsNotLoad: a receiver that loses every receipt (or
// every document), busy or not, loses the load's too; the reason names the
// cases sent without load that lost them the same way, not load.
func TestEffectsLoadLossIsNotLoad(t *testing.T) {
	tests := []struct {
		name string
		d    storeDefects
		want string
	}{
		{"loses receipts", storeDefects{losesReceipts: true},
			"16 held not at all of 32 documents the load check delivered and got 2xx for (every one probed): each of them is a receipt, and created/CREATE_RECEIVABLE_DOC/described, sent on its own without load, was not held either: the receiver loses receipts busy or not, not a fault under load; first: receipt SKD-"},
		{"loses everything", storeDefects{losesReceipts: true, losesInvoices: true},
			"32 held not at all of 32 documents the load check delivered and got 2xx for (every one probed): each of them is an invoice or a receipt, and created/CREATE_PURCHASE_ORDER_INVOICE/described and created/CREATE_RECEIVABLE_DOC/described, each sent on its own without load, were not held either: the receiver loses invoices and receipts busy or not, not a fault under load; " +
				// Every question answered 404: the probe may be wrong too.
				"but the probe answered 404 for every one of the 52 documents asked about, though the receiver answered 2xx to its calls: the probe itself may be wrong (a --probe URL template that matches no route of the receiver's gets 404 too: ask it about a document the receiver holds), or the receiver lost every one; first: "},
		// A void that deletes the receipt: every voided load receipt is
		// gone, as the lifecycle case's is, busy or not.
		{"void deletes", storeDefects{voidDeletes: true},
			"16 held not at all of 32 documents the load check delivered and got 2xx for (every one probed): each of them was sent ABANDON_RECEIVABLE_DOC after its create, and lifecycle/ABANDON_RECEIVABLE_DOC/after-create, sent on its own without load, was not held after it either: the ABANDON_RECEIVABLE_DOC removes the document it applies to, busy or not, not a fault under load; first: receipt SKD-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			load := underLoad(t, tt.d)
			switch {
			case load == nil || load.Verdict != Fail:
				t.Errorf("under-load: %+v, want it failed", load)
			case !strings.Contains(load.Reason, tt.want) || strings.Contains(load.Reason, "while busy"):
				t.Errorf("under-load: %s\nwant the loss without load named (%q), not load", load.Reason, tt.want)
			}
		})
	}
}

// underLoad runs the load and effects checks, with no settling, against
// a store with defects d and returns the effects case of the load's
// documents (nil when there is none).
func underLoad(t *testing.T, d storeDefects) *Result {
	t.Helper()
	srv := httptest.NewServer(newStore(t, d))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Checks, cfg.Settle = []string{Load, Effects}, 0
	_, results := runAll(t, cfg)
	for i, r := range results {
		if r.Case.Check == Effects && strings.HasPrefix(r.Case.Name, "under-load/") {
			return &results[i]
		}
	}
	return nil
}

// TestEffectsLoadUnapplied: a load document held once is not kept when
// the void or audit that followed its create got 2xx and was not applied;
// the reason says what it was held as, and names the lifecycle case when
// that one, sent alone, was not applied either.
func TestEffectsLoadUnapplied(t *testing.T) {
	tests := []struct {
		name string
		d    storeDefects
		want []string
		not  string
	}{
		{"drops follow-ups while busy", storeDefects{dropFollowBusy: true},
			[]string{" held once but not in the state their last call left (", ", want ", "the receiver acknowledged calls while busy and did not apply them; first: "}, "sent on its own"},
		{"never voids", storeDefects{neverVoids: true},
			[]string{"16 held once but not in the state their last call left (created, want voided) of 32 documents", "each of them was sent ABANDON_RECEIVABLE_DOC after its create, and lifecycle/ABANDON_RECEIVABLE_DOC/after-create, sent on its own without load, was not applied either"}, "while busy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			load := underLoad(t, tt.d)
			if load == nil || load.Verdict != Fail {
				t.Fatalf("under-load: %+v, want it failed", load)
			}
			for _, w := range tt.want {
				if !strings.Contains(load.Reason, w) {
					t.Errorf("under-load: %s\nwant %q", load.Reason, w)
				}
			}
			if strings.Contains(load.Reason, tt.not) || strings.Contains(load.Reason, "held more than once") {
				t.Errorf("under-load: %s\nwant no %q, nothing held more than once", load.Reason, tt.not)
			}
		})
	}
}

// TestEffectsSecondRun: a receiver keeps what earlier runs sent it; with a
// fresh nonce, a second run of the same seed is judged on its own
// documents and passes again.
func TestEffectsSecondRun(t *testing.T) {
	srv := httptest.NewServer(newStore(t, storeDefects{}))
	defer srv.Close()
	for nonce := uint64(1); nonce <= 2; nonce++ {
		cfg := probeConfig(t, srv.URL)
		cfg.Checks, cfg.Nonce = []string{Load, Effects}, nonce
		sum, results := runAll(t, cfg)
		if sum.Failed() {
			for _, r := range results {
				if r.Verdict == Fail {
					t.Logf("  %s: %s", r.Case.Name, r.Reason)
				}
			}
			t.Fatalf("run %d failed", nonce)
		}
	}
}

// TestEffectsSkipped: without a probe, effects says in one result what it
// would have proved and how to turn it on.
func TestEffectsSkipped(t *testing.T) {
	srv := httptest.NewServer(newStore(t, storeDefects{}))
	defer srv.Close()
	cfg := testConfig(t, srv.URL)
	cfg.Checks = []string{Effects}
	sum, results := runAll(t, cfg)
	if len(results) != 1 || results[0].Verdict != Skip || !strings.Contains(results[0].Reason, "--probe <url-template> or --probe-cmd") {
		t.Fatalf("results %+v, want one skip naming the flags", results)
	}
	if sum.Failed() || sum.Checks[Effects].Skipped == "" {
		t.Errorf("summary %+v, want effects skipped, not failed", sum.Checks[Effects])
	}
}

// TestEffectsExcludeCases: --exclude-cases leaves out effects cases as it
// does every other check's (they were all sent and judged); with every
// one left out, effects is skipped, not passed.
func TestEffectsExcludeCases(t *testing.T) {
	store := newStore(t, storeDefects{storesAgain: true})
	srv := httptest.NewServer(store)
	defer srv.Close()
	for _, tt := range []struct {
		globs   []string
		checks  []string
		skipped bool
	}{
		{globs: []string{"re-delivered/*/*", "out-of-order/*/*", "under-load/*"}, checks: []string{Load, Effects}},
		{globs: []string{"effects/*/*/*", "effects/under-load/*"}, checks: []string{Load, Effects}, skipped: true},
	} {
		cfg := probeConfig(t, srv.URL)
		cfg.Checks, cfg.ExcludeCases, cfg.Nonce = tt.checks, tt.globs, uint64(len(tt.globs[0]))
		sum, results := runAll(t, cfg)
		judged := 0
		for _, r := range ofCheck(results, Effects) {
			if r.Verdict == Skip {
				continue
			}
			judged++
			if excludedBy(tt.globs, r.Case) {
				t.Errorf("%v: %s was judged", tt.globs, r.Case.Name)
			}
			if r.Verdict == Fail {
				t.Errorf("%v: %s failed: %s (the cases where this store fails are left out)", tt.globs, r.Case.Name, r.Reason)
			}
		}
		if !tt.skipped && judged == 0 {
			t.Errorf("%v: no effects case judged, want those not left out", tt.globs)
		}
		if got := sum.Checks[Effects].Skipped == SkippedExcluded; got != tt.skipped {
			t.Errorf("%v: effects %+v, want skipped %v", tt.globs, *sum.Checks[Effects], tt.skipped)
		}
	}
}

// TestProbeSanity: a probe that claims to hold a document never sent is
// the probe's error, before any call.
func TestProbeSanity(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			fmt.Fprint(w, `[{"count":3,"state":"created"}]`)
			return
		}
		calls.Add(1)
	}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	_, err := Run(context.Background(), cfg, func(Result) {})
	pe, ok := err.(*probe.Error)
	if !ok || !strings.Contains(pe.Reason, "a document never sent") {
		t.Fatalf("err = %v, want a probe.Error about a document never sent", err)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d calls made before the probe was found wrong, want 0", n)
	}
}

// TestProbeSanityOnceDocumentsAreHeld: a probe that ignores the document it
// is asked about (a count without its where clause) answers count 0 before
// the first case, on a receiver that holds nothing yet, and then the count
// of every document of the kind: asked again about a document never sent
// once the run's documents are probed, it is the probe's error, not a
// verdict of doubles on each document. A receiver storing from a queue may
// hold nothing yet when the calls are answered: here it stores them when
// the probe first asks about one of the run's documents.
func TestProbeSanityOnceDocumentsAreHeld(t *testing.T) {
	for _, tt := range []struct {
		ignored string // the kind the probe counts whole
		queued  bool   // stores when first asked about a document
	}{{"invoice", false}, {"receipt", false}, {"invoice", true}} {
		t.Run(fmt.Sprintf("%s queued %v", tt.ignored, tt.queued), func(t *testing.T) {
			var mu sync.Mutex
			held := map[string]map[string]bool{} // kind -> codes
			var queue [][2]string                // kind, code
			store := func(kind, code string) {
				if held[kind] == nil {
					held[kind] = map[string]bool{}
				}
				held[kind][code] = true
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				if kind, code, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/probe/"), "/"); ok && r.Method == http.MethodGet {
					if !strings.HasSuffix(code, "-NONE") {
						for _, q := range queue {
							store(q[0], q[1])
						}
						queue = nil
					}
					n := 0
					switch {
					case kind == tt.ignored:
						n = len(held[kind]) // every document of the kind
					case held[kind][code]:
						n = 1
					}
					fmt.Fprintf(w, `{"count":%d,"state":"created"}`, n)
					return
				}
				var env struct{ Data map[string]any }
				body, _ := io.ReadAll(r.Body)
				if json.Unmarshal(body, &env) != nil || env.Data == nil {
					w.WriteHeader(http.StatusBadRequest)
					return
				}
				kind, code := "invoice", env.Data["code"]
				if h, ok := env.Data["收款单"].(map[string]any); ok {
					kind, code = "receipt", h["收款单编号"]
				}
				if c, ok := code.(string); ok && tt.queued {
					queue = append(queue, [2]string{kind, c})
				} else if ok {
					store(kind, c)
				}
			}))
			defer srv.Close()
			cfg := probeConfig(t, srv.URL)
			cfg.Checks, cfg.Settle = []string{Effects}, 0
			var judgedMu sync.Mutex
			var judged []Result
			_, err := Run(context.Background(), cfg, func(r Result) {
				judgedMu.Lock()
				defer judgedMu.Unlock()
				judged = append(judged, r)
			})
			pe, ok := err.(*probe.Error)
			if !ok || !strings.Contains(pe.Reason, "-NONE, a document never sent, it answered") {
				t.Fatalf("err = %v, want a probe.Error about a document never sent", err)
			}
			for _, r := range judged {
				if r.Case.Check == Effects {
					t.Errorf("%s judged %v: %s; want no verdict on the receiver", r.Case.Name, r.Verdict, r.Reason)
				}
			}
		})
	}
}

// TestProbeErrorMidRunSaysWhatWasNotRun: a probe that answers the first
// question (a document never sent) and fails on the run's documents ends
// the run with its error; the summary says which checks it never ran, as
// for a receiver gone. Without it, the JSON summary gave effects 0 0 0 and
// no notRun, and --rerun of that report, its other failures fixed, said
// "ok all fixed", exit 0, though effects had never run.
func TestProbeErrorMidRunSaysWhatWasNotRun(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			if strings.HasSuffix(r.URL.Path, "-NONE") {
				fmt.Fprint(w, `{"count":0}`)
				return
			}
			http.Error(w, "probe broke", http.StatusInternalServerError)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Checks, cfg.Settle = []string{duplicates, Effects, Latency}, 0
	sum, err := Run(context.Background(), cfg, func(Result) {})
	if _, ok := err.(*probe.Error); !ok {
		t.Fatalf("err = %v, want a probe.Error", err)
	}
	if sum == nil || !slices.Equal(sum.NotRun, []string{Effects, Latency}) || sum.CutShort != "" {
		t.Fatalf("summary notRun %v cutShort %q, want effects and latency not run", sum.NotRun, sum.CutShort)
	}
}

// TestNumbers: every probed document of a run has a number of its own,
// fresh per nonce and the same for the same seed and nonce.
func TestNumbers(t *testing.T) {
	t.Parallel()
	codes := func(seed, nonce uint64) []string {
		b := newBuilder(seed, time.Time{}, 0)
		b.numbers = newNumbering(seed, nonce)
		var out []string
		for _, d := range b.effects(serialCopies, DefaultConcurrent) {
			out = append(out, d.q.Code+" "+d.q.RequestID)
		}
		_, qs := b.loadPairs(300)
		for _, q := range qs {
			out = append(out, q.Code+" "+q.RequestID)
		}
		return out
	}
	a, again, other := codes(5, 9), codes(5, 9), codes(5, 10)
	seen := map[string]bool{}
	for i, s := range a {
		code, id, _ := strings.Cut(s, " ")
		if seen[code] || seen[id] {
			t.Errorf("%s repeats a number or requestId", s)
		}
		seen[code], seen[id] = true, true
		if again[i] != s {
			t.Errorf("same seed and nonce: %s, then %s", s, again[i])
		}
		if ocode, oid, _ := strings.Cut(other[i], " "); ocode == code || oid == id {
			t.Errorf("another nonce gives the same %s", s)
		}
		if strings.Trim(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != "" {
			t.Errorf("code %q outside the safe alphabet", code)
		}
	}
	if len(a) != 20+150 {
		t.Errorf("%d documents, want 20 of effects and 150 of load", len(a))
	}
}

// TestEffectsReproSavedBody: with --save-cases, the reproduction of a
// document too large to print inline reads its body from the file the
// reporter wrote, not from a "case.json" that does not exist.
func TestEffectsReproSavedBody(t *testing.T) {
	srv := httptest.NewServer(newStore(t, storeDefects{keepFewLines: true}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Checks, cfg.Settle = []string{Effects}, 0
	cfg.SaveDir = t.TempDir()
	rep := &Reporter{Out: &sink{}, Target: cfg.Target, SaveDir: cfg.SaveDir}
	var large *Result
	if _, err := Run(context.Background(), cfg, func(r Result) {
		rep.Result(r)
		if r.Verdict == Fail && strings.Contains(r.Case.Name, "large-300-lines") {
			large = &r
		}
	}); err != nil {
		t.Fatal(err)
	}
	if large == nil {
		t.Fatal("the 300-line invoice kept cut short did not fail")
	}
	m := regexp.MustCompile(`whsim replay '([^']+)' --url '`).FindStringSubmatch(large.Repro)
	if m == nil || strings.Contains(large.Repro, "case.json") {
		t.Fatalf("reproduction %q replays no saved case", large.Repro)
	}
	b, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	var rec struct{ Body string }
	if err := json.Unmarshal(bytes.SplitN(b, []byte("\n"), 2)[0], &rec); err != nil || rec.Body != string(large.Case.Body) {
		t.Errorf("%s: %v; want a capture record of the 300-line body, %d bytes", m[1], err, len(large.Case.Body))
	}
}

// TestEffectsReproTLS: against an https receiver with a private CA (or
// --insecure), the reproduction carries the run's TLS flags, in every
// call and in the probe's probe.Question, so that it runs word for word.
func TestEffectsReproTLS(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	srv := httptest.NewTLSServer(newStore(t, storeDefects{neverVoids: true, unsigned: true}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	client, err := envClient(attempt.ClientOptions{Timeout: callTimeout, Concurrency: 16, CAFile: ca})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, srv.URL)
	cfg.Client, cfg.Checks, cfg.Settle = client, []string{Effects}, 0
	// Unsigned: a signed call's command is whsim replay --sign, shown in
	// check_effects_rerun.txtar on the real binary.
	cfg.Signer = nil
	cfg.CurlTLS = []string{"--cacert", ca}
	p, err := probe.ParseURL(srv.URL+"/probe/{kind}/{code}", client, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.CurlTLS = cfg.CurlTLS
	cfg.Probe = p
	_, results := runAll(t, cfg)
	var void *Result
	for i, r := range results {
		if r.Verdict == Fail && r.Case.Name == "lifecycle/ABANDON_RECEIVABLE_DOC/after-create" {
			void = &results[i]
		}
	}
	if void == nil {
		for _, r := range results {
			t.Logf("%s %s: %s", r.Verdict, r.Case.Name, r.Reason)
		}
		t.Fatal("the void never applied did not fail")
	}
	// The same calls again: the receiver still never voids, and the
	// probe still says so.
	out, err := exec.Command("sh", "-c", void.Repro).CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 3 || lines[0] != "200" || lines[1] != "200" || !strings.Contains(lines[2], `"state":"created"`) {
		t.Errorf("reproduction:\n%s\nprinted (%v):\n%s\nwant 200, 200 and the probe's created", void.Repro, err, out)
	}
}

// TestEffectsReproBeforeCreate: the reproduction of an effects document
// whose audit was sent before its create goes under a number no run sent,
// calls and probe alike, as --rerun does. Under the run's number the
// pasted audit would find the document the run created, be applied, and
// the probe would read audited on a receiver that still loses an early
// audit.
func TestEffectsReproBeforeCreate(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	srv := httptest.NewServer(newStore(t, storeDefects{loseEarlyAudit: true, unsigned: true}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Checks, cfg.Settle, cfg.Signer = []string{Effects}, 0, nil
	_, results := runAll(t, cfg)
	var before *Result
	for i, r := range results {
		if r.Verdict == Fail && r.Case.Name == "out-of-order/AUDIT_PURCHASE_ORDER_INVOICE/before-create" {
			before = &results[i]
		}
	}
	if before == nil {
		t.Fatal("the audit lost before its create did not fail")
	}
	if !strings.HasPrefix(before.Repro, "# "+renumberedNote) || strings.Contains(before.Repro, before.Effects.Code) {
		t.Errorf("reproduction under the run's number %s, or not saying so:\n%s", before.Effects.Code, before.Repro)
	}
	// The same calls again: the receiver still loses the early audit,
	// and the probe still says created.
	out, err := exec.Command("sh", "-c", before.Repro).CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 3 || lines[0] != "200" || lines[1] != "200" || !strings.Contains(lines[2], `"state":"created"`) {
		t.Errorf("reproduction:\n%s\nprinted (%v):\n%s\nwant 200, 200 and the probe's created", before.Repro, err, out)
	}
}

// TestEffectsDocumentsProbedAreThoseAsked: documents whose own calls were
// not accepted are inconclusive and never asked about; the summary's count
// of documents probed leaves them out (it said 19 probed where 10 were).
func TestEffectsDocumentsProbedAreThoseAsked(t *testing.T) {
	var mu sync.Mutex
	held := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if code, ok := strings.CutPrefix(r.URL.Path, "/probe/invoice/"); ok {
			if held[code] {
				fmt.Fprint(w, `{"count":1,"state":"created"}`)
				return
			}
			fmt.Fprint(w, `{"count":0}`)
			return
		}
		var env struct{ Data map[string]any }
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &env) != nil || env.Data == nil || r.URL.Query().Get("businessType") != "CREATE_PURCHASE_ORDER_INVOICE" {
			w.WriteHeader(http.StatusUnprocessableEntity) // invoices only
			return
		}
		code, _ := env.Data["code"].(string)
		held[code] = true
	}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Checks, cfg.Settle = []string{Effects}, 0
	var resMu sync.Mutex
	asked := 0
	sum, err := Run(context.Background(), cfg, func(r Result) {
		resMu.Lock()
		defer resMu.Unlock()
		if !r.Inconclusive {
			asked++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Effects == nil || sum.Effects.Documents != asked || sum.Checks[Effects].Warn == 0 {
		t.Errorf("effects %+v, tally %+v: want %d documents probed, the inconclusive ones left out", sum.Effects, sum.Checks[Effects], asked)
	}
}

// TestEffectsNoneHeld: when the probe finds not one document of the run,
// the likelier fault is the probe asking about other numbers (or another
// database) than the receiver keeps, and the summary says so.
func TestEffectsNoneHeld(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.NotFound(w, r) // stores under numbers of its own
		}
	}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Checks, cfg.Settle = []string{Load, Effects}, 0
	sum, err := Run(context.Background(), cfg, func(Result) {})
	if err != nil {
		t.Fatal(err)
	}
	// checkout.CheckSummary says it (TestCheckSummaryText).
	if sum.Effects == nil || !sum.Effects.NoneHeld || sum.Effects.NoneHeldOf != nil {
		t.Errorf("effects %+v, want NoneHeld", sum.Effects)
	}
}

// TestEffectsNoneHeldOfAKind: when the probe finds every invoice and not
// one receipt, a probe asking another table or number for receipts is as
// likely as a receiver losing them all, and the summary says so.
func TestEffectsNoneHeldOfAKind(t *testing.T) {
	srv := httptest.NewServer(newStore(t, storeDefects{losesReceipts: true}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Checks, cfg.Settle = []string{Load, Effects}, 0
	sum, _ := runAll(t, cfg)
	// checkout.CheckSummary says it (TestCheckSummaryText).
	if sum.Effects == nil || sum.Effects.NoneHeld || !slices.Equal(sum.Effects.NoneHeldOf, []string{"receipt"}) {
		t.Errorf("effects %+v, want none held of receipts", sum.Effects)
	}
}

// TestEffectsLoadNoneAccepted: when no load call got 2xx there is no load
// document to probe, and under-load must not pass on that nothing.
func TestEffectsLoadNoneAccepted(t *testing.T) {
	st := newStore(t, storeDefects{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			st.ServeHTTP(w, r)
			return
		}
		http.Error(w, "no such route", http.StatusNotFound)
	}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Checks = []string{Load, Effects}
	_, results := runAll(t, cfg)
	for _, r := range results {
		if r.Case.Check == Effects && strings.HasPrefix(r.Case.Name, "under-load/") {
			if r.Verdict != Warn || !strings.Contains(r.Reason, "inconclusive") {
				t.Errorf("%s: %s %q, want an inconclusive warning", r.Case.Name, r.Verdict, r.Reason)
			}
			return
		}
	}
	t.Fatal("no under-load result")
}

// TestLoadBothInvoiceShapes: the load check sends invoices in both shapes
// the ERP uses, each audited in the shape it was created in.
func TestLoadBothInvoiceShapes(t *testing.T) {
	t.Parallel()
	b := newBuilder(3, time.Time{}, 0)
	pairs, _ := b.loadPairs(32)
	shapes := map[string]int{}
	for _, p := range pairs {
		if p[0].Event != "CREATE_PURCHASE_ORDER_INVOICE" {
			continue
		}
		for _, c := range p {
			var env struct{ Data map[string]json.RawMessage }
			if err := json.Unmarshal(c.Body, &env); err != nil {
				t.Fatal(err)
			}
			_, sample := env.Data[spec.FieldRecords]
			_, described := env.Data[spec.FieldItems]
			switch {
			case sample && !described:
				shapes[c.Event+" sample"]++
			case described && !sample:
				shapes[c.Event+" described"]++
			default:
				t.Errorf("%s: neither shape: %s", c.Event, c.Body)
			}
		}
	}
	for _, k := range []string{"CREATE_PURCHASE_ORDER_INVOICE sample", "CREATE_PURCHASE_ORDER_INVOICE described", "AUDIT_PURCHASE_ORDER_INVOICE sample", "AUDIT_PURCHASE_ORDER_INVOICE described"} {
		if shapes[k] != 4 {
			t.Errorf("%s: %d calls, want 4 of the 8 invoices (%v)", k, shapes[k], shapes)
		}
	}
}

// TestCopiesNotTogetherAreNoPass: copies meant to reach the receiver at
// once, no two of which a loaded machine had in flight together (each
// went out after the one before was answered), tried no race: duplicates
// and effects say so (inconclusive), never pass. A pass was reported, for
// a careful and a racy receiver alike.
func TestCopiesNotTogetherAreNoPass(t *testing.T) {
	for _, tt := range []struct {
		name string
		d    storeDefects
	}{{"careful", storeDefects{}}, {"check-then-insert race", storeDefects{raceCopies: true}}} {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(newStore(t, tt.d))
			defer srv.Close()
			cfg := probeConfig(t, srv.URL)
			cfg.Checks = []string{duplicates, Effects}
			// The scheduler's pause: each copy held until the one before
			// has been answered (an event, not a sleep).
			cfg.copyHeld = func(i int, ended func(j int) <-chan struct{}) {
				if i > 0 {
					<-ended(i - 1)
				}
			}
			_, results := runAll(t, cfg)
			n := 0
			for _, r := range results {
				if !strings.Contains(r.Case.Name, "concurrent-x") {
					continue
				}
				n++
				if r.Verdict == Pass || r.Verdict == Warn && !strings.Contains(r.Reason, "no two of the 8 copies were in flight together") {
					t.Errorf("%s/%s: %s %q, want no pass: the copies did not go out together", r.Case.Check, r.Case.Name, r.Verdict, r.Reason)
				}
			}
			if n == 0 {
				t.Fatal("no case of copies at once")
			}
		})
	}
}

// TestCopiesPartlyTogetherStillPass: copies of which only some were in
// flight together tried the race: a careful receiver passes.
func TestCopiesPartlyTogetherStillPass(t *testing.T) {
	srv := httptest.NewServer(newStore(t, storeDefects{}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Checks = []string{duplicates, Effects}
	// All but the first held until the first has been answered: the
	// seven held then go out together.
	cfg.copyHeld = func(i int, ended func(j int) <-chan struct{}) {
		if i > 0 {
			<-ended(0)
		}
	}
	_, results := runAll(t, cfg)
	for _, r := range results {
		if strings.Contains(r.Case.Name, "concurrent-x") && r.Verdict != Pass {
			t.Errorf("%s/%s: %s %q, want pass", r.Case.Check, r.Case.Name, r.Verdict, r.Reason)
		}
	}
}

// TestVoidedReceiptsWereNeverSubmitted: a receipt the battery voids (in
// accepts-valid, load and the effects' lifecycles) is one an ERP lets its
// user void, created 待提交 (not audited, written off or booked), and so
// is the void that follows it.
func TestVoidedReceiptsWereNeverSubmitted(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 30; seed++ {
		b := newBuilder(seed, payload.Anchor(), 0)
		b.numbers = newNumbering(seed, 0)
		var cases []*Case
		valid, err := b.acceptsValid()
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, valid...)
		pairs, _ := b.loadPairs(40)
		for _, p := range pairs {
			cases = append(cases, p...)
		}
		for _, d := range b.effects(serialCopies, DefaultConcurrent) {
			if strings.Contains(d.name, "ABANDON_RECEIVABLE_DOC/") { // the create too
				for _, st := range d.steps {
					cases = append(cases, st.c)
				}
			}
		}
		for _, c := range cases {
			if c.Event != "ABANDON_RECEIVABLE_DOC" && !strings.Contains(c.Name, "ABANDON_RECEIVABLE_DOC/") {
				continue
			}
			var body struct {
				Data struct {
					Header struct {
						Audit string `json:"审核状态"`
					} `json:"收款单"`
				} `json:"data"`
			}
			if err := json.Unmarshal(c.Body, &body); err != nil {
				t.Fatalf("seed %d %s: %v", seed, c.Name, err)
			}
			if a := body.Data.Header.Audit; a != "待提交" {
				t.Errorf("seed %d %s %s: a voided receipt %s", seed, c.Check, c.Name, a)
			}
		}
	}
}

// TestProbeByInvoiceCode: a probe that finds invoices by {invoiceCode}
// alone finds none of a sample-shape invoice, which carries no invoice
// number: asked with an empty one, it counts every invoice stored without
// one. With one such invoice in the run it answered count 1 and the
// sample-shape cases passed on a count of other documents (with load's,
// they failed as doubles the receiver never stored). Asked, once the
// documents are probed, about a sample-shape invoice never sent, it is the
// probe's error, said with the cause, and no verdict on the receiver.
func TestProbeByInvoiceCode(t *testing.T) {
	var mu sync.Mutex
	byInvoiceCode := map[string]map[string]bool{} // invoiceCode -> codes
	receipts := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodGet {
			n := 0
			if r.URL.Query().Get("kind") == "invoice" {
				n = len(byInvoiceCode[r.URL.Query().Get("ic")])
			} else if receipts[r.URL.Query().Get("code")] {
				n = 1
			}
			fmt.Fprintf(w, `{"count":%d,"state":"created"}`, n)
			return
		}
		var env struct{ Data map[string]any }
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &env) != nil || env.Data == nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		if h, ok := env.Data["收款单"].(map[string]any); ok {
			code, _ := h["收款单编号"].(string)
			receipts[code] = true
			return
		}
		code, _ := env.Data["code"].(string)
		ic, _ := env.Data["invoiceCode"].(string)
		if byInvoiceCode[ic] == nil {
			byInvoiceCode[ic] = map[string]bool{}
		}
		byInvoiceCode[ic][code] = true
	}))
	defer srv.Close()
	cfg := testConfig(t, srv.URL)
	p, err := probe.ParseURL(srv.URL+"/probe?kind={kind}&code={code}&ic={invoiceCode}", cfg.Client, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Probe, cfg.Checks, cfg.Settle = p, []string{Effects}, 0
	// Only the cases that hold no invoice under new copies, so that the
	// probe's count matches for every described invoice.
	cfg.ExcludeCases = []string{"re-delivered/*/*", "lifecycle/AUDIT_PURCHASE_ORDER_INVOICE/*", "out-of-order/AUDIT_PURCHASE_ORDER_INVOICE/*"}
	var judged []Result
	var judgedMu sync.Mutex
	_, err = Run(context.Background(), cfg, func(r Result) {
		judgedMu.Lock()
		defer judgedMu.Unlock()
		judged = append(judged, r)
	})
	pe, ok := err.(*probe.Error)
	if !ok || !strings.Contains(pe.Reason, "-NONE, a document never sent") || !strings.Contains(pe.Reason, "{invoiceCode}") {
		t.Fatalf("err = %v, want a probe.Error about a sample-shape invoice never sent, naming {invoiceCode}", err)
	}
	for _, r := range judged {
		if r.Case.Check == Effects {
			t.Errorf("%s judged %v: %s; want no verdict on the receiver", r.Case.Name, r.Verdict, r.Reason)
		}
	}
}

// TestEffectsLateIsNotLost: a receiver storing from a queue that is behind
// (each call takes its worker 40ms) holds the first documents of the run
// when the settle time is out and not yet the last ones. Those are not
// said lost or removed by their follow-up as if the receiver stored at
// once: the reason says it stores after answering and that a longer
// --settle waits for them.
func TestEffectsLateIsNotLost(t *testing.T) {
	srv := httptest.NewServer(newStore(t, storeDefects{backlog: 40 * time.Millisecond}))
	defer srv.Close()
	cfg := probeConfig(t, srv.URL)
	cfg.Checks, cfg.Settle, cfg.LoadCount = []string{Load, Effects}, 300*time.Millisecond, 16
	_, results := runAll(t, cfg)
	lost := 0
	for _, r := range results {
		if strings.HasPrefix(r.Case.Name, "under-load/") && r.Verdict == Fail &&
			(!strings.Contains(r.Reason, "the receiver stores after answering") || strings.Contains(r.Reason, "busy")) {
			t.Errorf("%s: %s\nwant the late store named, not a loss under load or busy or not", r.Case.Name, r.Reason)
		}
		if r.Verdict != Fail || !strings.Contains(r.Reason, "holds nothing for it") {
			continue
		}
		lost++
		if strings.Contains(r.Reason, "removed the document") || !strings.Contains(r.Reason, "stores after answering") || !strings.Contains(r.Reason, "a longer --settle") {
			t.Errorf("%s: %s\nwant the late store named, not a loss or a removal", r.Case.Name, r.Reason)
		}
	}
	if lost == 0 {
		t.Fatalf("no document held nothing: the queue was not behind")
	}
}

// A document held with the wrong number of lines says how many, in
// words a reader takes as written: "holds 1 line of the 3 sent", not
// "1 lines".
func TestDefectCountsLines(t *testing.T) {
	r := &runner{}
	for _, tt := range []struct {
		held, sent int
		want       string
	}{
		{1, 3, "holds 1 line of the 3 sent: the document was stored cut short"},
		{0, 3, "holds 0 lines of the 3 sent: the document was stored cut short"},
		{2, 3, "holds 2 lines of the 3 sent: the document was stored cut short"},
		{1, 0, "holds 1 line of the 0 sent: it stored lines the document was not sent with"},
		{5, 3, "holds 5 lines of the 3 sent: it stored lines the document was not sent with"},
	} {
		d := &effDoc{want: expect{lines: tt.sent}, ans: probe.Answer{Count: 1, Lines: tt.held}}
		if got := r.defect(d); got != tt.want {
			t.Errorf("held %d of %d: %q, want %q", tt.held, tt.sent, got, tt.want)
		}
	}
}

// TestDefectLateState: from a receiver that stores after answering, a
// document still in the state its create left when --settle ran out may
// have its void or audit applied later: the reason says so, as it does of
// a document not held yet, and does not say the follow-up was never
// applied.
func TestDefectLateState(t *testing.T) {
	call := func(event string) sentCall {
		return sentCall{step: effStep{c: &Case{Event: event}}, answers: []attempt.Attempt{{Status: 200}}}
	}
	late := "invoice CGFP-1 was held only 2118.2ms after its last call"
	for _, tt := range []struct {
		name       string
		d          *effDoc
		storesLate string
		want       string
	}{
		{"a void after its create, late", &effDoc{what: "lifecycle", want: expect{state: probe.StateVoided, lines: -1},
			sent: []sentCall{call("CREATE_RECEIVABLE_DOC"), call("ABANDON_RECEIVABLE_DOC")}}, late,
			"is created, want voided (still so 2s after its last call), and the receiver stores after answering (" + late + "): it may apply the ABANDON_RECEIVABLE_DOC answered 200 later still (a longer --settle waits for it), or it acknowledged it and never applied it"},
		{"an audit in the sample shape, late", &effDoc{what: "lifecycle", shape: spec.Sample, want: expect{state: probe.StateAudited, lines: -1},
			sent: []sentCall{call("CREATE_PURCHASE_ORDER_INVOICE"), call("AUDIT_PURCHASE_ORDER_INVOICE")}}, late,
			"is created, want audited (still so 2s after its last call), and the receiver stores after answering (" + late + "): it may apply the AUDIT_PURCHASE_ORDER_INVOICE answered 200 later still (a longer --settle waits for it), or it acknowledged it and never applied it"},
		{"a void after its create, at once", &effDoc{what: "lifecycle", want: expect{state: probe.StateVoided, lines: -1},
			sent: []sentCall{call("CREATE_RECEIVABLE_DOC"), call("ABANDON_RECEIVABLE_DOC")}}, "",
			"is created after a void answered 200: the void was acknowledged and never applied"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.d.ans = probe.Answer{Count: 1, State: probe.StateCreated, Lines: -1}
			r := &runner{storesLate: tt.storesLate, cfg: Config{Settle: 2 * time.Second}}
			if got := r.defect(tt.d); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestEffectsProbeNotFoundForEveryDocument: a --probe URL that matches no
// route of the receiver's (a wrong template) answers 404 for every
// document, those the receiver acknowledged with 2xx too. Effects still
// fails (nothing was verified), but no reason may say the receiver lost
// them as a fact: each says the probe itself may be wrong. A probe that
// finds some documents and 404s the rest says nothing of the kind.
func TestEffectsProbeNotFoundForEveryDocument(t *testing.T) {
	const doubt = "the probe itself may be wrong"
	tests := []struct {
		name     string
		d        storeDefects
		template string
		doubt    bool
	}{
		{"a template matching no route", storeDefects{}, "/probes/{kind}/{code}", true},
		{"a receiver losing every document", storeDefects{losesInvoices: true, losesReceipts: true}, "/probe/{kind}/{code}", true},
		{"a receiver losing receipts only", storeDefects{losesReceipts: true}, "/probe/{kind}/{code}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStore(t, tt.d)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet && !strings.HasPrefix(r.URL.Path, "/probe/") {
					http.NotFound(w, r) // a router without the route
					return
				}
				st.ServeHTTP(w, r)
			}))
			defer srv.Close()
			cfg := probeConfig(t, srv.URL)
			p, err := probe.ParseURL(srv.URL+tt.template, cfg.Client, nil)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Probe = p
			cfg.Checks, cfg.Settle = []string{Load, Effects}, 0
			sum, results := runAll(t, cfg)
			if sum.Checks[Effects].Fail == 0 || sum.Checks[Effects].Pass > 0 && tt.doubt {
				t.Errorf("effects %+v, want every document failing", sum.Checks[Effects])
			}
			if sum.Effects == nil || sum.Effects.ProbeNotFound != tt.doubt {
				t.Errorf("effects stats %+v, want ProbeNotFound %v", sum.Effects, tt.doubt)
			}
			failed := 0
			for _, r := range results {
				if r.Case.Check != Effects || r.Verdict != Fail {
					continue
				}
				failed++
				if got := strings.Contains(r.Reason, doubt); got != tt.doubt {
					t.Errorf("%s: reason %q: says %q %v, want %v", r.Case.Name, r.Reason, doubt, got, tt.doubt)
				}
				if tt.doubt && strings.Contains(r.Reason, "the document was acknowledged and lost") {
					t.Errorf("%s: reason %q blames the receiver as a fact", r.Case.Name, r.Reason)
				}
			}
			if failed == 0 {
				t.Fatal("no effects case failed")
			}
		})
	}
}
