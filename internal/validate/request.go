package validate

import (
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/capture"
)

// RequestFindings are what is wrong with a call's method and Content-Type
// against the spec, which sends POST with application/json, in the words
// listen prints as the call comes: target is the call's target as shown (a
// CONNECT's authority). validate, inspect and listen's inspector find them
// again in the call's record, so that each says of a call what listen
// said.
func RequestFindings(method, target, contentType string) []Finding {
	var fs []Finding
	add := func(rule, msg string) {
		fs = append(fs, Finding{Rule: rule, Severity: Error, Message: msg})
	}
	if method == http.MethodConnect {
		// Said apart: a 2xx to it opens a tunnel to such a client.
		add(RuleHTTPMethod, "method CONNECT to "+strconv.Quote(target)+
			", a tunnel asked of an HTTP proxy (a client's HTTPS_PROXY or --proxy names listen?); listen is no proxy, and the spec sends POST")
	} else if method != http.MethodPost {
		add(RuleHTTPMethod, "method "+method+", the spec sends POST")
	}
	if contentType == "application/json" {
		// What a sender sends, checked without parsing.
	} else if contentType == "" {
		// Said in words: quoted, "none" would read as a header that says
		// none, which a sender may send too.
		add(RuleHTTPContentType, "no content type, the spec sends application/json")
	} else if mt, params, err := mime.ParseMediaType(contentType); err != nil || mt != "application/json" {
		add(RuleHTTPContentType, "content type "+strconv.Quote(contentType)+", the spec sends application/json")
	} else if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		fs = append(fs, Finding{Rule: RuleHTTPCharset, Severity: Warning, Message: "content type " + strconv.Quote(contentType) +
			" names charset " + strconv.Quote(cs) + ": JSON is UTF-8, and a receiver that decodes by the charset (Spring, a servlet's getReader, ASP.NET Core) misreads the Chinese text"})
	}
	return fs
}

// recordRequestFindings are RequestFindings of a record, as far as it
// holds them, less the rules ignored: a record without a method (not one
// listen wrote) is replayed as a POST, so it is judged as one; one without
// headers (null or absent, which listen never writes) has no content type
// to judge. The header's name is matched in any case, as a hand-written
// record may spell it (capture.Decode refuses one named in two).
func (v *Validator) recordRequestFindings(rec *capture.Record) []Finding {
	method := rec.Method
	if method == "" {
		method = http.MethodPost
	}
	contentType := "application/json"
	if rec.Headers != nil {
		vs, ok := rec.Headers["Content-Type"]
		if !ok {
			for _, name := range slices.Sorted(maps.Keys(rec.Headers)) {
				if strings.EqualFold(name, "Content-Type") {
					vs = rec.Headers[name]
					break
				}
			}
		}
		contentType = ""
		if len(vs) > 0 {
			contentType = vs[0]
		}
	}
	return v.kept(RequestFindings(method, rec.ShownPath(), contentType))
}

// kept is fs less the findings of rules ignored.
func (v *Validator) kept(fs []Finding) []Finding {
	out := fs[:0]
	for _, f := range fs {
		if !v.ignored[ruleIndex[f.Rule]] {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
