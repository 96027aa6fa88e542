package anonymize

import (
	"strings"
	"unicode/utf8"
)

// A phone number or a tax id written after its label (电话02162345678,
// 传真：62345678, Tel 0571 88886666, 税号310104710932064, 纳税人识别号：
// 11010519491231002X08) is what its label says, in forms no shape tells
// from an invoice code or an order number written bare: a landline run
// together or without its area code, an old 15-digit taxpayer number, a
// sole trader's 20. After the label (and a colon, 为 or 是), the digits
// (ASCII or full-width, a tax id's capitals too) up to anything that is
// none: a landline is 7 or 8 digits starting 2 to 9 (the local number), an
// area code with its 0 and such a number (10 to 12 digits), or 400 or 800
// and 7 digits; a tax id 15 to 20 of them. Anything else there (a date, an
// amount: 电话 2026-03-18, 税号 1500.00) is kept, as is a number glued to
// a letter, a decimal point or a unit of money after it. The forms the
// shapes find anywhere (021-62345678, a mobile, a unified social credit
// code) are found by them first. A field, query parameter or header named
// for a phone or a tax id (电话, 传真, tel, phone, fax; 税号, taxNo, taxId)
// labels its value the same way.

// phoneLabels and taxLabels are the labels sought in text, the longer
// first where one starts another.
var (
	phoneLabels = [...]string{"电话号码", "电话", "座机", "固话", "传真", "Telephone", "TELEPHONE", "telephone", "Tel", "TEL", "tel",
		"Phone", "PHONE", "phone", "Fax", "FAX", "fax"}
	taxLabels = [...]string{"纳税人识别号", "税务登记号", "识别号", "信用代码", "税号", "Tax ID", "Tax Id", "TAX ID", "tax id", "Tax No", "TAX NO", "tax no"}
)

// numberLabelFirst reports whether r is the first character of a phone
// or tax label (a switch: asked of every character of every text).
func numberLabelFirst(r rune) bool {
	switch r {
	case '电', '座', '固', '传', 'T', 't', 'P', 'p', 'F', 'f', '纳', '税', '识', '信':
		return true
	}
	return false
}

// labelledNumbers returns s with each phone number or tax id written after
// its label replaced by its stand-in, and the text between them searched by
// rest. In a check it returns s and records each one as a leak.
func (p *pass) labelledNumbers(s string, rest func(string) string) string {
	w := &claimed{p: p, s: s, rest: rest}
	for i := 0; i < len(s); {
		at, label, c := numberLabelAt(s, i)
		p.tick(at - i)
		if label == "" {
			break
		}
		i = at + len(label)
		after := i
		if label[0] < 0x80 {
			// Set apart from the words around it (hotel, Telnet, syntax),
			// then No., # or number if written.
			if after = englishAccountLabel(s, at, i); after < 0 {
				continue
			}
		}
		start, end, folded := labelledNumberAfter(s, after, c)
		p.tick(max(end, after) - i + 1)
		if start < 0 {
			continue
		}
		w.claim(start, end, c, folded, true)
		i = end
	}
	return w.text()
}

// numberLabelAt returns where the first phone or tax label at or after
// s[i] starts, the label and the class it labels (len(s), "": none).
func numberLabelAt(s string, i int) (int, string, class) {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if numberLabelFirst(r) {
			for _, l := range phoneLabels {
				if strings.HasPrefix(s[i:], l) {
					return i, l, landline
				}
			}
			for _, l := range taxLabels {
				if strings.HasPrefix(s[i:], l) {
					return i, l, TaxID
				}
			}
		}
		i += n
	}
	return len(s), "", ""
}

// labelledNumberAfter returns the span of the landline (c landline) or tax
// id (c TaxID) written after a label that ends at s[i], and its characters
// folded to ASCII (-1s: none).
func labelledNumberAfter(s string, i int, c class) (start, end int, folded string) {
	i = skipRunes(s, i, " ：:为是.#\u3000")
	start = i
	var d []byte
	for i < len(s) && len(d) <= 20 {
		r, n := utf8.DecodeRuneInString(s[i:])
		f, _, ok := foldRune(r)
		if !ok || c == landline && !isDigit(f) {
			break
		}
		d = append(d, f)
		i += n
	}
	end = i
	if r, _ := utf8.DecodeRuneInString(s[end:]); end < len(s) {
		// An extension after a hyphen (62345678-8001) is kept as it is.
		extension := c == landline && r == '-' && end+1 < len(s) && isDigit(s[end+1])
		glued := r < 0x80 && (wordChar(byte(r)) || r == '.' && end+1 < len(s) && isDigit(s[end+1]) || r == '-' && !extension || r == '_') ||
			r >= 0x80 && (isFoldable(r) || strings.ContainsRune("元万亿圆块", r))
		if glued {
			return -1, -1, ""
		}
	}
	v := string(d)
	// What the shapes find anywhere (a mobile, a unified social credit
	// code, an identity card) is theirs, so that it gets one stand-in
	// wherever it stands.
	if c == landline && !localOrAreaNumber(v) || c == TaxID && (!taxIDLike(v) || identifierClass(v) != "") {
		return -1, -1, ""
	}
	return start, end, v
}

func isFoldable(r rune) bool { _, _, ok := foldRune(r); return ok }

// localOrAreaNumber reports whether v, digits, is a landline written run
// together: a local number (7 or 8 digits, the first 2 to 9), an area code
// with its 0 and a local number, or a 400 or 800 service number.
func localOrAreaNumber(v string) bool {
	local := func(l string) bool { return (len(l) == 7 || len(l) == 8) && l[0] >= '2' && l[0] <= '9' }
	switch {
	case local(v):
		return true
	case len(v) == 10 && (v[:3] == "400" || v[:3] == "800"):
		return true
	case len(v) >= 10 && areaCode(v[:3]) && local(v[3:]):
		return true
	case len(v) >= 11 && areaCode(v[:4]) && local(v[4:]):
		return true
	}
	return false
}

// taxIDLike reports whether v is a taxpayer id's length (15 to 20 of
// digits and capitals, a digit first) and no date or amount's digits.
func taxIDLike(v string) bool {
	return len(v) >= 15 && len(v) <= 20 && isDigit(v[0])
}

// taxKeySuffixes and phoneKeySuffixes end the names of fields, parameters
// and headers that hold a tax id or a phone number, folded to lower case
// without "_", "-" and spaces (nsrsbh: 纳税人识别号 in the pinyin initials
// of the invoice interfaces, gmfnsrsbh and xsfnsrsbh the buyer's and the
// seller's).
var (
	taxKeySuffixes   = [...]string{"taxno", "taxid", "taxcode", "taxnumber", "taxpayerid", "nsrsbh", "税号", "识别号", "信用代码"}
	phoneKeySuffixes = [...]string{"tel", "phone", "telephone", "fax", "phoneno", "phonenumber", "telno", "电话", "座机", "固话", "传真"}
)

// numberKey returns the class a field's, parameter's or header's name
// labels (landline or TaxID), or "".
func numberKey(name string) class {
	if name == "" {
		return ""
	}
	if name[len(name)-1] >= 0x80 {
		for _, l := range taxKeySuffixes {
			if l[0] >= 0x80 && strings.HasSuffix(name, l) {
				return TaxID
			}
		}
		for _, l := range phoneKeySuffixes {
			if l[0] >= 0x80 && strings.HasSuffix(name, l) {
				return landline
			}
		}
		return ""
	}
	k := foldKey(name)
	for _, l := range taxKeySuffixes {
		if l[0] < 0x80 && k.endsWith(l) {
			return TaxID
		}
	}
	for _, l := range phoneKeySuffixes {
		// A word of its own: contactTel, PHONE_NO, not hotel or
		// smartphone.
		if l[0] < 0x80 && k.endsWithWord(l) {
			return landline
		}
	}
	return ""
}

// labelledNumberValue returns v, the value of a field, parameter or header
// named for a phone or a tax id (c), with the number at its start replaced
// as one after its label in text; the rest of v is searched by rest.
func (p *pass) labelledNumberValue(c class, v string, rest func(string) string) string {
	start, end, folded := labelledNumberAfter(v, 0, c)
	if start < 0 {
		return rest(v)
	}
	w := &claimed{p: p, s: v, rest: rest}
	w.claim(start, end, c, folded, true)
	return w.text()
}
