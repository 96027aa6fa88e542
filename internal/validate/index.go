package validate

import (
	"fmt"

	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/spec"
)

// The index is the spec model compiled once into what one pass over a
// document needs: for each object the members by name with a bit each, for
// each leaf its type, format and values, and the slots of the amounts the
// ledger relations read (ledger.go). Nothing in it is typed twice: it is built
// from spec.Data and spec.Body.

// shapeBits says which variants of data define a member.
type shapeBits uint8

const (
	inDescribed shapeBits = 1 << iota // invoice, described shape
	inSample                          // invoice, sample shape
	inReceipt                         // receipt (either shape)
)

type node struct {
	name     string
	typ      spec.Type
	format   spec.Format
	advisory bool
	closed   bool
	values   []string
	numbers  []int // the numbers values stand for, where the spec gives them (createType)
	members  []*member
	byName   map[string]int
	elem     *node // array elements, or values of a free-keyed object
	free     bool  // object with free keys (itemAttributes) or unknown members
	hidden   uint64
	data     bool // the data union
	inData   bool // nulls are warnings, not type errors
	of       spec.Datum
	record   int8 // the ledger record the object is, -1 for none
	slot     int8 // slot in the enclosing record, -1 for none
	taxID    bool
}

type member struct {
	name   string
	node   *node
	alt    *node // a second variant with another JSON type (invoice status)
	shapes shapeBits
	// altShapes are the shapes of alt; node's shapes are shapes &^ altShapes.
	altShapes shapeBits
	marker    bool
	hidden    bool
	// plain says the name can be read with jsonlex's KeyIs (PlainKey).
	plain bool
	// sampleNext is, in data, the index of the member that follows this
	// one in the sample shape's model, -1 for none: data holds the
	// described shape's members first, so the member after the last one
	// found is, in a sample invoice, often not the next key.
	sampleNext int8
}

// variant is the node of a member with two variants (the invoice status)
// that shape s has; nil for auto (""), which takes either.
func (m *member) variant(s spec.Shape) *node {
	bit := inDescribed
	switch s {
	case "":
		return nil
	case spec.Sample:
		bit = inSample
	}
	if m.altShapes&bit != 0 {
		return m.alt
	}
	return m.node
}

// memberAfter is member trying next first: bodies list their members in
// the model's order, and one comparison costs less than hashing the key.
func (n *node) memberAfter(name []byte, next int) (int, *member) {
	if next < len(n.members) && n.members[next].name == string(name) {
		return next, n.members[next]
	}
	return n.member(name)
}

func (n *node) member(name []byte) (int, *member) {
	i, ok := n.byName[string(name)]
	if !ok {
		return -1, nil
	}
	return i, n.members[i]
}

func compile(f spec.Field, inData bool) *node {
	n := &node{name: f.Name, typ: f.Type, format: f.Format, advisory: f.Advisory, closed: f.Closed,
		inData: inData, of: f.Of, record: -1, slot: -1}
	if (f.Closed || f.Advisory) && len(f.Values) > 0 {
		n.values = f.ValueNames()
		if f.Numbered {
			n.numbers = f.ValueNumbers()
		}
	}
	switch f.Type {
	case spec.Object:
		switch {
		case len(f.Fields) > 0:
			n.byName = make(map[string]int, len(f.Fields))
			for _, m := range f.Fields {
				if m.Hidden {
					n.hidden |= 1 << len(n.members)
				}
				n.byName[m.Name] = len(n.members)
				n.members = append(n.members, &member{name: m.Name, node: compile(m, inData), hidden: m.Hidden, marker: m.Marker, plain: jsonlex.PlainKey(m.Name)})
			}
			if len(n.members) > 64 {
				panic(fmt.Sprintf("validate: %s has more than 64 members", f.Name))
			}
		default:
			n.free = true
			if f.Elem != "" {
				n.elem = &node{name: f.Name, typ: f.Elem, inData: inData, record: -1, slot: -1}
			}
		}
	case spec.Array:
		n.elem = compile(spec.Field{Name: f.Name, Type: f.Elem, Fields: f.Fields, Of: f.Of}, inData)
	}
	return n
}

// compileData merges the data objects of both invoice shapes and of the
// receipt (with its hidden fields) into one node, so that a document is
// checked in one pass before its businessType, which may come last, is known.
func compileData() *node {
	d := &node{name: spec.FieldData, typ: spec.Object, data: true, byName: map[string]int{}, record: -1, slot: -1}
	add := func(f spec.Field, s shapeBits) {
		for _, m := range f.Fields {
			if i, ok := d.byName[m.Name]; ok {
				dm := d.members[i]
				dm.shapes |= s
				if m.Type != dm.node.typ {
					dm.alt = compile(m, true)
					dm.altShapes |= s
				}
				continue
			}
			d.byName[m.Name] = len(d.members)
			d.members = append(d.members, &member{name: m.Name, node: compile(m, true), shapes: s, marker: m.Marker, hidden: m.Hidden, plain: jsonlex.PlainKey(m.Name)})
		}
	}
	add(spec.Data(spec.Invoice, spec.Described), inDescribed)
	add(spec.Data(spec.Invoice, spec.Sample), inSample)
	add(spec.Data(spec.Receipt, spec.Sample), inReceipt)
	if len(d.members) > 64 {
		panic("validate: data has more than 64 members")
	}
	for _, m := range d.members {
		m.sampleNext = -1
	}
	sample := spec.Data(spec.Invoice, spec.Sample).Fields
	for j := 1; j < len(sample); j++ {
		d.members[d.byName[sample[j-1].Name]].sampleNext = int8(d.byName[sample[j].Name])
	}
	return d
}

// attachTaxID marks the taxpayer id, whose check characters are checked.
func attachTaxID(d *node) error {
	i, ok := d.byName[spec.FieldTaxID]
	if !ok {
		return fmt.Errorf("validate: the model has no data member %s", spec.FieldTaxID)
	}
	d.members[i].node.taxID = true
	return nil
}
