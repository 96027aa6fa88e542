// Package shellcmd builds the command lines whsim prints for a user to
// paste into a POSIX shell: reproductions, probe questions, hints, the
// inspector's copy-as-curl. One quoting rule for all of them, so that a
// command whsim prints runs as printed.
package shellcmd

import "strings"

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

// Words is each of words as a word, each after a space: flags to append
// to a command line.
func Words(words []string) string {
	var b strings.Builder
	for _, w := range words {
		b.WriteString(" " + Word(w))
	}
	return b.String()
}
