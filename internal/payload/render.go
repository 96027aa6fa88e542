package payload

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/whsim/whsim/internal/fake"
	"github.com/whsim/whsim/internal/spec"
)

// layout is the field table of a document kind in a shape, with the set of
// domain values it carries, so that the generator draws only those.
type layout struct {
	fields []spec.Field
	has    [spec.NumDatums]bool
}

// layouts are built once from the spec, when the first payload is drawn
// (not at start-up), and only read after.
var layouts = sync.OnceValue(func() (m [2][2]*layout) {
	for k, kind := range []spec.Kind{spec.Invoice, spec.Receipt} {
		for s, shape := range spec.Shapes() {
			data := spec.Data(kind, shape)
			l := &layout{fields: data.Fields}
			var mark func([]spec.Field)
			mark = func(fs []spec.Field) {
				for _, f := range fs {
					l.has[f.Of] = true
					mark(f.Fields)
				}
			}
			mark(l.fields)
			m[k][s] = l
		}
	}
	return m
})

func layoutOf(k spec.Kind, s spec.Shape) *layout {
	ki, si := 0, 0
	if k == spec.Receipt {
		ki = 1
	}
	if s == spec.Sample {
		si = 1
	}
	return layouts()[ki][si]
}

// cursor is where the renderer stands in a document: the element of each
// array it is in, and the party and currency of the object it renders.
type cursor struct {
	inv   *invoiceDoc
	rec   *receiptDoc
	elem  int // index of the current item, line or source
	party *party
	cur   *fake.Currency
}

// render builds the object of fields from the document under c.
func render(fields []spec.Field, c *cursor) *Obj {
	o := &Obj{Members: make([]member, len(fields))}
	for i := range fields {
		f := &fields[i]
		var v any
		switch {
		case f.Type == spec.Array:
			elems := make([]any, c.count(f.Of))
			for j := range elems {
				in := *c
				in.elem = j
				elems[j] = render(f.Fields, &in)
			}
			v = elems
		case f.Type == spec.Object && f.Fields != nil:
			v = render(f.Fields, c.enter(f.Of))
		case f.Format == spec.Decimal2:
			v = c.decimal(f.Of).String()
		default:
			v = c.value(f.Of)
		}
		o.Members[i] = member{f.Name, v}
	}
	return o
}

func (c *cursor) count(of spec.Datum) int {
	switch of {
	case spec.InvItems:
		return len(c.inv.items)
	case spec.RecLines:
		return len(c.rec.lines)
	case spec.RecSources:
		return len(c.rec.sources)
	}
	panic(fmt.Sprintf("payload: datum %d is not a list", of))
}

// enter returns the cursor inside an object member: a customer or a
// currency, or the receipt header, which needs nothing new.
func (c *cursor) enter(of spec.Datum) *cursor {
	in := *c
	switch of {
	case spec.ReceiptDoc:
		return c
	case spec.RecCustomer:
		in.party = &c.rec.customer
	case spec.RecCurrency:
		in.cur = &c.rec.currency
	case spec.RecBaseCurrency:
		in.cur = &c.rec.base
	default:
		panic(fmt.Sprintf("payload: datum %d is not an object", of))
	}
	return &in
}

// value returns a scalar domain value as the JSON document holds it. A
// datum the documents do not have is a bug in the spec's tables, which a
// test renders in full.
func (c *cursor) value(of spec.Datum) any {
	switch of {
	case spec.InvCode:
		return c.inv.code
	case spec.InvType:
		return "VALUE_ADDED_TAX"
	case spec.InvTypeCode:
		return c.inv.typeCode
	case spec.InvTitle:
		return c.inv.title
	case spec.InvNumber:
		return c.inv.number
	case spec.InvTaxID:
		return c.inv.taxID
	case spec.InvSupplierCode:
		return c.inv.supplier.code
	case spec.InvSupplierName:
		return c.inv.supplier.name
	case spec.InvStaffCode:
		return c.inv.staff.code
	case spec.InvStaffName:
		return c.inv.staff.name
	case spec.InvApplicantCode:
		return c.inv.applicant.code
	case spec.InvApplicantName:
		return c.inv.applicant.name
	case spec.InvRemark:
		return c.inv.remark
	case spec.InvCurrency:
		return c.inv.currency
	case spec.InvCreateType:
		return c.inv.createType
	case spec.InvStatus:
		return c.inv.status
	case spec.InvStatusNumber:
		return int64(spec.SampleStatus(c.inv.status))
	case spec.InvCreated:
		return c.inv.created.UnixMilli()

	case spec.ItemOrder:
		return c.inv.items[c.elem].order
	case spec.ItemCode:
		return c.inv.items[c.elem].code
	case spec.ItemName:
		return c.inv.items[c.elem].name
	case spec.ItemAttributes:
		it := &c.inv.items[c.elem]
		attrs := &Obj{Members: make([]member, len(it.attrs))}
		for i, a := range it.attrs {
			attrs.Members[i] = member{a.Key, a.Value}
		}
		return attrs
	case spec.ItemRemark:
		return c.inv.items[c.elem].remark

	case spec.RecNumber:
		return c.rec.number
	case spec.RecType:
		return c.rec.typ
	case spec.RecState:
		return c.rec.state
	case spec.RecAudit:
		return c.rec.audit
	case spec.RecWriteOff:
		return c.rec.writeOff
	case spec.RecDate:
		return c.rec.date.UnixMilli()
	case spec.RecCurrencyName:
		return c.rec.currency.Name
	case spec.RecVoucher:
		return c.rec.voucher
	case spec.RecJumpFlag:
		return c.rec.jumpFlag

	case spec.Seq:
		return strconv.Itoa(c.elem + 1)
	case spec.LinePurpose:
		return c.rec.lines[c.elem].purpose

	case spec.SrcNumber:
		return c.rec.sources[c.elem].number
	case spec.SrcType:
		return c.rec.sources[c.elem].typ
	case spec.SrcDueDate:
		return c.rec.sources[c.elem].dueDate.UnixMilli()
	case spec.SrcRemark:
		return c.rec.sources[c.elem].remark

	case spec.PartyCode:
		return c.party.code
	case spec.PartyName:
		return c.party.name
	case spec.CurCode:
		return c.cur.Code
	case spec.CurName:
		return c.cur.Name
	}
	if v, ok := c.amount(of); ok {
		return v
	}
	panic(fmt.Sprintf("payload: no domain value for datum %d", of))
}

// decimal is an amount of the document.
func (c *cursor) decimal(of spec.Datum) fake.Decimal {
	if v, ok := c.amount(of); ok {
		return v
	}
	panic(fmt.Sprintf("payload: datum %d is not an amount", of))
}

// amount returns an amount of the document, drawn or computed, typed: the
// ledger reads several amounts for one it computes.
func (c *cursor) amount(of spec.Datum) (fake.Decimal, bool) {
	switch of {
	case spec.ItemQuantity:
		return c.inv.items[c.elem].qty, true
	case spec.ItemPrice:
		return c.inv.items[c.elem].price, true
	case spec.RecRate:
		return c.rec.currency.Rate, true
	case spec.LineDue:
		return c.rec.lines[c.elem].due, true
	case spec.LineReceived:
		return c.rec.lines[c.elem].received(), true
	case spec.LineNet:
		return c.rec.lines[c.elem].net(), true
	case spec.LineDiscount:
		return c.rec.lines[c.elem].discount, true
	case spec.LineAfterDiscount:
		return c.rec.lines[c.elem].afterDiscount(), true
	case spec.LineOverShort:
		return c.rec.lines[c.elem].overShort, true
	case spec.LineFee:
		return c.rec.lines[c.elem].fee, true
	case spec.LineWrittenOff:
		return c.rec.lines[c.elem].writtenOff, true
	case spec.SrcDue:
		return c.rec.sources[c.elem].due, true
	case spec.SrcThis:
		return c.rec.sources[c.elem].this, true
	case spec.SrcPlanned:
		return c.rec.sources[c.elem].planned, true
	case spec.SrcOutstanding:
		s := &c.rec.sources[c.elem]
		return s.due.Sub(s.this), true
	}
	return c.ledger(of)
}

// ledger computes an amount the spec's ledger relations define from
// others, as the validator checks it.
func (c *cursor) ledger(of spec.Datum) (fake.Decimal, bool) {
	switch r := ledgerRules()[of]; r.kind {
	case difference:
		d := spec.Differences()[r.i]
		return c.decimal(d.Of).Sub(c.decimal(d.Less)), true
	case conversion:
		cv := spec.Conversions()[r.i]
		return c.decimal(cv.Amount).Mul(c.decimal(cv.Rate), 2), true
	case total:
		// Each total is read a few times (itself, what is outstanding,
		// its base amount): summed once per document.
		if c.rec.summed&(1<<r.i) != 0 {
			return c.rec.sums[r.i], true
		}
		t := spec.Totals()[r.i]
		sum := fake.Money(0)
		for i := range c.count(t.List) {
			in := *c
			in.elem = i
			sum = sum.Add(in.decimal(t.Elem))
		}
		c.rec.sums[r.i], c.rec.summed = sum, c.rec.summed|1<<r.i
		return sum, true
	case lineTax:
		tx := spec.LineTax()
		return lineVAT(c.decimal(tx.Quantity), c.decimal(tx.Price), c.inv.items[c.elem].rate), true
	}
	return fake.Decimal{}, false
}

// A ledgerRule says which relation computes a datum.
type ledgerRule struct {
	kind uint8
	i    int
}

const (
	noRule uint8 = iota
	difference
	conversion
	total
	lineTax
)

// ledgerRules index the relations by the datum each computes, built once
// when the first payload is drawn: a receipt computes a dozen amounts. A
// header amount two totals name is computed by the first; the generator
// makes the others hold.
var ledgerRules = sync.OnceValue(func() *[spec.NumDatums]ledgerRule {
	r := new([spec.NumDatums]ledgerRule)
	set := func(of spec.Datum, kind uint8, i int) {
		if r[of].kind == noRule {
			r[of] = ledgerRule{kind, i}
		}
	}
	for i, d := range spec.Differences() {
		set(d.Result, difference, i)
	}
	for i, cv := range spec.Conversions() {
		set(cv.Base, conversion, i)
	}
	if len(spec.Totals()) > len(receiptDoc{}.sums) {
		panic("payload: more totals than a receiptDoc caches")
	}
	for i, t := range spec.Totals() {
		set(t.Header, total, i)
	}
	set(spec.LineTax().Tax, lineTax, 0)
	return r
})
