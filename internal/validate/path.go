package validate

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pathString renders the current path, with key appended when not "", in a
// readable form: data.收款明细[0].手续费. Keys that are not plain (empty,
// holding . [ ] quotes, spaces or unprintable characters) are written as
// ["quoted"], so that the path is unambiguous and safe on a terminal.
func (c *checker) pathString(key string) string {
	if len(c.path) == 0 && key == "" {
		return ""
	}
	var sb strings.Builder
	for _, s := range c.path {
		if s.idx >= 0 {
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(s.idx))
			sb.WriteByte(']')
			continue
		}
		appendKey(&sb, c.lx.KeyBytes(s.key))
	}
	if key != "" {
		appendKey(&sb, []byte(key))
	}
	return sb.String()
}

func appendKey(sb *strings.Builder, k []byte) {
	if plainKey(k) {
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		sb.Write(k)
		return
	}
	sb.WriteByte('[')
	sb.WriteString(strconv.Quote(string(k)))
	sb.WriteByte(']')
}

func plainKey(k []byte) bool {
	if len(k) == 0 || !utf8.Valid(k) {
		return false
	}
	for _, r := range string(k) {
		switch r {
		case '.', '[', ']', '"', '\'', '\\', ' ':
			return false
		}
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// quoteKey renders a key for a message.
func quoteKey(k []byte) string {
	if plainKey(k) {
		return string(k)
	}
	return strconv.Quote(string(k))
}
