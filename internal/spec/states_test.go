package spec

import (
	"slices"
	"strings"
	"testing"
)

func TestPathOf(t *testing.T) {
	tests := []struct {
		d    Datum
		want []string
	}{
		{RecState, []string{ReceiptHeader, "单据状态"}},
		{RecDue, []string{ReceiptHeader, FieldDue}},
		{LineFee, nil}, // inside an array: not a header field
	}
	for _, tt := range tests {
		for _, s := range Shapes() {
			if got := PathOf(Data(Receipt, s), tt.d); !slices.Equal(got, tt.want) {
				t.Errorf("%s PathOf(%v) = %q, want %q", s, tt.d, got, tt.want)
			}
		}
	}
	for _, e := range Events() {
		for _, tr := range Transitions(e) {
			if tr.Event != e.Name || PathOf(Data(e.Kind, Described), tr.Field) == nil {
				t.Errorf("%s: transition %+v has no field in its document", e.Name, tr)
			}
		}
	}
}

// Every event leaves its document in a state a probe names, and the
// creating events in the first.
func TestStateAfter(t *testing.T) {
	for _, e := range Events() {
		st := StateAfter(e)
		if StateRank(st) == 0 {
			t.Errorf("%s leaves no known state (%q)", e.Name, st)
		}
		if strings.HasPrefix(e.Name, "CREATE_") != (st == DocCreated) {
			t.Errorf("%s leaves %s", e.Name, st)
		}
	}
	// The audit audits the invoice, the abandon voids the receipt; an
	// unknown event leaves no state.
	for name, want := range map[string]string{
		"AUDIT_PURCHASE_ORDER_INVOICE": DocAudited, "ABANDON_RECEIVABLE_DOC": DocVoided, "SOMETHING_ELSE": "",
	} {
		if got := StateAfter(Event{Name: name}); got != want {
			t.Errorf("StateAfter(%s) = %q, want %q", name, got, want)
		}
	}
	if StateRank(DocVoided) <= StateRank(DocCreated) || StateRank(DocAudited) <= StateRank(DocCreated) {
		t.Error("a created document ranks after its later states")
	}
}
