package export

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/whsim/whsim/internal/termsafe"
)

// Credentials names the credentials the calls carry in clear, as a k6
// data file holds them: the headers the one masking list names (-H
// Authorization, -H X-Api-Key), the URL's user (and password), and the
// query's credential parameters (?token=). Every call shares the URL and
// the headers given, so the first call says it; nil for none.
func Credentials(calls []Call) []string {
	if len(calls) == 0 {
		return nil
	}
	var words []string
	for _, name := range slices.Sorted(maps.Keys(calls[0].Header)) {
		if termsafe.SecretHeader(name) {
			words = append(words, "-H "+termsafe.Text(http.CanonicalHeaderKey(name)))
		}
	}
	u, err := url.Parse(calls[0].URL)
	if err != nil {
		return words
	}
	// A user without a password is often a token itself
	// (https://TOKEN@host), and goes out as Basic auth all the same.
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			words = append(words, "the URL's user and password")
		} else {
			words = append(words, "the URL's user")
		}
	}
	for _, p := range strings.Split(u.RawQuery, "&") {
		if k, v, ok := strings.Cut(p, "="); ok && termsafe.SecretParam(k, v) {
			// ?token=a&token=b is one name to mind.
			if w := "?" + termsafe.Text(termsafe.QueryKey(k)) + "="; !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
	}
	return words
}
