package inspect

import (
	"fmt"
	"strings"
)

// MinTokenLen is the shortest session token a user may choose. A drawn
// one has 26 characters (130 bits); 16 random characters of the allowed
// set are about 96 bits, beyond guessing through a local port.
const MinTokenLen = 16

// minDistinct is how many different characters a chosen token needs:
// "aaaaaaaaaaaaaaaa" and "abababababababab" are long enough and guessable.
const minDistinct = 8

// tokenChars are the characters a chosen token may have: those a URL's
// query and a cookie carry as they are (RFC 3986 unreserved), so the
// printed URL and the cookie hold the token unchanged.
const tokenChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"

// CheckToken says why tok cannot be the session's token, nil when it can.
// The error never repeats the token.
func CheckToken(tok string) error {
	n := 0
	for _, r := range tok {
		n++
		if !strings.ContainsRune(tokenChars, r) {
			return fmt.Errorf("character %d is not a letter, digit, '-', '.', '_' or '~' (the URL and the cookie carry it as is)", n)
		}
	}
	if len(tok) < MinTokenLen {
		return fmt.Errorf("%d characters; a token needs at least %d (e.g. openssl rand -hex 16)", len(tok), MinTokenLen)
	}
	seen := map[rune]bool{}
	for _, r := range tok {
		seen[r] = true
	}
	if len(seen) < minDistinct {
		return fmt.Errorf("only %d different characters; a token needs at least %d, it is guessable (e.g. openssl rand -hex 16)", len(seen), minDistinct)
	}
	return nil
}
