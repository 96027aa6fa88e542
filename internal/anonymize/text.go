package anonymize

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/taxid"
)

// pass is one traversal of a payload or record: anonymizing (check false),
// or scanning the output for what survived (check true) by the same rules,
// so that --check holds every part to exactly what anonymizing covers.
type pass struct {
	a     *anonymizer
	ctx   context.Context
	check bool
	// learn is the first reading of the input (Stream), which only fills
	// the dictionary: the text between the identifiers found by a label
	// or a form of their own is not searched for what the dictionary
	// holds already.
	learn  bool
	line   int
	counts Report // the spans replaced inside text, by class
	leaks  []Leak
	seen   map[string]bool // leaks already reported on this line
	ticks  int
	// obj is what the object holding the value labelled reads says of
	// it (objKind): set around that call only.
	obj objKind
	// prefix starts the paths of a JSON document read from a string
	// (nested), depth counts how deep such documents are.
	prefix []byte
	depth  int
}

// stop carries an error out of a traversal to its recover: a cancelled
// context, or a body that cannot be searched (base64Decoded).
type stop struct{ err error }

// tick checks the context every so many steps of work: a single document
// of hundreds of megabytes must stop on Ctrl-C as a stream of records does.
func (p *pass) tick(n int) {
	p.a.work += n
	if p.ticks += n; p.ticks < 1<<16 {
		return
	}
	p.ticks = 0
	if err := p.ctx.Err(); err != nil {
		panic(stop{err})
	}
}

// recoverStop turns a stop into the error it carries.
func recoverStop(err *error) {
	if r := recover(); r != nil {
		s, ok := r.(stop)
		if !ok {
			panic(r)
		}
		*err = s.err
	}
}

// text returns s with every identifier in it replaced: each value the run
// replaced elsewhere (the dictionary) and each span that looks like a tax
// id, a mobile number or an identity-card number. In a check it returns s
// and records what it would have replaced as leaks. Stand-ins are left as
// they are.
func (p *pass) text(s string) string {
	d := p.a.r.dict
	if searchable(s, false) { // a whole value the run replaced: a long one, a remark
		if e := d.m[s]; e != nil && e.orig && searchable(s, e.digits) && !(p.check && e.stand) {
			if p.check {
				p.leak(string(e.class)+" (replaced elsewhere)", s)
				return s
			}
			p.counts[Echo]++
			return e.new
		}
	}
	if t, ok := p.base64Text(s); ok {
		return t
	}
	if t, ok := p.charRefs(s, p.text); ok {
		return t
	}
	// The identifiers found by their written form claim their spans first,
	// and only the text between them is searched further: their digits,
	// or their stand-ins', are never read as part of another identifier
	// (a landline's and the next group's as a tax id of digits, an
	// account's stand-in's first eleven as a mobile).
	return p.jsonMembers(s, func(s string) string {
		return p.xmlElements(s, func(s string) string { return p.freeText(s) })
	})
}

// freeText is text for what lies outside the elements of XML (xmlelem.go).
func (p *pass) freeText(s string) string {
	return p.urlParams(s, func(s string) string {
		return p.landlines(s, func(s string) string {
			return p.accounts(s, func(s string) string {
				return p.streetAddresses(s, func(s string) string {
					return p.placesWithoutDoor(s, func(s string) string {
						return p.labelledAddresses(s, func(s string) string {
							return p.companyNames(s, func(s string) string {
								return p.hanNames(s, func(s string) string {
									return p.labelledNumbers(s, func(s string) string {
										return p.docNumbers(s, func(s string) string {
											return p.chatIDs(s, func(s string) string {
												return p.pinyinNames(s, p.between)
											})
										})
									})
								})
							})
						})
					})
				})
			})
		})
	})
}

// between searches the text between the identifiers found by their written
// form (see text).
func (p *pass) between(s string) string {
	if p.learn {
		return s
	}
	d := p.a.r.dict
	// Identifiers written full-width or in groups first; in a check they
	// are blanked out of what the byte-wise search below looks at.
	orig := s
	s = p.variants(s)
	s = p.emails(s)
	var b []byte // nil until something changes
	grow := func(i int) {
		if b == nil {
			b = make([]byte, 0, len(s)+16)
			b = append(b, s[:i]...)
		}
	}
	runEnd := 0
	for i := 0; i < len(s); {
		p.tick(1)
		if n, e := d.match(s, i, &p.a.work); n > 0 {
			switch {
			case p.check && e.orig && !e.stand:
				p.leak(string(e.class)+" (replaced elsewhere)", s[i:i+n])
			case !p.check && e.orig:
				grow(i)
				b = append(b, e.new...)
				p.counts[Echo]++
				i += n
				continue
			}
			if b != nil {
				b = append(b, s[i:i+n]...)
			}
			i += n
			runEnd = max(runEnd, i)
			continue
		}
		if i >= runEnd {
			if j, e := d.tokenAt(s, i); e != nil {
				p.tick(j - i)
				switch {
				case p.check && !e.stand:
					p.leak(string(e.class)+" (replaced elsewhere)", s[i:j])
				case !p.check:
					grow(i)
					b = append(b, e.new...)
					p.counts[Echo]++
					i = j
					continue
				}
			}
		}
		if i >= runEnd && (i == 0 || !wordChar(s[i-1])) {
			if j, e := d.otherCaseAt(s, i); e != nil {
				p.tick(j - i)
				switch {
				case p.check:
					p.leak(string(e.class)+" (replaced elsewhere)", s[i:j])
				default:
					grow(i)
					b = append(b, caseLike(s[i:j], e.new)...)
					p.counts[Echo]++
					i, runEnd = j, j
					continue
				}
			}
		}
		if i >= runEnd && runChar(s[i]) && (i == 0 || !runChar(s[i-1])) {
			j := i
			for j < len(s) && runChar(s[j]) {
				j++
			}
			p.tick(j - i)
			runEnd = j
			// A run glued to lower-case letters is part of a longer word (a
			// uuid, a hash), not an identifier of its own.
			word := i > 0 && isLower(s[i-1]) || j < len(s) && isLower(s[j])
			// A mobile written with the country code (+86, 0086 and 86
			// glued to it) keeps the code, and the number is replaced.
			pre := 0
			if run := s[i:j]; len(run) == 13 && run[:2] == "86" && identifierClass(run[2:]) == mobile {
				pre = 2
			}
			// An identity card or tax id written in lower case (…002x) is
			// one when its check character holds.
			if k := i + 18; word && k <= len(s) && alnum(s[i:k]) && (k == len(s) || !wordChar(s[k])) && (i == 0 || !wordChar(s[i-1])) {
				if up := strings.ToUpper(s[i:k]); taxid.ValidResidentID(up) || residentIDLike(up) || taxid.ValidUSCC(up) || d.isOriginal(up) {
					j, runEnd, word = k, k, false
				}
			}
			// A mobile written in groups (138-1234-5678, 138 1234 5678)
			// keeps its separators.
			if k := i + 13; !word && j-i == 3 && k <= len(s) && (k == len(s) || !wordChar(s[k])) {
				if m := s[i:k]; (m[3] == '-' || m[3] == ' ') && m[8] == m[3] && allDigits(m[4:8]) && allDigits(m[9:]) {
					if digits := m[:3] + m[4:8] + m[9:]; identifierClass(digits) == mobile && !d.isStandIn(digits) && (p.check || len(p.a.r.Replace(mobile, digits)) == 11) {
						if p.check {
							p.leak(string(mobile), m)
						} else {
							st := p.a.r.Replace(mobile, digits)
							grow(i)
							b = append(b, st[:3]+m[3:4]+st[3:7]+m[8:9]+st[7:]...)
							p.counts[mobile]++
							i, runEnd = k, k
							continue
						}
					}
				}
			}
			// A stand-in written in lower case (caseLike) is one too.
			if run := s[i+pre : j]; !word && !d.isStandIn(run) && !d.isStandIn(strings.ToUpper(run)) {
				if c := identifierClass(strings.ToUpper(run)); c != "" {
					if pre > 0 {
						grow(i)
						b = append(b, s[i:i+pre]...)
						i += pre
					}
					orig := run
					run = strings.ToUpper(run)
					if p.check {
						p.leak(string(c), run)
					} else {
						grow(i)
						b = append(b, caseLike(orig, p.a.r.Replace(c, run))...)
						p.counts[c]++
						i = j
						continue
					}
				}
			}
		}
		// On to the next character: an entry starts on one (a lead byte),
		// never inside a character of CJK.
		n := 1
		for i+n < len(s) && n < 4 && s[i] >= 0xC0 && s[i+n]&0xC0 == 0x80 {
			n++
		}
		if b != nil {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	switch {
	case p.check:
		return orig
	case b == nil:
		return s
	}
	return string(b)
}

// number returns the stand-in of a JSON number outside the identifying
// fields that is, as a whole, a code the run replaced or a mobile or
// identity-card number; any other number (an amount, a rate, a time) is
// kept, digit for digit.
//
// Under a field named for a measure (amount, qty, price, total, 金额,
// 数量: measureKey) a number shaped like a mobile is the measure it is
// named for (13800000000 cents, a count): only a value the run replaced
// elsewhere is replaced there.
func (p *pass) number(name, v string) string {
	d := p.a.r.dict
	measure := measureKey(name)
	if !allDigits(v) {
		if measure {
			return v
		}
		return p.mobileNumber(v)
	}
	if d.isStandIn(v) {
		return v
	}
	if e := d.m[v]; e != nil && e.orig && len(v) >= minDigitsEcho {
		if p.check {
			p.leak(string(e.class)+" (replaced elsewhere)", v)
			return v
		}
		// A mobile met as a number in the first reading is counted as
		// the mobile it is, not as an echo of itself.
		if c := identifierClass(v); c == e.class {
			p.counts[c]++
		} else {
			p.counts[Echo]++
		}
		return p.a.numberStandIn(v, e.new)
	}
	if measure {
		return v
	}
	if c := identifierClass(v); c != "" {
		if p.check {
			p.leak(string(c), v)
			return v
		}
		p.counts[c]++
		return p.a.numberStandIn(v, p.a.r.Replace(c, v))
	}
	// A mobile with its country code glued to it (8613812345678), as
	// text writes it: the code is kept, the number is the mobile's.
	if len(v) == 13 && v[:2] == "86" && identifierClass(v[2:]) == mobile && !d.isStandIn(v[2:]) {
		if p.check {
			p.leak(string(mobile), v)
			return v
		}
		if s := p.a.r.Replace(mobile, v[2:]); len(s) == 11 {
			p.counts[mobile]++
			return v[:2] + s
		}
	}
	return v
}

// mobileNumber returns the stand-in of a JSON number with a fraction or
// an exponent whose value is a mobile (1.3812345678E10, 13812345678.0: a
// sender that keeps phones as doubles), written in the same form: its
// digits are the stand-in's, its point and exponent where they were (a
// fraction longer where the original had trailing zeros the exponent
// filled in: 1.38123456E10 is 13812345600). Any other number is kept.
func (p *pass) mobileNumber(v string) string {
	intPart, frac, exp, ok := splitNumber(v)
	if !ok {
		return v
	}
	m, shift, ok := integerValue(intPart+frac, len(frac), exp)
	if !ok || identifierClass(m) != mobile || p.a.r.dict.isStandIn(m) {
		return v
	}
	if p.check {
		p.leak(string(mobile), v)
		return v
	}
	s := p.a.r.Replace(mobile, m)
	if len(s) != len(m) {
		return v
	}
	lead := len(intPart+frac) - len(strings.TrimLeft(intPart+frac, "0"))
	digits := (intPart + frac)[:lead] + s + strings.Repeat("0", max(0, -shift))
	if len(intPart) > len(digits) {
		return v
	}
	n := digits[:len(intPart)]
	if rest := digits[len(intPart):]; rest != "" || strings.Contains(v, ".") {
		n += "." + rest
	}
	p.counts[mobile]++
	return n + v[len(v)-len(exp):]
}

// splitNumber splits a JSON number without a sign into its integer
// digits, its fraction's digits and its exponent as written (e+10, E10,
// ""); ok is false for a negative number.
func splitNumber(v string) (intPart, frac, exp string, ok bool) {
	if v == "" || v[0] == '-' {
		return "", "", "", false
	}
	if i := strings.IndexAny(v, "eE"); i >= 0 {
		v, exp = v[:i], v[i:]
	}
	intPart, frac, _ = strings.Cut(v, ".")
	return intPart, frac, exp, allDigits(intPart) && allDigits(frac)
}

// integerValue returns the digits of the integer a number's digits d with
// fracLen of them after the point and the exponent exp stand for (no
// leading zeros), and how many zeros the exponent adds (negative: how many
// of d's last digits are zeros after the point); ok is false when it is
// no integer, or longer than any identifier.
func integerValue(d string, fracLen int, exp string) (string, int, bool) {
	e := 0
	if exp != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(exp[1:], "+"))
		if err != nil || n > 40 || n < -40 {
			return "", 0, false
		}
		e = n
	}
	shift := e - fracLen
	if shift >= 0 {
		d += strings.Repeat("0", shift)
	} else {
		if -shift > len(d) || strings.TrimLeft(d[len(d)+shift:], "0") != "" {
			return "", 0, false
		}
		d = d[:len(d)+shift]
	}
	d = strings.TrimLeft(d, "0")
	return d, shift, d != "" && len(d) <= 30
}

func (p *pass) leak(kind, text string) {
	k := kind + "\x00" + text
	if p.seen[k] {
		return
	}
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	p.seen[k] = true
	p.leaks = append(p.leaks, Leak{Line: p.line, Kind: kind, Text: mask(text)})
}

// newLine starts the leaks of another line (each line reports a leak once).
func (p *pass) newLine(n int) {
	if n != p.line {
		p.line, p.seen = n, nil
	}
}

// escaped is text that may be percent-encoded (a path, a query's names and
// values, a header): it is searched as it stands and decoded, and written
// encoded again where the decoded form changed.
//
// Only the runs that changed are encoded again: a run is what lies between
// two delimiters written as they are (a "/", "?", "&", ";", a space...),
// and a value percent-encoded has its own delimiters encoded, so it lies
// within one. Encoding the whole again would encode the delimiters too: a
// Referer http://erp/doc?name=%E4%B8%8A... would come out
// http:%2F%2Ferp%2Fdoc%3Fname=..., a URL no more, and a header's
// "; filename*=" would be lost in the same way. A value that spans a
// delimiter as it stands (a remark with a space in it) is still found in
// the whole, decoded, and that whole is then encoded again.
func (p *pass) escaped(s string, query bool) string {
	t := p.gbText(s)
	if !strings.Contains(t, "%") && !(query && strings.Contains(t, "+")) {
		return t
	}
	unescape, escape := url.PathUnescape, url.PathEscape
	respell := func(_, escaped string) string { return escaped } // PathEscape writes a space %20, and keeps +
	if query {
		unescape, escape, respell = url.QueryUnescape, url.QueryEscape, spacesLike
	}
	var b strings.Builder
	for start := 0; start < len(t); {
		end := start
		for end < len(t) && !escapeDelimiter(t[end], query) {
			end++
		}
		run := t[start:end]
		if strings.Contains(run, "%") || query && strings.Contains(run, "+") {
			if d, err := unescape(run); err == nil && d != run {
				if nd := p.gbText(d); nd != d {
					run = respell(run, escape(nd))
				}
			}
		}
		b.WriteString(run)
		if end < len(t) {
			b.WriteByte(t[end])
		}
		start = end + 1
	}
	out := b.String()
	d, err := unescape(out)
	if err != nil || d == out {
		return out
	}
	// Stand-ins are left as they are, so what the runs replaced is not
	// counted twice.
	if nd := p.gbText(d); nd != d {
		return respell(t, escape(nd))
	}
	// Encoded twice (a URL's parameter that was itself encoded, %25E7%258E
	// for %E7%8E), the text decoded once is still encoded: it is searched
	// so too, a few levels deep (each a pass over it).
	if strings.Contains(d, "%") && p.depth < maxNested {
		p.depth++
		nd := p.escaped(d, query)
		p.depth--
		if nd != d {
			return respell(t, escape(nd))
		}
	}
	return out
}

// spacesLike is escaped, a value url.QueryEscape wrote again, with its
// spaces spelt as orig, the value as it came, spelt them: %20 where it
// wrote %20 and no +. QueryEscape writes a space +, and a + of the text
// %2B, so each + of escaped is a space. Only the bytes the run replaced
// are to change.
func spacesLike(orig, escaped string) string {
	if strings.Contains(orig, "%20") && !strings.Contains(orig, "+") {
		return strings.ReplaceAll(escaped, "+", "%20")
	}
	return escaped
}

// escapeDelimiter reports whether c, written as it stands in
// percent-encoded text, ends a run: an ASCII byte that is not a letter, a
// digit, one of "-._~" or "%" (nor "+", a space, in a query).
func escapeDelimiter(c byte, query bool) bool {
	switch {
	case c >= 0x80, wordChar(c), c == '%', strings.IndexByte("-._~", c) >= 0:
		return false
	case c == '+':
		return !query
	}
	return true
}

// gbText is text for a string that may be GBK or GB18030 rather than
// UTF-8 (a header's raw bytes, a query value percent-encoded from GBK, as
// a GBK sender writes them): decoded, searched, and encoded back (see
// gb.go).
func (p *pass) gbText(s string) string {
	u, ok := gbText([]byte(s), "")
	if !ok {
		return p.text(s)
	}
	if nu := p.text(string(u)); nu != string(u) {
		return string(gbEncode([]byte(nu), u, []byte(s)))
	}
	return s
}

// str anonymizes a string of a JSON body: as a URL when it holds a query
// or a scheme (its parts decoded and encoded again as URLs are), else as
// text that may be percent-encoded.
func (p *pass) str(s string) string {
	if strings.Contains(s, "%") && (strings.Contains(s, "?") || strings.Contains(s, "://")) {
		return p.url(s)
	}
	if strings.Contains(s, "%") && strings.Contains(s, "/") {
		return p.path(s)
	}
	return p.escaped(s, false)
}

// query anonymizes each name and value of a raw query, keeping the bytes
// of those that name nobody.
func (p *pass) query(q string) string {
	if q == "" {
		return q
	}
	// Split at "&" first, a body of XML would lose its references: &#24352;
	// read as the parameter #24352;.
	if t, ok := p.charRefs(q, p.query); ok {
		return t
	}
	parts := strings.Split(q, "&")
	changed := false
	for i, kv := range parts {
		k, v, eq := strings.Cut(kv, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		nk, nv := p.escaped(k, true), p.labelledParam(name, v)
		if nk != k || nv != v {
			changed = true
			if parts[i] = nk; eq {
				parts[i] += "=" + nv
			}
		}
	}
	if !changed {
		return q
	}
	return strings.Join(parts, "&")
}

// labelledParam is labelled for a query parameter's raw value v. Under a
// name that labels an address, an account or a person, the value is
// labelled as it reads decoded: a query writes an address (杭州市文三路), a
// name (张伟) and an account in groups (1001+2345+…) percent-encoded, which
// no label reads as one. What changed is encoded again as a whole.
func (p *pass) labelledParam(name, v string) string {
	rest := func(v string) string { return p.escaped(v, true) }
	if !p.a.labelsParam(name) || !strings.ContainsAny(v, "%+") {
		return p.labelled(name, v, rest)
	}
	d, err := url.QueryUnescape(v)
	if err != nil || d == v {
		return p.labelled(name, v, rest)
	}
	if nd := p.labelled(name, d, p.gbText); nd != d {
		return spacesLike(v, url.QueryEscape(nd))
	}
	return v
}

// path anonymizes a URL path (decoded, as listen stores it) segment by
// segment.
func (p *pass) path(s string) string {
	segs := strings.Split(s, "/")
	changed := false
	for i, seg := range segs {
		if n := p.escaped(seg, false); n != seg {
			segs[i], changed = n, true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(segs, "/")
}

// message anonymizes a text listen wrote that may quote URLs, as Go's
// errors do (Post "http://host/h?tax=...": connection refused): each URL
// in it as a URL (its query decoded, so a percent-encoded name is found),
// the rest as text.
func (p *pass) message(s string) string {
	if !strings.Contains(s, "://") {
		return p.text(s)
	}
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "http://")
		if j := strings.Index(rest, "https://"); j >= 0 && (i < 0 || j < i) {
			i = j
		}
		if i < 0 {
			b.WriteString(p.text(rest))
			return b.String()
		}
		b.WriteString(p.text(rest[:i]))
		n := strings.IndexAny(rest[i:], "\" \t\n<>")
		if n < 0 {
			n = len(rest) - i
		}
		b.WriteString(p.url(rest[i : i+n]))
		rest = rest[i+n:]
	}
}

// url anonymizes a URL's host, path, query and fragment, and masks a
// password in it.
func (p *pass) url(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return p.escaped(s, false)
	}
	changed := false
	if h := p.text(u.Host); h != u.Host {
		u.Host, changed = h, true
	}
	if np := p.path(u.Path); np != u.Path {
		u.Path, u.RawPath, changed = np, "", true
	}
	if nq := p.query(u.RawQuery); nq != u.RawQuery {
		u.RawQuery, changed = nq, true
	}
	if nf := p.text(u.Fragment); nf != u.Fragment {
		u.Fragment, u.RawFragment, changed = nf, "", true
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "xxxxx" && !p.check {
			u.User, changed = url.UserPassword(p.text(u.User.Username()), "xxxxx"), true
		} else if n := p.text(u.User.Username()); n != u.User.Username() {
			u.User, changed = url.User(n), true
		}
	}
	if !changed {
		return s
	}
	return u.String()
}

// remote replaces a remote address that is not the loopback (which names
// nobody) with one of the documentation ranges; the host alone joins the
// dictionary, so a proxy's X-Forwarded-For naming it is replaced too.
func (p *pass) remote(s string) string {
	host, _, err := net.SplitHostPort(s)
	if err != nil {
		host = s
	}
	if ip := net.ParseIP(host); s == "" || ip != nil && ip.IsLoopback() {
		return s
	}
	d := p.a.r.dict
	if p.check {
		if !d.isStandIn(s) {
			p.leak(string(Address), s)
		}
		return s
	}
	if host != s {
		p.a.r.Replace(Address, host)
	}
	p.counts[Address]++
	return p.a.r.Replace(Address, s)
}

func alnum(s string) bool {
	for i := 0; i < len(s); i++ {
		if !wordChar(s[i]) {
			return false
		}
	}
	return true
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// addresses replaces each IP address (not the loopback) of a proxy's
// header (X-Forwarded-For: 58.246.1.9, 10.0.0.2; Forwarded: for="[2001:db8::1]:80")
// with a stand-in of the documentation ranges.
func (p *pass) addresses(v string) string {
	var b strings.Builder
	changed := false
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && !strings.ContainsRune(", ;=\"", rune(v[j])) {
			j++
		}
		tok := v[i:j]
		host := strings.TrimSuffix(strings.TrimPrefix(tok, "["), "]")
		if h, _, err := net.SplitHostPort(tok); err == nil {
			host = h
		}
		if ip := net.ParseIP(host); ip != nil && !ip.IsLoopback() && !p.a.r.dict.isStandIn(host) {
			if p.check {
				p.leak(string(Address), host)
			} else {
				tok = strings.Replace(tok, host, p.a.r.Replace(Address, host), 1)
				p.counts[Address]++
				changed = true
			}
		}
		b.WriteString(tok)
		if j < len(v) {
			b.WriteByte(v[j])
			j++
		}
		i = j
	}
	if !changed {
		return v
	}
	return b.String()
}

// measureSuffixes end the names of fields that hold a measure, folded to
// lower case without "_", "-" and spaces: an amount, a quantity, a price,
// a count, a time.
var measureSuffixes = [...]string{"amount", "amt", "qty", "quantity", "price", "total", "sum", "balance", "fee", "count", "weight",
	"time", "date", "timestamp", "ts", "金额", "数量", "单价", "价格", "总额", "合计", "余额", "费用", "重量", "时间", "日期", "本位币"}

// measureKey reports whether name, a field's, ends with one of
// measureSuffixes (a word of its own for the ASCII ones: totalAmount,
// item_qty, createTime; not ts in contacts).
func measureKey(name string) bool {
	if name == "" {
		return false
	}
	if name[len(name)-1] >= utf8.RuneSelf {
		for _, l := range measureSuffixes {
			if l[0] >= utf8.RuneSelf && strings.HasSuffix(name, l) {
				return true
			}
		}
		return false
	}
	k := foldKey(name)
	for _, l := range measureSuffixes {
		if l[0] < utf8.RuneSelf && k.endsWithWord(l) {
			return true
		}
	}
	return false
}
