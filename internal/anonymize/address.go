package anonymize

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/fake"
)

// A street address (a 收货地址 in a remark, an attribute, a field the spec
// does not have) names where a person lives or a small company works. It
// is found by the part every mainland street address has and no amount,
// code or date has: a road (…路, …街, …大街, …巷, …弄, …胡同, …大道) and a
// door number (478号, 88-1号, 200弄12号). From there it takes the Chinese
// characters before the road (its name, and the district, city and
// province: 浙江省杭州市西湖区文三), stopping at a label (地址, 送至, 位于,
// 在…) or a company's name (…公司), and after the door number the
// building, floor and room up to the last of 栋 幢 座 楼 层 单元 室 号 房
// (华星时代广场A座1201室), never into another road and door number. The
// whole becomes a stand-in address: a real region when the original named
// one, a road name of common characters (thousands of them, so that short
// addresses do not run out) with the same kind of road, a door number and
// rooms of the same digits. A bare 道 (天津's 南京道) is left out: 通道 and
// 频道 with a number are no addresses; so is an address in pinyin. An
// address with no door number is found by other shapes (place.go).

// streetAddress is the class of a street address, found by its shape.
const streetAddress class = "street address"

// roadWords end a road's name; the longer first.
var roadWords = []string{"胡同", "大道", "大街", "路", "街", "巷", "弄"}

// keptUnits are the characters a stand-in address keeps where they stood
// after the road: the units, 单 of 单元, and 弄.
const keptUnits = roomUnits + "单弄"

// notRoads are the characters that make a word of 路 that is no road:
// 电路 线路 回路 网路 通路 铁路 水路 管路 油路 气路.
const notRoads = "电线回网通铁水管油气"

// addressLabels end the text before an address that is not part of it:
// a label, a company's name, or where something goes (送至, and 至 往 到
// alone after any verb: 送货至, 运往, 邮寄到).
var addressLabels = []string{"地址", "住址", "住所", "地点", "送至", "送到", "送往", "寄至", "寄到", "寄往", "发往", "发至", "位于", "收货", "发货", "所在", "公司", "在", "至", "往", "到"}

// adminSuffixes mark the region an address names.
const adminSuffixes = "省市区县镇乡"

// roomUnits end a building, floor or room after the door number; 元 only
// in 单元 (a 300元 after an address is an amount).
const roomUnits = "栋幢座楼层元室号房"

// streetAddresses returns s with each street address replaced by its
// stand-in and the text between them searched by rest. In a check it
// returns s and records each one as a leak.
func (p *pass) streetAddresses(s string, rest func(string) string) string {
	if !strings.Contains(s, "号") {
		return rest(s)
	}
	w := &claimed{p: p, s: s, rest: rest}
	for from := 0; from < len(s); {
		k := strings.Index(s[from:], "号")
		if k < 0 {
			break
		}
		k += from
		p.tick(k - from + 3)
		start, end := addressAt(s, k, w.done)
		if start < 0 {
			from = k + len("号")
			continue
		}
		end = w.addressEnd(start, end)
		w.claimAddress(start, end)
		from = end
	}
	return w.text()
}

// addressAt returns the span of the street address whose door number ends
// with the 号 at s[k], or -1s; it starts at or after floor.
func addressAt(s string, k, floor int) (start, end int) {
	// The door number: digits, then -digits or 弄digits.
	digitsBefore := func(i int) int {
		j := i
		for j > floor {
			r, n := utf8.DecodeLastRuneInString(s[:j])
			if c, _, ok := foldRune(r); !ok || c > '9' {
				break
			}
			j -= n
		}
		return j
	}
	j := digitsBefore(k)
	if j == k {
		return -1, -1
	}
	for _, mid := range []string{"-", "弄"} {
		if strings.HasSuffix(s[floor:j], mid) {
			if d := digitsBefore(j - len(mid)); d < j-len(mid) {
				j = d
			}
			break
		}
	}
	// The road.
	var road string
	for _, w := range roadWords {
		if strings.HasSuffix(s[floor:j], w) {
			road = w
			break
		}
	}
	if road == "" {
		return -1, -1
	}
	roadAt := j - len(road)
	// A circuit, a line or a pipe with a number (电路12号, 线路3号, 油路2号)
	// is a part of a machine, not a road.
	if r, _ := utf8.DecodeLastRuneInString(s[floor:roadAt]); road == "路" && strings.ContainsRune(notRoads, r) {
		return -1, -1
	}
	start = placeStart(s, roadAt, floor)
	if start == roadAt { // a road with no name (3路12号: a bus stop)
		return -1, -1
	}
	return start, roomsEnd(s, k+len("号"))
}

// placeStart returns where the name of a place that ends at s[at] starts:
// the characters before it, back to a label or anything not Chinese, at
// most 32 of them (a province, a city, a district, a town and the road's
// or estate's name are fewer), never before floor.
func placeStart(s string, at, floor int) int {
	start := at
	for start > floor && at-start < 32*3 {
		r, n := utf8.DecodeLastRuneInString(s[:start])
		if !isHan(r) {
			break
		}
		start -= n
	}
	labelled := false
	for _, l := range addressLabels {
		if i := strings.LastIndex(s[start:at], l); i >= 0 {
			start += i + len(l)
			labelled = true
		}
	}
	// 为 or 是 after a label (地址为, 住址是) is no part of the place, as
	// the label's own search (place.go) skips it: taken in, the stand-in
	// lost it, and --check, reading the stand-in from 为, found an
	// address that started before it.
	for labelled {
		r, n := utf8.DecodeRuneInString(s[start:at])
		if r != '为' && r != '是' {
			break
		}
		start += n
		labelled = false
	}
	return start
}

// roomsEnd returns the end of the building, floor and room after a door
// or building number that ends at s[end]: up to the last unit before a
// stop, never into another road and door number.
func roomsEnd(s string, end int) int {
	last := end
	prev := rune(0)
	for i := end; i < len(s) && i-end <= 64; {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isHan(r) && !(r < 0x80 && (wordChar(byte(r)) || r == '-')) && !isFullWidthAlnum(r) {
			break
		}
		// Another road and door number: another address.
		if isHan(r) && roadAhead(s[i:]) {
			break
		}
		i += n
		if strings.ContainsRune(roomUnits, r) && (r != '元' || prev == '单') {
			last = i
		}
		prev = r
	}
	return last
}

// roadAhead reports whether s starts with a road word and a digit.
func roadAhead(s string) bool {
	for _, w := range roadWords {
		if rest, ok := strings.CutPrefix(s, w); ok {
			r, _ := utf8.DecodeRuneInString(rest)
			c, _, isID := foldRune(r)
			return isID && isDigit(c)
		}
	}
	return false
}

func isFullWidthAlnum(r rune) bool { _, fw, ok := foldRune(r); return ok && fw }

// Stand-in addresses are drawn from these.
var (
	standInRegions = []string{"江苏省苏州市吴中区", "广东省佛山市顺德区", "四川省成都市武侯区", "湖北省武汉市洪山区",
		"山东省青岛市崂山区", "福建省厦门市思明区", "河南省郑州市金水区", "湖南省长沙市岳麓区"}
	// A road's name is two characters, one of each list, and a
	// direction or none (兴华路, 永安东路): 3,456 names of each kind of
	// road, so that the short addresses of a capture (人民路5号, of which
	// one kind of road and a one-digit door number make only 9 for each
	// name) do not run out of stand-ins. None of these characters is a
	// label, a region's suffix, a unit, a road word, or one that makes 路
	// no road: the stand-in is read back as the address it is.
	standInRoadFirst  = []rune("建人中和新光胜文友朝长富康兴华永安青金阳平明德昌")
	standInRoadSecond = []rune("民华兴安平明山江海湖林宁泰丰盛德福源庆春晖阳乐祥")
	standInRoadSide   = []string{"", "东", "西", "南", "北", "中"}
	// A building's or estate's name is two characters of the same lists
	// and an estate word (兴华花园, 永宁公寓).
	standInEstates = []string{"花园", "家园", "小区", "公寓", "新村", "大厦"}
)

// streetStandIn draws an address of the form of v: a region where v names
// one, a road name drawn from common ones' characters with v's kind of
// road, and v's door number and rooms with other digits and letters (a
// building's name another).
func streetStandIn(f *fake.Faker, v string) string {
	r := f.Rand()
	// The road is the one the door number follows, or that ends v (a road
	// after its district, place.go).
	d := strings.IndexFunc(v, func(r rune) bool { c, _, ok := foldRune(r); return ok && isDigit(c) })
	if d < 0 {
		d = len(v)
	}
	var road string
	at := -1
	for _, w := range roadWords {
		if d > 0 && strings.HasSuffix(v[:d], w) {
			at, road = d-len(w), w
			break
		}
	}
	var b strings.Builder
	var rest string
	switch {
	case at >= 0:
		if strings.ContainsAny(v[:at], adminSuffixes) {
			b.WriteString(standInRegions[r.IntN(len(standInRegions))])
		}
		if at > 0 {
			// A road with no name (胡同3号000 after its label, found by
			// place.go) keeps none: named, its stand-in is a street
			// address --check finds ending at its 号, a shorter span than
			// the stand-in written, and reports as a leak.
			b.WriteRune(standInRoadFirst[r.IntN(len(standInRoadFirst))])
			b.WriteRune(standInRoadSecond[r.IntN(len(standInRoadSecond))])
			b.WriteString(standInRoadSide[r.IntN(len(standInRoadSide))])
		}
		b.WriteString(road)
		rest = v[at+len(road):]
	case d < len(v) && slices.ContainsFunc(estateWords, func(w string) bool { return strings.HasSuffix(v[:d], w) }):
		// An estate's building (place.go): the estate, with the region
		// before it, becomes another estate.
		rest = v
	case strings.ContainsFunc(v, isHan):
		// An address cut short (杭州市西湖区文三, after its label): a
		// region where it named one and a road, then v's digits and
		// letters after its Chinese characters.
		if strings.ContainsAny(v, adminSuffixes) {
			b.WriteString(standInRegions[r.IntN(len(standInRegions))])
		}
		b.WriteRune(standInRoadFirst[r.IntN(len(standInRoadFirst))])
		b.WriteRune(standInRoadSecond[r.IntN(len(standInRoadSecond))])
		b.WriteString("路")
		rest = v[len(v)-len(strings.TrimLeftFunc(v, func(c rune) bool { return isHan(c) })):]
		rest = strings.TrimLeftFunc(rest, func(c rune) bool { return !isFullWidthAlnum(c) && !(c < utf8.RuneSelf && wordChar(byte(c))) })
	default:
		return sameShape(f, v, false)
	}
	// Digits and letters another of their class (a door number never
	// starts with 0), each run of other characters but the units another
	// building's name.
	first := true
	for i := 0; i < len(rest); {
		c, n := utf8.DecodeRuneInString(rest[i:])
		switch {
		case isHan(c) && !strings.ContainsRune(keptUnits, c):
			j := i
			for j < len(rest) {
				c2, n2 := utf8.DecodeRuneInString(rest[j:])
				if !isHan(c2) || strings.ContainsRune(keptUnits, c2) {
					break
				}
				j += n2
			}
			b.WriteRune(standInRoadFirst[r.IntN(len(standInRoadFirst))])
			b.WriteRune(standInRoadSecond[r.IntN(len(standInRoadSecond))])
			b.WriteString(standInEstates[r.IntN(len(standInEstates))])
			i = j
			continue
		case c >= '0' && c <= '9' && first:
			b.WriteByte(byte('1' + r.IntN(9)))
		case c >= '0' && c <= '9':
			b.WriteByte(digits[r.IntN(len(digits))])
		case c >= 'A' && c <= 'Z':
			b.WriteByte(upper[r.IntN(len(upper))])
		case c >= 'a' && c <= 'z':
			b.WriteByte(lower[r.IntN(len(lower))])
		default:
			if a, fw, ok := foldRune(c); ok && fw && isDigit(a) {
				b.WriteRune(fullWidth(rune(digits[r.IntN(len(digits))])))
			} else if ok && fw {
				b.WriteRune(fullWidth(rune(upper[r.IntN(len(upper))])))
			} else {
				b.WriteRune(c)
			}
		}
		first = !(c >= '0' && c <= '9' || c >= '０' && c <= '９')
		i += n
	}
	return b.String()
}
