package anonymize

import (
	"encoding/base64"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A sender or a receiver may put text in base64 where a name is not to be
// found as it is: a header (X-User: 546L5bu65Zu9, 王建国), a field of a
// body, a parameter of a query, a document in a string. A string that is
// base64 as a whole and decodes to text is searched decoded, as any other
// text, a document as a payload, and what changed is encoded again in the
// same alphabet and padding. Kept as it was, it carried its names while
// --check said nothing was left.
//
// Only text is read so: bytes that are not printable UTF-8 (an image, a
// hash, a signature, a word that happens to be in base64's alphabet) are
// left to the search of the string as it stands.

// minBase64 is the shortest string read as base64: two characters of
// CJK, a name, take eight.
const minBase64 = 8

// base64Text returns s anonymized through its decoded text; ok is false
// when s is no base64 of text, or nothing in that text changed (in a
// check: nothing was found), and s is then searched as it stands.
func (p *pass) base64Text(s string) (_ string, ok bool) {
	if p.depth >= maxNested {
		return s, false
	}
	enc, ok := base64Form(s)
	if !ok {
		return s, false
	}
	p.tick(len(s))
	raw, err := enc.DecodeString(s)
	if err != nil || !printable(raw) {
		return s, false
	}
	p.depth++
	defer func() { p.depth-- }()
	leaks := len(p.leaks)
	text := string(raw)
	var out string
	if t := strings.TrimSpace(text); len(t) >= 2 && (t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		// A document: read as a payload, its fields by their names.
		if p.check {
			if p.a.scanPayload(p, raw, false) != nil {
				p.text(text)
			}
			return s, len(p.leaks) > leaks
		}
		if b, repl, err := p.a.payload(p, raw); err == nil {
			p.countFields(repl)
			out = string(b)
		} else {
			out = p.text(text)
		}
	} else {
		out = p.text(text)
	}
	if p.check {
		return s, len(p.leaks) > leaks
	}
	if out == text {
		return s, false
	}
	return enc.EncodeToString([]byte(out)), true
}

// base64Form is the encoding s is written in, as a whole: the standard
// alphabet or the URL's, padded with "=" or not. ok is false for anything
// else, and for a string shorter than minBase64.
func base64Form(s string) (_ *base64.Encoding, ok bool) {
	if len(s) < minBase64 {
		return nil, false
	}
	body := strings.TrimRight(s, "=")
	pad := len(s) - len(body)
	if pad > 2 || pad > 0 && len(s)%4 != 0 || pad == 0 && len(s)%4 == 1 {
		return nil, false
	}
	std, url := false, false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '+' || c == '/':
			std = true
		case c == '-' || c == '_':
			url = true
		default:
			return nil, false
		}
	}
	switch {
	case std && url:
		return nil, false
	case url && pad > 0:
		return base64.URLEncoding, true
	case url:
		return base64.RawURLEncoding, true
	case pad > 0 || len(s)%4 == 0:
		return base64.StdEncoding, true
	}
	return base64.RawStdEncoding, true
}

// printable reports whether b is UTF-8 text: every character printable, or
// a tab, a line feed or a carriage return.
func printable(b []byte) bool {
	if len(b) == 0 || !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if !unicode.IsPrint(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
	}
	return true
}
