package fake

import (
	"slices"
	"time"
)

// invoiceKind is one 发票种类代码 (fplx) as used by the 查验/勾选/乐企 interfaces.
type invoiceKind struct {
	TypeCode string // "01", "04", "08", "10", "81", "82", …
	Name     string // "增值税专用发票", "电子发票（增值税专用发票）", …
	Digital  bool   // 数电: 20-digit number, no 发票代码
}

// invoiceKinds holds every code; the first twelve are drawn, weighted by
// kindW (数电 has been the default since 2024-12, legacy kinds linger in
// historical data).
var invoiceKinds = [...]invoiceKind{
	{"81", "电子发票（增值税专用发票）", true},
	{"82", "电子发票（普通发票）", true},
	{"01", "增值税专用发票", false},
	{"04", "增值税普通发票", false},
	{"08", "增值税电子专用发票", false},
	{"10", "增值税电子普通发票", false},
	{"11", "增值税普通发票（卷式）", false},
	{"14", "增值税电子普通发票（通行费）", false},
	{"85", "纸质发票（增值税专用发票）", false},
	{"86", "纸质发票（普通发票）", false},
	{"51", "电子发票（铁路电子客票）", true},
	{"61", "电子发票（航空运输客票电子行程单）", true},
	{"02", "货物运输业增值税专用发票", false},
	{"03", "机动车销售统一发票", false},
	{"15", "二手车销售统一发票", false},
	{"83", "机动车销售电子统一发票", true},
	{"84", "二手车销售电子统一发票", true},
	{"87", "纸质发票（机动车销售统一发票）", false},
	{"88", "纸质发票（二手车销售统一发票）", false},
}

// The toll (14), rail (51) and air (61) tickets are a traveller's or a
// driver's, claimed on expenses: never the invoice of goods on a purchase
// order, hence weight 0.
var kindW = [...]uint16{42, 24, 10, 6, 3, 8, 1, 0, 1, 1, 0, 0}

// InvoiceKind draws a realistic kind for a purchase invoice.
func (f *Faker) InvoiceKind() invoiceKind { return invoiceKinds[Pick(f.r, kindW[:])] }

// invoiceKindByCode looks a kind up by its two-digit code.
func invoiceKindByCode(code string) (invoiceKind, bool) {
	if i := slices.IndexFunc(invoiceKinds[:], func(k invoiceKind) bool { return k.TypeCode == code }); i >= 0 {
		return invoiceKinds[i], true
	}
	return invoiceKind{}, false
}

// InvoiceNumber draws the 发票代码 and 发票号码 for kind k that seller issued
// at t, numbered by the seller's tax authority. 数电 kinds get no code and
// a 20-digit number: YY, the seller's province, channel, 15-digit sequence.
// Legacy kinds get a 10- or 12-digit code carrying the seller's tax region
// and the year, and an 8-digit number. A seller of no region (the zero
// Company) gets one drawn here.
func (f *Faker) InvoiceNumber(k invoiceKind, t time.Time, seller Company) (code, number string) {
	home := seller.home
	if home == nil {
		home = f.region()
	}
	yy := uint64(shanghai(t).Year() % 100)
	var buf [20]byte
	if k.Digital {
		b := appendPad(buf[:0], yy, 2)
		b = append(b, home.province()...)
		b = append(b, "12"[Pick(f.r, []uint16{15, 85})])
		return "", f.own(b, uint64(f.r.IntN(1_000_000_000)), 15, 0)
	}
	region := home.taxRegion
	b := buf[:0]
	var suffix string // 12-digit codes end in a 2-digit 票种 of their own list
	switch k.TypeCode {
	case "08":
		suffix = "13"
	case "10":
		suffix = "11"
	case "14":
		suffix = "12"
	case "11":
		suffix = [...]string{"06", "07"}[f.r.IntN(2)]
	case "04", "86":
		if f.percent(50) {
			suffix = [...]string{"04", "05"}[f.r.IntN(2)]
		}
	}
	if suffix != "" {
		b = append(b, '0')
		b = append(b, region...)
		b = appendPad(b, yy, 2)
		b = appendPad(b, uint64(f.r.IntRange(1, 300)), 3)
		b = append(b, suffix...)
	} else {
		b = append(b, region...)
		b = appendPad(b, yy, 2)
		b = append(b, byte('1'+f.r.IntN(4))) // print batch
		switch k.TypeCode {
		case "01", "85", "02":
			b = append(b, "15"[f.r.IntN(2)], '3') // 专票, 3 联
		default:
			b = append(b, "36"[f.r.IntN(2)], '2') // 普票, 2 联
		}
		b = append(b, '0') // computer-issued
	}
	code = string(b)
	// An 8-digit number is one of its code's, and the two together are the
	// invoice; but a payload carries the number alone (invoiceCode: the
	// spec has no field for the code), so it is given once a run whatever
	// the code, or two invoices of other codes read as one document to a
	// receiver that keys on it.
	number = f.own([]byte(legacyNumberHead), uint64(f.r.IntN(100_000_000)), 8, 0)
	return code, number[len(legacyNumberHead):]
}

// legacyNumberHead is the head own keeps the 8-digit invoice numbers of a
// run under: one for every code, and no document number's (those start
// with letters, the 20-digit invoice numbers with their year).
const legacyNumberHead = "/"

// LevyRate is the rate, in percent, a small-scale taxpayer levies on a sale
// at t: 3%, reduced to 1% until 2027-12-31 (MOF/SAT Ann. 2023 No.19).
func LevyRate(t time.Time) int {
	if shanghai(t).Year() <= 2027 {
		return 1
	}
	return 3
}

// Currency is an ISO 4217 currency with its usual Chinese name and a rate in
// CNY per unit.
type Currency struct {
	Code string  // CNY, USD, EUR, …
	Name string  // 人民币, 美元, 欧元, …
	Rate Decimal // CNY per 1 unit, Scale 4; exactly 1 for CNY
	// Whole is a currency of no minor unit (ISO 4217: 0 digits): a yen
	// or a won is not divided.
	Whole bool
}

// InUnits truncates an amount toward zero to c's smallest unit: whole units
// where c has no minor unit, else d unchanged.
func (c Currency) InUnits(d Decimal) Decimal {
	if !c.Whole || d.Scale <= 0 {
		return d
	}
	unit := int64(1)
	for range d.Scale {
		unit *= 10
	}
	return Decimal{Units: d.Units / unit * unit, Scale: d.Scale} // integer division truncates toward zero
}

// currencies carry plausible 2024–26 CNY-per-unit ranges in 1/10000, and
// whether they are of no minor unit.
var currencies = [...]struct {
	code, name string
	lo, hi     int64
	w          uint16
	whole      bool
}{
	{"CNY", "人民币", 10000, 10000, 750, false},
	{"USD", "美元", 70000, 73500, 120, false},
	{"EUR", "欧元", 76000, 84000, 50, false},
	{"HKD", "港币", 9000, 9400, 30, false},
	{"JPY", "日元", 450, 520, 20, true},
	{"GBP", "英镑", 89000, 98000, 10, false},
	{"AUD", "澳元", 45000, 49500, 4, false},
	{"CAD", "加元", 50000, 53500, 3, false},
	{"SGD", "新加坡元", 52000, 56000, 4, false},
	{"KRW", "韩元", 50, 56, 3, true},
	{"CHF", "瑞士法郎", 79000, 91000, 2, false},
	{"TWD", "新台币", 2150, 2350, 2, false},
	{"MOP", "澳门元", 8700, 9100, 2, false},
}

// Currency draws CNY about 75% of the time, else a foreign currency with a
// rate inside its plausible range.
func (f *Faker) Currency() Currency {
	var w [len(currencies)]uint16
	for i, c := range currencies {
		w[i] = c.w
	}
	c := currencies[Pick(f.r, w[:])]
	return Currency{c.code, c.name, Decimal{int64(f.r.IntRange(int(c.lo), int(c.hi))), 4}, c.whole}
}

// CurrencyByCode looks a currency up without drawing; its rate is the middle
// of the plausible range.
func (f *Faker) CurrencyByCode(code string) (Currency, bool) {
	for _, c := range currencies {
		if c.code == code {
			return Currency{c.code, c.name, Decimal{(c.lo + c.hi) / 2, 4}, c.whole}, true
		}
	}
	return Currency{}, false
}
