package cli

import (
	"strings"

	"github.com/whsim/whsim/internal/suggest"
)

// notOneOf is the usage error of a flag value outside its words: the words,
// and the one probably meant (--output jsn: "json").
func notOneOf(flag, value string, words []string) error {
	return usagef("%s %q: want one of %s%s", flag, value, strings.Join(words, ", "), suggest.Hint(value, words))
}
