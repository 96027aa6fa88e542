package validate

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/spec"
)

// The ledger checks: the relations of spec.Differences, Conversions, Totals
// and LineTax, which the generator computes from the same tables. The scan
// keeps each amount a relation reads in a slot of the record (an object
// such as the receipt header or one of its lines) that holds it, and the
// post-pass checks the relations over the records.

// maxRecords and maxSlots bound the records and the amounts of a record.
const (
	maxRecords = 4
	maxSlots   = 8
)

// record is the amounts of one record of a document, by slot.
type record struct {
	v   [maxSlots]float64
	off [maxSlots]int32
	set uint16
	idx int // the element's index, -1 for an object that is no element
}

func (r *record) has(slots ...int8) bool {
	for _, s := range slots {
		if r.set&(1<<s) == 0 {
			return false
		}
	}
	return true
}

// ledger places each datum the relations read: its slot, its field's name,
// the record that holds it, and that record's data member for paths.
type ledger struct {
	slot   [spec.NumDatums]int8
	name   [spec.NumDatums]string
	holder [spec.NumDatums]int8 // record kind, -1 for none
	member [maxRecords]string
	of     [maxRecords]spec.Datum // the datum of each record kind's object
	list   [maxRecords]bool       // the records are an array's elements
}

// ledgerDatums lists the datums the relations read, in a fixed order.
func ledgerDatums() []spec.Datum {
	var ds []spec.Datum
	for _, d := range spec.Differences() {
		ds = append(ds, d.Result, d.Of, d.Less)
	}
	for _, cv := range spec.Conversions() {
		ds = append(ds, cv.Base, cv.Amount, cv.Rate)
	}
	for _, t := range spec.Totals() {
		ds = append(ds, t.Header, t.Elem)
	}
	tx := spec.LineTax()
	return append(ds, tx.Tax, tx.Quantity, tx.Price)
}

// newLedger finds the fields of the relations' datums in the spec model
// and marks the data nodes that hold them. A datum no field carries fails
// New (and its test) rather than silently disabling a check.
func newLedger(d *node) (*ledger, error) {
	l := &ledger{}
	for i := range l.slot {
		l.slot[i], l.holder[i] = -1, -1
	}
	want := [spec.NumDatums]bool{}
	for _, dt := range ledgerDatums() {
		want[dt] = true
	}
	var slots [maxRecords]int8
	var walk func(holder spec.Field, fs []spec.Field) error
	walk = func(holder spec.Field, fs []spec.Field) error {
		for _, f := range fs {
			if err := walk(f, f.Fields); err != nil {
				return err
			}
			if !want[f.Of] {
				continue
			}
			if holder.Of == spec.NoDatum {
				return fmt.Errorf("validate: the ledger amount %s is in no record", f.Name)
			}
			if l.slot[f.Of] >= 0 {
				// A datum the model repeats (the header's four exchange
				// rates) is read from the field that carries it first.
				continue
			}
			k := -1
			for i := range l.member {
				if l.member[i] != "" && l.of[i] == holder.Of {
					k = i
				}
			}
			if k < 0 {
				for k = 0; k < maxRecords && l.member[k] != ""; k++ {
				}
				if k == maxRecords {
					return fmt.Errorf("validate: the ledger reads more than %d records", maxRecords)
				}
				l.member[k], l.of[k], l.list[k] = holder.Name, holder.Of, holder.Type == spec.Array
			}
			if slots[k] == maxSlots {
				return fmt.Errorf("validate: the ledger reads more than %d amounts of %s", maxSlots, holder.Name)
			}
			l.slot[f.Of], l.name[f.Of], l.holder[f.Of] = slots[k], f.Name, int8(k)
			slots[k]++
		}
		return nil
	}
	for _, kind := range []spec.Kind{spec.Invoice, spec.Receipt} {
		for _, shape := range spec.Shapes() {
			if err := walk(spec.Field{}, spec.Data(kind, shape).Fields); err != nil {
				return nil, err
			}
		}
	}
	for _, dt := range ledgerDatums() {
		if l.slot[dt] < 0 {
			return nil, fmt.Errorf("validate: no field of the model carries datum %d, which the ledger reads", dt)
		}
	}
	l.attach(d)
	return l, nil
}

// attach marks the nodes of the records' objects and of their amounts.
func (l *ledger) attach(n *node) {
	if n == nil {
		return
	}
	for k, of := range l.of {
		if l.member[k] != "" && of == n.of && n.members != nil {
			n.record = int8(k)
		}
	}
	for _, m := range n.members {
		if of := m.node.of; n.record >= 0 && l.slot[of] >= 0 && l.holder[of] == n.record && l.name[of] == m.name {
			m.node.slot = l.slot[of]
		}
		l.attach(m.node)
		l.attach(m.alt)
	}
	l.attach(n.elem)
}

// records are the records of a document that hold the datum.
func (c *checker) records(of spec.Datum) []record {
	return c.recs[c.v.ledger.holder[of]]
}

// first is the datum's amount in the first record that holds it, and that
// record.
func (c *checker) first(of spec.Datum) (float64, *record, bool) {
	rs, s := c.records(of), c.v.ledger.slot[of]
	if len(rs) == 0 || !rs[0].has(s) {
		return 0, nil, false
	}
	return rs[0].v[s], &rs[0], true
}

// slotPath is the path of the datum's field in record r.
func (c *checker) slotPath(of spec.Datum, r *record) string {
	l := c.v.ledger
	member := l.member[l.holder[of]]
	if r.idx < 0 {
		return spec.FieldData + "." + member + "." + l.name[of]
	}
	return spec.FieldData + "." + member + "[" + strconv.Itoa(r.idx) + "]." + l.name[of]
}

// Amounts carry two decimals: values that agree to half a cent agree.
// A product or sum past a double's range (汇率 1e305) is infinite, and the
// slack on an infinite value is infinite too: such a value is near nothing,
// since no field holds it (validate refuses one that does as a type error).
func near(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return false
	}
	return math.Abs(a-b) <= 0.005+roundoff(math.Max(math.Abs(a), math.Abs(b)))
}

// roundoff is what the arithmetic in doubles may be off on a value of
// magnitude m: a double holds 15-16 significant digits, and the sums and
// products round a few times. A slack of a billionth, as there was, let a
// base amount of 700 million be 70 cents off.
func roundoff(m float64) float64 { return 1e-13 * m }

// receiptLedger checks a receipt's differences, base-currency amounts and
// totals.
func (c *checker) receiptLedger() {
	l := c.v.ledger
	// Lines before the header, each record's relations in table order:
	// the order whsim has always reported them in.
	for _, lists := range [...]bool{true, false} {
		for k := range l.member {
			if l.member[k] == "" || l.list[k] != lists {
				continue
			}
			for ri := range c.recs[k] {
				r := &c.recs[k][ri]
				for _, d := range spec.Differences() {
					if res, of, less := l.slot[d.Result], l.slot[d.Of], l.slot[d.Less]; l.holder[d.Result] == int8(k) &&
						r.has(res, of, less) && !near(r.v[res], r.v[of]-r.v[less]) {
						x, y := c.amountText(r, of), c.amountText(r, less)
						c.emitAt(rOutstanding, int(r.off[res]), c.slotPath(d.Result, r),
							"%s is %s, want %s − %s = %s", l.name[d.Result], c.amountText(r, res), x, y,
							derived(r.v[of]-r.v[less], x, y, (*big.Rat).Sub))
					}
				}
				for _, cv := range spec.Conversions() {
					base, amount := l.slot[cv.Base], l.slot[cv.Amount]
					rate, rr, ok := c.first(cv.Rate)
					if l.holder[cv.Base] != int8(k) || !ok || !r.has(base, amount) {
						continue
					}
					if want := r.v[amount] * rate; !near(r.v[base], want) {
						x, y := c.amountText(r, amount), c.amountText(rr, l.slot[cv.Rate])
						c.emitAt(rBaseCurrency, int(r.off[base]), c.slotPath(cv.Base, r),
							"%s is %s, want %s × %s %s = %s", l.name[cv.Base], c.amountText(r, base), l.name[cv.Amount], l.name[cv.Rate], y,
							derived(want, x, y, (*big.Rat).Mul))
					}
				}
			}
		}
	}
	for _, t := range spec.Totals() {
		heads, elems, hs, es := c.records(t.Header), c.records(t.Elem), l.slot[t.Header], l.slot[t.Elem]
		if len(heads) == 0 || !heads[0].has(hs) || len(elems) == 0 {
			continue
		}
		sum, all := 0.0, true
		for _, e := range elems {
			all = all && e.has(es)
			sum += e.v[es]
		}
		h := &heads[0]
		if all && !near(sum, h.v[hs]) {
			exact := fmtAmt(sum)
			if x := exactAmount(c.amountText(&elems[0], es)); x != nil {
				for i := 1; x != nil && i < len(elems); i++ {
					if y := exactAmount(c.amountText(&elems[i], es)); y != nil {
						x.Add(x, y)
					} else {
						x = nil
					}
				}
				if x != nil {
					exact = fmtExact(x)
				}
			}
			// "the <lines> lines", or "the <lines> <field>" when the
			// lines' amount is named otherwise.
			of := l.member[l.holder[t.Elem]] + " lines"
			if l.name[t.Elem] != l.name[t.Header] {
				of = l.member[l.holder[t.Elem]] + " " + l.name[t.Elem]
			}
			c.emitAt(rTotals, int(h.off[hs]), c.slotPath(t.Header, h),
				"%s is %s, but the %s sum to %s", l.name[t.Header], c.amountText(h, hs), of, exact)
		}
	}
}

// lineTax checks each invoice line's tax against the VAT rates.
func (c *checker) lineTax() {
	l, tx := c.v.ledger, spec.LineTax()
	tax, qty, price := l.slot[tx.Tax], l.slot[tx.Quantity], l.slot[tx.Price]
	for _, it := range c.records(tx.Tax) {
		if !it.has(qty, price, tax) {
			continue
		}
		amount := it.v[qty] * it.v[price]
		ok := false
		// An amount past a double's range has infinite slack and would
		// match every tax: no rate gives a tax that a field can hold.
		// The spec does not say whether price includes the tax, and ERPs
		// write both (domain notes §3: 49.90 at 13% holds 5.74), so the
		// tax may be on the amount or within it.
		slack := spec.LineTaxTolerance + roundoff(math.Abs(amount))
		for _, r := range spec.VATRates() {
			on, within := amount*float64(r)/100, amount*float64(r)/float64(100+r)
			if !math.IsInf(amount, 0) && (math.Abs(it.v[tax]-on) <= slack || math.Abs(it.v[tax]-within) <= slack) {
				ok = true
				break
			}
		}
		if !ok {
			x, y := c.amountText(&it, qty), c.amountText(&it, price)
			c.emitAt(rLineTax, int(it.off[tax]), c.slotPath(tx.Tax, &it),
				"%s is %s, but %s × %s = %s and no VAT rate (%s) gives it, on that amount or within it",
				l.name[tx.Tax], c.amountText(&it, tax), x, y,
				derived(amount, x, y, (*big.Rat).Mul), spec.VATRateList())
		}
	}
}

// fmtAmt writes an amount with its cents. Past 1e21, where cents mean
// nothing in a double, it takes the exponent form (1e+300) rather than
// three hundred digits; an infinite one is a product or sum that
// overflowed.
func fmtAmt(f float64) string {
	if math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', 2, 64)
	}
	return fmtNum(f)
}

// fmtNum writes a number as short as it reads back, in exponent form past
// 1e21 and below 1e-6 as JavaScript does: 1e-300 in 'f' form is three
// hundred digits.
func fmtNum(f float64) string {
	switch {
	case math.IsInf(f, 0):
		return "a number beyond the range of a double (±1.8e308)"
	case math.Abs(f) < 1e21 && (f == 0 || math.Abs(f) >= 1e-6):
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// amountText is the datum in slot s of record r as the body writes it: a
// finding quotes the sender's own number, never its double (which reads
// 12345678901234567890.12 as 12345678901234567168). The slot's offset is
// the number's first byte, or the opening quote of a decimal string.
func (c *checker) amountText(r *record, s int8) string {
	b := c.lx.Bytes()
	off := int(r.off[s])
	if off < 0 || off >= len(b) {
		return fmtNum(r.v[s])
	}
	if b[off] != '"' {
		e := off
		for e < len(b) && strings.IndexByte("+-.0123456789eE", b[e]) >= 0 {
			e++
		}
		return string(shorten(b[off:e]))
	}
	e, esc := off+1, false
	for e < len(b) && b[e] != '"' {
		if b[e] == '\\' {
			esc = true
			e++
		}
		e++
	}
	return string(shorten(c.lx.Content(off, e+1, esc)))
}

// exactDigits bounds the numbers derived exactly: a number of more
// characters, or of a larger exponent, is worked in doubles, as checked
// (math/big on a 1e-99999999 would take a long while).
const exactDigits = 40

// exactAmount is the decimal text t as an exact rational, nil when it is
// longer or of a larger exponent than exactDigits allows.
func exactAmount(t string) *big.Rat {
	if len(t) > exactDigits {
		return nil
	}
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		if exp, err := strconv.Atoi(strings.TrimPrefix(t[i+1:], "+")); err != nil || exp > exactDigits || exp < -exactDigits {
			return nil
		}
	}
	x, ok := new(big.Rat).SetString(t)
	if !ok {
		return nil
	}
	return x
}

// derived is op over the texts x and y worked exactly, as the finding's
// value derived from them; f, the double the check used, when they are
// beyond exactAmount.
func derived(f float64, x, y string, op func(z, a, b *big.Rat) *big.Rat) string {
	a, b := exactAmount(x), exactAmount(y)
	if a == nil || b == nil {
		return fmtAmt(f)
	}
	return fmtExact(op(new(big.Rat), a, b))
}

// fmtExact writes a value derived exactly with its cents, as the check
// reads amounts (to half a cent).
func fmtExact(x *big.Rat) string { return x.FloatString(2) }
