// Package fake draws realistic Chinese ERP data (people, companies, tax ids,
// invoice numbers, materials, money) from one seeded source (gofakeit's JSF generator), so that
// a seed always yields the same bytes. gofakeit has no Chinese data, hence the
// word lists here.
package fake

import (
	"strconv"
	"strings"
	"time"
)

// Faker draws realistic Chinese ERP data from one seeded source.
type Faker struct {
	r *Rand
	// given holds the document and invoice numbers given, so that none
	// is given twice (own).
	given givenNumbers
}

// New returns a Faker drawing from seed (0: a random seed); every draw
// comes from one source, in call order.
func New(seed uint64) *Faker { return &Faker{r: newRand(seed)} }

// Rand returns the underlying source, for callers' own draws.
func (f *Faker) Rand() *Rand { return f.r }

// percent is true with probability p/100.
func (f *Faker) percent(p int) bool { return f.r.IntN(100) < p }

// appendPad appends v in decimal, zero-padded to width.
func appendPad(b []byte, v uint64, width int) []byte {
	var t [20]byte
	d := strconv.AppendUint(t[:0], v, 10)
	for range width - len(d) {
		b = append(b, '0')
	}
	return append(b, d...)
}

// Surnames follow the 2020 household-register ranking; weights are in units
// of 0.01% of the population, and "" stands for every rarer surname.
var (
	surnames = [...]string{"王", "李", "张", "刘", "陈", "杨", "黄", "赵", "吴", "周", "徐", "孙", "马", "朱", "胡", "郭", "何", "高",
		"林", "罗", "郑", "梁", "谢", "宋", "唐", "许", "韩", "冯", "邓", "曹", "彭", "曾", "肖", "田", "董", "袁", "潘", "于",
		"蒋", "蔡", "欧阳", "上官", "司马", "诸葛", ""}
	surnameW = [...]uint16{712, 698, 649, 545, 476, 320, 270, 230, 210, 200, 170, 160, 150, 140, 130, 120, 120, 110,
		110, 100, 90, 90, 80, 80, 80, 70, 70, 70, 70, 70, 60, 60, 60, 60, 50, 50, 50, 50, 50, 50, 8, 1, 1, 1, 3059}
)

// PersonName draws a 2–4 character name; about two thirds of adults have a
// two-character given name.
func (f *Faker) PersonName() string {
	s := surnames[Pick(f.r, surnameW[:])]
	if s == "" {
		s = f.choice(rareSurnames)
	}
	switch n := f.r.IntN(30); {
	case n < 10:
		return s + f.choice(given1)
	case n < 22:
		return s + f.choice(given2)
	default:
		return s + f.choice(givenHead) + f.choice(givenTail)
	}
}

var (
	orgForms = [...]string{"有限公司", "有限责任公司", "股份有限公司", "集团有限公司", "商行"}
	orgFormW = [...]uint16{72, 12, 8, 3, 5}
)

// CompanyName draws the name of a company of some region (Company draws
// its tax id with it).
func (f *Faker) CompanyName() string {
	name, _ := f.companyNameIn(f.region())
	return name
}

// companyNameIn follows the 企业名称登记管理规定 order 行政区划+字号+行业+组织形式
// with r's city, occasionally with the city in brackets before the form;
// sole reports a 商行, a sole trader's shop.
func (f *Faker) companyNameIn(r *region) (name string, sole bool) {
	var buf [96]byte
	b := buf[:0]
	trade := f.choice(tradeNames)
	form := orgForms[Pick(f.r, orgFormW[:])]
	if form == "商行" { // 个体户 carry a plain trade word, never 科技
		b = append(b, r.city...)
		b = append(b, trade...)
		b = append(b, f.choice(shopTrade)...)
		return string(append(b, form...)), true
	}
	ind := f.choice(industries)
	if f.percent(10) {
		b = append(b, trade...)
		b = append(b, ind...)
		b = append(b, "（"...)
		b = append(b, r.city...)
		b = append(b, "）"...)
		return string(append(b, form...)), false
	}
	b = append(b, r.city...)
	if f.percent(50) {
		b = append(b, "市"...)
	}
	b = append(b, trade...)
	b = append(b, ind...)
	return string(append(b, form...)), false
}

// EmployeeCode draws a staff number in one of the styles ERPs use.
func (f *Faker) EmployeeCode() string {
	var buf [8]byte
	b := buf[:0]
	switch Pick(f.r, []uint16{40, 25, 15, 20}) {
	case 0:
		b = appendPad(b, uint64(f.r.IntRange(1, 2999)), 4)
	case 1:
		b = appendPad(b, uint64(f.r.IntRange(100001, 109999)), 6)
	case 2:
		b = appendPad(append(b, 'E'), uint64(f.r.IntRange(1, 9999)), 5)
	default:
		b = appendPad(append(b, 'Y', 'G'), uint64(f.r.IntRange(1, 9999)), 4)
	}
	return string(b)
}

// CustomerCode draws a Kingdee-style 8-digit code: group, subgroup, sequence.
// Suppliers and enterprises use the same shape.
func (f *Faker) CustomerCode() string {
	var buf [8]byte
	b := appendPad(buf[:0], uint64(f.r.IntRange(1, 9)), 2)
	b = appendPad(b, uint64(f.r.IntRange(1, 20)), 2)
	return string(appendPad(b, uint64(f.r.IntRange(1, 1999)), 4))
}

// MaterialCode draws either a dotted category path or a 9-digit number.
func (f *Faker) MaterialCode() string {
	var buf [16]byte
	b := buf[:0]
	if f.percent(40) {
		b = appendPad(b, uint64(f.r.IntRange(100, 999)), 3)
		return string(appendPad(b, uint64(f.r.IntRange(1, 999999)), 6))
	}
	levels := f.r.IntRange(4, 5)
	for i := range levels {
		if i > 0 {
			b = append(b, '.')
		}
		b = appendPad(b, uint64(f.r.IntRange(1, 30)), 2)
	}
	return string(b)
}

// DocNumber draws an ERP document number for prefix: PREFIX+yyyyMMdd+4-digit
// sequence on t's Shanghai date, or PREFIX+8-digit running sequence.
// No number is given twice by one Faker (own).
func (f *Faker) DocNumber(prefix string, t time.Time) string {
	var buf [40]byte
	b := append(buf[:0], prefix...)
	if f.percent(55) {
		b = appendDate(b, t)
		return f.own(b, uint64(1+f.r.IntN(f.r.IntRange(10, 300))), 4, 1)
	}
	return f.own(b, uint64(1+f.r.IntN(f.r.IntRange(500, 99999))), 8, 1)
}

// own returns head followed by n written in width digits, unless this
// Faker gave that number before: then the next number after n (from
// least after width digits' end) it has not given, as an ERP numbers
// its documents one after another. A run's documents are then each a
// document of its own (a run of 150 receipts drew two numbered alike),
// and the draws are those a seed always made.
func (f *Faker) own(head []byte, n uint64, width int, least uint64) string {
	limit := uint64(1)
	for range width {
		limit *= 10
	}
	h := headKey(head, width)
	free := f.given.firstFree(h, n)
	// Past width's last number, back to the first; once every number of
	// width was given, on past it (a number one digit longer).
	if n < limit && free >= limit {
		if wrapped := f.given.firstFree(h, least); wrapped < limit {
			free = wrapped
		}
	}
	f.given.give(h, free)
	return string(appendPad(head, free, width))
}

// appendDate appends yyyyMMdd in Asia/Shanghai. China has had no DST since
// 1991, so a fixed +8h shift is exact and needs no tzdata.
func appendDate(b []byte, t time.Time) []byte {
	y, m, d := shanghai(t).Date()
	b = appendPad(b, uint64(y), 4)
	b = appendPad(b, uint64(m), 2)
	return appendPad(b, uint64(d), 2)
}

func shanghai(t time.Time) time.Time { return t.UTC().Add(8 * time.Hour) }

// Remark draws a short Chinese remark, or "" about 40% of the time.
func (f *Faker) Remark() string {
	if f.percent(40) {
		return ""
	}
	return f.choice(remarks)
}

// StandInName draws a name to put in place of a real one (whsim anonymize):
// a surname and two single given characters (王伟芳), a form PersonName
// never draws (the first is no head of its composed names, and the pair is
// none of its two-character names), so a stand-in never equals a name whsim
// generated.
func (f *Faker) StandInName() string {
	s := surnames[Pick(f.r, surnameW[:])]
	if s == "" {
		s = f.choice(rareSurnames)
	}
	for {
		a, b := f.choice(given1), f.choice(given1)
		if a != b && !strings.Contains(givenHead, a) && !strings.Contains(given2, a+b) {
			return s + a + b
		}
	}
}

// StandInCompany draws a company name to put in place of a real one: 字号 +
// 行业 + 组织形式 without the region every CompanyName carries (as
// nationally registered firms are named), so a stand-in never equals a
// name whsim generated.
//
// Its 字号 is two trade names (鼎盛华拓), so that there are some 200,000
// stand-ins rather than 4,000: a capture names thousands of companies, and
// anonymize must give each one of its own.
func (f *Faker) StandInCompany() string {
	a, b := f.choice(tradeNames), f.choice(tradeNames)
	for a == b {
		b = f.choice(tradeNames)
	}
	return a + b + f.choice(industries) + orgForms[Pick(f.r, orgFormW[:4])]
}
