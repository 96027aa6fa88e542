package cmdutil

import (
	"strings"

	"github.com/whsim/whsim/internal/suggest"
)

// NotOneOf is the usage error of a flag value outside its words: the words,
// and the one probably meant (--output jsn: "json").
func NotOneOf(flag, value string, words []string) error {
	return Usagef("%s %q: want one of %s%s", flag, value, strings.Join(words, ", "), suggest.Hint(value, words))
}
