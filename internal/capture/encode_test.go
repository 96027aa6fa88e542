package capture

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// encodingJSON is the reference appendRecord must match byte for byte.
func encodingJSON(r *Record) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil
	}
	return buf.Bytes()
}

// sameJSON says got is want, the U+FFFD that replaces an invalid UTF-8
// byte written either way: Go 1.26's encoding/json writes it as \ufffd,
// as appendRecord does (jsonstr's tests hold that), Go 1.27's (json/v2
// inside) as the character itself, the same string to any reader.
func sameJSON(got, want []byte) bool {
	escaped, raw := []byte(`\ufffd`), []byte("\uFFFD")
	return bytes.Equal(bytes.ReplaceAll(got, escaped, raw), bytes.ReplaceAll(want, escaped, raw))
}

func FuzzAppendMatchesJSON(f *testing.F) {
	f.Add("POST", "/w", "businessType=X&a=%20", "Authorization", "Bearer x", []byte(`{"a":"收款单"}`), int64(1790000000123456789), 12.5, 200, "")
	f.Add("GET", "", "", "X", "\x00\x1f\b\f\u2028\u2029\"\\<>&", []byte{0xff, 0xfe}, int64(0), 1e-7, 0, "dial tcp: refused")
	f.Add("\xe0\x9f\x80\xe0\xa0\x80\xc1\xbf\xc2\x80\xdf\xbf", "/\xed\xa0\x80\xed\x9f\xbf\xee\x80\x80", "\xe2\x80\xa7\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa", "\xe4\xb8", "\xe4", []byte("é收"), int64(2), 0.5, 200, "\xc3")
	f.Add("P\xffST", "/\u2028", "q=\x7f", "", "", []byte("\xed\xa0\x80"), int64(-1), 1e21, 502, "x")
	f.Add("duplicate", "/", "", "Requestid", "3", []byte("{}"), int64(5), 1.5, 503, "")
	f.Add("drop", "/", "", "", "", []byte("{}"), int64(5), 1.5, -3, "503")
	f.Fuzz(func(t *testing.T, method, path, query, hk, hv string, body []byte, nanos int64, lat float64, status int, ferr string) {
		r := &Record{Capture: Version, Time: time.Unix(0, nanos).UTC(), Remote: "127.0.0.1:1", Method: method, Path: path, Query: query}
		if hk != "" {
			r.Headers = http.Header{hk: {hv, hv + "2"}, "Z": nil, "A": {}}
		}
		if nanos%2 == 0 {
			r.ShareBody(bytes.Clone(body)) // escaped by jsonstr.AppendUTF8 when valid UTF-8
		} else {
			r.SetBody(body)
		}
		if status != 0 {
			r.Response = &Response{Status: status, Headers: r.Headers}
			r.Response.Body, r.Response.BodyEncoding = EncodeBody(body)
			r.Forward = &Forward{URL: path, Status: status, LatencyMS: lat, Error: ferr, Headers: r.Headers}
		}
		if status%2 != 0 {
			r.Fault = &Fault{Kind: method, Arg: hv, Attempt: status, Sender: ferr, Receiver: path, Window: status % 3} // window omitted at 0
			if status > 0 {
				r.Fault.Deliveries = []Delivery{{Bytes: len(body), Status: status, LatencyMS: lat}, {RequestID: hk, Error: ferr, LatencyMS: lat}}
			}
		}
		if nanos%3 == 0 {
			r.RawPath = hv // omitted when "", as encoding/json omits it
		}
		if status%5 == 0 {
			r.BodyOverLimit = int64(status) // omitted at 0, as encoding/json omits it
		}
		if status%3 == 0 {
			r.Rejected = &Rejected{Reason: ferr, HeadBytes: nanos}
			r.Rejected.Head, r.Rejected.HeadEncoding = EncodeBody(body)
		}
		r = onDisk(r)
		want := encodingJSON(r)
		got, ok := appendRecord(nil, r)
		if want == nil {
			if ok {
				t.Fatalf("fast path encoded what encoding/json refuses: %s", got)
			}
			return
		}
		if !ok || !sameJSON(got, want) {
			t.Fatalf("appendRecord differs from encoding/json:\n got %s\nwant %s", got, want)
		}
	})
}

// TestAppendBodySetAfterShareBody: a Body set after ShareBody is escaped as
// any string is, not taken for the valid UTF-8 ShareBody checked.
func TestAppendBodySetAfterShareBody(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		set  func(r *Record)
	}{
		{"other bytes", func(r *Record) { r.Body = "a\xffb\u2028" }},
		{"cut inside a character", func(r *Record) { r.Body = r.Body[:7] }},
		{"base64 body", func(r *Record) { r.SetBody([]byte{0xff, 0x00}) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &Record{Capture: Version, Time: time.Unix(0, 0).UTC(), Method: "POST", Path: "/"}
			r.ShareBody([]byte(`{"a":"收款单"}`))
			tt.set(r)
			got, ok := appendRecord(nil, r)
			if want := encodingJSON(r); !ok || !sameJSON(got, want) {
				t.Fatalf("appendRecord differs from encoding/json:\n got %s\nwant %s", got, want)
			}
		})
	}
}
