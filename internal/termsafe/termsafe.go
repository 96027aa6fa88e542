// Package termsafe makes text that came from outside (the network, a file,
// a payload) safe to print on a terminal: C0 and C1 control characters, DEL,
// bidi controls and invalid UTF-8 are written as escapes (\x1b, \u202e,
// \xff), so that the text cannot move the cursor, retitle the window, write
// the clipboard or reorder what the reader sees; so are U+FFFE and U+FFFF,
// which XML 1.0 lacks, so that a JUnit report quotes what the text does. It is the one formatter for
// such text in every command and output mode.
//
// A CI runner reads the output too: GitHub Actions takes a line that
// starts, after blanks, with "::name ...::" as a workflow command
// (::error::, ::add-mask::, ::stop-commands::), and "##[name]" anywhere
// in a line as one in its older form. Text from outside could so add
// annotations, mask words of the log, or switch off the commands that
// follow; it is shown with the first ':' of such a line written \x3a and
// the first '#' of "##[" written \x23.
package termsafe

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// Text returns s with every unsafe character escaped; newlines are escaped
// too, so the result stays on one line.
func Text(s string) string { return escape(s, false) }

// Lines is Text for multi-line output (a pretty-printed body): it leaves \n
// as it is.
func Lines(s string) string { return escape(s, true) }

// Message is Lines that leaves tabs too, for error messages laid out in
// lines and tabs (cobra's "Did you mean this?\n\tgenerate").
func Message(s string) string {
	parts := strings.Split(s, "\t")
	for i := range parts {
		parts[i] = Lines(parts[i])
	}
	return strings.Join(parts, "\t")
}

func escape(s string, keepNewlines bool) string {
	first := unsafeAt(s, keepNewlines)
	if first < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:first])
	lineStart := blankLineSoFar(s[:first], keepNewlines)
	for i := first; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHex(&b, `\x`, rune(s[i]), 2)
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			writeHex(&b, `\x`, r, 2)
		case r >= 0x80 && r <= 0x9f, isBidi(r), notXML(r):
			writeHex(&b, `\u`, r, 4)
		case r == ':' && lineStart && workflowCommand(s[i:]):
			b.WriteString(`\x3a`)
		case r == '#' && strings.HasPrefix(s[i:], "##["):
			b.WriteString(`\x23`)
		default:
			b.WriteString(s[i : i+size])
		}
		// What was written as an escape is no blank.
		lineStart = r == '\n' && keepNewlines || lineStart && blank(r)
		i += size
	}
	return b.String()
}

// unsafeAt returns the offset of the first byte escape would change, or -1.
func unsafeAt(s string, keepNewlines bool) int {
	lineStart := true // only blanks since the line began
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			switch {
			case c == ' ':
			case c == ':' && lineStart && workflowCommand(s[i:]):
				return i
			case c == '#' && strings.HasPrefix(s[i:], "##["):
				return i
			default:
				lineStart = false
			}
			i++
			continue
		}
		if c == '\n' && keepNewlines {
			lineStart = true
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r < 0x20 || r >= 0x7f && r <= 0x9f || isBidi(r) || notXML(r) || r == utf8.RuneError && size == 1 {
			return i
		}
		lineStart = lineStart && blank(r)
		i += size
	}
	return -1
}

// workflowCommand says whether s, at a line's start after its blanks,
// reads as a GitHub Actions workflow command: "::", a name, "::". The
// runner trims the line's leading white space (.NET's, which blank
// follows) before it looks.
func workflowCommand(s string) bool {
	return strings.HasPrefix(s, "::") && strings.Contains(s[2:], "::")
}

// CommandAt says whether Lines escapes the byte at s[i] for the runner's
// sake: the ':' that starts a workflow command at a line's start (s's
// own start counts as one), or the first '#' of "##[". A quoter that
// escapes it its own way (shellcmd) keeps the command it prints the same.
func CommandAt(s string, i int) bool {
	switch {
	case strings.HasPrefix(s[i:], "##["):
		return true
	case s[i] == ':':
		return workflowCommand(s[i:]) && blankLineSoFar(s[:i], true)
	}
	return false
}

// blank is white space that escape leaves as it is: the runner's trim
// passes over it to a command.
func blank(r rune) bool { return r == ' ' || r > 0x9f && unicode.IsSpace(r) }

// blankLineSoFar says whether the last line of s (all of it, without
// keepNewlines) holds only blanks.
func blankLineSoFar(s string, keepNewlines bool) bool {
	if keepNewlines {
		s = s[strings.LastIndexByte(s, '\n')+1:]
	}
	for _, r := range s {
		if !blank(r) {
			return false
		}
	}
	return true
}

func writeHex(b *strings.Builder, prefix string, r rune, digits int) {
	b.WriteString(prefix)
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[r>>shift&0xf])
	}
}

// isBidi reports the Unicode bidirectional formatting characters (the
// "Trojan Source" set): they reorder how a line displays.
func isBidi(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// notXML reports the two noncharacters, valid UTF-8, that XML 1.0 has no
// character for: a JUnit report wrote each as U+FFFD, so that it quoted
// another answer than the text and JSON of the same run did.
func notXML(r rune) bool { return r == 0xfffe || r == 0xffff }

// Safe reports whether s prints as it is: valid UTF-8 with no control, C1,
// DEL, bidi character or noncharacter XML lacks.
func Safe(s string) bool { return unsafeAt(s, false) < 0 }

const (
	highBits = 0x8080808080808080 // a byte of a word outside ASCII
	delBytes = 0x7f7f7f7f7f7f7f7f // DEL in every byte of a word
	lowBits  = 0x0101010101010101
)

// hasZeroByte says whether one of w's eight bytes is 0.
func hasZeroByte(w uint64) bool { return (w-lowBits)&^w&highBits != 0 }

// JSON returns encoded JSON with what encoders leave raw but a terminal
// would act on written as \u escapes: DEL, C1 and bidi controls, the
// noncharacters Text escapes too (notXML), and invalid UTF-8 as \ufffd (as encoding/json writes it), and the first '#'
// of "##[" as \u0023, which a CI runner would take for a command. The value is
// unchanged for a parser: outside strings JSON is ASCII. It returns b itself,
// without allocating, when there is nothing to escape.
func JSON(b []byte) []byte {
	b = jsonControls(b)
	if bytes.Contains(b, []byte("##[")) {
		// Inside a string: outside them JSON has no '#'. ReplaceAll
		// leaves b, which may be the caller's, as it was.
		b = bytes.ReplaceAll(b, []byte("##["), []byte(`\u0023#[`))
	}
	return b
}

// jsonControls is JSON for the control, bidi and invalid bytes.
func jsonControls(b []byte) []byte {
	first := -1
	for i := 0; i < len(b); {
		// Eight bytes at a time while they are ASCII without DEL: send
		// passes every delivery's line through here.
		if i+8 <= len(b) {
			if w := binary.LittleEndian.Uint64(b[i:]); w&highBits == 0 && !hasZeroByte(w^delBytes) {
				i += 8
				continue
			}
		}
		if b[i] < utf8.RuneSelf {
			if b[i] == 0x7f {
				first = i
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x80 && r <= 0x9f || isBidi(r) || notXML(r) || r == utf8.RuneError && size == 1 {
			first = i
			break
		}
		i += size
	}
	if first < 0 {
		return b
	}
	out := make([]byte, first, len(b)+16)
	copy(out, b)
	for i := first; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case r == 0x7f || r >= 0x80 && r <= 0x9f || isBidi(r) || notXML(r):
			out = append(out, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
		default:
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// Excerpt is the start of an answer's body as a failure's reason shows it
// (check's reasons, send's line, JUnit, HTML report and job summary):
// terminal-safe and so on one line, its line breaks and every other
// control written as escapes (\n, \x0b), the layout blanks at its ends
// trimmed, "…" where it was cut (cut: the body ran on past what was
// kept); "" for an empty one. One helper, so that every output shows the
// same words for the same answer: a \v or \f made a space would hide
// what the receiver sent, and XML 1.0 has no character for either.
func Excerpt(body []byte, cut bool) string {
	text := strings.Trim(string(body), " \t\r\n")
	if text == "" {
		return ""
	}
	if cut {
		return Text(text) + "…"
	}
	return Text(text)
}
