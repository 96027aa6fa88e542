package load

import (
	"bytes"
	"slices"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/spec"
)

// DocPaths are where a document's numbers are in each kind's body, from
// the spec: its document-number and invoice-number fields outside arrays
// (an invoice's code and invoiceCode, a receipt's spec.FieldReceiptNumber), in either
// shape. A receiver keys a document on them; a run makes them distinct.
type DocPaths map[spec.Kind][]docPath

// docPath is where one number is; byDay says it is an ERP document number,
// which may be numbered by day (PREFIX+yyyyMMdd+NNNN), where an invoice
// number's digits are all sequence past its first few.
type docPath struct {
	path  []string
	byDay bool
	// kept says the user set the number (--set): sent as it is, it still
	// tells the document (documentKey).
	kept bool
}

// NewDocPaths derives the paths from the spec, marking those the user
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
				set := slices.ContainsFunc(kept, func(k []string) bool { return len(k) <= len(p) && slices.Equal(k, p[:len(k)]) })
				if !slices.ContainsFunc(out[k], func(q docPath) bool { return slices.Equal(p, q.path) }) {
					out[k] = append(out[k], docPath{path: p, byDay: id == spec.DocumentNumber, kept: set})
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
		if p.kept {
			continue
		}
		if i, end, ok := trailingDigits(body, p.path); ok && end-i >= attempt.DocDigits {
			offs = append(offs, end-attempt.DocDigits)
		}
	}
	return offs
}

// numbered says whether t, a template of a body of event, has a number
// each delivery makes anew (DocOffs), or the numbers are the user's
// (--set under one of the kind's paths): false for a generated body
// whose every number is missing or too short to carry a serial.
func (dp DocPaths) numbered(event string, t *attempt.Template) bool {
	e, ok := spec.Lookup(event)
	if !ok || dp == nil || len(t.DocOffs) > 0 {
		return true
	}
	for _, p := range dp[e.Kind] {
		if p.kept {
			return true
		}
	}
	return len(dp[e.Kind]) == 0
}

// byDay returns body with each document number that carries its date
// (PREFIX+yyyyMMdd+NNNN, as DocNumber draws it: the date of the document)
// given DocDigits of sequence after that date, for a body of event. Its
// last DocDigits digits, where each delivery writes its document's serial,
// were its month, day and sequence: the serial made impossible dates
// (month 16, day 45) that no longer matched the document's own date. body
// is not changed; a body without such a number is returned as it is.
func (dp DocPaths) byDay(event string, body []byte) []byte {
	e, ok := spec.Lookup(event)
	if !ok {
		return body
	}
	const date, seq = 8, 4 // yyyyMMdd, and the day's sequence after it
	for _, p := range dp[e.Kind] {
		i, end, ok := trailingDigits(body, p.path)
		if !p.byDay || p.kept || !ok || end-i != date+seq || !isDate(body[i:i+date]) {
			continue
		}
		// A number of exactly date+seq digits: a running number of eight
		// digits, the other form, has fewer.
		out := make([]byte, 0, len(body)+attempt.DocDigits-seq)
		out = append(out, body[:i+date]...)
		out = append(out, bytes.Repeat([]byte{'0'}, attempt.DocDigits-seq)...)
		body = append(out, body[i+date:]...)
	}
	return body
}

// trailingDigits is where the digits that end the string at path start
// and end (before the closing quote) in body; false for no string, or one
// with escapes, whose digits may not be digits.
func trailingDigits(body []byte, path []string) (start, end int, ok bool) {
	sp, ok := memberAt(body, path)
	if !ok || sp.Kind != jsonlex.String || bytes.IndexByte(body[sp.Start:sp.End], '\\') >= 0 {
		return 0, 0, false
	}
	end = sp.End - 1 // the closing quote
	start = end
	for start > sp.Start+1 && body[start-1] >= '0' && body[start-1] <= '9' {
		start--
	}
	return start, end, true
}

// isDate says whether eight digits are a date of the calendar, yyyyMMdd,
// from 1900 (time.Parse refuses month 13 and February 30th).
func isDate(d []byte) bool {
	t, err := time.Parse("20060102", string(d))
	return err == nil && t.Year() >= 1900
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

// documentKey is what tells body's document apart, a body of e: its kind
// and numbers (an invoice's code and invoiceCode, a receipt's spec.FieldReceiptNumber);
// "" for a body without any, a document of its own.
func (dp DocPaths) documentKey(body []byte, e spec.Event) string {
	key := string(e.Kind)
	found := false
	for _, p := range dp[e.Kind] {
		key += "\x00"
		sp, ok := memberAt(body, p.path)
		switch {
		case !ok:
		case sp.Kind == jsonlex.String:
			v := jsonlex.StringAt(body, sp)
			key += v
			found = found || v != ""
		default:
			key += string(body[sp.Start:sp.End])
			found = true
		}
	}
	if !found {
		return ""
	}
	return key
}
