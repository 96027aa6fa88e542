package payload_test

import (
	"strings"
)

// The region checks decode what a Chinese accountant reads off an invoice
// with tables of their own, written from GB/T 2260 and the numbering rules
// in the domain notes (§1.1, §2), not from the generator's: a company's
// unified social credit code names, in characters 3–8, the district where
// it registered; its name carries that district's city; and a 数电 invoice
// number carries, in digits 3–4, the province of the tax authority of the
// seller who issued it.

// prefectures are GB/T 2260 prefecture-level codes (the first four digits
// of a district's code) with the city a company registered there names.
var prefectures = map[string]string{
	"1101": "北京", "1201": "天津", "3101": "上海", "5001": "重庆",
	"4401": "广州", "4403": "深圳", "4406": "佛山",
	"3201": "南京", "3202": "无锡", "3204": "常州", "3205": "苏州",
	"3301": "杭州", "3302": "宁波", "3303": "温州", "3304": "嘉兴",
	"3401": "合肥", "3502": "厦门", "3701": "济南", "3702": "青岛",
	"4101": "郑州", "4201": "武汉", "4301": "长沙", "5101": "成都",
	"6101": "西安", "2101": "沈阳", "2102": "大连",
}

// wholeCities are six-digit codes that name a city on their own: a
// county-level city (县级市) a company names in place of the prefecture
// that holds it, and prefecture-level cities without districts.
var wholeCities = map[string]string{"320583": "昆山", "441900": "东莞", "442000": "中山"}

// cityOfDivision is the city of a six-digit division code, "" for a code
// of no place in the tables or of no district (xxxx00 names a whole
// prefecture, where no company registers).
func cityOfDivision(code string) string {
	if c, ok := wholeCities[code]; ok {
		return c
	}
	if len(code) != 6 || strings.HasSuffix(code, "00") {
		return ""
	}
	return prefectures[code[:4]]
}

// namesCity reports whether a company name carries city where names do: at
// the start (上海…, 上海市…) or in brackets before the form (…（上海）有限公司).
func namesCity(name, city string) bool {
	return strings.HasPrefix(name, city) || strings.Contains(name, "（"+city+"）")
}

// cityOfName is the one city of the table a company name carries, "" for
// none or several.
func cityOfName(name string) string {
	found := ""
	for _, city := range prefectures {
		if namesCity(name, city) {
			if found != "" {
				return ""
			}
			found = city
		}
	}
	for _, city := range wholeCities {
		if namesCity(name, city) {
			if found != "" {
				return ""
			}
			found = city
		}
	}
	return found
}

// provinceOfCity is the two-digit GB/T 2260 province of a city of the
// table, which 数电 invoice numbers carry in digits 3–4.
func provinceOfCity(city string) string {
	for code, c := range wholeCities {
		if c == city {
			return code[:2]
		}
	}
	for code, c := range prefectures {
		if c == city {
			return code[:2]
		}
	}
	return ""
}
