package payload

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/whsim/whsim/internal/spec"
)

func TestScenarioLives(t *testing.T) {
	t.Parallel()
	for _, sc := range Scenarios() {
		for _, shape := range spec.Shapes() {
			t.Run(sc.Name+"/"+string(shape), func(t *testing.T) {
				t.Parallel()
				lives, err := sc.Lives(New(4, Anchor()), shape, 4, 40, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(lives) != 40 {
					t.Fatalf("%d lives, want 40", len(lives))
				}
				statuses := map[any]int{}
				for _, life := range lives {
					if len(life) != len(sc.Events) {
						t.Fatalf("%d steps, want %d", len(life), len(sc.Events))
					}
					first, _ := life[0].Doc.Get(spec.FieldData)
					later, _ := life[1].Doc.Get(spec.FieldData)
					a, b := first.(*Obj).Clone(), later.(*Obj).Clone()
					st, _ := b.Get(spec.FieldStatus)
					statuses[st]++
					a.Delete(spec.FieldStatus)
					b.Delete(spec.FieldStatus)
					// A void reads as one; everything else is the creation's.
					if sc.Name == "receipt-lifecycle" {
						was, now := docState(t, a), docState(t, b)
						if was == spec.RecStateVoided || now != spec.RecStateVoided {
							t.Errorf("单据状态 %q then %q, want a live receipt then %q", was, now, spec.RecStateVoided)
						}
						// Only a receipt not yet submitted is voided.
						hdr, _ := a.Get(spec.ReceiptHeader)
						if audit, _ := hdr.(*Obj).Get("审核状态"); audit != "待提交" {
							t.Errorf("a receipt voided later was created %v, want 待提交", audit)
						}
						setDocState(t, b, was)
					}
					if string(Marshal(a)) != string(Marshal(b)) {
						t.Errorf("the events tell of different documents:\n%s\n%s", Marshal(a), Marshal(b))
					}
					for i, step := range life {
						if step.Event.Name != sc.Events[i] {
							t.Errorf("step %d is %s, want %s", i, step.Event.Name, sc.Events[i])
						}
					}
				}
				if sc.Name == "invoice-lifecycle" && len(statuses) != 2 {
					t.Errorf("audit statuses %v, want both verdicts", statuses)
				}
			})
		}
	}
}

func TestScenarioOverrideError(t *testing.T) {
	t.Parallel()
	sc, ok := LookupScenario("receipt-lifecycle")
	if !ok {
		t.Fatal("no receipt-lifecycle")
	}
	ov, err := parseUnset("data.nope.x")
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Lives(New(1, Anchor()), spec.Described, 1, 1, []Override{ov})
	var pe *PathError
	if !errors.As(err, &pe) || err.Error() != "CREATE_RECEIVABLE_DOC described payload of document 1: "+pe.Error() {
		t.Errorf("error %v, want the event, the shape and a *PathError", err)
	}
	if _, ok := LookupScenario("nope"); ok {
		t.Error("found a scenario named nope")
	}
}

func TestAuditVerdict(t *testing.T) {
	t.Parallel()
	for draw, want := range map[float64]string{0: spec.StatusRefusal, 0.199: spec.StatusRefusal, 0.2: spec.StatusPass, 0.99: spec.StatusPass} {
		if got := auditVerdict(draw); got != want {
			t.Errorf("AuditVerdict(%v) = %s, want %s", draw, got, want)
		}
	}
}

// docState is a receipt data's 单据状态.
func docState(t *testing.T, data *Obj) string {
	t.Helper()
	v, ok := Lookup(data, path(spec.PathOf(spec.Data(spec.Receipt, spec.Described), spec.RecState)))
	if !ok {
		t.Fatal("no 单据状态")
	}
	return v.(string)
}

func setDocState(t *testing.T, data *Obj, state string) {
	t.Helper()
	raw, _ := json.Marshal(state)
	if err := Apply(data, []Override{{Path: path(spec.PathOf(spec.Data(spec.Receipt, spec.Described), spec.RecState)), Value: json.RawMessage(raw)}}); err != nil {
		t.Fatal(err)
	}
}

// TestVoidReadsAsVoided: a voided receipt carries the voided 单据状态 the
// spec's transitions give it, built alone or by the check's and the
// scenario's way (a creation's data under the void event); the creation
// and the invoice events are left as drawn.
func TestVoidReadsAsVoided(t *testing.T) {
	t.Parallel()
	void, _ := spec.Lookup("ABANDON_RECEIVABLE_DOC")
	create, _ := spec.Lookup("CREATE_RECEIVABLE_DOC")
	audit, _ := spec.Lookup("AUDIT_PURCHASE_ORDER_INVOICE")
	if ts := spec.Transitions(void); len(ts) != 1 || ts[0].Field != spec.RecState || ts[0].Value != spec.RecStateVoided {
		t.Fatalf("transitions of the void: %+v", ts)
	}
	if ts := spec.Transitions(audit); len(ts) != 0 {
		t.Errorf("transitions of the audit: %+v (its status is drawn by the scenario)", ts)
	}
	for _, shape := range spec.Shapes() {
		g := New(11, Anchor())
		for range 50 {
			data, _ := g.Build(void, shape).Get(spec.FieldData)
			if got := docState(t, data.(*Obj)); got != spec.RecStateVoided {
				t.Fatalf("%s void: 单据状态 %q, want %q", shape, got, spec.RecStateVoided)
			}
			created := g.Data(create, shape)
			g.Envelope(create, shape, created)
			if got := docState(t, created); got == spec.RecStateVoided {
				t.Fatalf("%s creation: 单据状态 %q", shape, got)
			}
			again, _ := g.Envelope(void, shape, created.Clone()).Get(spec.FieldData)
			if got := docState(t, again.(*Obj)); got != spec.RecStateVoided {
				t.Fatalf("%s void of a created receipt: 单据状态 %q", shape, got)
			}
		}
	}
}
