// Package anonymize replaces the values of a webhook payload that identify
// people and companies with realistic stand-ins, keyed so that the same value
// always becomes the same stand-in under the same key and no one without the
// key can map a stand-in back.
package anonymize

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/fake"
	"github.com/whsim/whsim/internal/taxid"
)

// class is what a value is, which decides what it is replaced with. Values of
// one class are replaced consistently wherever they stand: a company's name
// is the same stand-in in customerName, invoiceTitle and 客户名称.name.
type class string

const (
	personName  class = "person name"
	companyName class = "company name"
	TaxID       class = "tax id"
	code        class = "code"
	remark      class = "remark"
	// mobile and IDCard are found by their shape (leak.go) wherever they
	// stand: no field of the spec holds them, yet they turn up in unknown
	// fields, item attributes, headers and URLs.
	mobile class = "mobile number"
	IDCard class = "identity card number"
	// bankCard is found by its shape too (bankcard.go).
	bankCard class = "bank card number"
	// email is found by its shape too (email.go).
	email class = "email address"
	// chatID is a QQ number or a WeChat id, found after its label
	// (chatid.go).
	chatID class = "QQ or WeChat id"
	// Address is the remote address of a capture record.
	Address class = "remote address"
	// Echo is an identifier found again inside a field that does not
	// identify anyone by itself, and replaced there with the same stand-in.
	Echo class = "echo"
)

// Classes lists the classes in the order reports show them.
func Classes() []class {
	return []class{personName, pinyinName, companyName, TaxID, code, remark, mobile, landline, IDCard, bankCard, bankAccount, streetAddress, email, chatID, Address, Echo}
}

// minKeyLen is the shortest key accepted: a short key can be guessed, and a
// guessed key maps every stand-in back.
const minKeyLen = 16

// errShortKey says the key is shorter than MinKeyLen bytes.
var errShortKey = errors.New("the key must be at least 16 bytes; use a random one, e.g. openssl rand -hex 16")

// replacer turns values into keyed stand-ins, one to one within a class:
// two values never share a stand-in, so that unrelated records are never
// linked. It remembers every value it replaced (the run's dictionary) and is
// not safe for concurrent use (it reuses its HMAC state).
type replacer struct {
	mac hash.Hash
	buf []byte
	// of maps a value to its stand-in, by class; owner a stand-in back to
	// its value, which is how a collision is seen.
	of, owner map[class]map[string]string
	// dict holds every value replaced and every stand-in written, for the
	// search of text (an echo) and for --check.
	dict *dict
}

// newReplacer returns a Replacer keyed with key.
func newReplacer(key []byte) (*replacer, error) {
	if len(key) < minKeyLen {
		return nil, errShortKey
	}
	return &replacer{mac: hmac.New(sha256.New, key), of: map[class]map[string]string{},
		owner: map[class]map[string]string{}, dict: newDict()}, nil
}

// maxDraws bounds the search for a free stand-in: a one-digit code has nine
// others, so past this many draws a stand-in may be shared.
const maxDraws = 64

// Replace returns the stand-in for v as a value of class c. An empty value
// stays empty (it names nobody). The stand-in never contains v: a draw from
// a finite list can come back as the value itself, or hold it (上海 in
// 上海汇通实业有限公司), and a stand-in that holds what it hides hides nothing.
//
// On a collision (the stand-in is another value's, or is itself a value the
// run replaced) the next candidate is drawn, so the same value can have
// another stand-in in a run that met the colliding value first; that is
// rare (the stand-in forms are drawn from spaces far larger than a capture).
func (r *replacer) Replace(c class, v string) string {
	if v == "" {
		return ""
	}
	if s, ok := r.of[c][v]; ok {
		return s
	}
	s := r.fresh(c, v)
	if r.of[c] == nil {
		r.of[c], r.owner[c] = map[string]string{}, map[string]string{}
	}
	r.of[c][v] = s
	if _, taken := r.owner[c][s]; !taken {
		r.owner[c][s] = v
	}
	r.dict.add(v, s, c)
	return s
}

// replaceCased is Replace, but a tax id written in lower case
// (91310115ma1fl3xk9d: a system that lower-cases what it stores) is the
// id in capitals, as GB 32100 writes it: one stand-in wherever it
// stands, in whatever case, and a valid code. Drawn from the lower-case
// form it kept that form's shape only (29073648ie7xu1rz0p: no region, no
// check characters) and differed from the same id's stand-in in a text.
// The stand-in is written in the case of the original (caseLike).
func (r *replacer) replaceCased(c class, v string) string {
	if c != TaxID || !alnum(v) || !strings.ContainsFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' }) {
		return r.Replace(c, v)
	}
	return caseLike(v, r.Replace(c, strings.ToUpper(v)))
}

// caseLike writes standIn, an id drawn for orig in capitals, in orig's
// case: a letter where orig has a letter in that letter's case, any other
// letter in the case most of orig's letters are in. A lower-case id that
// came back in capitals told a reader which ids had been replaced, and a
// receiver that compares them as stored found no match.
func caseLike(orig, standIn string) string {
	lo, up := 0, 0
	for i := 0; i < len(orig); i++ {
		switch c := orig[i]; {
		case c >= 'a' && c <= 'z':
			lo++
		case c >= 'A' && c <= 'Z':
			up++
		}
	}
	if lo == 0 || len(orig) != len(standIn) {
		return standIn
	}
	b := []byte(standIn)
	for i, c := range b {
		if c < 'A' || c > 'Z' {
			continue
		}
		if o := orig[i]; o >= 'a' && o <= 'z' || !isLetter(o) && lo >= up {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// settle draws again every stand-in that is itself a value the run
// replaced. Replace avoids the values met before it, but a value met after
// (a later record's staff code YG6220, the stand-in of an earlier one's)
// stood in the output as another's stand-in, unreplaced, and --check, which
// takes a stand-in for no leak, passed it. Called once the whole input has
// been read for the dictionary, before anything is written; the values are
// taken in order, so that the same input and key give the same stand-ins.
func (r *replacer) settle() {
	var moved []string
	for _, c := range slices.Sorted(maps.Keys(r.of)) {
		of := r.of[c]
		for _, v := range slices.Sorted(maps.Keys(of)) {
			s := of[v]
			if !r.dict.isOriginal(s) && !r.holdsOriginal(c, s) {
				continue
			}
			n := r.fresh(c, v)
			if n == s { // past maxDraws: no other could be found
				continue
			}
			of[v] = n
			if r.owner[c][s] == v {
				delete(r.owner[c], s)
			}
			if _, taken := r.owner[c][n]; !taken {
				r.owner[c][n] = v
			}
			if e := r.dict.m[v]; e != nil && e.class == c && e.new == s {
				e.new = n
			}
			r.dict.entry(n, true).stand = true
			moved = append(moved, s)
		}
	}
	if len(moved) == 0 {
		return
	}
	// The old stand-in is now only the value it is, to be replaced
	// wherever it stands, unless it still stands in for another. Which
	// ones still stand in is gathered once: asking it of every stand-in
	// for each moved one took time in the square of the input's size
	// (a third of a 30 MB run, and growing).
	standing := map[string]struct{}{}
	for _, of := range r.of {
		for _, x := range of {
			standing[x] = struct{}{}
		}
	}
	for _, s := range moved {
		if e := r.dict.m[s]; e != nil && !e.fixed {
			if _, ok := standing[s]; !ok {
				e.stand = false
			}
		}
	}
}

// holdsOriginal reports whether s, a stand-in of class c, holds a value
// the run replaced inside it (陈萍磊 holds 陈萍). Only names are looked
// into: Chinese has no spaces between words, so a name inside another is
// found by any search for it, while a code's digits inside another's
// (0917 in CGDD20260917…) are digits like any others.
func (r *replacer) holdsOriginal(c class, s string) bool {
	if c != personName && c != companyName {
		return false
	}
	for i := 0; i < len(s); {
		_, n := utf8.DecodeRuneInString(s[i:])
		// Two characters at least: a one-character value (王) is in
		// every name.
		for j := i + n; j < len(s); {
			_, m := utf8.DecodeRuneInString(s[j:])
			j += m
			if (i > 0 || j < len(s)) && r.dict.isOriginal(s[i:j]) {
				return true
			}
		}
		i += n
	}
	return false
}

func (r *replacer) fresh(c class, v string) string {
	if !replaceable(v) { // punctuation only: no stand-in could keep its shape
		return strings.Repeat("X", utf8.RuneCountInString(v))
	}
	for attempt := 0; ; attempt++ {
		f := fake.New(r.seed(c, v, attempt))
		var s string
		if attempt < 16 {
			s = r.draw(f, c, v)
		} else { // the class's own kind of stand-in keeps holding v
			s = sameShape(f, v, false)
		}
		if strings.Contains(s, v) {
			continue
		}
		if attempt < maxDraws && (r.owner[c][s] != "" || r.dict.isOriginal(s) || r.holdsOriginal(c, s)) {
			continue
		}
		return s
	}
}

func (r *replacer) draw(f *fake.Faker, c class, v string) string {
	switch c {
	// Names in forms the generator never draws: a capture of generated
	// calls cannot have its originals come back as someone's stand-in.
	case personName:
		return f.StandInName()
	case companyName:
		return f.StandInCompany()
	case TaxID:
		return taxID(f, v)
	case remark:
		return remarkStandIn(f)
	case mobile:
		return mobileStandIn(f)
	case IDCard:
		return idCardStandIn(f)
	case bankCard:
		return bankCardStandIn(f, v)
	case landline:
		return landlineStandIn(f, v)
	case streetAddress:
		return streetStandIn(f, v)
	case bankAccount:
		return accountStandIn(f, v)
	case pinyinName:
		return pinyinNameStandIn(f)
	case email:
		return emailStandIn(f)
	case chatID:
		return chatIDStandIn(f, v)
	case Address:
		return addressStandIn(f, v)
	}
	if s, ok := datedNumber(f, v); ok {
		return s
	}
	if s, ok := digitalInvoiceNumber(f, v); ok {
		return s
	}
	return sameShape(f, v, true)
}

// provinces are the GB/T 2260 province-level codes, two digits each.
const provinces = "11 12 13 14 15 21 22 23 31 32 33 34 35 36 37 41 42 43 44 45 46 50 51 52 53 54 61 62 63 64 65"

// digitalInvoiceNumber keeps the form of a 数电 invoice number (20 digits:
// the year's last two, the issuing province, the channel, a 15-digit
// sequence; domain notes §2): the year and the channel stay, the province
// is drawn from the real ones as a tax id's region is, and the sequence is
// another. Drawn like any other digits its year and province became none
// (08 99...). ok is false for any other value.
func digitalInvoiceNumber(f *fake.Faker, v string) (string, bool) {
	if len(v) != 20 || !allDigits(v) || !strings.Contains(provinces, v[2:4]) {
		return "", false
	}
	return v[:2] + f.District()[:2] + v[4:5] + sameShape(f, v[5:], false), true
}

// datedNumber keeps the prefix and the date of an ERP document number
// written PREFIX+yyyyMMdd+sequence (SKD202603180001: domain notes §5), or
// the year and month of one written PREFIX+yyyyMM+four digits, and
// draws another sequence; ok is false for any other value. The date is
// the document's, which the payload's dates keep anyway; drawn like any
// other digits it became no date (SKD598158530565), and a receiver that
// reads it failed on the anonymized fixture.
func datedNumber(f *fake.Faker, v string) (string, bool) {
	i := 0
	for i < len(v) && isLetter(v[i]) {
		i++
	}
	// Kingdee's PREFIX+yyyyMM+four-digit sequence (XSDD2026030020,
	// domain notes §5) keeps its year and month: ten digits exactly, so
	// that no yyyyMMdd number is read so.
	if i >= 2 && len(v)-i == 10 && allDigits(v[i:]) {
		if ym := v[i : i+6]; ym >= "200001" && ym < "210000" && ym[4:] >= "01" && ym[4:] <= "12" {
			return v[:i+6] + sameShape(f, v[i+6:], false), true
		}
	}
	// Two letters at least (AR, SKD, CGDD), then the date and a sequence
	// of four digits at least, digits only.
	if i < 2 || len(v)-i < 12 || !allDigits(v[i:]) {
		return "", false
	}
	date := v[i : i+8]
	if _, err := time.Parse("20060102", date); err != nil || date < "2000" || date >= "2100" {
		return "", false
	}
	return v[:i+8] + sameShape(f, v[i+8:], false), true
}

// replaceable reports whether sameShape changes anything in v.
func replaceable(v string) bool {
	for _, c := range v {
		if c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || isHan(c) {
			return true
		}
	}
	return false
}

// remarkStandIns are the forms of a remark's stand-in: free text as ERP
// users write it, carrying a reference number. None of the generator's own
// remarks has a digit, so a stand-in never equals or holds a remark that
// whsim generated, and a captured one would need these very digits.
var remarkStandIns = [...]struct{ before, after string }{
	{"参见合同HT", ""}, {"按对账单DZ", "结算"}, {"批次", "已到货"}, {"见邮件", "确认"}, {"关联工单WO", ""},
}

func remarkStandIn(f *fake.Faker) string {
	r := f.Rand()
	form := remarkStandIns[r.IntN(len(remarkStandIns))]
	return form.before + sameShape(f, "20260000", false) + form.after
}

func isHan(c rune) bool { return c >= 0x4e00 && c <= 0x9fff }

// seed derives the generator seed of one value: HMAC-SHA256 over the class
// and the value, so that a class cannot leak into another.
func (r *replacer) seed(c class, v string, attempt int) uint64 {
	r.mac.Reset()
	r.buf = append(r.buf[:0], c...)
	r.buf = append(r.buf, 0)
	r.buf = append(r.buf, v...)
	r.buf = append(r.buf, 0, byte(attempt))
	r.mac.Write(r.buf)
	sum := r.mac.Sum(r.buf[:0])
	return binary.LittleEndian.Uint64(sum) | 1 // fake.New(0) would draw a random seed
}

const (
	digits = "0123456789"
	upper  = "ABCDEFGHJKLMNPQRTUWXY" // no I, O, S, V, Z: they read as digits
	lower  = "abcdefghijkmnpqrstuvwxyz"
)

// sameShape keeps a code's format: with keepPrefix its leading letters
// (CGDD, SKD, YG: the document kind, not who it is), its length, and each
// other character's class (digit, upper, lower, CJK); separators stay where
// they are.
func sameShape(f *fake.Faker, v string, keepPrefix bool) string {
	b := []byte(v)
	i := 0
	for keepPrefix && i < len(b) && isLetter(b[i]) {
		i++
	}
	if i == len(b) { // all letters: nothing but the prefix would be left
		i = 0
	}
	r := f.Rand()
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c >= '0' && c <= '9':
			b[i] = digits[r.IntN(len(digits))]
		case c >= 'A' && c <= 'Z':
			b[i] = upper[r.IntN(len(upper))]
		case c >= 'a' && c <= 'z':
			b[i] = lower[r.IntN(len(lower))]
		}
	}
	if isASCII(v) {
		return string(b)
	}
	return replaceRunes(f, string(b))
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

func isASCII(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] >= 0x80 {
			return false
		}
	}
	return true
}

// replaceRunes replaces the CJK characters of a code (a customer code such as
// 散客 or 华东-001) with others, so that no name survives inside a code.
func replaceRunes(f *fake.Faker, s string) string {
	rs := []rune(s)
	r := f.Rand()
	for i, c := range rs {
		if isHan(c) {
			rs[i] = rune(0x4e00 + r.IntN(0x9fff-0x4e00+1))
		}
	}
	return string(rs)
}

// taxID replaces a unified social credit code with another valid one that
// keeps the original's first two characters (registering authority and kind
// of entity: an enterprise stays an enterprise) and takes a real region and
// a fresh body with both check characters from the generator. An old
// 15-digit taxpayer number becomes another (region, organisation code with
// its check). A sole trader's taxpayer id that is the owner's identity card
// number (18 characters, or 20: the number and two digits) becomes another
// identity card number, so the stand-in is still a person's id, as a
// receiver that tells the two apart reads it. Anything else keeps its shape.
func taxID(f *fake.Faker, v string) string {
	if !allDigits(v) {
		return taxIDDraw(f, v)
	}
	// An id of digits alone (written as a JSON number, or typed so) gets
	// a stand-in of digits alone: a letter there could not be written in
	// a number, and written as one it took the original's digit.
	for range 64 {
		if s := taxIDDraw(f, v); allDigits(s) {
			return s
		}
	}
	return sameShape(f, v, false)
}

// taxIDDraw is taxID's draw: a unified social credit code's body of
// digits where v's is, an old number or an identity card otherwise.
func taxIDDraw(f *fake.Faker, v string) string {
	switch {
	case len(v) == 18 && (taxid.ValidResidentID(v) || residentIDLike(v) && !taxid.ValidUSCC(v)):
		return idCardStandIn(f)
	case len(v) == 20 && (taxid.ValidResidentID(v[:18]) || residentIDLike(v[:18])) && allDigits(v[18:]):
		return idCardStandIn(f) + sameShape(f, v[18:], false)
	}
	u := []byte(f.USCC())
	switch {
	case len(v) == 18 && usccChars(v):
		u[0], u[1] = v[0], v[1]
		if allDigits(v[8:16]) && !allDigits(string(u[8:16])) {
			// A pre-2015 firm's numeric organisation code stays one.
			copy(u[8:16], sameShape(f, "50000000", false))
			u[8] = '5' + byte(f.Rand().IntN(3))
			u[16], _ = taxid.OrgCodeCheck(string(u[8:16]))
		}
		u[17], _ = taxid.USCCCheck(string(u[:17]))
		return string(u)
	case len(v) == 15 && allDigits(v):
		b := append(u[2:8:8], sameShape(f, "00000000", false)...)
		c, _ := taxid.OrgCodeCheck(string(b[6:14]))
		return string(append(b, c))
	}
	return sameShape(f, v, true)
}

func usccChars(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; !(c >= '0' && c <= '9') && !(c >= 'A' && c <= 'Y' && c != 'I' && c != 'O' && c != 'S' && c != 'V') {
			return false
		}
	}
	return true
}

func allDigits(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// mobileStandIn draws a mainland mobile number (1, then 3 to 9, then nine
// digits).
func mobileStandIn(f *fake.Faker) string {
	r := f.Rand()
	b := []byte{'1', byte('3' + r.IntN(7))}
	for range 9 {
		b = append(b, digits[r.IntN(10)])
	}
	return string(b)
}

// idCardStandIn draws a resident identity card number (GB 11643): a real
// district's address code (a validator refuses a number whose first digits
// are no province's), a birth date between 1950 and 2005, a sequence and
// its check character.
func idCardStandIn(f *fake.Faker) string {
	r := f.Rand()
	b := fmt.Appendf(nil, "%s%04d%02d%02d%03d", f.District(),
		1950+r.IntN(56), 1+r.IntN(12), 1+r.IntN(28), r.IntN(1000))
	c, _ := taxid.ResidentIDCheck(b) // 17 digits drawn just above
	return string(append(b, c))
}

// addressStandIn replaces an IP address (with its port, if any) by one of
// the documentation ranges (RFC 5737, RFC 3849), which route nowhere.
func addressStandIn(f *fake.Faker, v string) string {
	r := f.Rand()
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		host, port = v, ""
	}
	var s string
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		s = fmt.Sprintf("2001:db8::%x:%x", r.IntN(0x10000), r.IntN(0x10000))
	} else {
		s = fmt.Sprintf("%s.%d", [...]string{"192.0.2", "198.51.100", "203.0.113"}[r.IntN(3)], 1+r.IntN(254))
	}
	if port == "" {
		return s
	}
	return net.JoinHostPort(s, strconv.Itoa(1024+r.IntN(64512)))
}
