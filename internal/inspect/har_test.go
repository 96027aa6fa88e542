package inspect

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture"
)

// A HAR reader that replays (har-to-k6, httpsnippet) finds a body that is
// not UTF-8 by postData.encoding, as content's, and sends the decoded
// bytes; credentials in headers and in the query are masked.
func TestHARBase64BodyAndMaskedCredentials(t *testing.T) {
	t.Parallel()
	raw := []byte{0xff, 0xfe, 0x00, '{'}
	s := NewStore(10)
	rec := record(1, "CREATE_RECEIVABLE_DOC", raw, 200)
	rec.Query += "&token=s3cret&api_key=k3y&page=2"
	rec.Headers.Set("X-Api-Key", "k3y")
	rec.Response.Headers.Set("Set-Cookie", "sid=abc")
	// The URL it was forwarded to carries the sender's query, and the
	// forward's error quotes it.
	rec.Forward = &capture.Forward{URL: "http://127.0.0.1:9/hook?" + rec.Query,
		Error: `Post "http://127.0.0.1:9/hook?` + rec.Query + `": EOF`}
	s.Add(rec, nil)
	s.Add(record(2, "CREATE_RECEIVABLE_DOC", []byte(receiptBad), 200), nil)
	srv := newTestServer(t, s, nil)

	// A reader's view, from HAR 1.2 and the readers' habit, not the
	// package's types.
	var h struct {
		Log struct {
			Entries []struct {
				Request struct {
					URL         string
					Headers     []struct{ Name, Value string }
					QueryString []struct{ Name, Value string }
					PostData    struct{ Text, Encoding string }
				}
				Response struct {
					Headers []struct{ Name, Value string }
				}
				Comment string
			}
		}
	}
	resp := get(t, srv.URL+"/api/export?format=har", &h)
	if resp.StatusCode != http.StatusOK || len(h.Log.Entries) != 2 {
		t.Fatalf("%d, %d entries", resp.StatusCode, len(h.Log.Entries))
	}
	bin, text := h.Log.Entries[0].Request, h.Log.Entries[1].Request
	if bin.PostData.Encoding != "base64" {
		t.Errorf("non-UTF-8 body: encoding %q, want base64", bin.PostData.Encoding)
	}
	if got, err := base64.StdEncoding.DecodeString(bin.PostData.Text); err != nil || !bytes.Equal(got, raw) {
		t.Errorf("decoded body %q (%v), want %q", got, err, raw)
	}
	if text.PostData.Encoding != "" || text.PostData.Text != receiptBad {
		t.Errorf("UTF-8 body: encoding %q, text %q", text.PostData.Encoding, text.PostData.Text)
	}

	if strings.Contains(bin.URL, "s3cret") || strings.Contains(bin.URL, "k3y") || !strings.HasSuffix(bin.URL, "&token=****&api_key=****&page=2") {
		t.Errorf("url %s", bin.URL)
	}
	for _, q := range bin.QueryString {
		if (q.Name == "token" || q.Name == "api_key") && q.Value != "****" || q.Name == "page" && q.Value != "2" {
			t.Errorf("query %s=%s", q.Name, q.Value)
		}
	}
	for _, hd := range bin.Headers {
		if strings.Contains(hd.Value, "s3cret") || strings.Contains(hd.Value, "k3y") {
			t.Errorf("header %s: %s", hd.Name, hd.Value)
		}
		if hd.Name == "Authorization" && hd.Value != "Bearer ****" {
			t.Errorf("Authorization %q", hd.Value)
		}
	}
	if c := h.Log.Entries[0].Comment; strings.Contains(c, "s3cret") || strings.Contains(c, "k3y") || !strings.Contains(c, "&token=****&api_key=****&page=2") {
		t.Errorf("comment %q", c)
	}
	for _, hd := range h.Log.Entries[0].Response.Headers {
		if hd.Name == "Set-Cookie" && hd.Value != "****" {
			t.Errorf("Set-Cookie %q", hd.Value)
		}
	}
}

// A call whose sender never got listen's answer (capture.Unanswered) is
// exported with no response, as HAR says of a request that got none
// (status 0), and a comment saying why: a HAR reader took the 200 listen
// had ready for one the sender got.
func TestHARUnansweredHasNoResponse(t *testing.T) {
	t.Parallel()
	s := NewStore(10)
	rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(receiptBad), 200)
	rec.Unanswered = &capture.Unanswered{Rule: "http-sender-gone", Reason: "the sender closed its connection before the answer: it did not wait for the 200"}
	s.Add(rec, nil)
	srv := newTestServer(t, s, nil)
	var h struct {
		Log struct {
			Entries []struct {
				Response struct {
					Status  int
					Headers []struct{ Name, Value string }
				}
				Comment string
			}
		}
	}
	if resp := get(t, srv.URL+"/api/export?format=har", &h); resp.StatusCode != http.StatusOK || len(h.Log.Entries) != 1 {
		t.Fatalf("%d, %d entries", resp.StatusCode, len(h.Log.Entries))
	}
	e := h.Log.Entries[0]
	if e.Response.Status != 0 || len(e.Response.Headers) != 0 || !strings.Contains(e.Comment, "it did not wait for the 200") {
		t.Errorf("response %+v, comment %q; want none, and the comment saying why", e.Response, e.Comment)
	}
}

// A forwarded answer over --max-body, cut at the limit (forward.bodyCut),
// is exported with the bytes the sender got and a comment saying they are
// its first only: the HAR read as the receiver's whole answer.
func TestHARSaysAForwardedAnswerWasCut(t *testing.T) {
	t.Parallel()
	s := NewStore(10)
	rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(receiptBad), 200)
	const cut = "the receiver's answer body was over the body limit (16 bytes): the sender got, and the record holds, its first 16 bytes"
	rec.Forward = &capture.Forward{URL: "http://127.0.0.1:9/hook", Status: 200, Body: "xxxxxxxxxxxxxxxx", BodyEncoding: capture.UTF8, BodyCut: cut}
	s.Add(rec, nil)
	srv := newTestServer(t, s, nil)
	var h struct {
		Log struct {
			Entries []struct{ Comment string }
		}
	}
	if resp := get(t, srv.URL+"/api/export?format=har", &h); resp.StatusCode != http.StatusOK || len(h.Log.Entries) != 1 {
		t.Fatalf("%d, %d entries", resp.StatusCode, len(h.Log.Entries))
	}
	if c := h.Log.Entries[0].Comment; !strings.Contains(c, cut) {
		t.Errorf("comment %q, want it to say the answer was cut: %q", c, cut)
	}
}

// A call's detail says when its sender never got listen's answer: the
// page showed "listen answered 200" of it.
func TestDetailSaysUnanswered(t *testing.T) {
	t.Parallel()
	s := NewStore(10)
	rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(receiptBad), 200)
	rec.Unanswered = &capture.Unanswered{Rule: "http-sender-gone", Reason: "the sender closed its connection before the answer: it did not wait for the 200"}
	s.Add(rec, nil)
	s.Add(record(2, "CREATE_RECEIVABLE_DOC", []byte(receiptBad), 200), nil)
	srv := newTestServer(t, s, nil)
	var d struct {
		Response   *struct{ Status int }
		Unanswered *struct{ Rule, Reason string }
	}
	get(t, srv.URL+"/api/calls/1", &d)
	if d.Unanswered == nil || d.Unanswered.Rule != "http-sender-gone" || d.Response == nil || d.Response.Status != 200 {
		t.Errorf("detail unanswered %+v, response %+v; want the rule and reason beside the answer listen had ready", d.Unanswered, d.Response)
	}
	d.Unanswered = nil
	get(t, srv.URL+"/api/calls/2", &d)
	if d.Unanswered != nil {
		t.Errorf("an answered call's detail says unanswered %+v", d.Unanswered)
	}
	// The list says it too, in both its encoders (the listing's and the
	// stream's appendSummary).
	var list []struct {
		ID         uint64
		Status     int
		Unanswered bool
	}
	get(t, srv.URL+"/api/calls", &list)
	if len(list) != 2 {
		t.Fatalf("the list has %d calls, want 2", len(list))
	}
	for _, c := range list {
		if want := c.ID == 1; c.Unanswered != want || c.Status != 200 {
			t.Errorf("call %d listed with status %d, unanswered %v; want 200, %v", c.ID, c.Status, c.Unanswered, want)
		}
	}
	one, err := s.Get(1)
	if err != nil {
		t.Fatal(err)
	}
	var streamed struct{ Unanswered bool }
	if err := json.Unmarshal(appendSummary(nil, one), &streamed); err != nil || !streamed.Unanswered {
		t.Errorf("the stream's summary %s says unanswered %v (%v), want true", appendSummary(nil, one), streamed.Unanswered, err)
	}
}

// A call whose body listen did not keep (over --max-body, or a request the
// HTTP server refused) has no postData in the HAR and a bodySize of -1
// (not known): a postData of "" and a bodySize of 0 said it came with an
// empty body, and a HAR reader that replays sent one.
func TestHARBodyNotKeptHasNone(t *testing.T) {
	t.Parallel()
	s := NewStore(10)
	over := record(1, "CREATE_RECEIVABLE_DOC", nil, 413)
	over.BodyOverLimit = 100
	s.Add(over, nil)
	refused := record(2, "CREATE_RECEIVABLE_DOC", nil, 400)
	refused.Rejected = &capture.Rejected{Reason: "Bad Request: invalid header name"}
	s.Add(refused, nil)
	s.Add(record(3, "CREATE_RECEIVABLE_DOC", nil, 200), nil) // came empty: says so
	srv := newTestServer(t, s, nil)
	var h struct {
		Log struct {
			Entries []struct {
				Request struct {
					PostData *struct{ Text string }
					BodySize int
				}
				Comment string
			}
		}
	}
	if resp := get(t, srv.URL+"/api/export?format=har", &h); resp.StatusCode != http.StatusOK || len(h.Log.Entries) != 3 {
		t.Fatalf("%d, %d entries", resp.StatusCode, len(h.Log.Entries))
	}
	for i, e := range h.Log.Entries[:2] {
		if e.Request.PostData != nil || e.Request.BodySize != -1 || !strings.Contains(e.Comment, "kept") {
			t.Errorf("entry %d: postData %+v, bodySize %d, comment %q; want none, -1 and why", i, e.Request.PostData, e.Request.BodySize, e.Comment)
		}
	}
	if e := h.Log.Entries[2]; e.Request.PostData == nil || e.Request.PostData.Text != "" || e.Request.BodySize != 0 {
		t.Errorf("an empty body: postData %+v, bodySize %d; want an empty one", e.Request.PostData, e.Request.BodySize)
	}
}

// queryString holds each name decoded and each value percent-encoded as
// encodeURIComponent writes it, as har-to-k6 reads a HAR (it decodes each
// value, and leaves out a pair the URL has): decoded, p=%25 became "%",
// and har-to-k6 refused the whole file ("URI malformed"); as in the URL,
// q=a+b was no pair of the URL's to it (which reads + as a space), and it
// sent it a second time.
func TestHARQueryStringEncodedAsReadersDecode(t *testing.T) {
	t.Parallel()
	s := NewStore(10)
	rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{}`), 200)
	rec.Query = "businessType=CREATE_RECEIVABLE_DOC&p=%25&a=%2541&q=a+b%20c&s=%E4%B8%AD&b=%FF&api%5Fkey=k3y&flag&t=it's+(*)!~"
	s.Add(rec, nil)
	srv := newTestServer(t, s, nil)
	var h struct {
		Log struct {
			Entries []struct {
				Request struct {
					URL         string
					QueryString []struct{ Name, Value string }
				}
			}
		}
	}
	get(t, srv.URL+"/api/export?format=har", &h)
	if len(h.Log.Entries) != 1 {
		t.Fatalf("%d entries", len(h.Log.Entries))
	}
	var got []string
	for _, q := range h.Log.Entries[0].Request.QueryString {
		got = append(got, q.Name+"="+q.Value)
	}
	want := "businessType=CREATE_RECEIVABLE_DOC p=%25 a=%2541 q=a%20b%20c s=%E4%B8%AD b=%EF%BF%BD api_key=**** flag= t=it's%20(*)!~"
	if strings.Join(got, " ") != want {
		t.Errorf("queryString %q\nwant %q", strings.Join(got, " "), want)
	}
	if u := h.Log.Entries[0].Request.URL; strings.Contains(u, "k3y") {
		t.Errorf("url %s shows the key", u)
	}
}

// An answer the receiver compressed (Content-Encoding) is exported as
// HAR 1.2 says and browsers write it: content.text the decoded text,
// content.size its length, response.bodySize the bytes that came and
// content.compression the difference; content.encoding only when the
// decoded bytes are not text. It was base64 of the gzip bytes, which a
// HAR viewer showed as noise. An answer that does not decode keeps its
// bytes, in base64, and says why.
func TestHARResponseContentDecoded(t *testing.T) {
	t.Parallel()
	doc := `{"ok":true,"msg":"收到"}`
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	var zl bytes.Buffer
	zw := zlib.NewWriter(&zl)
	zw.Write([]byte(doc))
	zw.Close()
	bin := []byte{0xff, 0x00, 0xfe}
	rows := []struct {
		name     string
		coding   string
		wire     []byte
		text     string // decoded, as text or (encoding base64) in base64
		encoding string
		size     int
		comment  bool
	}{
		{"gzip", "gzip", gz([]byte(doc)), doc, "", len(doc), false},
		{"deflate", "deflate", zl.Bytes(), doc, "", len(doc), false},
		{"gzip of bytes that are not text", "gzip", gz(bin), base64.StdEncoding.EncodeToString(bin), "base64", len(bin), false},
		{"not compressed", "", []byte(doc), doc, "", len(doc), false},
		{"corrupt gzip", "gzip", []byte("not gzip"), base64.StdEncoding.EncodeToString([]byte("not gzip")), "base64", -1, true},
	}
	s := NewStore(10)
	for i, r := range rows {
		rec := record(i+1, "CREATE_RECEIVABLE_DOC", []byte(`{}`), 200)
		if r.coding != "" {
			rec.Response.Headers.Set("Content-Encoding", r.coding)
		}
		rec.Response.Body, rec.Response.BodyEncoding = capture.EncodeBody(r.wire)
		s.Add(rec, nil)
	}
	srv := newTestServer(t, s, nil)
	var h struct {
		Log struct {
			Entries []struct {
				Response struct {
					BodySize int
					Content  struct {
						Size        int
						Compression *int
						Text        string
						Encoding    string
						Comment     string
					}
				}
			}
		}
	}
	if resp := get(t, srv.URL+"/api/export?format=har", &h); resp.StatusCode != http.StatusOK || len(h.Log.Entries) != len(rows) {
		t.Fatalf("%d, %d entries", resp.StatusCode, len(h.Log.Entries))
	}
	for i, r := range rows {
		got := h.Log.Entries[i].Response
		c := got.Content
		if c.Text != r.text || c.Encoding != r.encoding {
			t.Errorf("%s: content text %q encoding %q, want %q %q", r.name, c.Text, c.Encoding, r.text, r.encoding)
		}
		if got.BodySize != len(r.wire) {
			t.Errorf("%s: bodySize %d, want the %d bytes that came", r.name, got.BodySize, len(r.wire))
		}
		wantSize := r.size
		if wantSize < 0 {
			wantSize = len(r.wire)
		}
		if c.Size != wantSize {
			t.Errorf("%s: content.size %d, want %d", r.name, c.Size, wantSize)
		}
		switch {
		case r.coding != "" && !r.comment && (c.Compression == nil || *c.Compression != r.size-len(r.wire)):
			t.Errorf("%s: compression %v, want %d", r.name, c.Compression, r.size-len(r.wire))
		case (r.coding == "" || r.comment) && c.Compression != nil:
			t.Errorf("%s: compression %d, want none", r.name, *c.Compression)
		}
		if got := c.Comment != ""; got != r.comment {
			t.Errorf("%s: content comment %q", r.name, c.Comment)
		}
	}
}

// httpVersion is the protocol the call came in (the record's proto):
// HTTP/1.1 for every call before, an h2c or `curl -0` call included.
func TestHARHTTPVersionIsTheCalls(t *testing.T) {
	t.Parallel()
	s := NewStore(10)
	for i, proto := range []string{"", "HTTP/1.0", "HTTP/2.0"} {
		rec := record(i+1, "CREATE_RECEIVABLE_DOC", []byte(`{}`), 200)
		rec.Proto = proto
		s.Add(rec, nil)
	}
	srv := newTestServer(t, s, nil)
	var h struct {
		Log struct {
			Entries []struct {
				Request  struct{ HTTPVersion string }
				Response struct{ HTTPVersion string }
			}
		}
	}
	get(t, srv.URL+"/api/export?format=har", &h)
	want := []string{"HTTP/1.1", "HTTP/1.0", "HTTP/2.0"}
	if len(h.Log.Entries) != len(want) {
		t.Fatalf("%d entries", len(h.Log.Entries))
	}
	for i, e := range h.Log.Entries {
		if e.Request.HTTPVersion != want[i] || e.Response.HTTPVersion != want[i] {
			t.Errorf("entry %d: request %s, response %s; want %s", i, e.Request.HTTPVersion, e.Response.HTTPVersion, want[i])
		}
	}
}

// HAR is JSON, so text: a header value that is not UTF-8 has U+FFFD for
// each byte that is not (as encoding/json writes it) and a comment that
// gives its bytes in base64, and a query byte that is not UTF-8 stays
// itself in the URL as %XX, as a browser's URL has it. Both came out as
// U+FFFD alone, the bytes lost, and the URL held a raw U+FFFD that a
// reader that sends it (har-to-k6) sent as %EF%BF%BD.
func TestHARBytesThatAreNotUTF8(t *testing.T) {
	t.Parallel()
	s := NewStore(10)
	rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{}`), 200)
	rec.Headers.Set("X-Name", "caf\xe9 \xff")
	rec.Query = "businessType=CREATE_RECEIVABLE_DOC&raw=\xe9&n=caf%E9&s=a b&z=中"
	s.Add(rec, nil)
	srv := newTestServer(t, s, nil)
	var h struct {
		Log struct {
			Entries []struct {
				Request struct {
					URL     string
					Headers []struct{ Name, Value, Comment string }
				}
			}
		}
	}
	get(t, srv.URL+"/api/export?format=har", &h)
	if len(h.Log.Entries) != 1 {
		t.Fatalf("%d entries", len(h.Log.Entries))
	}
	e := h.Log.Entries[0].Request
	if want := "http://127.0.0.1:8080/hook?businessType=CREATE_RECEIVABLE_DOC&raw=%E9&n=caf%E9&s=a%20b&z=%E4%B8%AD"; e.URL != want {
		t.Errorf("url %q\nwant %q", e.URL, want)
	}
	var found bool
	for _, hd := range e.Headers {
		switch {
		case hd.Name == "X-Name":
			found = true
			if hd.Value != "caf\uFFFD \uFFFD" || !strings.Contains(hd.Comment, base64.StdEncoding.EncodeToString([]byte("caf\xe9 \xff"))) {
				t.Errorf("X-Name %q, comment %q; want U+FFFD for each bad byte and the bytes in base64", hd.Value, hd.Comment)
			}
		case hd.Comment != "":
			t.Errorf("%s: comment %q on a UTF-8 value", hd.Name, hd.Comment)
		}
	}
	if !found {
		t.Error("no X-Name header")
	}
}

// The page's Query table shows each value decoded, as a person reads it:
// since the HAR's queryString took encodeURIComponent's form (for
// har-to-k6), the page showed 中 as %E4%B8%AD and a b as a%20b. The HAR
// keeps its form; a credential is masked in both.
func TestDetailQueryParamsDecoded(t *testing.T) {
	t.Parallel()
	s := NewStore(10)
	rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{}`), 200)
	rec.Query = "businessType=CREATE_RECEIVABLE_DOC&s=%E4%B8%AD&q=a+b%20c&d=$(id)&token=k3y"
	s.Add(rec, nil)
	srv := newTestServer(t, s, nil)
	var d struct {
		QueryParams []struct{ Name, Value string }
	}
	get(t, srv.URL+"/api/calls/1", &d)
	var got []string
	for _, q := range d.QueryParams {
		got = append(got, q.Name+"="+q.Value)
	}
	if want := "businessType=CREATE_RECEIVABLE_DOC s=中 q=a b c d=$(id) token=****"; strings.Join(got, " ") != want {
		t.Errorf("queryParams %q, want %q", strings.Join(got, " "), want)
	}
}

// A compressed answer (the receiver's, behind --forward-to) is given to
// the page decoded as well: the page showed "(base64) H4sIAAAA…", the
// gzip bytes, where the receiver's JSON was.
func TestDetailDecodesACompressedAnswer(t *testing.T) {
	t.Parallel()
	doc := `{"ok":true,"msg":"收到"}`
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(doc))
	zw.Close()
	s := NewStore(10)
	rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{}`), 200)
	rec.Response.Headers.Set("Content-Encoding", "gzip")
	rec.Response.Body, rec.Response.BodyEncoding = capture.EncodeBody(buf.Bytes())
	rec.Forward = &capture.Forward{URL: "http://127.0.0.1:9/hook", Status: 200, Headers: rec.Response.Headers, Body: rec.Response.Body, BodyEncoding: rec.Response.BodyEncoding}
	s.Add(rec, nil)
	s.Add(record(2, "CREATE_RECEIVABLE_DOC", []byte(`{}`), 200), nil)
	srv := newTestServer(t, s, nil)
	type msg struct{ Body, BodyEncoding, Decoded, Content, ContentEncoding string }
	var d struct{ Response, Forward msg }
	get(t, srv.URL+"/api/calls/1", &d)
	for name, m := range map[string]msg{"response": d.Response, "forward": d.Forward} {
		if m.Decoded != "gzip" || m.Content != doc || m.ContentEncoding != "" || m.BodyEncoding != "base64" {
			t.Errorf("%s: %+v; want the bytes as they came and the content decoded", name, m)
		}
	}
	d.Response = msg{}
	get(t, srv.URL+"/api/calls/2", &d)
	if d.Response.Decoded != "" || d.Response.Content != "" {
		t.Errorf("a plain answer: %+v, want no decoded content", d.Response)
	}
}

// A '#' in a captured query (a raw sender wrote it in its request line,
// and listen records it as a byte of the query) is written %23 in the
// HAR's url: left as it was, every reader took the rest of the query for
// a fragment, and sent the call without it (ref=ab, no x=1).
func TestHARURLKeepsAQueryWithAHash(t *testing.T) {
	t.Parallel()
	rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{}`), 200)
	rec.Query = "businessType=CREATE_RECEIVABLE_DOC&ref=ab#cd&x=1"
	s := NewStore(10)
	c := s.Add(rec, nil)
	u, err := url.Parse(entryOf(c, "http://127.0.0.1:3000").Request.URL)
	if err != nil {
		t.Fatal(err)
	}
	if u.Fragment != "" || u.RawQuery != "businessType=CREATE_RECEIVABLE_DOC&ref=ab%23cd&x=1" {
		t.Errorf("url %s: query %q, fragment %q; want the whole query, no fragment", u, u.RawQuery, u.Fragment)
	}
	if q := u.Query(); q.Get("ref") != "ab#cd" || q.Get("x") != "1" {
		t.Errorf("url %s reads as %v, want ref=ab#cd and x=1", u, q)
	}
}

// A call that asked for "*" (OPTIONS *) is exported with a URL a HAR
// reader can parse: its url was http://127.0.0.1:8080*, which JavaScript's
// new URL() and Go's url.Parse refuse (a port that ends in '*'), so a
// reader choked on the file for one such call. The url names the
// server's "/" and the request's comment says what the line asked for.
//
// So is a CONNECT, recorded with the authority it asked for (a client
// that took listen for an HTTP proxy): "[::1]:443" after the port is no
// URL either.
func TestHAREntryOfAnAsteriskTarget(t *testing.T) {
	for _, tc := range []struct{ method, target string }{
		{http.MethodOptions, "*"}, {http.MethodConnect, "example.com:443"}, {http.MethodConnect, "[::1]:443"},
	} {
		rec := record(1, "CREATE_RECEIVABLE_DOC", nil, 200)
		rec.Method, rec.Path, rec.RawPath, rec.Query = tc.method, tc.target, "", ""
		s := NewStore(10)
		c := s.Add(rec, nil)
		e := entryOf(c, "http://127.0.0.1:8080")
		u, err := url.Parse(e.Request.URL)
		if err != nil || !u.IsAbs() || u.Host != "127.0.0.1:8080" || u.Path != "/" {
			t.Errorf("%s %s: HAR url %q (%v): want http://127.0.0.1:8080/", tc.method, tc.target, e.Request.URL, err)
		}
		if !strings.Contains(e.Request.Comment, strconv.Quote(tc.target)) {
			t.Errorf("%s %s: request comment %q: want it to say what the request asked for", tc.method, tc.target, e.Request.Comment)
		}
	}
}

// A receiver that echoes the request in its answer (listen
// --forward-to keeps its answer as it came) has the HAR, a file made to be
// shared, show the call's credentials masked in the answer as in the
// request: its headers and its text, in base64 too.
func TestHARMasksCredentialsTheAnswerEchoes(t *testing.T) {
	t.Parallel()
	s := NewStore(10)
	s.Add(echoingRecord(1), nil)
	bin := record(2, "CREATE_RECEIVABLE_DOC", []byte(receiptBad), 401)
	bin.Response.Body, bin.Response.BodyEncoding = base64.StdEncoding.EncodeToString([]byte("\xff Bearer s3cret")), capture.Base64
	s.Add(bin, nil)
	srv := newTestServer(t, s, nil)
	var h struct {
		Log struct {
			Entries []struct {
				Response struct {
					Headers []struct{ Name, Value string }
					Content struct {
						Size                    int
						Text, Encoding, Comment string
					}
				}
			}
		}
	}
	if resp := get(t, srv.URL+"/api/export?format=har", &h); resp.StatusCode != http.StatusOK || len(h.Log.Entries) != 2 {
		t.Fatalf("%d, %d entries", resp.StatusCode, len(h.Log.Entries))
	}
	text, b64 := h.Log.Entries[0].Response, h.Log.Entries[1].Response
	if want := `{"refused":"Bearer ****","url":"/hook?token=****"}`; text.Content.Text != want || !strings.Contains(text.Content.Comment, "masked") {
		t.Errorf("content %+v, want text %s", text.Content, want)
	}
	if got := headerValue(text.Headers, "X-Echoed"); got != "Bearer ****" {
		t.Errorf("X-Echoed %q, want Bearer ****", got)
	}
	if got, _ := base64.StdEncoding.DecodeString(b64.Content.Text); string(got) != "\xff Bearer ****" || b64.Content.Encoding != "base64" {
		t.Errorf("base64 content %q (%+v)", got, b64.Content)
	}
}

// The page shows an echoing receiver's answer, and the forwarded one, with
// the call's credentials masked, as it shows the call's headers.
func TestCallDetailMasksCredentialsTheAnswerEchoes(t *testing.T) {
	t.Parallel()
	s := NewStore(10)
	rec := echoingRecord(1)
	rec.Forward = &capture.Forward{URL: "http://127.0.0.1:9/hook", Status: 401, Headers: rec.Response.Headers, Body: rec.Response.Body, BodyEncoding: capture.UTF8}
	s.Add(rec, nil)
	srv := newTestServer(t, s, nil)
	var d struct {
		Response, Forward struct {
			Headers []struct{ Name, Value string }
			Body    string
		}
	}
	get(t, srv.URL+"/api/calls/1", &d)
	for _, m := range []struct {
		Headers []struct{ Name, Value string }
		Body    string
	}{d.Response, d.Forward} {
		if want := `{"refused":"Bearer ****","url":"/hook?token=****"}`; m.Body != want {
			t.Errorf("body %s, want %s", m.Body, want)
		}
		if got := headerValue(m.Headers, "X-Echoed"); got != "Bearer ****" {
			t.Errorf("X-Echoed %q, want Bearer ****", got)
		}
	}
}

// echoingRecord is call seq of a receiver that echoed the call's token
// (its query's, and a Bearer one) in its answer's header and body.
func echoingRecord(seq int) *capture.Record {
	rec := record(seq, "CREATE_RECEIVABLE_DOC", []byte(receiptBad), 401)
	rec.Query += "&token=q-t0ken-77"
	rec.Response.Headers.Set("X-Echoed", "Bearer s3cret")
	rec.Response.Body = `{"refused":"Bearer s3cret","url":"/hook?token=q-t0ken-77"}`
	return rec
}

// headerValue is the value of the header named name in a list of them,
// "" when none is.
func headerValue(hs []struct{ Name, Value string }, name string) string {
	for _, h := range hs {
		if h.Name == name {
			return h.Value
		}
	}
	return ""
}
