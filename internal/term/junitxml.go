package term

import (
	"bufio"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// xmlHeader is the declaration a JUnit file starts with (encoding/xml's
// Header).
const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// An xmlElement is one element of a JUnit report: attributes in order,
// then character data or child elements.
//
// The reports were written by encoding/xml's Encoder with Indent("", "  ");
// they are written here byte for byte as it did (junitxml_test.go compares
// the two), because linking encoding/xml for two fixed shapes ran its init,
// an 18 KB entity table, in every process, whsim --version included (#35).
type xmlElement struct {
	name     string
	attrs    []xmlAttr
	text     string
	children []xmlElement
}

type xmlAttr struct{ name, value string }

// junitSeconds is a duration as JUnit's time attribute: seconds with three
// decimals, the most Surefire's schema allows.
func junitSeconds(d time.Duration) string {
	return strconv.FormatFloat(max(d, 0).Seconds(), 'f', 3, 64)
}

// writeXML writes e at depth as the indenting Encoder did: each element on
// a line of its own, indented two spaces a level, character data inline,
// and an element's end tag on a line of its own only after children.
func writeXML(w *bufio.Writer, e xmlElement, depth int) {
	if depth > 0 {
		w.WriteByte('\n')
		w.WriteString(strings.Repeat("  ", depth))
	}
	w.WriteByte('<')
	w.WriteString(e.name)
	for _, a := range e.attrs {
		w.WriteByte(' ')
		w.WriteString(a.name)
		w.WriteString(`="`)
		writeXMLEscaped(w, a.value)
		w.WriteByte('"')
	}
	w.WriteByte('>')
	writeXMLEscaped(w, e.text)
	for _, c := range e.children {
		writeXML(w, c, depth+1)
	}
	if len(e.children) > 0 {
		w.WriteByte('\n')
		w.WriteString(strings.Repeat("  ", depth))
	}
	w.WriteString("</")
	w.WriteString(e.name)
	w.WriteByte('>')
}

// writeXMLEscaped writes s as encoding/xml escaped attribute values and
// character data alike: the five markup characters and tab, newline and
// carriage return as references, a rune XML cannot hold (or a byte that
// is no UTF-8) as U+FFFD.
func writeXMLEscaped(w *bufio.Writer, s string) {
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if !xmlChar(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
				break
			}
			continue
		}
		w.WriteString(s[last : i-width])
		w.WriteString(esc)
		last = i
	}
	w.WriteString(s[last:])
}

// xmlChar reports whether XML 1.0 allows r in a document (its Char
// production).
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
