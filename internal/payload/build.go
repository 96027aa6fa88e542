// Package payload builds webhook bodies: the envelope and realistic data for
// an event in a shape, consistent the way an ERP's documents are, and the
// --set/--unset overrides users build edge cases with.
//
// Data is made in two steps. The generator draws a shape-independent domain
// document (document.go: an invoice with its lines, a receipt with its lines,
// sources and ledger) from one seeded source; the renderer (render.go) then
// walks the spec's field table of the shape and takes each field's value
// from the document by the field's spec.Datum. What differs between shapes
// (names, the integer status, fields left out) lives only in the spec.
package payload

import (
	"hash/fnv"
	"time"

	"github.com/whsim/whsim/internal/fake"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
)

// Anchor is the "now" of seeded runs, so that a seed gives the same bytes on
// any day (and the fixtures stay put). Unseeded runs use the real clock.
var anchor = time.Date(2026, 11, 1, 10, 0, 0, 0, shanghai)

// Anchor returns the fixed time seeded runs generate around.
func Anchor() time.Time { return anchor }

// Around is the time a run generates around: Anchor for a seed the user
// gave, so that it gives the same bytes on any day; now for a random one.
func Around(seed uint64, now time.Time) time.Time {
	if seed != 0 {
		return anchor
	}
	return now
}

// shanghai is a fixed UTC+8 zone: China has no daylight saving time, and a
// fixed zone needs no tzdata on the user's machine.
var shanghai = time.FixedZone("Asia/Shanghai", 8*3600)

// Generator builds payloads from one seeded source of randomness.
type Generator struct {
	f   *fake.Faker
	now time.Time
}

// New returns a generator drawing from seed (0: a random seed) with dates
// shortly before now.
func New(seed uint64, now time.Time) *Generator {
	return &Generator{f: fake.New(seed), now: now.In(shanghai)}
}

// Build returns the envelope of one event in a shape, with fresh data.
func (g *Generator) Build(e spec.Event, s spec.Shape) *Obj {
	return g.Envelope(e, s, g.Data(e, s))
}

// Envelope wraps data in a new envelope with a fresh requestId. Scenarios use
// it to send one document under several events. It puts data in the state
// the event leaves its document in (spec.Transitions: a void reads as
// voided), so a caller that sends a created document's data under a
// follow-up event passes a copy.
func (g *Generator) Envelope(e spec.Event, s spec.Shape, data *Obj) *Obj {
	transition(e, s, data)
	r := g.f.Rand()
	return new(Obj).
		add(spec.FieldRequestID, spec.NewUUID(r.Uint64(), r.Uint64())).
		add(spec.FieldBusinessType, int64(e.NumberFor(s))).
		add(spec.FieldData, data)
}

// transition sets the fields the event changes, where data has them.
func transition(e spec.Event, s spec.Shape, data *Obj) {
	// The layout's fields are spec.Data's, projected once: projecting
	// them again for every payload of an audit or an abandon made its
	// field tree anew each time.
	fields := spec.Field{Fields: layoutOf(e.Kind, s).fields}
	for _, t := range spec.Transitions(e) {
		p := spec.PathOf(fields, t.Field)
		if len(p) == 0 {
			continue
		}
		o := data
		for _, key := range p[:len(p)-1] {
			child, _ := o.Get(key)
			if o, _ = child.(*Obj); o == nil {
				break
			}
		}
		if o != nil {
			if _, ok := o.Get(p[len(p)-1]); ok {
				o.Put(p[len(p)-1], t.Value)
			}
		}
	}
}

// Data returns fresh data for an event in a shape.
func (g *Generator) Data(e spec.Event, s spec.Shape) *Obj { return g.DataFor(e, s, e) }

// DataFor returns fresh data for event e in a shape, of a document whose
// life goes on to event last (a created receipt to be voided: e
// CREATE_RECEIVABLE_DOC, last ABANDON_RECEIVABLE_DOC), so that it is a
// document an ERP lets its user take there: a receipt to be voided was
// never submitted. Callers that send a document's data under its later
// events draw it with this.
func (g *Generator) DataFor(e spec.Event, s spec.Shape, last spec.Event) *Obj {
	l := layoutOf(e.Kind, s)
	c := cursor{}
	if e.Kind == spec.Receipt {
		c.rec = g.receipt(spec.StateAfter(last) == spec.DocVoided)
	} else {
		c.inv = g.invoice(e)
	}
	return render(l.fields, &c)
}

// Source documents an invoice is raised from. Purchase invoices come from the
// purchase side; the prefix of the related document number agrees with
// createType.
var (
	invoiceSources = []struct {
		createType string
		prefix     string
	}{
		{"PURCHASE_ORDER", "CGDD"},
		{"PURCHASE_RECEIPT", "CGRKD"},
		{"PURCHASE_RETURN", "CGTLD"},
	}
	invoiceSourceW = []float32{45, 45, 10}
)

// RelatedOrderPrefix returns the document-number prefix that goes with a
// createType value.
func RelatedOrderPrefix(createType string) string {
	switch createType {
	case "SALE_ORDER":
		return "XSDD"
	case "SALE_OUT":
		return "XSCKD"
	case "SALE_RETURN":
		return "XSTHD"
	}
	for _, s := range invoiceSources {
		if s.createType == createType {
			return s.prefix
		}
	}
	return ""
}

func (g *Generator) pick(weights []float32) int { return fake.Pick(g.f.Rand(), weights) }

// chance reports true with probability p.
func (g *Generator) chance(p float64) bool { return g.f.Rand().Float64() < p }

// recent returns a time within the last days days before now, in office hours.
func (g *Generator) recent(days int) time.Time {
	r := g.f.Rand()
	d := g.now.AddDate(0, 0, -r.IntRange(0, days))
	return time.Date(d.Year(), d.Month(), d.Day(), r.IntRange(8, 19), r.IntRange(0, 59), r.IntRange(0, 59),
		r.IntRange(0, 999)*int(time.Millisecond), shanghai)
}

// midnight is the start of t's day in Asia/Shanghai, where ERPs store dates.
func midnight(t time.Time) time.Time {
	t = t.In(shanghai)
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, shanghai)
}

// invoice draws an invoice. The draws keep one order, so that a seed gives
// the same bytes on every run, and are the same whatever the shape: values
// only some shapes carry (the applicant) are drawn for all, so that a seed
// gives the same document, and the same run of documents after it, in
// either shape.
func (g *Generator) invoice(e spec.Event) *invoiceDoc {
	f := g.f
	inv := &invoiceDoc{created: g.recent(30)}
	kind := f.InvoiceKind()
	inv.typeCode = kind.TypeCode
	// The supplier issued the invoice: its tax authority numbered it.
	seller := f.Company()
	_, inv.number = f.InvoiceNumber(kind, inv.created, seller)
	src := invoiceSources[g.pick(invoiceSourceW)]
	inv.createType = src.createType
	inv.status = spec.StatusPass
	if e.Name == "AUDIT_PURCHASE_ORDER_INVOICE" {
		inv.status = auditVerdict(g.f.Rand().Float64())
	}
	// VAT is computed and invoiced in renminbi (增值税暂行条例 第六条: a sale
	// settled in another currency is converted): a VAT invoice is in CNY.
	inv.currency = "CNY"
	inv.supplier.name, inv.supplier.code = seller.Name, f.CustomerCode()
	inv.staff.code, inv.staff.name = f.EmployeeCode(), f.PersonName()
	if !g.chance(0.1) {
		inv.code = f.DocNumber("CGFP", inv.created)
	}
	g.invoiceLines(inv, seller, src.prefix, src.createType == "PURCHASE_RETURN")
	// The title (抬头) and the taxCode (税号) are the buyer's, as a buyer
	// gives both to a seller to invoice it: one company of one region.
	buyer := f.Company()
	inv.title, inv.taxID = buyer.Name, buyer.TaxID
	inv.applicant.code, inv.applicant.name = f.EmployeeCode(), f.PersonName()
	inv.remark = f.Remark()
	return inv
}

// jumpFlag is the receipt's 收款跳转标志, which only the sample shape
// carries: 1 for about one receipt in five, else 0. It follows from the
// receipt's number rather than from a draw, so that the described shape,
// which leaves it out, draws what the sample shape draws: the same seed
// gives the same receipt (its source documents too) and the same payloads
// after it in either shape, and the described bytes stay those they were.
func jumpFlag(number string) int64 {
	h := fnv.New32a()
	h.Write([]byte(number))
	if h.Sum32()%5 == 0 {
		return 1
	}
	return 0
}

// invoiceLines draws the lines seller invoiced, each taxed at its goods'
// VAT rate, or at the levy rate of a small-scale seller.
func (g *Generator) invoiceLines(inv *invoiceDoc, seller fake.Company, prefix string, negative bool) {
	f := g.f
	r := f.Rand()
	n := 1 + g.pick([]float32{35, 30, 18, 10, 7})
	order := f.DocNumber(prefix, inv.created.AddDate(0, 0, -r.IntRange(1, 20)))
	inv.items = make([]invoiceItem, n)
	for i := range inv.items {
		it := &inv.items[i]
		if i > 0 && g.chance(0.2) {
			order = f.DocNumber(prefix, inv.created.AddDate(0, 0, -r.IntRange(1, 20)))
		}
		m := f.Material()
		it.order, it.name, it.attrs = order, m.Name, m.Attrs
		rate := m.Rate
		if seller.SmallScale {
			rate = fake.LevyRate(inv.created)
		}
		it.rate = fake.Decimal{Units: int64(rate), Scale: 2}
		it.qty, it.price = f.QuantityFor(m), f.UnitPriceFor(m)
		if negative {
			it.qty.Units = -it.qty.Units
		}
		it.code = f.MaterialCode()
		if r.Float32() >= 0.7 {
			it.remark = "单位：" + m.Unit
		}
	}
}

// lineVAT is a line's VAT as the Golden Tax system computes it (domain
// notes §3): the amount round2(quantity × price) first, then round2(amount
// × rate), with rate a fraction at scale 2 (13% is 0.13). On the unrounded
// product the tax differed by a cent in about one line in 200.
func lineVAT(qty, price, rate fake.Decimal) fake.Decimal {
	return qty.Mul(price, 2).Mul(rate, 2)
}

// Receipt enumerations as whsim draws them: the values seen in the spec's
// samples first and most often, plausible siblings rarer.
var (
	auditStates = weighted{[]string{"待提交", "待审核", "审核中", "已审核"}, []float32{75, 10, 5, 10}}

	// What a receipt is for ties its document type, its lines' purpose and
	// the documents it collects on, as in Kingdee (domain notes §4.1): a
	// 销售收款 receipt collects sales receivables, or takes an advance
	// (预收款, a purpose, not a type) on a sales order before any
	// receivable exists; an 其他业务收款 receipt takes other income on an
	// 其他应收单.
	receiptKinds = []struct {
		typ, purpose string
		sources      weighted
		prefix       string // of the source documents' numbers
	}{
		{"销售收款", salesPurpose, weighted{[]string{"标准应收单", "费用应收单"}, []float32{90, 10}}, "AR"},
		{"销售收款", "预收款", weighted{[]string{"销售订单"}, []float32{1}}, "XSDD"},
		{"其他业务收款", "其他收入", weighted{[]string{"其他应收单"}, []float32{1}}, "AR"},
	}
	receiptKindW = []float32{82, 10, 8}
)

const (
	audited   = "已审核"
	submitted = "待提交"

	salesPurpose = "销售收款" // collects a sales receivable

	// 单据状态 is a workflow stage (domain notes §4.2): not started until
	// the receipt is submitted, done once it is audited and written off in
	// full, in progress between.
	stateNotStarted = "未开始"
	stateInProgress = "进行中"
	stateDone       = "已完成"

	writtenOffNone = "未核销"
	writtenOffPart = "部分核销"
	writtenOffFull = "已核销"
)

// weighted is an enumeration with the weight of each value.
type weighted struct {
	names   []string
	weights []float32
}

func (g *Generator) draw(w weighted) string { return w.names[g.pick(w.weights)] }

// receipt draws a receipt: its lines first, whose amounts the header totals
// and the source documents share out. A receipt to be voided is one not yet
// submitted: an ERP voids (作废) no audited receipt (it is un-audited
// first: Kingdee's 已审核的单据不能作废), and none written off or booked to
// a voucher.
func (g *Generator) receipt(toBeVoided bool) *receiptDoc {
	f := g.f
	r := f.Rand()
	rec := &receiptDoc{date: midnight(g.now.AddDate(0, 0, -r.IntRange(0, 45)))}
	rec.currency = f.Currency()
	rec.base, _ = f.CurrencyByCode("CNY")
	rec.customer.code, rec.customer.name = f.CustomerCode(), f.CompanyName()
	rec.audit = g.draw(auditStates)
	if toBeVoided {
		rec.audit = submitted // drawn all the same: the draws after keep their order
	}
	isAudited := rec.audit == audited

	// Amounts in the receipt's currency are of its smallest unit: whole
	// yen or won (the base-currency amounts, in CNY, keep their fen).
	unit := rec.currency.InUnits
	rec.lines = make([]receiptLine, 1+g.pick([]float32{70, 22, 8}))
	for i := range rec.lines {
		l := &rec.lines[i]
		l.due = g.amount(rec.currency)
		if g.chance(0.1) {
			l.discount = unit(l.due.Mul(fake.Decimal{Units: int64(r.IntRange(1, 3)), Scale: 2}, 2))
		} else {
			l.discount = fake.Money(0)
		}
		l.overShort, l.fee = fake.Money(0), fake.Money(0)
		if g.chance(0.05) {
			l.overShort = unit(fake.Money(int64(r.IntRange(-500, 500))))
		}
		if g.chance(0.1) {
			l.fee = unit(fake.Money(int64(r.IntRange(100, 5000))))
		}
		l.writtenOff = fake.Money(0)
		if isAudited && g.chance(0.6) {
			l.writtenOff = l.due
			if g.chance(0.3) {
				l.writtenOff = unit(l.due.Mul(fake.Decimal{Units: int64(r.IntRange(10, 90)), Scale: 2}, 2))
			}
		}
	}

	// The header's totals follow from the lines (spec.Totals).
	hdr := &cursor{rec: rec}
	due, writtenOff := hdr.decimal(spec.RecDue), hdr.decimal(spec.RecWrittenOff)
	rec.writeOff = writtenOffNone
	switch {
	case writtenOff.Units == 0:
	case writtenOff == due:
		rec.writeOff = writtenOffFull
	default:
		rec.writeOff = writtenOffPart
	}

	rec.number = f.DocNumber("SKD", rec.date)
	kind := &receiptKinds[g.pick(receiptKindW)]
	rec.typ = kind.typ
	switch {
	case rec.audit == submitted:
		rec.state = stateNotStarted
	case isAudited && rec.writeOff == writtenOffFull:
		rec.state = stateDone
	default:
		rec.state = stateInProgress
	}
	rec.voucher = isAudited && rec.writeOff != writtenOffNone && g.chance(0.7)
	rec.jumpFlag = jumpFlag(rec.number)
	for i := range rec.lines {
		l := &rec.lines[i]
		l.purpose = kind.purpose
		// A cash discount rewards paying a receivable early: an advance or
		// other income settles none. (No total read yet depends on it.)
		if kind.purpose != salesPurpose {
			l.discount = fake.Money(0)
		}
	}
	g.sources(rec, due, kind.sources, kind.prefix)
	return rec
}

// sources splits the receivable total due over one to three source
// documents of types, numbered with prefix, each with 本次应收 ≤ 计划应收 ≤
// 应收.
func (g *Generator) sources(rec *receiptDoc, due fake.Decimal, types weighted, prefix string) {
	f := g.f
	r := f.Rand()
	n := 1 + g.pick([]float32{75, 20, 5})
	if due.Units < int64(n)*100 {
		n = 1
	}
	rec.sources = make([]sourceLine, n)
	unit := rec.currency.InUnits
	left := due
	for i := range rec.sources {
		s := &rec.sources[i]
		this := left
		if i < n-1 {
			this = unit(fake.Money(left.Units / int64(n-i) * int64(r.IntRange(60, 100)) / 100))
		}
		left = left.Sub(this)
		planned := this
		if g.chance(0.3) {
			planned = this.Add(unit(fake.Money(this.Units * int64(r.IntRange(1, 50)) / 100)))
		}
		due := planned
		if g.chance(0.3) {
			due = planned.Add(unit(fake.Money(planned.Units * int64(r.IntRange(1, 50)) / 100)))
		}
		date := rec.date.AddDate(0, 0, -r.IntRange(5, 60))
		s.this, s.planned, s.due = this, planned, due
		s.number = f.DocNumber(prefix, date)
		s.typ = g.draw(types)
		s.dueDate = date.AddDate(0, 0, []int{15, 30, 30, 45, 60, 90}[r.IntRange(0, 5)])
		s.remark = f.Remark()
	}
}

// amount draws a receivable amount that is plausible in CNY, converted to
// the document currency (in its smallest unit) and sometimes rounded to
// whole units.
func (g *Generator) amount(c fake.Currency) fake.Decimal {
	r := g.f.Rand()
	yuan := int64(r.IntRange(500, 300000))
	if g.chance(0.3) {
		yuan = yuan / 100 * 100
	}
	cents := yuan*100 + int64(r.IntRange(0, 99))
	if g.chance(0.4) {
		cents = yuan * 100
	}
	cny := fake.Money(cents)
	if c.Code == "CNY" || c.Rate.Units == 0 {
		return cny
	}
	// cents / rate, with the rate's four decimals scaled out.
	return c.InUnits(fake.Money(cny.Units * 10000 / c.Rate.Units))
}

// source makes the payloads of one run: fresh data for each, in one shape,
// with the user's overrides applied.
type source struct {
	gen   *Generator
	shape spec.Shape
	ovs   []Override
	// The n-th payload of an event has requestId reqid.For(seed, event,
	// n), as send's n-th delivery of it does.
	seed uint64
	n    map[string]uint64
}

// NewSource returns a source drawing from seed (0: random) around now.
func NewSource(seed uint64, now time.Time, shape spec.Shape, ovs []Override) *source {
	src := &source{gen: New(seed, now), shape: shape, ovs: ovs, seed: seed, n: map[string]uint64{}}
	if seed == 0 {
		src.seed = reqid.RandomSeed()
	}
	return src
}

// WithNonce gives the source's payloads requestIds of their own under
// nonce (reqid.Mix): the same content as the seed's, ids no other run
// shares. Nonce 0 keeps the seed's ids, those `generate --seed` prints. It
// is called before the first Next.
func (s *source) WithNonce(nonce uint64) *source {
	s.seed = reqid.Mix(s.seed, nonce)
	return s
}

// Next builds the next payload of event e. Its error is a *PathError when
// an override does not fit the payload.
func (s *source) Next(e spec.Event) (*Obj, error) {
	doc := s.gen.Build(e, s.shape)
	doc.Put(spec.FieldRequestID, reqid.For(s.seed, e.Name, s.n[e.Name]))
	s.n[e.Name]++
	return doc, Apply(doc, s.ovs)
}
