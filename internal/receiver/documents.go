package receiver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
)

// maxDocuments bounds the documents a Documents follows; past it, new
// documents are counted, not followed (and not judged).
const maxDocuments = 100_000

// FollowedDocuments says, for a summary, how far Documents follows.
func FollowedDocuments() string {
	return fmt.Sprintf("%d,%03d, or %d MiB of their numbers and requestIds", maxDocuments/1000, maxDocuments%1000, maxDocBytes>>20)
}

// maxDocFaults bounds the faults kept per document for its reason.
const maxDocFaults = 8

// maxDocBytes bounds the bytes of document numbers and requestIds a
// Documents keeps: a sender writing numbers or ids of a megabyte (a
// body may hold them) would otherwise grow listen by that much a
// document, up to maxDocuments of them. Past it, new documents are
// counted, not followed, as past maxDocuments.
const maxDocBytes = 64 << 20

// Documents follows the documents whose calls pass through listen
// --forward-to, to judge at the end whether the receiver holds each once,
// in the state its acknowledged events imply (listen --probe). Observe
// runs on the observer goroutine; Judge after the receiver has closed.
type Documents struct {
	docs  map[docKey]*Doc
	order []*Doc
	// Untracked counts calls whose document could not be told (no known
	// event, not JSON, no document number) or came past maxDocuments or
	// maxDocBytes.
	Untracked int
	// kept is the bytes of numbers and requestIds the documents hold, at
	// most keepBytes (maxDocBytes).
	kept, keepBytes int
}

type docKey struct {
	kind       spec.Kind
	code, invo string
}

// Doc is one document and what passed through for it.
type Doc struct {
	Q probe.Question
	// Calls are the calls the sender made for it.
	Calls int
	// Want is the state the receiver must hold it in: that of the furthest
	// event it acknowledged (2xx) a whole delivery of; "" when it
	// acknowledged none, and the document is not judged.
	Want string
	// Maybe are the states, past Want, of events whose call went out to
	// the receiver and got no whole answer (cut short, the sender gone
	// first): it may have taken them, and holding the document in one
	// of them is as right as in Want.
	Maybe []string
	// Faults are the faults that hit its calls, as "kind (requestId …,
	// attempt n)".
	Faults []string
	// Answer is what the probe said last; Held whether it matched Want.
	Answer probe.Answer
	Held   bool
	// Unsafe, when set, says why the probe did not ask about it.
	Unsafe *probe.UnsafeError
	asks   int
	// first and last are when its first and last calls passed through;
	// firstAsked when the probe first answered about it.
	first, last, firstAsked time.Time
}

// NewDocuments returns a Documents that has seen no call.
func NewDocuments() *Documents {
	return &Documents{docs: map[docKey]*Doc{}, keepBytes: maxDocBytes}
}

// Observe takes one call that passed through.
func (d *Documents) Observe(c *Call) {
	e, ok := spec.Lookup(c.Event)
	if !ok || c.TooLarge || c.BodyErr != nil {
		d.Untracked++
		return
	}
	key, invo, ok := documentOf(c.Content, e.Kind)
	if !ok {
		d.Untracked++
		return
	}
	doc := d.docs[key]
	if doc == nil {
		id := reqid.Read(c.Content)
		size := len(key.code) + len(invo) + len(id)
		if len(d.order) >= maxDocuments || d.kept+size > d.keepBytes {
			d.Untracked++
			return
		}
		d.kept += size
		doc = &Doc{Q: probe.Question{Kind: e.Kind, Code: key.code, InvoiceCode: invo, Event: e.Name, RequestID: id}}
		d.docs[key] = doc
		d.order = append(d.order, doc)
	}
	doc.Calls++
	doc.last = time.Now()
	if doc.Calls == 1 {
		doc.first = doc.last
	}
	if spec.StateAfter(e) == spec.DocCreated && !strings.HasPrefix(doc.Q.Event, "CREATE_") {
		// The question names the call that created the document; past
		// maxDocBytes it keeps the earlier call's requestId.
		doc.Q.Event = e.Name
		if id := reqid.Read(c.Content); d.kept+len(id)-len(doc.Q.RequestID) <= d.keepBytes {
			d.kept += len(id) - len(doc.Q.RequestID)
			doc.Q.RequestID = id
		}
	}
	switch st := spec.StateAfter(e); {
	case acknowledged(c):
		if spec.StateRank(st) > spec.StateRank(doc.Want) {
			doc.Want = st
		}
	case unanswered(c):
		if !slices.Contains(doc.Maybe, st) {
			doc.Maybe = append(doc.Maybe, st)
		}
	}
	if f := c.Record.Fault; f != nil && len(doc.Faults) < maxDocFaults {
		label := f.Kind
		if f.Arg != "" {
			label += ":" + f.Arg
		}
		id := reqid.Read(c.Content)
		if id == "" {
			id = "none"
		}
		doc.Faults = append(doc.Faults, fmt.Sprintf("%s (requestId %s, attempt %d)", label, id, f.Attempt))
	}
}

// acknowledged says whether the receiver answered 2xx to a whole copy of
// the call: then it took the document's event, whatever the sender got.
func acknowledged(c *Call) bool {
	if f := c.Record.Fault; f != nil {
		if f.Kind == "truncate" {
			return false // the receiver never had the whole call
		}
		for _, d := range f.Deliveries {
			if is2xx(d.Status) {
				return true
			}
		}
		return false
	}
	fwd := c.Record.Forward
	return fwd != nil && fwd.Error == "" && is2xx(fwd.Status)
}

// unanswered says whether some of the call went out to the receiver and
// no whole answer came back to it: the receiver may have taken it.
func unanswered(c *Call) bool {
	if f := c.Record.Fault; f != nil {
		if f.Kind == "truncate" {
			return false // the receiver never had the whole call
		}
		return slices.ContainsFunc(f.Deliveries, func(d capture.Delivery) bool { return d.Error != "" })
	}
	fwd := c.Record.Forward
	return fwd != nil && fwd.Error != "" && !c.Unsent
}

// holds says whether the probe's answer a is the document held once in
// the state it should be in: Want, or past it one the receiver may have
// taken (Maybe).
func (doc *Doc) holds(a probe.Answer) bool {
	if a.Count != 1 {
		return false
	}
	return a.State == doc.Want || slices.Contains(doc.pastWant(), a.State)
}

// pastWant are the states of Maybe past Want: those an event the receiver
// may have taken would leave the document in.
func (doc *Doc) pastWant() []string {
	var past []string
	for _, st := range doc.Maybe {
		if spec.StateRank(st) > spec.StateRank(doc.Want) {
			past = append(past, st)
		}
	}
	return past
}

// documentOf reads the document a body carries: its key (its kind's
// number, else an invoice's invoiceCode) and an invoice's invoiceCode,
// in either shape. ok is false when it has neither, or a number that is
// no string (12345, as check's malformed calls send): the receiver may
// key it on that value, which no question names, and an invoice asked
// by its invoiceCode was said to be held by nothing.
func documentOf(body []byte, k spec.Kind) (key docKey, invo string, ok bool) {
	var env map[string]any
	if json.Unmarshal(body, &env) != nil {
		return docKey{}, "", false
	}
	key.kind = k
	for _, s := range spec.Shapes() {
		data := spec.Data(k, s)
		if key.code == "" {
			path := spec.PathOf(data, spec.DocumentCode(k))
			if v := valueAt(env, path); v != nil {
				if _, isString := v.(string); !isString {
					return docKey{}, "", false
				}
			}
			key.code = stringAt(env, path)
		}
		if k == spec.Invoice && invo == "" {
			invo = stringAt(env, spec.PathOf(data, spec.InvNumber))
		}
	}
	if key.code == "" {
		key.invo = invo
	}
	return key, invo, key.code != "" || invo != ""
}

// stringAt is the string at path below the body's data, "" when none.
func stringAt(env map[string]any, path []string) string {
	s, _ := valueAt(env, path).(string)
	return s
}

// valueAt is the value at path below the body's data, nil when none (or
// null).
func valueAt(env map[string]any, path []string) any {
	if path == nil {
		return nil
	}
	var v any = env[spec.FieldData]
	for _, name := range path {
		o, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = o[name]
	}
	return v
}

// Docs lists the documents in the order their first call came.
func (d *Documents) Docs() []*Doc { return d.order }

// Verdict is what Judge found.
type Verdict struct {
	Asked, Held int
	// Broke are the documents the receiver does not hold once in their
	// state, in order.
	Broke []*Doc
	// Unjudged counts documents the receiver acknowledged no whole call of.
	Unjudged int
	// Unasked are the documents the probe would not ask about, in order: a
	// number or requestId from the traffic that it could take as more than
	// a value (a command as code, a URL's path as another resource).
	Unasked []*Doc
}

// Judge asks p about every document the receiver acknowledged,
// probe.Concurrency questions at a time, again with backoff until settle
// has passed for those that do not match yet. An error is the probe's own
// (a *probe.Error names it).
func (d *Documents) Judge(ctx context.Context, p probe.Probe, settle time.Duration) (Verdict, error) {
	var v Verdict
	var asked, refused []*Doc
	for _, doc := range d.order {
		if doc.Want == "" {
			v.Unjudged++
			refused = append(refused, doc)
			continue
		}
		asked = append(asked, doc)
	}
	v.Asked = len(asked)
	deadline := time.Now().Add(settle)
	// A document the receiver acknowledged no call of (refused) has no
	// state it must be in (it may hold it or not), but more than one record
	// of it is wrong whatever it answered: a receiver that stores a call
	// and then refuses it (500 after the insert) is sent it again, and
	// keeps each copy. Each is asked once, beside the others; its answer
	// is all that is kept, and a number the probe will not take leaves it
	// unjudged rather than unasked.
	ask := func(ctx context.Context, doc *Doc) (bool, error) {
		a, err := p.Ask(ctx, doc.Q)
		var ue *probe.UnsafeError
		if errors.As(err, &ue) {
			// The sender's values, not the probe's fault: this document
			// alone goes unjudged.
			if doc.Want != "" {
				doc.Unsafe = ue
			}
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if doc.asks == 0 {
			doc.firstAsked = time.Now()
		}
		doc.asks++
		doc.Answer = a
		if doc.Want == "" {
			return true, nil
		}
		doc.Held = doc.holds(a)
		return doc.Held, nil
	}
	all := append(slices.Clip(asked), refused...)
	if err := probe.Settle(ctx, len(all), deadline, func(ctx context.Context, i int) (bool, error) { return ask(ctx, all[i]) }); err != nil {
		return v, err
	}
	for _, doc := range refused {
		if doc.asks > 0 && doc.Answer.Count > 1 {
			asked = append(asked, doc) // judged: the probe's sanity below covers its kind
		}
	}
	// A document of more than one call the receiver held is asked once
	// more, and judged on that answer: a copy or a later event of it may
	// land after the first (probe.AgainAt).
	late := slices.ContainsFunc(asked, func(doc *Doc) bool { return doc.asks > 1 })
	var again []*Doc
	var held []probe.Sent
	for _, doc := range asked {
		if doc.Held && doc.Unsafe == nil && doc.Calls > 1 && doc.Want != "" {
			again = append(again, doc)
			held = append(held, probe.Sent{Began: doc.first, End: doc.last, FirstAnswer: doc.firstAsked})
		}
	}
	if at, ok := probe.AgainAt(held, late, settle, deadline); ok {
		if err := probe.WaitUntil(ctx, at); err != nil {
			return v, err
		}
		err := probe.Settle(ctx, len(again), time.Time{}, func(ctx context.Context, i int) (bool, error) {
			_, err := ask(ctx, again[i])
			return true, err
		})
		if err != nil {
			return v, err
		}
	}
	for _, doc := range asked {
		if doc.Unsafe != nil {
			v.Unasked = append(v.Unasked, doc)
		}
	}
	v.Asked -= len(v.Unasked)
	// A probe that ignores the document it is asked about (a count
	// without its where clause, a variable misspelt) answers of the
	// documents the receiver holds: asked about one no sender sent, of
	// each kind it asked about, once their answers are in, it must say
	// count 0.
	for _, k := range []spec.Kind{spec.Invoice, spec.Receipt} {
		i := slices.IndexFunc(asked, func(doc *Doc) bool { return doc.Q.Kind == k && doc.Unsafe == nil })
		if i < 0 {
			continue
		}
		if err := probe.AskNeverSent(ctx, p, neverSent(asked[i].Q)); err != nil {
			return v, err
		}
		// An invoice of the sample shape carries no invoice number: a
		// probe finding invoices by {invoiceCode} alone answers, of
		// each, the count of every one stored without.
		bare := slices.IndexFunc(asked, func(doc *Doc) bool { return doc.Q.Kind == k && doc.Unsafe == nil && doc.Q.InvoiceCode == "" })
		if k != spec.Invoice || bare < 0 {
			continue
		}
		q := neverSent(asked[bare].Q)
		q.InvoiceCode = ""
		if err := probe.AskNeverSent(ctx, p, q); err != nil {
			return v, err
		}
	}
	for _, doc := range d.order {
		switch {
		case doc.Want == "" && doc.asks > 0 && doc.Answer.Count > 1:
			v.Broke = append(v.Broke, doc)
			v.Asked++
			v.Unjudged--
		case doc.Want == "" || doc.Unsafe != nil:
		case doc.Held:
			v.Held++
		default:
			v.Broke = append(v.Broke, doc)
		}
	}
	return v, nil
}

// neverSent is a question about a document of q's kind that no sender
// sent: a number of whsim's own, drawn afresh, in place of q's number and
// invoice number, under q's event.
func neverSent(q probe.Question) probe.Question {
	var b [6]byte
	_, _ = rand.Read(b[:])
	none := "WHSIM-NONE-" + strings.ToUpper(hex.EncodeToString(b[:]))
	n := probe.Question{Kind: q.Kind, Code: none, Event: q.Event, RequestID: reqid.For(reqid.RandomSeed(), q.Event, 0)}
	if q.Kind == spec.Invoice {
		n.InvoiceCode = none
	}
	return n
}

// Defect says what is wrong with a document that broke.
func (doc *Doc) Defect() string {
	a := doc.Answer
	switch {
	case doc.Want == "":
		calls, stored := "calls", "calls"
		if doc.Calls == 1 {
			calls, stored = "call", "the call"
		}
		return fmt.Sprintf("holds %d records of it, want at most 1: it acknowledged none of its %d %s, and stored %s it refused (a sender sends a refused call again)",
			a.Count, doc.Calls, calls, stored)
	case a.Count == 0:
		return "holds nothing for it, though it acknowledged its " + doc.Want + " event"
	case a.Count > 1:
		return fmt.Sprintf("holds %d records of it, want 1 (%s)", a.Count, doc.Want) + doc.maybeWord()
	}
	return fmt.Sprintf("holds it %s, want %s", a.State, doc.Want) + doc.maybeWord()
}

// maybeWord names the states past Want that an event the receiver may
// have taken (Maybe) would leave the document in, "" when none.
func (doc *Doc) maybeWord() string {
	past := doc.pastWant()
	if len(past) == 0 {
		return ""
	}
	return "; or " + strings.Join(past, " or ") + ": that event went out to it unanswered"
}

// Name is the document as a reason names it: kind and number.
func (doc *Doc) Name() string {
	n := doc.Q.Code
	if n == "" {
		n = "invoiceCode " + doc.Q.InvoiceCode
	}
	return probe.KindWord(doc.Q.Kind) + " " + n
}
