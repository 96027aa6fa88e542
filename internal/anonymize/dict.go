package anonymize

import (
	"encoding/binary"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxEcho is the longest identifier (in bytes) searched for inside other
// text; a longer one is replaced where it stands as a whole value. It bounds
// the work per byte of text, so that the search stays linear.
const maxEcho = 256

// entry is what the dictionary knows of a text: a value the run replaced
// (orig, with its stand-in and class), a stand-in it wrote, or both.
type entry struct {
	new         string
	class       class
	orig, stand bool
	// fixed marks a stand-in written without a value of its own
	// (addStandIn), which replacer.settle keeps a stand-in.
	fixed  bool
	digits bool // all ASCII digits
	// token marks a value too short to search for inside text (ZS, A07, a
	// staff code 0038): it is replaced only where it stands as a token of
	// its own (tokenAt).
	token bool
}

// dict is the run's dictionary: every value replaced and every stand-in
// written, searched for inside text (unknown fields, keys, headers, URLs,
// bodies that are not JSON) by leftmost-longest match. Lookups are by hash
// of the candidate's bytes, indexed by the first eight bytes, so that a
// position of text costs a few lookups whatever the dictionary's size.
type dict struct {
	m map[string]*entry
	// short counts the entries of 4 to 7 bytes by length; long lists, by
	// first eight bytes, the lengths of the longer ones (longest first).
	short [8]int
	long  map[uint64][]int
	// first marks a hash of the first four bytes of every entry: most
	// positions of text fail here, with one look at a table.
	first []uint64
}

// firstBits is the size of dict.first, in bits (512 KiB): a few per cent
// of false hits with a million entries.
const firstBits = 1 << 22

func firstHash(s string, i int) uint32 {
	v := uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
	return (v * 2654435761) >> (32 - 22)
}

func newDict() *dict {
	return &dict{m: map[string]*entry{}, long: map[uint64][]int{}, first: make([]uint64, firstBits/64)}
}

// add records that v (of class c) was replaced by s. A remark is free text
// of common phrases (加急, 货到付款): it is searched for only where a whole
// value is the same remark, never inside other text.
func (d *dict) add(v, s string, c class) {
	e := d.entry(v, c != remark)
	if !e.orig {
		e.orig, e.new, e.class = true, s, c
	}
	d.entry(s, true).stand = true
}

// addStandIn records a stand-in written without a value of its own (a
// number fixed up to stay a JSON number).
func (d *dict) addStandIn(s string) {
	e := d.entry(s, true)
	e.stand, e.fixed = true, true
}

// entry returns k's entry, made if new; index makes a new one searchable
// inside text.
func (d *dict) entry(k string, index bool) *entry {
	if e := d.m[k]; e != nil {
		return e
	}
	e := &entry{digits: allDigits(k)}
	d.m[k] = e
	e.token = index && !searchable(k, e.digits) && shortToken(k, e.digits)
	if !index || !searchable(k, e.digits) || len(k) > maxEcho {
		return e
	}
	f := firstHash(k, 0)
	d.first[f/64] |= 1 << (f % 64)
	if len(k) < 8 {
		d.short[len(k)]++
		return e
	}
	p := binary.LittleEndian.Uint64([]byte(k[:8]))
	if ls := d.long[p]; !slices.Contains(ls, len(k)) {
		ls = append(ls, len(k))
		slices.SortFunc(ls, func(a, b int) int { return b - a })
		d.long[p] = ls
	}
	return e
}

func (d *dict) isOriginal(s string) bool { e := d.m[s]; return e != nil && e.orig }
func (d *dict) isStandIn(s string) bool  { e := d.m[s]; return e != nil && e.stand }

// match returns the longest entry that starts at s[i], and its length (0:
// none). work counts the bytes looked at.
func (d *dict) match(s string, i int, work *int) (int, *entry) {
	rest := len(s) - i
	if rest < minEcho {
		return 0, nil
	}
	f := firstHash(s, i)
	if d.first[f/64]&(1<<(f%64)) == 0 {
		return 0, nil
	}
	if rest >= 8 {
		for _, n := range d.long[binary.LittleEndian.Uint64([]byte(s[i:i+8]))] {
			if n > rest {
				continue
			}
			*work += n
			if e := d.m[s[i:i+n]]; e != nil && bounded(s, i, n, e) {
				return n, e
			}
		}
	}
	for n := min(rest, 7); n >= minEcho; n-- {
		if d.short[n] == 0 {
			continue
		}
		*work += n
		if e := d.m[s[i:i+n]]; e != nil && bounded(s, i, n, e) {
			return n, e
		}
	}
	return 0, nil
}

// minDigitsEcho is the shortest code of digits only searched for in text:
// four or five digits (a staff code) stand in amounts, dates and
// attributes by chance, and name nobody by themselves.
const minDigitsEcho = 6

// bounded reports whether a match may stand at s[i:i+n]: an entry that
// begins or ends with a letter or digit must not run on into another (0501
// inside a timestamp, a uuid or 0501.25 is another token, not the code).
func bounded(s string, i, n int, e *entry) bool {
	if i > 0 && wordChar(s[i]) && (wordChar(s[i-1]) || s[i-1] == '.' && isDigit(s[i])) {
		return false
	}
	j := i + n
	return j == len(s) || !wordChar(s[j-1]) || !wordChar(s[j]) && !(s[j] == '.' && isDigit(s[j-1]))
}

func wordChar(c byte) bool { return isDigit(c) || isLetter(c) }

// searchable reports whether k is long enough to be replaced where it
// stands, inside other text or as a whole value.
func searchable(k string, digits bool) bool {
	return len(k) >= minEcho && !(digits && len(k) < minDigitsEcho)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// shortToken reports whether k, too short to search for inside text, is
// still searched for as a token of its own: two or three letters and
// digits (ZS, A07), or four or five digits (a staff code, 0038). One to
// three digits alone (12, 038) name nobody and stand in every quantity.
func shortToken(k string, digits bool) bool {
	if len(k) < 2 || len(k) > 7 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !wordChar(k[i]) {
			return false
		}
	}
	return !digits || len(k) >= 4
}

// tokenAt returns the token of letters and digits that starts at s[i] and
// its entry, when that is a short value the run replaced standing on its
// own: between start, end, spaces, punctuation of URLs and JSON (/ = & ? ,
// : ; quotes, brackets) or CJK text (工号0038), never inside a longer word,
// a number (1.0038, 0038-2), an escape (%30) or an identifier (A07_x). A
// code of digits followed by a CJK unit (2024年, 0038号) is a date or a
// count, not the code. end is where the token ends (i when none starts
// here).
func (d *dict) tokenAt(s string, i int) (end int, e *entry) {
	if !wordChar(s[i]) || i > 0 && !tokenEdge(s[i-1]) {
		return i, nil
	}
	j := i
	for j < len(s) && wordChar(s[j]) {
		j++
	}
	if j-i > 7 {
		return j, nil
	}
	e = d.m[s[i:j]]
	if e == nil || !e.token || !e.orig {
		return j, nil
	}
	// A full stop ends a sentence (客户ZS1.) unless a word goes on after it.
	if j < len(s) && !tokenEdge(s[j]) && !(s[j] == '.' && (j+1 == len(s) || !wordChar(s[j+1]))) {
		return j, nil
	}
	if j < len(s) && e.digits && s[j] >= 0x80 {
		if r, _ := utf8.DecodeRuneInString(s[j:]); strings.ContainsRune(units, r) {
			return j, nil
		}
	}
	return j, e
}

// units are the CJK characters that make a number a date, a time, an
// amount or a count.
const units = "年月日时分秒元角个件张次天周期位"

// tokenEdge reports whether c may stand next to a short token: anything
// but a letter or digit and the characters that glue a number or word
// together (. - _ % + @ ~).
func tokenEdge(c byte) bool {
	return !wordChar(c) && !strings.ContainsRune(".-_%+@~", rune(c))
}

// otherCaseAt returns the end of the word of letters and digits at s[i]
// and the entry of the value the run replaced that it is in another case
// (cgfp202610160028 of CGFP202610160028, a URL's path lower-casing a
// document number), or a nil entry. Only a word with a lower-case letter
// and a digit in it, of minDigitsEcho characters at least, is looked up:
// identifiers are written so, and most words are not.
func (d *dict) otherCaseAt(s string, i int) (end int, e *entry) {
	j, lower, digit := i, false, false
	for j < len(s) && wordChar(s[j]) {
		lower = lower || isLower(s[j])
		digit = digit || isDigit(s[j])
		j++
	}
	if !lower || !digit || j-i < minDigitsEcho {
		return j, nil
	}
	if e = d.m[strings.ToUpper(s[i:j])]; e == nil || !e.orig || e.stand {
		return j, nil
	}
	return j, e
}
