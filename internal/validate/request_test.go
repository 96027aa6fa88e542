package validate

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture"
)

// A captured call's method and Content-Type are judged in its record as
// listen judged them when the call came (RequestFindings): validate and
// inspect passed a PUT of text/plain that listen had flagged invalid, as
// they read only the body and the query. Both of validate's paths (the
// lexer's and capture.Decode's) say the same.
func TestCapturedMethodAndContentType(t *testing.T) {
	body := strings.TrimSpace(load(t, "receipt.json"))
	const query = "businessType=CREATE_RECEIVABLE_DOC"
	for _, tc := range []struct {
		name string
		edit map[string]any // members set on the record; nil values remove them
		want []string       // "rule: message"
	}{
		{"a POST of application/json", nil, nil},
		{"a charset beside application/json", map[string]any{"headers": map[string][]string{"Content-Type": {"application/json; charset=utf-8"}}}, nil},
		{"a charset in another case", map[string]any{"headers": map[string][]string{"Content-Type": {`application/json;charset="UTF-8"`}}}, nil},
		{"a charset other than UTF-8", map[string]any{"headers": map[string][]string{"Content-Type": {"application/json; charset=GBK"}}},
			[]string{`http-charset: content type "application/json; charset=GBK" names charset "GBK": JSON is UTF-8, and a receiver that decodes by the charset (Spring, a servlet's getReader, ASP.NET Core) misreads the Chinese text`}},
		{"text/plain", map[string]any{"headers": map[string][]string{"Content-Type": {"text/plain"}}},
			[]string{`http-content-type: content type "text/plain", the spec sends application/json`}},
		{"no Content-Type", map[string]any{"headers": map[string][]string{"Accept": {"*/*"}}},
			[]string{"http-content-type: no content type, the spec sends application/json"}},
		{"a Content-Type without values", map[string]any{"headers": map[string][]string{"Content-Type": {}}},
			[]string{"http-content-type: no content type, the spec sends application/json"}},
		{"Content-Type in another case", map[string]any{"headers": map[string][]string{"content-type": {"text/plain"}}},
			[]string{`http-content-type: content type "text/plain", the spec sends application/json`}},
		{"the same in another case", map[string]any{"headers": map[string][]string{"CONTENT-TYPE": {"application/json"}}}, nil},
		{"a PUT", map[string]any{"method": "PUT"}, []string{"http-method: method PUT, the spec sends POST"}},
		{"a GET of text/plain", map[string]any{"method": "GET", "headers": map[string][]string{"Content-Type": {"text/plain"}}},
			[]string{"http-method: method GET, the spec sends POST", `http-content-type: content type "text/plain", the spec sends application/json`}},
		{"a CONNECT", map[string]any{"method": "CONNECT", "path": "example.com:443"},
			[]string{`http-method: method CONNECT to "example.com:443", a tunnel asked of an HTTP proxy (a client's HTTPS_PROXY or --proxy names listen?); listen is no proxy, and the spec sends POST`,
				// replay skips it: capture-replay says so, in its words
				`capture-replay: whsim replay refuses to send it again: a CONNECT to "example.com:443", a tunnel asked of listen as of an HTTP proxy, so there is no webhook call to send again`}},
		// Not what listen writes: a record without a method is replayed
		// as a POST, and one without headers has no content type to judge.
		{"no method", map[string]any{"method": nil}, nil},
		{"headers null", map[string]any{"headers": nil}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := map[string]any{"capture": 1, "method": "POST", "path": "/hook", "query": query,
				"headers": map[string][]string{"Content-Type": {"application/json"}}, "body": body, "bodyEncoding": "utf8"}
			for k, v := range tc.edit {
				if v == nil {
					delete(rec, k)
				} else {
					rec[k] = v
				}
			}
			line, err := json.Marshal(rec)
			if err != nil {
				t.Fatal(err)
			}
			v := mustNew(t, Options{Strict: true})
			fast, _, _ := v.checkCapture(line)
			decoded, err := capture.Decode(line)
			if err != nil {
				t.Fatal(err)
			}
			for path, fs := range map[string][]Finding{"checkCapture": fast, "CheckRecord": v.CheckRecord(decoded)} {
				var got []string
				for _, f := range fs {
					got = append(got, f.Rule+": "+f.Message)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%s: %q, want %q", path, got, tc.want)
				}
			}
			ignoring := mustNew(t, Options{Strict: true, Ignore: []string{RuleHTTPMethod, RuleHTTPContentType, RuleHTTPCharset, ruleReplay}})
			if fs, _, _ := ignoring.checkCapture(line); fs != nil {
				t.Errorf("with the three rules and capture-replay ignored: %+v", fs)
			}
		})
	}
}
