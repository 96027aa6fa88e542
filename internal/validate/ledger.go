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

// The relations are decided on the decimal text, exactly: amounts carry
// cents, and a base amount is the amount × 汇率 rounded to the cent, so it
// is within half a cent of the product (either cent at an exact half); a
// difference or a total of amounts in cents is exact, and within half a
// cent is then no slack at all; a line's tax is within the Golden Tax
// tolerance of the tax at a rate. Doubles decide first, fast: each is its
// decimal within a rounding (2⁻⁵³, 1.1e-16, of its magnitude), and the few
// roundings of a relation's arithmetic stay within ulps of the magnitudes
// summed. Only a value within that bound of the tolerance, or past a
// double's range, is worked again in math/big from the texts. A slack
// relative to the values, as there was, let a base amount of a hundred
// billion be a cent off, and flagged a right one of 1000000000000000.03 (a
// double reads it as 1e15).
const ulps = 1e-14

// Tolerances, in yuan: half a cent, and the Golden Tax system's per line
// (taxCents).
const (
	halfCent     = 0.005
	taxCents     = spec.LineTaxToleranceCents
	taxTolerance = float64(taxCents) / 100
)

// clearly is the doubles' answer to |d| ≤ tol when d, worked in doubles
// with an error of at most err, tells it (sure); not sure when d lies
// within err of tol, or d or err is NaN, or both are infinite. An infinite
// d with a finite err is a product or sum past a double's range, which no
// amount a field holds is within tol of: sure, and not ok. Small enough to
// be inlined: the ledger runs it for every relation of every document.
func clearly(d, err, tol float64) (ok, sure bool) {
	// tol is a double too, within a rounding of its decimal.
	a, e := math.Abs(d), err+ulps*tol
	if a <= tol-e {
		return true, true
	}
	return false, a > tol+e
}

// exactDecide bounds the numbers worked exactly when the doubles cannot
// tell: a number of more characters, or of a larger exponent, is no amount
// of any ledger, and its doubles decide.
const exactDecide = 1100

// rat is the amount in slot s of record r as the body writes it, exactly;
// nil when it is beyond exactDecide.
func (c *checker) rat(r *record, s int8) *big.Rat {
	t, ok := c.slotText(r, s)
	if !ok {
		return nil
	}
	return exactWithin(t, exactDecide)
}

// withinExact says whether |x − y| ≤ num/den.
func withinExact(x, y *big.Rat, num, den int64) bool {
	d := new(big.Rat).Sub(x, y)
	return d.Abs(d).Cmp(big.NewRat(num, den)) <= 0
}

// diffHolds decides result = of − less, to half a cent.
func (c *checker) diffHolds(r *record, res, of, less int8) bool {
	x, y, z := r.v[res], r.v[of], r.v[less]
	if ok, sure := clearly(x-(y-z), ulps*(math.Abs(x)+math.Abs(y)+math.Abs(z)), halfCent); sure {
		return ok
	}
	if a, b, d := c.rat(r, res), c.rat(r, of), c.rat(r, less); a != nil && b != nil && d != nil {
		return withinExact(a, new(big.Rat).Sub(b, d), 1, 200)
	}
	return math.Abs(x-(y-z)) <= halfCent
}

// convHolds decides base = amount × rate, rounded to the cent.
func (c *checker) convHolds(r *record, base, amount int8, rr *record, rate int8) bool {
	p := r.v[amount] * rr.v[rate]
	if ok, sure := clearly(r.v[base]-p, ulps*(math.Abs(r.v[base])+math.Abs(p)), halfCent); sure {
		return ok
	}
	if b, a, x := c.rat(r, base), c.rat(r, amount), c.rat(rr, rate); b != nil && a != nil && x != nil {
		return withinExact(b, a.Mul(a, x), 1, 200)
	}
	return !math.IsInf(p, 0) && math.Abs(r.v[base]-p) <= halfCent
}

// totalHolds decides header = the sum of the elements' amounts, to half a
// cent; every element holds the amount.
func (c *checker) totalHolds(h *record, hs int8, elems []record, es int8) bool {
	sum, mag := 0.0, math.Abs(h.v[hs])
	for i := range elems {
		sum += elems[i].v[es]
		mag += math.Abs(elems[i].v[es])
	}
	// Each addition rounds once more: the bound grows with the count.
	if ok, sure := clearly(sum-h.v[hs], ulps*float64(len(elems)+2)*mag, halfCent); sure {
		return ok
	}
	if x := c.sumExact(elems, es); x != nil {
		if y := c.rat(h, hs); y != nil {
			return withinExact(x, y, 1, 200)
		}
	}
	return !math.IsInf(sum, 0) && math.Abs(sum-h.v[hs]) <= halfCent
}

// sumExact is the elements' amounts summed exactly, nil when one is beyond
// exactDecide.
func (c *checker) sumExact(elems []record, es int8) *big.Rat {
	x := new(big.Rat)
	for i := range elems {
		y := c.rat(&elems[i], es)
		if y == nil {
			return nil
		}
		x.Add(x, y)
	}
	return x
}

// taxHolds decides whether a line's tax is within the Golden Tax tolerance
// of the tax at one of the VAT rates, on the amount or within it.
func (c *checker) taxHolds(it *record, tax, qty, price int8) bool {
	t, amount := it.v[tax], it.v[qty]*it.v[price]
	err := ulps * (math.Abs(t) + math.Abs(amount))
	var q, p, tx *big.Rat
	read := false // q, p and tx, once the doubles could not tell
	for _, r := range spec.VATRates() {
		for _, per := range [...]int{100, 100 + r} {
			ok, sure := clearly(t-amount*float64(r)/float64(per), err, taxTolerance)
			if !sure {
				if !read {
					q, p, tx, read = c.rat(it, qty), c.rat(it, price), c.rat(it, tax), true
				}
				if q == nil || p == nil || tx == nil {
					ok = !math.IsInf(amount, 0) && math.Abs(t-amount*float64(r)/float64(per)) <= taxTolerance
				} else {
					want := new(big.Rat).Mul(q, p)
					want.Mul(want, big.NewRat(int64(r), int64(per)))
					ok = withinExact(tx, want, taxCents, 100)
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

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
						r.has(res, of, less) && !c.diffHolds(r, res, of, less) {
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
					if !c.convHolds(r, base, amount, rr, l.slot[cv.Rate]) {
						want := r.v[amount] * rate
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
		all := true
		for _, e := range elems {
			all = all && e.has(es)
		}
		h := &heads[0]
		if all && !c.totalHolds(h, hs, elems, es) {
			sum := 0.0
			for _, e := range elems {
				sum += e.v[es]
			}
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
		// The spec does not say whether price includes the tax, and ERPs
		// write both (domain notes §3: 49.90 at 13% holds 5.74), so the
		// tax may be on the amount or within it.
		ok := c.taxHolds(&it, tax, qty, price)
		amount := it.v[qty] * it.v[price]
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
// 12345678901234567890.12 as 12345678901234567168), cut to shownBytes.
func (c *checker) amountText(r *record, s int8) string {
	t, ok := c.slotText(r, s)
	if !ok {
		return fmtNum(r.v[s])
	}
	return string(shorten([]byte(t)))
}

// slotText is the datum in slot s of record r as the body writes it, whole;
// not ok when the slot has no offset in the body. The slot's offset is the
// number's first byte, or the opening quote of a decimal string.
func (c *checker) slotText(r *record, s int8) (string, bool) {
	b := c.lx.Bytes()
	off := int(r.off[s])
	if off < 0 || off >= len(b) {
		return "", false
	}
	if b[off] != '"' {
		e := off
		for e < len(b) && strings.IndexByte("+-.0123456789eE", b[e]) >= 0 {
			e++
		}
		return string(b[off:e]), true
	}
	e, esc := off+1, false
	for e < len(b) && b[e] != '"' {
		if b[e] == '\\' {
			esc = true
			e++
		}
		e++
	}
	return string(c.lx.Content(off, e+1, esc)), true
}

// exactDigits bounds the numbers a message derives exactly: a number of
// more characters, or of a larger exponent, is written from its double
// (1e305 × 2 as beyond a double's range rather than 306 digits).
const exactDigits = 40

// exactAmount is the decimal text t as an exact rational, nil when it is
// longer or of a larger exponent than exactDigits allows.
func exactAmount(t string) *big.Rat { return exactWithin(t, exactDigits) }

// exactWithin is the decimal text t as an exact rational, nil when it is
// longer or of a larger exponent than bound (math/big on a 1e-99999999
// would take a long while).
func exactWithin(t string, bound int) *big.Rat {
	if len(t) > bound {
		return nil
	}
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		if exp, err := strconv.Atoi(strings.TrimPrefix(t[i+1:], "+")); err != nil || exp > bound || exp < -bound {
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
