// Package endpoint reads what the user says about a receiver: its URL (send's
// --url, listen's --forward-to, the inspector's replay and --origin), the
// request headers to send it, and the statuses that count as its success.
// Both sides use it, so it knows nothing of sending or receiving.
package endpoint

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/termsafe"
)

// ParseExpect reads the statuses that count as success: codes, NNxx
// classes and ranges, comma separated ("200,202", "2xx", "200-204").
func ParseExpect(s string) (func(int) bool, error) {
	type span struct{ lo, hi int }
	var spans []span
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		switch {
		case len(part) == 3 && strings.HasSuffix(strings.ToLower(part), "xx") && part[0] >= '1' && part[0] <= '5':
			lo := int(part[0]-'0') * 100
			spans = append(spans, span{lo, lo + 99})
		case strings.Contains(part, "-"):
			a, b, _ := strings.Cut(part, "-")
			lo, err1 := strconv.Atoi(a)
			hi, err2 := strconv.Atoi(b)
			if err1 != nil || err2 != nil || lo < 100 || hi > 599 || lo > hi {
				return nil, fmt.Errorf("bad range %q (want e.g. 200-204)", part)
			}
			spans = append(spans, span{lo, hi})
		default:
			n, err := strconv.Atoi(part)
			if err != nil || n < 100 || n > 599 {
				return nil, fmt.Errorf("bad status %q (want e.g. 200, 2xx or 200-204)", part)
			}
			spans = append(spans, span{n, n})
		}
	}
	return func(code int) bool {
		return slices.ContainsFunc(spans, func(s span) bool { return code >= s.lo && code <= s.hi })
	}, nil
}

// parseHeader reads one request header written 'Name: value'.
func parseHeader(s string) (string, string, error) {
	name, val, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || !headerName(name) {
		return "", "", fmt.Errorf("%q: want 'Name: value'", shownHeader(s))
	}
	return Header(name, val)
}

// shownHeader is a header the user wrote wrongly as a message quotes it:
// the value of one whose name says it is a credential (Authorization
// Bearer x, X-Api-Key x) masked, as everywhere else; the message reaches
// stderr, and the job summary, JUnit and report of a run that never began.
func shownHeader(s string) string {
	name, _, colon := strings.Cut(s, ":")
	if !colon {
		name, _, _ = strings.Cut(strings.TrimSpace(s), " ")
		name, _, _ = strings.Cut(name, "=")
	}
	name = strings.TrimSpace(name)
	if name == "" || name == strings.TrimSpace(s) || !termsafe.SecretHeader(name) {
		return s
	}
	if colon {
		return name + ": ****"
	}
	return name + " ****"
}

// headerName says whether name is a token, which a header's name must be.
func headerName(name string) bool {
	return name != "" && !strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	})
}

// Header is one request header given as a name and a value, as -H takes
// it: the name canonical, the value without the spaces around it (as a
// server reads it off the wire). A name that is no token, a value of more
// than one line or holding a control byte, and a header that frames the
// body are errors.
func Header(name, val string) (string, string, error) {
	if !headerName(name) {
		return "", "", fmt.Errorf("%q is no header name (a token: letters, digits and !#$%%&'*+-.^_`|~)", name)
	}
	val = strings.TrimSpace(val)
	if strings.ContainsAny(val, "\r\n") {
		return "", "", fmt.Errorf("%q: the value holds a line break", name)
	}
	if strings.ContainsRune(val, 0) {
		return "", "", fmt.Errorf("%q: the value holds a NUL byte", name)
	}
	// Any other control byte but a tab, as net/http's client refuses it
	// (RFC 9110 5.5): the call would fail there and go out on the fast
	// path.
	if i := strings.IndexFunc(val, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }); i >= 0 {
		return "", "", fmt.Errorf("%q: the value holds the control byte 0x%02x", name, val[i])
	}
	name = http.CanonicalHeaderKey(name)
	if name == "Content-Length" || name == "Transfer-Encoding" {
		// whsim's plain-HTTP path writes the user's headers as they are:
		// Content-Length: 5 on a 2 KB body had the receiver read 5 bytes
		// and answer 200, the rest garbage on the connection.
		return "", "", fmt.Errorf("%q: whsim frames each body itself (a Content-Length or Transfer-Encoding of your own would cut it short or garble it)", name)
	}
	return name, val, nil
}

// ParseHeaders reads request headers written 'Name: value', in order; the
// first bad one is the error.
func ParseHeaders(list []string) (http.Header, error) {
	h := http.Header{}
	for _, s := range list {
		k, v, err := parseHeader(s)
		if err != nil {
			return nil, err
		}
		h.Add(k, v)
	}
	return h, nil
}

// ParseHookTarget is ParseTarget for a URL whsim adds each call's
// businessType to (send, replay, export): one that has it already is
// refused, since the receiver would get two values and most read the
// first, the URL's, for every event.
func ParseHookTarget(s string) (*url.URL, error) {
	u, err := ParseTarget(s)
	if err != nil {
		return nil, err
	}
	if u.Query().Has(spec.QueryParam) {
		return nil, &TargetError{s, "the query has businessType already; whsim adds each call's own (drop it from the URL)"}
	}
	return u, nil
}

// TargetError is a receiver URL ParseTarget refuses, and why; callers
// that name the flag put it before the URL. The message masks the URL's
// credentials (termsafe.URLString): it reaches stderr, and the job
// summary, JUnit and report of a run that never began.
type TargetError struct{ URL, Why string }

func (e *TargetError) Error() string {
	return strconv.Quote(masked(e.URL)) + ": " + e.Why
}

// masked is a URL as messages quote it, its credentials masked; one
// written without a scheme (user:pw@host) is masked as the http:// URL it
// would be.
func masked(s string) string {
	if strings.Contains(s, "://") {
		return termsafe.URLString(s)
	}
	return strings.TrimPrefix(termsafe.URLString("http://"+s), "http://")
}

// ParseTarget checks the URL of a receiver whsim posts to (send's --url,
// listen's --forward-to, the inspector's replay): http or https, a host, a
// valid query. The fragment is dropped; it never reaches a server. A URL
// without a scheme that would be good with http:// in front
// (localhost:3000) is refused with that suggestion. Errors are
// *TargetError.
func ParseTarget(s string) (*url.URL, error) {
	if s != "" && !strings.Contains(s, "://") {
		if _, err := ParseTarget("http://" + s); err == nil {
			return nil, &TargetError{s, "no scheme (did you mean http://" + masked(s) + "?)"}
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, &TargetError{s, errors.Unwrap(err).Error()}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, &TargetError{s, "want an http:// or https:// URL"}
	}
	if u.Host == "" {
		return nil, &TargetError{s, "no host"}
	}
	// net/url takes any digits for a port; the dial then fails on each
	// call, which send and check --rerun counted as the receiver's
	// failure (STILL FAILING, exit 1) though nothing was sent (found by
	// hunt48).
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, &TargetError{s, "port " + p + ": want 1 to 65535"}
		}
	}
	if _, err := url.ParseQuery(u.RawQuery); err != nil {
		return nil, &TargetError{s, "bad query: " + err.Error()}
	}
	// net/url takes a space in the query (a control byte it refuses) and
	// net/http writes the query into the request line as it is, where a
	// space ends the target: the receiver's server answers 400, which
	// would read as the receiver's failure. The path's is escaped.
	if strings.Contains(u.RawQuery, " ") {
		return nil, &TargetError{s, "the query holds a space, which no request line can carry: write it %20"}
	}
	u.Fragment = ""
	return u, nil
}
