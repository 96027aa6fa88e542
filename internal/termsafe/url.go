package termsafe

import (
	"net/url"
	"strings"
)

// SecretQuery reports query parameters whose values are credentials: the
// names SecretHeader knows (token, access_token, api_key, secret,
// signature, password, auth…) and the short ones only a query uses (key,
// sig, pwd, pass, jwt, code).
func SecretQuery(name string) bool {
	if len(name) <= 4 {
		var buf [4]byte
		n := copy(buf[:], name)
		for i := range n {
			if 'A' <= buf[i] && buf[i] <= 'Z' {
				buf[i] += 'a' - 'A'
			}
		}
		for _, w := range [...]string{"key", "sig", "pwd", "pass", "jwt", "code"} {
			if string(buf[:n]) == w {
				return true
			}
		}
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
// URL has its query masked as MaskQuery does. A URL with nothing to mask
// comes back as it is, without allocating (send reports every delivery).
func URLString(s string) string {
	base, q, hasQuery := strings.Cut(s, "?")
	if !strings.Contains(base, "@") && (!hasQuery || !secretIn(q)) {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		if hasQuery {
			return base + "?" + MaskQuery(q)
		}
		return s
	}
	return URL(u)
}

// secretIn says whether a raw query has a credential parameter with a value.
func secretIn(raw string) bool {
	for raw != "" {
		var p string
		p, raw, _ = strings.Cut(raw, "&")
		if k, v, ok := strings.Cut(p, "="); ok && v != "" && SecretQuery(QueryKey(k)) {
			return true
		}
	}
	return false
}

// QueryKey is a raw query key unescaped, as it is when it cannot be: the
// name SecretQuery judges.
func QueryKey(k string) string {
	if n, err := url.QueryUnescape(k); err == nil {
		return n
	}
	return k
}

// MaskQuery is a raw query with the values of its credential parameters
// replaced by ****, each parameter otherwise as it was.
func MaskQuery(raw string) string {
	if !secretIn(raw) {
		return raw
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		if k, v, ok := strings.Cut(p, "="); ok && v != "" && SecretQuery(QueryKey(k)) {
			parts[i] = k + "=****"
		}
	}
	return strings.Join(parts, "&")
}
