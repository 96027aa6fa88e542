package anonymize

import (
	"strings"
	"unicode/utf8"
)

// A document number the spec marks (spec.DocumentNumber: an invoice's
// numbers, a receipt's, an item's order) is replaced in its field, and
// found again anywhere the run met it. One that only ever stands in text
// is known by its label alone: a remark's 发票号码：04400190011112345678, 发票代码 044001900111,
// 单据编号:SKD202612070001, 订单号 PO-2026-000123, invoice no. 12345678,
// PO#4500012345; or a field, query parameter, header or XML element so
// named (invoiceNo, orderNumber, 发票号码, 单据编号, fphm). It becomes a
// code's stand-in, the one the same number gets in a field of the spec
// (prefix, date, length and separators kept). After the label (and a
// colon, #, 为 or 是) the number is letters in capitals, digits and the
// separators - _ / between them, four digits at least: a line's number
// (单号 12), a date (订单号 2026-03-18), an amount (发票号 1500.00, 单号
// 100元) and a number glued to a word are kept.

// docLabels are the labels of a document number in Chinese, the longer
// first where one starts another (发票号码 before 发票号).
var docLabels = [...]string{"发票号码", "发票代码", "发票编号", "发票号", "票据号码", "票据号", "票号",
	"单据编号", "单据号码", "单据号", "订单编号", "订单号码", "订单号", "单号",
	"合同编号", "合同号", "凭证编号", "凭证号"}

// docLabelFirst reports whether r is the first character of one of
// docLabels (a switch: asked of every character of every text).
func docLabelFirst(r rune) bool {
	switch r {
	case '发', '票', '单', '订', '合', '凭':
		return true
	}
	return false
}

// docWords are the English words of a document a number's label starts
// with (invoice no., PO#, Order Number), lower case; docNoWords what
// follows them.
var (
	docWords   = [...]string{"invoice", "inv", "order", "po", "document", "doc", "receipt", "contract", "voucher", "bill"}
	docNoWords = [...]string{"number", "num", "no", "nr", "#"}
)

// docNumbers returns s with each document number written after its label
// replaced by its stand-in, and the text between them searched by rest.
// In a check it returns s and records each one as a leak.
func (p *pass) docNumbers(s string, rest func(string) string) string {
	w := &claimed{p: p, s: s, rest: rest}
	for i := 0; i < len(s); {
		at, after := docLabelAt(s, i)
		p.tick(at - i)
		if after < 0 {
			break
		}
		start, end, folded := docNumberAfter(s, after)
		p.tick(max(end, after) - at + 1)
		if start < 0 {
			i = after
			continue
		}
		w.claim(start, end, code, folded, true)
		i = end
	}
	return w.text()
}

// docLabelAt returns where the first document number's label at or after
// s[i] starts and where it ends (len(s), -1: none).
func docLabelAt(s string, i int) (int, int) {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case docLabelFirst(r):
			for _, l := range docLabels {
				if strings.HasPrefix(s[i:], l) {
					return i, i + len(l)
				}
			}
		case isLetter(byte(r)) && r < utf8.RuneSelf && (i == 0 || !wordChar(s[i-1])):
			if end := englishDocLabel(s, i); end > 0 {
				return i, end
			}
		}
		i += n
	}
	return len(s), -1
}

// englishDocLabel returns where the English label of a document number
// that starts at s[i] ends (invoice no., Invoice Number:, PO#, order
// no), or -1: a word of docWords, a space, a point or an underscore if
// written, then one of docNoWords set apart from what follows (invoice
// note, order nos are none).
func englishDocLabel(s string, i int) int {
	for _, w := range docWords {
		if len(s)-i < len(w) || !strings.EqualFold(s[i:i+len(w)], w) {
			continue
		}
		j := i + len(w)
		if j < len(s) && (s[j] == ' ' || s[j] == '.' || s[j] == '_') {
			j++
		}
		for _, no := range docNoWords {
			if len(s)-j < len(no) || !strings.EqualFold(s[j:j+len(no)], no) {
				continue
			}
			k := j + len(no)
			if no != "#" && k < len(s) && isLetter(s[k]) {
				continue
			}
			if k < len(s) && s[k] == '.' {
				k++
			}
			return k
		}
	}
	return -1
}

// docNumberAfter returns the span of the document number written after a
// label that ends at s[i], and its characters folded to ASCII capitals
// (-1s: none).
func docNumberAfter(s string, i int) (start, end int, folded string) {
	i = skipRunes(s, i, " ：:#.为是\u3000")
	start = i
	var b []byte
	digits := 0
	for i < len(s) && len(b) < 40 {
		r, n := utf8.DecodeRuneInString(s[i:])
		if f, _, ok := foldRune(r); ok {
			b = append(b, f)
			if isDigit(f) {
				digits++
			}
			i += n
			continue
		}
		// A separator inside the number (PO-2026-000123), never at its end.
		if (r == '-' || r == '_' || r == '/') && len(b) > 0 && i+1 < len(s) {
			if _, _, ok := foldRune(firstRune(s[i+1:])); ok {
				b = append(b, byte(r))
				i += n
				continue
			}
		}
		break
	}
	end = i
	if digits < 4 || docNumberGlued(s, end) || dateLike(string(b)) {
		return -1, -1, ""
	}
	v := string(b)
	// What the shapes find anywhere (a mobile, a tax id, an identity
	// card, a bank card) is theirs: one stand-in wherever it stands.
	if identifierClass(v) != "" {
		return -1, -1, ""
	}
	return start, end, v
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

// docNumberGlued reports whether what follows a number that ends at s[end]
// makes it part of something else: a word (04400190011112345678ab), an
// amount's decimals (1500.00) or its unit of money (100元).
func docNumberGlued(s string, end int) bool {
	if end >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[end:])
	return r < utf8.RuneSelf && (wordChar(byte(r)) || r == '.' && end+1 < len(s) && isDigit(s[end+1])) ||
		strings.ContainsRune("元万亿圆块", r)
}

// dateLike reports whether v is a date written with separators
// (2026-03-18, 2026/3/18): a labelled field's date, not a number.
func dateLike(v string) bool {
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '/' })
	if len(parts) != 3 || len(parts[0]) != 4 || !allDigits(parts[0]) {
		return false
	}
	for _, p := range parts[1:] {
		if len(p) < 1 || len(p) > 2 || !allDigits(p) {
			return false
		}
	}
	return true
}

// docKeySuffixes end the names of fields, parameters and headers that hold
// a document number, folded to lower case without "_", "-" and spaces
// (fphm, fpdm and djbh: 发票号码, 发票代码 and 单据编号 in the pinyin
// initials of the invoice interfaces). The ASCII ones must be words of
// their own (orderNo, not reorderNo).
var docKeySuffixes = [...]string{"invoiceno", "invoicenumber", "invoicenum", "orderno", "ordernumber", "ponumber", "pono",
	"documentno", "documentnumber", "docno", "docnumber", "billno", "billnumber", "receiptno", "receiptnumber",
	"contractno", "contractnumber", "voucherno", "vouchernumber", "fphm", "fpdm", "djbh",
	"发票号码", "发票代码", "发票编号", "发票号", "单据编号", "单据号", "订单编号", "订单号", "单号", "合同编号", "合同号", "凭证编号", "凭证号"}

// docKey reports whether name, a field's, a query parameter's or a
// header's, labels a document number.
func docKey(name string) bool {
	if name == "" {
		return false
	}
	if name[len(name)-1] >= utf8.RuneSelf {
		for _, l := range docKeySuffixes {
			if l[0] >= utf8.RuneSelf && strings.HasSuffix(name, l) {
				return true
			}
		}
		return false
	}
	k := foldKey(name)
	for _, l := range docKeySuffixes {
		if l[0] < utf8.RuneSelf && k.endsWithWord(l) {
			return true
		}
	}
	return false
}

// labelledDocValue returns v, the value of a field, parameter or header
// named for a document number, with the number at its start replaced as
// one after its label in text; the rest of v is searched by rest.
func (p *pass) labelledDocValue(v string, rest func(string) string) string {
	start, end, folded := docNumberAfter(v, 0)
	if start < 0 {
		return rest(v)
	}
	w := &claimed{p: p, s: v, rest: rest}
	w.claim(start, end, code, folded, true)
	return w.text()
}

// docNumber is labelledDocValue for a JSON number under such a name
// (invoiceNo: 12345678): a number of four digits at least becomes one of
// its spelling; ok is false for any other.
func (p *pass) docNumber(v string) (string, bool) {
	if !allDigits(v) || len(v) < 4 || identifierClass(v) != "" {
		return v, false
	}
	if p.a.r.dict.isStandIn(v) {
		return v, true
	}
	if p.check {
		p.leak(string(code), v)
		return v, true
	}
	p.counts[code]++
	return p.a.numberStandIn(v, p.a.r.Replace(code, v)), true
}
