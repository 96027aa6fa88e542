// Package schema exports the spec model as JSON Schema (draft 2020-12), one
// schema per event and shape, so that receiver teams can check payloads and
// generate code with their own tools. The schemas state what whsim validate
// treats as errors; its warnings (missing or unknown fields, nulls inside
// data, the arithmetic) are left to validate, since JSON Schema would make
// them errors. Field meanings become descriptions.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/whsim/whsim/internal/spec"
)

// draft is the JSON Schema dialect of the exported schemas.
const draft = "https://json-schema.org/draft/2020-12/schema"

// baseID is the base of the schemas' $id.
const baseID = "https://whsim.dev/schema/"

// obj is a JSON object that keeps its keys in insertion order, so that the
// schema reads in the spec's order.
type obj struct {
	keys []string
	vals []any
}

func (o *obj) set(k string, v any) *obj {
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	return o
}

// MarshalJSON writes the members in order.
func (o *obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// defName is the name of the schema of an event in a shape: its $defs key and
// the last part of its $id.
func defName(e spec.Event, s spec.Shape) string { return e.Name + "." + string(s) }

// For returns the schema of event e's body in shape s, a document of its own.
func For(e spec.Event, s spec.Shape) *obj {
	o := new(obj).set("$schema", draft).set("$id", baseID+defName(e, s)+".json")
	return body(o, e, s)
}

// Bundle returns one schema document for several events and shapes: each
// under $defs, and the document itself accepts a body any of them accepts.
// With every shape, each event's body in either shape (eitherShape) is
// under $defs too, by the event's name, and the document is any of those.
func Bundle(events []spec.Event, shapes []spec.Shape) *obj {
	defs := new(obj)
	var any []any
	var names []string
	ref := func(e spec.Event) func(spec.Shape) *obj {
		return func(s spec.Shape) *obj { return new(obj).set("$ref", "#/$defs/"+defName(e, s)) }
	}
	for _, e := range events {
		for _, s := range shapes {
			defs.set(defName(e, s), body(new(obj), e, s))
		}
		if len(shapes) == len(spec.Shapes()) {
			defs.set(e.Name, eitherShape(e, ref(e)).
				set("description", e.Meaning+" (either shape, as whsim validate --shape auto reads it)"))
			any = append(any, new(obj).set("$ref", "#/$defs/"+e.Name))
			names = append(names, e.Name)
			continue
		}
		for _, s := range shapes {
			any = append(any, ref(e)(s))
			names = append(names, defName(e, s))
		}
	}
	return new(obj).set("$schema", draft).set("$id", baseID+bundleName(events, shapes)+".json").
		set("title", "whsim webhook bodies").
		set("description", "Any of: "+strings.Join(names, ", ")).
		set("$defs", defs).
		set("anyOf", any)
}

// bundleName is the last part of a bundle's $id, without ".json": whsim
// for every event and shape, else the event and the shape it holds
// (CREATE_RECEIVABLE_DOC, whsim.sample), so that no two documents whsim
// prints share an $id, by which tools that load several (Ajv's addSchema, a
// registry) tell them apart.
func bundleName(events []spec.Event, shapes []spec.Shape) string {
	name := "whsim"
	if len(events) == 1 {
		name = events[0].Name
	} else if len(events) != len(spec.Events()) {
		names := make([]string, len(events))
		for i, e := range events {
			names[i] = e.Name
		}
		name = strings.Join(names, "+")
	}
	if len(shapes) == 1 {
		name += "." + string(shapes[0])
	}
	return name
}

// Marshal renders a schema as indented JSON.
func Marshal(o *obj) ([]byte, error) {
	b, err := marshal(o)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func body(o *obj, e spec.Event, s spec.Shape) *obj { return bodyOf(o, e, s, false) }

// bodyOf is body; with gen (the OpenAPI document, which code generators
// read) each member whose key is not a Go identifier carries x-go-name and
// x-ogen-name.
func bodyOf(o *obj, e spec.Event, s spec.Shape, gen bool) *obj {
	b := spec.Body(e, s)
	// The title is an identifier: generators (Modelina, quicktype) name
	// the type by it. The shape is said in the description.
	o.set("title", typeName(e, s)).set("description", e.Meaning+" ("+string(s)+" shape)").set("type", "object")
	props := new(obj)
	var required []any
	for _, f := range b.Fields {
		required = append(required, f.Name)
		switch f.Name {
		case spec.FieldBusinessType:
			// The body numbers the event may carry; validate accepts
			// either for an invoice event whatever the shape.
			var nums []any
			for _, n := range e.Numbers() {
				nums = append(nums, n)
			}
			props.set(f.Name, new(obj).set("description", f.Meaning).set("type", "integer").set("enum", nums))
		case spec.FieldData:
			if e.Kind == spec.Receipt {
				// validate types the hidden fields in either shape: a
				// described body that carries them is checked as the
				// sample's, so this schema describes them too (optional).
				f = spec.Body(e, spec.Sample).Fields[len(b.Fields)-1]
			}
			props.set(f.Name, data(e.Kind, s, f, gen))
		default:
			props.set(f.Name, field(f, false, gen))
		}
	}
	return o.set("properties", props).set("required", required)
}

// present holds of an object whose member name is there: a member counts
// as there when its value is not null, as validate reads a null inside data
// as absent (null-field, a warning), so a null marker mixes no shapes and a
// null receipt member is no receipt member, where "required" alone is met by
// a null.
func present(name string) *obj {
	return new(obj).set("required", []any{name}).
		set("properties", new(obj).set(name, new(obj).set("not", new(obj).set("type", "null"))))
}

// evidence holds of an invoice's data that shows shape sh, as validate
// reads it: a marker of the shape there, or a status of the shape's type
// (a string status is the described shape's, an integer one the
// sample's). Data showing both mixes the shapes.
func evidence(sh spec.Shape) *obj {
	typ := spec.String
	if sh == spec.Sample {
		typ = spec.Integer
	}
	any := []any{new(obj).set("required", []any{spec.FieldStatus}).
		set("properties", new(obj).set(spec.FieldStatus, new(obj).set("type", string(typ))))}
	for _, m := range spec.Data(spec.Invoice, sh).Fields {
		if m.Marker {
			any = append(any, present(m.Name))
		}
	}
	// "type" keeps Ajv's strict mode (strictTypes) quiet about the
	// members' "required" and "properties" where no parent says data is
	// an object (in eitherShape's conditions, beside a $ref).
	return new(obj).set("type", "object").set("anyOf", any)
}

// eitherShape is the schema of event e's body in either shape, as validate
// --shape auto takes it: anyOf the shapes' schemas, which ref names. An
// invoice is held to the shape validate reads it as: the one its data
// shows (evidence), or, showing neither, the one its body number picks
// (4000 the sample shape, another the described one). Without that, a
// body the schema of its own shape refuses passed as the other shape's,
// whose schema does not know its fields: a sample invoice without its
// status and with records[0].quantity "x" passed as a described one, an
// invoice with no marker, businessType 4010 and a numeric invoiceCode as a
// sample one, where validate fails both. The condition is written as a
// "not" of when validate reads the other shape, which code generators
// (openapi-typescript) leave out of the types, as they do the shape-mixing
// rule.
func eitherShape(e spec.Event, ref func(spec.Shape) *obj) *obj {
	var alts []any
	for _, s := range spec.Shapes() {
		if e.Kind != spec.Invoice {
			alts = append(alts, ref(s))
			continue
		}
		// Validate reads the other shape when the data does not show
		// this one and either shows the other or the number is the
		// other's: 4000 for the described shape, another for the sample.
		other, number := spec.Sample, sampleNumber()
		if s == spec.Sample {
			other, number = spec.Described, new(obj).set("not", sampleNumber())
		}
		inData := func(x *obj) *obj {
			return new(obj).set("type", "object").set("properties", new(obj).set(spec.FieldData, x))
		}
		alts = append(alts, new(obj).set("allOf", []any{ref(s), new(obj).
			set("description", "not read as the "+string(other)+" shape: validate reads an invoice as the shape its data shows, or, showing neither, as the body number picks (4000: sample)").
			set("not", new(obj).set("allOf", []any{
				inData(new(obj).set("not", evidence(s))),
				new(obj).set("anyOf", []any{inData(evidence(other)), number}),
			}))}))
	}
	return new(obj).set("anyOf", alts)
}

// sampleNumber holds of a body whose number is the invoice samples' (4000).
func sampleNumber() *obj {
	return new(obj).set("type", "object").
		set("properties", new(obj).set(spec.FieldBusinessType, new(obj).set("const", spec.SampleInvoiceNumber)))
}

func data(k spec.Kind, s spec.Shape, f spec.Field, gen bool) *obj {
	o := new(obj).set("description", f.Meaning).set("type", "object")
	props := new(obj)
	var required []any
	for _, m := range f.Fields {
		// A receipt's three members are required and may not be null.
		nullable := k != spec.Receipt
		if k == spec.Receipt {
			required = append(required, m.Name)
		}
		props.set(m.Name, field(m, nullable, gen))
	}
	o.set("properties", props)
	if len(required) > 0 {
		o.set("required", required)
	}
	if k == spec.Invoice {
		var receiptMembers []any
		for _, m := range spec.Data(spec.Receipt, spec.Sample).Fields {
			receiptMembers = append(receiptMembers, present(m.Name))
		}
		o.set("allOf", []any{
			new(obj).set("description", "an invoice carries no receipt member").
				set("not", new(obj).set("anyOf", receiptMembers)),
			new(obj).set("description", "an invoice does not mix the described and the sample shape").
				set("not", new(obj).set("allOf", []any{evidence(spec.Described), evidence(spec.Sample)})),
		})
	}
	return o
}

// closedValues says what each value of a closed enumeration stands for, as
// the spec gives it (the number a createType name stands for, what a status
// means): "enum" holds the names alone. "" for other fields.
func closedValues(f spec.Field) string {
	if !f.Closed || len(f.Values) == 0 {
		return ""
	}
	parts := make([]string, len(f.Values))
	for i, v := range f.Values {
		p := v.Name
		if f.Numbered {
			p += fmt.Sprintf(" (%d)", v.Number)
		}
		if v.Meaning != "" {
			p += " " + v.Meaning
		}
		parts[i] = p
	}
	return ": " + strings.Join(parts, ", ")
}

// field is the schema of one field. nullable: null is allowed (validate
// warns and treats the field as absent).
func field(f spec.Field, nullable, gen bool) *obj {
	o := new(obj)
	if gen {
		if n := goName(f); n != "" {
			// oapi-codegen reads x-go-name, ogen x-ogen-name.
			o.set("x-go-name", n).set("x-ogen-name", n)
		}
	}
	if f.Meaning != "" {
		d := f.Meaning
		if f.Hidden {
			d += " (hidden: only the curl sample bodies carry it)"
		}
		o.set("description", d+closedValues(f))
	}
	typ := any(string(f.Type))
	if nullable {
		typ = []any{string(f.Type), "null"}
	}
	o.set("type", typ)
	switch f.Format {
	case spec.UUID:
		pattern(o.set("format", "uuid"), f.Format)
	case spec.CurrencyCode:
		if !f.Advisory {
			pattern(o, f.Format)
		}
	case spec.Decimal2:
		pattern(o, f.Format)
	case spec.UnixMillis:
		// int64: milliseconds since 1970 pass int32 in 1970.
		o.set("format", "int64").set("minimum", 0)
	}
	if f.Type == spec.Number {
		// Money: a generator's default for number may be float32, which
		// rounds 1234567.89 to 1234567.9.
		o.set("format", "double")
	}
	if f.Type == spec.Number && !f.Closed {
		// Validate refuses a number beyond a double's range (1e400):
		// Python's json and JavaScript read it as infinity, which
		// their "number" takes (Ajv's with strict off), and a validator
		// that reads numbers exactly takes it as it is. Bounded by the
		// largest double, every one of them refuses it too. Not the
		// integers: a code generator may read an integer's bounds as
		// int64 (docs/validation.md says what is left).
		o.set("minimum", -math.MaxFloat64).set("maximum", math.MaxFloat64)
	}
	if f.Closed && len(f.Values) > 0 {
		var vals []any
		for _, v := range f.Values {
			vals = append(vals, v.Name)
		}
		if nullable {
			vals = append(vals, nil)
		}
		o.set("enum", vals)
	}
	if len(f.Values) > 0 && !f.Closed {
		var ex []any
		for _, v := range f.Values {
			ex = append(ex, v.Name)
		}
		o.set("examples", ex)
	}
	switch f.Type {
	case spec.Object:
		if len(f.Fields) > 0 {
			props := new(obj)
			for _, m := range f.Fields {
				props.set(m.Name, field(m, true, gen))
			}
			o.set("properties", props)
		} else if f.Elem != "" {
			o.set("additionalProperties", new(obj).set("type", string(f.Elem)))
		}
	case spec.Array:
		el := spec.Field{Type: f.Elem, Fields: f.Fields}
		o.set("items", field(el, false, gen))
	}
	return o
}

// pattern sets the pattern of string format f and what makes it mean the
// same in every validator. JSON Schema's patterns are ECMA-262, where $ is
// the end of the string, but Python's re (jsonschema), java.util.regex,
// PCRE and .NET let it match before a final line break too, and would pass
// "CNY\n". Lookahead would say "the end" everywhere but in RE2 (Go's
// validators), which cannot compile it; so the pattern is joined by a
// constraint without anchors: the exact length of a fixed-length format,
// else a "not" of a character class that finds any character the format's
// values cannot hold (a line break among them). It applies to strings only,
// so null passes where the field allows it.
func pattern(o *obj, f spec.Format) {
	o.set("pattern", f.Pattern())
	if n := f.Len(); n > 0 {
		o.set("minLength", n).set("maxLength", n)
		return
	}
	o.set("not", new(obj).set("description", "a character no "+string(f)+" value holds, such as a line break after it, which $ lets through in some dialects").
		set("type", "string").set("pattern", f.Foreign()))
}

// goName is a Go field name for a member whose key is not an ASCII
// identifier ("" for a key a generator names well by itself): its English
// meaning in CamelCase, up to a parenthesis or comma ("Receivable amount in
// base currency (decimal string…)" becomes ReceivableAmountInBaseCurrency).
// Generators keep only ASCII letters and digits of a name, so the Chinese
// key itself would name nothing.
func goName(f spec.Field) string {
	plain := f.Name != ""
	for i, r := range f.Name {
		if r >= 0x80 || !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) && i > 0) {
			plain = false
			break
		}
	}
	if plain {
		return ""
	}
	m, _, _ := strings.Cut(f.Meaning, "(")
	m, _, _ = strings.Cut(m, ",")
	var b strings.Builder
	for _, w := range strings.FieldsFunc(m, func(r rune) bool { return r >= 0x80 || !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	if b.Len() == 0 || !unicode.IsLetter(rune(b.String()[0])) {
		return "F" + b.String()
	}
	return b.String()
}

// typeName is a body schema's title: the event and shape in CamelCase
// (CreateReceivableDocDescribed), an identifier in every language.
func typeName(e spec.Event, s spec.Shape) string {
	var b strings.Builder
	for _, w := range strings.Split(strings.ToLower(e.Name)+"_"+string(s), "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}
