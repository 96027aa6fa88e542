package load

import (
	"bytes"
	"slices"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/spec"
)

// DocPaths are where a document's numbers are in each kind's body, from
// the spec: its document-number and invoice-number fields outside arrays
// (an invoice's code and invoiceCode, a receipt's 收款单编号), in either
// shape. A receiver keys a document on them; a run makes them distinct.
type DocPaths map[spec.Kind][][]string

// NewDocPaths derives the paths from the spec, leaving out those the user
// sets (kept: --set paths; a number set under them is the user's, sent as
// it is).
func NewDocPaths(kept [][]string) DocPaths {
	out := DocPaths{}
	for _, k := range []spec.Kind{spec.Invoice, spec.Receipt} {
		for _, sh := range spec.Shapes() {
			for _, f := range spec.Identities(spec.Data(k, sh)) {
				id := f.Field.Identity
				if id != spec.DocumentNumber && id != spec.InvoiceNumber || slices.Contains(f.Path, spec.Each) {
					continue
				}
				p := append([]string{spec.FieldData}, f.Path...)
				if slices.ContainsFunc(kept, func(k []string) bool { return len(k) <= len(p) && slices.Equal(k, p[:len(k)]) }) {
					continue
				}
				if !slices.ContainsFunc(out[k], func(q []string) bool { return slices.Equal(p, q) }) {
					out[k] = append(out[k], p)
				}
			}
		}
	}
	return out
}

// offsets are where the last DocDigits digits of each of body's document
// numbers start, for a body of event: a number with fewer trailing digits
// (an invoice's empty code) has none.
func (dp DocPaths) offsets(event string, body []byte) []int {
	e, ok := spec.Lookup(event)
	if !ok {
		return nil
	}
	var offs []int
	for _, p := range dp[e.Kind] {
		sp, ok := memberAt(body, p)
		if !ok || sp.Kind != jsonlex.String || bytes.IndexByte(body[sp.Start:sp.End], '\\') >= 0 {
			continue // no string, or escapes, whose digits may not be digits
		}
		end := sp.End - 1 // the closing quote
		i := end
		for i > sp.Start+1 && body[i-1] >= '0' && body[i-1] <= '9' {
			i--
		}
		if end-i >= attempt.DocDigits {
			offs = append(offs, end-attempt.DocDigits)
		}
	}
	return offs
}

// memberAt is the span of the value at path in the object b holds.
func memberAt(b []byte, path []string) (jsonlex.Span, bool) {
	off := 0
	var sp jsonlex.Span
	for i, name := range path {
		s, ok := jsonlex.Member(b[off:], name)
		if !ok || i < len(path)-1 && s.Kind != jsonlex.Object {
			return jsonlex.Span{}, false
		}
		sp = jsonlex.Span{Kind: s.Kind, Start: off + s.Start, End: off + s.End}
		b = b[:sp.End]
		off = sp.Start
	}
	return sp, true
}
