package jsonlex

import "bytes"

// Span is where one value lies in a document: b[Start:End] is its text,
// quotes included for a string.
type Span struct {
	Kind       Kind
	Start, End int
}

// Member returns the span of the value of the top-level member name of
// the object b holds, reading b only as far as that member's value: the
// rest is neither checked nor decoded. ok is false when b does not start
// as an object, a syntax error comes first, or there is no such member.
// Keys are compared unescaped; with a duplicate key, the first wins.
func Member(b []byte, name string) (sp Span, ok bool) {
	var l Lexer
	l.Reset(b)
	return member(&l, name)
}

// MemberAnyBytes is Member reading strings' bytes as they are, UTF-8 or
// not: as receivers read a body whose string holds a byte that is not
// UTF-8 (Go's encoding/json and JavaScript's decoders take it for U+FFFD,
// where Member's strict read finds a syntax error and no member). Every
// other error is Member's.
func MemberAnyBytes(b []byte, name string) (sp Span, ok bool) {
	var l Lexer
	l.ResetUTF8(b) // passes a string's bytes over unchecked, which is the point here
	return member(&l, name)
}

// member is Member of the document l was reset to.
func member(l *Lexer, name string) (sp Span, ok bool) {
	err := l.Run(func() {
		l.Begin()
		if l.Peek() != Object || !l.Enter() {
			return
		}
		for first := true; ; first = false {
			k := l.Key(first)
			kind := l.Peek()
			if string(l.KeyBytes(k)) == name {
				start := l.i
				l.Skip(kind)
				sp, ok = Span{Kind: kind, Start: start, End: l.i}, true
				return
			}
			l.Skip(kind)
			if !l.More('}') {
				return
			}
		}
	})
	return sp, ok && err == nil
}

// Members returns the spans of every top-level member named name of the
// object b holds, in order: more than one when the key is given twice,
// which readers read differently (encoding/json the last, most others the
// first). Keys are compared unescaped. ok is false when b does not hold
// an object or its members end in a syntax error.
func Members(b []byte, name string) (spans []Span, ok bool) {
	var l Lexer
	l.Reset(b)
	return members(&l, name)
}

// MembersAnyBytes is Members reading strings' bytes as MemberAnyBytes does.
func MembersAnyBytes(b []byte, name string) (spans []Span, ok bool) {
	var l Lexer
	l.ResetUTF8(b)
	return members(&l, name)
}

// members is Members of the document l was reset to.
func members(l *Lexer, name string) (spans []Span, ok bool) {
	err := l.Run(func() {
		l.Begin()
		if l.Peek() != Object || !l.Enter() {
			return
		}
		for first := true; ; first = false {
			k := l.Key(first)
			kind := l.Peek()
			start := l.i
			l.Skip(kind)
			if string(l.KeyBytes(k)) == name {
				spans = append(spans, Span{Kind: kind, Start: start, End: l.i})
			}
			if !l.More('}') {
				ok = true
				return
			}
		}
	})
	return spans, ok && err == nil
}

// Seg is one step of a path into a document: an object member's key
// (unescaped), or an array index when Index >= 0.
type Seg struct {
	Key   string
	Index int
}

// Value is one value Walk visits: its span, and whether it is the value of
// a key its object already held (a duplicate).
type Value struct {
	Span
	Dup bool
}

// Walk checks that b is one strict JSON document and calls visit for each
// value in it, after the value is read (so a container's span is
// complete), with the path that leads to it; the top-level value has the
// empty path. The path is reused between calls: copy it to keep it.
func Walk(b []byte, visit func(path []Seg, v Value)) error {
	var l Lexer
	l.Reset(b)
	var path []Seg
	var walk func(dup bool)
	walk = func(dup bool) {
		kind := l.Peek()
		start := l.i
		switch kind {
		case Object:
			if l.Enter() {
				keys := map[string]bool{}
				for first := true; ; first = false {
					key := string(l.KeyBytes(l.Key(first)))
					d := keys[key]
					keys[key] = true
					path = append(path, Seg{Key: key, Index: -1})
					walk(d)
					path = path[:len(path)-1]
					if !l.More('}') {
						break
					}
				}
			}
		case Array:
			if l.Enter() {
				for idx := 0; ; idx++ {
					path = append(path, Seg{Index: idx})
					walk(false)
					path = path[:len(path)-1]
					if !l.More(']') {
						break
					}
				}
			}
		default:
			l.Skip(kind)
		}
		visit(path, Value{Span: Span{Kind: kind, Start: start, End: l.i}, Dup: dup})
	}
	if err := l.Run(func() {
		l.Begin()
		walk(false)
		l.End()
	}); err != nil {
		return err
	}
	return nil
}

// StringAt returns the value of the string whose span (quotes included)
// Member or Walk returned.
func StringAt(b []byte, sp Span) string {
	inner := b[sp.Start+1 : sp.End-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	return string(unescape(make([]byte, 0, len(inner)), inner))
}
