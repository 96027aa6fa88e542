package anonymize

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"

	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/jsonstr"
	"github.com/whsim/whsim/internal/termsafe"
)

// A browser's HAR export holds each call's credentials as they were sent:
// its Authorization and Cookie headers, the answer's Set-Cookie, the
// cookies lists, a token in the URL's query. A capture record's are
// dropped; a HAR's went out as they came while the summary said nothing
// of them and --check passed the file. They are masked as the inspector's
// HAR export masks them (****, a URL's password xxxxx, its user without
// a password ****), the structure
// kept for the tools that read HAR.

// harCredentials returns doc with the credentials of its HAR entries
// masked, and how many entries had each kind masked ("Authorization",
// "cookies", "query parameter token", "the URL's password", "the URL's
// user"); doc itself
// and nil when it is no HAR or holds none. A document that is not JSON
// is returned as it is (the anonymizing pass says where it is not).
func harCredentials(doc []byte) ([]byte, map[string]int) {
	if !bytes.Contains(doc, []byte(`"entries"`)) || !bytes.Contains(doc, []byte(`"log"`)) {
		return doc, nil
	}
	// A name and value pair of a list (headers, cookies, queryString),
	// by the entry it stands in. An edited file may name either twice
	// (readers differ on which counts): every value of a pair any of
	// whose names is a credential's is masked.
	type pair struct {
		entry  int
		list   string
		names  []string
		values []jsonlex.Span
	}
	pairs := map[[4]int]*pair{} // entry, request or response, list, index
	lists := []string{"headers", "cookies", "queryString"}
	type span struct {
		jsonlex.Span
		entry int
		to    string // the masked text
		what  string
	}
	var spans []span
	err := jsonlex.Walk(doc, func(path []jsonlex.Seg, v jsonlex.Value) {
		if len(path) < 5 || path[0].Key != "log" || path[1].Key != "entries" || path[2].Index < 0 || v.Kind != jsonlex.String {
			return
		}
		side := slices.Index([]string{"request", "response"}, path[3].Key)
		if side < 0 {
			return
		}
		entry := path[2].Index
		if len(path) == 5 && side == 0 && path[4].Key == "url" {
			u := jsonlex.StringAt(doc, v.Span)
			if m := termsafe.URLString(u); m != u {
				spans = append(spans, span{Span: v.Span, entry: entry, to: m, what: urlMasked(u)})
			}
			return
		}
		list := slices.Index(lists, path[4].Key)
		if len(path) != 7 || list < 0 || path[5].Index < 0 || path[6].Key != "name" && path[6].Key != "value" {
			return
		}
		k := [4]int{entry, side, list, path[5].Index}
		p := pairs[k]
		if p == nil {
			p = &pair{entry: entry, list: lists[list]}
			pairs[k] = p
		}
		if path[6].Key == "name" {
			p.names = append(p.names, jsonlex.StringAt(doc, v.Span))
		} else {
			p.values = append(p.values, v.Span)
		}
	})
	if err != nil {
		return doc, nil
	}
	for _, p := range pairs {
		what := ""
		switch {
		case p.list == "cookies":
			what = "cookies"
		case p.list == "headers":
			if i := slices.IndexFunc(p.names, termsafe.SecretHeader); i >= 0 {
				what = http.CanonicalHeaderKey(p.names[i])
			}
		case p.list == "queryString":
			// HAR gives the names decoded.
			if i := slices.IndexFunc(p.names, termsafe.SecretQuery); i >= 0 {
				what = "query parameter " + p.names[i]
			}
		}
		for _, v := range p.values {
			if what != "" && jsonlex.StringAt(doc, v) != "" {
				spans = append(spans, span{Span: v, entry: p.entry, to: "****", what: what})
			}
		}
	}
	if len(spans) == 0 {
		return doc, nil
	}
	slices.SortFunc(spans, func(a, b span) int { return a.Start - b.Start })
	out := make([]byte, 0, len(doc))
	at := 0
	seen := map[string]map[int]bool{} // what was masked, by the entries it was masked in
	for _, s := range spans {
		out = append(out, doc[at:s.Start]...)
		out = jsonstr.Append(out, s.to)
		at = s.End
		if seen[s.what] == nil {
			seen[s.what] = map[int]bool{}
		}
		seen[s.what][s.entry] = true
	}
	out = append(out, doc[at:]...)
	masked := map[string]int{}
	for what, entries := range seen {
		masked[what] = len(entries)
	}
	return out, masked
}

// urlMasked says what termsafe.URLString masks in u: its password, else
// its user when it has no password (a token), else a credential query
// parameter ("query parameter token").
func urlMasked(u string) string {
	base, q, _ := bytes.Cut([]byte(u), []byte("?"))
	if _, _, ok := termsafe.PasswordSpan(string(base)); ok {
		return "the URL's password"
	}
	if _, _, ok := termsafe.UserSpan(string(base)); ok {
		return "the URL's user"
	}
	for _, p := range bytes.Split(q, []byte("&")) {
		if k, v, ok := bytes.Cut(p, []byte("=")); ok && termsafe.SecretParam(string(k), string(v)) {
			return fmt.Sprintf("query parameter %s", termsafe.QueryKey(string(k)))
		}
	}
	return "the URL"
}
