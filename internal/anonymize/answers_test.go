package anonymize

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

const answerCompany = "上海鼎盛贸易有限公司"

// answerRecord is a capture record whose request names answerCompany in
// customerName and whose answers (listen's and the forward's) echo it,
// each stored as encoding, with Content-Length and the digest headers of
// the bytes they hold (digests, a header's name to its value made of the
// body's bytes).
func answerRecord(t *testing.T, encoding string, digests map[string]func([]byte) string) *capture.Record {
	t.Helper()
	req := []byte(`{"businessType":4010,"data":{"customerName":"` + answerCompany + `"}}`)
	answer := []byte(`{"ok":true,"customer":"` + answerCompany + `"}`)
	stored := string(answer)
	if encoding == capture.Base64 {
		stored = base64.StdEncoding.EncodeToString(answer)
	}
	headers := func(b []byte) http.Header {
		h := http.Header{"Content-Type": {"application/json"}, "Content-Length": {strconv.Itoa(len(b))}}
		for name, d := range digests {
			h[name] = []string{d(b)}
		}
		return h
	}
	rec := &capture.Record{Time: time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC), Remote: "127.0.0.1:40000", Method: "POST",
		Path: "/h", Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE", Headers: headers(req),
		Response: &capture.Response{Status: 200, Headers: headers(answer), Body: stored, BodyEncoding: encoding},
		Forward:  &capture.Forward{URL: "http://127.0.0.1:3000/h", Status: 200, Headers: headers(answer), Body: stored, BodyEncoding: encoding}}
	rec.SetBody(req)
	return rec
}

// anonymizeRecord anonymizes rec as a capture file holding it and reads
// the record written back.
func anonymizeRecord(t *testing.T, rec *capture.Record) *capture.Record {
	t.Helper()
	in, err := capture.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	out, st := stream(t, newTestAnonymizer(t, testKey), in, Options{Check: true})
	if len(st.Leaks) != 0 {
		t.Errorf("--check finds %+v", st.Leaks)
	}
	got, err := capture.NewReader(bytes.NewReader(out)).Next()
	if err != nil {
		t.Fatalf("the output is no capture record: %v\n%s", err, out)
	}
	return got
}

// answers are the stored answers of a record: listen's and the forward's.
func answers(rec *capture.Record) map[string]struct {
	h              http.Header
	body, encoding string
} {
	return map[string]struct {
		h              http.Header
		body, encoding string
	}{
		"response": {rec.Response.Headers, rec.Response.Body, rec.Response.BodyEncoding},
		"forward":  {rec.Forward.Headers, rec.Forward.Body, rec.Forward.BodyEncoding},
	}
}

// An answer's body stored in base64 (as a hand-made or another tool's
// capture may store text) is written back in a form its bodyEncoding
// says: found by an44, the anonymized text was written as it is under
// "bodyEncoding":"base64", a record no reader could decode.
func TestAnAnswersBodyEncodingFollowsItsBody(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{capture.UTF8, capture.Base64} {
		got := anonymizeRecord(t, answerRecord(t, enc, nil))
		for part, ans := range answers(got) {
			b, err := capture.DecodeBody(ans.body, ans.encoding)
			if err != nil {
				t.Errorf("%s %s: its body does not decode as %s: %v (%q)", enc, part, ans.encoding, err, ans.body)
				continue
			}
			if bytes.Contains(b, []byte(answerCompany)) || !bytes.Contains(b, []byte(`"customer":"`)) {
				t.Errorf("%s %s: body %q", enc, part, b)
			}
		}
	}
}

// An answer's Content-Length follows its body as the request's does:
// found by an44, listen's and the forward's answers kept the length of
// the body before anonymizing.
func TestAnAnswersContentLengthFollowsItsBody(t *testing.T) {
	t.Parallel()
	got := anonymizeRecord(t, answerRecord(t, capture.UTF8, nil))
	for part, ans := range answers(got) {
		b, _ := capture.DecodeBody(ans.body, ans.encoding)
		if cl := ans.h.Get("Content-Length"); cl != strconv.Itoa(len(b)) {
			t.Errorf("%s: Content-Length %s for a %d-byte body", part, cl, len(b))
		}
	}
}

// The digests a body's headers carry (RFC 9530's Content-Digest and
// Repr-Digest, RFC 3230's Digest, Content-MD5) are made again of the
// anonymized body, in each algorithm the header named; one that names an
// algorithm whose digest cannot be made again is dropped, and said.
// Found by an44: they kept the digest of the original body, which a
// receiver that checks them refuses, and which confirms a guess of it.
func TestBodyDigestsFollowTheBody(t *testing.T) {
	t.Parallel()
	b64 := base64.StdEncoding.EncodeToString
	sha256Of := func(b []byte) string { s := sha256.Sum256(b); return b64(s[:]) }
	sha512Of := func(b []byte) string { s := sha512.Sum512(b); return b64(s[:]) }
	md5Of := func(b []byte) string { s := md5.Sum(b); return b64(s[:]) }
	digests := map[string]func([]byte) string{
		"Content-Digest": func(b []byte) string { return "sha-256=:" + sha256Of(b) + ":, sha-512=:" + sha512Of(b) + ":" },
		"Repr-Digest":    func(b []byte) string { return "sha-256=:" + sha256Of(b) + ":" },
		"Digest":         func(b []byte) string { return "SHA-256=" + sha256Of(b) + ",MD5=" + md5Of(b) },
		"Content-Md5":    md5Of,
		"Want-Digest":    func([]byte) string { return "sha-256=1" }, // a wish, no digest: kept
		"X-Odd-Digest":   func([]byte) string { return "kept" },
	}
	rec := answerRecord(t, capture.UTF8, digests)
	rec.Headers["Content-Digest"] = []string{"sha-256=:" + sha256Of(mustBody(t, rec)) + ":, unixsum=:AAAA:"}
	in, err := capture.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	out, st := stream(t, newTestAnonymizer(t, testKey), in, Options{Check: true})
	got, err := capture.NewReader(bytes.NewReader(out)).Next()
	if err != nil {
		t.Fatal(err)
	}
	body := mustBody(t, got)
	// The request's Content-Digest named an algorithm no digest of which
	// can be made again: dropped, and said.
	if v := got.Headers.Get("Content-Digest"); v != "" {
		t.Errorf("request: Content-Digest %q kept with an algorithm it cannot make again", v)
	}
	if st.Dropped["Content-Digest"] != 1 {
		t.Errorf("dropped %v, want Content-Digest from 1 record", st.Dropped)
	}
	for _, h := range []struct {
		name, want string
	}{
		{"Repr-Digest", digests["Repr-Digest"](body)},
		{"Digest", digests["Digest"](body)},
		{"Content-Md5", md5Of(body)},
		{"Want-Digest", "sha-256=1"},
		{"X-Odd-Digest", "kept"},
	} {
		if v := got.Headers.Get(h.name); v != h.want {
			t.Errorf("request: %s %q, want %q", h.name, v, h.want)
		}
	}
	for part, ans := range answers(got) {
		b, _ := capture.DecodeBody(ans.body, ans.encoding)
		for name, d := range digests {
			if v := ans.h.Get(name); v != d(b) && name != "Want-Digest" && name != "X-Odd-Digest" {
				t.Errorf("%s: %s %q, want %q", part, name, v, d(b))
			}
		}
	}
	if strings.Contains(string(out), answerCompany) {
		t.Errorf("the company survived: %s", out)
	}
}

func mustBody(t *testing.T, rec *capture.Record) []byte {
	t.Helper()
	b, err := rec.RequestBody()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A query's and a form body's value written again keeps the spelling of
// its spaces: %20 where the sender wrote %20 (url.QueryEscape writes +).
// Found by an44: memo=%E5%8F%91...%20044001900111 came out with a + in a
// byte the run did not replace.
func TestAQueryValueKeepsItsSpaces(t *testing.T) {
	t.Parallel()
	const form = "amount=100&memo=%E5%8F%91%E7%A5%A8%E4%BB%A3%E7%A0%81%20044001900111&note=a+b"
	rec := &capture.Record{Time: time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC), Remote: "127.0.0.1:40000", Method: "POST",
		Path: "/h", Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE&remark=%E8%81%94%E7%B3%BB%E4%BA%BA%20%E5%BC%A0%E4%BC%9F",
		Headers: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}}
	rec.SetBody([]byte(form))
	got := anonymizeRecord(t, rec)
	body := string(mustBody(t, got))
	if !strings.HasPrefix(body, "amount=100&memo=%E5%8F%91%E7%A5%A8%E4%BB%A3%E7%A0%81%20") || strings.Contains(body, "044001900111") || !strings.HasSuffix(body, "&note=a+b") {
		t.Errorf("form body %s", body)
	}
	if !strings.HasPrefix(got.Query, "businessType=CREATE_PURCHASE_ORDER_INVOICE&remark=%E8%81%94%E7%B3%BB%E4%BA%BA%20") || strings.Contains(got.Query, "%E5%BC%A0%E4%BC%9F") {
		t.Errorf("query %s", got.Query)
	}
}
