// Package spec is the single source of truth for the webhook interface in
// shared/spec.md: the four events, the two invoice shapes, the receipt
// document and every field with its JSON type, format, enumeration and
// meaning. The generator, validator, schema export, fixtures, help text and
// shell completion all read it.
//
// The invoice has one table for both shapes: rows say what the sample shape
// leaves out or names differently, and Data projects the table onto a shape.
// Each field names the domain value it carries (Field.Of, a Datum: the
// generator renders by it) and, where it identifies a person or a company,
// the kind of identity (Field.Identity; Identities lists them for an
// anonymizer). The string formats (format.go) and the domain rules the
// generator and validator share (ledger.go) are defined here once too.
//
// The tables are read-only; callers must not modify the slices they get.
package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/whsim/whsim/internal/suggest"
)

// Kind is the kind of document an event's data carries.
type Kind string

const (
	Invoice Kind = "purchase invoice"
	Receipt Kind = "receipt document"
)

// Shape names one of the body shapes the spec gives for a document.
type Shape string

const (
	// Described is the shape of the spec's field description tables.
	Described Shape = "described"
	// Sample is the shape of the spec's sample request bodies: for invoices a
	// different set of fields and body number 4000, for receipts the hidden
	// fields that only the curl samples carry.
	Sample Shape = "sample"
)

// Shapes lists the shapes in the order help and completion show them.
func Shapes() []Shape { return []Shape{Described, Sample} }

// ParseShape returns the shape named s.
func ParseShape(s string) (Shape, error) {
	if slices.Contains(Shapes(), Shape(s)) {
		return Shape(s), nil
	}
	if hint := suggest.Hint(s, ShapeNames()); hint != "" {
		return "", fmt.Errorf("unknown shape %q%s", s, hint)
	}
	return "", fmt.Errorf("unknown shape %q (valid: %s)", s, strings.Join(ShapeNames(), ", "))
}

// ShapeNames lists the shape names as strings.
func ShapeNames() []string {
	var names []string
	for _, sh := range Shapes() {
		names = append(names, string(sh))
	}
	return names
}

// Event is one webhook event of the interface.
type Event struct {
	// Name is the value of the query parameter businessType.
	Name string
	// Number is the body businessType of the field description.
	Number int
	// SampleNumber is the body businessType the sample bodies carry
	// (4000 for both invoice events).
	SampleNumber int
	Kind         Kind
	Meaning      string
}

// SampleInvoiceNumber is the body number both invoice sample bodies carry.
const SampleInvoiceNumber = 4000

var events = []Event{
	{Name: "CREATE_PURCHASE_ORDER_INVOICE", Number: 4010, SampleNumber: SampleInvoiceNumber, Kind: Invoice,
		Meaning: "A purchase invoice was created"},
	{Name: "AUDIT_PURCHASE_ORDER_INVOICE", Number: 4011, SampleNumber: SampleInvoiceNumber, Kind: Invoice,
		Meaning: "A purchase invoice was audited (approved or rejected)"},
	{Name: "CREATE_RECEIVABLE_DOC", Number: 5007, SampleNumber: 5007, Kind: Receipt,
		Meaning: "A receipt document was created"},
	{Name: "ABANDON_RECEIVABLE_DOC", Number: 5009, SampleNumber: 5009, Kind: Receipt,
		Meaning: "A receipt document was voided"},
}

// AllEvents is the pseudo event name that stands for every event.
const AllEvents = "all"

// Events lists the four events in the spec's order.
func Events() []Event { return events }

// EventNames lists the query names of the events in the spec's order.
func EventNames() []string {
	names := make([]string, len(events))
	for i, e := range events {
		names[i] = e.Name
	}
	return names
}

// Lookup returns the event whose query name is name.
func Lookup(name string) (Event, bool) {
	if i := slices.IndexFunc(events, func(e Event) bool { return e.Name == name }); i >= 0 {
		return events[i], true
	}
	return Event{}, false
}

// ParseEvents resolves event names a user typed, in any case, expanding
// "all" and dropping repeats while keeping the order given. (A query's
// event is matched exactly, by Lookup.)
func ParseEvents(names []string) ([]Event, error) {
	var out []Event
	add := func(e Event) {
		if !slices.ContainsFunc(out, func(x Event) bool { return x.Name == e.Name }) {
			out = append(out, e)
		}
	}
	for _, n := range names {
		if strings.EqualFold(n, AllEvents) {
			for _, e := range events {
				add(e)
			}
			continue
		}
		i := slices.IndexFunc(events, func(e Event) bool { return strings.EqualFold(e.Name, n) })
		if i < 0 {
			return nil, &unknownEventError{Name: n}
		}
		add(events[i])
	}
	return out, nil
}

// unknownEventError names an event that is not in the catalog.
type unknownEventError struct{ Name string }

func (e *unknownEventError) Error() string {
	if hint := suggest.Hint(e.Name, EventNames()); hint != "" {
		return fmt.Sprintf("unknown event %q%s", e.Name, hint)
	}
	return fmt.Sprintf("unknown event %q (valid: %s, %s)", e.Name, strings.Join(EventNames(), ", "), AllEvents)
}

// Numbers lists every body number the event may carry: the described one
// first, then the sample one when it differs.
func (e Event) Numbers() []int {
	if e.SampleNumber == e.Number {
		return []int{e.Number}
	}
	return []int{e.Number, e.SampleNumber}
}

// NumberFor is the body number the event carries in the given shape.
func (e Event) NumberFor(s Shape) int {
	if s == Sample {
		return e.SampleNumber
	}
	return e.Number
}

// EventsForNumber lists the events a body number may stand for: one event,
// or both invoice events for 4000, or none for an unknown number.
func EventsForNumber(n int) []Event {
	var out []Event
	for _, e := range events {
		if slices.Contains(e.Numbers(), n) {
			out = append(out, e)
		}
	}
	return out
}

// BodyNumbers lists every valid body number, ascending.
func BodyNumbers() []int {
	var out []int
	for _, e := range events {
		for _, n := range e.Numbers() {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}
