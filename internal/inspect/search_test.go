package inspect

import (
	"net/http"
	"testing"
)

// A search finds what the page shows: the tree shows a body's JSON
// strings decoded and the Query table a query's parameters decoded, but a
// search looked only at the bytes, so "苏州" found no body a sender had
// escaped (Python's json.dumps and requests' json=, PHP's json_encode:
// "\u82cf\u5dde") and no query sent percent-encoded, and "/webhook/erp"
// no body with PHP's "\/".
func TestSearchFindsWhatThePageShows(t *testing.T) {
	tests := []struct {
		name, body, query, q string
		want                 bool
	}{
		{"raw UTF-8", `{"name":"苏州市盛达新材料有限责任公司"}`, "", "苏州", true},
		{"escaped Chinese", `{"name":"\u82cf\u5dde\u5e02"}`, "", "苏州", true},
		{"escaped upper-case hex", `{"name":"\u82CF\u5DDE"}`, "", "苏州", true},
		{"escaped, a document number beside it", `{"收款单编号":"SKD00000001","name":"\u82cf\u5dde"}`, "", "SKD00000001", true},
		{"an escaped key", `{"\u6536\u6b3e\u5355\u7f16\u53f7":"SKD1"}`, "", "收款单编号", true},
		{"a surrogate pair", `{"x":"\ud83d\ude00"}`, "", "😀", true},
		{"escaped slashes", `{"url":"https:\/\/erp.example\/webhook\/erp"}`, "", "/webhook/erp", true},
		{"escaped quotes and a tab", `{"note":"say \"hi\"\tnow","b":"\b\f\n\r\\"}`, "", `say "hi"` + "\tnow", true},
		{"an escape of one letter not JSON's", `{"note":"a\qb"}`, "", `a\qb`, true},
		{"escaped, case folded", `{"code":"\u0041BC"}`, "", "abc", true},
		{"escaped, not there", `{"name":"\u82cf\u5dde"}`, "", "杭州", false},
		{"the escape itself still found", `{"name":"\u82cf"}`, "", `\u82cf`, true},
		{"a broken escape left as it is", `{"name":"\u82"}`, "", "苏", false},
		{"percent-encoded query", `{}`, "businessType=CREATE_RECEIVABLE_DOC&city=%E8%8B%8F%E5%B7%9E", "苏州", true},
		{"a query's plus is a space", `{}`, "who=Li+Wang", "li wang", true},
		{"percent-encoded query as sent", `{}`, "city=%E8%8B%8F", "%E8%8B%8F", true},
		{"a query that does not decode", `{}`, "city=%zz", "%zz", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(tt.body), 200)
			if tt.query != "" {
				rec.Query = tt.query
			}
			c := newCall(1, rec, nil, nil)
			if got := (filter{Query: tt.q}).match(c); got != tt.want {
				t.Errorf("search %q in body %s, query %q: %v, want %v", tt.q, tt.body, rec.Query, got, tt.want)
			}
		})
	}
}

// containsFold reads a body in 64 KiB chunks: a match across a chunk's
// end is found, as one inside a chunk is.
func TestContainsFoldAcrossChunks(t *testing.T) {
	t.Parallel()
	const chunk = 64 << 10
	for _, at := range []int{0, chunk - 3, chunk - 1, chunk, 2*chunk - 2} {
		b := make([]byte, 3*chunk)
		for i := range b {
			b[i] = 'x'
		}
		copy(b[at:], "NEEDLE")
		if !containsFold(b, "needle") {
			t.Errorf("needle at %d not found", at)
		}
	}
	if containsFold(make([]byte, 3*chunk), "needle") {
		t.Error("needle found in a body without it")
	}
}

// A search finds a header by its name and by its value.
func TestSearchFindsHeaders(t *testing.T) {
	t.Parallel()
	rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{}`), 200)
	rec.Headers = http.Header{"X-Trace-Id": {"abc-123"}}
	c := newCall(1, rec, nil, nil)
	for q, want := range map[string]bool{"x-trace": true, "ABC-123": true, "x-other": false} {
		if got := (filter{Query: q}).match(c); got != want {
			t.Errorf("search %q in headers %v: %v, want %v", q, rec.Headers, got, want)
		}
	}
}
