package validate

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/whsim/whsim/internal/spec"
)

// maxDepth bounds nesting, as encoding/json does.
const maxDepth = 10000

type jkind uint8

const (
	kNull jkind = iota
	kBool
	kNum
	kStr
	kObj
	kArr
)

var kindNames = [...]string{"null", "boolean", "number", "string", "object", "array"}

func (k jkind) String() string { return kindNames[k] }

// keyRef is a key's bytes: a span of the body, or of scratch when the key
// held escapes.
type keyRef struct {
	s, e    int32
	scratch bool
}

// seg is one step of the current path: a key, or an array index (idx >= 0).
type seg struct {
	key keyRef
	idx int
}

type record struct {
	v   [8]float64
	off [8]int32
	set uint16
	idx int
}

func (r *record) has(slots ...int) bool {
	for _, s := range slots {
		if r.set&(1<<s) == 0 {
			return false
		}
	}
	return true
}

// checker is the state of one Check; pooled.
type checker struct {
	v       *Validator
	b       []byte
	i       int
	depth   int
	raw     []rawFinding
	path    []seg
	keys    []keyRef
	scratch []byte

	// envelope facts
	numberState int // 0 missing, 1 invalid, 2 valid
	number      int
	numberOff   int
	dataOff     int // -1: data is not an object
	// data facts
	dataSeen, dataNull uint64
	dataMemberOff      [64]int32
	statusVariant      int // 0 absent, 1 described (string), 2 sample (integer)

	cur     record
	header  record
	hasHdr  bool
	lines   []record
	sources []record
	items   []record
}

type syntaxError struct {
	off int
	msg string
}

func (c *checker) reset(b []byte) {
	c.b, c.i, c.depth = b, 0, 0
	c.raw, c.path, c.keys, c.scratch = c.raw[:0], c.path[:0], c.keys[:0], c.scratch[:0]
	c.numberState, c.number, c.numberOff, c.dataOff = 0, 0, 0, -1
	c.dataSeen, c.dataNull, c.statusVariant = 0, 0, 0
	c.hasHdr = false
	c.lines, c.sources, c.items = c.lines[:0], c.sources[:0], c.items[:0]
}

func (c *checker) run(event string) {
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*syntaxError)
			if !ok {
				panic(r)
			}
			// A body that is not JSON gets that one finding: anything
			// found before the break is noise.
			c.raw = c.raw[:0]
			c.raw = append(c.raw, rawFinding{rule: rSyntax, off: se.off, msg: se.msg})
			if c.v.ignored[rSyntax] {
				c.raw = c.raw[:0]
			}
		}
	}()
	b := c.b
	if len(b) == 0 {
		c.fail(0, "the body is empty")
	}
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		c.fail(0, "the body starts with a byte-order mark (U+FEFF), which RFC 8259 forbids")
	}
	c.ws()
	if c.i == len(b) {
		c.fail(c.i, "the body holds only whitespace")
	}
	c.envelope()
	c.ws()
	if c.i < len(b) {
		c.fail(c.i, "trailing data after the JSON value: "+c.describe(c.i))
	}
	c.post(event)
}

// emit records a finding at offset off; key, when not "", is appended to
// the current path.
func (c *checker) emit(r ruleID, off int, key string, format string, args ...any) {
	if c.v.ignored[r] {
		return
	}
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	c.raw = append(c.raw, rawFinding{rule: r, off: off, path: c.pathString(key), msg: msg})
}

func (c *checker) fail(off int, msg string) {
	panic(&syntaxError{off: off, msg: msg})
}

func (c *checker) failf(off int, format string, args ...any) {
	c.fail(off, fmt.Sprintf(format, args...))
}

// describe says what is at off, for syntax messages.
func (c *checker) describe(off int) string {
	b := c.b
	if off >= len(b) {
		return "unexpected end of input (truncated?)"
	}
	rest := b[off:]
	switch {
	case hasPrefix(rest, "NaN"), hasPrefix(rest, "Infinity"), hasPrefix(rest, "-Infinity"), hasPrefix(rest, "+Infinity"):
		return "NaN and Infinity are not JSON numbers"
	case rest[0] == '\'':
		return "single quotes: JSON strings and keys use double quotes"
	case rest[0] == '/':
		return "comments are not allowed in JSON"
	case rest[0] >= 0x80:
		r, size := utf8.DecodeRune(rest)
		if r == utf8.RuneError && size <= 1 {
			return fmt.Sprintf("invalid UTF-8 byte 0x%02x", rest[0])
		}
		return fmt.Sprintf("unexpected character %q", r)
	}
	return fmt.Sprintf("unexpected character %q", rest[0])
}

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }

func (c *checker) ws() {
	b, i := c.b, c.i
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			c.i = i
			return
		}
	}
	c.i = i
}

func (c *checker) peek() jkind {
	if c.i >= len(c.b) {
		c.fail(c.i, c.describe(c.i))
	}
	switch ch := c.b[c.i]; {
	case ch == '{':
		return kObj
	case ch == '[':
		return kArr
	case ch == '"':
		return kStr
	case ch == 't' || ch == 'f':
		return kBool
	case ch == 'n':
		return kNull
	case ch == '-' || ch >= '0' && ch <= '9':
		return kNum
	}
	c.fail(c.i, c.describe(c.i))
	return 0
}

func (c *checker) literal(k jkind) {
	var want string
	switch {
	case k == kNull:
		want = "null"
	case c.b[c.i] == 't':
		want = "true"
	default:
		want = "false"
	}
	rest := c.b[c.i:]
	for j := 0; j < len(want); j++ {
		if j >= len(rest) {
			c.fail(c.i+j, c.describe(c.i+j))
		}
		if rest[j] != want[j] {
			c.fail(c.i, c.describe(c.i))
		}
	}
	c.i += len(want)
}

// strSafe marks bytes a string may hold as they are.
var strSafe = func() (t [256]bool) {
	for i := 0x20; i < 0x80; i++ {
		t[i] = i != '"' && i != '\\'
	}
	return t
}()

// str scans a string; s and e span it with its quotes.
func (c *checker) str() (s, e int, esc bool) {
	b := c.b
	s = c.i
	i := s + 1
	for {
		for i < len(b) && strSafe[b[i]] {
			i++
		}
		if i >= len(b) {
			c.fail(i, "unexpected end of input inside a string (truncated?)")
		}
		switch ch := b[i]; {
		case ch == '"':
			c.i = i + 1
			return s, i + 1, esc
		case ch == '\\':
			esc = true
			i++
			if i >= len(b) {
				c.fail(i, "unexpected end of input inside a string (truncated?)")
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for j := 1; j <= 4; j++ {
					if i+j >= len(b) {
						c.fail(i+j, "unexpected end of input inside a string (truncated?)")
					}
					if !isHex(b[i+j]) {
						c.failf(i+j, "invalid \\u escape: %s", c.describe(i+j))
					}
				}
				i += 5
			default:
				c.failf(i-1, "invalid escape \\%c in a string", b[i])
			}
		case ch < 0x20:
			c.failf(i, "control character 0x%02x in a string (must be escaped)", ch)
		default:
			if ch < 0xC2 || ch > 0xF4 {
				c.failf(i, "invalid UTF-8 byte 0x%02x in a string", ch)
			}
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				c.failf(i, "invalid UTF-8 byte 0x%02x in a string", ch)
			}
			i += size
		}
	}
}

func isHex(ch byte) bool {
	return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F'
}

// content returns a scanned string's value: the bytes between its quotes,
// or its unescaped form in scratch (valid until the next unescape).
func (c *checker) content(s, e int, esc bool) []byte {
	if !esc {
		return c.b[s+1 : e-1]
	}
	start := len(c.scratch)
	c.scratch = unescape(c.scratch, c.b[s+1:e-1])
	return c.scratch[start:]
}

func unescape(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		ch := src[i]
		if ch != '\\' {
			dst = append(dst, ch)
			i++
			continue
		}
		switch src[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(src[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) && i+6 <= len(src) && src[i] == '\\' && src[i+1] == 'u' {
				if r2 := utf16.DecodeRune(r, hex4(src[i+2:i+6])); r2 != utf8.RuneError {
					r = r2
					i += 6
				}
			}
			if utf16.IsSurrogate(r) {
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // " \ /
			dst = append(dst, src[i+1])
		}
		i += 2
	}
	return dst
}

func hex4(b []byte) rune {
	var r rune
	for _, ch := range b[:4] {
		r <<= 4
		switch {
		case ch <= '9':
			r |= rune(ch - '0')
		case ch >= 'a':
			r |= rune(ch - 'a' + 10)
		default:
			r |= rune(ch - 'A' + 10)
		}
	}
	return r
}

// num scans a number. integral says its value has no fractional part.
func (c *checker) num() (s, e int, integral, neg bool) {
	b := c.b
	i := c.i
	s = i
	if b[i] == '-' {
		neg = true
		i++
	}
	if i >= len(b) {
		c.fail(i, c.describe(i))
	}
	intStart := i
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		c.fail(s, c.describe(s))
	}
	intEnd := i
	fracStart, fracEnd := i, i
	if i < len(b) && b[i] == '.' {
		i++
		fracStart = i
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			c.failf(i, "a number needs digits after its decimal point: %s", c.describe(i))
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		fracEnd = i
	}
	exp := 0
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			c.failf(i, "a number needs digits in its exponent: %s", c.describe(i))
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if exp < 1e8 {
				exp = exp*10 + int(b[i]-'0')
			}
			i++
		}
		if eneg {
			exp = -exp
		}
	}
	c.i = i
	nf := fracEnd - fracStart
	for nf > 0 && b[fracStart+nf-1] == '0' {
		nf--
	}
	if nf > 0 {
		integral = exp >= nf
	} else if exp >= 0 {
		integral = true
	} else {
		tz, zero := 0, true
		for j := intEnd - 1; j >= intStart; j-- {
			if b[j] != '0' {
				zero = false
				break
			}
			tz++
		}
		integral = zero || tz >= -exp
	}
	return s, i, integral, neg
}

func (c *checker) float(s, e int) float64 {
	f, _ := strconv.ParseFloat(unsafe.String(&c.b[s], e-s), 64)
	return f
}

// skip scans any value of kind k without checking it against the model.
func (c *checker) skip(k jkind) {
	switch k {
	case kObj:
		c.object(nil, -1)
	case kArr:
		c.array(nil)
	case kStr:
		c.str()
	case kNum:
		c.num()
	default:
		c.literal(k)
	}
}

// value scans a value the model describes as n (nil: not described).
func (c *checker) value(n *node, k jkind) {
	if n == nil {
		c.skip(k)
		return
	}
	switch k {
	case kObj:
		c.object(n, -1)
	case kArr:
		c.array(n)
	case kStr:
		s, e, esc := c.str()
		c.checkString(n, s, e, esc)
	case kNum:
		s, e, integral, neg := c.num()
		c.checkNumber(n, s, e, integral, neg)
	default:
		c.literal(k)
	}
}

// fits says whether a value of kind k has n's JSON type (integer-ness is
// checked on the number itself).
func fits(n *node, k jkind) bool {
	switch n.typ {
	case spec.Object:
		return k == kObj
	case spec.Array:
		return k == kArr
	case spec.String:
		return k == kStr
	case spec.Number, spec.Integer:
		return k == kNum
	case spec.Boolean:
		return k == kBool
	}
	return true
}

func (c *checker) typeError(n *node, k jkind, key string) {
	c.emit(rType, c.i, key, "want %s, got %s", typeName(n), k)
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

func (c *checker) push(s seg) {
	c.path = append(c.path, s)
}

func (c *checker) pop() { c.path = c.path[:len(c.path)-1] }

func (c *checker) keyBytes(k keyRef) []byte {
	if k.scratch {
		return c.scratch[k.s:k.e]
	}
	return c.b[k.s:k.e]
}

// key scans an object key and returns its bytes.
func (c *checker) key(open int, first bool) (keyRef, []byte) {
	if c.i >= len(c.b) {
		c.fail(c.i, c.describe(c.i))
	}
	if c.b[c.i] != '"' {
		switch {
		case c.b[c.i] == '}' && !first:
			c.fail(c.i, "trailing comma before '}'")
		case c.b[c.i] == '\'':
			c.fail(c.i, c.describe(c.i))
		}
		c.failf(c.i, "want a double-quoted key: %s", c.describe(c.i))
	}
	s, e, esc := c.str()
	var ref keyRef
	if esc {
		start := len(c.scratch)
		c.scratch = unescape(c.scratch, c.b[s+1:e-1])
		ref = keyRef{s: int32(start), e: int32(len(c.scratch)), scratch: true}
	} else {
		ref = keyRef{s: int32(s + 1), e: int32(e - 1)}
	}
	c.ws()
	if c.i >= len(c.b) || c.b[c.i] != ':' {
		c.failf(c.i, "want ':' after a key: %s", c.describe(c.i))
	}
	c.i++
	c.ws()
	return ref, c.keyBytes(ref)
}

// next moves past a ',' or to the closing byte; it reports whether another
// member or element follows.
func (c *checker) next(close byte) bool {
	c.ws()
	if c.i >= len(c.b) {
		c.fail(c.i, c.describe(c.i))
	}
	switch c.b[c.i] {
	case ',':
		c.i++
		c.ws()
		if close == ']' && c.i < len(c.b) && c.b[c.i] == ']' {
			c.fail(c.i, "trailing comma before ']'")
		}
		return true
	case close:
		c.i++
		return false
	}
	c.failf(c.i, "want ',' or '%c': %s", close, c.describe(c.i))
	return false
}

func (c *checker) enter() {
	c.depth++
	if c.depth > maxDepth {
		c.failf(c.i, "nesting deeper than %d levels", maxDepth)
	}
}

// dupFree checks an unknown or free key against the object's other such
// keys (kept on c.keys from base) and records it.
func (c *checker) dupFree(base int, ref keyRef, kb []byte, off int) {
	for _, o := range c.keys[base:] {
		if string(c.keyBytes(o)) == string(kb) {
			c.emit(rDuplicateKey, off, string(kb), "duplicate key %q: a receiver's JSON library may keep either value", kb)
			return
		}
	}
	c.keys = append(c.keys, ref)
}

// object scans an object described by n (nil: not described). idx is the
// array index of the element it is, or -1.
func (c *checker) object(n *node, idx int) {
	start := c.i
	c.i++
	c.enter()
	c.ws()
	base := len(c.keys)
	var seen, nulls uint64
	if n != nil && n.record != recNone {
		c.cur = record{idx: idx}
	}
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
	} else {
		for first := true; ; first = false {
			keyOff := c.i
			ref, kb := c.key(start, first)
			k := c.peek()
			c.push(seg{key: ref, idx: -1})
			switch {
			case n == nil:
				c.dupFree(base, ref, kb, keyOff)
				c.skip(k)
			case n.free:
				c.dupFree(base, ref, kb, keyOff)
				if n.elem != nil && !fits(n.elem, k) {
					c.emit(rType, c.i, "", "want %s, got %s (%s maps names to %ss)", n.elem.typ, k, n.name, n.elem.typ)
					c.skip(k)
				} else {
					c.value(n.elem, k)
				}
			default:
				i, m := n.member(kb)
				if m == nil {
					c.dupFree(base, ref, kb, keyOff)
					c.emit(rUnknown, keyOff, "", "%s is not a field of %s", quoteKey(kb), nodeTitle(n))
					c.skip(k)
					break
				}
				bit := uint64(1) << i
				if (seen|nulls)&bit != 0 {
					c.emit(rDuplicateKey, keyOff, "", "duplicate key %q: a receiver's JSON library may keep either value", kb)
				}
				if n.data {
					c.dataMemberOff[i] = int32(keyOff)
				}
				if k == kNull {
					nulls |= bit
					c.emit(rNull, c.i, "", "null (treated as absent)")
					c.literal(k)
					break
				}
				seen |= bit
				if m.hidden && c.v.shape == spec.Described {
					c.emit(rUnknown, keyOff, "", "%s is a hidden field of the sample shape only", m.name)
				}
				mn := m.node
				if m.alt != nil {
					c.statusVariant = 1
					if !fits(mn, k) && fits(m.alt, k) {
						mn = m.alt
						c.statusVariant = 2
					}
				}
				if !fits(mn, k) {
					if m.alt != nil {
						c.statusVariant = 0
						c.emit(rType, c.i, "", "want %s (described shape) or %s (sample shape), got %s", m.node.typ, m.alt.typ, k)
					} else {
						c.typeError(mn, k, "")
					}
					c.skip(k)
					break
				}
				c.value(mn, k)
			}
			c.pop()
			if !c.next('}') {
				break
			}
		}
	}
	c.keys = c.keys[:base]
	c.depth--
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
		i := trailingZeros(missing)
		missing &^= 1 << i
		c.emit(rMissing, start, n.members[i].name, "%s is absent", n.members[i].name)
	}
	switch n.record {
	case recHeader:
		c.header, c.hasHdr = c.cur, true
	case recLine:
		c.lines = append(c.lines, c.cur)
	case recSource:
		c.sources = append(c.sources, c.cur)
	case recItem:
		c.items = append(c.items, c.cur)
	}
}

func trailingZeros(x uint64) int {
	n := 0
	for x&1 == 0 {
		x >>= 1
		n++
	}
	return n
}

func nodeTitle(n *node) string {
	if n.name == "" {
		return "the envelope"
	}
	return n.name
}

func (c *checker) array(n *node) {
	c.i++
	c.enter()
	c.ws()
	if c.i < len(c.b) && c.b[c.i] == ']' {
		c.i++
		c.depth--
		return
	}
	var elem *node
	if n != nil {
		elem = n.elem
	}
	for idx := 0; ; idx++ {
		k := c.peek()
		c.push(seg{idx: idx})
		switch {
		case elem == nil:
			c.skip(k)
		case k == kNull || !fits(elem, k):
			c.emit(rType, c.i, "", "want %s element, got %s", elem.typ, k)
			c.skip(k)
		case k == kObj:
			c.object(elem, idx)
		default:
			c.value(elem, k)
		}
		c.pop()
		if !c.next(']') {
			break
		}
	}
	c.depth--
}

func (c *checker) setSlot(n *node, off int, f float64) {
	if n.slot < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return
	}
	c.cur.v[n.slot] = f
	c.cur.off[n.slot] = int32(off)
	c.cur.set |= 1 << n.slot
}

func (c *checker) checkString(n *node, s, e int, esc bool) {
	if n.values == nil && n.format == "" && !n.taxID {
		return
	}
	v := c.content(s, e, esc)
	if n.values != nil {
		known := false
		for _, x := range n.values {
			if string(v) == x {
				known = true
				break
			}
		}
		if !known {
			if n.closed {
				c.emit(rEnum, s, "", "%q is not one of %s", v, listValues(n.values))
			} else {
				c.emit(rAdvisory, s, "", "%q is not %s, the only value the spec gives", v, listValues(n.values))
			}
		}
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

func listValues(vs []string) string {
	out := ""
	for i, v := range vs {
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// Millisecond timestamps outside [2000, 2100) are suspicious.
const (
	ms2000 = 946684800000
	ms2100 = 4102444800000
)

func (c *checker) checkNumber(n *node, s, e int, integral, neg bool) {
	if n.typ == spec.Integer && !integral {
		c.emit(rType, s, "", "want %s, got %s", typeName(n), c.b[s:e])
		return
	}
	if n.format == spec.UnixMillis {
		if neg {
			c.emit(rFormat, s, "", "%s is negative; want milliseconds since the Unix epoch", c.b[s:e])
			return
		}
		f := c.float(s, e)
		switch {
		case f*1000 >= ms2000 && f*1000 < ms2100:
			c.emit(rSeconds, s, "", "%s looks like seconds, not milliseconds, since the Unix epoch", c.b[s:e])
		case f < ms2000:
			c.emit(rTimeRange, s, "", "%s is before 2000", c.b[s:e])
		case f >= ms2100:
			c.emit(rTimeRange, s, "", "%s is after 2100", c.b[s:e])
		}
	}
	if n.slot >= 0 {
		c.setSlot(n, s, c.float(s, e))
	}
}

// envelope scans the body's top-level value.
func (c *checker) envelope() {
	k := c.peek()
	if k != kObj {
		off := c.i
		c.skip(k)
		c.emit(rEnvelope, off, "", "the body is %s %s, not an object", article(k), k)
		return
	}
	start := c.i
	c.i++
	c.enter()
	c.ws()
	base := len(c.keys)
	var seen [3]bool
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
	} else {
		for first := true; ; first = false {
			keyOff := c.i
			ref, kb := c.key(start, first)
			k := c.peek()
			c.push(seg{key: ref, idx: -1})
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
			off := c.i
			switch which {
			case 0: // requestId
				if k != kStr {
					c.skip(k)
					c.emit(rRequestID, off, "", "want a string (UUID), got %s", k)
					break
				}
				s, e, esc := c.str()
				if v := c.content(s, e, esc); !spec.Valid(spec.UUID, v) {
					c.emit(rRequestID, off, "", "%q is not a UUID (8-4-4-4-12 hex digits)", v)
				}
			case 1: // businessType
				if k != kNum {
					c.skip(k)
					c.numberState = 1
					c.emit(rBusinessType, off, "", "want an integer, got %s", k)
					break
				}
				s, e, integral, _ := c.num()
				c.numberOff = s
				c.numberState = 1
				if !integral {
					c.emit(rBusinessType, off, "", "want an integer, got %s", c.b[s:e])
					break
				}
				f := c.float(s, e)
				for _, n := range c.v.numbers {
					if float64(n) == f {
						c.number, c.numberState = n, 2
					}
				}
				if c.numberState != 2 {
					c.emit(rBusinessType, off, "", "%s is not a body number of the interface (%s)", c.b[s:e], intList(c.v.numbers))
				}
			case 2: // data
				switch k {
				case kObj:
					c.object(c.v.data, -1)
				case kNull:
					c.literal(k)
					c.emit(rData, off, "", "data is null")
				default:
					c.skip(k)
					c.emit(rData, off, "", "want an object, got %s", k)
				}
			default:
				c.dupFree(base, ref, kb, keyOff)
				c.emit(rUnknown, keyOff, "", "%s is not a field of the envelope", quoteKey(kb))
				c.skip(k)
			}
			c.pop()
			if !c.next('}') {
				break
			}
		}
	}
	c.keys = c.keys[:base]
	c.depth--
	rules := [3]ruleID{rRequestID, rBusinessType, rData}
	for i, name := range c.v.envelope {
		if !seen[i] {
			c.emit(rules[i], start, name, "%s is absent", name)
		}
	}
}

func article(k jkind) string {
	switch k {
	case kArr, kObj:
		return "an"
	}
	return "a"
}

func intList(ns []int) string {
	out := ""
	for i, n := range ns {
		if i > 0 {
			out += ", "
		}
		out += strconv.Itoa(n)
	}
	return out
}
