package payload

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/whsim/whsim/internal/spec"
)

// scenario is a document's life told as events about the same document:
// the data is built once and sent under each event in turn.
type scenario struct {
	Name    string
	Events  []string
	Meaning string
}

// Scenarios returns the lifecycles whsim can send, in a fixed order; a new
// table each call, so no caller changes another's.
func Scenarios() []scenario {
	return []scenario{
		{"invoice-lifecycle", []string{"CREATE_PURCHASE_ORDER_INVOICE", "AUDIT_PURCHASE_ORDER_INVOICE"},
			"create a purchase invoice, then audit the same invoice (PASS or REFUSAL)"},
		{"receipt-lifecycle", []string{"CREATE_RECEIVABLE_DOC", "ABANDON_RECEIVABLE_DOC"},
			"create a receipt document, then void the same receipt"},
	}
}

// ScenarioNames returns the names of Scenarios, for help and completion.
func ScenarioNames() []string {
	var out []string
	for _, s := range Scenarios() {
		out = append(out, s.Name)
	}
	return out
}

// LookupScenario finds a scenario by name.
func LookupScenario(name string) (scenario, bool) {
	for _, s := range Scenarios() {
		if s.Name == name {
			return s, true
		}
	}
	return scenario{}, false
}

// refusalShare is the share of audits that refuse the invoice.
const refusalShare = 0.2

// auditVerdict is the audit's status for a uniform draw in [0, 1): the one
// place that decides PASS or REFUSAL.
func auditVerdict(draw float64) string {
	if draw < refusalShare {
		return spec.StatusRefusal
	}
	return spec.StatusPass
}

// setStatus writes an audit status into invoice data in the shape's form:
// the name in the described shape, its integer in the sample shape.
func setStatus(data *Obj, s spec.Shape, status string) {
	if s == spec.Sample {
		data.Put(spec.FieldStatus, int64(spec.SampleStatus(status)))
		return
	}
	data.Put(spec.FieldStatus, status)
}

// step is one payload of a document's life.
type step struct {
	Event spec.Event
	Doc   *Obj
}

// Lives builds the payloads of n documents going through the scenario in
// shape s: for each document, one envelope per event around the same data,
// with ovs applied to every payload. An invoice's audit verdict is drawn
// from its own stream of seed, so that the same seed gives the same
// verdicts whatever the data draws. The error names the event and shape of
// the payload an override did not fit; it wraps a *PathError.
func (sc scenario) Lives(g *Generator, s spec.Shape, seed uint64, n int, ovs []Override) ([][]step, error) {
	events, err := spec.ParseEvents(sc.Events)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	verdicts := rand.New(rand.NewPCG(seed, 7))
	lives := make([][]step, 0, n)
	for range n {
		// Each event gets its own copy, taken before any override is
		// applied to another.
		data := make([]*Obj, len(events))
		data[0] = g.DataFor(events[0], s, events[len(events)-1])
		for i := 1; i < len(events); i++ {
			data[i] = data[0].Clone()
			if events[0].Kind == spec.Invoice {
				setStatus(data[i], s, auditVerdict(verdicts.Float64()))
			}
		}
		life := make([]step, 0, len(events))
		for i, e := range events {
			doc := g.Envelope(e, s, data[i])
			if err := Apply(doc, ovs); err != nil {
				hint := ""
				if pe := (*PathError)(nil); errors.As(err, &pe) {
					hint = pe.Hint()
				}
				return nil, fmt.Errorf("%s %s payload of document %d: %w%s", e.Name, s, len(lives)+1, err, hint)
			}
			life = append(life, step{e, doc})
		}
		lives = append(lives, life)
	}
	return lives, nil
}
