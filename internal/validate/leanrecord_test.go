package validate

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/jsonlex"
)

// A record as listen writes it (capture.Record's members, in its order).
const leanSample = `{"capture":1,"time":"2026-11-30T10:00:00.123456789Z","remote":"127.0.0.1:5555","method":"POST",` +
	`"path":"/hook","query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Type":["application/json"],"X-Multi":["a","b"]},` +
	`"body":"{\"requestId\":\"r\",\"businessType\":5007,\"data\":{\"收款单\":{\"备注\":\"a\\\\b\"}}}","bodyEncoding":"utf8",` +
	`"response":{"status":200,"headers":{"Content-Type":["application/json"]},"body":"{}","bodyEncoding":"utf8"},` +
	`"forward":{"url":"http://127.0.0.1:3000/","status":204,"latencyMs":1.25}}`

// TestLeanRecord: the fast path reads what it can vouch for, and gives
// way to encoding/json on everything it cannot.
func TestLeanRecord(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		lean       bool // the fast path reads it
	}{
		{"as listen writes it", leanSample, true},
		{"nulls", `{"capture":null,"time":null,"headers":null,"response":null,"forward":null,"query":null,"body":"x"}`, true},
		{"unknown members are skipped", `{"note":[1,{"a":null}],"body":"x","bodyEncoding":"base64"}`, true},
		{"escaped key that is body", `{"bod\u0079":"x"}`, true},
		{"surrounding whitespace", " \t{\"body\":\"x\"}\r\n", true},
		{"a header value that is not a list", `{"headers":{"A":"b"},"body":"x"}`, false},
		{"capture not a whole number", `{"capture":1.0,"body":"x"}`, false},
		{"capture too large", `{"capture":99999999999999999999,"body":"x"}`, false},
		{"capture a string", `{"capture":"1","body":"x"}`, false},
		{"latency out of range", `{"forward":{"latencyMs":1e999},"body":"x"}`, false},
		{"a time that is not RFC 3339", `{"time":"yesterday","body":"x"}`, false},
		{"a member in another case", `{"Body":"x"}`, false},
		{"a key folding to an ASCII one", "{\"\u212aey\":1,\"body\":\"x\"}", false},
		{"duplicate body", `{"body":"x","body":"y"}`, false},
		{"body a number", `{"body":1}`, false},
		{"response a string", `{"response":"x"}`, false},
		{"not an object", `["body"]`, false},
		{"trailing data", `{"body":"x"} x`, false},
		{"invalid UTF-8", "{\"body\":\"\xff\"}", false},
		{"truncated", `{"body":"x`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lx jsonlex.Lexer
			got, ok := leanRecord(&lx, []byte(tc.line), nil)
			if ok != tc.lean {
				t.Fatalf("fast path took it: %v, want %v", ok, tc.lean)
			}
			if ok {
				leanAgrees(t, []byte(tc.line), got)
			}
		})
	}
}

// leanAgrees fails unless encoding/json reads line without error into a
// record with the same four members the fast path read.
func leanAgrees(t *testing.T, line []byte, got leanFields) {
	t.Helper()
	var want capture.Record
	if err := json.Unmarshal(line, &want); err != nil {
		t.Fatalf("fast path read %q, encoding/json refused it: %v", line, err)
	}
	if string(got.query) != want.Query || string(got.queryEncoding) != want.QueryEncoding || string(got.body) != want.Body || string(got.bodyEncoding) != want.BodyEncoding {
		t.Fatalf("fast path read query %q (%q), body %q (%q); encoding/json %+v, from %q",
			got.query, got.queryEncoding, got.body, got.bodyEncoding, want, line)
	}
}

// FuzzLeanRecord holds the fast path to encoding/json: whatever it reads,
// encoding/json reads the same, without error.
func FuzzLeanRecord(f *testing.F) {
	f.Add([]byte(leanSample))
	f.Add([]byte(`{"body":"\ud800x","query":"a\u00e9"}`))
	f.Add([]byte(`{"headers":{"A":[null,"b"]},"headerEncodings":{"A":"base64"},"body":""}`))
	f.Add([]byte(`{"time":"2026-11-30T10:00:00+08:00","capture":-0}`))
	var lx jsonlex.Lexer
	var buf []byte // reused, as checkCapture reuses it
	f.Fuzz(func(t *testing.T, line []byte) {
		if got, ok := leanRecord(&lx, line, buf); ok {
			leanAgrees(t, line, got)
			buf = got.body[:0]
		}
	})
}

// FuzzCheckCaptureFastPath holds checkCapture, whose fast path reads the
// record with the lexer and checks the body where it was unescaped, to the
// slow path (encoding/json, then CheckRecord): the same findings for every
// line. The fuzzer varies the body, the query and the record around them.
func FuzzCheckCaptureFastPath(f *testing.F) {
	f.Add([]byte(load(f, "receipt.json")), "businessType=CREATE_RECEIVABLE_DOC", false)
	f.Add([]byte(load(f, "invoice.json")), "businessType=NOPE&x=%zz", true)
	f.Add([]byte("{\"requestId\":\"\\u00e9\\\"\",\"data\":{\"收款单\":null}}"), "", false)
	f.Add([]byte("{\"a\":\"\xff\"}"), "businessType=", true)
	f.Add([]byte(leanSample), "businessType=CREATE_PURCHASE_ORDER_INVOICE", true)
	// A compressed body, and a request the server refused: the slow path's.
	f.Add([]byte(`{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Encoding":["gzip"]},"body":"H4sIAAAAAAAA/6uuBQBDv6ajAgAAAA==","bodyEncoding":"base64"}`), "", true)
	f.Add([]byte(`{"capture":2,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{},"body":"","bodyEncoding":"utf8","rejected":{"reason":"Bad Request","head":"POST /","headEncoding":"utf8","headBytes":6}}`), "", true)
	v := mustNew(f, Options{Strict: true})
	f.Fuzz(func(t *testing.T, body []byte, query string, raw bool) {
		var line []byte
		if raw { // the fuzzer's bytes are the record itself
			line = body
		} else {
			rec := &capture.Record{Query: query, Method: "POST", Headers: map[string][]string{"A": {"b"}}}
			rec.SetBody(body)
			var err error
			if line, err = capture.Append(nil, rec); err != nil {
				t.Skip(err)
			}
		}
		got, gotTorn := v.checkCapture(line)
		var want []Finding
		wantTorn := false
		var rec capture.Record
		if err := json.Unmarshal(line, &rec); err != nil {
			if input.CutShort(line) {
				wantTorn = true
			} else {
				want = v.single(ruleCapture, fmt.Sprintf("not a readable capture record: %v", err))
			}
		} else {
			want = v.CheckRecord(&rec)
		}
		if gotTorn != wantTorn || !reflect.DeepEqual(got, want) {
			t.Fatalf("fast path %v %+v\nslow path %v %+v\nfor %q", gotTorn, got, wantTorn, want, line)
		}
	})
}
