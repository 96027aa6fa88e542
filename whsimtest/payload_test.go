package whsimtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

// Every event in both shapes makes a valid body, the same for one seed
// and another for another seed.
func TestCallBodyIsValidAndSeeded(t *testing.T) {
	t.Parallel()
	v, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range spec.EventNames() {
		for _, shape := range []string{"", "described", "sample"} {
			body := NewBody(t, Call{Event: e, Shape: shape})
			if fs := v.Check(body, e); v.Failed(fs) {
				t.Errorf("%s %s: %+v", e, shape, fs)
			}
			if again := NewBody(t, Call{Event: e, Shape: shape, Seed: 1}); !bytes.Equal(body, again) {
				t.Errorf("%s %s: seed 0 is not seed 1", e, shape)
			}
			if other := NewBody(t, Call{Event: e, Shape: shape, Seed: 2}); bytes.Equal(body, other) {
				t.Errorf("%s %s: seed 2 gives seed 1's body", e, shape)
			}
		}
	}
}

// Set and Unset change the document as whsim generate --set and --unset do.
func TestCallSetAndUnset(t *testing.T) {
	t.Parallel()
	body := NewBody(t, Call{Event: "CREATE_PURCHASE_ORDER_INVOICE", Set: []string{"data.items.0.quantity=3", "data.code=INV-1", "data.comments=3 boxes"}, Unset: []string{"data.staffName"}})
	var env struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	items, _ := env.Data["items"].([]any)
	first, _ := items[0].(map[string]any)
	if first["quantity"] != 3.0 || env.Data["code"] != "INV-1" || env.Data["comments"] != "3 boxes" {
		t.Errorf("got quantity %v code %v comments %v", first["quantity"], env.Data["code"], env.Data["comments"])
	}
	if _, ok := env.Data["staffName"]; ok {
		t.Error("data.staffName not unset")
	}
}

func TestCallErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		c    Call
		says string
	}{
		// A Call is one call: the list offers no "all", which it refuses.
		{Call{}, `Call.Event is empty: want CREATE_PURCHASE_ORDER_INVOICE, AUDIT_PURCHASE_ORDER_INVOICE, CREATE_RECEIVABLE_DOC or ABANDON_RECEIVABLE_DOC`},
		{Call{Event: "DELETE_DOC"}, `Call.Event "DELETE_DOC": unknown event, want CREATE_PURCHASE_ORDER_INVOICE, AUDIT_PURCHASE_ORDER_INVOICE, CREATE_RECEIVABLE_DOC or ABANDON_RECEIVABLE_DOC`},
		{Call{Event: "CREATE_RECEIVABLE"}, `Call.Event "CREATE_RECEIVABLE": unknown event (did you mean "CREATE_RECEIVABLE_DOC"?)`},
		{Call{Event: "create_receivable_doc"}, `Call.Event "create_receivable_doc": the name is matched exactly, as in the query (did you mean "CREATE_RECEIVABLE_DOC"?)`},
		{Call{Event: "all"}, `Call.Event "all": want one event`},
		{Call{Event: "CREATE_RECEIVABLE_DOC", Shape: "sampel"}, `Call.Shape: unknown shape "sampel" (did you mean "sample"?)`},
		{Call{Event: "CREATE_RECEIVABLE_DOC", Set: []string{"data.x"}}, `Call.Set "data.x": want <path>=<value>`},
		{Call{Event: "CREATE_RECEIVABLE_DOC", Set: []string{"data.items.0.quantity=3"}}, "Call.Set data.items.0.quantity: no field data.items in CREATE_RECEIVABLE_DOC (described shape)"},
		// A Call is one payload: not the CLI's "payload 1" of a run.
		{Call{Event: "CREATE_RECEIVABLE_DOC", Unset: []string{"data.nope"}}, "Call.Unset data.nope: no such field"},
		{Call{Event: "CREATE_RECEIVABLE_DOC", Path: "hooks"}, `Call.Path "hooks": want a path from the root`},
		// The handler would read the path's businessType, not the Call's.
		{Call{Event: "CREATE_RECEIVABLE_DOC", Path: "/hooks?businessType=ABANDON_RECEIVABLE_DOC"},
			`Call.Path "/hooks?businessType=ABANDON_RECEIVABLE_DOC": the query has businessType already; the Call adds its Event's (drop it from the path)`},
		{Call{Event: "CREATE_RECEIVABLE_DOC", Secret: "hunter2"}, "Call.Secret: secret must start with whsec_"},
		// As WithPath refuses them: a fragment ended up in the handler's
		// businessType ("CREATE_RECEIVABLE_DOC#x"), a bad query was dropped
		// from its r.URL.Query() unsaid.
		{Call{Event: "CREATE_RECEIVABLE_DOC", Path: "/hooks#x"}, `Call.Path "/hooks#x": a fragment never reaches a handler`},
		{Call{Event: "CREATE_RECEIVABLE_DOC", Path: "/hooks?tenant=%zz"}, `Call.Path "/hooks?tenant=%zz": bad query: invalid URL escape "%zz"`},
	} {
		_, err := tt.c.Request()
		if err == nil || !strings.Contains(err.Error(), tt.says) || strings.Contains(err.Error(), ", all") || strings.Contains(err.Error(), "payload 1") {
			t.Errorf("%+v: error %v, want %q", tt.c, err, tt.says)
		}
	}
}

// The request is ready for ServeHTTP: the path, its query and
// businessType, the body, and a signature the Standard Webhooks library
// verifies; the careful shop takes it.
func TestCallRequest(t *testing.T) {
	t.Parallel()
	c := Call{Event: "CREATE_RECEIVABLE_DOC", Shape: "sample", Path: "/hooks/erp?tenant=7", Secret: testSecret, Header: http.Header{"X-Api-Key": {"k"}}}
	req := NewRequest(t, c)
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	if req.Method != http.MethodPost || req.RequestURI != "/hooks/erp?tenant=7&businessType=CREATE_RECEIVABLE_DOC" ||
		req.Header.Get("Content-Type") != "application/json" || req.Header.Get("X-Api-Key") != "k" || !bytes.Equal(body, NewBody(t, c)) {
		t.Fatalf("request %s %s %v", req.Method, req.RequestURI, req.Header)
	}
	wh, err := standardwebhooks.NewWebhook(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(body, req.Header); err != nil {
		t.Errorf("signature: %v", err)
	}
	s := newShop(t, careful, testSecret)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Errorf("the shop answered %d %s", w.Code, w.Body)
	}
	// A signature of another time is one the library refuses.
	c.Time = time.Now().Add(-time.Hour)
	old := NewRequest(t, c)
	if err := wh.Verify(body, old.Header); err == nil {
		t.Error("an hour-old signature verified")
	}
}

// NewRequest says what NewBody says of a Set the spec does not know for
// the event (a typo in a field's name adds a field beside the one meant):
// it said nothing, and the request went with the field meant unchanged.
func TestNewRequestLogsWhatNewBodyLogs(t *testing.T) {
	t.Parallel()
	c := Call{Event: "CREATE_RECEIVABLE_DOC", Set: []string{"data.收款单.收款单编 号=SKD-1"}}
	for name, make := range map[string]func(testing.TB, Call){
		"NewBody":    func(t testing.TB, c Call) { NewBody(t, c) },
		"NewRequest": func(t testing.TB, c Call) { NewRequest(t, c) },
	} {
		l := &logged{TB: t}
		make(l, c)
		if len(l.lines) != 1 || !strings.HasPrefix(l.lines[0], "whsimtest."+name+": Set data.收款单.收款单编 号: no field") || !strings.Contains(l.lines[0], `did you mean "收款单编号"?`) {
			t.Errorf("%s logged %q", name, l.lines)
		}
	}
}

// logged is a testing.TB that keeps what is logged.
type logged struct {
	testing.TB
	lines []string
}

func (l *logged) Helper()         {}
func (l *logged) Log(args ...any) { l.lines = append(l.lines, fmt.Sprint(args...)) }
