package termsafe

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// Credential is a value a run sends that no output may show, and the
// mask outputs show in its place.
type Credential struct {
	Value, Mask string
}

// Credentials are the credential values of a run, to be masked in what the
// receiver answered (its status line, headers and body) before any output
// shows it: a receiver that echoes its request would otherwise have whsim
// publish, in a job summary or a JUnit file, the very values it masks in
// the requests it shows. The masks are the requests' own (Mask, URLString),
// so an echoed "Authorization: Bearer s3cr3t" reads as the request's
// "Bearer ****".
//
// A value shorter than MinMasked bytes is masked only where it stands as a
// word of its own (no letter or digit on either side): masked everywhere,
// a one-byte token would turn every "a" of the body into ****, and the
// answer would say nothing; such a value is no secret an excerpt could
// give away that a guess would not.
type Credentials []Credential

// MinMasked is the shortest value masked wherever it occurs (Credentials).
const MinMasked = 4

// Add adds v, shown as mask; an empty value, or one that is its own mask,
// is none. A receiver that echoes its request as JSON writes the value
// escaped: the escaped forms are added too, Go's (\u003c for <, \" for
// a quote) and PHP's json_encode's (\/ for a slash, which base64 tokens
// and signatures hold).
func (c Credentials) Add(v, mask string) Credentials {
	if v == "" || v == mask {
		return c
	}
	c = c.add(v, mask)
	if b, err := json.Marshal(v); err == nil {
		escaped := string(b[1 : len(b)-1])
		c = c.add(escaped, mask)
		c = c.add(strings.ReplaceAll(escaped, "/", `\/`), mask)
	}
	return c
}

// add adds v, shown as mask, unless it is there already.
func (c Credentials) add(v, mask string) Credentials {
	for _, have := range c {
		if have.Value == v {
			return c
		}
	}
	return append(c, Credential{v, mask})
}

// AddHeader adds the credential of a header, if its name is a secret one
// (SecretHeader): its value, and the credential after its scheme
// ("Bearer s3cr3t": s3cr3t) or a signature's version ("v1,c2ln": c2ln),
// which a receiver may quote alone. A Basic credential adds what it
// decodes to, the password (and the user when it has none: a token).
func (c Credentials) AddHeader(name, v string) Credentials {
	if !SecretHeader(name) {
		return c
	}
	if scheme, cred, ok := strings.Cut(v, " "); ok && len(scheme) <= 16 {
		c = c.Add(strings.TrimSpace(cred), "****")
		if strings.EqualFold(scheme, "basic") {
			if b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred)); err == nil {
				user, pw, _ := strings.Cut(string(b), ":")
				c = c.addUser(user, pw)
			}
		}
	} else if _, sig, ok := strings.Cut(v, ","); ok {
		c = c.Add(sig, "****")
	}
	return c.Add(v, Mask(name, v))
}

// AddHeaders adds the credentials of every secret header in h (AddHeader).
func (c Credentials) AddHeaders(h http.Header) Credentials {
	for k, vs := range h {
		if !SecretHeader(k) {
			continue
		}
		for _, v := range vs {
			c = c.AddHeader(k, v)
		}
	}
	return c
}

// AddURL adds the credentials a URL carries: its password, shown xxxxx as
// URLString shows it, its user when it has no password (a token,
// https://TOKEN@host), and the values of its credential query parameters,
// as sent and decoded, shown ****.
func (c Credentials) AddURL(u *url.URL) Credentials {
	if u == nil {
		return c
	}
	if u.User != nil {
		pw, _ := u.User.Password()
		c = c.addUser(u.User.Username(), pw)
	}
	for raw := u.RawQuery; raw != ""; {
		var p string
		p, raw, _ = strings.Cut(raw, "&")
		if k, v, ok := strings.Cut(p, "="); ok && SecretParam(k, v) {
			c = c.Add(v, "****")
			if d, err := url.QueryUnescape(v); err == nil {
				c = c.Add(d, "****")
			}
		}
	}
	return c
}

// AddSecret adds a signing secret (whsec_ and its key in base64): whole,
// and its key alone, which a receiver's library may quote.
func (c Credentials) AddSecret(secret string) Credentials {
	if key, ok := strings.CutPrefix(secret, "whsec_"); ok && key != "" {
		c = c.Add(key, "****")
	}
	return c.Add(secret, "****")
}

// addUser adds the password of a user's credentials, or the user when
// there is no password: then the user is the token.
func (c Credentials) addUser(user, pw string) Credentials {
	if pw != "" {
		return c.Add(pw, "xxxxx")
	}
	return c.Add(user, "****")
}

// String is s with every credential in it masked; cut says s is the start
// of a longer text, so that a credential cut at its end is masked too (its
// first MinMasked bytes or more). With nothing to mask it is s itself,
// and allocates nothing.
func (c Credentials) String(s string, cut bool) string {
	if len(c) == 0 || !c.in(s, cut) {
		return s
	}
	return c.mask(s, cut)
}

// Bytes is String of b; b itself when nothing in it is masked (it is
// never written to).
func (c Credentials) Bytes(b []byte, cut bool) []byte {
	if len(c) == 0 || !c.in(string(b), cut) { // no copy: the conversion only reads
		return b
	}
	return []byte(c.mask(string(b), cut))
}

// Header is h with every credential in its names and values masked; h
// itself when none is in it (it is never written to).
func (c Credentials) Header(h http.Header) http.Header {
	if len(c) == 0 || h == nil {
		return h
	}
	var out http.Header
	for k, vs := range h {
		changed := c.in(k, false)
		for _, v := range vs {
			changed = changed || c.in(v, false)
		}
		if !changed {
			continue
		}
		if out == nil {
			out = h.Clone()
		}
		delete(out, k)
		masked := make([]string, len(vs))
		for i, v := range vs {
			masked[i] = c.String(v, false)
		}
		out[c.String(k, false)] = append(out[c.String(k, false)], masked...)
	}
	if out == nil {
		return h
	}
	return out
}

// in says whether s holds a credential to mask (or, cut, ends in the
// start of one): a quick look before mask builds anything.
func (c Credentials) in(s string, cut bool) bool {
	for _, cr := range c {
		if len(cr.Value) >= MinMasked && strings.Contains(s, cr.Value) ||
			len(cr.Value) < MinMasked && wordIndex(s, cr.Value) >= 0 ||
			cut && cutTail(s, cr.Value) > 0 {
			return true
		}
	}
	return false
}

// mask is s with each credential masked, the longest one found at each
// place first (a password that holds another credential is masked whole).
func (c Credentials) mask(s string, cut bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		best := -1
		for j, cr := range c {
			if strings.HasPrefix(s[i:], cr.Value) && (best < 0 || len(cr.Value) > len(c[best].Value)) &&
				(len(cr.Value) >= MinMasked || c.word(s, i, len(cr.Value))) {
				best = j
			}
		}
		if best >= 0 {
			b.WriteString(c[best].Mask)
			i += len(c[best].Value)
			continue
		}
		if cut && len(s)-i >= MinMasked {
			if m := c.cutAt(s[i:]); m != "" {
				b.WriteString(m) // the rest is a credential's start
				break
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// cutAt is the mask of the credential that rest, the end of a cut text,
// is the start of; "" when it is none's.
func (c Credentials) cutAt(rest string) string {
	for _, cr := range c {
		if len(rest) < len(cr.Value) && strings.HasPrefix(cr.Value, rest) {
			return cr.Mask
		}
	}
	return ""
}

// word says whether s[i:i+n] stands as a word of its own.
func (Credentials) word(s string, i, n int) bool {
	return (i == 0 || !alnum(s[i-1])) && (i+n == len(s) || !alnum(s[i+n]))
}

// wordIndex is where v first stands in s as a word of its own, -1 for
// nowhere.
func wordIndex(s, v string) int {
	for off := 0; off < len(s); {
		i := strings.Index(s[off:], v)
		if i < 0 {
			return -1
		}
		if (Credentials{}).word(s, off+i, len(v)) {
			return off + i
		}
		off += i + 1
	}
	return -1
}

// cutTail is the length of the longest end of s, MinMasked bytes or more,
// that is a start of v shorter than v (a credential cut where s was cut);
// 0 for none.
func cutTail(s, v string) int {
	for n := min(len(s), len(v)-1); n >= MinMasked; n-- {
		if s[len(s)-n:] == v[:n] {
			return n
		}
	}
	return 0
}

func alnum(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}
