package check

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

// builder makes the cases of a run from one seeded generator, so that the
// same seed gives the same bodies.
type builder struct {
	g *payload.Generator
	// creates and follows are, per document kind, the event that creates a
	// document and the one that comes after it (audit, void).
	creates, follows map[spec.Kind]spec.Event
	// nonce is mixed into every requestId and webhook-id (0: none).
	nonce uint64
	// numbers gives probed documents their numbers (effects.go).
	numbers *numbering
}

func newBuilder(seed uint64, now time.Time, nonce uint64) *builder {
	b := &builder{g: payload.New(seed, now), nonce: nonce, creates: map[spec.Kind]spec.Event{}, follows: map[spec.Kind]spec.Event{},
		numbers: newNumbering(seed, nonce)}
	// The spec lists each kind's creating event first.
	for _, e := range spec.Events() {
		if _, ok := b.creates[e.Kind]; !ok {
			b.creates[e.Kind] = e
		} else {
			b.follows[e.Kind] = e
		}
	}
	return b
}

// build is the generator's Build with the run's requestId.
func (b *builder) build(e spec.Event, s spec.Shape) *payload.Obj {
	return b.salt(b.g.Build(e, s))
}

// envelope is the generator's Envelope with the run's requestId.
func (b *builder) envelope(e spec.Event, s spec.Shape, data *payload.Obj) *payload.Obj {
	return b.salt(b.g.Envelope(e, s, data))
}

// salt mixes the run's nonce into doc's requestId: the same seed then
// gives the same documents under ids no earlier run sent.
func (b *builder) salt(doc *payload.Obj) *payload.Obj {
	if b.nonce == 0 {
		return doc
	}
	if id, ok := doc.Get(spec.FieldRequestID); ok {
		if s, ok := id.(string); ok {
			doc.Put(spec.FieldRequestID, reqid.Salted(s, b.nonce))
		}
	}
	return doc
}

// webhookID is the webhook-id of a case: its requestId, or for a body that
// has none its name, with the run's nonce.
func (b *builder) webhookID(c *Case) string {
	if c.RequestID != "" {
		return c.RequestID
	}
	id := "msg_" + strings.NewReplacer("/", "_", " ", "_").Replace(c.Check+"_"+c.Name)
	if b.nonce != 0 {
		id += "_" + strconv.FormatUint(b.nonce, 36)
	}
	return id
}

// creating is the event that creates the kind of document event is of.
func (b *builder) creating(event string) string {
	e, ok := spec.Lookup(event)
	if !ok {
		return event
	}
	return b.creates[e.Kind].Name
}

// kinds is the document kinds in the spec's order.
func kinds() []spec.Kind { return []spec.Kind{spec.Invoice, spec.Receipt} }

func query(event string) string {
	if event == "" {
		return ""
	}
	return spec.Query(event)
}

// docCase makes the case of a document under an event, compact.
func docCase(check, name string, e spec.Event, doc *payload.Obj) *Case {
	return bodyCase(check, name, e.Name, payload.Marshal(doc), doc)
}

// bodyCase makes a case of given bytes; doc, when not nil, is the
// document they encode, for its requestId.
func bodyCase(check, name, event string, body []byte, doc *payload.Obj) *Case {
	c := &Case{Check: check, Name: name, Event: event, Query: query(event), Body: body}
	if doc != nil {
		if id, ok := doc.Get(spec.FieldRequestID); ok {
			c.RequestID, _ = id.(string)
		}
	}
	return c
}

// set puts a raw JSON value at a dotted path of doc. The paths are the
// builder's own, so an error is a bug in them, not in anyone's input.
func set(doc *payload.Obj, path, raw string) error {
	p, err := payload.ParsePath(path)
	if err != nil {
		return err
	}
	return payload.Apply(doc, []payload.Override{{Path: p, Value: json.RawMessage(raw)}})
}

// sets applies path=raw pairs in order.
func sets(doc *payload.Obj, pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := set(doc, pairs[i], pairs[i+1]); err != nil {
			return fmt.Errorf("check case: %w", err)
		}
	}
	return nil
}

// acceptsValid lists every call the ERP may send. A document's follow-up
// event (audit, void) comes after its creation, carrying the same data, so
// that a receiver that looks documents up is not tripped by order here.
func (b *builder) acceptsValid() ([]*Case, error) {
	var cs []*Case
	add := func(name string, e spec.Event, doc *payload.Obj) {
		cs = append(cs, docCase(acceptsValid, name, e, doc))
	}
	for _, s := range spec.Shapes() {
		for _, k := range kinds() {
			create, follow := b.creates[k], b.follows[k]
			data := b.g.DataFor(create, s, follow)
			add(create.Name+"/"+string(s), create, b.envelope(create, s, data))
			add(follow.Name+"/"+string(s), follow, b.envelope(follow, s, data.Clone()))
		}
	}
	inv, rcp := b.creates[spec.Invoice], b.creates[spec.Receipt]

	doc := b.build(inv, spec.Described)
	doc.Put(spec.FieldBusinessType, int64(spec.SampleInvoiceNumber))
	add(inv.Name+"/described-with-4000", inv, doc)

	doc = b.build(inv, spec.Described)
	if err := sets(doc, spec.Path(spec.FieldData, spec.FieldComments), "null", spec.Path(spec.FieldData, spec.FieldItems, "0", spec.FieldComments), "null"); err != nil {
		return nil, err
	}
	add(inv.Name+"/nulls", inv, doc)
	doc = b.build(rcp, spec.Described)
	if err := sets(doc, spec.Path(spec.FieldData, spec.ReceiptSources, "0", spec.FieldSourceRemark), "null"); err != nil {
		return nil, err
	}
	add(rcp.Name+"/nulls", rcp, doc)

	for _, c := range []struct {
		e    spec.Event
		line string
	}{{inv, spec.Path(spec.FieldData, spec.FieldItems, "0")}, {rcp, spec.Path(spec.FieldData, spec.ReceiptLines, "0")}} {
		doc = b.build(c.e, spec.Described)
		if err := sets(doc, "x-trace", `"t-1"`, spec.Path(spec.FieldData, "extension"), `{"source":"erp"}`, c.line+".extraNote", `"unknown member"`); err != nil {
			return nil, err
		}
		add(c.e.Name+"/unknown-members", c.e, doc)
	}

	doc = b.build(inv, spec.Described)
	if err := sets(doc, spec.Path(spec.FieldData, spec.FieldCode), `""`, spec.Path(spec.FieldData, spec.FieldComments), `""`, spec.Path(spec.FieldData, spec.FieldItems), `[]`); err != nil {
		return nil, err
	}
	add(inv.Name+"/empty-strings-and-arrays", inv, doc)
	doc = b.build(rcp, spec.Described)
	if err := sets(doc, spec.Path(spec.FieldData, spec.ReceiptSources), `[]`); err != nil {
		return nil, err
	}
	add(rcp.Name+"/empty-array", rcp, doc)

	doc = b.build(rcp, spec.Described)
	cs = append(cs, bodyCase(acceptsValid, rcp.Name+"/unicode-escaped-keys", rcp.Name, escapeUnicode(payload.Marshal(doc)), doc))

	data := b.g.Data(rcp, spec.Described)
	add(rcp.Name+"/compact", rcp, b.envelope(rcp, spec.Described, data))
	doc = b.envelope(rcp, spec.Described, data.Clone())
	cs = append(cs, bodyCase(acceptsValid, rcp.Name+"/pretty-printed", rcp.Name, payload.MarshalIndent(doc), doc))

	add(inv.Name+"/large-300-lines", inv, b.largeInvoice(inv, 300))
	return cs, nil
}

// largeInvoice is an invoice of n lines, gathered from fresh invoices.
func (b *builder) largeInvoice(e spec.Event, n int) *payload.Obj {
	doc := b.build(e, spec.Described)
	data, _ := doc.Get(spec.FieldData)
	var items []any
	for len(items) < n {
		more, _ := b.g.Data(e, spec.Described).Get(spec.FieldItems)
		lines, _ := more.([]any)
		if len(lines) == 0 {
			break // a generator that draws no lines cannot make a large document
		}
		items = append(items, lines...)
	}
	data.(*payload.Obj).Put(spec.FieldItems, items[:min(n, len(items))])
	return doc
}

// escapeUnicode writes every non-ASCII character of a JSON text as \u
// escapes (surrogate pairs above the BMP): the same document in other
// bytes, as some encoders send it.
func escapeUnicode(body []byte) []byte {
	out := make([]byte, 0, len(body)*2)
	for i := 0; i < len(body); {
		r, n := utf8.DecodeRune(body[i:])
		i += n
		switch {
		case r < utf8.RuneSelf:
			out = append(out, byte(r))
		case r > 0xFFFF:
			r -= 0x10000
			out = fmt.Appendf(out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
	}
	return out
}

// malformed is a case a receiver must not take as a valid call; typeErr
// marks a type error inside data, which warns rather than fails unless
// strict; basis is the event whose valid calls the receiver must accept
// for a 4xx here to mean it understood what was wrong.
type malformed struct {
	*Case
	typeErr bool
	basis   string
}

// rejectsMalformed lists calls a receiver cannot have understood. Type
// errors are derived from the spec model, one per kind of field (JSON type,
// closed enumeration, format) and document kind; only those the validator
// finds invalid are kept.
func (b *builder) rejectsMalformed(v *validate.Validator) ([]malformed, error) {
	rcp := b.creates[spec.Receipt]
	doc := b.build(rcp, spec.Described)
	body := payload.Marshal(doc)
	mk := func(name, event string, body []byte, doc *payload.Obj) malformed {
		basis := event
		if basis == "" {
			basis = rcp.Name
		}
		return malformed{Case: bodyCase(rejectsMalformed, name, event, body, doc), basis: basis}
	}
	noData := b.build(rcp, spec.Described)
	noData.Delete(spec.FieldData)
	rcpDoc := b.build(rcp, spec.Described)
	ms := []malformed{
		mk("not-json", rcp.Name, []byte("this is not JSON\n"), nil),
		mk("truncated-json", rcp.Name, truncate(body), nil),
		mk("empty-body", rcp.Name, nil, nil),
		mk("json-array", rcp.Name, append(append([]byte("["), body...), ']'), nil),
		mk("no-businessType-query", "", payload.Marshal(rcpDoc), rcpDoc),
		mk("missing-data", rcp.Name, payload.Marshal(noData), noData),
	}
	for _, k := range kinds() {
		e := b.creates[k]
		for _, m := range mutations(spec.Data(k, spec.Described), spec.FieldData) {
			doc := b.build(e, spec.Described)
			if set(doc, m.path, m.raw) != nil {
				continue // the generated document has no such element (an empty array)
			}
			body := payload.Marshal(doc)
			if !v.Failed(v.Check(body, e.Name)) {
				continue
			}
			c := mk("type/"+m.path+"/"+m.what, e.Name, body, doc)
			c.typeErr = true
			ms = append(ms, c)
		}
	}
	return ms, nil
}

type mutation struct{ path, raw, what string }

// mutations gives one wrong value for the first field of each kind: its
// JSON type, a closed enumeration, a format.
func mutations(f spec.Field, path string) []mutation {
	seen := map[string]bool{}
	var out []mutation
	var walk func(f spec.Field, path string)
	walk = func(f spec.Field, path string) {
		for _, m := range f.Fields {
			p := path + "." + m.Name
			key, raw, what := wrongValue(m)
			if key != "" && !seen[key] {
				seen[key] = true
				out = append(out, mutation{p, raw, what})
			}
			switch {
			case m.Type == spec.Object && len(m.Fields) > 0:
				walk(m, p)
			case m.Type == spec.Array && len(m.Fields) > 0:
				walk(m, p+".0")
			}
		}
	}
	walk(f, path)
	return out
}

// wrongValue is a value of the wrong kind for f, with the kind's key and a
// word for what it is.
func wrongValue(f spec.Field) (key, raw, what string) {
	switch {
	case f.Closed && f.Type == spec.String:
		return "enum", `"NOT_A_VALUE"`, "unknown-enum-value"
	case f.Format == spec.CurrencyCode && !f.Advisory:
		return "format:" + string(f.Format), `"rmb"`, "bad-currency-code"
	case f.Format == spec.Decimal2:
		return "format:" + string(f.Format), `"1.5"`, "one-fraction-digit"
	case f.Format == spec.UnixMillis:
		return "format:" + string(f.Format), `-1`, "negative-timestamp"
	}
	switch f.Type {
	case spec.String:
		return "type:string", `12345`, "number-for-string"
	case spec.Integer:
		return "type:integer", `"1700000000000"`, "string-for-integer"
	case spec.Number:
		return "type:number", `"12.50"`, "string-for-number"
	case spec.Boolean:
		return "type:boolean", `"true"`, "string-for-boolean"
	case spec.Object:
		return "type:object", `"object"`, "string-for-object"
	case spec.Array:
		return "type:array", `{}`, "object-for-array"
	}
	return "", "", ""
}

// unknownEvent is a business type the spec does not list: the ERP has
// others (sales orders), which a receiver may ignore or refuse.
const unknownEvent = "CREATE_SALES_ORDER"

// unknownEvents is an event the spec does not name over a body of each
// known kind.
func (b *builder) unknownEvents() []malformed {
	var out []malformed
	for _, k := range kinds() {
		e := b.creates[k]
		doc := b.build(e, spec.Described)
		name := unknownEvent + "/receipt-body"
		if k == spec.Invoice {
			name = unknownEvent + "/invoice-body"
		}
		out = append(out, malformed{Case: bodyCase(UnknownEvent, name, unknownEvent, payload.Marshal(doc), doc), basis: e.Name})
	}
	return out
}

// eventVsBody is each kind's body under the other kind's creating event.
func (b *builder) eventVsBody() []malformed {
	inv, rcp := b.creates[spec.Invoice], b.creates[spec.Receipt]
	rdoc, idoc := b.build(rcp, spec.Described), b.build(inv, spec.Described)
	return []malformed{
		{Case: bodyCase(eventVsBody, "receipt-body-under-invoice-event", inv.Name, payload.Marshal(rdoc), rdoc), basis: inv.Name},
		{Case: bodyCase(eventVsBody, "invoice-body-under-receipt-event", rcp.Name, payload.Marshal(idoc), idoc), basis: rcp.Name},
	}
}

// duplicates makes, per document kind, one call delivered serial times in
// turn and one delivered concurrent times at once; then the same again
// with each delivery under a new requestId (the requestId trap: the spec
// gives requestId no business meaning, so the same document may come
// again under another).
func (b *builder) duplicates(serial, concurrent int) []*Case {
	var cs []*Case
	for _, renamed := range []bool{false, true} {
		prefix := ""
		if renamed {
			prefix = newRequestID + "-"
		}
		for _, k := range kinds() {
			e := b.creates[k]
			one := docCase(duplicates, fmt.Sprintf("%s/%sserial-x%d", e.Name, prefix, serial), e, b.build(e, spec.Described))
			one.Copies, one.NewRequestIDs = serial, renamed
			together := docCase(duplicates, fmt.Sprintf("%s/%sconcurrent-x%d", e.Name, prefix, concurrent), e, b.build(e, spec.Described))
			together.Copies, together.AtOnce, together.NewRequestIDs = concurrent, true, renamed
			cs = append(cs, one, together)
		}
	}
	return cs
}

// newRequestID starts the names of the cases that send one document again
// under new requestIds.
const newRequestID = "new-request-id"

// requestIDTrap is why a document sent again under a new requestId must
// be taken as the same document: what a receiver that keys on requestId
// gets wrong.
const requestIDTrap = "the spec gives requestId no business meaning (\"for later debugging only\"), and the ERP may send one document again under a new requestId (a manual re-send, a re-emitted event)"

// orderGroup is an out-of-order case: calls sent in turn, all named after
// the case; judge says which of them are judged (not a creation that only
// sets the scene).
type orderGroup struct {
	calls []*Case
	judge []bool
}

func (b *builder) outOfOrder() []orderGroup {
	inv, rcp := b.creates[spec.Invoice], b.creates[spec.Receipt]
	audit, void := b.follows[spec.Invoice], b.follows[spec.Receipt]
	one := func(name string, e spec.Event, doc *payload.Obj) *Case { return docCase(outOfOrder, name, e, doc) }

	// Each document has a number of the run's own (renumber): a receiver
	// that kept an earlier run's document would hold the one before-create
	// audits before its create, and the case would pass untested.
	doc := func(k spec.Kind, envs ...*payload.Obj) []*payload.Obj {
		b.renumber(k, spec.Described, envs...)
		return envs
	}
	data := b.g.Data(rcp, spec.Described)
	ts := doc(spec.Receipt, b.envelope(rcp, spec.Described, data), b.envelope(void, spec.Described, data.Clone()), b.envelope(void, spec.Described, data.Clone()))
	twice := orderGroup{judge: []bool{false, true, true}, calls: []*Case{
		one(void.Name+"/twice", rcp, ts[0]),
		one(void.Name+"/twice", void, ts[1]),
		one(void.Name+"/twice", void, ts[2]),
	}}
	data = b.g.Data(inv, spec.Described)
	bs := doc(spec.Invoice, b.envelope(audit, spec.Described, data), b.envelope(inv, spec.Described, data.Clone()))
	before := orderGroup{judge: []bool{true, true}, calls: []*Case{
		one(audit.Name+"/before-create", audit, bs[0]),
		one(audit.Name+"/before-create", inv, bs[1]),
	}}
	return []orderGroup{
		{judge: []bool{true},
			calls: []*Case{one(void.Name+"/unknown-document", void, doc(spec.Receipt, b.build(void, spec.Described))[0])}},
		{judge: []bool{true},
			calls: []*Case{one(audit.Name+"/unknown-document", audit, doc(spec.Invoice, b.build(audit, spec.Described))[0])}},
		twice, before,
	}
}

// loadPairs makes n calls as documents created and then audited or voided,
// alternating kinds, all distinct. Invoices alternate between the shapes
// the ERP sends them in (described, sample), as a real stream mixes them;
// receipts come in the described shape, the one the spec gives them. Each
// document has a number of its own, and qs the questions that ask about
// them (effects probes them).
func (b *builder) loadPairs(n int) (out [][]*Case, qs []probe.Question) {
	for i := 0; i < n; i += 2 {
		k := kinds()[(i/2)%2]
		create, follow := b.creates[k], b.follows[k]
		shape := spec.Described
		if k == spec.Invoice && (i/4)%2 == 1 {
			shape = spec.Sample
		}
		data := b.g.DataFor(create, shape, follow)
		env := b.g.Envelope(create, shape, data)
		qs = append(qs, b.number(env, create, shape))
		pair := []*Case{docCase(Load, "load", create, env)}
		if i+1 < n {
			pair = append(pair, docCase(Load, "load", follow, b.fresh(b.g.Envelope(follow, shape, data.Clone()))))
		}
		out = append(out, pair)
	}
	return out, qs
}

// respell writes a number at path with a trailing zero (12.5 -> 12.50,
// 3 -> 3.0): the same value, other bytes.
func respell(doc *payload.Obj, path string) error {
	p, err := payload.ParsePath(path)
	if err != nil {
		return err
	}
	v, ok := payload.Lookup(doc, p)
	if !ok {
		return fmt.Errorf("check case: no %s", path)
	}
	s := string(payload.Marshal(v))
	if strings.Contains(s, ".") {
		s += "0"
	} else {
		s += ".0"
	}
	return set(doc, path, s)
}

// truncate cuts a body in half at a character boundary, as a connection
// cut short would leave it, so that what is wrong is the end of the JSON
// and not its encoding.
func truncate(body []byte) []byte {
	n := len(body) / 2
	for n > 0 && !utf8.RuneStart(body[n]) {
		n--
	}
	return body[:n]
}
