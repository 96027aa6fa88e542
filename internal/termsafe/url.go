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
// the job summary, exports, commands): URLString of its text, a password
// masked (xxxxx, as url.URL.Redacted), a user without a password masked
// (****, UserMask) and the values of the query parameters SecretQuery
// names masked, the rest byte for byte. url.URL.Redacted alone leaves a
// ?token= and a https://TOKEN@host in plain sight.
func URL(u *url.URL) string {
	if u == nil {
		return ""
	}
	return URLString(u.String())
}

// UserMask is what a URL's user shows when it has no password: then the
// user is the credential (https://TOKEN@host, sent as Basic auth
// "TOKEN:"). It is the mask the echoed answers give the same token
// (Credentials.AddURL), so one token reads one way everywhere; no
// account is named four asterisks, and a URL read back with it is known
// to have lost its user (check --rerun asks for --url).
const UserMask = "****"

// URLString is the one URL redaction, done on the text alone: a
// password, a user without a password and the values of credential query
// parameters masked, every other byte as it was. So a probe's URL
// template keeps its {code}, which parsing and printing the URL would
// escape, and text that does not parse as a URL is masked all the same.
// A URL with nothing to mask comes back as it is, without allocating
// (send reports every delivery).
func URLString(s string) string {
	rest, fragment, hasFragment := strings.Cut(s, "#")
	base, q, hasQuery := strings.Cut(rest, "?")
	start, end, mask, hasUserinfo := UserinfoSpan(base)
	if !hasUserinfo && (!hasQuery || !secretIn(q)) {
		return s
	}
	if hasUserinfo {
		base = base[:start] + mask + base[end:]
	}
	if hasQuery {
		base += "?" + MaskQuery(q)
	}
	if hasFragment {
		base += "#" + fragment
	}
	return base
}

// UserinfoSpan finds the credential in a URL's userinfo, before its
// query, and the mask URLString shows for it: the password (xxxxx), else
// the user when it has no password (UserMask). ok is false when there is
// neither.
func UserinfoSpan(base string) (start, end int, mask string, ok bool) {
	if start, end, ok := PasswordSpan(base); ok {
		return start, end, "xxxxx", true
	}
	if start, end, ok := UserSpan(base); ok {
		return start, end, UserMask, true
	}
	return 0, 0, "", false
}

// PasswordSpan finds the password in a URL's text before its query:
// base[start:end] are the bytes between the user's name and the @ that
// ends the authority. ok is false when the URL has none.
func PasswordSpan(base string) (start, end int, ok bool) {
	from, userinfo, ok := userinfoOf(base)
	if !ok {
		return 0, 0, false
	}
	colon := strings.IndexByte(userinfo, ':')
	if colon < 0 {
		return 0, 0, false
	}
	return from + colon + 1, from + len(userinfo), true
}

// UserSpan finds the user of a URL's text before its query when the
// userinfo has no password: base[start:end] is the whole userinfo before
// the @, the token a URL such as https://TOKEN@host carries. ok is false
// when the URL has a password (PasswordSpan) or no user.
func UserSpan(base string) (start, end int, ok bool) {
	from, userinfo, ok := userinfoOf(base)
	if !ok || userinfo == "" || strings.IndexByte(userinfo, ':') >= 0 {
		return 0, 0, false
	}
	return from, from + len(userinfo), true
}

// userinfoOf finds the userinfo of a URL's text before its query: the
// bytes of the authority before its last @, from base[from:]. ok is false
// when the authority has no @, or the text has no authority.
func userinfoOf(base string) (from int, userinfo string, ok bool) {
	// The authority follows the first //, when only a scheme (or
	// nothing) comes before it.
	i := strings.Index(base, "//")
	if i < 0 || i > 0 && (base[i-1] != ':' || !scheme(base[:i-1])) {
		// Not an authority: a path that holds "://" (/a://b:c@d, a
		// relative reference), where url.URL.Redacted masks nothing.
		return 0, "", false
	}
	authority := base[i+2:]
	if slash := strings.IndexByte(authority, '/'); slash >= 0 {
		authority = authority[:slash]
	}
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return 0, "", false
	}
	return i + 2, authority[:at], true
}

// scheme says whether s is a URL scheme (RFC 3986, 3.1): a letter, then
// letters, digits, "+", "-" and ".".
func scheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// HasCredential says whether a URL's text carries a credential that
// URLString masks: a password, a user without a password, or a value of
// a credential query parameter. A URL read back masked still says yes:
// what it held is not in it.
func HasCredential(s string) bool {
	rest, _, _ := strings.Cut(s, "#")
	base, q, _ := strings.Cut(rest, "?")
	_, _, _, userinfo := UserinfoSpan(base)
	return userinfo || secretIn(q)
}

// secretIn says whether a raw query has a credential parameter with a value.
func secretIn(raw string) bool {
	for raw != "" {
		var p string
		p, raw, _ = strings.Cut(raw, "&")
		if k, v, ok := strings.Cut(p, "="); ok && SecretParam(k, v) {
			return true
		}
	}
	return false
}

// SecretParam says whether a query parameter's value is a credential to
// mask: a value, of a parameter SecretQuery names. A placeholder of a URL
// template ({code} in a probe's) is not one yet: it stands for a
// document's value, filled in when the URL is made.
func SecretParam(k, v string) bool {
	if v == "" || len(v) > 2 && v[0] == '{' && v[len(v)-1] == '}' && !strings.ContainsAny(v[1:len(v)-1], "{}") {
		return false
	}
	return SecretQuery(QueryKey(k))
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
		if k, v, ok := strings.Cut(p, "="); ok && SecretParam(k, v) {
			parts[i] = k + "=****"
		}
	}
	return strings.Join(parts, "&")
}

// URLsIn is s with each http:// or https:// URL in it masked as URLString
// masks one: an error's text quotes the URL it called (net/http's
// `Post "URL": …`), and that URL carries the credentials of the URL it
// was made from. A URL ends at a space, a quote or a bracket that cannot
// be in it unescaped.
func URLsIn(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	rest := s
	for {
		i := urlStart(rest)
		if i < 0 {
			break
		}
		n := strings.IndexAny(rest[i:], " \t\r\n\"'<>`")
		if n < 0 {
			n = len(rest) - i
		}
		b.WriteString(rest[:i])
		b.WriteString(URLString(rest[i : i+n]))
		rest = rest[i+n:]
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(rest)
	return b.String()
}

// urlStart is where the first http:// or https:// URL in s starts (the
// scheme in any case), -1 when there is none.
func urlStart(s string) int {
	for i := 0; i+len("http://") <= len(s); i++ {
		if s[i] != 'h' && s[i] != 'H' {
			continue
		}
		rest := s[i:]
		for _, scheme := range [...]string{"http://", "https://"} {
			if len(rest) >= len(scheme) && strings.EqualFold(rest[:len(scheme)], scheme) {
				return i
			}
		}
	}
	return -1
}
