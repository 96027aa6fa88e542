// Package payload builds webhook bodies: the envelope and realistic data for
// an event in a shape, consistent the way an ERP's documents are, and the
// --set/--unset overrides users build edge cases with.
package payload

import (
	"strconv"
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
// it to send one document under several events.
func (g *Generator) Envelope(e spec.Event, s spec.Shape, data *Obj) *Obj {
	return new(Obj).
		Add(spec.FieldRequestID, g.f.Rand().UUID()).
		Add(spec.FieldBusinessType, int64(e.NumberFor(s))).
		Add(spec.FieldData, data)
}

// Data returns fresh data for an event in a shape.
func (g *Generator) Data(e spec.Event, s spec.Shape) *Obj {
	if e.Kind == spec.Receipt {
		return g.receipt(s)
	}
	return g.invoice(e, s)
}

// Source documents an invoice is raised from. Purchase invoices come from the
// purchase side; the prefix of relatedOrderCode agrees with createType.
var invoiceSources = []struct {
	createType string
	prefix     string
	weight     float32
}{
	{"PURCHASE_ORDER", "CGDD", 45},
	{"PURCHASE_RECEIPT", "CGRKD", 45},
	{"PURCHASE_RETURN", "CGTLD", 10},
}

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

func (g *Generator) pick(weights []float32) int {
	var total float32
	for _, w := range weights {
		total += w
	}
	x := g.f.Rand().Float32() * total
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

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

func millis(t time.Time) int64 { return t.UnixMilli() }

func (g *Generator) invoice(e spec.Event, s spec.Shape) *Obj {
	f := g.f
	created := g.recent(30)
	kind := f.InvoiceKind()
	_, number := f.InvoiceNumber(kind, created)
	src := invoiceSources[g.pick([]float32{invoiceSources[0].weight, invoiceSources[1].weight, invoiceSources[2].weight})]
	status := spec.StatusPass
	if e.Name == "AUDIT_PURCHASE_ORDER_INVOICE" && g.chance(0.2) {
		status = spec.StatusRefusal
	}
	currency := f.Currency()
	supplier, supplierCode := f.CompanyName(), f.CustomerCode()
	staffCode, staffName := f.EmployeeCode(), f.PersonName()
	code := ""
	if !g.chance(0.1) {
		code = f.DocNumber("CGFP", created)
	}

	lines := g.invoiceLines(s, src.prefix, created, src.createType == "PURCHASE_RETURN")
	d := new(Obj).Add("code", code)
	if s == spec.Described {
		d.Add("invoiceType", "VALUE_ADDED_TAX")
	}
	d.Add("invoiceTypeCode", kind.TypeCode).
		Add("invoiceTitle", f.Title())
	if s == spec.Described {
		d.Add("invoiceCode", number)
	}
	d.Add("taxCode", f.USCC())
	if s == spec.Described {
		d.Add("customerCode", supplierCode).Add("customerName", supplier)
	} else {
		d.Add("enterpriseCode", supplierCode).Add("enterpriseName", supplier)
	}
	d.Add("staffCode", staffCode).Add("staffName", staffName)
	if s == spec.Described {
		d.Add("applicationCode", f.EmployeeCode()).Add("applicationName", f.PersonName())
	}
	d.Add("comments", f.Remark()).Add("currency", currency.Code)
	if s == spec.Described {
		d.Add("createType", src.createType).
			Add(spec.FieldStatus, status).
			Add("createTime", millis(created)).
			Add(spec.FieldItems, lines)
	} else {
		d.Add(spec.FieldStatus, int64(spec.SampleStatus(status))).
			Add(spec.FieldRecords, lines)
	}
	return d
}

func (g *Generator) invoiceLines(s spec.Shape, prefix string, created time.Time, negative bool) []any {
	f := g.f
	r := f.Rand()
	n := 1 + g.pick([]float32{35, 30, 18, 10, 7})
	order := f.DocNumber(prefix, created.AddDate(0, 0, -r.IntRange(1, 20)))
	rate := fake.Decimal{Units: int64(f.VATRate()), Scale: 2}
	lines := make([]any, n)
	for i := range lines {
		if i > 0 && g.chance(0.2) {
			order = f.DocNumber(prefix, created.AddDate(0, 0, -r.IntRange(1, 20)))
		}
		m := f.Material()
		qty, price := f.QuantityFor(m), f.UnitPriceFor(m)
		if negative {
			qty.Units = -qty.Units
		}
		line := new(Obj).
			Add("relatedOrderCode", order).
			Add("itemCode", f.MaterialCode()).
			Add("itemName", m.Name).
			Add("quantity", qty).
			Add("price", price)
		if s == spec.Described {
			line.Add("tax", LineTax(qty, price, rate))
			attrs := new(Obj)
			for _, a := range m.Attrs {
				attrs.Add(a.Key, a.Value)
			}
			line.Add("itemAttributes", attrs)
		}
		line.Add("comments", lineRemark(f, m))
		lines[i] = line
	}
	return lines
}

func lineRemark(f *fake.Faker, m fake.Material) string {
	if f.Rand().Float32() < 0.7 {
		return ""
	}
	return "单位：" + m.Unit
}

// LineTax is a line's VAT: round2(quantity × price × rate) on the exact
// product, with rate a fraction at scale 2 (13% is 0.13).
func LineTax(qty, price, rate fake.Decimal) fake.Decimal {
	return qty.Mul(price, qty.Scale+price.Scale).Mul(rate, 2)
}

// Receipt enumerations as whsim draws them: the values seen in the spec's
// samples first and most often, plausible siblings rarer.
var (
	receiptTypes = weighted{{"销售收款", 85}, {"其他业务收款", 10}, {"预收款", 5}}
	docStates    = weighted{{"未开始", 80}, {"进行中", 12}, {"已完成", 8}}
	auditStates  = weighted{{"待提交", 75}, {"待审核", 10}, {"审核中", 5}, {"已审核", 10}}
	purposes     = weighted{{"销售收款", 85}, {"预收款", 10}, {"其他收入", 5}}
	sourceTypes  = weighted{{"标准应收单", 85}, {"费用应收单", 10}, {"其他应收单", 5}}
)

const (
	audited = "已审核"

	writtenOffNone = "未核销"
	writtenOffPart = "部分核销"
	writtenOffFull = "已核销"
)

type weighted []struct {
	name   string
	weight float32
}

func (g *Generator) draw(w weighted) string {
	ws := make([]float32, len(w))
	for i, x := range w {
		ws[i] = x.weight
	}
	return w[g.pick(ws)].name
}

type receiptLine struct {
	due, discount, overShort, fee, writtenOff fake.Decimal
}

func (l receiptLine) afterDiscount() fake.Decimal { return l.due.Sub(l.discount) }
func (l receiptLine) received() fake.Decimal      { return l.afterDiscount().Add(l.overShort) }
func (l receiptLine) net() fake.Decimal           { return l.received().Sub(l.fee) }

func (g *Generator) receipt(s spec.Shape) *Obj {
	f := g.f
	r := f.Rand()
	hidden := s == spec.Sample
	date := midnight(g.now.AddDate(0, 0, -r.IntRange(0, 45)))
	currency := f.Currency()
	base, _ := f.CurrencyByCode("CNY")
	rate := currency.Rate
	customer := new(Obj).Add("code", f.CustomerCode()).Add("name", f.CompanyName())
	audit := g.draw(auditStates)
	isAudited := audit == audited

	lines := make([]receiptLine, 1+g.pick([]float32{70, 22, 8}))
	for i := range lines {
		l := &lines[i]
		l.due = g.amount(currency)
		if g.chance(0.1) {
			l.discount = l.due.Mul(fake.Decimal{Units: int64(r.IntRange(1, 3)), Scale: 2}, 2)
		} else {
			l.discount = fake.Money(0)
		}
		l.overShort, l.fee = fake.Money(0), fake.Money(0)
		if g.chance(0.05) {
			l.overShort = fake.Money(int64(r.IntRange(-500, 500)))
		}
		if g.chance(0.1) {
			l.fee = fake.Money(int64(r.IntRange(100, 5000)))
		}
		l.writtenOff = fake.Money(0)
		if isAudited && g.chance(0.6) {
			l.writtenOff = l.due
			if g.chance(0.3) {
				l.writtenOff = l.due.Mul(fake.Decimal{Units: int64(r.IntRange(10, 90)), Scale: 2}, 2)
			}
		}
	}

	var due, net, writtenOff = fake.Money(0), fake.Money(0), fake.Money(0)
	for _, l := range lines {
		due, net, writtenOff = due.Add(l.due), net.Add(l.net()), writtenOff.Add(l.writtenOff)
	}
	writeOff := writtenOffNone
	switch {
	case writtenOff.Units == 0:
	case writtenOff == due:
		writeOff = writtenOffFull
	default:
		writeOff = writtenOffPart
	}

	header := new(Obj).
		Add("收款单编号", f.DocNumber("SKD", date)).
		Add("单据类型", g.draw(receiptTypes)).
		Add("单据状态", g.draw(docStates)).
		Add("审核状态", audit).
		Add("核销状态", writeOff).
		Add("业务日期", millis(date)).
		Add("客户名称", customer).
		Add("币别", currencyObj(currency)).
		Add("币种代码", currency.Name).
		Add("本位币", currencyObj(base)).
		Add("结算币别", currencyObj(currency)).
		Add("汇率", rate).
		Add("币别汇率", rate).
		Add("结算汇率", rate).
		Add("结算币别汇率", rate).
		Add("应收金额", due).
		Add("应收金额本位币", due.Mul(rate, 2)).
		Add("实收金额", net).
		Add("实收金额本位币", net.Mul(rate, 2)).
		Add("已核销金额", writtenOff).
		Add("未核销金额", due.Sub(writtenOff)).
		Add("是否生产凭证", isAudited && writeOff != writtenOffNone && g.chance(0.7))
	if hidden {
		header.Add("收款跳转标志", int64(g.pick([]float32{80, 20})))
	}

	detail := make([]any, len(lines))
	for i, l := range lines {
		o := new(Obj).
			Add("编号", strconv.Itoa(i+1)).
			Add("收款用途", g.draw(purposes)).
			Add("应收金额", l.due).
			Add("收款金额", l.received()).
			Add("实收金额", l.net()).
			Add("现金折扣", l.discount).
			Add("折后金额", l.afterDiscount()).
			Add("长短款", l.overShort).
			Add("手续费", l.fee).
			Add("已核销金额", l.writtenOff).
			Add("未核销金额", l.due.Sub(l.writtenOff))
		if hidden {
			o.Add("已核销金额本位币-隐", l.writtenOff.Mul(rate, 2)).
				Add("应收金额本位币-隐", l.due.Mul(rate, 2).String())
		}
		detail[i] = o
	}

	return new(Obj).
		Add(spec.ReceiptHeader, header).
		Add(spec.ReceiptLines, detail).
		Add(spec.ReceiptSources, g.sources(due, date, customer, currency, hidden))
}

// sources splits the receivable total over one to three source documents,
// each with 本次应收 ≤ 计划应收 ≤ 应收.
func (g *Generator) sources(total fake.Decimal, date time.Time, customer *Obj, currency fake.Currency, hidden bool) []any {
	f := g.f
	r := f.Rand()
	n := 1 + g.pick([]float32{75, 20, 5})
	if total.Units < int64(n)*100 {
		n = 1
	}
	out := make([]any, n)
	left := total
	for i := range out {
		this := left
		if i < n-1 {
			this = fake.Money(left.Units / int64(n-i) * int64(r.IntRange(60, 100)) / 100)
		}
		left = left.Sub(this)
		planned, srcDue := this, this
		if g.chance(0.3) {
			planned = this.Add(fake.Money(this.Units * int64(r.IntRange(1, 50)) / 100))
		}
		if g.chance(0.3) {
			srcDue = planned.Add(fake.Money(planned.Units * int64(r.IntRange(1, 50)) / 100))
		} else {
			srcDue = planned
		}
		srcDate := date.AddDate(0, 0, -r.IntRange(5, 60))
		o := new(Obj).
			Add("编号", strconv.Itoa(i+1)).
			Add("源单编号", f.DocNumber("AR", srcDate)).
			Add("源单类型", g.draw(sourceTypes)).
			Add("源单客户", customer.Clone()).
			Add("源单币别", currencyObj(currency)).
			Add("应收金额", srcDue).
			Add("本次应收金额", this).
			Add("计划应收金额", planned).
			Add("到期日", millis(srcDate.AddDate(0, 0, []int{15, 30, 30, 45, 60, 90}[r.IntRange(0, 5)]))).
			Add("备注", f.Remark())
		if hidden {
			o.Add("未核销金额-隐", srcDue.Sub(this))
		}
		out[i] = o
	}
	return out
}

func currencyObj(c fake.Currency) *Obj {
	return new(Obj).Add("code", c.Code).Add("field_7bf2h", c.Name)
}

// amount draws a receivable amount that is plausible in CNY, converted to
// the document currency and sometimes rounded to whole units.
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
	return fake.Money(cny.Units * 10000 / c.Rate.Units)
}

// Source makes the payloads of one run: fresh data for each, in one shape,
// with the user's overrides applied.
type Source struct {
	gen   *Generator
	shape spec.Shape
	ovs   []Override
	// The n-th payload of an event has requestId reqid.For(seed, event,
	// n), as send's n-th delivery of it does.
	seed uint64
	n    map[string]uint64
}

// NewSource returns a source drawing from seed (0: random) around now.
func NewSource(seed uint64, now time.Time, shape spec.Shape, ovs []Override) *Source {
	src := &Source{gen: New(seed, now), shape: shape, ovs: ovs, seed: seed, n: map[string]uint64{}}
	if seed == 0 {
		src.seed = reqid.RandomSeed()
	}
	return src
}

// Generator returns the source's generator, for scenarios that reuse data.
func (s *Source) Generator() *Generator { return s.gen }

// Shape is the shape the source builds.
func (s *Source) Shape() spec.Shape { return s.shape }

// Next builds the next payload of event e. Its error is a *PathError when
// an override does not fit the payload.
func (s *Source) Next(e spec.Event) (*Obj, error) {
	doc := s.gen.Build(e, s.shape)
	doc.Put(spec.FieldRequestID, reqid.For(s.seed, e.Name, s.n[e.Name]))
	s.n[e.Name]++
	return doc, Apply(doc, s.ovs)
}
