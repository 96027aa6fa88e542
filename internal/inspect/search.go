package inspect

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonUnescaped is b with the escapes of JSON strings undone (\uXXXX, a
// surrogate pair, \/, \", \\, \n and the rest) and nil when b has none:
// the text the page's tree shows, for a search. A sender that escapes
// non-ASCII (Python's json.dumps, PHP's json_encode) sends "苏州" as
// "\u82cf\u5dde", which the bytes never match. An escape that does not
// read as one is left as it is. The copy is the search's alone, dropped
// once the call is matched: a search's work is bounded by the bytes of the
// bodies it looks at, and this at most doubles it for a body with escapes.
func jsonUnescaped(b []byte) []byte {
	i := bytes.IndexByte(b, '\\')
	if i < 0 {
		return nil
	}
	out := make([]byte, 0, len(b))
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			i++
			continue
		}
		// The escapes of one letter, each for the byte under it.
		const escaped, unescaped = "\"\\/bfnrt", "\"\\/\b\f\n\r\t"
		if k := strings.IndexByte(escaped, b[i+1]); k >= 0 {
			out = append(out, unescaped[k])
			i += 2
			continue
		}
		switch r, n := unicodeEscape(b[i:]); {
		case n > 0:
			out = utf8.AppendRune(out, r)
			i += n
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// unicodeEscape reads the \uXXXX at the start of b, and the low half of a
// surrogate pair after it: the rune and the bytes read, 0 when b does not
// start with one.
func unicodeEscape(b []byte) (rune, int) {
	r, ok := hex4(b)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if lo, ok := hex4(b[6:]); ok {
			if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
				return pair, 12
			}
		}
	}
	return r, 6
}

// hex4 reads "\uXXXX" at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[2:6]), 16, 32)
	return rune(n), err == nil
}

// queryUnescaped is a raw query as the page's Query table shows it (%XX
// and + decoded), "" when it has nothing to decode or does not decode.
func queryUnescaped(query string) string {
	if !strings.ContainsAny(query, "%+") {
		return ""
	}
	s, err := url.QueryUnescape(query)
	if err != nil {
		return ""
	}
	return s
}
