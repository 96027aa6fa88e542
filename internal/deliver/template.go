package deliver

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/spec"
)

// NewTemplate prepares body for delivery as event. With freshIDs, each
// delivery made from it gets a fresh requestId when the body holds one of
// UUID length; otherwise the body is sent as it is (a --file body, a
// requestId the user set).
func NewTemplate(event string, header http.Header, body []byte, freshIDs bool) Template {
	t := Template{Event: event, Query: spec.Query(event), Header: header, Body: body, IDOff: -1}
	start, end := FindRequestID(body)
	if start >= 0 && end-start == 36 && freshIDs {
		t.IDOff = start
	}
	if start >= 0 {
		t.RequestID = string(body[start:end])
	}
	return t
}

// AmbiguousEventError is a body number that several events share.
type AmbiguousEventError struct {
	Number string
	Events []spec.Event
}

func (e *AmbiguousEventError) Error() string {
	names := make([]string, len(e.Events))
	for i, ev := range e.Events {
		names[i] = ev.Name
	}
	return fmt.Sprintf("businessType %s stands for %s", e.Number, strings.Join(names, " or "))
}

// EventOf tells the event a body is for by its businessType number. The
// error says why it cannot: no number, no event's number, or an
// *AmbiguousEventError.
func EventOf(body []byte) (spec.Event, error) {
	sp, ok := jsonlex.Member(body, spec.FieldBusinessType)
	if !ok || sp.Kind != jsonlex.Number {
		return spec.Event{}, errors.New("no businessType number in the body to tell the event by")
	}
	number := string(body[sp.Start:sp.End])
	n, _ := strconv.Atoi(number)
	events := spec.EventsForNumber(n)
	switch len(events) {
	case 0:
		return spec.Event{}, fmt.Errorf("businessType %s is no event's number", number)
	case 1:
		return events[0], nil
	}
	return spec.Event{}, &AmbiguousEventError{Number: number, Events: events}
}

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

// ParseHeader reads one request header written 'Name: value'.
func ParseHeader(s string) (string, string, error) {
	name, val, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	}) {
		return "", "", fmt.Errorf("%q: want 'Name: value'", s)
	}
	val = strings.TrimSpace(val)
	if strings.ContainsAny(val, "\r\n\x00") {
		return "", "", fmt.Errorf("%q: the value holds a line break", name)
	}
	return http.CanonicalHeaderKey(name), val, nil
}

// ParseHeaders reads request headers written 'Name: value', in order; the
// first bad one is the error.
func ParseHeaders(list []string) (http.Header, error) {
	h := http.Header{}
	for _, s := range list {
		k, v, err := ParseHeader(s)
		if err != nil {
			return nil, err
		}
		h.Add(k, v)
	}
	return h, nil
}

// TargetError is a receiver URL ParseTarget refuses, and why; callers
// that name the flag put it before the URL.
type TargetError struct{ URL, Why string }

func (e *TargetError) Error() string { return strconv.Quote(e.URL) + ": " + e.Why }

// ParseTarget checks the URL of a receiver whsim posts to (send's --url,
// listen's --forward-to, the inspector's replay): http or https, a host, a
// valid query. The fragment is dropped; it never reaches a server. A URL
// without a scheme that would be good with http:// in front
// (localhost:3000) is refused with that suggestion. Errors are
// *TargetError.
func ParseTarget(s string) (*url.URL, error) {
	if s != "" && !strings.Contains(s, "://") {
		if _, err := ParseTarget("http://" + s); err == nil {
			return nil, &TargetError{s, "no scheme (did you mean http://" + s + "?)"}
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
	if _, err := url.ParseQuery(u.RawQuery); err != nil {
		return nil, &TargetError{s, "bad query: " + err.Error()}
	}
	u.Fragment = ""
	return u, nil
}
