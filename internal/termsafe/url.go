package termsafe

import (
	"net/url"
	"strings"
)

// SecretQuery reports query parameters whose values are credentials: the
// names SecretHeader knows (token, access_token, api_key, secret,
// signature, password, auth…) and the short ones only a query uses (key,
// sig, pwd, jwt).
func SecretQuery(name string) bool {
	switch strings.ToLower(name) {
	case "key", "sig", "pwd", "pass", "jwt", "code":
		return true
	}
	return SecretHeader(name)
}

// URL is u as whsim shows it in any output (text, JSON, JUnit, reports,
// the job summary, exports, commands): a password masked (xxxxx, as
// url.URL.Redacted) and the values
// of the query parameters SecretQuery names masked, the rest of the query
// byte for byte. It is the one URL redaction; url.URL.Redacted alone
// leaves a ?token= in plain sight.
func URL(u *url.URL) string {
	if u == nil {
		return ""
	}
	r := *u
	r.RawQuery = MaskQuery(r.RawQuery)
	return r.Redacted()
}

// URLString is URL of a URL held as text; text that does not parse as a
// URL has its query masked as MaskQuery does.
func URLString(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		if base, q, ok := strings.Cut(s, "?"); ok {
			return base + "?" + MaskQuery(q)
		}
		return s
	}
	return URL(u)
}

// MaskQuery is a raw query with the values of its credential parameters
// replaced by ****, each parameter otherwise as it was.
func MaskQuery(raw string) string {
	if raw == "" {
		return raw
	}
	parts := strings.Split(raw, "&")
	changed := false
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if !ok || v == "" {
			continue
		}
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if SecretQuery(name) {
			parts[i] = k + "=****"
			changed = true
		}
	}
	if !changed {
		return raw
	}
	return strings.Join(parts, "&")
}
