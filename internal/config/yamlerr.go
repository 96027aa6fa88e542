package config

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// yaml.v3 names one line in a syntax error, and not always the same
// one: the line where the construct it was parsing began (its "context":
// the [ of a flow list, the quote of a string, a block mapping's first
// key) unless that began on its first line, and then the line of the
// token it could not take, which at the end of the file is a line past
// the last. It numbers its parser's lines from 0 and its scanner's from
// 1, and names none on the first line. "url: [" was so said to be wrong
// on line 2 of a file of one line. yamlProblem parses the file again
// with a blank line before it, where no construct begins on the first
// line, so that yaml.v3 names each construct's start, and says the
// editor's line of it, or the end of the file, or, where the start of a
// block mapping or list is all yaml.v3 gives, says which that is.

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
// where that can be known, else by what can (", at its end: ...", ", in
// the mapping that starts on line 2: ..."), else by ": ".
func yamlProblem(msg string, b []byte) string {
	line, problem := lineLed(msg)
	at := 0
	switch {
	case slices.Contains(readerProblems, problem):
		at = badByteLine(b)
	default:
		if name, ok := unknownAnchorName(problem); ok {
			at = aliasLine(b, name)
			break
		}
		again, same := lineLed(strings.TrimPrefix(decodeError(blankLineBefore(b)), "yaml: "))
		scanner := scannerProblem(problem)
		switch {
		case same != problem:
			return ": " + problem // not the same error: no line known
		case scanner:
			at = again - 1 // numbered from 1, after the blank line
		case slices.Contains(parserProblems, problem):
			at = again // numbered from 0, after the blank line
		}
		what, ok := around[problem]
		switch {
		case !ok || at < 1:
		case at > 1:
			// The construct's start is all yaml.v3 names: the token it
			// could not take may be on a later line.
			return fmt.Sprintf(", in the %s that starts on line %d: %s", what, at, problem)
		default:
			// It starts on the first line: yaml.v3 named the token's own
			// line (its parser's from 0), or none for the first line.
			at = max(line, 1)
			if !scanner {
				at = line + 1
			}
			if pastTheEnd(b, at) {
				return fmt.Sprintf(", at its end: %s (in the %s that starts on line 1)", problem, what)
			}
		}
	}
	switch {
	case at <= 0:
		return ": " + problem
	case pastTheEnd(b, at):
		return ", at its end: " + problem
	}
	return ", line " + strconv.Itoa(at) + ": " + problem
}

// around names, for the problems whose line yaml.v3 gives as the start
// of the construct around the token it could not take (its context), what
// that construct is. For the others the line is the token's own, or the
// start of a token (a quoted string, a key, a directive) that is wrong
// from there.
var around = map[string]string{
	"did not find expected key":                                    "mapping",
	"did not find expected '-' indicator":                          "list",
	"did not find expected ',' or ']'":                             "list",
	"did not find expected ',' or '}'":                             "mapping",
	"found a tab character that violates indentation":              "value",
	"found a tab character where an indentation space is expected": "block scalar",
}

func scannerProblem(problem string) bool {
	return slices.Contains(scannerProblems, problem) || strings.HasPrefix(problem, "exceeded max depth of ")
}

// decodeError is yaml.v3's error decoding b's first document, "" for none.
func decodeError(b []byte) string {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil {
		return err.Error()
	}
	return ""
}

// blankLineBefore is b with a line break before its first line (after a
// byte order mark, which only the first bytes may be).
func blankLineBefore(b []byte) []byte {
	const bom = "\ufeff"
	rest, hadBOM := bytes.CutPrefix(b, []byte(bom))
	out := make([]byte, 0, len(b)+1)
	if hadBOM {
		out = append(out, bom...)
	}
	return append(append(out, '\n'), rest...)
}

// onLine is ", line N" for a node yaml.v3 places on line, "" when that is
// past the end of b: an empty value at the end ("---" alone) is placed on
// the line after the last.
func onLine(b []byte, line int) string {
	if line < 1 || pastTheEnd(b, line) {
		return ""
	}
	return ", line " + strconv.Itoa(line)
}

// pastTheEnd says whether line is past b's last line (an empty line after
// its last line break counted as none): where yaml.v3 places the end of
// the file, which is no line to look at.
func pastTheEnd(b []byte, line int) bool {
	last := lineAt(b, len(b))
	if n := len(b); n > 0 && (b[n-1] == '\n' || b[n-1] == '\r') {
		last-- // the empty "line" after the last line break
	}
	return line > last
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
