package validate

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/spec"
)

// The walk over the spec model: the lexer reads the body's tokens, and the
// walk checks each value against the index node that describes it.

// seg is one step of the current path: a key, or an array index (idx >= 0).
type seg struct {
	key jsonlex.Key
	idx int
}

// checker is the state of one Check; pooled.
type checker struct {
	v    *Validator
	lx   jsonlex.Lexer
	body []byte // a capture record's body, unescaped (checkCapture)
	raw  []rawFinding
	// notJSON is where the body stops being JSON, and why, when it is
	// not checked for it (json-syntax ignored): see Validator.checkBody.
	notJSON syntaxAt
	// member is the data member whose value the scan is in, -1 outside
	// them; emit tags findings with it.
	member int8
	path   []seg
	keys   []jsonlex.Key
	dups   map[dupKey]struct{} // keys of objects with many (see dupScan)

	// envelope facts
	numberState int // 0 missing, 1 invalid, 2 valid
	number      int
	numberOff   int
	// quotedNumber is a body number of the interface written as a string
	// ("5009"), 0 when businessType is none: post says when the event
	// wants another, in the finding of the string.
	quotedNumber int
	dataOff      int // -1: data is not an object
	// data facts
	dataSeen, dataNull uint64
	dataMemberOff      [64]int32
	statusVariant      int // 0 absent, 1 described (string), 2 sample (integer)

	cur  record
	recs [maxRecords][]record // by the ledger's record kind
}

func (c *checker) reset(b []byte) {
	c.lx.Reset(b)
	c.raw, c.path, c.keys = c.raw[:0], c.path[:0], c.keys[:0]
	c.notJSON = syntaxAt{}
	c.member = -1
	clear(c.dups) // a syntax error leaves them
	c.numberState, c.number, c.numberOff, c.dataOff, c.quotedNumber = 0, 0, 0, -1, 0
	c.dataSeen, c.dataNull, c.statusVariant = 0, 0, 0
	for i := range c.recs {
		c.recs[i] = c.recs[i][:0]
	}
}

func (c *checker) run(event string) {
	if !c.v.detailedOnly && c.quick() {
		c.loneHalf()
		c.post(event)
		return
	}
	c.rewind()
	err := c.lx.Run(func() {
		c.lx.Begin()
		c.envelope()
		c.lx.End()
	})
	if err != nil {
		// A body that is not JSON gets that one finding: anything found
		// before the break is noise.
		c.raw = c.raw[:0]
		if c.v.ignored[rSyntax] {
			// Dropping the finding does not make the body checked: no
			// other rule can read it.
			lc := jsonlex.LineCounter{B: c.lx.Bytes()}
			line, col := lc.At(err.Offset)
			c.notJSON = syntaxAt{place{line, col}, err.Msg}
			return
		}
		c.raw = append(c.raw, rawFinding{rule: rSyntax, off: err.Offset, msg: err.Msg, member: -1})
		return
	}
	c.loneHalf()
	c.post(event)
}

// loneHalf is the finding of the body's first lone surrogate escape, which
// the lexer notes as it reads every string (jsonlex's LoneSurrogate): one
// a body, where it is, for the receivers that part ways on it.
func (c *checker) loneHalf() {
	off, ok := c.lx.LoneSurrogate()
	if !ok {
		return
	}
	c.emitAt(rLoneHalf, off, "", "%s is half of a UTF-16 surrogate pair, with no other half: Go's encoding/json reads U+FFFD, JavaScript keeps the half, and PostgreSQL's jsonb refuses the body",
		c.lx.Bytes()[off:off+6])
}

// emit records a finding at offset off; key, when not "", is appended to
// the current path.
func (c *checker) emit(r ruleID, off int, key string, format string, args ...any) {
	if c.v.ignored[r] {
		return
	}
	msg := format
	if len(args) > 0 {
		for i, a := range args {
			// Values of the body are the []byte arguments.
			if b, ok := a.([]byte); ok {
				args[i] = shorten(b)
			}
		}
		msg = fmt.Sprintf(format, args...)
	}
	c.raw = append(c.raw, rawFinding{rule: r, off: off, path: c.pathString(key), msg: msg, member: c.member})
}

// shownBytes is the most of a value of the body a message quotes: a
// finding is one line, which a megabyte string would otherwise be.
const shownBytes = 100

// shorten cuts b to at most shownBytes, on a character boundary, and ends
// what it cut in "…".
func shorten(b []byte) []byte {
	if len(b) <= shownBytes {
		return b
	}
	n := shownBytes
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return append(b[:n:n], "…"...)
}

// skip reads a value the model does not describe; its objects are still
// walked for duplicate keys.
func (c *checker) skip(k jsonlex.Kind) {
	switch k {
	case jsonlex.Object:
		c.object(nil, -1)
	case jsonlex.Array:
		c.array(nil)
	default:
		c.lx.Skip(k)
	}
}

// value scans a value the model describes as n (nil: not described).
func (c *checker) value(n *node, k jsonlex.Kind) {
	if n == nil {
		c.skip(k)
		return
	}
	switch k {
	case jsonlex.Object:
		c.object(n, -1)
	case jsonlex.Array:
		c.array(n)
	case jsonlex.String:
		s, e, esc := c.lx.Str()
		c.checkString(n, s, e, esc)
	case jsonlex.Number:
		s, e, integral, neg := c.lx.Num()
		c.checkNumber(n, s, e, integral, neg)
	default:
		c.lx.Lit(k)
	}
}

// fits says whether a value of kind k has n's JSON type (integer-ness is
// checked on the number itself).
func fits(n *node, k jsonlex.Kind) bool {
	switch n.typ {
	case spec.Object:
		return k == jsonlex.Object
	case spec.Array:
		return k == jsonlex.Array
	case spec.String:
		return k == jsonlex.String
	case spec.Number, spec.Integer:
		return k == jsonlex.Number
	case spec.Boolean:
		return k == jsonlex.Bool
	}
	return true
}

// kindCame reads the value of kind k and names what it is: its kind, and
// of a number whether it is an integer.
func (c *checker) kindCame(k jsonlex.Kind) string {
	if k != jsonlex.Number {
		c.skip(k)
		return k.String()
	}
	if _, _, integral, _ := c.lx.Num(); integral {
		return "integer"
	}
	return "number"
}

func (c *checker) typeError(n *node, k jsonlex.Kind, key string) {
	if k == jsonlex.Number && n.numbers != nil {
		b := c.lx.Bytes()[c.lx.Pos():]
		d := 0
		for d < len(b) && b[d] >= '0' && b[d] <= '9' {
			d++
		}
		if d == len(b) || b[d] != '.' && b[d]|0x20 != 'e' {
			if hint := n.standsFor(b[:d]); hint != "" {
				c.emit(rType, c.lx.Pos(), key, "want %s, got the number %s%s", typeName(n), b[:d], hint)
				return
			}
		}
	}
	c.emit(rType, c.lx.Pos(), key, "want %s, got %s", typeName(n), k)
}

// standsFor says, of a field whose values stand for numbers (createType:
// SALE_ORDER (0) … PURCHASE_RETURN (5)), which value the digits v stand
// for, as the end of a finding on a body that sends the number for the
// name; "" when v is no such number.
func (n *node) standsFor(v []byte) string {
	if len(v) == 0 || len(v) > 4 {
		return ""
	}
	x := 0
	for _, ch := range v {
		if ch < '0' || ch > '9' {
			return ""
		}
		x = x*10 + int(ch-'0')
	}
	for i, num := range n.numbers {
		if num == x {
			return fmt.Sprintf(" (%s stands for %d in the spec: the field carries the name)", n.values[i], x)
		}
	}
	return ""
}

func typeName(n *node) string {
	switch {
	case n.typ == spec.Array && n.elem != nil && n.elem.typ == spec.Object:
		return "an array of objects"
	case n.typ == spec.Object && n.free && n.elem != nil:
		return "an object of " + string(n.elem.typ) + "s"
	case n.typ == spec.Integer && n.format == spec.UnixMillis:
		return "integer (milliseconds since the Unix epoch)"
	}
	return string(n.typ)
}

// dupScan is how many unknown or free keys an object's new key is compared
// with one by one; past it they are looked up in a map, or a body of many
// keys would cost time quadratic in their number (50,000 keys took 5 s).
const dupScan = 32

// dupKey is a key of the object whose keys start at base on c.keys.
type dupKey struct {
	base int
	key  string
}

// dupFree checks an unknown or free key against the object's other such
// keys (kept on c.keys from base) and records it.
func (c *checker) dupFree(base int, ref jsonlex.Key, kb []byte, off int) {
	if c.dupOf(base, ref, kb) {
		c.emit(rDuplicateKey, off, "", "duplicate key %q: a receiver's JSON library may keep either value", kb)
	}
}

// dupOf says whether kb is a key of the object whose keys start at base on
// c.keys, and records it when it is not.
func (c *checker) dupOf(base int, ref jsonlex.Key, kb []byte) bool {
	dup := false
	switch n := len(c.keys) - base; {
	case n < dupScan:
		for _, o := range c.keys[base:] {
			if string(c.lx.KeyBytes(o)) == string(kb) {
				dup = true
				break
			}
		}
	default:
		if c.dups == nil {
			c.dups = map[dupKey]struct{}{}
		}
		if n == dupScan {
			for _, o := range c.keys[base:] {
				c.dups[dupKey{base, string(c.lx.KeyBytes(o))}] = struct{}{}
			}
		}
		k := dupKey{base, string(kb)}
		_, dup = c.dups[k]
		c.dups[k] = struct{}{}
	}
	if !dup {
		c.keys = append(c.keys, ref)
	}
	return dup
}

// dropKeys forgets the keys of the object whose keys start at base.
func (c *checker) dropKeys(base int) {
	if len(c.keys)-base >= dupScan {
		for _, o := range c.keys[base:] {
			delete(c.dups, dupKey{base, string(c.lx.KeyBytes(o))})
		}
	}
	c.keys = c.keys[:base]
}

// object scans an object described by n (nil: not described). idx is the
// array index of the element it is, or -1.
// keyInPlace reads the next key when it is the member a body lists next,
// compared in place (jsonlex's KeyIs), which then needs neither reading
// as a string nor looking up: the same key, read faster. Bodies list their
// members in the model's order, mostly; next is the member after the last
// one found, and a sample invoice's data, which lists the described
// shape's members first, also tries the one after it in the sample shape's
// model. m is nil, and nothing read, when the key is neither.
func (c *checker) keyInPlace(n *node, next int) (ref jsonlex.Key, i int, m *member) {
	if n == nil || n.free || c.v.keysByRead {
		return ref, 0, nil
	}
	if next < len(n.members) && n.members[next].plain {
		if r, ok := c.lx.KeyIs(n.members[next].name); ok {
			return r, next, n.members[next]
		}
	}
	return c.keySampleNext(n, next)
}

// keySampleNext is keyInPlace's second guess, in a sample invoice's data:
// the member after the last one found in the sample shape's model.
func (c *checker) keySampleNext(n *node, next int) (ref jsonlex.Key, i int, m *member) {
	if n.data && next > 0 {
		if j := int(n.members[next-1].sampleNext); j >= 0 && j != next && n.members[j].plain {
			if r, ok := c.lx.KeyIs(n.members[j].name); ok {
				return r, j, n.members[j]
			}
		}
	}
	return ref, 0, nil
}

func (c *checker) object(n *node, idx int) {
	start := c.lx.Pos()
	base := len(c.keys)
	var seen, nulls uint64
	next := 0 // the member after the last one found
	if n != nil && n.record >= 0 {
		c.cur = record{idx: idx}
	}
	if c.lx.Enter() {
		for first := true; ; first = false {
			keyOff := c.lx.Pos()
			ref, i, m := c.keyInPlace(n, next)
			if m == nil {
				ref = c.lx.Key(first)
			}
			kb := c.lx.KeyBytes(ref)
			k := c.lx.Peek()
			c.path = append(c.path, seg{key: ref, idx: -1})
			switch {
			case n == nil:
				c.dupFree(base, ref, kb, keyOff)
				c.skip(k)
			case n.free:
				c.dupFree(base, ref, kb, keyOff)
				if n.elem != nil && !fits(n.elem, k) {
					c.emit(rType, c.lx.Pos(), "", "want %s, got %s (%s maps names to %ss)", n.elem.typ, k, n.name, n.elem.typ)
					c.skip(k)
				} else {
					c.value(n.elem, k)
				}
			default:
				if m == nil {
					i, m = n.memberAfter(kb, next)
				}
				if m == nil {
					c.dupFree(base, ref, kb, keyOff)
					c.emit(rUnknown, keyOff, "", "%s is not a field of %s%s", quoteKey(kb), nodeTitle(n),
						keyHint(kb, len(n.members), c.memberName(n)))
					c.skip(k)
					break
				}
				next = i + 1
				bit := uint64(1) << i
				if (seen|nulls)&bit != 0 {
					c.emit(rDuplicateKey, keyOff, "", "duplicate key %q: a receiver's JSON library may keep either value", kb)
				}
				if n.data {
					c.dataMemberOff[i] = int32(keyOff)
				}
				if k == jsonlex.Null {
					nulls |= bit
					c.emit(rNull, c.lx.Pos(), "", "null (treated as absent)")
					c.lx.Lit(k)
					break
				}
				seen |= bit
				if m.hidden && c.v.shape == spec.Described {
					c.emit(rUnknown, keyOff, "", "%s is a hidden field of the sample shape only", m.name)
				}
				if n.data {
					// Which document kind and shape the member belongs
					// to is known only at the end (businessType may come
					// last): post drops what is found inside a member
					// foreign to them.
					c.member = int8(i)
				}
				mn := m.node
				if m.alt != nil {
					c.statusVariant = 1
					if !fits(mn, k) && fits(m.alt, k) {
						mn = m.alt
						c.statusVariant = 2
					}
					if want := m.variant(c.v.shape); want != nil && (want != mn || !fits(mn, k)) {
						// --shape asked for another type: one type error;
						// the other shape's rules do not apply to the
						// value, nor is it evidence of that shape.
						c.statusVariant = 0
						c.emit(rType, c.lx.Pos(), "", "want %s in the %s invoice shape, got %s", want.typ, c.v.shape, c.kindCame(k))
						break
					}
				}
				if !fits(mn, k) {
					if m.alt != nil {
						c.statusVariant = 0
						c.emit(rType, c.lx.Pos(), "", "want %s (described shape) or %s (sample shape), got %s", m.node.typ, m.alt.typ, k)
					} else {
						c.typeError(mn, k, "")
					}
					c.skip(k)
					break
				}
				c.value(mn, k)
			}
			if n != nil && n.data {
				c.member = -1
			}
			c.path = c.path[:len(c.path)-1]
			if !c.lx.More('}') {
				break
			}
		}
	}
	c.dropKeys(base)
	if n == nil || n.free {
		return
	}
	if n.data {
		c.dataSeen, c.dataNull, c.dataOff = seen, nulls, start
		return
	}
	missing := ^(seen | nulls) & (uint64(1)<<len(n.members) - 1)
	if c.v.shape != spec.Sample {
		missing &^= n.hidden
	}
	for missing != 0 {
		i := bits.TrailingZeros64(missing)
		missing &^= 1 << i
		c.emit(rMissing, start, n.members[i].name, "%s is absent", n.members[i].name)
	}
	if n.record >= 0 {
		c.recs[n.record] = append(c.recs[n.record], c.cur)
	}
}

// keyHint names the field, of the n whose names name(i) gives, that the
// unknown key kb differs from only in case or in spaces around it
// (requestID, "收款明细 "): the field is then absent too, and the finding
// pairs the two for the reader. "" for a key like no field's.
func keyHint(kb []byte, n int, name func(i int) string) string {
	k := strings.TrimSpace(string(kb))
	for i := range n {
		if m := name(i); m != "" && strings.EqualFold(k, m) {
			return " (the field is " + m + ": keys match exactly, case and spaces included)"
		}
	}
	return ""
}

// memberName gives the names of n's members for keyHint. data holds the
// members of both document kinds: when the body's number came before it,
// those of the other kind are no field the key can mean ("" for them).
func (c *checker) memberName(n *node) func(i int) string {
	kinds := inDescribed | inSample | inReceipt
	if es := spec.EventsForNumber(c.number); n.data && c.numberState == 2 && len(es) > 0 {
		kinds = inDescribed | inSample
		if es[0].Kind == spec.Receipt {
			kinds = inReceipt
		}
	}
	return func(i int) string {
		if n.members[i].shapes != 0 && n.members[i].shapes&kinds == 0 {
			return ""
		}
		return n.members[i].name
	}
}

func nodeTitle(n *node) string {
	if n.name == "" {
		return "the envelope"
	}
	return n.name
}

func (c *checker) array(n *node) {
	if !c.lx.Enter() {
		return
	}
	var elem *node
	if n != nil {
		elem = n.elem
	}
	for idx := 0; ; idx++ {
		k := c.lx.Peek()
		c.path = append(c.path, seg{idx: idx})
		switch {
		case elem == nil:
			c.skip(k)
		case k == jsonlex.Null || !fits(elem, k):
			c.emit(rType, c.lx.Pos(), "", "want %s element, got %s", elem.typ, k)
			c.skip(k)
		case k == jsonlex.Object:
			c.object(elem, idx)
		default:
			c.value(elem, k)
		}
		c.path = c.path[:len(c.path)-1]
		if !c.lx.More(']') {
			break
		}
	}
}

func (c *checker) setSlot(n *node, off int, f float64) {
	if n.slot < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return
	}
	c.cur.v[n.slot] = f
	c.cur.off[n.slot] = int32(off)
	c.cur.set |= 1 << n.slot
}

// knows says whether v is one of the values n's field takes, true when the
// spec lists none.
func (n *node) knows(v []byte) bool {
	if n.values == nil {
		return true
	}
	for _, x := range n.values {
		if string(v) == x {
			return true
		}
	}
	return false
}

func (c *checker) checkString(n *node, s, e int, esc bool) {
	if n.values == nil && n.format == "" && !n.taxID {
		return
	}
	v := c.lx.Content(s, e, esc)
	switch {
	case n.knows(v):
	case n.closed:
		c.emit(rEnum, s, "", "%q is not one of %s%s", v, strings.Join(n.values, ", "), n.standsFor(v))
	default:
		c.emit(rAdvisory, s, "", "%q is not %s, the only value the spec gives", v, strings.Join(n.values, ", "))
	}
	switch n.format {
	case spec.CurrencyCode:
		if !spec.Valid(spec.CurrencyCode, v) {
			r := rFormat
			if n.advisory {
				r = rAdvisory
			}
			c.emit(r, s, "", "%q is not a three-letter currency code (A-Z)", v)
		}
	case spec.Decimal2:
		if !spec.Valid(spec.Decimal2, v) {
			c.emit(rFormat, s, "", "%q does not match %s", v, spec.Decimal2Pattern)
		} else if n.slot >= 0 {
			f, _ := strconv.ParseFloat(string(v), 64)
			c.setSlot(n, s, f)
		}
	case spec.UUID:
		if !spec.Valid(spec.UUID, v) {
			c.emit(rFormat, s, "", "%q is not a UUID", v)
		}
	}
	if n.taxID {
		if msg := checkTaxID(v); msg != "" {
			c.emit(rTaxID, s, "", "%s", msg)
		}
	}
}

// maxPlainDigits is the longest JSON number without an exponent that
// checkNumber does not parse to see whether it exceeds a float64: any of
// up to 308 characters is below 1e308.
const maxPlainDigits = 308

// hasExponent says whether the JSON number b has an exponent part.
func hasExponent(b []byte) bool {
	for _, ch := range b {
		if ch|0x20 == 'e' {
			return true
		}
	}
	return false
}

// asDouble says, of a number s..e that is no integer as written, what a
// parser reading numbers as doubles makes of it when that is a whole
// number (1e-999 is 0, 5007.0000000000000001 is 5007), "" otherwise: a
// schema validator that reads so (Ajv, Python's jsonschema) passes it as
// an integer, and the finding says why validate does not.
func (c *checker) asDouble(s, e int) string {
	f := c.lx.Float(s, e)
	if math.IsInf(f, 0) || f != math.Trunc(f) {
		return ""
	}
	if f == 0 {
		f = 0 // -1e-999 is -0, which parsers print as 0
	}
	return ": a fraction as written, which a parser that reads numbers as doubles (JavaScript, Python, Ajv) reads as " + strconv.FormatFloat(f, 'f', -1, 64)
}

// integerForm warns of an integer s..e written with a fraction or an
// exponent (5007.0, 1e3): JSON Schema's integer is a value, so it is no
// type error, but Go's encoding/json reads an int field's number with
// strconv.ParseInt, and Rust's serde_json an i64's as an integer token,
// and both refuse it: a receiver written in them cannot decode the body.
// -0 they read as 0.
func (c *checker) integerForm(s, e int) {
	if form := c.otherForm(s, e); form != "" {
		c.emit(rIntegerForm, s, "", "%s", form)
	}
}

// otherForm is integerForm's warning of s..e, "" when it is written as a
// plain integer.
func (c *checker) otherForm(s, e int) string {
	b := c.lx.Bytes()[s:e]
	for _, ch := range b {
		if ch == '.' || ch|0x20 == 'e' {
			plain := ""
			if f := c.lx.Float(s, e); math.Abs(f) < 1e21 {
				f += 0 // -0.0 is written 0
				plain = " (write " + strconv.FormatFloat(f, 'f', -1, 64) + ")"
			}
			return fmt.Sprintf("%s is an integer written with a fraction or an exponent%s: Go's encoding/json and Rust's serde_json refuse it for an integer field", shorten(b), plain)
		}
	}
	return ""
}

// quotedBusinessType reads a businessType written as a string: a type
// error, which names the number when the string holds one of the
// interface's ("5007"), so that post can say in the same finding when the
// event wants another.
func (c *checker) quotedBusinessType(off int) {
	s, e, esc := c.lx.Str()
	v := c.lx.Content(s, e, esc)
	for _, n := range c.v.numbers {
		if string(v) == strconv.Itoa(n) {
			c.quotedNumber = n
			c.numberOff = off
			c.emit(rBusinessType, off, "", "want an integer, got string %q", v)
			return
		}
	}
	c.emit(rBusinessType, off, "", "want an integer, got string")
}

// Millisecond timestamps outside [2000, 2100) are suspicious.
const (
	ms2000 = 946684800000
	ms2100 = 4102444800000
)

func (c *checker) checkNumber(n *node, s, e int, integral, neg bool) {
	if b := c.lx.Bytes()[s:e]; (len(b) > maxPlainDigits || hasExponent(b)) && math.IsInf(c.lx.Float(s, e), 0) {
		// RFC 8259's grammar allows 1e400, but a receiver cannot read it:
		// Go's encoding/json refuses it, JavaScript makes it Infinity
		// (which JSON Schema's "number" rejects), and the ledger's
		// arithmetic would skip it.
		c.emit(rType, s, "", "want %s, got %s, beyond the range of a double (±1.8e308): JSON parsers refuse it or read it as infinity", typeName(n), b)
		return
	}
	if n.typ == spec.Integer && !integral {
		c.emit(rType, s, "", "want %s, got %s%s", typeName(n), c.lx.Bytes()[s:e], c.asDouble(s, e))
		return
	}
	if n.typ == spec.Integer {
		c.integerForm(s, e)
	}
	if n.format == spec.UnixMillis {
		f := c.lx.Float(s, e)
		// -0 is zero, not a negative time: parsers read it as 0, and
		// the schema's minimum 0 takes it.
		if neg && f != 0 {
			c.emit(rFormat, s, "", "%s is negative; want milliseconds since the Unix epoch", c.lx.Bytes()[s:e])
			return
		}
		switch {
		case f*1000 >= ms2000 && f*1000 < ms2100:
			c.emit(rSeconds, s, "", "%s looks like seconds, not milliseconds, since the Unix epoch", c.lx.Bytes()[s:e])
		case f < ms2000:
			c.emit(rTimeRange, s, "", "%s is before 2000", c.lx.Bytes()[s:e])
		case f >= ms2100:
			c.emit(rTimeRange, s, "", "%s is in 2100 or later", c.lx.Bytes()[s:e])
		}
	}
	if n.slot >= 0 {
		c.setSlot(n, s, c.lx.Float(s, e))
	}
}

// envelope scans the body's top-level value.
func (c *checker) envelope() {
	k := c.lx.Peek()
	if k != jsonlex.Object {
		off := c.lx.Pos()
		c.skip(k)
		c.emit(rEnvelope, off, "", "the body is %s, not an object", kindPhrase(k))
		return
	}
	start := c.lx.Pos()
	base := len(c.keys)
	var seen [3]bool
	if c.lx.Enter() {
		for first := true; ; first = false {
			keyOff := c.lx.Pos()
			ref := c.lx.Key(first)
			kb := c.lx.KeyBytes(ref)
			k := c.lx.Peek()
			c.path = append(c.path, seg{key: ref, idx: -1})
			which := -1
			for i, name := range c.v.envelope {
				if string(kb) == name {
					which = i
				}
			}
			if which >= 0 && seen[which] {
				c.emit(rDuplicateKey, keyOff, "", "duplicate key %q: a receiver's JSON library may keep either value", kb)
			}
			if which >= 0 {
				seen[which] = true
			}
			off := c.lx.Pos()
			switch which {
			case 0: // requestId
				if k != jsonlex.String {
					c.skip(k)
					c.emit(rRequestID, off, "", "want a string (UUID), got %s", k)
					break
				}
				s, e, esc := c.lx.Str()
				if v := c.lx.Content(s, e, esc); !spec.Valid(spec.UUID, v) {
					c.emit(rRequestID, off, "", "%q is not a UUID (8-4-4-4-12 hex digits)", v)
				}
			case 1: // businessType
				if k == jsonlex.String {
					c.numberState = 1
					c.quotedBusinessType(off)
					break
				}
				if k != jsonlex.Number {
					c.skip(k)
					c.numberState = 1
					c.emit(rBusinessType, off, "", "want an integer, got %s", k)
					break
				}
				s, e, integral, _ := c.lx.Num()
				c.numberOff = s
				c.numberState = 1
				if !integral {
					c.emit(rBusinessType, off, "", "want an integer, got %s%s", c.lx.Bytes()[s:e], c.asDouble(s, e))
					break
				}
				f := c.lx.Float(s, e)
				for _, n := range c.v.numbers {
					if float64(n) == f {
						c.number, c.numberState = n, 2
					}
				}
				if c.numberState == 2 {
					// Post joins it to an event-mismatch, one fault.
					c.integerForm(s, e)
					break
				}
				// A number that is no body number, in another form too, is
				// one fault: one finding says both, unless the form's rule
				// is ignored.
				also := ""
				if form := c.otherForm(s, e); form != "" && !c.v.ignored[rIntegerForm] {
					also = "; and " + form
				}
				c.emit(rBusinessType, off, "", "%s is not a body number of the interface (%s)%s", c.lx.Bytes()[s:e], joinInts(c.v.numbers, ", "), also)
			case 2: // data
				switch k {
				case jsonlex.Object:
					c.object(c.v.data, -1)
				case jsonlex.Null:
					c.lx.Lit(k)
					c.emit(rData, off, "", "data is null")
				default:
					c.skip(k)
					c.emit(rData, off, "", "want an object, got %s", k)
				}
			default:
				c.dupFree(base, ref, kb, keyOff)
				c.emit(rUnknown, keyOff, "", "%s is not a field of the envelope%s", quoteKey(kb),
					keyHint(kb, len(c.v.envelope), func(i int) string { return c.v.envelope[i] }))
				c.skip(k)
			}
			c.path = c.path[:len(c.path)-1]
			if !c.lx.More('}') {
				break
			}
		}
	}
	c.dropKeys(base)
	rules := [3]ruleID{rRequestID, rBusinessType, rData}
	for i, name := range c.v.envelope {
		if !seen[i] {
			c.emit(rules[i], start, name, "%s is absent", name)
		}
	}
}

// kindPhrase names a value of kind k in a sentence: "an array", "a
// number", and "null" (no "a null").
func kindPhrase(k jsonlex.Kind) string {
	switch k {
	case jsonlex.Null:
		return "null"
	case jsonlex.Array, jsonlex.Object:
		return "an " + k.String()
	}
	return "a " + k.String()
}

// joinInts lists numbers for a message.
func joinInts(ns []int, sep string) string {
	out := ""
	for i, n := range ns {
		if i > 0 {
			out += sep
		}
		out += strconv.Itoa(n)
	}
	return out
}
