package export

import (
	"fmt"
	"strings"
)

// maxName is the longest DNS-1123 label, the names Kubernetes gives its
// objects' labels.
const maxName = 63

// checkName says whether name may name the TestRun, its ConfigMap and its
// Secret: a DNS-1123 label (lower-case letters, digits and '-', a letter or
// digit at each end, at most 63), which is also safe in a shell and in YAML.
func checkName(name string) error {
	bad := len(name) == 0 || len(name) > maxName || name[0] == '-' || name[len(name)-1] == '-'
	for i := 0; i < len(name) && !bad; i++ {
		c := name[i]
		bad = !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-')
	}
	if bad {
		return fmt.Errorf("--name %q: want a DNS-1123 name (lower-case letters, digits and '-', a letter or digit first and last, at most %d)", name, maxName)
	}
	return nil
}

// shellQuote is s as one word of a POSIX shell: as it is when it holds only
// characters no shell treats specially, else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
