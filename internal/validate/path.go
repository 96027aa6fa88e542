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
		appendShownKey(&sb, c.lx.KeyBytes(s.key))
	}
	if key != "" {
		appendShownKey(&sb, []byte(key))
	}
	return sb.String()
}

// appendShownKey appends a key to a finding's path, cut to shownBytes and
// written quoted, "…" ending it, when longer: a finding is one line, which
// a megabyte key would otherwise be, in the path of every finding under it.
// The finding's line and column still place it. (JoinKey, which other
// packages address places with, keeps keys whole.)
func appendShownKey(sb *strings.Builder, k []byte) {
	if len(k) <= shownBytes {
		appendKey(sb, k)
		return
	}
	sb.WriteByte('[')
	sb.WriteString(strconv.Quote(string(shorten(k))))
	sb.WriteByte(']')
}

// JoinKey appends an object member name to a path written as findings
// write it, so that other packages can address the same places.
func JoinKey(path, key string) string {
	var sb strings.Builder
	sb.WriteString(path)
	appendKey(&sb, []byte(key))
	return sb.String()
}

// JoinIndex appends an array index to a path written as findings write it.
func JoinIndex(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

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

// quoteKey renders a key for a message; one longer than shownBytes is
// quoted in part, and the message says so.
func quoteKey(k []byte) string {
	if len(k) > shownBytes {
		return strconv.Quote(string(shorten(k))) + " (a key of " + strconv.Itoa(len(k)) + " bytes, quoted in part)"
	}
	if plainKey(k) {
		return string(k)
	}
	return strconv.Quote(string(k))
}
