// Package jsonstr quotes strings as JSON exactly as encoding/json does with
// HTML escaping off (invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped),
// without reflection: the capture writer and the payload encoder both sit
// on hot paths.
package jsonstr

import "unicode/utf8"

const hex = "0123456789abcdef"

// Append appends s to b as a quoted JSON string.
func Append(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		// Two- and three-byte sequences (accents, CJK) are checked here
		// without a call: well-formed and not U+2028 or U+2029 means
		// copied as they are. Anything else is decoded below.
		if i+1 < len(s) && c >= 0xc2 && c <= 0xdf && s[i+1]&0xc0 == 0x80 {
			i += 2
			continue
		}
		if i+2 < len(s) && c >= 0xe0 && c <= 0xef && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 &&
			(c != 0xe0 || s[i+1] >= 0xa0) && (c != 0xed || s[i+1] < 0xa0) &&
			(c != 0xe2 || s[i+1] != 0x80 || s[i+2]&0xfe != 0xa8) {
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
