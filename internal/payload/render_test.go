package payload

import (
	"testing"

	"github.com/whsim/whsim/internal/fake"
	"github.com/whsim/whsim/internal/spec"
)

// TestRenderFollowsTheTable: a field is rendered from its table row alone,
// so a new field, an alias or a new shape needs no generator code.
func TestRenderFollowsTheTable(t *testing.T) {
	t.Parallel()
	rec := &receiptDoc{
		customer: party{code: "01020003", name: "杭州海纳机械有限公司"},
		currency: fake.Currency{Code: "USD", Name: "美元", Rate: fake.Decimal{Units: 71234, Scale: 4}},
		lines:    []receiptLine{{due: fake.Money(10050), writtenOff: fake.Money(50)}},
	}
	table := []spec.Field{
		{Name: "客户", Type: spec.Object, Of: spec.RecCustomer, Fields: []spec.Field{
			{Name: "编码", Type: spec.String, Of: spec.PartyCode},
		}},
		{Name: "outstanding", Type: spec.Number, Of: spec.RecOutstanding},
		{Name: "lines", Type: spec.Array, Elem: spec.Object, Of: spec.RecLines, Fields: []spec.Field{
			{Name: "no", Type: spec.String, Of: spec.Seq},
			{Name: "dueBase", Type: spec.String, Format: spec.Decimal2, Of: spec.LineDueBase},
			{Name: "dueBaseNumber", Type: spec.Number, Of: spec.LineDueBase},
		}},
	}
	got := string(Marshal(render(table, &cursor{rec: rec})))
	want := `{"客户":{"编码":"01020003"},"outstanding":100.00,"lines":[{"no":"1","dueBase":"715.90","dueBaseNumber":715.90}]}`
	if got != want {
		t.Errorf("render:\n got %s\nwant %s", got, want)
	}
}

// TestLayoutsKnowWhatToDraw: a value only one shape carries (the applicant,
// the receipt's jump flag) is drawn only for that shape, as it always was,
// so that a seed keeps its bytes.
func TestLayoutsKnowWhatToDraw(t *testing.T) {
	t.Parallel()
	tests := []struct {
		k    spec.Kind
		d    spec.Datum
		want map[spec.Shape]bool
	}{
		{spec.Invoice, spec.InvApplicantCode, map[spec.Shape]bool{spec.Described: true, spec.Sample: false}},
		{spec.Receipt, spec.RecJumpFlag, map[spec.Shape]bool{spec.Described: false, spec.Sample: true}},
		{spec.Invoice, spec.InvStatusNumber, map[spec.Shape]bool{spec.Described: false, spec.Sample: true}},
		{spec.Invoice, spec.InvTitle, map[spec.Shape]bool{spec.Described: true, spec.Sample: true}},
	}
	for _, tt := range tests {
		for s, want := range tt.want {
			if got := layoutOf(tt.k, s).has[tt.d]; got != want {
				t.Errorf("%s %s carries datum %d: %v, want %v", tt.k, s, tt.d, got, want)
			}
		}
	}
}
