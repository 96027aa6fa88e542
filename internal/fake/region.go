package fake

// region is a city where suppliers and customers register. It is the one
// source of everything a company's place shows: the city its name carries,
// the GB/T 2260 district in characters 3–8 of its unified social credit
// code, and the tax authority that numbers the invoices it issues.
type region struct {
	city string // as a company name carries it: 上海, 深圳, 昆山
	// districts are '|'-separated GB/T 2260 codes of the city's districts
	// (or the city's own code where it has none: 441900 东莞, 320583 昆山),
	// where many trading and manufacturing firms register.
	districts string
	// taxRegion is the 4-digit region of a legacy 发票代码: the province's
	// (3200 江苏), or a 计划单列市's own (4403 深圳, 3302 宁波, 3502 厦门,
	// 3702 青岛, 2102 大连), whose tax bureaux report to the State
	// Administration directly.
	taxRegion string
}

// province is the first two GB/T 2260 digits of the region, which a 数电
// invoice number carries in its digits 3–4 (domain notes §2).
func (r *region) province() string { return r.districts[:2] }

var regions = [...]region{
	{"上海", "310101|310104|310105|310110|310112|310114|310115|310117", "3100"},
	{"北京", "110101|110105|110106|110108|110115", "1100"},
	{"深圳", "440303|440304|440305|440306|440307", "4403"},
	{"广州", "440104|440106|440111|440112|440113", "4400"},
	{"杭州", "330105|330106|330108|330110", "3300"},
	{"苏州", "320505|320506|320507|320508", "3200"},
	{"南京", "320102|320104|320105|320115", "3200"},
	{"成都", "510104|510105|510107|510108", "5100"},
	{"武汉", "420102|420106|420111", "4200"},
	{"天津", "120101|120104|120116", "1200"},
	{"重庆", "500103|500105|500112", "5000"},
	{"宁波", "330203|330206|330212", "3302"},
	{"东莞", "441900", "4400"},
	{"佛山", "440604|440605|440606", "4400"},
	{"厦门", "350203|350206|350211", "3502"},
	{"青岛", "370202|370203|370211|370212", "3702"},
	{"无锡", "320211|320213|320214", "3200"},
	{"合肥", "340103|340104|340111", "3400"},
	{"长沙", "430102|430104|430105", "4300"},
	{"郑州", "410102|410105", "4100"},
	{"西安", "610104|610112|610113", "6100"},
	{"济南", "370102|370103|370112", "3700"},
	{"昆山", "320583", "3200"},
	{"常州", "320402|320404|320411", "3200"},
	{"温州", "330302|330304", "3300"},
	{"嘉兴", "330402|330411", "3300"},
	{"中山", "442000", "4400"},
	{"沈阳", "210102|210106|210112", "2100"},
	{"大连", "210202|210203|210211", "2102"},
}

// region draws the region of a company.
func (f *Faker) region() *region { return &regions[f.r.IntN(len(regions))] }

// District draws a GB/T 2260 district code of a real city, the address
// code a resident identity card number starts with.
func (f *Faker) District() string { return f.choice(f.region().districts) }

// Company is a registered company: its name, its unified social credit code
// (税号) and the region both come from, which also numbers the invoices it
// issues (InvoiceNumber).
type Company struct {
	Name  string
	TaxID string
	// SmallScale is a small-scale taxpayer (小规模纳税人), which levies
	// LevyRate on what it sells instead of the goods' VAT rate. whsim's
	// are the 商行, sole traders' shops, some 5% of sellers, as small-scale
	// levies are of a trading firm's purchase invoices (domain notes §3).
	SmallScale bool
	home       *region
}

// Company draws a company of one region. A 商行 (a sole trader's shop)
// files as a 个体工商户 (92…), any other form as an enterprise (91…).
func (f *Faker) Company() Company {
	r := f.region()
	name, sole := f.companyNameIn(r)
	return Company{Name: name, TaxID: f.usccIn(r, sole), SmallScale: sole, home: r}
}
