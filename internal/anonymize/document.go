package anonymize

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/jsonstr"
	"github.com/whsim/whsim/internal/spec"
)

// Report counts the values replaced, by class.
type Report map[class]int

// Add adds the counts of o to r.
func (r Report) Add(o Report) {
	for c, n := range o {
		r[c] += n
	}
}

// anonymizer replaces the identifying values of payloads and capture
// records. Which fields identify someone comes from the spec model (see
// fieldClasses); what it replaced it then finds again anywhere else. It is
// not safe for concurrent use.
type anonymizer struct {
	r       *replacer
	classes map[string]class
	// keys are the names of the spec's identifying fields (identityKeys).
	keys []identityKey
	// maxPath is the longest path in classes: a deeper one is looked up
	// no further, so a deeply nested document costs no more per value.
	maxPath int
	// work counts the steps taken (bytes and tokens looked at), so that a
	// test can hold the run to linear time without a clock.
	work int
}

// New returns an Anonymizer keyed with key.
func New(key []byte) (*anonymizer, error) {
	r, err := newReplacer(key)
	if err != nil {
		return nil, err
	}
	a := &anonymizer{r: r, classes: fieldClasses(), keys: identityKeys()}
	for p := range a.classes {
		a.maxPath = max(a.maxPath, len(p)+len(arrayPrefix))
	}
	return a, nil
}

// replaced is one value the anonymizer changed.
type replaced struct {
	Class      class
	Path       string // at most maxShownPath bytes of it
	Start, End int    // the value's bytes in the original body, quotes included
	Old, New   string
	number     bool // a JSON number, written as one
	text       bool // replaced inside text (counted by its pass)
}

// Payload returns body with every identifying value replaced and every
// other byte as it was: key order, white space, escapes and number
// spellings survive, because only the spans of replaced values change.
//
// The values of identifying fields (strings, or numbers: a customerCode
// written 8130430) get stand-ins first; then every other string, every
// object key and every number is searched for what the run replaced
// anywhere (a customer's name in an unknown field or used as a key) and
// for what looks like a tax id, mobile or identity-card number.
func (a *anonymizer) Payload(body []byte) (out []byte, repl []replaced, err error) {
	defer recoverStop(&err)
	p := &pass{a: a, ctx: context.Background(), counts: Report{}}
	return a.payload(p, body)
}

// arrayPrefix starts the paths of an array of payloads: its elements have
// the paths of one.
const arrayPrefix = spec.Each + "."

// maxShownPath bounds the path a Replaced keeps: it is for people, and a
// deeply nested document must not cost its depth for every value.
const maxShownPath = 256

func (a *anonymizer) payload(p *pass, body []byte) ([]byte, []replaced, error) {
	// First the identifying fields, so that the dictionary holds them all
	// before any text of the document is searched.
	var repl []replaced
	// What an object's keys tell of its values, before any is read: a
	// value may come before the key that tells (bankobject.go).
	kinds, err := a.objectKindsOf(p, body)
	if err != nil {
		return body, nil, err
	}
	err = a.walk(p, body, func(t *token) {
		if t.kind == keyToken {
			return
		}
		c := a.fieldClass(p, t.path)
		if c == "" && t.kind == stringToken {
			// A field the spec does not have, named for a company, or a
			// name of someone.
			c = a.r.dict.keyClass(lastKey(t.path), t.view(body), kinds[t.obj])
		}
		if c == "" {
			return
		}
		x := replaced{Class: c, Path: shownPath(t.path), Start: t.s, End: t.e}
		if t.kind == numberToken {
			x.Old, x.number = string(body[t.s:t.e]), true
			// A tax id's stand-in is a tax id (of digits: taxID); any
			// other identifying number keeps a code's shape.
			nc := code
			if c == TaxID && allDigits(x.Old) {
				nc = TaxID
			}
			x.New = a.numberStandIn(x.Old, a.r.Replace(nc, x.Old))
		} else if x.Old = t.content(body); x.Old != "" {
			x.New = a.r.replaceCased(c, x.Old)
		} else {
			return
		}
		repl = append(repl, x)
	})
	if err != nil {
		return body, nil, err
	}
	out := make([]byte, 0, len(body)+len(body)/8)
	at, k := 0, 0
	var all []replaced
	write := func(x replaced) {
		out = append(out, body[at:x.Start]...)
		switch {
		case x.number:
			out = append(out, x.New...)
		default:
			out = appendLike(out, body[x.Start:x.End], x.New)
		}
		at = x.End
		all = append(all, x)
	}
	err = a.walk(p, body, func(t *token) {
		if k < len(repl) && repl[k].Start == t.s && t.kind != keyToken {
			write(repl[k])
			k++
			return
		}
		x := replaced{Class: Echo, Start: t.s, End: t.e, text: true}
		// A bank object's account first: met in the first reading, it is
		// in the dictionary, and found there it was counted an echo.
		bank := kinds[t.obj]&bankObject != 0 && t.kind != keyToken
		if bank {
			if x.number = t.kind == numberToken; x.number {
				x.Old = string(body[t.s:t.e])
			} else {
				x.Old = t.view(body)
			}
			x.New = p.bankObjectValue(lastKey(t.path), x.Old, x.number)
		}
		if bank && x.New != x.Old {
			// replaced as the bank object's account
		} else if t.kind == numberToken {
			x.Old, x.number = string(body[t.s:t.e]), true
			x.New = p.labelledNumber(lastKey(t.path), x.Old)
		} else if t.kind == keyToken {
			x.Old = t.view(body)
			x.New = p.str(x.Old)
		} else if x.Old = t.view(body); kinds[t.obj]&base64Object != 0 && lastKey(t.path) == "text" && a.base64Into(p, x.Old, &x.New, body, t.s) {
			// a HAR's body in base64 (harbody.go)
		} else if !a.nested(p, t.path, x.Old, &x.New) {
			p.obj = kinds[t.obj]
			x.New = p.labelled(lastKey(t.path), x.Old, p.str)
			p.obj = 0
		}
		if x.New != x.Old {
			x.Old, x.Path = strings.Clone(x.Old), shownPath(t.path)
			write(x)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return append(out, body[at:]...), all, nil
}

// fieldClass is the class of the identifying field a value at path is, or
// is inside: a sender may wrap a field's value in an array or an object
// (customerName ["…"], staffName {"name": "…"}), and what is in it still
// names the field's company or person. "" for no such field. It looks at
// no more of path than the longest field's path, so that a deeply nested
// value costs no more than a shallow one.
func (a *anonymizer) fieldClass(p *pass, path []byte) class {
	path = bytes.TrimPrefix(path, []byte(arrayPrefix))
	if len(path) <= a.maxPath {
		p.tick(len(path))
		if c := a.classes[string(path)]; c != "" {
			return c
		}
	}
	n := min(len(path), a.maxPath+1)
	p.tick(n)
	for i := 1; i < n; i++ {
		if path[i] == '.' || path[i] == '[' {
			if c := a.classes[string(path[:i])]; c != "" {
				return c
			}
		}
	}
	return ""
}

// scanPayload is the check of an anonymized payload: every string, key and
// number, decoded, searched as anonymizing searches them. With lines, a
// leak's line is the payload's own (it starts on p.line), else p.line.
func (a *anonymizer) scanPayload(p *pass, out []byte, lines bool) error {
	lc := jsonlex.LineCounter{B: out}
	line := p.line
	kinds, err := a.objectKindsOf(p, out)
	if err != nil {
		return err
	}
	return a.walk(p, out, func(t *token) {
		if lines {
			l, _ := lc.At(t.s)
			p.newLine(line + l - 1)
		}
		switch {
		case t.kind == numberToken:
			p.labelledNumber(lastKey(t.path), string(out[t.s:t.e]))
		case t.kind == keyToken:
			p.str(t.view(out))
		case kinds[t.obj]&base64Object != 0 && lastKey(t.path) == "text" && a.base64Into(p, t.view(out), nil, out, t.s):
		default:
			if v := t.view(out); !a.nested(p, t.path, v, nil) {
				p.obj = kinds[t.obj]
				p.labelled(lastKey(t.path), v, p.str)
				p.obj = 0
			}
		}
		switch {
		case kinds[t.obj]&bankObject == 0:
		case t.kind == numberToken:
			p.bankObjectValue(lastKey(t.path), string(out[t.s:t.e]), true)
		case t.kind == stringToken:
			p.bankObjectValue(lastKey(t.path), t.view(out), false)
		}
	})
}

// numberStandIn makes a stand-in s for the JSON number v a JSON number of
// the same spelling: its digits from s, everything else (sign, point,
// exponent) from v, and no leading zero.
func (a *anonymizer) numberStandIn(v, s string) string {
	if len(s) != len(v) {
		return v // a stand-in of digits keeps its length; anything else names nobody
	}
	b := []byte(s)
	for i := range b {
		if !isDigit(v[i]) || !isDigit(b[i]) {
			b[i] = v[i]
		}
	}
	j := 0
	if b[0] == '-' {
		j = 1
	}
	if j+1 < len(b) && b[j] == '0' && isDigit(b[j+1]) {
		b[j] = '1' + (b[j+1]-'0')%9
	}
	n := string(b)
	if n == v { // every digit came back: change the last one
		b[len(b)-1] = '0' + (b[len(b)-1]-'0'+1)%10
		n = string(b)
	}
	a.r.dict.addStandIn(n)
	return n
}

// lastKey is the end of the last key of a path (its last 64 bytes: the
// name of the field a value stands in, as far as accountKey reads it),
// "" for an array's element. It looks at those bytes alone, whatever the
// path's depth.
func lastKey(path []byte) string {
	if len(path) > 0 && path[len(path)-1] == ']' {
		return ""
	}
	tail := path[max(0, len(path)-64):]
	return string(tail[bytes.LastIndexByte(tail, '.')+1:])
}

func shownPath(p []byte) string {
	if len(p) > maxShownPath {
		return string(p[:maxShownPath]) + "…"
	}
	return string(p)
}

// minEcho is the shortest identifier (in bytes) replaced where it stands
// inside other text: two CJK characters, or a four-digit code.
const minEcho = 4

// syntaxError says where a body stops being JSON.
type syntaxError struct {
	Line, Column int
	Msg          string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

type tokenKind uint8

const (
	stringToken tokenKind = iota
	keyToken
	numberToken
)

// token is a string value, an object key or a number that walk visits:
// its path (array indexes written [], so that every element of a list has
// one path; valid during the call only) and its span, quotes included.
type token struct {
	kind tokenKind
	path []byte
	s, e int
	obj  int // where the innermost object holding it starts
}

// content is the value of a string or key token.
func (t *token) content(b []byte) string {
	return jsonlex.StringAt(b, jsonlex.Span{Kind: jsonlex.String, Start: t.s, End: t.e})
}

// view is the value of a string or key token without a copy when it holds
// no escape: a string over b's bytes, valid while b is unchanged (walk
// never changes it). Most values are searched and left as they are, and a
// copy of each would cost its allocation and the collector's time.
func (t *token) view(b []byte) string {
	in := b[t.s+1 : t.e-1]
	if len(in) == 0 || bytes.IndexByte(in, '\\') >= 0 {
		return t.content(b)
	}
	return unsafe.String(&in[0], len(in))
}

// walk calls visit for every string value, key and number of the JSON
// document in b, in order. The document must be strict JSON (RFC 8259), as
// the validator reads it. The path is kept as one buffer that grows and
// shrinks with the walk, so a value costs its own bytes, not its depth.
func (a *anonymizer) walk(p *pass, b []byte, visit func(t *token)) error {
	var l jsonlex.Lexer
	l.Reset(b)
	t := &token{path: append(make([]byte, 0, 64), p.prefix...)}
	var value func()
	value = func() {
		p.tick(1)
		switch k := l.Peek(); k {
		case jsonlex.Object:
			// The object's values know it by where it starts (bankobject.go).
			outer := t.obj
			t.obj = l.Pos()
			defer func() { t.obj = outer }()
			if !l.Enter() {
				return
			}
			for first := true; ; first = false {
				n := len(t.path)
				s := l.Pos()
				key := l.Key(first)
				if n > 0 {
					t.path = append(t.path, '.')
				}
				kb := l.KeyBytes(key)
				t.path = append(t.path, kb...)
				p.tick(len(kb))
				t.kind, t.s, t.e = keyToken, s, keyEnd(b, s)
				visit(t)
				value()
				t.path = t.path[:n]
				if !l.More('}') {
					return
				}
			}
		case jsonlex.Array:
			if !l.Enter() {
				return
			}
			n := len(t.path)
			t.path = append(t.path, spec.Each...)
			for {
				value()
				if !l.More(']') {
					break
				}
			}
			t.path = t.path[:n]
		case jsonlex.String:
			s, e, _ := l.Str()
			p.tick(e - s)
			t.kind, t.s, t.e = stringToken, s, e
			visit(t)
		case jsonlex.Number:
			s, e, _, _ := l.Num()
			t.kind, t.s, t.e = numberToken, s, e
			visit(t)
		default:
			l.Lit(k)
		}
	}
	serr := l.Run(func() {
		l.Begin()
		value()
		l.End()
	})
	if serr != nil {
		line, col := jsonlex.Position(b, serr.Offset)
		return &syntaxError{Line: line, Column: col, Msg: serr.Msg}
	}
	return nil
}

// keyEnd is the end (after its closing quote) of the key whose opening
// quote is at b[s], which the lexer has read.
func keyEnd(b []byte, s int) int {
	i := s + 1
	for b[i] != '"' {
		if b[i] == '\\' {
			i++
		}
		i++
	}
	return i + 1
}

// walkStrings calls fn for every string value of the JSON document in b
// (keys are not values) with its path and span and its text.
func walkStrings(b []byte, fn func(path string, start, end int, v string)) error {
	a := &anonymizer{}
	p := &pass{a: a, ctx: context.Background()}
	return a.walk(p, b, func(t *token) {
		if t.kind == stringToken {
			fn(string(t.path), t.s, t.e, t.content(b))
		}
	})
}

// appendLike appends s as a JSON string written as orig, the string it
// replaces, was: where orig wrote a character beyond ASCII as a \u escape
// (a sender of ASCII alone: Python's json.dumps, Jackson's
// ESCAPE_NON_ASCII), every such character of s is escaped too, its hex in
// the case of orig's; else as jsonstr.Append writes it. Written as UTF-8,
// the stand-ins of such a body were the only bytes beyond ASCII in it.
func appendLike(out, orig []byte, s string) []byte {
	esc, upper, cased := false, false, false
	for i := bytes.Index(orig, []byte(`\u`)); i >= 0 && i+6 <= len(orig); {
		h := orig[i+2 : i+6]
		if v, err := strconv.ParseUint(string(h), 16, 16); err == nil && v >= utf8.RuneSelf {
			esc = true
			// The case of the first escape's hex letters (\u8054 has none).
			if !cased && bytes.ContainsAny(h, "ABCDEFabcdef") {
				upper, cased = bytes.ContainsAny(h, "ABCDEF"), true
			}
		}
		j := bytes.Index(orig[i+2:], []byte(`\u`))
		if j < 0 {
			break
		}
		i += 2 + j
	}
	if !esc {
		return jsonstr.Append(out, s)
	}
	hex := "0123456789abcdef"
	if upper {
		hex = "0123456789ABCDEF"
	}
	u := func(r rune) {
		out = append(out, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
	}
	var ascii strings.Builder
	flush := func() {
		if ascii.Len() > 0 {
			b := jsonstr.Append(nil, ascii.String())
			out = append(out, b[1:len(b)-1]...)
			ascii.Reset()
		}
	}
	out = append(out, '"')
	for _, r := range s {
		if r < utf8.RuneSelf {
			ascii.WriteRune(r)
			continue
		}
		flush()
		if r > 0xffff {
			r1, r2 := utf16.EncodeRune(r)
			u(r1)
			u(r2)
			continue
		}
		u(r)
	}
	flush()
	return append(out, '"')
}

// A string can hold a JSON document of its own: a HAR file's postData.text
// and content.text (the inspector's export for sharing), or a sender that
// writes data as a string ("data":"{\"staffName\":…}"). Searched as text,
// its fields said nothing: a staffName, a staffCode or a document's code
// there, with no role or shape of its own, was kept, and --check passed
// the file. Such a string is anonymized as a payload of its own, its paths
// under the string's (a payload's data written as a string), or from the
// root when it is an envelope of its own (businessType, requestId: a
// HAR's request body), and written back as a string.

// maxNested bounds how deep strings of JSON in strings are read.
const maxNested = 4

// nested anonymizes v, the value of a string at path, as a payload of its
// own when it is a JSON object or array, and reports whether it was one;
// the result goes to *out, or with out nil v is scanned as the check scans
// a payload.
func (a *anonymizer) nested(p *pass, path []byte, v string, out *string) bool {
	t := strings.TrimSpace(v)
	if len(t) < 2 || p.depth >= maxNested || !(t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		return false
	}
	b := []byte(v)
	prefix := append([]byte(nil), path...)
	if bytes.Contains(b, []byte(`"`+spec.FieldBusinessType+`"`)) || bytes.Contains(b, []byte(`"`+spec.FieldRequestID+`"`)) {
		prefix = nil
	}
	outer := p.prefix
	p.prefix = prefix
	p.depth++
	defer func() { p.prefix, p.depth = outer, p.depth-1 }()
	if out == nil {
		return a.scanPayload(p, b, false) == nil
	}
	n, repl, err := a.payload(p, b)
	if err != nil {
		return false
	}
	p.countFields(repl)
	*out = string(n)
	return true
}

// countFields counts into p the field values a payload read inside the
// one at hand replaced (a string of JSON, a stored answer, a HAR body in
// base64): its caller keeps the bytes alone, and the values found inside
// text its pass counted already. Uncounted, a run that replaced an
// answer's company name said it replaced nothing of it.
func (p *pass) countFields(repl []replaced) {
	for _, x := range repl {
		if !x.text {
			p.counts[x.Class]++
		}
	}
}
