package cli

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// termSafe makes text that came from the network safe to print on a
// terminal: C0 and C1 control characters, DEL, bidi controls and invalid
// UTF-8 are written as escapes, so a body cannot move the cursor, retitle
// the window or reorder what the reader sees. keepNewlines leaves \n alone
// for multi-line output (a pretty-printed body).
func termSafe(s string, keepNewlines bool) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, isBidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isBidi reports the Unicode bidirectional formatting characters (the
// "Trojan Source" set): they reorder how a line displays.
func isBidi(r rune) bool {
	switch {
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

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
