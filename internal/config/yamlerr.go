package config

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// yaml.v3 numbers the line of a syntax error as its scanner finds it
// (from 1), but its parser's errors (a flow collection never closed, a
// block mapping that meets "- a") from 0, one line before the line an
// editor shows; an error on the first line, and its reader's (bytes that
// are not UTF-8, control characters), get no line at all. whsim's message
// is read beside an editor, so yamlProblem says the editor's line.

// parserProblems are the problems yaml.v3's parser reports (parserc.go),
// whose lines it numbers from 0. Its scanner has none of these words.
var parserProblems = []string{
	"did not find expected <stream-start>",
	"did not find expected <document start>",
	"did not find expected node content",
	"did not find expected key",
	"did not find expected '-' indicator",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
	"found duplicate %TAG directive",
}

// scannerProblems are the problems yaml.v3's scanner reports
// (scannerc.go), whose lines it numbers from 1, except on the first line,
// which it does not name.
var scannerProblems = []string{
	"block sequence entries are not allowed in this context",
	"could not find expected ':'",
	"could not find expected directive name",
	"did not find URI escaped octet",
	"did not find expected '!'",
	"did not find expected alphabetic or numeric character",
	"did not find expected comment or line break",
	"did not find expected digit or '.' character",
	"did not find expected hexdecimal number",
	"did not find expected tag URI",
	"did not find expected version number",
	"did not find expected whitespace or line break",
	"did not find expected whitespace",
	"did not find the expected '>'",
	"found a tab character that violates indentation",
	"found a tab character where an indentation space is expected",
	"found an incorrect leading UTF-8 octet",
	"found an incorrect trailing UTF-8 octet",
	"found an indentation indicator equal to 0",
	"found character that cannot start any token",
	"found extremely long version number",
	"found invalid Unicode character escape code",
	"found unexpected document indicator",
	"found unexpected end of stream",
	"found unexpected non-alphabetical character",
	"found unknown directive name",
	"found unknown escape character",
	"mapping keys are not allowed in this context",
	"mapping values are not allowed in this context",
}

// readerProblems are the problems of yaml.v3's reader (readerc.go): the
// bytes themselves, which it places by no line.
var readerProblems = []string{
	"control characters are not allowed",
	"invalid leading UTF-8 octet",
	"invalid trailing UTF-8 octet",
	"incomplete UTF-8 octet sequence",
	"invalid length of a UTF-8 sequence",
	"invalid Unicode character",
}

// lineLed splits yaml.v3's "line N: problem" into N and the problem; 0
// and msg when it has no such lead. Read by hand, not by a package-level
// regexp: that would be compiled before main in every whsim process,
// whsim --version included, for an error few of them meet (#35).
func lineLed(msg string) (int, string) {
	rest, ok := strings.CutPrefix(msg, "line ")
	if !ok {
		return 0, msg
	}
	digits, problem, ok := strings.Cut(rest, ": ")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n < 0 || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, msg
	}
	return n, problem
}

// yamlProblem is yaml.v3's error message msg ("yaml: " taken off) about
// the document b, led by the line an editor shows it on (", line 3: ...")
// where that can be known, else by ": ".
func yamlProblem(msg string, b []byte) string {
	line, problem := lineLed(msg)
	switch {
	case slices.Contains(parserProblems, problem):
		line++ // from 0, and absent on the first line
	case slices.Contains(readerProblems, problem):
		line = badByteLine(b)
	case line == 0:
		if name, ok := unknownAnchorName(problem); ok {
			line = aliasLine(b, name)
		} else if slices.Contains(scannerProblems, problem) || strings.HasPrefix(problem, "exceeded max depth of ") {
			line = 1 // the scanner's, on the first line
		}
	}
	if line <= 0 {
		return ": " + problem
	}
	return ", line " + strconv.Itoa(line) + ": " + problem
}

// unknownAnchorName is the name in yaml.v3's "unknown anchor 'NAME'
// referenced".
func unknownAnchorName(problem string) (string, bool) {
	rest, ok := strings.CutPrefix(problem, "unknown anchor '")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, "' referenced")
}

// badByteLine is the line of the first byte of b yaml.v3's reader
// refuses: one that is not UTF-8, or a character YAML does not allow
// (YAML 1.2, 5.1: c-printable); 0 when there is none.
func badByteLine(b []byte) int {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && n == 1) || !yamlPrintable(r) {
			return lineAt(b, i)
		}
		i += n
	}
	return 0
}

func yamlPrintable(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r >= 0x20 && r <= 0x7e, r == 0x85:
		return true
	case r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd && r != 0xfeff, r >= 0x10000 && r <= 0x10ffff:
		return true
	}
	return false
}

// aliasLine is the line of the first *name in b that is an alias (ends
// where an anchor's name ends); 0 when none is.
func aliasLine(b []byte, name string) int {
	ref := []byte("*" + name)
	for off := 0; ; {
		i := bytes.Index(b[off:], ref)
		if i < 0 {
			return 0
		}
		end := off + i + len(ref)
		if end == len(b) || bytes.IndexByte([]byte(" \t\r\n,[]{}"), b[end]) >= 0 {
			return lineAt(b, off+i)
		}
		off = end
	}
}

// lineAt is the line, from 1, of the byte at off: a line ends at "\n",
// "\r\n" or a lone "\r", as YAML and editors end one.
func lineAt(b []byte, off int) int {
	line := 1
	for i := 0; i < off; i++ {
		if b[i] == '\n' || (b[i] == '\r' && (i+1 >= len(b) || b[i+1] != '\n')) {
			line++
		}
	}
	return line
}
