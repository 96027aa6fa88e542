package spec

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/suggest"
)

// Query is the query a delivery of event carries: QueryParam=<event>,
// query-escaped, as the ERP sends it.
func Query(event string) string { return QueryParam + "=" + url.QueryEscape(event) }

// QueryEvent returns the event a raw query names, and whether QueryParam is
// there: the first value, as url.ParseQuery reads it. A pair that does not
// parse (a bad escape, a ';') is skipped and the others read, as a Go
// receiver's Request.URL.Query reads them (Express and PHP, which split on
// '&' alone, find the same event).
func QueryEvent(rawQuery string) (string, bool) {
	if len(rawQuery) <= 256 && plainQuery(rawQuery) {
		// Short, nothing to unescape and no separator but '&': the answer
		// url.ParseQuery gives, without building its map (the receiver asks
		// this of every call).
		for q := rawQuery; q != ""; {
			var pair string
			pair, q, _ = strings.Cut(q, "&")
			if k, v, _ := strings.Cut(pair, "="); k == QueryParam {
				return v, true
			}
		}
		return "", false
	}
	q, _ := url.ParseQuery(rawQuery) // its error is the first pair it skipped
	if !q.Has(QueryParam) {
		return "", false
	}
	return q.Get(QueryParam), true
}

// QuerySkipped returns the first pair of a raw query that names QueryParam
// but does not parse (a ';' in it, a bad escape), and why, for a query
// QueryEvent finds no event in: a Go receiver's Request.URL.Query drops such
// a pair, while receivers that split on '&' alone (Express, PHP) read it, so
// "the query has no businessType" would be half the truth.
func QuerySkipped(rawQuery string) (string, error) {
	for q := rawQuery; q != ""; {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		k, _, _ := strings.Cut(pair, "=")
		if name, err := url.QueryUnescape(k); err != nil || name != QueryParam {
			continue
		}
		if _, err := url.ParseQuery(pair); err != nil {
			return pair, err
		}
	}
	return "", nil
}

// NoEvent says what a raw query that QueryEvent finds no event in holds:
// "no businessType", or, when its businessType pair does not parse, that
// pair, why, and who reads it anyway.
func NoEvent(rawQuery string) string {
	pair, err := QuerySkipped(rawQuery)
	if err == nil {
		if name := nearQueryParam(rawQuery); name != "" {
			return fmt.Sprintf("no %s: it names %q, another parameter to Spring's @RequestParam, Go's URL.Query, Express and PHP, which match names as written (ASP.NET Core alone ignores case)", QueryParam, name)
		}
		return "no " + QueryParam
	}
	return fmt.Sprintf("no %s a Go receiver reads: its pair %q does not parse (%v), so Go's URL.Query drops it, while receivers that split on '&' alone (Express, PHP) read it",
		QueryParam, pair, err)
}

// nearQueryParam is the name of the first pair of a raw query that is
// QueryParam but for its case or white space around it (BusinessType,
// businesstype, "businessType "), "" when none is.
func nearQueryParam(rawQuery string) string {
	for q := rawQuery; q != ""; {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		k, _, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if name != QueryParam && strings.EqualFold(strings.TrimSpace(name), QueryParam) {
			return name
		}
	}
	return ""
}

// UnknownQueryEvent says that a query's event is none of the catalog's,
// with the name it is likely a slip of (a case, a space, a typo).
func UnknownQueryEvent(event string) string {
	if name, ok := suggest.Closest(strings.TrimSpace(event), EventNames()); ok {
		return fmt.Sprintf("unknown event %q (did you mean %q? valid: %s)", event, name, strings.Join(EventNames(), ", "))
	}
	return fmt.Sprintf("unknown event %q (valid: %s)", event, strings.Join(EventNames(), ", "))
}

// QueryRepeats returns every value of QueryParam, in order, of a query
// that names it more than once (nil when it names it once or not at
// all), as url.ParseQuery reads the pairs that parse. Receivers read such
// a query differently (RepeatedReading), so the call's event is in
// doubt even when the values are the same. It is a second scan, for
// queries that hold a second pair only.
func QueryRepeats(rawQuery string) []string {
	if !strings.Contains(rawQuery, "&") {
		return nil // one pair at most
	}
	q, _ := url.ParseQuery(rawQuery) // the pairs that parse, as QueryEvent reads them
	if vs := q[QueryParam]; len(vs) > 1 {
		return vs
	}
	return nil
}

// Repeated says that a query names QueryParam more than once, with
// values (QueryRepeats), and how receivers read it: `names businessType
// twice, "A" and "B": receivers read it differently: ...`.
func Repeated(values []string) string {
	times := strconv.Itoa(len(values)) + " times"
	if len(values) == 2 {
		times = "twice"
	}
	var named string
	if values[0] == values[len(values)-1] && !slices.ContainsFunc(values, func(v string) bool { return v != values[0] }) {
		named = "each " + strconv.Quote(values[0])
	} else {
		q := make([]string, len(values))
		for i, v := range values {
			q[i] = strconv.Quote(v)
		}
		named = strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
	}
	return "names " + QueryParam + " " + times + ", " + named + ": " + RepeatedReading(values)
}

// RepeatedReading says how receivers read QueryParam given as values
// (QueryRepeats), naming what each would read.
func RepeatedReading(values []string) string {
	joined := strconv.Quote(strings.Join(values, ","))
	first, last := values[0], values[len(values)-1]
	if !slices.ContainsFunc(values, func(v string) bool { return v != first }) {
		return "receivers that join a repeated parameter (Spring's @RequestParam String, ASP.NET Core) read " + joined +
			", and Express makes it an array: no event to them; Go, PHP and most others read " + strconv.Quote(first)
	}
	firstReaders := "Go's Query().Get, Flask and Servlet's getParameter read " + strconv.Quote(first)
	if first == last {
		return "receivers read it differently: " + firstReaders + " (PHP's $_GET and Django the last, the same), " +
			"Spring's @RequestParam String and ASP.NET Core join them, " + joined + ", and Express makes an array"
	}
	return "receivers read it differently: " + firstReaders + ", PHP's $_GET and Django " + strconv.Quote(last) +
		", Spring's @RequestParam String and ASP.NET Core join them, " + joined + ", and Express makes an array"
}

// plainQuery reports a query without '%', '+' or ';' (a byte loop:
// strings.ContainsAny cost as much as the rest of QueryEvent).
func plainQuery(q string) bool {
	for i := 0; i < len(q); i++ {
		if c := q[i]; c == '%' || c == '+' || c == ';' {
			return false
		}
	}
	return true
}
