package cli

import (
	"net/http"
	"slices"
	"strings"

	"github.com/whsim/whsim/internal/termsafe"
)

// termSafe prints text that came from the network terminal-safe (see
// package termsafe); keepNewlines leaves \n alone for multi-line output (a
// pretty-printed body).
func termSafe(s string, keepNewlines bool) string {
	if keepNewlines {
		return termsafe.Lines(s)
	}
	return termsafe.Text(s)
}

func isBidi(r rune) bool { return termsafe.IsBidi(r) }

// secretHeader reports headers whose values are credentials or signatures
// and are masked when printed. The capture file keeps them: replay needs
// them, and the file is created 0600.
func secretHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	for _, w := range []string{"signature", "token", "secret", "api-key", "apikey", "password", "auth"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// maskValue keeps an Authorization scheme (Bearer, Basic) so the reader
// knows what kind of credential came, and hides the rest.
func maskValue(name, v string) string {
	if v == "" {
		return ""
	}
	if strings.EqualFold(name, "authorization") || strings.EqualFold(name, "proxy-authorization") {
		if scheme, _, ok := strings.Cut(v, " "); ok && len(scheme) <= 16 {
			return termSafe(scheme, false) + " ****"
		}
	}
	return "****"
}

// safeHeaders returns headers ready to print: sorted, masked, escaped.
func safeHeaders(h http.Header) [][2]string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	var out [][2]string
	for _, k := range names {
		for _, v := range h[k] {
			if secretHeader(k) {
				v = maskValue(k, v)
			} else {
				v = termSafe(v, false)
			}
			out = append(out, [2]string{termSafe(k, false), v})
		}
	}
	return out
}

// maskedHeaders returns a copy of h with credential and signature values
// masked, for JSON reports.
func maskedHeaders(h http.Header) http.Header {
	out := h.Clone()
	for k, vs := range out {
		if secretHeader(k) {
			for i, v := range vs {
				vs[i] = maskValue(k, v)
			}
		}
	}
	return out
}
