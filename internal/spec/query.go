package spec

import (
	"fmt"
	"net/url"
	"strings"
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
		return "no " + QueryParam
	}
	return fmt.Sprintf("no %s a Go receiver reads: its pair %q does not parse (%v), so Go's URL.Query drops it, while receivers that split on '&' alone (Express, PHP) read it",
		QueryParam, pair, err)
}

// QueryConflict returns a value of QueryParam that differs from the first,
// when the query names the event more than once: receivers read such a
// query differently (Go's Query().Get and Express keep the first value,
// PHP's $_GET the last), so the call's event is in doubt. It is a second
// scan, for queries that name the parameter again only.
func QueryConflict(rawQuery string) (string, bool) {
	if !strings.Contains(rawQuery, "&") {
		return "", false // one pair at most
	}
	q, _ := url.ParseQuery(rawQuery) // the pairs that parse, as QueryEvent reads them
	vs := q[QueryParam]
	for _, v := range vs[min(1, len(vs)):] {
		if v != vs[0] {
			return v, true
		}
	}
	return "", false
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
