package fake

import "strings"

// material is a purchasable item with its unit of measure and ordered
// attributes (itemAttributes).
type material struct {
	Name  string // 不锈钢六角螺栓, 304不锈钢板, A4复印纸, …
	Unit  string // 个 件 只 套 台 箱 包 袋 瓶 卷 张 米 千克 吨 平方米
	Attrs []Attr // in the order 颜色 尺寸 规格 型号 材质 品牌 批次号
	// Rate is the VAT a general taxpayer charges on it, in percent: 13 for
	// goods, 9 for the goods of the 9% list (grain, edible oil, LPG,
	// fertiliser, books…; domain notes §3).
	Rate int

	lo, hi int64 // plausible unit price excl. tax, in cents
}

// Attr is one itemAttributes entry.
type Attr struct{ Key, Value string }

// materials encode attributes as "key:v1|v2;key:…" so a draw slices constant
// strings instead of allocating; a key without values (批次号) is generated.
// Prices are yuan, excl. tax; rate is the VAT in percent.
var materials = [...]struct {
	name, unit string
	lo, hi     int64
	attrs      string
	rate       int
}{
	{"不锈钢六角螺栓", "个", 0, 3, "规格:M6×20|M8×30|M10×40|M12×50|M16×60;材质:304|316|201", 13},
	{"304不锈钢板", "张", 300, 2800, "规格:1.0mm×1220×2440|2.0mm×1220×2440|3.0mm×1500×3000;品牌:太钢|宝钢|酒钢;批次号", 13},
	{"铝合金型材", "米", 15, 120, "颜色:银白色|黑色|香槟色;规格:4040|3030|4080|2020;型号:6063-T5|6061-T6", 13},
	{"A4复印纸", "箱", 90, 220, "规格:70g/500张×8包|80g/500张×5包;品牌:得力|晨光|齐心|亚太森博", 13},
	{"硒鼓", "个", 60, 900, "型号:CF228A|CE285A|TN-2325|CRG-337;品牌:惠普|兄弟|格之格|天威", 13},
	{"工业酒精", "千克", 6, 15, "规格:95%|99.5%;批次号", 13},
	{"包装纸箱", "个", 1, 15, "尺寸:600×400×400mm|450×350×300mm|330×235×200mm;规格:三层B瓦|五层AB瓦;材质:牛卡纸|瓦楞纸", 13},
	{"PE缠绕膜", "卷", 25, 80, "颜色:透明|黑色|蓝色;规格:50cm×2.5kg|50cm×3kg|45cm×2kg;批次号", 13},
	{"深沟球轴承", "套", 5, 300, "型号:6204-2RS|6205-ZZ|6306|6001-2Z;品牌:人本|洛轴|哈轴|瓦轴", 13},
	{"三相异步电机", "台", 900, 12000, "规格:2.2kW|5.5kW|7.5kW|11kW;型号:YE3-100L-4|YE3-132M-4|YE2-90S-2;品牌:大速|皖南|西玛", 13},
	{"抗磨液压油", "千克", 12, 40, "型号:L-HM32|L-HM46|L-HM68;品牌:长城|昆仑|美孚;批次号", 13},
	{"劳保手套", "包", 10, 60, "尺寸:M|L|XL;规格:12双/包;材质:棉纱|丁腈|乳胶", 13},
	{"LED灯管", "只", 10, 45, "颜色:白光|暖光|中性光;规格:T8 1.2m 18W|T5 0.6m 9W;品牌:欧普|雷士|飞利浦", 13},
	{"超五类网线", "箱", 180, 600, "颜色:蓝色|灰色;规格:305米/箱;品牌:安普|秋叶原|绿联", 13},
	{"千兆交换机", "台", 150, 6000, "规格:8口|24口|48口;型号:S1720-28GWR|S5130S-28P|RG-S2928G;品牌:华为|华三|锐捷", 13},
	{"办公椅", "张", 180, 1800, "颜色:黑色|灰色|蓝色;型号:HX-2000|BG-608;材质:网布|皮革", 13},
	{"无缝钢管", "米", 30, 400, "规格:Φ57×3.5|Φ89×4|Φ108×4.5;材质:20#|45#|Q345B", 13},
	{"镀锌角钢", "吨", 4200, 6500, "规格:50×50×5|63×63×6|75×75×7;材质:Q235B;批次号", 13},
	{"螺纹钢", "吨", 3300, 4500, "规格:Φ12|Φ16|Φ20|Φ25;型号:HRB400E;品牌:沙钢|永钢|中天", 13},
	{"平垫圈", "千克", 8, 40, "规格:M8|M10|M12;材质:304|碳钢镀锌", 13},
	{"文件夹", "个", 2, 20, "颜色:蓝色|黑色|透明;规格:A4;品牌:得力|齐心", 13},
	{"封箱胶带", "卷", 2, 12, "颜色:透明|米黄色;规格:48mm×100m|60mm×150m", 13},
	{"塑料周转箱", "个", 20, 90, "颜色:蓝色|红色|灰色;尺寸:600×400×280mm|400×300×150mm;材质:PP|HDPE", 13},
	{"编织袋", "个", 0, 3, "颜色:白色|蓝色;规格:90×130cm|60×100cm;材质:PP", 13},
	{"聚乙烯颗粒", "吨", 7500, 11000, "型号:7042|5000S|DMDA-8008;品牌:燕山石化|扬子石化|茂名石化;批次号", 13},
	{"硅胶管", "米", 3, 30, "颜色:透明|红色;规格:内径8mm×外径12mm|内径10mm×外径14mm;材质:食品级硅胶", 13},
	{"铜芯电力电缆", "米", 15, 300, "规格:3×4+1×2.5|3×16+1×10|4×25;型号:YJV-0.6/1kV;品牌:远东|宝胜|起帆", 13},
	{"小型断路器", "只", 12, 90, "规格:1P|2P|3P;型号:DZ47-63 C32|NXB-63 C16;品牌:正泰|德力西|施耐德", 13},
	{"纸面石膏板", "张", 18, 45, "规格:1200×3000×9.5mm|1200×2400×12mm;品牌:可耐福|泰山|龙牌", 13},
	{"釉面瓷砖", "平方米", 35, 180, "颜色:米白色|浅灰色;尺寸:800×800mm|600×1200mm;批次号", 13},
	{"普通硅酸盐水泥", "袋", 18, 35, "规格:50kg/袋;型号:P.O 42.5|P.O 52.5;品牌:海螺|华新", 13},
	{"饮用纯净水", "箱", 20, 45, "规格:550ml×24瓶|380ml×24瓶;品牌:农夫山泉|怡宝", 13},
	{"洗手液", "瓶", 10, 35, "规格:500ml|300ml;品牌:蓝月亮|威露士", 13},
	{"二氧化碳保护焊丝", "千克", 7, 16, "规格:Φ1.0mm|Φ1.2mm;型号:ER50-6;批次号", 13},
	{"安全帽", "个", 12, 60, "颜色:红色|黄色|白色|蓝色;材质:ABS|玻璃钢", 13},
	{"激光打印机", "台", 900, 4500, "型号:M1136|LBP2900|HL-2260D;品牌:惠普|佳能|兄弟", 13},
	{"笔记本电脑", "台", 3500, 12000, "规格:i5/16G/512G|i7/32G/1T;型号:ThinkPad E14|MateBook 14;品牌:联想|华为|戴尔", 13},
	{"不锈钢水管", "米", 20, 150, "规格:DN15|DN20|DN25;材质:304", 13},
	// The 9% list: agricultural products, edible oil, gas, fertiliser, books.
	{"东北大米", "袋", 60, 180, "规格:25kg/袋|10kg/袋|5kg/袋;品牌:十月稻田|金龙鱼|福临门;批次号", 9},
	{"食用植物油", "桶", 50, 400, "规格:5L/桶|20L/桶;型号:一级大豆油|压榨花生油|菜籽油;品牌:金龙鱼|鲁花|福临门", 9},
	{"液化石油气", "瓶", 100, 450, "规格:15kg/瓶|50kg/瓶;批次号", 9},
	{"复合肥", "袋", 100, 250, "规格:40kg/袋|50kg/袋;型号:15-15-15|17-17-17;品牌:史丹利|金正大|心连心", 9},
	{"专业技术图书", "本", 30, 150, "规格:16开|大16开|32开;品牌:机械工业出版社|电子工业出版社|化学工业出版社", 9},
}

// Material draws an item with one to three of its attributes, in order.
func (f *Faker) Material() material {
	m := materials[f.r.IntN(len(materials))]
	specs := strings.Count(m.attrs, ";") + 1
	// Keep each attribute with even odds, but at least one and at most three.
	mask := f.r.IntN(1<<specs-1) + 1
	for bitCount(mask) > 3 {
		mask &= mask - 1
	}
	out := material{Name: m.name, Unit: m.unit, Rate: m.rate, lo: m.lo * 100, hi: m.hi * 100,
		Attrs: make([]Attr, 0, bitCount(mask))}
	if m.lo == 0 {
		out.lo = 50
	}
	rest := m.attrs
	for i := 0; rest != ""; i++ {
		var spec string
		spec, rest, _ = strings.Cut(rest, ";")
		if mask&(1<<i) == 0 {
			continue
		}
		key, vals, ok := strings.Cut(spec, ":")
		v := ""
		if ok {
			v = f.choice(vals)
		} else {
			v = f.batchNo()
		}
		out.Attrs = append(out.Attrs, Attr{key, v})
	}
	return out
}

func bitCount(x int) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// choice picks one of the '|'-separated options in s without allocating.
func (f *Faker) choice(s string) string {
	n := f.r.IntN(strings.Count(s, "|") + 1)
	for ; n > 0; n-- {
		s = s[strings.IndexByte(s, '|')+1:]
	}
	if i := strings.IndexByte(s, '|'); i >= 0 {
		return s[:i]
	}
	return s
}

// batchNo draws a production batch like "P240815-03". It is not tied to the
// document date: stock is often months old.
func (f *Faker) batchNo() string {
	var buf [12]byte
	b := append(buf[:0], "PLB"[f.r.IntN(3)])
	b = appendPad(b, uint64(f.r.IntRange(23, 26)), 2)
	b = appendPad(b, uint64(f.r.IntRange(1, 12)), 2)
	b = appendPad(b, uint64(f.r.IntRange(1, 28)), 2)
	b = append(b, '-')
	return string(appendPad(b, uint64(f.r.IntRange(1, 12)), 2))
}

// Quantity draws an order quantity: mostly whole numbers 1–500, skewed low
// and towards round figures; sometimes two decimals, as weighed goods are.
func (f *Faker) Quantity() Decimal {
	if f.percent(25) {
		return f.fractional()
	}
	return f.whole()
}

// QuantityFor draws a quantity that suits m's unit: weights and lengths
// carry two decimals, countable units stay whole.
func (f *Faker) QuantityFor(m material) Decimal {
	switch m.Unit {
	case "千克", "米", "平方米":
		if f.percent(70) {
			return f.fractional()
		}
	case "吨":
		return Decimal{int64(f.r.IntRange(50, 5000)), 2} // 0.50–50.00 t
	}
	return f.whole()
}

func (f *Faker) whole() Decimal {
	hi := [...]int{10, 50, 200, 500}[Pick(f.r, []uint16{40, 30, 20, 10})]
	n := f.r.IntRange(1, hi)
	if n > 10 && f.percent(40) {
		n = (n + 9) / 10 * 10
	}
	return Decimal{int64(n), 0}
}

func (f *Faker) fractional() Decimal {
	return Decimal{int64(f.r.IntRange(50, 99999)), 2}
}

// UnitPrice draws a price excl. tax between 0.50 and 20000.00, skewed low,
// often a whole or half yuan.
func (f *Faker) UnitPrice() Decimal {
	b := [...][2]int64{{50, 999}, {1000, 9999}, {10000, 99999}, {100000, 2000000}}
	r := b[Pick(f.r, []uint16{20, 35, 30, 15})]
	return Money(f.roundPrice(r[0], r[1]))
}

// UnitPriceFor draws a price excl. tax in m's plausible range; a Material not
// drawn by this package falls back to UnitPrice.
func (f *Faker) UnitPriceFor(m material) Decimal {
	if m.hi <= 0 {
		return f.UnitPrice()
	}
	return Money(f.roundPrice(m.lo, max(m.lo, m.hi)))
}

func (f *Faker) roundPrice(lo, hi int64) int64 {
	c := int64(f.r.IntRange(int(lo), int(hi)))
	switch {
	case c >= 1000 && f.percent(45):
		c = max(lo, c/100*100)
	case c >= 100 && f.percent(20):
		c = max(lo, c/50*50)
	}
	return c
}
