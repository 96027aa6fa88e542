package validate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/taxid"
)

// post runs the checks that need the whole body: the event against the
// body number, the data members against the document kind and shape, and
// the arithmetic.
func (c *checker) post(event string) {
	var ev spec.Event
	evOK := false
	if event != "" {
		ev, evOK = spec.Lookup(event)
		if !evOK {
			c.emit(rQueryEvent, -1, "", "unknown event %q (valid: %s)", event, listValues(spec.EventNames()))
		}
	}
	kind := spec.Kind("")
	if c.numberState == 2 {
		kind = c.v.kinds[c.number]
		if evOK && !slices.Contains(ev.Numbers(), c.number) {
			c.emitAt(rEventNumber, c.numberOff, spec.FieldBusinessType, "the query event %s carries body number %s, not %d",
				ev.Name, intOr(ev.Numbers()), c.number)
		}
	} else if evOK {
		kind = ev.Kind
	}
	if c.dataOff < 0 {
		return
	}
	d := c.v.data
	if kind == "" {
		// No number and no event: the members tell.
		for i, m := range d.members {
			if c.dataSeen&(1<<i) == 0 {
				continue
			}
			if m.shapes&inReceipt != 0 {
				kind = spec.Receipt
				break
			}
			kind = spec.Invoice
		}
	}
	switch kind {
	case spec.Receipt:
		c.receiptData()
		c.receiptArithmetic()
	case spec.Invoice:
		c.invoiceData()
		c.invoiceArithmetic()
	}
}

func intOr(ns []int) string {
	out := ""
	for i, n := range ns {
		if i > 0 {
			out += " or "
		}
		out += strconv.Itoa(n)
	}
	return out
}

func (c *checker) receiptData() {
	for i, m := range c.v.data.members {
		bit := uint64(1) << i
		switch {
		case m.shapes&inReceipt != 0 && c.dataSeen&bit == 0:
			how := "lacks"
			if c.dataNull&bit != 0 {
				how = "has a null"
			}
			c.emitAt(rReceiptPart, c.dataOff, spec.FieldData, "a receipt's data %s %s", how, m.name)
		case m.shapes&inReceipt == 0 && c.dataSeen&bit != 0:
			c.emitAt(rUnknown, int(c.dataMemberOff[i]), spec.FieldData+"."+m.name, "%s is an invoice field, not a field of a receipt", m.name)
		}
	}
}

func (c *checker) invoiceData() {
	d := c.v.data
	var dMark, sMark string
	for i, m := range d.members {
		bit := uint64(1) << i
		if c.dataSeen&bit == 0 {
			continue
		}
		if m.shapes&inReceipt != 0 {
			c.emitAt(rForeignPart, int(c.dataMemberOff[i]), spec.FieldData+"."+m.name, "an invoice's data carries the receipt member %s", m.name)
			continue
		}
		if m.marker && m.shapes == inDescribed && dMark == "" {
			dMark = m.name
		}
		if m.marker && m.shapes == inSample && sMark == "" {
			sMark = m.name
		}
	}
	statusD, statusS := c.statusVariant == 1, c.statusVariant == 2
	descEvidence := dMark != "" || statusD
	sampEvidence := sMark != "" || statusS
	mixed := descEvidence && sampEvidence
	if mixed {
		var msg string
		switch {
		case dMark != "" && sMark != "":
			msg = fmt.Sprintf("described-shape field %s together with sample-shape field %s", dMark, sMark)
		case dMark != "":
			msg = fmt.Sprintf("an integer status (sample shape) together with described-shape field %s", dMark)
		default:
			msg = fmt.Sprintf("a string status (described shape) together with sample-shape field %s", sMark)
		}
		c.emitAt(rMixedShape, c.dataOff, spec.FieldData, "the invoice mixes the two shapes: %s", msg)
	}
	shape := c.v.shape
	if shape == "" {
		switch {
		case descEvidence:
			shape = spec.Described
		case sampEvidence:
			shape = spec.Sample
		case c.numberState == 2 && c.number == spec.SampleInvoiceNumber:
			shape = spec.Sample
		default:
			shape = spec.Described
		}
	}
	if mixed {
		return
	}
	bitOf := inDescribed
	if shape == spec.Sample {
		bitOf = inSample
	}
	for i, m := range d.members {
		bit := uint64(1) << i
		if m.shapes&inReceipt != 0 {
			continue
		}
		switch {
		case c.dataSeen&bit != 0 && m.shapes&bitOf == 0:
			c.emitAt(rUnknown, int(c.dataMemberOff[i]), spec.FieldData+"."+m.name, "%s is not a field of the %s invoice shape", m.name, shape)
		case c.dataSeen&bit != 0 && m.alt != nil:
			variantShape := inDescribed
			if c.statusVariant == 2 {
				variantShape = inSample
			}
			if variantShape != bitOf {
				want := m.node.typ
				if bitOf&m.altShapes != 0 {
					want = m.alt.typ
				}
				c.emitAt(rType, int(c.dataMemberOff[i]), spec.FieldData+"."+m.name, "want %s in the %s invoice shape", want, shape)
			}
		case (c.dataSeen|c.dataNull)&bit == 0 && m.shapes&bitOf != 0:
			c.emitAt(rMissing, c.dataOff, spec.FieldData+"."+m.name, "%s is absent (%s invoice shape)", m.name, shape)
		}
	}
}

// Amounts carry two decimals: values that agree to half a cent agree.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 0.005+1e-9*math.Max(math.Abs(a), math.Abs(b))
}

func (c *checker) slotPath(member string, idx int, name string) string {
	if idx < 0 {
		return spec.FieldData + "." + member + "." + name
	}
	return spec.FieldData + "." + member + "[" + strconv.Itoa(idx) + "]." + name
}

var (
	headerNames = domainRoles[0].slots
	lineNames   = domainRoles[1].slots
	sourceNames = domainRoles[2].slots
	itemNames   = domainRoles[3].slots
)

func (c *checker) receiptArithmetic() {
	h := &c.header
	hasRate := c.hasHdr && h.has(hRate)
	// Each line: 未核销 = 应收 − 已核销; base amounts = amount × 汇率.
	for li := range c.lines {
		l := &c.lines[li]
		if l.has(lDue, lOff, lOpen) && !near(l.v[lOpen], l.v[lDue]-l.v[lOff]) {
			c.emitAt(rOutstanding, int(l.off[lOpen]), c.slotPath(spec.ReceiptLines, l.idx, lineNames[lOpen]),
				"%s is %s, want %s − %s = %s", lineNames[lOpen], fmtAmt(l.v[lOpen]), fmtAmt(l.v[lDue]), fmtAmt(l.v[lOff]), fmtAmt(l.v[lDue]-l.v[lOff]))
		}
		if hasRate {
			c.baseCheck(l, lOffBase, lOff, h.v[hRate], spec.ReceiptLines, l.idx, lineNames)
			c.baseCheck(l, lDueBase, lDue, h.v[hRate], spec.ReceiptLines, l.idx, lineNames)
		}
	}
	if !c.hasHdr {
		return
	}
	if h.has(hDue, hOff, hOpen) && !near(h.v[hOpen], h.v[hDue]-h.v[hOff]) {
		c.emitAt(rOutstanding, int(h.off[hOpen]), c.slotPath(spec.ReceiptHeader, -1, headerNames[hOpen]),
			"%s is %s, want %s − %s = %s", headerNames[hOpen], fmtAmt(h.v[hOpen]), fmtAmt(h.v[hDue]), fmtAmt(h.v[hOff]), fmtAmt(h.v[hDue]-h.v[hOff]))
	}
	if hasRate {
		c.baseCheck(h, hDueBase, hDue, h.v[hRate], spec.ReceiptHeader, -1, headerNames)
		c.baseCheck(h, hNetBase, hNet, h.v[hRate], spec.ReceiptHeader, -1, headerNames)
	}
	// Header totals are the sums of the detail lines, and the receivable
	// total is what the source lines collect this time.
	for _, t := range [...]struct{ h, l int }{{hDue, lDue}, {hNet, lNet}, {hOff, lOff}} {
		if !h.has(t.h) || len(c.lines) == 0 {
			continue
		}
		sum, all := 0.0, true
		for li := range c.lines {
			all = all && c.lines[li].has(t.l)
			sum += c.lines[li].v[t.l]
		}
		if all && !near(sum, h.v[t.h]) {
			c.emitAt(rTotals, int(h.off[t.h]), c.slotPath(spec.ReceiptHeader, -1, headerNames[t.h]),
				"%s is %s, but the %s lines sum to %s", headerNames[t.h], fmtAmt(h.v[t.h]), spec.ReceiptLines, fmtAmt(sum))
		}
	}
	if h.has(hDue) && len(c.sources) > 0 {
		sum, all := 0.0, true
		for si := range c.sources {
			all = all && c.sources[si].has(sThis)
			sum += c.sources[si].v[sThis]
		}
		if all && !near(sum, h.v[hDue]) {
			c.emitAt(rTotals, int(h.off[hDue]), c.slotPath(spec.ReceiptHeader, -1, headerNames[hDue]),
				"%s is %s, but the %s %s sum to %s", headerNames[hDue], fmtAmt(h.v[hDue]), spec.ReceiptSources, sourceNames[sThis], fmtAmt(sum))
		}
	}
}

func (c *checker) baseCheck(r *record, base, amount int, rate float64, member string, idx int, names []string) {
	if !r.has(base, amount) {
		return
	}
	want := r.v[amount] * rate
	if !near(r.v[base], want) {
		c.emitAt(rBaseCurrency, int(r.off[base]), c.slotPath(member, idx, names[base]),
			"%s is %s, want %s × %s %s = %s", names[base], fmtAmt(r.v[base]), names[amount], spec.FieldRate, strconv.FormatFloat(rate, 'f', -1, 64), fmtAmt(want))
	}
}

func (c *checker) invoiceArithmetic() {
	for ii := range c.items {
		it := &c.items[ii]
		if !it.has(iQty, iPrice, iTax) {
			continue
		}
		amount := it.v[iQty] * it.v[iPrice]
		ok := false
		for _, r := range spec.VATRates() {
			if math.Abs(it.v[iTax]-amount*float64(r)/100) <= spec.LineTaxTolerance+1e-9*math.Abs(amount) {
				ok = true
				break
			}
		}
		if !ok {
			c.emitAt(rLineTax, int(it.off[iTax]), c.slotPath(spec.FieldItems, it.idx, itemNames[iTax]),
				"%s is %s, but %s × %s = %s and no VAT rate (%s) gives it",
				itemNames[iTax], fmtAmt(it.v[iTax]), strconv.FormatFloat(it.v[iQty], 'f', -1, 64),
				strconv.FormatFloat(it.v[iPrice], 'f', -1, 64), fmtAmt(amount), spec.VATRateList())
		}
	}
}

func fmtAmt(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

// emitAt records a finding with a path built outside the scan.
func (c *checker) emitAt(r ruleID, off int, path string, format string, args ...any) {
	if c.v.ignored[r] {
		return
	}
	c.raw = append(c.raw, rawFinding{rule: r, off: off, path: path, msg: fmt.Sprintf(format, args...)})
}

// checkTaxID checks the check characters of a taxpayer id (see taxid.Check).
// It returns "" when the id passes.
func checkTaxID(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	if err := taxid.Check(unsafe.String(&v[0], len(v))); err != nil {
		return err.Error()
	}
	return ""
}
