package validate

import (
	"slices"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/spec"
)

// TestLedgerPlacesEveryAmount: each amount the relations read is found in
// the model, in the record that holds it, by the field that names it first.
func TestLedgerPlacesEveryAmount(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	l := v.ledger
	tests := []struct {
		of           spec.Datum
		name, member string
	}{
		{spec.RecRate, spec.FieldRate, spec.ReceiptHeader},
		{spec.RecOutstanding, spec.FieldOutstanding, spec.ReceiptHeader},
		{spec.LineDueBase, spec.FieldLineDueBase, spec.ReceiptLines},
		{spec.LineWrittenOffBase, spec.FieldLineOffBase, spec.ReceiptLines},
		{spec.SrcThis, spec.FieldSourceThis, spec.ReceiptSources},
		{spec.ItemTax, spec.FieldTax, spec.FieldItems},
	}
	for _, tt := range tests {
		if l.slot[tt.of] < 0 {
			t.Errorf("datum %d has no slot", tt.of)
			continue
		}
		if got := l.name[tt.of]; got != tt.name {
			t.Errorf("datum %d is read from %s, want %s", tt.of, got, tt.name)
		}
		if got := l.member[l.holder[tt.of]]; got != tt.member {
			t.Errorf("datum %d is held by %s, want %s", tt.of, got, tt.member)
		}
	}
	for _, d := range ledgerDatums() {
		if l.slot[d] < 0 || int(l.slot[d]) >= maxSlots {
			t.Errorf("datum %d: slot %d", d, l.slot[d])
		}
	}
}

// TestLedgerRelations: breaking each kind of relation gives its finding,
// with the path and the message a reader acts on.
func TestLedgerRelations(t *testing.T) {
	t.Parallel()
	rec, inv := load(t, "receipt.json"), load(t, "invoice.json")
	tests := []struct {
		name, body, rule string
		want             []string // path: message, in the order reported
	}{
		{"line outstanding", edit(t, rec, `"未核销金额": 117505.50`, `"未核销金额": 117505.00`), ruleOutstanding, []string{"data.收款明细[1].未核销金额: 未核销金额 is 117505.00, want 117505.50 − 0.00 = 117505.50"}},
		{"header outstanding", edit(t, rec, `"未核销金额": 315811.94`, `"未核销金额": 1.00`), ruleOutstanding, []string{"data.收款单.未核销金额: 未核销金额 is 1.00, want 315811.94 − 0.00 = 315811.94"}},
		{"line base", edit(t, rec, `"117505.50"`, `"117505.00"`), ruleBaseCurrency, []string{"data.收款明细[1].应收金额本位币-隐: 应收金额本位币-隐 is 117505.00, want 应收金额 × 汇率 1 = 117505.50"}},
		{"rate", edit(t, rec, `"汇率": 1.0000`, `"汇率": 2`), ruleBaseCurrency, []string{
			// Lines first, then the header, as earlier releases reported them.
			"data.收款明细[0].应收金额本位币-隐: 应收金额本位币-隐 is 198306.44, want 应收金额 × 汇率 2 = 396612.88",
			"data.收款明细[1].应收金额本位币-隐: 应收金额本位币-隐 is 117505.50, want 应收金额 × 汇率 2 = 235011.00",
			"data.收款单.应收金额本位币: 应收金额本位币 is 315811.94, want 应收金额 × 汇率 2 = 631623.88",
			"data.收款单.实收金额本位币: 实收金额本位币 is 315811.94, want 实收金额 × 汇率 2 = 631623.88",
		}},
		{"lines total", edit(t, rec, `"应收金额": 117505.50`, `"应收金额": 117505.00`, `"未核销金额": 117505.50`, `"未核销金额": 117505.00`,
			`"117505.50"`, `"117505.00"`), ruleTotals, []string{"data.收款单.应收金额: 应收金额 is 315811.94, but the 收款明细 lines sum to 315811.44"}},
		{"sources total", edit(t, rec, `"本次应收金额": 315811.94`, `"本次应收金额": 315811.00`), ruleTotals, []string{"data.收款单.应收金额: 应收金额 is 315811.94, but the 源单明细 本次应收金额 sum to 315811.00"}},
		{"line tax", edit(t, inv, `"tax": 2992.99`, `"tax": 2000.00`), ruleLineTax, []string{"data.items[0].tax: tax is 2000.00, but 91 × 253 = 23023.00 and no VAT rate (" + spec.VATRateList() + ") gives it"}},
	}
	v := mustNew(t, Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, f := range v.Check([]byte(tt.body), "") {
				if f.Rule == tt.rule {
					got = append(got, f.Path+": "+f.Message)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s findings:\n%s\nwant:\n%s", tt.rule, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
