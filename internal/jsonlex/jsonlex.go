// Package jsonlex is a strict RFC 8259 JSON lexer over a byte slice. It
// reads values in place, with no intermediate tree and no allocation, and
// reports where each value lies (its byte span) so that callers can check a
// document in one pass (the validator), read one member without decoding
// the rest (a requestId), or replace values by their spans (anonymize).
//
// It refuses what RFC 8259 refuses and what encoding/json would accept or
// silently repair: a byte-order mark, invalid UTF-8, unescaped control
// characters, bad escapes, leading zeros, NaN and Infinity, trailing commas
// and trailing data, and nesting deeper than MaxDepth. Errors carry the
// byte offset; Position turns it into a line and column.
//
// The pull API (Peek, Str, Num, Enter, Key, More, ...) must be used inside
// Run: a syntax error unwinds to Run, as in go/parser, so that a caller
// walking a document needs no error check after every token.
package jsonlex

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/whsim/whsim/internal/termsafe"
)

// MaxDepth bounds nesting, as encoding/json does.
const MaxDepth = 10000

// Kind is a JSON value's type.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Number
	String
	Object
	Array
)

var kindNames = [...]string{"null", "boolean", "number", "string", "object", "array"}

func (k Kind) String() string { return kindNames[k] }

// syntaxError is the first place where a document stops being JSON.
type syntaxError struct {
	Offset int // byte offset in the document
	Msg    string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// Position returns the 1-based line and column (in characters) of byte
// offset off in b.
func Position(b []byte, off int) (line, col int) {
	lc := LineCounter{B: b}
	return lc.At(off)
}

// LineCounter gives the lines and columns of increasing offsets in B in
// one forward sweep: many positions cost one pass over the bytes. Lines end
// at LF, CRLF or a lone CR.
type LineCounter struct {
	B              []byte
	pos, line, col int
}

// At returns the 1-based line and column (in characters) of byte offset
// off; off must not be less than the previous call's.
func (c *LineCounter) At(off int) (line, col int) {
	if c.line == 0 {
		c.line, c.col = 1, 1
	}
	off = min(off, len(c.B))
	for c.pos < off {
		// A line ends at LF, CRLF or a lone CR, as editors count them
		// (JSON takes all three as whitespace): a file saved with CR-only
		// line ends is not one long line.
		if b := c.B[c.pos]; b == '\n' || b == '\r' && (c.pos+1 == len(c.B) || c.B[c.pos+1] != '\n') {
			c.line, c.col = c.line+1, 1
			c.pos++
			continue
		}
		_, size := utf8.DecodeRune(c.B[c.pos:])
		c.pos += size
		c.col++
	}
	return c.line, c.col
}

// Key is an object key read by Lexer.Key: a span of the document, or of the
// lexer's scratch buffer when the key held escapes. Lexer.KeyBytes reads it.
type Key struct {
	s, e    int32
	scratch bool
}

// Lexer reads one document. The zero value is ready after Reset; a Lexer
// may be reused for many documents.
type Lexer struct {
	b       []byte
	i       int
	depth   int
	scratch []byte
	// safe is the table of bytes Str passes over: strSafe, or
	// strSafeUTF8 for a document known to be valid UTF-8.
	safe *[256]bool
	// lone is 1 + the offset of the first lone surrogate escape read,
	// 0 when none was (LoneSurrogate).
	lone int
}

// Reset starts reading b.
func (l *Lexer) Reset(b []byte) {
	l.b, l.i, l.depth, l.scratch, l.safe, l.lone = b, 0, 0, l.scratch[:0], &strSafe, 0
}

// surrogate notes the \u escape at off (its backslash), of the UTF-16
// surrogate r: a lone one when it is a high surrogate that no \u escape
// of a low one follows, or a low one that no high one precedes. The
// escape is valid JSON, but parsers part ways on it (LoneSurrogate).
func (l *Lexer) surrogate(off int, r rune) {
	b := l.b
	if r < 0xDC00 { // high: its low half must follow
		if n := off + 6; n+6 <= len(b) && b[n] == '\\' && b[n+1] == 'u' &&
			isHex(b[n+2]) && isHex(b[n+3]) && isHex(b[n+4]) && isHex(b[n+5]) {
			if r2 := hex4(b[n+2 : n+6]); r2 >= 0xDC00 && r2 <= 0xDFFF {
				return
			}
		}
	} else if p := off - 6; p >= 0 && b[p] == '\\' && b[p+1] == 'u' && isHex(b[p+2]) && isHex(b[p+3]) && isHex(b[p+4]) && isHex(b[p+5]) {
		// low: paired when a high one's escape is right before it (and
		// that backslash is no escaped one's second: \\ud83d is the
		// text \ud83d, no escape).
		if r1 := hex4(b[p+2 : p+6]); r1 >= 0xD800 && r1 < 0xDC00 && escapeStarts(b, p) {
			return
		}
	}
	if l.lone == 0 {
		l.lone = off + 1
	}
}

// escapeStarts says the backslash at b[p] starts an escape: an even
// number of backslashes runs before it.
func escapeStarts(b []byte, p int) bool {
	n := 0
	for p-n-1 >= 0 && b[p-n-1] == '\\' {
		n++
	}
	return n%2 == 0
}

// LoneSurrogate is the offset of the first \u escape read since Reset that
// is half a UTF-16 surrogate pair with no other half (\ud800 alone): JSON
// allows it, but Go's encoding/json reads U+FFFD, JavaScript keeps the
// half, and PostgreSQL's jsonb refuses the document.
func (l *Lexer) LoneSurrogate() (off int, ok bool) {
	return l.lone - 1, l.lone != 0
}

// ResetUTF8 starts reading b, which the caller knows to be valid UTF-8
// (AppendStr's result always is): strings are read without checking their
// UTF-8 again, which is most of the work on the Chinese text of a body.
// Everything else is checked as after Reset, so the findings are the same.
func (l *Lexer) ResetUTF8(b []byte) {
	l.Reset(b)
	l.safe = &strSafeUTF8
}

// Rewind starts reading the document again from its start, as Reset or
// ResetUTF8 did (the UTF-8 knowledge kept): a caller whose quick pass gave
// up reads it again in full.
func (l *Lexer) Rewind() {
	l.i, l.depth, l.scratch, l.lone = 0, 0, l.scratch[:0], 0
}

// Bytes returns the document.
func (l *Lexer) Bytes() []byte { return l.b }

// Pos returns the offset of the next byte to read: after Peek, the start
// of the value.
func (l *Lexer) Pos() int { return l.i }

// bailout carries a syntax error from the failing token to Run.
type bailout struct{ err *syntaxError }

// Run calls f and returns the syntax error that stopped it, or nil. Every
// read of the pull API must happen inside Run.
func (l *Lexer) Run(f func()) (err *syntaxError) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			err = b.err
		}
	}()
	f()
	return nil
}

func (l *Lexer) fail(off int, msg string) {
	panic(bailout{&syntaxError{Offset: off, Msg: msg}})
}

func (l *Lexer) failf(off int, format string, args ...any) {
	l.fail(off, fmt.Sprintf(format, args...))
}

// describe says what is at off, for syntax messages.
func (l *Lexer) describe(off int) string {
	b := l.b
	if off >= len(b) {
		return "unexpected end of input (truncated?)"
	}
	rest := b[off:]
	switch {
	case bytes.HasPrefix(rest, []byte("NaN")), bytes.HasPrefix(rest, []byte("Infinity")),
		bytes.HasPrefix(rest, []byte("-Infinity")), bytes.HasPrefix(rest, []byte("+Infinity")):
		return "NaN and Infinity are not JSON numbers"
	case rest[0] == '\'':
		return "single quotes: JSON strings and keys use double quotes"
	case rest[0] == '/':
		return "comments are not allowed in JSON"
	}
	return l.describeChar(off)
}

// describeChar names the character at off (before the end), and no more:
// inside a token, as in a \u escape's four hex digits, what a value
// would start with (NaN, a quote, a comment) is not what went wrong.
func (l *Lexer) describeChar(off int) string {
	rest := l.b[off:]
	if rest[0] >= 0x80 {
		r, size := utf8.DecodeRune(rest)
		if r == utf8.RuneError && size <= 1 {
			return fmt.Sprintf("invalid UTF-8 byte 0x%02x", rest[0])
		}
		return fmt.Sprintf("unexpected character %q", r)
	}
	return fmt.Sprintf("unexpected character %q", rest[0])
}

// Begin checks what may not start a document (nothing, a byte-order mark,
// UTF-16 or UTF-32 text, only whitespace) and moves to its value.
func (l *Lexer) Begin() {
	b := l.b
	if len(b) == 0 {
		l.fail(0, "the body is empty")
	}
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		l.fail(0, "the body starts with a byte-order mark (U+FEFF), which RFC 8259 forbids")
	}
	// Another encoding's byte-order mark (Windows PowerShell 5's > and
	// Out-File write UTF-16) would otherwise be an invalid UTF-8 byte.
	switch {
	case len(b) >= 4 && b[0] == 0xFF && b[1] == 0xFE && b[2] == 0 && b[3] == 0:
		l.fail(0, "the body is UTF-32 (it starts with the byte-order mark FF FE 00 00); RFC 8259 wants UTF-8")
	case len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE || b[0] == 0xFE && b[1] == 0xFF):
		l.failf(0, "the body is UTF-16 (it starts with the byte-order mark %X %X); RFC 8259 wants UTF-8", b[0], b[1])
	}
	l.ws()
	if l.i == len(b) {
		l.fail(l.i, "the body holds only whitespace")
	}
}

// End checks that nothing but whitespace follows the document's value.
func (l *Lexer) End() {
	l.ws()
	if l.i < len(l.b) {
		l.fail(l.i, "trailing data after the JSON value: "+l.describe(l.i))
	}
}

// ws reads the whitespace at Pos. It is called after every token, and in
// a compact body finds none: one comparison says so (every byte JSON
// counts as whitespace is at most ' '), and the loop is a call away.
func (l *Lexer) ws() {
	if l.i >= len(l.b) || l.b[l.i] <= ' ' {
		l.skipWS()
	}
}

// wsBits has bit c set for each whitespace byte c of JSON.
const wsBits = 1<<' ' | 1<<'\t' | 1<<'\n' | 1<<'\r'

// skipWS reads the whitespace at Pos. An indented body's runs are a
// newline and its indentation, whose spaces it counts a word at a time.
// Kept out of line so that ws, on every token's path, stays inlined.
//
//go:noinline
func (l *Lexer) skipWS() {
	b, i := l.b, l.i
	for i < len(b) {
		c := b[i]
		if c > ' ' || wsBits>>c&1 == 0 {
			break
		}
		i++
		if c == '\n' {
			// The indentation: the spaces that open a word counted at once.
			for i+8 <= len(b) {
				n := bits.TrailingZeros64(binary.LittleEndian.Uint64(b[i:i+8])^ones*' ') >> 3
				i += n
				if n < 8 {
					break
				}
			}
		}
	}
	l.i = i
}

// startsKind is, for each byte, 1 + the kind of the value it starts, or 0
// when it starts none: Peek's one look-up where a chain of comparisons was.
var startsKind = func() (t [256]Kind) {
	t['{'], t['['], t['"'], t['t'], t['f'], t['n'], t['-'] = Object+1, Array+1, String+1, Bool+1, Bool+1, Null+1, Number+1
	for c := '0'; c <= '9'; c++ {
		t[c] = Number + 1
	}
	return t
}()

// Peek returns the kind of the value that starts at Pos.
func (l *Lexer) Peek() Kind {
	if l.i >= len(l.b) {
		l.fail(l.i, l.describe(l.i))
	}
	if k := startsKind[l.b[l.i]]; k != 0 {
		return k - 1
	}
	if isWordByte(l.b[l.i]) && !bytes.HasPrefix(l.b[l.i:], []byte("NaN")) && !bytes.HasPrefix(l.b[l.i:], []byte("Infinity")) {
		// A word no value starts with, as Python's True and None or
		// JavaScript's undefined: named whole, as Lit names `nulls`.
		l.bareWord(l.i)
	}
	l.fail(l.i, l.describe(l.i))
	return 0
}

// Lit reads the literal (null, true or false) of kind k.
func (l *Lexer) Lit(k Kind) {
	var want string
	switch {
	case k == Null:
		want = "null"
	case l.b[l.i] == 't':
		want = "true"
	default:
		want = "false"
	}
	// A broken literal names its first wrong byte and the literal it
	// began, not its first letter, which was right.
	rest := l.b[l.i:]
	// A word that goes on in letters is no broken literal but a bare word
	// (`not json`, `nulls`): "want null" would be a guess.
	for j := 0; j < len(want); j++ {
		if j >= len(rest) || rest[j] != want[j] {
			if j < len(rest) && isWordByte(rest[j]) {
				l.bareWord(l.i)
			}
			l.failf(l.i+j, "want %s: %s", want, l.describe(l.i+j))
		}
	}
	if len(rest) > len(want) && isWordByte(rest[len(want)]) {
		l.bareWord(l.i)
	}
	l.i += len(want)
}

// bareWord fails on the word without quotes that starts at off.
func (l *Lexer) bareWord(off int) {
	rest := l.b[off:]
	n := 0
	for n < len(rest) && n < 40 && isWordByte(rest[n]) {
		n++
	}
	l.failf(off, "not a JSON value: the bare word %q (only null, true and false go without quotes; a string needs double quotes)", rest[:n])
}

// isWordByte says whether c goes on a bare word: an ASCII letter, digit
// or underscore.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// strSafe marks bytes a string may hold as they are.
var strSafe = func() (t [256]bool) {
	for i := 0x20; i < 0x80; i++ {
		t[i] = i != '"' && i != '\\'
	}
	return t
}()

// strSafeUTF8 is strSafe for valid UTF-8: every byte of a multi-byte
// sequence is at least 0x80, so none of them can be a quote, a backslash
// or a control byte.
var strSafeUTF8 = func() (t [256]bool) {
	t = strSafe
	for i := 0x80; i < 0x100; i++ {
		t[i] = true
	}
	return t
}()

// lead3 marks the bytes E1-EC and EE-EF: each leads a three-byte UTF-8
// sequence that is valid whenever its two continuation bytes are (E0 and
// ED also bound the second byte's range).
var lead3 = func() (t [256]bool) {
	for c := 0xE1; c <= 0xEF; c++ {
		t[c] = c != 0xED
	}
	return t
}()

// Str reads a string; s and e span it with its quotes, esc says it holds
// escapes (see Content).
func (l *Lexer) Str() (s, e int, esc bool) {
	b, safe := l.b, l.safe
	if safe == nil { // a Lexer used without Reset
		safe = &strSafe
	}
	s = l.i
	i := s + 1
	words := safe == &strSafeUTF8
	for {
		// In a document known to be UTF-8, eight bytes at a time to the
		// first quote, backslash or control: every byte of a Chinese key
		// or value passes, and most are over a word long. (Without it,
		// each CJK character stops a word for its UTF-8 check, and
		// words cost more than the table did: receipts 1.4x.)
		for words && i+8 <= len(b) {
			if m := stops(binary.LittleEndian.Uint64(b[i : i+8])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for {
			for i < len(b) && safe[b[i]] {
				i++
			}
			// A three-byte sequence led by E1-EC or EE-EF (the CJK of
			// Chinese documents among them) is valid whenever both
			// continuation bytes are: one mask, here rather than after
			// the switch below.
			if i+4 > len(b) || !lead3[b[i]] || binary.LittleEndian.Uint32(b[i:i+4])&0xc0c000 != 0x808000 {
				break
			}
			i += 3
		}
		if i >= len(b) {
			l.fail(i, "unexpected end of input inside a string (truncated?)")
		}
		switch ch := b[i]; {
		case ch == '"':
			l.i = i + 1
			return s, i + 1, esc
		case ch == '\\':
			esc = true
			i++
			if i >= len(b) {
				l.fail(i, "unexpected end of input inside a string (truncated?)")
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for j := 1; j <= 4; j++ {
					if i+j >= len(b) {
						l.fail(i+j, "unexpected end of input inside a string (truncated?)")
					}
					if !isHex(b[i+j]) {
						l.failf(i+j, "invalid \\u escape: want four hex digits: %s", l.describeChar(i+j))
					}
				}
				if r := hex4(b[i+1 : i+5]); utf16.IsSurrogate(r) {
					l.surrogate(i-1, r)
				}
				i += 5
			default:
				// The escaped character is shown terminal-safe: it may be
				// a control byte or not UTF-8 at all.
				r, size := utf8.DecodeRune(b[i:])
				if r == utf8.RuneError && size <= 1 {
					l.failf(i-1, "invalid escape \\%s in a string", termsafe.Text(string(b[i:i+1])))
				}
				l.failf(i-1, "invalid escape \\%s in a string", termsafe.Text(string(b[i:i+size])))
			}
		case ch < 0x20:
			l.failf(i, "control character 0x%02x in a string (must be escaped)", ch)
		default:
			// Three-byte sequences led by E1-EC or EE-EF (the CJK of
			// Chinese documents among them) are valid whenever both
			// continuation bytes are: checked inline, without
			// utf8.DecodeRune's slow path, which took 9% of validate's
			// CPU on the fixtures (README, Performance).
			if (ch >= 0xE1 && ch <= 0xEC || ch >= 0xEE && ch <= 0xEF) && i+2 < len(b) &&
				b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80 {
				i += 3
				continue
			}
			if ch < 0xC2 || ch > 0xF4 {
				l.failf(i, "invalid UTF-8 byte 0x%02x in a string", ch)
			}
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size <= 1 {
				l.failf(i, "invalid UTF-8 byte 0x%02x in a string", ch)
			}
			i += size
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stops marks, by its high bit, each byte of x (eight string bytes, the
// first in the low byte) that is a quote, a backslash or a control byte;
// the lowest mark is exact (a mark above it may be a borrow's), which is
// the one Str takes.
func stops(x uint64) uint64 {
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((q-ones)&^q | (bs-ones)&^bs | (x-ones*0x20)&^x) & highs
}

func isHex(ch byte) bool {
	return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f' || ch >= 'A' && ch <= 'F'
}

// Content returns the value of the string Str spanned: the bytes between
// its quotes, or, when it held escapes, its unescaped form in the lexer's
// scratch buffer (valid until the next Reset).
func (l *Lexer) Content(s, e int, esc bool) []byte {
	if !esc {
		return l.b[s+1 : e-1]
	}
	start := len(l.scratch)
	l.scratch = unescape(l.scratch, l.b[s+1:e-1])
	return l.scratch[start:]
}

// AppendStr reads a string as Str does and appends its value (what Content
// returns) to dst. It reads and unescapes in one pass, writing into dst's
// spare capacity: a capture record's body escapes every few bytes (each
// quote is \"), and Str then unescape read it twice and appended byte by
// byte. Anything but plain bytes, UTF-8 sequences and one-letter escapes
// (a \u escape, a control byte, invalid UTF-8, the end of input) is left
// to Str and unescape, so that the errors are theirs.
func (l *Lexer) AppendStr(dst []byte) []byte {
	b := l.b
	s := l.i
	// The value is never longer than the string's rest of the input.
	base := len(dst)
	if need := base + len(b) - s; cap(dst) < need {
		dst = append(dst[:cap(dst)], make([]byte, need-cap(dst))...)
	}
	out := dst[base : base+len(b)-s]
	o := 0
	for i := s + 1; i < len(b); {
		ch := b[i]
		if strSafe[ch] {
			out[o] = ch
			o++
			i++
			continue
		}
		switch {
		case ch == '"':
			l.i = i + 1
			return dst[:base+o]
		case ch == '\\' && i+1 < len(b):
			var v byte
			switch b[i+1] {
			case '"', '\\', '/':
				v = b[i+1]
			case 'b':
				v = '\b'
			case 'f':
				v = '\f'
			case 'n':
				v = '\n'
			case 'r':
				v = '\r'
			case 't':
				v = '\t'
			default:
				return l.appendStrSlow(dst[:base], s)
			}
			out[o] = v
			o++
			i += 2
			continue
		case (ch >= 0xE1 && ch <= 0xEC || ch >= 0xEE && ch <= 0xEF) && i+2 < len(b) &&
			b[i+1]&0xC0 == 0x80 && b[i+2]&0xC0 == 0x80:
			// As in Str: the CJK of Chinese documents, checked inline.
			out[o], out[o+1], out[o+2] = ch, b[i+1], b[i+2]
			o += 3
			i += 3
			continue
		}
		return l.appendStrSlow(dst[:base], s)
	}
	return l.appendStrSlow(dst[:base], s)
}

// appendStrSlow is AppendStr by Str and unescape, from the string at s.
func (l *Lexer) appendStrSlow(dst []byte, s int) []byte {
	l.i = s
	s, e, esc := l.Str()
	if !esc {
		return append(dst, l.b[s+1:e-1]...)
	}
	return unescape(dst, l.b[s+1:e-1])
}

// unescape appends the value of src, the inside of a string Str accepted,
// to dst. A lone surrogate becomes U+FFFD, as in encoding/json.
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

// Num reads a number; s and e span it. integral says its value has no
// fractional part (5007.0 and 1e3 are integral), neg that it is negative.
func (l *Lexer) Num() (s, e int, integral, neg bool) {
	b := l.b
	i := l.i
	s = i
	if b[i] == '-' {
		neg = true
		i++
	}
	if i >= len(b) {
		l.fail(i, l.describe(i))
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
		if neg && !bytes.HasPrefix(b[s:], []byte("-Infinity")) {
			l.failf(i, "a number needs a digit after its minus sign: %s", l.describe(i))
		}
		l.fail(s, l.describe(s))
	}
	intEnd := i
	fracStart, fracEnd := i, i
	if i < len(b) && b[i] == '.' {
		i++
		fracStart = i
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			l.failf(i, "a number needs digits after its decimal point: %s", l.describe(i))
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
			l.failf(i, "a number needs digits in its exponent: %s", l.describe(i))
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
	if i < len(b) && runsOn(b[i]) {
		l.runOnNumber(s, i)
	}
	l.i = i
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

// runsOn says whether c, right after a number, goes on with it: a digit
// (after a leading zero), a point, a minus or a letter. None may follow a
// number in JSON; together they are text written without its quotes.
func runsOn(c byte) bool { return c == '.' || c == '-' || isWordByte(c) }

// numberRunsOn is runsOn as a table, for PlainNum's one look after each
// number.
var numberRunsOn = func() (t [256]bool) {
	for c := range t {
		t[c] = runsOn(byte(c))
	}
	return t
}()

// runOnNumber fails on the number from s that goes on at e (0038,
// 29.01.27.01, 2026-10-08, 0x1F): text written without its quotes, which
// "want ',' or '}'" at the byte after the number's first part would not
// say.
func (l *Lexer) runOnNumber(s, e int) {
	b := l.b
	n := e
	for n < len(b) && n-s < 40 && runsOn(b[n]) {
		n++
	}
	d := s // the first digit
	if b[d] == '-' {
		d++
	}
	why := ""
	if b[d] == '0' && b[d+1] >= '0' && b[d+1] <= '9' {
		why = "JSON numbers have no leading zeros; "
	}
	l.failf(s, "not a JSON number: %s (%stext such as a code or a date goes in double quotes)", b[s:n], why)
}

// PlainNum reads a number written plainly, as amounts, counts and
// timestamps are: -?(0|[1-9][0-9]*)(\.[0-9]+)? of at most 15 digits, with
// no exponent. Its value is converted as its digits are read, once: f is
// what Float returns for it (exactFloat's case: the digits and the power of
// ten are exact in a float64, so one division rounds it correctly). frac
// says it has a fraction part as written (5.00 too), neg that it starts
// with '-'. Any other number, or text that is no number, it leaves unread
// (ok false) for Num, which reads and judges it; it never fails itself.
func (l *Lexer) PlainNum() (s, e int, f float64, frac, neg, ok bool) {
	b := l.b
	i := l.i
	s = i
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	if i >= len(b) {
		return
	}
	var m uint64
	digits := 0
	switch ch := b[i]; {
	case ch == '0':
		i++
		digits = 1
	case ch >= '1' && ch <= '9':
		// (Each digit read once, its count from the offsets.)
		for ; i < len(b); i++ {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			m = m*10 + uint64(d)
		}
		digits = i - s
		if neg {
			digits--
		}
	default:
		return
	}
	nf := 0
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for ; i < len(b); i++ {
			d := b[i] - '0'
			if d > 9 {
				break
			}
			m = m*10 + uint64(d)
		}
		if nf = i - start; nf == 0 {
			return
		}
		frac = true
	}
	// (m wraps past 19 digits; such a number is refused here anyway.)
	if digits+nf > 15 || i < len(b) && numberRunsOn[b[i]] {
		return // an exponent, or a number that runs on (Num says so)
	}
	l.i = i
	f = float64(int64(m)) // (m < 10^15: a signed conversion is one instruction, an unsigned one a branch)
	if nf > 0 {
		f /= pow10[nf]
	}
	if neg {
		f = -f
	}
	return s, i, f, frac, neg, true
}

// Float returns the value of the number Num spanned (±Inf when it is out
// of range).
func (l *Lexer) Float(s, e int) float64 {
	if f, ok := exactFloat(l.b[s:e]); ok {
		return f
	}
	f, _ := strconv.ParseFloat(unsafe.String(&l.b[s], e-s), 64)
	return f
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat reads a JSON number without an exponent and of at most 15
// digits, such as an amount or a timestamp: its digits and its power of ten
// are exact in a float64, so one division rounds it correctly, as
// strconv.ParseFloat would (which took 9% of validate's CPU on the
// fixtures, mostly reading the digits again).
func exactFloat(b []byte) (float64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var m uint64
	digits, frac := 0, -1
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if frac >= 0 {
				frac++
			}
		case c == '.' && frac < 0:
			frac = 0
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	f := float64(m)
	if frac > 0 {
		f /= pow10[frac]
	}
	if neg {
		f = -f
	}
	return f, true
}

// Enter reads the '{' or '[' at Pos and the whitespace after it. It
// returns false, having read the closing byte too, for an empty object or
// array; otherwise a member (Key) or element (Peek) follows, and More
// reads what comes after each.
func (l *Lexer) Enter() bool {
	close := byte(']')
	if l.b[l.i] == '{' {
		close = '}'
	}
	l.i++
	l.depth++
	if l.depth > MaxDepth {
		l.failf(l.i-1, "nesting deeper than %d levels", MaxDepth) // at the bracket that opens one level too many
	}
	l.ws()
	if l.i < len(l.b) && l.b[l.i] == close {
		l.i++
		l.depth--
		return false
	}
	return true
}

// Key reads an object member's key and its ':'; first says it is the
// object's first member (so a '}' here is not a trailing comma).
func (l *Lexer) Key(first bool) Key {
	if l.i >= len(l.b) {
		l.fail(l.i, l.describe(l.i))
	}
	if l.b[l.i] != '"' {
		switch {
		case l.b[l.i] == '}' && !first:
			l.fail(l.i, "trailing comma before '}'")
		case l.b[l.i] == '\'':
			l.fail(l.i, l.describe(l.i))
		}
		l.failf(l.i, "want a double-quoted key: %s", l.describe(l.i))
	}
	s, e, esc := l.Str()
	var k Key
	if esc {
		start := len(l.scratch)
		l.scratch = unescape(l.scratch, l.b[s+1:e-1])
		k = Key{s: int32(start), e: int32(len(l.scratch)), scratch: true}
	} else {
		k = Key{s: int32(s + 1), e: int32(e - 1)}
	}
	l.ws()
	if l.i >= len(l.b) || l.b[l.i] != ':' {
		l.failf(l.i, "want ':' after a key: %s", l.describe(l.i))
	}
	l.i++
	l.ws()
	return k
}

// KeyIs reads, as Key does, the member's key when it is name, written
// without escapes, and reports whether it was; when it is not, nothing is
// read, and Key reads the key. name must be a key Str reads as it is (see
// PlainKey): then its bytes in quotes are a string Key would read to the
// same Key, and the comparison replaces reading the string. A validator
// that expects the members in the model's order reads its keys so.
func (l *Lexer) KeyIs(name string) (Key, bool) {
	b, q := l.b, l.i
	s := q + 1
	e := s + len(name)
	if e >= len(b) || b[q] != '"' || b[e] != '"' {
		return Key{}, false
	}
	if n := len(name); n >= 8 && n <= 16 {
		// A key of 8 to 16 bytes (three to five Chinese characters) is
		// two loads a side, overlapping, where a string comparison is a
		// call into the runtime's memequal.
		if binary.LittleEndian.Uint64(b[s:s+8]) != str64(name, 0) || binary.LittleEndian.Uint64(b[e-8:e]) != str64(name, n-8) {
			return Key{}, false
		}
	} else if n >= 4 && n < 8 {
		if binary.LittleEndian.Uint32(b[s:s+4]) != str32(name, 0) || binary.LittleEndian.Uint32(b[e-4:e]) != str32(name, n-4) {
			return Key{}, false
		}
	} else if string(b[s:e]) != name {
		return Key{}, false
	}
	i := e + 1
	if i >= len(b) || b[i] != ':' { // whitespace before the colon, or none
		l.i = i
		l.ws()
		if i = l.i; i >= len(b) || b[i] != ':' {
			l.failf(i, "want ':' after a key: %s", l.describe(i))
		}
	}
	i++
	switch {
	case i < len(b) && b[i] > ' ': // compact
		l.i = i
	case i+1 < len(b) && b[i] == ' ' && b[i+1] > ' ':
		l.i = i + 1 // the one space of "key": value, as indented JSON writes it
	default:
		l.i = i
		l.skipWS()
	}
	return Key{s: int32(s), e: int32(e)}, true
}

// str64 and str32 are the eight and four bytes of s from i, the first in
// the low byte (one load each: the compiler joins the bytes).
func str64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func str32(s string, i int) uint32 {
	s = s[i : i+4]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// PlainKey says whether name may be given to KeyIs: valid UTF-8 with no
// quote, backslash or control byte, so that Str reads it between quotes as
// it is.
func PlainKey(name string) bool {
	if !utf8.ValidString(name) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == '"' || name[i] == '\\' {
			return false
		}
	}
	return true
}

// KeyBytes returns a key's unescaped bytes, valid until the next Reset.
func (l *Lexer) KeyBytes(k Key) []byte {
	if k.scratch {
		return l.scratch[k.s:k.e]
	}
	return l.b[k.s:k.e]
}

// More reads the ',' after a member or element, or the closing byte
// ('}' or ']'); it reports whether another member or element follows.
func (l *Lexer) More(close byte) bool {
	l.ws()
	if l.i >= len(l.b) {
		l.fail(l.i, l.describe(l.i))
	}
	switch l.b[l.i] {
	case ',':
		l.i++
		l.ws()
		if close == ']' && l.i < len(l.b) && l.b[l.i] == ']' {
			l.fail(l.i, "trailing comma before ']'")
		}
		return true
	case close:
		l.i++
		l.depth--
		return false
	}
	l.failf(l.i, "want ',' or '%c': %s", close, l.describe(l.i))
	return false
}

// Skip reads a value of kind k without looking into it (duplicate keys
// inside are not reported).
func (l *Lexer) Skip(k Kind) {
	switch k {
	case Object:
		if !l.Enter() {
			return
		}
		for first := true; ; first = false {
			l.Key(first)
			l.Skip(l.Peek())
			if !l.More('}') {
				return
			}
		}
	case Array:
		if !l.Enter() {
			return
		}
		for {
			l.Skip(l.Peek())
			if !l.More(']') {
				return
			}
		}
	case String:
		l.Str()
	case Number:
		l.Num()
	default:
		l.Lit(k)
	}
}
