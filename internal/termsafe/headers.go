package termsafe

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
)

// SecretHeader reports headers whose values are credentials or signatures:
// masked when printed (listen, inspect, check), dropped when a capture is
// anonymized for sharing. It is the one list of secret header names; the
// capture file itself keeps them (replay needs them, and the file is
// created 0600).
func SecretHeader(name string) bool {
	// Lower-cased on the stack: a reporter asks this of every header and
	// query parameter of every call, and allocates nothing for it.
	var buf [64]byte
	if len(name) > len(buf) {
		return secretName([]byte(strings.ToLower(name)))
	}
	n := copy(buf[:], name)
	for i := range n {
		if 'A' <= buf[i] && buf[i] <= 'Z' {
			buf[i] += 'a' - 'A'
		}
	}
	return secretName(buf[:n])
}

// secretName is SecretHeader of a lower-case name.
func secretName(n []byte) bool {
	for _, w := range [...]string{"authorization", "proxy-authorization", "cookie", "set-cookie"} {
		if string(n) == w {
			return true
		}
	}
	for _, w := range [...]string{"signature", "token", "secret", "api-key", "api_key", "apikey",
		"access-key", "access_key", "password", "passwd", "auth", "session", "credential", "private-key", "hmac"} {
		if bytes.Contains(n, []byte(w)) {
			return true
		}
	}
	// A key in a header of its own name is the caller's: X-Functions-Key
	// (Azure Functions), Ocp-Apim-Subscription-Key (Azure API
	// Management), X-App-Key. They were printed, saved and sent to a
	// report's URL in the clear (found by hunt48). An idempotency key
	// names a request, not who sends it.
	if (bytes.HasSuffix(n, []byte("-key")) || bytes.HasSuffix(n, []byte("_key"))) && !bytes.Contains(n, []byte("idempotency")) {
		return true
	}
	return false
}

// Mask hides the value of a secret header. It keeps an Authorization
// scheme (Bearer, Basic) so the reader knows what kind of credential came.
func Mask(name, v string) string {
	if v == "" {
		return ""
	}
	if strings.EqualFold(name, "authorization") || strings.EqualFold(name, "proxy-authorization") {
		if scheme, _, ok := strings.Cut(v, " "); ok && len(scheme) <= 16 {
			return Text(scheme) + " ****"
		}
	}
	return "****"
}

// Headers returns headers ready to print: sorted, masked, escaped.
func Headers(h http.Header) [][2]string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	var out [][2]string
	for _, k := range names {
		for _, v := range h[k] {
			if SecretHeader(k) {
				v = Mask(k, v)
			} else {
				v = Text(v)
			}
			out = append(out, [2]string{Text(k), v})
		}
	}
	return out
}

// MaskHeaders returns a copy of h with credential and signature values
// masked, for JSON reports.
func MaskHeaders(h http.Header) http.Header {
	out := h.Clone()
	for k, vs := range out {
		if SecretHeader(k) {
			for i, v := range vs {
				vs[i] = Mask(k, v)
			}
		}
	}
	return out
}
