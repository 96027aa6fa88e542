package anonymize

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// XML and HTML may write a character as a numeric reference: an encoder
// set to ASCII writes <contactName>&#24352;&#20255;</contactName> for
// 张伟, where the name is not to be found as it is. A string with such
// references to characters beyond ASCII is searched with them decoded,
// and what changed is written back as references (in the same base,
// decimal or hex) when the string held no other character beyond ASCII,
// else as characters. References to ASCII (&#38; for &) are left as they
// are: decoding them would change the markup, not a name.
//
// JSON's escapes written into text (a log line, an error message that
// quotes a fragment: name=\u738b\u5efa\u56fd) are the same case: a JSON
// document in a string is read as one, but a fragment is text, and its
// escapes are decoded so too.

// charRefs returns s anonymized through its character references
// decoded, searched by search (text, or query for a body kept as text);
// ok is false when s has none, or nothing changed (in a check: nothing
// was found), and s is then searched as it stands.
func (p *pass) charRefs(s string, search func(string) string) (_ string, ok bool) {
	if p.depth >= maxNested || !strings.Contains(s, "&#") && !strings.Contains(s, `\u`) {
		return s, false
	}
	p.tick(len(s))
	decoded, form, n := decodeCharRefs(s)
	if n == 0 {
		return s, false
	}
	p.depth++
	defer func() { p.depth-- }()
	leaks := len(p.leaks)
	out := search(decoded)
	if p.check {
		return s, len(p.leaks) > leaks
	}
	if out == decoded {
		return s, false
	}
	if !asciiOnly(s) {
		return out, true
	}
	var b strings.Builder
	for _, r := range out {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case form == "\\u":
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				b.WriteString(fmt.Sprintf(`\u%04x\u%04x`, r1, r2))
			} else {
				b.WriteString(fmt.Sprintf(`\u%04x`, r))
			}
		case form == "&#x":
			b.WriteString("&#x" + strconv.FormatInt(int64(r), 16) + ";")
		default:
			b.WriteString("&#" + strconv.Itoa(int(r)) + ";")
		}
	}
	return b.String(), true
}

// decodeCharRefs returns s with each numeric character reference to a
// character beyond ASCII (&#24352;, &#x5f20;) and each JSON escape of one
// (\u5f20, a surrogate pair as one character) decoded, the form of the
// first one ("&#", "&#x" or `\u`), and how many were decoded.
func decodeCharRefs(s string) (_ string, form string, n int) {
	var b strings.Builder
	done := 0
	for i := 0; i+3 < len(s); i++ {
		var r rune
		var end int
		var f string
		switch {
		case s[i] == '&' && s[i+1] == '#':
			r, end, f = charRef(s, i)
		case s[i] == '\\' && s[i+1] == 'u':
			r, end, f = jsonEscape(s, i)
		default:
			continue
		}
		if end == 0 {
			continue
		}
		if n == 0 {
			form = f
		}
		n++
		b.WriteString(s[done:i])
		b.WriteRune(r)
		done, i = end, end-1
	}
	if n == 0 {
		return s, "", 0
	}
	b.WriteString(s[done:])
	return b.String(), form, n
}

// charRef reads the reference &#…; at s[i:]: its character, where it
// ends, and its form; end 0 when it is none, or names a character of
// ASCII.
func charRef(s string, i int) (r rune, end int, form string) {
	j, base, form := i+2, 10, "&#"
	if j < len(s) && (s[j] == 'x' || s[j] == 'X') {
		j, base, form = j+1, 16, "&#x"
	}
	k := j
	for k < len(s) && k-j < 8 && (isDigit(s[k]) || base == 16 && strings.IndexByte("abcdefABCDEF", s[k]) >= 0) {
		k++
	}
	if k == j || k >= len(s) || s[k] != ';' {
		return 0, 0, ""
	}
	v, err := strconv.ParseInt(s[j:k], base, 32)
	if err != nil || v < utf8.RuneSelf || !utf8.ValidRune(rune(v)) {
		return 0, 0, ""
	}
	return rune(v), k + 1, form
}

// jsonEscape reads the escape \uXXXX at s[i:] (with the low half of a
// surrogate pair after it, when it is the high one): its character,
// where it ends and its form; end 0 when it is none, or names a
// character of ASCII.
func jsonEscape(s string, i int) (r rune, end int, form string) {
	hex4 := func(at int) (rune, bool) {
		if at+6 > len(s) || s[at] != '\\' || s[at+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(s[at+2:at+6], 16, 16)
		return rune(v), err == nil
	}
	r, ok := hex4(i)
	switch {
	case !ok || r < utf8.RuneSelf:
		return 0, 0, ""
	case utf16.IsSurrogate(r):
		lo, ok := hex4(i + 6)
		if r = utf16.DecodeRune(r, lo); !ok || r == utf8.RuneError {
			return 0, 0, ""
		}
		return r, i + 12, `\u`
	}
	return r, i + 6, `\u`
}

// asciiOnly reports whether s holds no byte beyond ASCII.
func asciiOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
