package anonymize

import (
	"cmp"
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/spec"
)

// A body that should be JSON but does not parse (a byte that is not UTF-8
// in one name, a body cut short) is anonymized as text, and there its
// members still say what their values are, as XML's elements do
// (xmlelem.go): "staffName":"高华" was kept, and --check passed it, as no
// role stands before the name. Read leniently, such a text still gives
// each string its path: the value of an identifying field of the spec
// (data.staffName, but not a currency's code) gets its class's stand-in,
// the same as in a document that parses, and any other is labelled by its
// member's name as in JSON; what lies between the strings is searched as
// any text is.

// jsonMembers returns s, when it starts as JSON does ({ or [), with each
// string value replaced as a JSON document's is, and the text between them
// searched by rest. A value holding a backslash (an escape) is left to
// rest; a string the text ends in (a body cut short) runs to the end. In a
// check it returns s and records each as a leak.
func (p *pass) jsonMembers(s string, rest func(string) string) string {
	if !jsonShaped(s) {
		return rest(s)
	}
	var b strings.Builder
	done := 0
	value := func(path []byte, start, end int) {
		v := s[start:end]
		if strings.TrimSpace(v) == "" || strings.IndexByte(v, '\\') >= 0 {
			return
		}
		key := lastKey(path)
		var out string
		if c := cmp.Or(p.a.fieldClass(p, path), p.a.r.dict.keyClass(key, v, 0)); c != "" {
			w := &claimed{p: p, s: v, rest: rest}
			w.claimWhole(c)
			out = w.text()
		} else {
			out = p.labelled(key, v, rest)
		}
		b.WriteString(rest(s[done:start]))
		b.WriteString(out)
		done = end
	}
	lenientJSON(s, p.tick, value)
	return p.spliced(&b, s, done, rest)
}

// claimWhole claims all of w's text, the value of a field of class c, as
// the walk replaces such a field's (replaceCased): a tax id keyed in
// capitals and written in the value's case. A byte that is not UTF-8
// stays where it was, between the stand-in's characters: it may be what
// the body is shared for.
func (w *claimed) claimWhole(c class) {
	key, form := strings.ToValidUTF8(w.s, ""), keepInvalid
	if c == TaxID && alnum(w.s) {
		key, form = strings.ToUpper(w.s), caseLike
	}
	w.claimForm(0, len(w.s), c, key, form)
}

// keepInvalid is standIn with each byte of orig that is not UTF-8 after
// as many of its characters as stood before it in orig (at its end when it
// has fewer).
func keepInvalid(orig, standIn string) string {
	if utf8.ValidString(orig) {
		return standIn
	}
	var b strings.Builder
	at, runes := 0, 0
	for i := 0; i < len(orig); {
		r, n := utf8.DecodeRuneInString(orig[i:])
		if r == utf8.RuneError && n == 1 {
			for ; runes > 0 && at < len(standIn); runes-- {
				_, m := utf8.DecodeRuneInString(standIn[at:])
				b.WriteString(standIn[at : at+m])
				at += m
			}
			b.WriteByte(orig[i])
		} else {
			runes++
		}
		i += n
	}
	b.WriteString(standIn[at:])
	return b.String()
}

// jsonShaped says whether s starts as JSON text does, with { or [.
func jsonShaped(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return t != "" && (t[0] == '{' || t[0] == '[')
}

// bodyText anonymizes a body that is not JSON: as a form's parameters
// (query), unless it starts as JSON does, broken, where an & or an = is a
// value's own: read as a form's, they cut the text before the members
// that label their values. Plain text, with no = nor <, is read as a
// remark too (remarkNames).
func (p *pass) bodyText(s string) string {
	if jsonShaped(s) {
		return p.text(s)
	}
	if !strings.ContainsAny(s, "=<") {
		// Plain text (no form's parameters, no XML): free text as a
		// remark is, whose names need no role before them.
		return p.remarkNames(s, p.query)
	}
	return p.query(s)
}

// lenientJSON reads s as JSON text that may be broken (a byte that is not
// UTF-8, a cut), calling value with the path (as walk writes it:
// data.items[].comments) and the content's span of each string that is a
// value. What it cannot read as JSON is passed over.
func lenientJSON(s string, tick func(int), value func(path []byte, start, end int)) {
	type frame struct {
		n      int  // len(path) outside the container
		object bool // an object: its strings alternate key and value
	}
	var stack []frame
	var path []byte
	key, wantKey := "", false
	// at is the path of the value that starts here.
	at := func() []byte {
		if len(stack) == 0 || !stack[len(stack)-1].object {
			return path
		}
		if len(path) > 0 {
			return append(append(path, '.'), key...)
		}
		return append(path, key...)
	}
	for i := 0; i < len(s); i++ {
		tick(1)
		switch s[i] {
		case '{', '[':
			p := at()
			stack = append(stack, frame{n: len(path), object: s[i] == '{'})
			path = p
			if s[i] == '[' {
				path = append(path, spec.Each...)
			}
			wantKey = s[i] == '{'
		case '}', ']':
			if len(stack) > 0 {
				path = path[:stack[len(stack)-1].n]
				stack = stack[:len(stack)-1]
			}
			wantKey = false
		case ',':
			wantKey = len(stack) > 0 && stack[len(stack)-1].object
		case '"':
			start := i + 1
			end := start
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			end = min(end, len(s))
			tick(end - start)
			if wantKey {
				key, wantKey = s[start:end], false
			} else {
				value(at(), start, end)
			}
			i = end
		}
	}
}
