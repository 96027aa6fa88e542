// Package shellcmd builds the command lines whsim prints for a user to
// paste into a POSIX shell: reproductions, probe questions, hints, the
// inspector's copy-as-curl. One quoting rule for all of them, so that a
// command whsim prints runs as printed.
package shellcmd

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/termsafe"
)

// plain are the bytes no POSIX shell treats specially anywhere in a word.
const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%"

// Quote quotes s as one word for a POSIX shell: in single quotes, each
// single quote in s closed, escaped and reopened, so nothing in s is
// expanded. What a terminal would show escaped (termsafe: a tab, a CR,
// an escape, a bidi control, a byte that is no UTF-8; not a line break)
// goes as printf's octal escapes, "$(printf '\011')", outside the quotes:
// whsim prints its commands through termsafe, which made a tab inside
// the quotes a backslash and a t, and the command another one.
func Quote(s string) string {
	if unprintedAt(s) < 0 {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteByte('\'')
	for len(s) > 0 {
		i := unprintedAt(s)
		if i < 0 {
			i = len(s)
		}
		b.WriteString(strings.ReplaceAll(s[:i], "'", `'\''`))
		s = s[i:]
		if s == "" {
			break
		}
		n := unprintedLen(s)
		b.WriteString(`'"$(printf '`)
		for _, c := range []byte(s[:n]) {
			fmt.Fprintf(&b, `\%03o`, c)
		}
		b.WriteString(`')"'`)
		s = s[n:]
	}
	b.WriteByte('\'')
	return b.String()
}

// unprintedAt is the offset of the first rune of s that termsafe prints
// escaped, a line break aside; -1 when there is none.
func unprintedAt(s string) int {
	if termsafe.Lines(s) == s {
		return -1
	}
	for i := 0; i < len(s); {
		if unprinted(s, i) {
			return i
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return -1
}

// unprintedLen is the length of the run of runes (or bytes that are no
// UTF-8) at the start of s that termsafe prints escaped, a line break
// aside.
func unprintedLen(s string) int {
	n := 0
	for n < len(s) && unprinted(s, n) {
		_, size := utf8.DecodeRuneInString(s[n:])
		n += size
	}
	return n
}

// unprinted says whether termsafe prints the rune at s[i] escaped: by
// itself (a tab, a CR, an escape, a bidi control, a byte that is no
// UTF-8) or where it stands, as the start of what a CI runner would read
// as a workflow command (termsafe.CommandAt). A ':' after a line break in
// s starts a line of the printed command; at s's start it follows the
// opening quote, which no command starts with.
func unprinted(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	if r := s[i : i+size]; r == "\n" {
		return false
	} else if termsafe.Lines(r) != r {
		return true
	}
	return termsafe.CommandAt(s, i) && (s[i] == '#' || strings.LastIndexByte(s[:i], '\n') >= 0)
}

// Word is s as one word: as it is when it holds only plain bytes (a flag,
// a path, a simple URL), else quoted.
func Word(s string) string {
	if s != "" && strings.Trim(s, plain) == "" {
		return s
	}
	return Quote(s)
}

// Path is a file's path as one word that no command takes for an option:
// a relative path starting with - goes as ./-..., which names the same
// file (check --save-cases=-cases printed "whsim replay '-cases/...'",
// which replay read as -c, its --concurrency).
func Path(p string) string { return Word(NotOption(p)) }

// NotOption is a relative path p as a command reads it for a file, not
// an option: ./-x for -x, p itself else.
func NotOption(p string) string {
	if strings.HasPrefix(p, "-") {
		return "./" + p
	}
	return p
}

// Words is each of words as a word, each after a space: flags to append
// to a command line.
func Words(words []string) string {
	var b strings.Builder
	for _, w := range words {
		b.WriteString(" " + Word(w))
	}
	return b.String()
}

// Vars are the variables a printed command reads from the environment
// ($NAME or ${NAME} outside single quotes), each once, in order: the
// credentials a command meant to run again gives as variables, for its
// reader to set first. Special parameters ($1, $?, $(…)) are no names.
// A comment is prose, whose apostrophes quote nothing; the command a hint
// in it names to run ("# ...: whsim check --url ... -H "X: $X"") is read
// from that command on. A variable the command sets itself (rec='...';
// for i in ...) is read from there, not from its reader.
func Vars(cmd string) []string {
	var names, set []string
	single, double := false, false
	for i := 0; i < len(cmd); i++ {
		ch := cmd[i]
		switch {
		case single:
			single = ch != '\''
		case !double && wordStart(cmd, i) && setsName(cmd[i:]) != "":
			set = append(set, setsName(cmd[i:]))
			i += len(setsName(cmd[i:])) - 1
		case ch == '#' && !double && (i == 0 || cmd[i-1] == ' ' || cmd[i-1] == '\t'):
			if at := strings.Index(cmd[i:], "whsim "); at >= 0 {
				for _, name := range Vars(cmd[i+at:]) {
					if !slices.Contains(names, name) && !slices.Contains(set, name) {
						names = append(names, name)
					}
				}
			}
			return names
		case ch == '\\':
			i++
		case ch == '\'' && !double:
			single = true
		case ch == '"':
			double = !double
		case ch == '$':
			j := i + 1
			if j < len(cmd) && cmd[j] == '{' {
				j++
			}
			k := j
			for k < len(cmd) && (cmd[k] == '_' || 'A' <= cmd[k] && cmd[k] <= 'Z' || 'a' <= cmd[k] && cmd[k] <= 'z' || k > j && '0' <= cmd[k] && cmd[k] <= '9') {
				k++
			}
			if name := cmd[j:k]; name != "" && !slices.Contains(names, name) && !slices.Contains(set, name) {
				names = append(names, name)
			}
		}
	}
	return names
}

// wordStart says whether cmd[i] begins a word: the first byte, or one
// after a blank or an operator (; & | ( ).
func wordStart(cmd string, i int) bool {
	return i == 0 || strings.IndexByte(" \t\n;&|(", cmd[i-1]) >= 0
}

// setsName is the name a word at the start of w gives a value to
// (NAME=... or for NAME in), "" when it sets none.
func setsName(w string) string {
	w, loop := strings.CutPrefix(w, "for ")
	k := 0
	for k < len(w) && (w[k] == '_' || 'A' <= w[k] && w[k] <= 'Z' || 'a' <= w[k] && w[k] <= 'z' || k > 0 && '0' <= w[k] && w[k] <= '9') {
		k++
	}
	switch {
	case k == 0:
		return ""
	case loop && strings.HasPrefix(w[k:], " in "):
		return w[:k]
	case !loop && strings.HasPrefix(w[k:], "="):
		return w[:k]
	}
	return ""
}

// VarsNamed is the variables the commands read (Vars), each once, in
// order, named as a list for a sentence ("A, B and C"), and how many:
// what a reader is told to set before pasting them. "" when none.
func VarsNamed(cmds []string) (names string, n int) {
	var vars []string
	for _, c := range cmds {
		for _, v := range Vars(c) {
			if !slices.Contains(vars, v) {
				vars = append(vars, v)
			}
		}
	}
	if len(vars) == 0 {
		return "", 0
	}
	names = vars[0]
	if n := len(vars); n > 1 {
		names = strings.Join(vars[:n-1], ", ") + " and " + vars[n-1]
	}
	return names, len(vars)
}
