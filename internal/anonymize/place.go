package anonymize

import (
	"strings"
	"unicode/utf8"
)

// An address without a door number still says where someone lives or
// works, in two forms that no amount, code or date has:
//
//   - a road after its district or county (上海市浦东新区张江路,
//     海淀区中关村大街): a 区 or 县 after its name, then a road's name of
//     two to eight Chinese characters and a road word, with no digit
//     after it (an address with a door number is the street address of
//     address.go; 3路12号 is a bus stop) and no Chinese character that
//     makes a word of it (路线, 路演) but 和 与 及 的 旁 边 口 附 近. A
//     road without its district (沿人民路直行) is kept: a road alone names
//     a street, not a place;
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
	if !strings.ContainsAny(s, districtSuffixes+"栋幢楼") {
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
				w.claim(start, end, streetAddress, s[start:end], false)
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
		if c, _, ok := foldRune(r); ok && isDigit(c) || isHan(r) && !strings.ContainsRune(afterPlace, r) {
			return -1, -1
		}
	}
	if r, _ := utf8.DecodeLastRuneInString(s[floor:i]); road == "路" && strings.ContainsRune(notRoads, r) {
		return -1, -1
	}
	// The road's name: two to eight characters after a 区 or 县.
	name := i
	for k := 0; name > floor && k < 8; k++ {
		r, n := utf8.DecodeLastRuneInString(s[:name])
		if !isHan(r) || strings.ContainsRune(districtSuffixes, r) {
			break
		}
		name -= n
	}
	d, n := utf8.DecodeLastRuneInString(s[floor:name])
	if !strings.ContainsRune(districtSuffixes, d) || utf8.RuneCountInString(s[name:i]) < 2 {
		return -1, -1
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
