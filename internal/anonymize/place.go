package anonymize

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// An address without a door number still says where someone lives or
// works, in two forms that no amount, code or date has:
//
//   - a road after its district or county (上海市浦东新区张江路,
//     海淀区中关村大街), or after its city when a province or a city of
//     the first rank names it (浙江省杭州市文三路: the 市 of 超市 or 上市
//     is none): a 区, 县 or such a 市 after its name, then a road's name
//     of two to eight Chinese characters and a road word, with no Chinese
//     character after it that makes a word of it (路线, 路演) but 和 与
//     及 的 旁 边 口 附 近. A door number that lost its 号 may follow
//     (张江路88: the address cut short); digits glued to more (3路12路, a
//     bus; 8折, 8元, 8.5) are no door. A road without its district
//     (沿人民路直行) is kept: a road alone names a street, not a place;
//   - a building of a housing estate (翠苑小区3栋, 阳光花园12幢2单元501室,
//     金色家园5号楼): an estate's name of Chinese characters ending in
//     小区 花园 家园 公寓 新村 大厦 or 苑, a building number and 栋 幢 or 号楼,
//     and the floor and room after it up to the last unit.
//
// Each takes the Chinese characters before it back to a label, as a
// street address does, and becomes a stand-in address of its form (a
// region where it named one and a road of the same kind; an estate's
// name and the numbers of its building and rooms).

// districtSuffixes end the district a road without a door number follows.
const districtSuffixes = "区县"

// afterPlace are the characters that may follow a road's name without
// making a word of it: and, of, near, beside, the crossing.
const afterPlace = "和与及的旁边口附近"

// estateWords end a housing estate's name.
var estateWords = []string{"小区", "花园", "家园", "公寓", "新村", "大厦", "苑"}

// buildingWords follow a building's number in an estate.
var buildingWords = []string{"号楼", "栋", "幢"}

// placesWithoutDoor returns s with each road after its district and each
// estate's building replaced by its stand-in and the text between them
// searched by rest. In a check it returns s and records each one as a
// leak.
func (p *pass) placesWithoutDoor(s string, rest func(string) string) string {
	if !strings.ContainsAny(s, districtSuffixes+"市栋幢楼") {
		return rest(s)
	}
	w := &claimed{p: p, s: s, rest: rest}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		p.tick(n)
		if isHan(r) {
			start, end := roadWithoutDoorAt(s, i, w.done)
			if start < 0 {
				start, end = estateBuildingAt(s, i, w.done)
			}
			// One glued to the one before it is left: that one's stand-in
			// may end otherwise (张江路口 then 口小区2栋 would read, after
			// anonymizing, as one address that is neither stand-in).
			if r, _ := utf8.DecodeLastRuneInString(s[:max(start, 0)]); start >= 0 && start == w.done && w.done > 0 && isHan(r) {
				start = -1
			}
			if start >= 0 {
				end = w.addressEnd(start, end)
				w.claimAddress(start, end)
				i = end
				continue
			}
		}
		i += n
	}
	return w.text()
}

// roadWithoutDoorAt returns the span of the road after its district whose
// road word starts at s[i], or -1s; it starts at or after floor.
func roadWithoutDoorAt(s string, i, floor int) (start, end int) {
	var road string
	for _, w := range roadWords {
		if strings.HasPrefix(s[i:], w) {
			road = w
			break
		}
	}
	if road == "" {
		return -1, -1
	}
	end = i + len(road)
	// A digit after it: a door number (address.go) or a bus route. A
	// Chinese character after it makes a word of the road word (路线,
	// 路演, 路由: 华东区域销售路线 is no address), but for those that end
	// a place's name (张江路和…, 张江路口, 张江路附近).
	if r, _ := utf8.DecodeRuneInString(s[end:]); end < len(s) {
		if c, _, ok := foldRune(r); ok && isDigit(c) {
			// A door number that lost its 号 (张江路88, 88-1): the
			// address cut short, when nothing glued after it makes it a
			// bus route (3路12路) or an amount (8折, 8元).
			if end = doorWithout号(s, end); end < 0 {
				return -1, -1
			}
		} else if isHan(r) && !strings.ContainsRune(afterPlace, r) {
			return -1, -1
		}
	}
	if r, _ := utf8.DecodeLastRuneInString(s[floor:i]); road == "路" && strings.ContainsRune(notRoads, r) {
		return -1, -1
	}
	// The road's name: two to eight characters after a 区 or 县, or
	// after a 市 of a city a province names (浙江省杭州市文三路).
	nameAfter := func(stops string) (name, n int, ok bool) {
		name = i
		for k := 0; name > floor && k < 8; k++ {
			r, n := utf8.DecodeLastRuneInString(s[:name])
			if !isHan(r) || strings.ContainsRune(stops, r) {
				break
			}
			name -= n
		}
		d, n := utf8.DecodeLastRuneInString(s[floor:name])
		// 上海市场, 北京市民, 天津市政: the 市 of a word, not the city's.
		first, _ := utf8.DecodeRuneInString(s[name:])
		ok = (strings.ContainsRune(districtSuffixes, d) || d == '市' && cityOfProvince(s[floor:name-n]) && !strings.ContainsRune("场民政", first)) && utf8.RuneCountInString(s[name:i]) >= 2
		return name, n, ok
	}
	name, n, ok := nameAfter(districtSuffixes)
	if !ok {
		if name, n, ok = nameAfter(districtSuffixes + "市"); !ok {
			return -1, -1
		}
	}
	// The district has a name of its own (浦东新区, not 区 alone), and no
	// label stands between it and the road.
	start = placeStart(s, name, floor)
	if start >= name-n {
		return -1, -1
	}
	for _, l := range addressLabels {
		if strings.Contains(s[name:i], l) {
			return -1, -1
		}
	}
	return start, end
}

// cityOfProvince reports whether before, the text before a 市, ends with
// a city's name that a province comes before (浙江省杭州, 广西壮族自治区
// 南宁) or that is a city of the first rank (北京 上海 天津 重庆): then
// the 市 is a city's, not the one of 超市, 上市 or 本市.
func cityOfProvince(before string) bool {
	for _, c := range []string{"北京", "上海", "天津", "重庆"} {
		if strings.HasSuffix(before, c) {
			return true
		}
	}
	// The province within the few characters before: a city's name is
	// two to four of them.
	for k, i := 0, len(before); k < 5 && i > 0; k++ {
		r, n := utf8.DecodeLastRuneInString(before[:i])
		if !isHan(r) {
			return false
		}
		i -= n
		if k >= 2 && (r == '省' || strings.HasSuffix(before[:i+n], "自治区")) {
			return true
		}
	}
	return false
}

// doorWithout号 returns where a door number written without its 号 that
// starts at s[i] ends (88, 88-1: at most five digits a part), or -1 when
// a letter, a digit beyond those or a Chinese character follows it.
func doorWithout号(s string, i int) int {
	for part := 0; part < 2; part++ {
		d, j := digitsAt(s, i)
		if d == "" || len(d) > 5 {
			return -1
		}
		i = j
		if part == 0 && strings.HasPrefix(s[i:], "-") {
			i++
			continue
		}
		break
	}
	if r, _ := utf8.DecodeRuneInString(s[i:]); i < len(s) && (isHan(r) || r < utf8.RuneSelf && (wordChar(byte(r)) || r == '-' || r == '.') || isFullWidthAlnum(r)) {
		return -1
	}
	return i
}

// estateBuildingAt returns the span of the estate's building whose
// estate word starts at s[i], or -1s; it starts at or after floor.
func estateBuildingAt(s string, i, floor int) (start, end int) {
	var estate string
	for _, w := range estateWords {
		if strings.HasPrefix(s[i:], w) {
			estate = w
			break
		}
	}
	if estate == "" {
		return -1, -1
	}
	j := i + len(estate)
	digits, k := digitsAt(s, j)
	if digits == "" || len(digits) > 4 {
		return -1, -1
	}
	unit := ""
	for _, w := range buildingWords {
		if strings.HasPrefix(s[k:], w) {
			unit = w
			break
		}
	}
	if unit == "" {
		return -1, -1
	}
	start = placeStart(s, i, floor)
	if start == i { // an estate with no name (小区3栋)
		return -1, -1
	}
	return start, roomsEnd(s, k+len(unit))
}

// An address cut short (杭州市文三路, 浙江省杭州市西湖区文三, 文三路478
// without its 号) has no shape of its own: it is found by its label, the
// way an account is. After 地址, 住址 or 住所 (收货地址, 联系地址: each ends
// with one), a colon, 为 or 是 if written, the run of Chinese characters,
// digits, letters and hyphens up to the next space or punctuation is the
// address when it says a place below a region: a road or an estate word,
// or characters after the last of 省 市 区 县 镇 乡 (a
// district alone, 浙江省杭州市西湖区 or 五常街道, names a place of
// thousands; 见附件 or 同上 names none). A field, query parameter or
// header named for an address (收货地址, address, deliveryAddr) labels the
// whole of its value the same way. Nothing after a label holds an
// amount's, a date's or a code's place, and a value with no Chinese
// character (an IP or email address under a name ending in address) is
// none of these.

// addressTextLabels end a label of an address in text.
var addressTextLabels = [...]string{"地址", "住址", "住所"}

// maxLabelledAddress bounds the address after a label, in bytes (64
// Chinese characters; the others of address.go take fewer).
const maxLabelledAddress = 64 * 3

// labelledAddresses returns s with each address after its label replaced
// by its stand-in and the text between them searched by rest. In a check
// it returns s and records each one as a leak.
func (p *pass) labelledAddresses(s string, rest func(string) string) string {
	if !strings.Contains(s, "地址") && !strings.Contains(s, "住") {
		return rest(s)
	}
	w := &claimed{p: p, s: s, rest: rest}
	// next holds where each label is next found at or after i (len(s):
	// nowhere), so that each is searched for across s once.
	var next [len(addressTextLabels)]int
	for k := range next {
		next[k] = -1
	}
	for i := 0; i < len(s); {
		at, label := len(s), ""
		for k, l := range addressTextLabels {
			if next[k] >= 0 && next[k] < i {
				next[k] = -1
			}
			if next[k] < 0 {
				next[k] = len(s)
				if x := strings.Index(s[i:], l); x >= 0 {
					next[k] = i + x
				}
				p.tick(next[k] - i)
			}
			if next[k] < at {
				at, label = next[k], l
			}
		}
		if label == "" {
			break
		}
		start := at + len(label)
		for start < len(s) {
			r, n := utf8.DecodeRuneInString(s[start:])
			if !strings.ContainsRune(" ：:为是\u3000", r) {
				break
			}
			start += n
		}
		end := addressRunEnd(s, start)
		p.tick(end - at)
		if !addressFragment(s[start:end]) {
			i = at + len(label)
			continue
		}
		end = w.addressEnd(start, end)
		w.claimAddress(start, end)
		i = end
	}
	return w.text()
}

// addressRunEnd returns where the address that starts at s[i] ends: at
// the first character that is no Chinese character, digit, letter,
// hyphen or #, at most maxLabelledAddress bytes on.
func addressRunEnd(s string, i int) int {
	start := i
	for i < len(s) && i-start < maxLabelledAddress {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !isHan(r) && !(r < utf8.RuneSelf && (wordChar(byte(r)) || r == '-' || r == '#')) && !isFullWidthAlnum(r) {
			break
		}
		i += n
	}
	return i
}

// addressFragment reports whether v, the text after an address's label or
// the value of an address's field, names a place below a region.
func addressFragment(v string) bool {
	if utf8.RuneCountInString(v) < 3 || !strings.ContainsFunc(v, isHan) {
		return false
	}
	for _, w := range append(slices.Clone(roadWords), estateWords...) {
		if strings.Contains(v, w) {
			return !strings.HasSuffix(v, "街道") || strings.Count(v, w) > 1
		}
	}
	// Characters after the last region: a place's name (西湖区文三,
	// 南山区科技园); none, a region alone.
	last := strings.LastIndexAny(v, adminSuffixes)
	if last < 0 {
		return false
	}
	_, n := utf8.DecodeRuneInString(v[last:])
	return utf8.RuneCountInString(v[last+n:]) >= 2 && !strings.HasSuffix(v, "街道")
}

// addressKey reports whether name, a field's, a query parameter's or a
// header's, labels an address: it ends with 地址, 住址 or 住所, or, folded
// to lower case, with address or addr.
func addressKey(name string) bool {
	for _, l := range addressTextLabels {
		if strings.HasSuffix(name, l) {
			return true
		}
	}
	n := strings.ToLower(name)
	return strings.HasSuffix(n, "address") || strings.HasSuffix(n, "addr")
}

// labelledAddress returns v, the value of a field, parameter or header
// named for an address, with the address it holds replaced; any other v
// is searched by rest. In a check it returns v and records the address as
// a leak.
func (p *pass) labelledAddress(v string, rest func(string) string) string {
	t := strings.TrimSpace(v)
	if len(t) > 4*maxLabelledAddress || !addressFragment(t) {
		return rest(v)
	}
	start := strings.Index(v, t)
	w := &claimed{p: p, s: v, rest: rest}
	w.claimAddress(start, start+len(t))
	return w.text()
}
