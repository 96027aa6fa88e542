package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestReaderRefusesAmbiguousRecords(t *testing.T) {
	t.Parallel()
	const head = `{"capture":1,"time":"2026-11-01T10:00:00Z","method":"POST","path":"/hook","query":"businessType=CREATE_RECEIVABLE_DOC"`
	tests := []struct {
		name string
		line string
		want string // in the error; "" for a record read as it is
	}{
		{"plain", head + `,"headers":{"A":["1"]},"body":"{}","bodyEncoding":"utf8"}`, ""},
		{"unknown members are not looked into", head + `,"extra":{"x":1,"x":2},"Extra":1,"body":"{}"}`, ""},
		{"an unknown member named twice is ignored", head + `,"note":1,"note":2,"body":"{}"}`, ""},
		// Two keys to encoding/json, but one header to HTTP: replay sent
		// both values under one name, in the order Go's map gave them.
		{"header names differing in case are one header", head + `,"headers":{"A":["1"],"a":["2"]},"body":"{}"}`, `"a" twice in headers, as "A" and "a"`},
		{"fault deliveries each their own", head + `,"body":"{}","fault":{"kind":"duplicate","attempt":1,"deliveries":[{"status":200},{"status":500}]}}`, ""},
		{"body twice", head + `,"body":"{}","bodyEncoding":"utf8","body":"evil"}`, `line 1: "body" twice in the record: readers differ`},
		{"body in another case", head + `,"body":"{}","Body":"evil"}`, `line 1: "body" twice in the record, as "body" and "Body"`},
		{"escaped key", head + `,"body":"{}","b\u006fdy":"evil"}`, `"body" twice in the record`},
		{"capture twice", head + `,"body":"{}","capture":1}`, `"capture" twice in the record`},
		// Said as the key twice, not as what the last value would make of
		// the record: "a record of format 2 has \"rejected\"", or "a newer
		// whsim wrote it", of a line that begins "capture":1.
		{"capture twice, 1 then 2", head + `,"body":"{}","capture":2}`, `line 1: "capture" twice in the record`},
		{"capture twice, 1 then 3", head + `,"body":"{}","capture":3}`, `line 1: "capture" twice in the record`},
		{"capture twice, 1 then 0", head + `,"body":"{}","capture":0}`, `line 1: "capture" twice in the record`},
		{"bodyOverLimit twice, 0 last", head + `,"body":"","bodyOverLimit":100,"bodyOverLimit":0}`, `line 1: "bodyOverLimit" twice in the record`},
		{"a header twice", head + `,"headers":{"X-Sig":["a"],"X-Sig":["b"]},"body":"{}"}`, `"X-Sig" twice in headers`},
		// HTTP names a header in any case: encoding/json keeps the two
		// apart, and replay sent both values under one name, in the order
		// Go's map gave them.
		{"a header twice in two cases", head + `,"headers":{"content-type":["text/plain"],"Content-Type":["application/json"]},"body":"{}"}`, `"Content-Type" twice in headers, as "content-type" and "Content-Type"`},
		{"an answer's header twice in two cases", head + `,"body":"{}","response":{"status":200,"headers":{"X-A":["1"],"x-a":["2"]}}}`, `"x-a" twice in response.headers, as "X-A" and "x-a"`},
		{"a header in another case alone", head + `,"headers":{"content-type":["application/json"]},"body":"{}"}`, ""},
		{"after an empty object", head + `,"headers":{},"body":"{}","bodyEncoding":"utf8","body":"evil"}`, `"body" twice in the record`},
		{"after an empty array", head + `,"body":"{}","fault":{"kind":"duplicate","deliveries":[],"kind":"drop"}}`, `"kind" twice in fault`},
		{"headers twice", head + `,"headers":{"A":["1"]},"headers":{"B":["2"]},"body":"{}"}`, `"headers" twice in the record`},
		{"a header encoding twice", head + `,"headerEncodings":{"A":"base64","A":"utf8"},"body":"{}"}`, `"A" twice in headerEncodings`},
		{"response status twice", head + `,"body":"{}","response":{"status":200,"STATUS":500,"body":""}}`, `"status" twice in response, as "status" and "STATUS"`},
		{"response header twice", head + `,"body":"{}","response":{"status":200,"headers":{"A":["1"],"A":["2"]}}}`, `"A" twice in response.headers`},
		{"forward url twice", head + `,"body":"{}","forward":{"url":"http://a/","url":"http://b/"}}`, `"url" twice in forward`},
		{"fault kind twice", head + `,"body":"{}","fault":{"kind":"drop","kind":"delay"}}`, `"kind" twice in fault`},
		{"a delivery's status twice", head + `,"body":"{}","fault":{"kind":"duplicate","deliveries":[{"status":200},{"status":200,"status":500}]}}`, `"status" twice in one of fault.deliveries`},
		{"a rejected request", `{"capture":2,"method":"POST","rejected":{"reason":"malformed","head":"x","headEncoding":"utf8","headBytes":1}}`, ""},
		{"rejected's reason twice", `{"capture":2,"rejected":{"reason":"a","reason":"b","head":"x"}}`, `"reason" twice in rejected`},
		// listen writes "body" for every call, "" for an empty one: one
		// absent or null would be replayed and checked as an empty body.
		{"no body", head + `,"headers":{"A":["1"]},"bodyEncoding":"utf8"}`, `line 1: record has no "body" (listen writes one for every call`},
		{"a null body", head + `,"body":null,"bodyEncoding":"utf8"}`, `line 1: record has no "body"`},
		{"an empty body", head + `,"body":"","bodyEncoding":"utf8"}`, ""},
		{"body in another case only", head + `,"BODY":"{}"}`, ""},
		{"version 3", `{"capture":3,"method":"POST","path":"/","body":"{}"}`, `line 1: capture record format 3, which this whsim does not read (it reads 1 and 2)`},
		{"version -1", `{"capture":-1,"method":"POST","path":"/","body":"{}"}`, `capture record format -1, which no whsim writes`},
		{"version 0", `{"capture":0,"method":"POST","path":"/","body":"{}"}`, `line 1: capture record format 0, which no whsim writes (it reads 1 and 2)`},
		{"version null", `{"capture":null,"method":"POST","path":"/","body":"{}"}`, `line 1: not a capture record (no "capture" key)`},
		// JSON is UTF-8, and listen writes what is not in base64: a byte
		// encoding/json would quietly turn into U+FFFD is refused.
		{"invalid UTF-8 in the body", head + ",\"body\":\"\xff{}\",\"bodyEncoding\":\"utf8\"}", `line 1: not valid UTF-8 at byte 128 (listen writes such bytes in base64`},
		{"invalid UTF-8 in a header", head + ",\"headers\":{\"A\":[\"\xc3\"]},\"body\":\"{}\"}", `not valid UTF-8 at byte 137`},
		{"invalid UTF-8 in a member not read", head + ",\"note\":\"\xed\xa0\x80\",\"body\":\"{}\"}", `not valid UTF-8 at byte 128`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec, err := NewReader(strings.NewReader(tt.line + "\n")).Next()
			if tt.want == "" {
				if err != nil || rec == nil {
					t.Fatalf("got %v, want the record", err)
				}
				return
			}
			le, ok := errors.AsType[*LineError](err)
			if !ok {
				t.Fatalf("got %v, %v; want a LineError", rec, err)
			}
			if le.Line != 1 || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q (line %d), want %q", err, le.Line, tt.want)
			}
			// The same line, unended (the last of a file), is the same
			// error, not a torn line.
			if _, err := NewReader(strings.NewReader(tt.line)).Next(); !errors.As(err, &le) {
				t.Errorf("unended: got %v, want a LineError", err)
			}
		})
	}
}

// TestRecordObjectsMatchTypes holds checkKeys' tables to the JSON names of
// the types encoding/json decodes a record into.
func TestRecordObjectsMatchTypes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		obj *recordObject
		typ reflect.Type
	}{
		{recordObj, reflect.TypeFor[Record]()},
		{responseObj, reflect.TypeFor[Response]()},
		{forwardObj, reflect.TypeFor[Forward]()},
		{faultObj, reflect.TypeFor[Fault]()},
		{deliveryObj, reflect.TypeFor[Delivery]()},
		{rejectedObj, reflect.TypeFor[Rejected]()},
		{unansweredObj, reflect.TypeFor[Unanswered]()},
	} {
		var want []string
		for f := range tt.typ.Fields() {
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); f.IsExported() && name != "-" {
				want = append(want, name)
			}
		}
		var got []string
		for _, m := range tt.obj.members {
			got = append(got, m.name)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: members %v, want %v", tt.typ, got, want)
		}
	}
}

func TestDecodeAcceptsWhatAppendWrites(t *testing.T) {
	t.Parallel()
	rec := &Record{Method: "POST", Path: "/", Query: "a=\xff", Headers: map[string][]string{"X-Bin": {"\xfe"}},
		Response: &Response{Status: 200}, Forward: &Forward{URL: "http://x/", Status: 500},
		Fault: &Fault{Kind: "duplicate", Deliveries: []Delivery{{Status: 200}, {Status: 500}}}}
	rec.SetBody([]byte{0xff})
	line, err := Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	if got.Query != rec.Query || got.Headers.Get("X-Bin") != "\xfe" || len(got.Fault.Deliveries) != 2 {
		t.Errorf("decoded %+v", got)
	}
}

// FuzzDecode: whatever the line, Decode answers, and a record it accepts
// goes back out (Append) as a line it accepts again, the same record.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"capture":1,"method":"POST","path":"/","body":"{}","headers":{"A":["1"]}}`))
	f.Add([]byte(`{"capture":1,"body":"{}","Body":"x"}`))
	f.Add([]byte(`{"capture":1,"fault":{"deliveries":[{"status":1,"Status":2}]}}`))
	f.Add([]byte(`{"capture":3}`))
	f.Add([]byte(`{"capture":1,"method":"POST","body":null}`))
	f.Add([]byte(`{"capture":2,"rejected":{"reason":"x","head":"GET","headEncoding":"utf8","headBytes":3}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, err := Decode(line)
		if err != nil {
			return
		}
		out, err := Append(nil, rec)
		if err != nil {
			return // a value Append refuses (a NaN latency cannot come from JSON; a year past 9999)
		}
		again, err := Decode(bytes.TrimSuffix(out, []byte("\n")))
		if err != nil {
			t.Fatalf("Append wrote %q, which Decode refuses: %v", out, err)
		}
		out2, _ := Append(nil, again)
		if !bytes.Equal(out, out2) {
			t.Errorf("not the same record again:\n%s\n%s", out, out2)
		}
	})
}

// A call whose sender never got listen's answer is recorded with that
// answer under "unanswered", never as "response": a reader that knows no
// "unanswered" (an older whsim, a user's jq '.response.status') reads a
// call with no answer, not one answered 200. Read back, the answer is
// Response again, and Unanswered says it never reached the sender.
func TestUnansweredIsNoResponseOnDisk(t *testing.T) {
	t.Parallel()
	rec := &Record{Method: "POST", Path: "/", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{},
		Response:   &Response{Status: 200, Headers: http.Header{"Content-Type": {"application/json"}}, Body: "{}", BodyEncoding: UTF8},
		Unanswered: &Unanswered{Rule: "http-sender-gone", Reason: "the sender closed its connection before the answer"}}
	rec.SetBody([]byte(`{}`))
	line, err := Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	var older struct {
		Response *Response `json:"response"`
	}
	if err := json.Unmarshal(line, &older); err != nil || older.Response != nil {
		t.Errorf("an older reader reads response %+v (%v) of %s, want none", older.Response, err, line)
	}
	if rec.Response == nil || rec.Unanswered.Response != nil {
		t.Errorf("Append changed the record: %+v", rec)
	}
	got, err := Decode(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	if got.Unanswered == nil || *got.Unanswered != *rec.Unanswered ||
		got.Response == nil || got.Response.Status != 200 || got.Response.Body != "{}" {
		t.Errorf("read back %+v (unanswered %+v), want the answer as Response, Unanswered its reason", got, got.Unanswered)
	}
	// Written with encoding/json (Append's slow path), the same bytes.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	rec.Capture = Version
	if err := enc.Encode(onDisk(rec)); err != nil || buf.String() != string(line) {
		t.Errorf("encoding/json wrote\n%s(%v), Append\n%s", buf.String(), err, line)
	}
	for _, bad := range []string{
		`{"capture":1,"method":"POST","headers":{},"body":"","bodyEncoding":"utf8","response":{"status":200,"body":"","bodyEncoding":"utf8"},"unanswered":{"reason":"x","response":{"status":200,"body":"","bodyEncoding":"utf8"}}}`,
		`{"capture":1,"method":"POST","headers":{},"body":"","bodyEncoding":"utf8","unanswered":{"reason":"x","reason":"y"}}`,
	} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%s): no error", bad)
		}
	}
}
