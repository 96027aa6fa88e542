// Package jsonstr quotes strings as JSON exactly as encoding/json does with
// HTML escaping off (invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped),
// without reflection: the capture writer and the payload encoder both sit
// on hot paths.
package jsonstr

import (
	"encoding/base64"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"
)

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
			b = appendEscaped(b, c)
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

// appendEscaped appends the escape of c, an ASCII byte JSON escapes: '"',
// '\\' or a control.
func appendEscaped(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
}

// AppendUTF8 is Append for s known to be valid UTF-8 (utf8.ValidString):
// only the ASCII bytes JSON escapes (controls, '"', '\\') and U+2028 and
// U+2029 need a look. It moves eight bytes at a time, word to word, testing
// each word for those bytes and for the 0xe2 that starts U+2028: a capture's
// body, mostly CJK with a quote every few bytes, costs a copy call per
// quote in Append and none here. Given invalid UTF-8 its output is not
// JSON's: callers must know s is valid (FuzzAppendUTF8 holds the two equal
// on valid input).
func AppendUTF8(b []byte, s string) []byte {
	b = append(b, '"')
	b = slices.Grow(b, len(s)+16)
	i := 0
	for i < len(s) {
		if cap(b)-len(b) < 16 {
			// An escape takes at most 6 bytes, a word 8.
			b = slices.Grow(b, len(s)-i+16)
		}
		n := len(b)
		if i+8 <= len(s) {
			// The whole word goes out; what follows a byte to look at is
			// written again after it.
			x := load64(s, i)
			binary.LittleEndian.PutUint64(b[n:n+8], x)
			m := attention(x)
			if m == 0 {
				b = b[:n+8]
				i += 8
				continue
			}
			k := bits.TrailingZeros64(m) >> 3
			b = b[:n+k]
			i += k
		} else if c := s[i]; c >= 0x20 && c != '"' && c != '\\' && c != 0xe2 {
			b = append(b, c)
			i++
			continue
		}
		c := s[i]
		switch c {
		case 0xe2:
			if i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&0xfe == 0xa8 {
				b = append(b, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xf])
				i += 3
				continue
			}
			b = append(b, c)
		default:
			b = appendEscaped(b, c)
		}
		i++
	}
	return append(b, '"')
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// load64 is the eight bytes of s from i, the first in the low byte.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// attention has the high bit set in the byte of x that is the first one
// below 0x20 or equal to '"', '\\' or 0xe2, and is 0 when none is. Bytes
// after the first flagged one may be flagged wrongly (a borrow carries into
// them), so only the lowest flag is to be read.
func attention(x uint64) uint64 {
	zero := func(v uint64) uint64 { return (v - ones) &^ v & highs }
	// A control byte or '"' (0x22) is, its bit 1 flipped, a byte below
	// 0x21 (the controls are permuted among themselves, '"' becomes
	// 0x20, and no byte from 0x20 up but '"' drops below 0x21): one test
	// for both.
	y := x ^ 0x02*ones
	return (y-0x21*ones)&^y&highs | zero(x^'\\'*ones) | zero(x^0xe2*ones)
}

// ByteEscaped is s with each byte that is not UTF-8 written \xNN, as
// whsim's text writes it, for a JSON member that names a place as the
// text and JUnit do (a file name with a Latin-1 byte): a JSON string holds
// only Unicode, and the U+FFFD Append writes for such a byte names no
// file. s itself when it is UTF-8.
func ByteEscaped(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Exact is s as a JSON member can hold it exactly, a file name that
// another tool opens: s itself when it is UTF-8, else its bytes in base64
// with encoding "base64", to be given in a member beside it (as a capture
// record marks such a path). A JSON string holds only Unicode: the U+FFFD
// Append writes for a byte that is not UTF-8 names no file.
func Exact(s string) (value, encoding string) {
	if utf8.ValidString(s) {
		return s, ""
	}
	return base64.StdEncoding.EncodeToString([]byte(s)), "base64"
}
