package payload

import (
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
	ov, err := ParseUnset("data.nope.x")
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Lives(New(1, Anchor()), spec.Described, 1, 1, []Override{ov})
	var pe *PathError
	if !errors.As(err, &pe) || err.Error() != "CREATE_RECEIVABLE_DOC described payload: "+pe.Error() {
		t.Errorf("error %v, want the event, the shape and a *PathError", err)
	}
	if _, ok := LookupScenario("nope"); ok {
		t.Error("found a scenario named nope")
	}
}

func TestAuditVerdict(t *testing.T) {
	t.Parallel()
	for draw, want := range map[float64]string{0: spec.StatusRefusal, 0.199: spec.StatusRefusal, 0.2: spec.StatusPass, 0.99: spec.StatusPass} {
		if got := AuditVerdict(draw); got != want {
			t.Errorf("AuditVerdict(%v) = %s, want %s", draw, got, want)
		}
	}
}
