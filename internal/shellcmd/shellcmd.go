// Package shellcmd builds the command lines whsim prints for a user to
// paste into a POSIX shell: reproductions, probe questions, hints.
package shellcmd

import "strings"

// Quote quotes s as one word for a POSIX shell: in single quotes, each
// single quote in s closed, escaped and reopened, so nothing in s is
// expanded.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
