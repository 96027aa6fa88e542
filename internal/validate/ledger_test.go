package validate

import (
	"math/big"
	"math/rand/v2"
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
	const beyondDouble = "a number beyond the range of a double (±1.8e308)"
	tests := []struct {
		name, body, rule string
		want             []string // path: message, in the order reported
	}{
		{"line outstanding", edit(t, rec, `"未核销金额": 117505.50`, `"未核销金额": 117505.00`), ruleOutstanding, []string{"data.收款明细[1].未核销金额: 未核销金额 is 117505.00, want 117505.50 − 0.00 = 117505.50"}},
		{"header outstanding", edit(t, rec, `"未核销金额": 315811.94`, `"未核销金额": 1.00`), ruleOutstanding, []string{"data.收款单.未核销金额: 未核销金额 is 1.00, want 315811.94 − 0.00 = 315811.94"}},
		{"line base", edit(t, rec, `"117505.50"`, `"117505.00"`), ruleBaseCurrency, []string{"data.收款明细[1].应收金额本位币-隐: 应收金额本位币-隐 is 117505.00, want 应收金额 × 汇率 1.0000 = 117505.50"}},
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
		{"line tax", edit(t, inv, `"tax": 2992.99`, `"tax": 2000.00`), ruleLineTax, []string{"data.items[0].tax: tax is 2000.00, but 91 × 253.00 = 23023.00 and no VAT rate (" + spec.VATRateList() + ") gives it, on that amount or within it"}},
		// A tax-inclusive price: the ERP row of domain notes §3, and the
		// same row with a tax neither on nor within 49.90.
		{"line tax within the price", edit(t, inv, `"quantity": 91,`, `"quantity": 1,`, `"price": 253.00`, `"price": 49.90`, `"tax": 2992.99`, `"tax": 5.74`), ruleLineTax, nil},
		{"line tax neither on nor within", edit(t, inv, `"quantity": 91,`, `"quantity": 1,`, `"price": 253.00`, `"price": 49.90`, `"tax": 2992.99`, `"tax": 5.00`), ruleLineTax,
			[]string{"data.items[0].tax: tax is 5.00, but 1 × 49.90 = 49.90 and no VAT rate (" + spec.VATRateList() + ") gives it, on that amount or within it"}},
		// Large amounts are held to the same cents: 40 cents off a base
		// amount of 700 million, 10 cents off a tax of 13 million.
		{"large base", edit(t, rec, `"应收金额": 315811.94`, `"应收金额": 712340000.00`, `"应收金额本位币": 315811.94`, `"应收金额本位币": 712340000.40`), ruleBaseCurrency,
			[]string{"data.收款单.应收金额本位币: 应收金额本位币 is 712340000.40, want 应收金额 × 汇率 1.0000 = 712340000.00"}},
		{"large base right", edit(t, rec, `"应收金额": 315811.94`, `"应收金额": 712340000.00`, `"应收金额本位币": 315811.94`, `"应收金额本位币": 712340000.00`), ruleBaseCurrency, nil},
		{"large line tax", edit(t, inv, `"quantity": 91,`, `"quantity": 1,`, `"price": 253.00`, `"price": 100000000.00`, `"tax": 2992.99`, `"tax": 13000000.10`), ruleLineTax,
			[]string{"data.items[0].tax: tax is 13000000.10, but 1 × 100000000.00 = 100000000.00 and no VAT rate (" + spec.VATRateList() + ") gives it, on that amount or within it"}},
		// The decision is exact on the decimal text: past ten billion a
		// cent off was within the doubles' slack and passed, and past a
		// double's precision a right document was flagged (1000000000000000.03
		// reads as 1e15 in a double).
		{"base a cent off past ten billion", edit(t, rec, `"应收金额": 315811.94`, `"应收金额": 100000000000.00`, `"应收金额本位币": 315811.94`, `"应收金额本位币": 100000000000.01`), ruleBaseCurrency,
			[]string{"data.收款单.应收金额本位币: 应收金额本位币 is 100000000000.01, want 应收金额 × 汇率 1.0000 = 100000000000.00"}},
		{"base half a cent off past ten billion", edit(t, rec, `"应收金额": 315811.94`, `"应收金额": 12345678901.23`, `"汇率": 1.0000`, `"汇率": 1.5`, `"应收金额本位币": 315811.94`, `"应收金额本位币": 18518518351.85`), ruleBaseCurrency,
			[]string{
				"data.收款明细[0].应收金额本位币-隐: 应收金额本位币-隐 is 198306.44, want 应收金额 × 汇率 1.5 = 297459.66",
				"data.收款明细[1].应收金额本位币-隐: 应收金额本位币-隐 is 117505.50, want 应收金额 × 汇率 1.5 = 176258.25",
				"data.收款单.实收金额本位币: 实收金额本位币 is 315811.94, want 实收金额 × 汇率 1.5 = 473717.91",
			}},
		{"lines total a cent off past ten billion", edit(t, rec, `"应收金额": 315811.94`, `"应收金额": 100000000000.00`, `"应收金额": 198306.44`, `"应收金额": 100000000000.00`,
			`"应收金额": 117505.50`, `"应收金额": 0.01`, `"本次应收金额": 315811.94`, `"本次应收金额": 100000000000.00`), ruleTotals,
			[]string{"data.收款单.应收金额: 应收金额 is 100000000000.00, but the 收款明细 lines sum to 100000000000.01"}},
		{"line tax 0.07 off past ten billion", edit(t, inv, `"quantity": 91,`, `"quantity": 1,`, `"price": 253.00`, `"price": 1000000000000.00`, `"tax": 2992.99`, `"tax": 130000000000.07`), ruleLineTax,
			[]string{"data.items[0].tax: tax is 130000000000.07, but 1 × 1000000000000.00 = 1000000000000.00 and no VAT rate (" + spec.VATRateList() + ") gives it, on that amount or within it"}},
		{"line tax 0.06 off past ten billion", edit(t, inv, `"quantity": 91,`, `"quantity": 1,`, `"price": 253.00`, `"price": 1000000000000.00`, `"tax": 2992.99`, `"tax": 130000000000.06`), ruleLineTax, nil},
		{"outstanding past a double's precision", edit(t, rec, `"应收金额": 315811.94`, `"应收金额": 1000000000000000.03`, `"已核销金额": 0.00,`, `"已核销金额": 1000000000000000.00,`,
			`"未核销金额": 315811.94`, `"未核销金额": 0.03`), ruleOutstanding, nil},
		{"lines total past a double's precision", edit(t, rec, `"应收金额": 198306.44`, `"应收金额": 1000000000000000.00`, `"应收金额": 117505.50`, `"应收金额": -999999999684188.06`), ruleTotals, nil},
		{"lines total a cent off past a double's precision", edit(t, rec, `"应收金额": 198306.44`, `"应收金额": 1000000000000000.00`, `"应收金额": 117505.50`, `"应收金额": -999999999684188.07`), ruleTotals,
			[]string{"data.收款单.应收金额: 应收金额 is 315811.94, but the 收款明细 lines sum to 315811.93"}},
		{"large line tax within 0.06", edit(t, inv, `"quantity": 91,`, `"quantity": 1,`, `"price": 253.00`, `"price": 100000000.00`, `"tax": 2992.99`, `"tax": 13000000.05`), ruleLineTax, nil},
		// A product or sum past a double's range is infinite; it is no
		// amount the field can hold, so it is reported, not taken as near.
		{"rate past a double", edit(t, rec, `"汇率": 1.0000`, `"汇率": 1e305`), ruleBaseCurrency, []string{
			"data.收款明细[0].应收金额本位币-隐: 应收金额本位币-隐 is 198306.44, want 应收金额 × 汇率 1e305 = " + beyondDouble,
			"data.收款明细[1].应收金额本位币-隐: 应收金额本位币-隐 is 117505.50, want 应收金额 × 汇率 1e305 = " + beyondDouble,
			"data.收款单.应收金额本位币: 应收金额本位币 is 315811.94, want 应收金额 × 汇率 1e305 = " + beyondDouble,
			"data.收款单.实收金额本位币: 实收金额本位币 is 315811.94, want 实收金额 × 汇率 1e305 = " + beyondDouble,
		}},
		{"line tax past a double", edit(t, inv, `"quantity": 91,`, `"quantity": 1e200,`, `"price": 253.00`, `"price": 1e200`), ruleLineTax,
			[]string{"data.items[0].tax: tax is 2992.99, but 1e200 × 1e200 = " + beyondDouble + " and no VAT rate (" + spec.VATRateList() + ") gives it, on that amount or within it"}},
		{"lines total past a double", edit(t, rec, `"应收金额": 198306.44`, `"应收金额": 1.7e308`, `"应收金额": 117505.50`, `"应收金额": 1.7e308`), ruleTotals,
			[]string{"data.收款单.应收金额: 应收金额 is 315811.94, but the 收款明细 lines sum to " + beyondDouble}},
		// Amounts too large for cents print in exponent form, not as
		// hundreds of digits.
		{"huge outstanding", edit(t, rec, `"未核销金额": 315811.94`, `"未核销金额": 1e300`), ruleOutstanding,
			[]string{"data.收款单.未核销金额: 未核销金额 is 1e300, want 315811.94 − 0.00 = 315811.94"}},
		// And numbers too small for it: a rate or a quantity of 1e-300
		// printed as three hundred zeros and a 1.
		{"tiny rate", edit(t, rec, `"汇率": 1.0000`, `"汇率": 1e-300`, `"应收金额本位币-隐": "198306.44"`, `"应收金额本位币-隐": "0.00"`,
			`"应收金额本位币-隐": "117505.50"`, `"应收金额本位币-隐": "0.00"`, `"实收金额本位币": 315811.94`, `"实收金额本位币": 0.00`), ruleBaseCurrency,
			[]string{"data.收款单.应收金额本位币: 应收金额本位币 is 315811.94, want 应收金额 × 汇率 1e-300 = 0.00"}},
		{"tiny quantity", edit(t, inv, `"quantity": 91,`, `"quantity": 1e-300,`), ruleLineTax,
			[]string{"data.items[0].tax: tax is 2992.99, but 1e-300 × 253.00 = 0.00 and no VAT rate (" + spec.VATRateList() + ") gives it, on that amount or within it"}},
		// A finding quotes the body's own numbers, as written, and works
		// what it derives from them in decimals: through a double,
		// 12345678901234567890.12 read 12345678901234567168.00 and
		// 3.000000000000000001 read 3.
		{"huge amount quoted as written", edit(t, rec, `"未核销金额": 315811.94`, `"未核销金额": 12345678901234567890.12`), ruleOutstanding,
			[]string{"data.收款单.未核销金额: 未核销金额 is 12345678901234567890.12, want 315811.94 − 0.00 = 315811.94"}},
		{"huge amount derived exactly", edit(t, rec, `"应收金额": 315811.94`, `"应收金额": 12345678901200000000.00`, `"应收金额本位币": 315811.94`, `"应收金额本位币": 12345678901200000000.00`,
			`"未核销金额": 315811.94`, `"未核销金额": 12345678901234567890.12`), ruleOutstanding,
			[]string{"data.收款单.未核销金额: 未核销金额 is 12345678901234567890.12, want 12345678901200000000.00 − 0.00 = 12345678901200000000.00"}},
		{"precise quantity quoted as written", edit(t, inv, `"quantity": 91,`, `"quantity": 3.000000000000000001,`, `"tax": 2992.99`, `"tax": 2000.00`), ruleLineTax,
			[]string{"data.items[0].tax: tax is 2000.00, but 3.000000000000000001 × 253.00 = 759.00 and no VAT rate (" + spec.VATRateList() + ") gives it, on that amount or within it"}},
		{"rate quoted as written", edit(t, rec, `"汇率": 1.0000`, `"汇率": 7.123456789012345678`, `"应收金额本位币-隐": "198306.44"`, `"应收金额本位币-隐": "1412627.36"`,
			`"应收金额本位币-隐": "117505.50"`, `"应收金额本位币-隐": "837045.35"`, `"实收金额本位币": 315811.94`, `"实收金额本位币": 2249672.71`), ruleBaseCurrency,
			[]string{"data.收款单.应收金额本位币: 应收金额本位币 is 315811.94, want 应收金额 × 汇率 7.123456789012345678 = 2249672.71"}},
		{"huge lines summed exactly", edit(t, rec, `"应收金额": 198306.44`, `"应收金额": 12345678901234567890.12`), ruleTotals,
			[]string{"data.收款单.应收金额: 应收金额 is 315811.94, but the 收款明细 lines sum to 12345678901234685395.62"}},
		{"decimal string quoted as written", edit(t, rec, `"117505.50"`, `"117505.00"`), ruleBaseCurrency,
			[]string{"data.收款明细[1].应收金额本位币-隐: 应收金额本位币-隐 is 117505.00, want 应收金额 × 汇率 1.0000 = 117505.50"}},
		// Past a trillion the doubles cannot tell a cent from half a
		// cent: the decimals decide, to half a cent.
		{"outstanding a cent off past a trillion", edit(t, rec, `"应收金额": 315811.94`, `"应收金额": 1000000000000.00`, `"未核销金额": 315811.94`, `"未核销金额": 1000000000000.01`), ruleOutstanding,
			[]string{"data.收款单.未核销金额: 未核销金额 is 1000000000000.01, want 1000000000000.00 − 0.00 = 1000000000000.00"}},
		// A relation whose amount is absent is not checked: the missing
		// field is missing-field's, not a total or a tax of 0.
		{"header total absent", edit(t, rec, `"应收金额": 315811.94,`, ``), ruleTotals, nil},
		{"a line's amount absent", edit(t, rec, `"应收金额": 198306.44,`, ``), ruleTotals, nil},
		{"decimal string with escapes", edit(t, rec, `"117505.50"`, `"\u0031\u00317505.00"`), ruleBaseCurrency,
			[]string{"data.收款明细[1].应收金额本位币-隐: 应收金额本位币-隐 is 117505.00, want 应收金额 × 汇率 1.0000 = 117505.50"}},
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

// TestBaseAmountToTheCent: a base-currency amount rounded half up to the
// cent from the amount × 汇率 passes, and one a cent off (and 0.006 off the
// exact product) is reported, for amounts up to ten trillion: the decision
// is the decimals', not the doubles'.
func TestBaseAmountToTheCent(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	rec := load(t, "receipt.json")
	r := rand.New(rand.NewPCG(1, 2))
	text := func(units *big.Int, scale int) string {
		return new(big.Rat).SetFrac(units, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)).FloatString(scale)
	}
	reported := func(amount, rate, base string) bool {
		body := strings.Replace(rec, `"应收金额": 315811.94`, `"应收金额": `+amount, 1)
		body = strings.Replace(body, `"汇率": 1.0000`, `"汇率": `+rate, 1)
		body = strings.Replace(body, `"应收金额本位币": 315811.94`, `"应收金额本位币": `+base, 1)
		for _, f := range v.Check([]byte(body), "") {
			if f.Rule == ruleBaseCurrency && f.Path == "data.收款单.应收金额本位币" {
				return true
			}
		}
		return false
	}
	for i := range 20000 {
		maxCents := int64(1e11) // a billion
		if i%2 == 1 {
			maxCents = 1e15 // ten trillion
		}
		cents := big.NewInt(r.Int64N(maxCents))
		rateScale := 4 + r.IntN(3) // 4 to 6 decimals
		rate := big.NewInt(r.Int64N(10 * pow10(rateScale)))
		// base cents = round half up (cents × rate / 10^rateScale)
		prod := new(big.Int).Mul(cents, rate)
		half := new(big.Int).Div(big.NewInt(pow10(rateScale)), big.NewInt(2))
		base := new(big.Int).Div(prod.Add(prod, half), big.NewInt(pow10(rateScale)))
		amount, rt := text(cents, 2), text(rate, rateScale)
		if reported(amount, rt, text(base, 2)) {
			t.Fatalf("%v × %v: the rounded %v is reported", amount, rt, text(base, 2))
		}
		exact := new(big.Rat).SetFrac(new(big.Int).Mul(cents, rate), big.NewInt(100*pow10(rateScale)))
		for _, off := range []int64{-1, 1} {
			wrong := new(big.Int).Add(base, big.NewInt(off))
			// A product at an exact half cent is as near the cent
			// below as the one above: the cent off must be 0.006 off.
			dist := new(big.Rat).Sub(new(big.Rat).SetFrac(wrong, big.NewInt(100)), exact)
			if dist.Abs(dist).Cmp(big.NewRat(6, 1000)) < 0 {
				continue
			}
			if !reported(amount, rt, text(wrong, 2)) {
				t.Fatalf("%v × %v: %v, a cent off the rounded %v, passes", amount, rt, text(wrong, 2), text(base, 2))
			}
		}
	}
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}
