package spec

// A Transition is a state an event leaves its document in: the field that
// carries the state (by Datum) and its value after the event. Only what
// the interface implies is listed: event 5009 voids the receipt, so its
// data, otherwise the creation's (spec: "the same shape as 5007"), reads
// as voided.
type transition struct {
	Event string
	Field Datum
	Value string
}

// RecStateVoided is the 单据状态 of a voided receipt. The spec's samples
// show 未开始 only; 已作废 is the sibling shared/domain.md §4.2 lists for a
// workflow-stage status (Kingdee's 作废状态 B reads the same).
const RecStateVoided = "已作废"

var transitions = [...]transition{
	{Event: "ABANDON_RECEIVABLE_DOC", Field: RecState, Value: RecStateVoided},
}

// Transitions lists the states event e leaves its document in.
func Transitions(e Event) []transition {
	var out []transition
	for _, t := range transitions {
		if t.Event == e.Name {
			out = append(out, t)
		}
	}
	return out
}

// PathOf is the path of names from f to the first object member that
// carries d, outside arrays (a header field, not a line's); nil when none.
func PathOf(f Field, d Datum) []string {
	for _, m := range f.Fields {
		if m.Of == d {
			return []string{m.Name}
		}
		if m.Type == Object {
			if p := PathOf(m, d); p != nil {
				return append([]string{m.Name}, p...)
			}
		}
	}
	return nil
}

// The states a document is in after an event, as a probe names them
// (whsim check's effects and listen --probe expect them).
const (
	DocCreated = "created"
	DocAudited = "audited"
	DocVoided  = "voided"
)

// StateAfter is the state e leaves its document in: a create creates it,
// an audit audits the invoice, an abandon voids the receipt. A switch, not
// a map: a map literal is built by the package's init in every process (#35).
func StateAfter(e Event) string {
	switch e.Name {
	case "CREATE_PURCHASE_ORDER_INVOICE", "CREATE_RECEIVABLE_DOC":
		return DocCreated
	case "AUDIT_PURCHASE_ORDER_INVOICE":
		return DocAudited
	case "ABANDON_RECEIVABLE_DOC":
		return DocVoided
	}
	return ""
}

// StateRank orders states along a document's life: a created document
// may be audited or voided, never the other way round. An unknown state
// ranks 0.
func StateRank(state string) int {
	switch state {
	case DocCreated:
		return 1
	case DocAudited, DocVoided:
		return 2
	}
	return 0
}

// DocumentCode is the datum that numbers a document of kind k: data.code
// of an invoice, 收款单编号 of a receipt.
func DocumentCode(k Kind) Datum {
	if k == Receipt {
		return RecNumber
	}
	return InvCode
}
