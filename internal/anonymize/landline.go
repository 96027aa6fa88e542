package anonymize

import (
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/fake"
)

// A landline number (a contact's 电话 in a remark, an address line, a
// header) names a person or a small company as a mobile does. It is found
// by its written shape, which is what tells it from the other numbers of
// a capture: an area code with its 0, set off by a hyphen, a space or
// brackets, then a local number of seven or eight digits that starts with
// 2 to 9, in one group or two (021-62345678, 0571 88886666,
// (010)62345678, （0755）8888 6666, 021 6234 5678); or a service number in
// three groups (400-810-8888, 800 820 8820). Area codes are the mainland
// numbering plan's: 010 and 02x have three digits, 03xx to 09xx four. Ten
// or eleven digits run together (02162345678) are kept: an invoice code
// (044031900111) or an order number is written so too. The area code (a
// city) and a 400 number's prefix are kept; the local number becomes
// another of its length, the brackets, separators and full-width digits
// where they were.
//
// Written in the international form (+86 21 6234 5678, +86-10-62345678,
// 0086 571 8888 6666, (+86) 21-62345678, +86 (0)21 6234 5678), the area
// code loses its 0 and the country code comes first, set off by a
// separator or brackets as the area code is. Such a number is the same
// number as its national form, and gets the same stand-in, written in the
// international form again: the country code and separators kept, the
// area code without its 0.

// landline is the class of a landline number, found by its shape.
const landline class = "landline number"

// landlines returns s with each landline number replaced by its stand-in
// and the text between them searched by rest. In a check it returns s and
// records each one as a leak.
func (p *pass) landlines(s string, rest func(string) string) string {
	// Every area code has a 0, written or (after +86) not.
	if strings.IndexByte(s, '0') < 0 && !strings.Contains(s, "０") && !strings.Contains(s, "86") && !strings.Contains(s, "８６") {
		return rest(s)
	}
	w := &claimed{p: p, s: s, rest: rest}
	prev, before := rune(-1), rune(-1) // the runes before s[i]
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		p.tick(n)
		if r == '0' || r == '０' || r == '(' || r == '（' || r == '+' || r == '＋' {
			if area := intlPrefixAt(s, i); area > i && !numberGlue(prev) {
				if end, folded := intlLandlineAt(s, area); end > area {
					w.claimForm(area, end, landline, folded, func(orig, standIn string) string {
						return reshape(orig, standIn[len(folded)-foldedLen(s[area:end]):])
					})
					i = end
					prev, before = 0, 0
					continue
				}
			}
		}
		if r == '0' || r == '０' || r == '(' || r == '（' || r == '4' || r == '４' || r == '8' || r == '８' {
			if !numberGlue(prev) {
				end, folded := landlineAt(s, i)
				if end > i && inGroups(before, prev, s[i:end]) {
					end = i
				}
				if end > i {
					w.claim(i, end, landline, folded, true)
					i = end
					prev, before = 0, 0
					continue
				}
			}
		}
		prev, before = r, prev
		i += n
	}
	return w.text()
}

// inGroups says whether a landline's shape, num, preceded by the runes
// before and prev, is groups of a longer number written in groups (a tax
// id's, a card's: 9133 0302 5645 3071 X5): a digit, then the separator
// num's own groups are set apart by. Two numbers one after the other
// (021-62345678 0571-88886666) are set apart otherwise.
func inGroups(before, prev rune, num string) bool {
	if !strings.ContainsRune(landlineSeps, prev) || !strings.ContainsRune(num, prev) {
		return false
	}
	c, _, ok := foldRune(before)
	return ok && c >= '0' && c <= '9'
}

// numberGlue reports whether r, just before a number, makes it part of a
// longer token (a code, a decimal, an identifier): a letter or digit,
// ASCII or full-width, or one of "-._+/#".
func numberGlue(r rune) bool {
	if r < 0 {
		return false
	}
	if _, _, ok := foldRune(r); ok || r >= 'a' && r <= 'z' {
		return true
	}
	return strings.ContainsRune("-._+/#－", r)
}

// digitsAt returns the run of digits (ASCII or full-width) at s[i:], folded
// to ASCII, and where it ends.
func digitsAt(s string, i int) (string, int) {
	var d []byte
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		c, _, ok := foldRune(r)
		if !ok || c > '9' {
			break
		}
		d = append(d, c)
		i += n
	}
	return string(d), i
}

// oneOf returns the end of the rune at s[i:] when it is one of set, else -1.
func oneOf(s string, i int, set string) int {
	if i >= len(s) {
		return -1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if strings.ContainsRune(set, r) {
		return i + n
	}
	return -1
}

const (
	landlineSeps = " -－\u3000"
	openBracket  = "(（"
	closeBracket = ")）"
)

// intlPrefixAt returns where the number after the mainland's country code
// written at s[i] starts (+86, ＋８６ or 0086, in brackets or not, then a
// separator and a (0) if any), or i when no country code is written there.
func intlPrefixAt(s string, i int) int {
	j, bracket := i, false
	if k := oneOf(s, j, openBracket); k > 0 {
		j, bracket = k, true
	}
	plus := false
	if k := oneOf(s, j, "+＋"); k > 0 {
		j, plus = k, true
	}
	cc, j := digitsAt(s, j)
	if plus && cc != "86" || !plus && cc != "0086" {
		return i
	}
	if bracket {
		if j = oneOf(s, j, closeBracket); j < 0 {
			return i
		}
	}
	if k := oneOf(s, j, landlineSeps); k > 0 {
		j = k
	}
	// The trunk 0 some write in brackets: +86 (0)21 ….
	if k := oneOf(s, j, openBracket); k > 0 {
		if d, m := digitsAt(s, k); d == "0" {
			if c := oneOf(s, m, closeBracket); c > 0 {
				j = c
			}
		}
	}
	return j
}

// intlLandlineAt returns the end of the landline number written after a
// country code, starting at s[i] with its area code (its 0 left out, or
// not: +86 021 …), and its digits in the national form, with the 0 (i when
// none starts there). Unlike the national form's, the area code in two or
// three digits may be set off by a separator alone (+86 21 6234 5678).
func intlLandlineAt(s string, i int) (end int, folded string) {
	j, bracket := i, false
	if k := oneOf(s, j, openBracket); k > 0 {
		j, bracket = k, true
	}
	area, j := digitsAt(s, j)
	national := area
	if !strings.HasPrefix(area, "0") {
		national = "0" + area
	}
	if !areaCode(national) {
		return i, ""
	}
	if bracket {
		if j = oneOf(s, j, closeBracket); j < 0 {
			return i, ""
		}
		if k := oneOf(s, j, landlineSeps); k > 0 {
			j = k
		}
	} else if j = oneOf(s, j, landlineSeps); j < 0 {
		return i, ""
	}
	local, j := digitsAt(s, j)
	end, local = localNumber(s, j, local)
	if end < 0 {
		return i, ""
	}
	return end, national + local
}

// foldedLen counts the digits of s, ASCII or full-width.
func foldedLen(s string) int {
	n := 0
	for _, r := range s {
		if c, _, ok := foldRune(r); ok && isDigit(c) {
			n++
		}
	}
	return n
}

// landlineAt returns the end of the landline number that starts at s[i],
// and its digits (i when none does).
func landlineAt(s string, i int) (end int, folded string) {
	j, bracket := i, false
	if k := oneOf(s, j, openBracket); k > 0 {
		j, bracket = k, true
	}
	first, j := digitsAt(s, j)
	var local string
	switch {
	case bracket:
		if !areaCode(first) {
			return i, ""
		}
		k := oneOf(s, j, closeBracket)
		if k < 0 {
			return i, ""
		}
		if sep := oneOf(s, k, landlineSeps); sep > 0 {
			k = sep
		}
		local, j = digitsAt(s, k)
	case !bracket && (first == "400" || first == "800"):
		k := oneOf(s, j, landlineSeps)
		if k < 0 {
			return i, ""
		}
		sep := s[j:k]
		mid, m := digitsAt(s, k)
		if len(mid) != 3 || !strings.HasPrefix(s[m:], sep) {
			return i, ""
		}
		local, j = digitsAt(s, m+len(sep))
		if len(local) != 4 {
			return i, ""
		}
		local = mid + local
	case areaCode(first):
		k := oneOf(s, j, landlineSeps)
		if k < 0 {
			return i, ""
		}
		local, j = digitsAt(s, k)
	default:
		return i, ""
	}
	if first != "400" && first != "800" {
		if j, local = localNumber(s, j, local); j < 0 {
			return i, ""
		}
	} else if landlineGlued(s, j) {
		return i, ""
	}
	return j, first + local
}

// localNumber returns the end of the local number after an area code whose
// first group of digits, local, ends at s[j], and its digits (-1 when it is
// none).
func localNumber(s string, j int, local string) (end int, digits string) {
	// A local number in two groups, as business cards print it (6234
	// 5678, 888 6666): one separator, then four digits.
	if len(local) == 3 || len(local) == 4 {
		if k := oneOf(s, j, landlineSeps); k > 0 {
			if more, m := digitsAt(s, k); len(more) == 4 {
				// A third group of four after the same separator makes
				// them groups of a longer number (an account, a card:
				// 0829 7779 4199 9299 5248), not a landline.
				if l := oneOf(s, m, s[j:k]); l > 0 {
					if next, _ := digitsAt(s, l); len(next) == 4 {
						return -1, ""
					}
				}
				local, j = local+more, m
			}
		}
	}
	if len(local) < 7 || len(local) > 8 || local[0] < '2' || landlineGlued(s, j) {
		return -1, ""
	}
	return j, local
}

// landlineGlued reports whether what follows a number ending at s[j] makes
// it part of a longer token: a letter, a digit or a decimal point.
func landlineGlued(s string, j int) bool {
	r, _ := utf8.DecodeRuneInString(s[j:])
	return j < len(s) && (numberGlue(r) && r != '-' && r != '－' || r == '.' && j+1 < len(s) && isDigit(s[j+1]))
}

// areaCode reports whether d is a mainland area code: 010, 020 to 029, or
// 0300 to 0999.
func areaCode(d string) bool {
	switch {
	case len(d) == 3 && d[0] == '0':
		return d == "010" || d[1] == '2'
	case len(d) == 4 && d[0] == '0':
		return d[1] >= '3'
	}
	return false
}

// landlineStandIn keeps v's area code (or a service number's 400 or 800)
// and draws a local number of the same length starting 2 to 9. Anything
// else keeps its shape.
func landlineStandIn(f *fake.Faker, v string) string {
	keep := 0
	switch {
	case len(v) == 10 && (v[:3] == "400" || v[:3] == "800"):
		keep = 3
	case len(v) >= 10 && areaCode(v[:3]):
		keep = 3
	case len(v) >= 11 && areaCode(v[:4]):
		keep = 4
	case (len(v) == 7 || len(v) == 8) && v[0] >= '2' && v[0] <= '9':
		keep = 0 // a local number after its label (labelnum.go)
	default:
		return sameShape(f, v, false)
	}
	r := f.Rand()
	b := []byte(v[:keep])
	b = append(b, byte('2'+r.IntN(8)))
	for len(b) < len(v) {
		b = append(b, digits[r.IntN(len(digits))])
	}
	return string(b)
}
