package anonymize

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"

	"github.com/whsim/whsim/internal/capture"
)

func gbBytes(t *testing.T, s string) []byte {
	t.Helper()
	b, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gbRecord is a capture record whose body (and answer) are body, sent
// with contentType.
func gbRecord(t *testing.T, body []byte, contentType string, answer []byte) []byte {
	t.Helper()
	rec := &capture.Record{Time: time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC), Remote: "127.0.0.1:40000", Method: "POST",
		Path: "/hook", Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE", Headers: http.Header{"Content-Type": {contentType}}}
	rec.SetBody(body)
	if answer != nil {
		enc, encoding := capture.EncodeBody(answer)
		rec.Response = &capture.Response{Status: 400, Headers: http.Header{"Content-Type": {contentType}}, Body: enc, BodyEncoding: encoding}
	}
	b, err := capture.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A GBK or GB18030 body names the same company the run replaced in a UTF-8
// record: it is decoded, the name replaced, and encoded again, with or
// without a charset in its Content-Type; the answer too. --check finds the
// name in such a body, and the output is clean.
func TestGBKBodiesAreAnonymized(t *testing.T) {
	t.Parallel()
	const name, tax = "上海鼎盛贸易有限公司", "91310115MA1FL3XK9D"
	utf := []byte(`{"businessType":4010,"data":{"customerName":"` + name + `","taxCode":"` + tax + `"}}`)
	gbJSON := gbBytes(t, `{"businessType":4010,"data":{"备注":"开票给`+name+`，税号`+tax+`"}}`)
	gbPlain := gbBytes(t, "客户："+name+"，已发货")
	for _, tt := range []struct {
		name, contentType string
		body, answer      []byte
	}{
		{"GBK JSON, charset named", "application/json; charset=GBK", gbJSON, nil},
		{"GB18030 JSON, charset named", "application/json;charset=gb18030", gbJSON, nil},
		{"GBK JSON, no charset", "application/json", gbJSON, nil},
		{"GBK text, no charset", "text/plain", gbPlain, nil},
		{"GBK answer", "text/plain; charset=gbk", []byte(`{"ok":1}`), gbBytes(t, "拒绝："+name)},
	} {
		in := append(gbRecord(t, utf, "application/json", nil), gbRecord(t, tt.body, tt.contentType, tt.answer)...)
		a := newTestAnonymizer(t, testKey)
		out, st := stream(t, a, in, Options{Check: true})
		if len(st.Leaks) != 0 {
			t.Errorf("%s: --check finds %+v in the output", tt.name, st.Leaks)
		}
		var rd = capture.NewReader(bytes.NewReader(out))
		rd.Next()
		rec, err := rd.Next()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		body, _ := rec.RequestBody()
		texts := [][]byte{body}
		if rec.Response != nil {
			ans, _ := capture.DecodeBody(rec.Response.Body, rec.Response.BodyEncoding)
			texts = append(texts, ans)
		}
		for _, b := range texts {
			u, err := simplifiedchinese.GB18030.NewDecoder().Bytes(b)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, gbBytes(t, name)) || strings.Contains(string(u), name) || strings.Contains(string(u), tax) {
				t.Errorf("%s: the name survives in %q", tt.name, u)
			}
			if bytes.Contains(b, []byte(name)) {
				t.Errorf("%s: the body was left UTF-8: %q", tt.name, b)
			}
		}
		if s := string(mustGB(t, body)); !strings.Contains(s, "开票给") && !strings.Contains(s, "客户：") && !strings.Contains(s, "ok") {
			t.Errorf("%s: the text around the name is gone: %q", tt.name, s)
		}
		// The input itself, checked: the GBK record's name is a leak.
		p := &pass{a: a, ctx: context.Background(), check: true, line: 2}
		src := capture.NewReader(bytes.NewReader(in))
		src.Next()
		orig, _ := src.Next()
		a.parts(p, orig)
		if len(p.leaks) == 0 {
			t.Errorf("%s: --check finds nothing in the original GBK record", tt.name)
		}
	}
}

func mustGB(t *testing.T, b []byte) []byte {
	t.Helper()
	u, err := simplifiedchinese.GB18030.NewDecoder().Bytes(b)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Bytes that are not GB text are left to the byte-wise search: UTF-8, and
// binary that does not decode cleanly.
func TestGBTextIsToldFromOtherBytes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		b           []byte
		contentType string
		want        bool
	}{
		{gbBytes(t, "上海鼎盛"), "", true},
		{gbBytes(t, "上海鼎盛"), "text/plain; charset=GB2312", true},
		{[]byte("上海鼎盛"), "text/plain; charset=gbk", false}, // UTF-8 whatever it says
		{[]byte{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d}, "", false},
		{[]byte{0xff, 0xfe, 0x00, 0x41}, "", false},
		{[]byte("abc\xb0"), "", false}, // a lead byte cut short
	} {
		if _, got := gbText(tt.b, tt.contentType); got != tt.want {
			t.Errorf("gbText(%q, %q) = %v, want %v", tt.b, tt.contentType, got, tt.want)
		}
	}
}

// Payload files in GBK, one document or NDJSON, are anonymized the same
// way and stay GBK.
func TestGBKPayloadFiles(t *testing.T) {
	t.Parallel()
	const name = "上海鼎盛贸易有限公司"
	line := gbBytes(t, `{"businessType":4010,"data":{"customerName":"`+name+`","备注":"给`+name+`"}}`)
	for _, in := range [][]byte{line, append(append(append([]byte{}, line...), '\n'), append(line, '\n')...)} {
		out, st := stream(t, newTestAnonymizer(t, testKey), in, Options{Check: true})
		u := mustGB(t, out)
		if len(st.Leaks) != 0 || strings.Contains(string(u), name) || bytes.Contains(out, gbBytes(t, name)) || !strings.Contains(string(u), `"备注":"给`) {
			t.Errorf("%q became %q (leaks %v)", mustGB(t, in), u, st.Leaks)
		}
	}
}

// A GBK sender writes names in GBK outside the body too: percent-encoded
// in the query or a header, or as raw bytes in a header (listen records
// such a header in base64). The decoded GBK text is searched as a body's
// is, the stand-in written back in GBK and encoded as it was; --check
// finds the name there in the input, and the output is clean.
func TestGBKOutsideTheBodyIsAnonymized(t *testing.T) {
	t.Parallel()
	const name, person = "上海鼎盛贸易有限公司", "欧阳建国"
	utf := []byte(`{"businessType":4010,"data":{"customerName":"` + name + `","staffName":"` + person + `"}}`)
	gbName, gbPerson := gbBytes(t, name), gbBytes(t, person)
	rec := &capture.Record{Time: time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC), Remote: "127.0.0.1:40000", Method: "POST",
		Path:  "/hook",
		Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE&customer=" + url.QueryEscape(string(gbName)) + "&staff=" + url.PathEscape(string(gbPerson)),
		Headers: http.Header{"Content-Type": {"application/json"}, "X-Customer": {string(gbName)},
			"X-Staff": {url.PathEscape(string(gbPerson))}}}
	rec.SetBody(utf)
	in, err := capture.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAnonymizer(t, testKey)
	out, st := stream(t, a, in, Options{Check: true})
	if len(st.Leaks) != 0 {
		t.Errorf("--check finds %+v in the output", st.Leaks)
	}
	// The run knows the names now: a check finds them where only GBK
	// holds them.
	rec.SetBody([]byte(`{}`))
	only, err := capture.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	chk, err := a.stream(context.Background(), bytes.NewReader(only), io.Discard, Options{checkOnly: true})
	if err != nil || len(chk.Leaks) != 2 {
		t.Errorf("a check of the GBK finds %+v (%v), want the company and the person", chk.Leaks, err)
	}
	got, err := capture.NewReader(bytes.NewReader(out)).Next()
	if err != nil {
		t.Fatal(err)
	}
	q, _ := url.QueryUnescape(got.Query)
	staff, _ := url.PathUnescape(got.Headers.Get("X-Staff"))
	for what, s := range map[string]string{"query": q, "X-Customer": got.Headers.Get("X-Customer"), "X-Staff": staff} {
		u, err := simplifiedchinese.GB18030.NewDecoder().String(s)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if strings.Contains(u, name) || strings.Contains(u, person) {
			t.Errorf("%s: an original survives in %q", what, u)
		}
		if !strings.ContainsFunc(u, func(r rune) bool { return r >= 0x4e00 && r <= 0x9fff }) {
			t.Errorf("%s: %q holds no Chinese text any more, want a stand-in in GBK", what, u)
		}
	}
}
