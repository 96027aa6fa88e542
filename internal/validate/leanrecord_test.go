package validate

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

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
		{"nulls", `{"capture":1,"time":null,"headers":null,"headerEncodings":null,"response":null,"forward":null,"fault":null,"query":null,"queryEncoding":null,"body":"x"}`, true},
		{"unknown members are skipped", `{"capture":1,"note":[1,{"a":null}],"body":"x","bodyEncoding":"base64"}`, true},
		{"escaped key that is body", `{"capture":1,"bod\u0079":"x"}`, true},
		{"surrounding whitespace", " \t{\"capture\":1,\"body\":\"x\"}\r\n", true},
		{"a fault", `{"capture":1,"body":"x","fault":{"kind":"duplicate","attempt":2,"deliveries":[null,{"status":200,"latencyMs":1.5}]}}`, true},
		{"empty encodings", `{"capture":1,"queryEncoding":"","headerEncodings":{},"body":"x"}`, true},
		// One header to HTTP, named twice: capture.Decode refuses it.
		{"header names in two cases", `{"capture":1,"headers":{"A":["1"],"a":["2"]},"body":"x"}`, false},
		{"a header's name in lower case", `{"capture":1,"headers":{"content-type":["application/json"]},"body":"x"}`, true},
		{"content-encoding in lower case", `{"capture":1,"headers":{"content-encoding":["gzip"]},"body":"x"}`, false},
		{"bodyOverLimit null", `{"capture":1,"bodyOverLimit":null,"body":"x"}`, true},
		{"a body over the limit", `{"capture":1,"body":"","bodyOverLimit":100}`, false},
		{"no capture", `{"body":"x"}`, false},
		{"capture null", `{"capture":null,"body":"x"}`, false},
		{"capture 2", `{"capture":2,"body":"x"}`, false},
		{"a header named twice", `{"capture":1,"headers":{"A":["1"],"A":["2"]},"body":"x"}`, false},
		{"33 headers", `{"capture":1,"headers":{` + manyHeaders(33) + `},"body":"x"}`, false},
		{"a query stored base64", `{"capture":1,"query":"eA==","queryEncoding":"base64","body":"x"}`, false},
		{"header values stored base64", `{"capture":1,"headers":{"A":["eA=="]},"headerEncodings":{"A":"base64"},"body":"x"}`, false},
		// What replay refuses to send again, capture.CheckReplayable on
		// the slow path says why (capture-replay); a quote and a
		// backslash, escaped, are sent.
		{"a space in the query", `{"capture":1,"query":"businessType=X&a=b c","body":"x"}`, false},
		{"DEL in the query", `{"capture":1,"query":"businessType=X&a=\u007f","body":"x"}`, false},
		{"a header name that is no token", `{"capture":1,"headers":{"X Trace":["a"]},"body":"x"}`, false},
		{"CR LF in a header value", `{"capture":1,"headers":{"X-Trace":["a\r\nX-Injected: 1"]},"body":"x"}`, false},
		{"DEL in a header value", "{\"capture\":1,\"headers\":{\"X-Trace\":[\"a\x7f\"]},\"body\":\"x\"}", false},
		{"a header value's second value", `{"capture":1,"headers":{"X-Trace":["a","\u0000"]},"body":"x"}`, false},
		{"a quote in a header value", `{"capture":1,"headers":{"X-Trace":["a\"b\\c"]},"body":"x"}`, true},
		{"a reorder fault's window", `{"capture":1,"body":"x","fault":{"kind":"reorder","window":3}}`, true},
		{"a window of the wrong type", `{"capture":1,"body":"x","fault":{"kind":"reorder","window":"3"}}`, false},
		{"a fault of the wrong type", `{"capture":1,"fault":"x","body":"x"}`, false},
		{"a delivery of the wrong type", `{"capture":1,"fault":{"deliveries":[1]},"body":"x"}`, false},
		{"a delivery's status twice", `{"capture":1,"fault":{"deliveries":[{"status":1,"status":2}]},"body":"x"}`, false},
		{"a header value that is not a list", `{"capture":1,"headers":{"A":"b"},"body":"x"}`, false},
		{"capture not a whole number", `{"capture":1.0,"body":"x"}`, false},
		{"capture too large", `{"capture":99999999999999999999,"body":"x"}`, false},
		{"capture a string", `{"capture":"1","body":"x"}`, false},
		{"latency out of range", `{"capture":1,"forward":{"latencyMs":1e999},"body":"x"}`, false},
		{"a time that is not RFC 3339", `{"capture":1,"time":"yesterday","body":"x"}`, false},
		{"a member in another case", `{"capture":1,"Body":"x"}`, false},
		{"a key folding to an ASCII one", "{\"capture\":1,\"\u212aey\":1,\"body\":\"x\"}", false},
		{"duplicate body", `{"capture":1,"body":"x","body":"y"}`, false},
		{"body a number", `{"capture":1,"body":1}`, false},
		{"no body", `{"capture":1,"bodyEncoding":"utf8"}`, false},
		{"body null", `{"capture":1,"body":null}`, false},
		{"response a string", `{"capture":1,"response":"x"}`, false},
		{"not an object", `["body"]`, false},
		{"trailing data", `{"capture":1,"body":"x"} x`, false},
		{"invalid UTF-8", "{\"capture\":1,\"body\":\"\xff\"}", false},
		{"truncated", `{"capture":1,"body":"x`, false},
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

// leanAgrees fails unless capture.Decode reads line without error into a
// record with the same members the fast path read.
func leanAgrees(t *testing.T, line []byte, got leanFields) {
	t.Helper()
	want, err := capture.Decode(line)
	if err != nil {
		t.Fatalf("fast path read %q, capture.Decode refused it: %v", line, err)
	}
	if string(got.query) != want.Query || string(got.body) != want.Body || string(got.bodyEncoding) != want.BodyEncoding {
		t.Fatalf("fast path read query %q, body %q (%q); capture.Decode %+v, from %q",
			got.query, got.body, got.bodyEncoding, want, line)
	}
}

func manyHeaders(n int) string {
	hs := make([]string, n)
	for i := range hs {
		hs[i] = fmt.Sprintf(`"H%d":["v"]`, i)
	}
	return strings.Join(hs, ",")
}

// FuzzLeanRecord holds the fast path to capture.Decode: whatever it reads,
// capture.Decode reads the same, without error.
func FuzzLeanRecord(f *testing.F) {
	f.Add([]byte(leanSample))
	f.Add([]byte(`{"body":"\ud800x","query":"a\u00e9"}`))
	f.Add([]byte(`{"headers":{"A":[null,"b"]},"headerEncodings":{"A":"base64"},"body":""}`))
	f.Add([]byte(`{"time":"2026-11-30T10:00:00+08:00","capture":-0}`))
	f.Add([]byte(`{"capture":1,"fault":{"kind":"x","deliveries":[{"status":1}]},"headers":{"A":["1"],"A":["2"]},"body":""}`))
	f.Add([]byte(`{"capture":1,"headers":{"x-\u00e9":["1"],"X-\u00c9":["2"],"content-encoding":["gzip"]},"body":""}`))
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
// line, and the same word on whether its body was checked (also with
// json-syntax ignored, when a body not JSON is not). The fuzzer varies the body, the query and the record around them.
func FuzzCheckCaptureFastPath(f *testing.F) {
	f.Add([]byte(load(f, "receipt.json")), "businessType=CREATE_RECEIVABLE_DOC", false)
	f.Add([]byte(load(f, "invoice.json")), "businessType=NOPE&x=%zz", true)
	f.Add([]byte("{\"requestId\":\"\\u00e9\\\"\",\"data\":{\"收款单\":null}}"), "", false)
	f.Add([]byte("{\"a\":\"\xff\"}"), "businessType=", true)
	f.Add([]byte(leanSample), "businessType=CREATE_PURCHASE_ORDER_INVOICE", true)
	// A compressed body, and a request the server refused: the slow path's.
	f.Add([]byte(`{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Encoding":["gzip"]},"body":"H4sIAAAAAAAA/6uuBQBDv6ajAgAAAA==","bodyEncoding":"base64"}`), "", true)
	f.Add([]byte(`{"capture":2,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{},"body":"","bodyEncoding":"utf8","rejected":{"reason":"Bad Request","head":"POST /","headEncoding":"utf8","headBytes":6}}`), "", true)
	f.Add([]byte(`{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{},"body":"","bodyEncoding":"utf8","bodyOverLimit":100,"response":{"status":413,"body":"","bodyEncoding":"utf8"}}`), "", true)
	// The call's method and Content-Type (RequestFindings), in the forms
	// the fast path reads and the ones it leaves to the slow path.
	f.Add([]byte(strings.Replace(leanSample, `"method":"POST"`, `"method":"PUT"`, 1)), "", true)
	f.Add([]byte(strings.Replace(leanSample, `"Content-Type":["application/json"],"X-Multi"`, `"content-type":["text/plain"],"X-Multi"`, 1)), "", true)
	f.Add([]byte(strings.Replace(leanSample, `"Content-Type":["application/json"],"X-Multi"`, `"Content-Type":null,"X-Multi"`, 1)), "", true)
	f.Add([]byte(strings.Replace(leanSample, `"Content-Type":["application/json"],"X-Multi"`, `"Content-Type":["text/json","application/json"],"X-Multi"`, 1)), "", true)
	// A Content-Length more than the body (replay warns of it: the
	// slow path's), in the forms CutShort reads.
	for _, cl := range []string{`["99999"]`, `["1"," 99999 "]`, `["+99999"]`, `["999"]`, `["-1"]`, `["99999999999999999999"]`, `null`, `["1e5"]`} {
		f.Add([]byte(strings.Replace(leanSample, `"X-Multi":["a","b"]`, `"Content-Length":`+cl, 1)), "", true)
	}
	f.Add([]byte(`{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"content-length":["9"]},"body":"eA==","bodyEncoding":"base64","response":{"status":200}}`), "", true)
	f.Add([]byte(`{"capture":1, x}`), "", true)
	v := mustNew(f, Options{Strict: true})
	quiet := mustNew(f, Options{Ignore: []string{ruleSyntax}})
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
		got, gotWhy, gotTorn := v.checkCapture(line)
		_, gotQuietWhy, _ := quiet.checkCapture(line)
		var want []Finding
		var wantWhy, wantQuietWhy string
		wantTorn := false
		if rec, err := capture.Decode(line); err != nil {
			if input.CutShort(line) {
				wantTorn = true
			} else if col, msg, ok := capture.Column(err); ok {
				// Not JSON, or not UTF-8: at its column in the line.
				wantWhy = "not a readable capture record: " + msg
				want, wantQuietWhy = v.single(ruleCapture, wantWhy), wantWhy
				want[0].Line, want[0].Column = 1, col
			} else {
				wantWhy = fmt.Sprintf("not a readable capture record: %v", err)
				want, wantQuietWhy = v.single(ruleCapture, wantWhy), wantWhy
			}
		} else {
			want, wantWhy = v.checkRecord(rec)
			_, wantQuietWhy = quiet.checkRecord(rec)
		}
		if gotTorn != wantTorn || !reflect.DeepEqual(got, want) || gotWhy != wantWhy || gotQuietWhy != wantQuietWhy {
			t.Fatalf("fast path %v %+v %q %q\nslow path %v %+v %q %q\nfor %q", gotTorn, got, gotWhy, gotQuietWhy, wantTorn, want, wantWhy, wantQuietWhy, line)
		}
	})
}

// plainUTCTime vouches only for times time.Time.UnmarshalJSON accepts, and
// takes listen's own form; what it leaves goes to UnmarshalJSON.
func TestPlainUTCTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw  string
		want bool
	}{
		{`"2026-12-01T10:00:00.000000001Z"`, true},
		{`"2026-12-01T10:00:00Z"`, true},
		{`"0000-01-28T23:59:59.1Z"`, true},
		{`"2026-12-01T10:00:00.123456789123Z"`, true},
		{`"2026-02-29T10:00:00Z"`, false}, // not a leap year: UnmarshalJSON refuses
		{`"2024-02-29T10:00:00Z"`, false}, // a leap year: UnmarshalJSON's to accept
		{`"2026-12-31T10:00:00Z"`, false},
		{`"2026-13-01T10:00:00Z"`, false},
		{`"2026-00-01T10:00:00Z"`, false},
		{`"2026-12-00T10:00:00Z"`, false},
		{`"2026-12-01T24:00:00Z"`, false},
		{`"2026-12-01T10:60:00Z"`, false},
		{`"2026-12-01T10:00:60Z"`, false},
		{`"2026-12-01t10:00:00Z"`, false},
		{`"2026-12-01T10:00:00z"`, false},
		{`"2026-12-01T10:00:00.Z"`, false},
		{`"2026-12-01T10:00:00,5Z"`, false},
		{`"2026-12-01T10:00:00.5x5Z"`, false},
		{`"2026-12-01T10:00:00+08:00"`, false},
		{`"2026-12-01T10:00:00\u005a"`, false},
		{`"2026-1a-01T10:00:00Z"`, false},
		{`"2026-12-01T10:00:00Z`, false},
		{`2026-12-01T10:00:00Z"`, false},
		{`""`, false},
		{`null`, false},
	} {
		if got := plainUTCTime([]byte(tc.raw)); got != tc.want {
			t.Errorf("plainUTCTime(%s) = %v, want %v", tc.raw, got, tc.want)
		}
		var tm time.Time
		if tc.want && tm.UnmarshalJSON([]byte(tc.raw)) != nil {
			t.Errorf("%s: UnmarshalJSON refuses what plainUTCTime vouches for", tc.raw)
		}
	}
}

// FuzzPlainUTCTime holds plainUTCTime to time.Time.UnmarshalJSON: every
// time it vouches for, UnmarshalJSON accepts.
func FuzzPlainUTCTime(f *testing.F) {
	f.Add([]byte(`"2026-12-01T10:00:00.000000001Z"`))
	f.Add([]byte(`"2026-02-28T23:59:59Z"`))
	f.Add([]byte(`"9999-12-28T00:00:00.9999999999Z"`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !plainUTCTime(raw) {
			return
		}
		var tm time.Time
		if err := tm.UnmarshalJSON(raw); err != nil {
			t.Fatalf("plainUTCTime vouches for %q, UnmarshalJSON refuses it: %v", raw, err)
		}
	})
}

// headerToken's bit masks are RFC 9110's token: letters, digits and
// !#$%&'*+-.^_`|~, every byte of the 256 tested alone, between two
// letters, and the empty name refused.
func TestHeaderTokenEveryByte(t *testing.T) {
	t.Parallel()
	token := func(c byte) bool {
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
	}
	for c := range 256 {
		if got, want := headerToken([]byte{byte(c)}), token(byte(c)); got != want {
			t.Errorf("headerToken(%q) = %v, want %v", byte(c), got, want)
		}
		if got, want := headerToken([]byte{'X', byte(c), 'y'}), token(byte(c)); got != want {
			t.Errorf("headerToken(X%qy) = %v, want %v", byte(c), got, want)
		}
	}
	if headerToken(nil) {
		t.Error("headerToken of an empty name is true")
	}
}

// plainLength reads what strconv.ParseInt reads, or leaves it to it.
func TestPlainLength(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw  string
		n    int64
		want bool
	}{
		{`"0"`, 0, true},
		{`"2690"`, 2690, true},
		{`"007"`, 7, true},
		{`"999999999999999999"`, 999999999999999999, true},
		{`"9999999999999999999"`, 0, false}, // 19 digits: ParseInt's to read (out of range)
		{`""`, 0, false},
		{`" 12"`, 0, false},
		{`"+12"`, 0, false},
		{`"-1"`, 0, false},
		{`"1e3"`, 0, false},
		{`"1\/"`, 0, false},
		{`"１"`, 0, false},
	} {
		n, ok := plainLength([]byte(tc.raw))
		if n != tc.n || ok != tc.want {
			t.Errorf("plainLength(%s) = %d, %v; want %d, %v", tc.raw, n, ok, tc.n, tc.want)
		}
	}
}

// FuzzPlainLength holds plainLength to strconv.ParseInt of the string's
// trimmed content: whatever it reads, ParseInt reads as the same number.
func FuzzPlainLength(f *testing.F) {
	f.Add([]byte(`"2690"`))
	f.Add([]byte(`"000000000000000001"`))
	f.Add([]byte(`" 7 "`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		n, ok := plainLength(raw)
		if !ok {
			return
		}
		want, err := strconv.ParseInt(string(bytes.TrimSpace(raw[1:len(raw)-1])), 10, 64)
		if err != nil || want != n {
			t.Fatalf("plainLength(%q) = %d, ParseInt %d, %v", raw, n, want, err)
		}
	})
}
