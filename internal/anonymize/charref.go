package anonymize

import (
	"strconv"
	"strings"
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

// charRefs returns s anonymized through its character references
// decoded, searched by search (text, or query for a body kept as text);
// ok is false when s has none, or nothing changed (in a check: nothing
// was found), and s is then searched as it stands.
func (p *pass) charRefs(s string, search func(string) string) (_ string, ok bool) {
	if p.depth >= maxNested || !strings.Contains(s, "&#") {
		return s, false
	}
	p.tick(len(s))
	decoded, hex, n := decodeCharRefs(s)
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
		case hex:
			b.WriteString("&#x" + strconv.FormatInt(int64(r), 16) + ";")
		default:
			b.WriteString("&#" + strconv.Itoa(int(r)) + ";")
		}
	}
	return b.String(), true
}

// decodeCharRefs returns s with each numeric character reference to a
// character beyond ASCII (&#24352;, &#x5f20;) decoded, whether the first
// one was written in hex, and how many were decoded.
func decodeCharRefs(s string) (_ string, hex bool, n int) {
	var b strings.Builder
	done := 0
	for i := 0; i+3 < len(s); i++ {
		if s[i] != '&' || s[i+1] != '#' {
			continue
		}
		j, base := i+2, 10
		if s[j] == 'x' || s[j] == 'X' {
			j, base = j+1, 16
		}
		k := j
		for k < len(s) && k-j < 8 && (isDigit(s[k]) || base == 16 && strings.IndexByte("abcdefABCDEF", s[k]) >= 0) {
			k++
		}
		if k == j || k >= len(s) || s[k] != ';' {
			continue
		}
		v, err := strconv.ParseInt(s[j:k], base, 32)
		if err != nil || v < utf8.RuneSelf || !utf8.ValidRune(rune(v)) {
			continue
		}
		if n == 0 {
			hex = base == 16
		}
		n++
		b.WriteString(s[done:i])
		b.WriteRune(rune(v))
		done, i = k+1, k
	}
	if n == 0 {
		return s, false, 0
	}
	b.WriteString(s[done:])
	return b.String(), hex, n
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
