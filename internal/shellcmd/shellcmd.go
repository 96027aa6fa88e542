// Package shellcmd builds the command lines whsim prints for a user to
// paste into a POSIX shell: reproductions, probe questions, hints, the
// inspector's copy-as-curl. One quoting rule for all of them, so that a
// command whsim prints runs as printed.
package shellcmd

import (
	"slices"
	"strings"
)

// plain are the bytes no POSIX shell treats specially anywhere in a word.
const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%"

// Quote quotes s as one word for a POSIX shell: in single quotes, each
// single quote in s closed, escaped and reopened, so nothing in s is
// expanded.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
// from that command on.
func Vars(cmd string) []string {
	var names []string
	single, double := false, false
	for i := 0; i < len(cmd); i++ {
		ch := cmd[i]
		switch {
		case single:
			single = ch != '\''
		case ch == '#' && !double && (i == 0 || cmd[i-1] == ' ' || cmd[i-1] == '\t'):
			if at := strings.Index(cmd[i:], "whsim "); at >= 0 {
				for _, name := range Vars(cmd[i+at:]) {
					if !slices.Contains(names, name) {
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
			if name := cmd[j:k]; name != "" && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	return names
}
