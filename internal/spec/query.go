package spec

import (
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
