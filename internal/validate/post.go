package validate

import (
	"fmt"
	"slices"
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
			c.emit(rQueryEvent, -1, "", "%s", spec.UnknownQueryEvent(event))
		}
	}
	kind := spec.Kind("")
	if c.numberState == 2 {
		kind = c.v.kinds[c.number]
		if evOK && !slices.Contains(ev.Numbers(), c.number) {
			c.eventMismatch(ev)
		}
	} else if evOK {
		kind = ev.Kind
		if c.quotedNumber != 0 && !slices.Contains(ev.Numbers(), c.quotedNumber) {
			// "5009" under CREATE_RECEIVABLE_DOC: the string's finding
			// says the number is the wrong one too.
			c.joinNumberFinding(rBusinessType, fmt.Sprintf("the query event %s carries body number %s, not %d",
				ev.Name, joinInts(ev.Numbers(), " or "), c.quotedNumber))
		}
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
		c.foreignMembers(inReceipt)
		c.receiptData()
		c.receiptLedger()
	case spec.Invoice:
		c.invoiceData()
		c.lineTax()
	}
}

// eventMismatch says the body number is not the query event's. The number
// written in another form (5009.0) is the same fault, in the same value:
// its integer-form warning becomes part of this finding, not a second one,
// unless this rule is ignored.
func (c *checker) eventMismatch(ev spec.Event) {
	msg := fmt.Sprintf("the query event %s carries body number %s, not %d", ev.Name, joinInts(ev.Numbers(), " or "), c.number)
	if c.v.ignored[rEventNumber] {
		return
	}
	if i := c.numberFinding(rIntegerForm); i >= 0 {
		msg += "; and " + c.raw[i].msg
		c.raw = slices.Delete(c.raw, i, i+1)
	}
	c.emitAt(rEventNumber, c.numberOff, spec.FieldBusinessType, "%s", msg)
}

// joinNumberFinding adds what to the finding of rule r on businessType.
func (c *checker) joinNumberFinding(r ruleID, what string) {
	if i := c.numberFinding(r); i >= 0 {
		c.raw[i].msg += "; and " + what
	}
}

// numberFinding is the index in c.raw of the finding of rule r on the
// businessType value, -1 when there is none.
func (c *checker) numberFinding(r ruleID) int {
	return slices.IndexFunc(c.raw, func(f rawFinding) bool {
		return f.rule == r && f.off == c.numberOff && f.path == spec.FieldBusinessType
	})
}

// foreignMembers drops the findings inside the values of data members
// that are not fields of the document (of its kind, in its shape: want):
// such a member is an unknown field, whose value the spec gives no type
// in this document, so it breaks no rule but the unknown-field warning,
// as the schema of the event and shape has it. A duplicate key stays one.
func (c *checker) foreignMembers(want shapeBits) {
	d := c.v.data
	c.raw = slices.DeleteFunc(c.raw, func(r rawFinding) bool {
		return r.member >= 0 && r.rule != rDuplicateKey && d.members[r.member].shapes&want == 0
	})
}

func (c *checker) receiptData() {
	// The members it lacks first: they are what makes the receipt
	// invalid, and the invoice fields it holds, each a warning, may be a
	// whole invoice's. Whether they are is asked only of a receipt that
	// lacks one: a valid receipt pays for no second look.
	asked, foreign := false, false
	for i, m := range c.v.data.members {
		bit := uint64(1) << i
		if m.shapes&inReceipt == 0 {
			foreign = foreign || c.dataSeen&bit != 0
			continue
		}
		if c.dataSeen&bit == 0 {
			how := "lacks"
			if c.dataNull&bit != 0 {
				how = "has a null"
			}
			hint := ""
			if !asked {
				asked = true
				if c.dataAllOf(false) {
					hint = ", and holds only invoice fields: an invoice's document under a receipt's businessType"
				}
			}
			c.emitAt(rReceiptPart, c.dataOff, spec.FieldData, "a receipt's data %s %s%s", how, m.name, hint)
		}
	}
	if !foreign {
		return
	}
	for i, m := range c.v.data.members {
		if m.shapes&inReceipt == 0 && c.dataSeen&(uint64(1)<<i) != 0 {
			c.emitAt(rUnknown, int(c.dataMemberOff[i]), spec.FieldData+"."+m.name, "%s is an invoice field, not a field of a receipt", m.name)
		}
	}
}

// dataAllOf says data holds members and every one is a receipt's
// (receipt) or every one an invoice's (!receipt): under the other kind's
// number or event, a whole document of the other kind, whose findings
// (every member missing, every other one unknown) say so only together.
func (c *checker) dataAllOf(receipt bool) bool {
	held := false
	for i, m := range c.v.data.members {
		if c.dataSeen&(uint64(1)<<i) == 0 {
			continue
		}
		if (m.shapes&inReceipt != 0) != receipt {
			return false
		}
		held = true
	}
	return held
}

// foreignPart reports the receipt member i an invoice's data carries,
// put before the findings inside it: the scan found those first, and they
// read the member as a receipt's (21 fields missing from one receipt key
// dropped into an invoice), while the member itself is what to fix.
func (c *checker) foreignPart(i int, hint string) {
	name := c.v.data.members[i].name
	first, under := -1, 0
	for k, r := range c.raw {
		if int(r.member) == i {
			if first < 0 {
				first = k
			}
			under++
		}
	}
	said := ""
	switch {
	case under == 1:
		said = "; the finding under it reads it as a receipt's"
	case under > 1:
		said = fmt.Sprintf("; the %d findings under it read it as a receipt's", under)
	}
	n := len(c.raw)
	c.emitAt(rForeignPart, int(c.dataMemberOff[i]), spec.FieldData+"."+name, "an invoice's data carries the receipt member %s%s%s", name, hint, said)
	if first >= 0 && len(c.raw) > n {
		f := c.raw[n]
		copy(c.raw[first+1:], c.raw[first:n])
		c.raw[first] = f
	}
}

func (c *checker) invoiceData() {
	d := c.v.data
	var dMark, sMark string
	asked := false
	for i, m := range d.members {
		bit := uint64(1) << i
		if c.dataSeen&bit == 0 {
			continue
		}
		if m.shapes&inReceipt != 0 {
			hint := "" // said once, on the first receipt member
			if !asked {
				asked = true
				if c.dataAllOf(true) {
					hint = ", and no invoice field: a receipt's document under an invoice's businessType"
				}
			}
			c.foreignPart(i, hint)
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
	// (A receipt member keeps its findings: receipt-in-invoice is an
	// error already.)
	c.foreignMembers(bitOf | inReceipt)
	for i, m := range d.members {
		bit := uint64(1) << i
		if m.shapes&inReceipt != 0 {
			continue
		}
		switch {
		case c.dataSeen&bit != 0 && m.shapes&bitOf == 0:
			c.emitAt(rUnknown, int(c.dataMemberOff[i]), spec.FieldData+"."+m.name, "%s is not a field of the %s invoice shape", m.name, shape)
		case (c.dataSeen|c.dataNull)&bit == 0 && m.shapes&bitOf != 0:
			c.emitAt(rMissing, c.dataOff, spec.FieldData+"."+m.name, "%s is absent (%s invoice shape)", m.name, shape)
		}
	}
}

// emitAt records a finding with a path built outside the scan.
func (c *checker) emitAt(r ruleID, off int, path string, format string, args ...any) {
	if c.v.ignored[r] {
		return
	}
	c.raw = append(c.raw, rawFinding{rule: r, off: off, path: path, msg: fmt.Sprintf(format, args...), member: -1})
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
