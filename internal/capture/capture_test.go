package capture

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/input"
)

func TestRecordRoundTripsBodiesByteForByte(t *testing.T) {
	t.Parallel()
	bodies := []struct {
		name string
		body []byte
		enc  string
	}{
		{"json with chinese keys", []byte(`{"data":{"收款单":{"汇率":7.1}}}`), UTF8},
		{"html characters and line separators", []byte("{\"a\":\"<&>\u2028\u2029\"}\n"), UTF8},
		{"terminal escapes", []byte("\x1b[31mred\x1b[0m\x07"), UTF8},
		{"invalid utf-8", []byte{0xff, 0xfe, '{', 0x80, '}'}, Base64},
		{"empty", nil, UTF8},
	}
	for _, tt := range bodies {
		t.Run(tt.name, func(t *testing.T) {
			rec := &Record{Time: time.Date(2026, 11, 22, 4, 0, 0, 123, time.UTC), Remote: "127.0.0.1:1",
				Method: "POST", Path: "/hook", Query: "businessType=CREATE_RECEIVABLE_DOC&x=1",
				Headers: http.Header{"Content-Type": {"application/json"}}}
			rec.SetBody(tt.body)
			if rec.BodyEncoding != tt.enc {
				t.Errorf("encoding %s, want %s", rec.BodyEncoding, tt.enc)
			}
			line, err := Append(nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			if !input.IsRecord(line) || bytes.Count(line, []byte("\n")) != 1 {
				t.Fatalf("not one record line: %q", line)
			}
			got, err := NewReader(bytes.NewReader(line)).Next()
			if err != nil {
				t.Fatal(err)
			}
			body, err := got.RequestBody()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, tt.body) {
				t.Errorf("body %q, want %q", body, tt.body)
			}
			if ev, ok := got.Event(); !ok || ev != "CREATE_RECEIVABLE_DOC" {
				t.Errorf("event %q %v", ev, ok)
			}
			if !got.Time.Equal(rec.Time) || got.Headers.Get("Content-Type") != "application/json" {
				t.Errorf("record changed: %+v", got)
			}
		})
	}
}

func TestReaderSkipsATornLastLine(t *testing.T) {
	t.Parallel()
	var file []byte
	for range 3 {
		rec := &Record{Method: "POST", Path: "/"}
		rec.SetBody([]byte(`{}`))
		file, _ = Append(file, rec)
	}
	torn := append(bytes.Clone(file), `{"capture":1,"time":"2026-11-22T04:0`...)
	// A body is stored as escaped JSON, a backslash before every quote: a
	// crash may cut a line right after one.
	cutAtEscape := `{"capture":1,"body":"{\`
	tornAtEscape := append(bytes.Clone(file), cutAtEscape...)
	restarted := string(file[:len(file)/3]) + cutAtEscape + "\n" + string(file[len(file)/3:])
	tests := []struct {
		name     string
		in       string
		records  int
		wantErrs []string
	}{
		{"clean", string(file), 3, nil},
		{"torn last line", string(torn), 3, []string{"line 4: " + input.TornLine(false) + " ("}},
		{"torn last line after a backslash", string(tornAtEscape), 3, []string{"line 4: " + input.TornLine(false) + " (unexpected end of JSON input)"}},
		{"torn line after a backslash, a restart's records after it", restarted, 3, []string{"line 2: " + input.TornLine(true) + " (unexpected end of JSON input)"}},
		{"garbage in the middle", `{"capture":1,"body":""}` + "\nnot json\n" + `{"capture":1,"body":""}` + "\n", 2, []string{"line 2: not JSON at byte 2 (invalid character"}},
		{"a payload is not a record", `{"requestId":"x"}` + "\n", 0, []string{`line 1: not a capture record`}},
		{"blank lines", "\n\n" + `{"capture":1,"body":""}` + "\n\n", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in))
			var n int
			var errs []string
			for {
				_, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				var te *TornError
				var le *LineError
				switch {
				case errors.As(err, &te), errors.As(err, &le):
					errs = append(errs, err.Error())
				case err != nil:
					t.Fatal(err)
				default:
					n++
				}
			}
			if n != tt.records {
				t.Errorf("%d records, want %d", n, tt.records)
			}
			if len(errs) != len(tt.wantErrs) {
				t.Fatalf("errors %q, want %q", errs, tt.wantErrs)
			}
			for i, w := range tt.wantErrs {
				if !strings.HasPrefix(errs[i], w) {
					t.Errorf("error %q, want prefix %q", errs[i], w)
				}
			}
		})
	}
}

func FuzzReader(f *testing.F) {
	rec := &Record{Method: "POST"}
	rec.SetBody([]byte{0xff, '{'})
	line, _ := Append(nil, rec)
	f.Add(line)
	f.Add([]byte(`{"capture":1,"body":"x","bodyEncoding":"base64"}`))
	f.Add([]byte("\n\n{"))
	f.Add([]byte(`{"capture":1,"query":"/w==","queryEncoding":"base64","headers":{"A":["gA==","eA=="]},"headerEncodings":{"A":"base64"}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(bytes.NewReader(in))
		for range len(in) + 2 {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if rec != nil {
				_, _ = rec.RequestBody()
				_, _ = rec.Event()
				// What was read is written back and read again unchanged.
				line, err := Append(nil, rec)
				if err != nil {
					continue // a time or latency encoding/json refuses
				}
				again, err := NewReader(bytes.NewReader(line)).Next()
				if err != nil {
					t.Fatalf("re-reading %s: %v", line, err)
				}
				if again.Query != rec.Query || !reflect.DeepEqual(again.Headers, rec.Headers) ||
					again.Body != rec.Body || again.BodyEncoding != rec.BodyEncoding {
					t.Fatalf("round trip changed the record:\n%+v\n%+v", rec, again)
				}
			}
		}
		t.Fatalf("reader did not reach the end of %d bytes", len(in))
	})
}

// A query and header values that are not valid UTF-8 come back byte for
// byte, stored base64 with a marker; valid ones stay readable text.
func TestRecordRoundTripsQueryAndHeadersByteForByte(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		query   string
		headers http.Header
		plain   []string // what the line must hold as it is
	}{
		{"valid stays text", "businessType=X&n=收", http.Header{"X-Name": {"收款单"}}, []string{`"query":"businessType=X&n=收"`, `"X-Name":["收款单"]`}},
		{"invalid query", "businessType=X&n=\xff\xfe", http.Header{"X-Name": {"ok"}}, []string{`"queryEncoding":"base64"`, `"X-Name":["ok"]`}},
		{"invalid header value", "businessType=X", http.Header{"X-Bin": {"ok", "a\x80b"}, "X-Ok": {"v"}}, []string{`"headerEncodings":{"X-Bin":"base64"}`, `"X-Ok":["v"]`, `"query":"businessType=X"`}},
		{"both", "\xc3", http.Header{"X-Bin": {"\xed\xa0\x80"}}, []string{`"queryEncoding":"base64"`, `"headerEncodings":{"X-Bin":"base64"}`}},
	}
	for _, tt := range tests {
		rec := &Record{Time: time.Unix(1, 0).UTC(), Method: "POST", Query: tt.query, Headers: tt.headers}
		line, err := Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Query != tt.query || !reflect.DeepEqual(rec.Headers, tt.headers) {
			t.Errorf("%s: Append changed the record", tt.name)
		}
		for _, p := range tt.plain {
			if !bytes.Contains(line, []byte(p)) {
				t.Errorf("%s: line has no %s: %s", tt.name, p, line)
			}
		}
		got, err := NewReader(bytes.NewReader(line)).Next()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got.Query != tt.query || !reflect.DeepEqual(got.Headers, tt.headers) {
			t.Errorf("%s: read back query %q headers %q, want %q %q", tt.name, got.Query, got.Headers, tt.query, tt.headers)
		}
	}
}

// Records written before the encodings existed read as they did; a bad
// encoding is one line's error.
func TestRecordEncodingsOldAndBad(t *testing.T) {
	t.Parallel()
	old := `{"capture":1,"time":"2026-11-22T04:24:23Z","remote":"r","method":"POST","path":"/","query":"businessType=X","headers":{"A":["\ufffd"]},"body":"{}","bodyEncoding":"utf8"}` + "\n"
	bad := `{"capture":1,"query":"!!","queryEncoding":"base64"}` + "\n" +
		`{"capture":1,"headers":{"A":["!!"]},"headerEncodings":{"A":"base64"}}` + "\n" +
		`{"capture":1,"query":"x","queryEncoding":"rot13"}` + "\n"
	r := NewReader(strings.NewReader(old + bad))
	rec, err := r.Next()
	if err != nil || rec.Query != "businessType=X" || rec.Headers.Get("A") != "\ufffd" {
		t.Fatalf("old record: %+v, %v", rec, err)
	}
	for range 3 {
		var le *LineError
		if _, err := r.Next(); !errors.As(err, &le) {
			t.Errorf("bad encoding: %v, want a LineError", err)
		}
	}
	if _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("end: %v", err)
	}
}

// A hand-made record's headerEncodings names its header in another case:
// the encoding is that header's. Its base64 text went out on replay as
// the header's value.
func TestHeaderEncodingInAnotherCase(t *testing.T) {
	t.Parallel()
	line := `{"capture":1,"method":"POST","path":"/","headers":{"X-A":["/w=="]},"headerEncodings":{"x-a":"base64"},"body":"{}"}` + "\n"
	rec, err := NewReader(strings.NewReader(line)).Next()
	if err != nil || rec.Headers.Get("X-A") != "\xff" {
		t.Fatalf("%+v, %v; want X-A the byte 0xff", rec, err)
	}
}

// A record of a refused request is format 2 and reads back whole; a
// format this whsim does not know, or a rejected member in a format-1
// record, is a bad line (skipped with a warning), never read as a call.
func TestRejectedRecordFormat(t *testing.T) {
	t.Parallel()
	rec := &Record{Time: time.Unix(1, 0).UTC(), Method: "POST", Path: "/", Headers: http.Header{},
		Rejected: &Rejected{Reason: "Bad Request", HeadBytes: 3}}
	rec.Rejected.Head, rec.Rejected.HeadEncoding = EncodeBody([]byte{'P', 0xff, '\r'})
	line, err := Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	got, err := NewReader(bytes.NewReader(line)).Next()
	if err != nil || got.Capture != VersionRejected || got.Rejected == nil {
		t.Fatalf("read %+v, %v; want a format-2 rejected record", got, err)
	}
	if head, err := got.Rejected.RawHead(); err != nil || string(head) != "P\xff\r" {
		t.Errorf("head %q, %v", head, err)
	}
	if got.Rejected.ClosedAtStop || strings.Contains(string(line), "closedAtStop") {
		t.Errorf("a refused request's record says closedAtStop: %s", line)
	}
	if why := got.RejectedWhy(); why != "the HTTP server refused the request before listen could read it: Bad Request (no answer)" {
		t.Errorf("RejectedWhy = %q", why)
	}
	// One listen's own stop closed as it arrived says so in the record,
	// and its words do not put it on the HTTP server's (or the sender's)
	// account: listen never read it.
	stopped := &Record{Time: time.Unix(1, 0).UTC(), Method: "POST", Path: "/", Headers: http.Header{},
		Rejected: &Rejected{Reason: "listen was stopping (Ctrl-C or SIGTERM) when the request arrived, and closed its connection: no answer", HeadBytes: 3, ClosedAtStop: true}}
	line, err = Append(nil, stopped)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(line), `"headBytes":3,"closedAtStop":true}`) {
		t.Errorf("record of a call closed at the stop: %s, want closedAtStop after headBytes", line)
	}
	got, err = NewReader(bytes.NewReader(line)).Next()
	if err != nil || got.Rejected == nil || !got.Rejected.ClosedAtStop {
		t.Fatalf("read %+v, %v; want closedAtStop", got, err)
	}
	if why := got.RejectedWhy(); why != "not read, so not checked: listen was stopping (Ctrl-C or SIGTERM) when the request arrived, and closed its connection: no answer" {
		t.Errorf("RejectedWhy of a call closed at the stop = %q", why)
	}
	for _, tc := range []struct{ line, want string }{
		{`{"capture":3,"method":"POST"}`, "capture record format 3, which this whsim does not read"},
		{`{"capture":-1,"method":"POST"}`, "capture record format -1"},
		{`{"capture":1,"rejected":{"reason":"x"}}`, `a record with "rejected" is format 2, not 1`},
		{`{"capture":2,"method":"POST","query":"businessType=CREATE_RECEIVABLE_DOC","body":""}`, `a record of format 2 has "rejected"`},
		{`{"capture":2,"rejected":null,"body":""}`, `a record of format 2 has "rejected"`},
		{`{"capture":2,"rejected":{"reason":"x","headBytes":-5}}`, "rejected.headBytes -5: want how many bytes came, 0 or more"},
		{`{"capture":2,"rejected":{"reason":"x","headBytes":-1}}`, "rejected.headBytes -1: want how many bytes came, 0 or more"},
	} {
		_, err := NewReader(strings.NewReader(tc.line + "\n")).Next()
		var le *LineError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a line error with %q", tc.line, err, tc.want)
		}
	}
}

// A record of a body over listen's limit says so in one member, right
// after the body it did not keep, and reads back with it; every other
// record is written as before, without the member.
func TestBodyOverLimitRecordFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		over int64
		want string
	}{
		{0, `"body":"","bodyEncoding":"utf8","response":{"status":200,"body":"","bodyEncoding":""}}` + "\n"},
		{100, `"body":"","bodyEncoding":"utf8","bodyOverLimit":100,"response":{"status":413,"body":"","bodyEncoding":""}}` + "\n"},
	} {
		status := 200
		if tc.over > 0 {
			status = 413
		}
		rec := &Record{Time: time.Unix(1, 0).UTC(), Method: "POST", Path: "/", Headers: http.Header{"Content-Length": {"2993"}},
			BodyOverLimit: tc.over, Response: &Response{Status: status}}
		rec.SetBody(nil)
		line, err := Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(line), tc.want) || !strings.HasPrefix(string(line), `{"capture":1,`) {
			t.Errorf("over %d: line %s, want format 1 ending %s", tc.over, line, tc.want)
		}
		got, err := NewReader(bytes.NewReader(line)).Next()
		if err != nil || got.BodyOverLimit != tc.over {
			t.Errorf("over %d: read %+v, %v", tc.over, got, err)
		}
		if tc.over > 0 {
			if why := got.OverLimitWhy(); why != "body over the 100-byte limit (answered 413): listen did not keep it" {
				t.Errorf("OverLimitWhy = %q", why)
			}
		}
	}
	// Named twice, in any case, it is refused as every member is.
	_, err := NewReader(strings.NewReader(`{"capture":1,"bodyOverLimit":100,"BodyOverLimit":0}` + "\n")).Next()
	if err == nil || !strings.Contains(err.Error(), `"bodyOverLimit" twice`) {
		t.Errorf("duplicate bodyOverLimit: %v", err)
	}
	// A limit no listen has (a hand-edited capture) is the line's error,
	// named with its line: read as absent, the empty body in its place
	// was replayed and validated as the call that came.
	for _, tc := range []struct{ line, want string }{
		{`{"capture":1,"body":"","bodyOverLimit":-5}`, "line 2: bodyOverLimit -5: want the limit in bytes, 1 or more (listen writes it only for a body it did not keep)"},
		{`{"capture":1,"body":"","bodyOverLimit":-1}`, "line 2: bodyOverLimit -1: want the limit in bytes, 1 or more (listen writes it only for a body it did not keep)"},
		{`{"capture":1,"body":"","bodyOverLimit":0}`, "line 2: bodyOverLimit 0: want the limit in bytes, 1 or more (listen writes it only for a body it did not keep)"},
		{`{"capture":1,"body":"","bodyOverLimit":1.5}`, "line 2: bodyOverLimit: want a whole number, got 1.5"},
		{`{"capture":1,"body":"","bodyOverLimit":"100"}`, "line 2: bodyOverLimit: want a whole number, got a string"},
	} {
		r := NewReader(strings.NewReader(`{"capture":1,"body":"{}"}` + "\n" + tc.line + "\n"))
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		_, err := r.Next()
		var le *LineError
		if !errors.As(err, &le) || err.Error() != tc.want {
			t.Errorf("%s: %v, want the line error %q", tc.line, err, tc.want)
		}
	}
}

// A path that is not valid UTF-8 (/h%FFk arrives decoded as "/h\xffk")
// comes back byte for byte, stored base64 with pathEncoding: it was
// written with U+FFFD, and replay sent /h%EF%BF%BDk, another path.
func TestRecordRoundTripsAPathThatIsNotUTF8(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/h\xffk", "/收款/ok"} {
		rec := &Record{Time: time.Unix(1, 0).UTC(), Method: "POST", Path: path, Headers: http.Header{}}
		line, err := Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Path != path {
			t.Errorf("%q: Append changed the record's path to %q", path, rec.Path)
		}
		marked := bytes.Contains(line, []byte(`"pathEncoding":"base64"`))
		if marked == utf8.ValidString(path) {
			t.Errorf("%q: line %s; want pathEncoding only for a path that is not UTF-8", path, line)
		}
		got, err := NewReader(bytes.NewReader(line)).Next()
		if err != nil {
			t.Fatalf("%q: %v", path, err)
		}
		if got.Path != path || got.PathEncoding != "" {
			t.Errorf("read back path %q (encoding %q), want %q", got.Path, got.PathEncoding, path)
		}
	}
}

// The path as the sender wrote it (rawPath) round-trips beside the decoded
// one, in base64 with it when either is not UTF-8; a record without it
// reads as before; one whose rawPath is not its path as sent is refused.
// Listen recorded /a%2Fb as "/a/b" alone, and every reader named another
// resource.
func TestRecordKeepsThePathAsSent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, raw, line string }{
		{"/a/b", "/a%2Fb", `"path":"/a/b","rawPath":"/a%2Fb","query"`},
		{"/A", "/%41", `"path":"/A","rawPath":"/%41","query"`},
		{"/h\xff/k", "/h%ff%2Fk", `"path":"L2j/L2s=","rawPath":"L2glZmYlMkZr","pathEncoding":"base64","query"`},
		{"/h\xff", "/h\xff", `"pathEncoding":"base64"`},
		{"/收款", "", `"path":"/收款","query"`},
	} {
		rec := &Record{Time: time.Unix(1, 0).UTC(), Method: "POST", Path: tc.path, RawPath: tc.raw, Headers: http.Header{}}
		line, err := Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(line, []byte(tc.line)) {
			t.Errorf("%q %q: line %s, want it to hold %s", tc.path, tc.raw, line, tc.line)
		}
		got, err := NewReader(bytes.NewReader(line)).Next()
		if err != nil {
			t.Fatalf("%q: %v", tc.raw, err)
		}
		if got.Path != tc.path || got.RawPath != tc.raw || got.PathEncoding != "" {
			t.Errorf("read back %q %q (encoding %q), want %q %q", got.Path, got.RawPath, got.PathEncoding, tc.path, tc.raw)
		}
	}
	for _, tc := range []struct{ members, want string }{
		{`"path":"/hook","rawPath":"/x%2Fy"`, `rawPath "/x%2Fy" is not path "/hook" as sent`},
		{`"path":"/a/b","rawPath":"/a%2"`, `rawPath "/a%2" is not path "/a/b" as sent`},
		{`"path":"L2E=","rawPath":"not base64!","pathEncoding":"base64"`, `rawPath: `},
	} {
		line := `{"capture":1,"time":"2026-11-01T10:00:00Z","remote":"x","method":"POST",` + tc.members + `,"query":"","headers":{},"body":"","bodyEncoding":"utf8"}`
		if _, err := Decode([]byte(line)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.members, err, tc.want)
		}
	}
}

// TargetPath is what the sender's request line held, ShownPath what
// people read, URLPath what a URL can hold of it, escapes kept.
func TestRecordPathForms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, raw, target, shown, inURL string }{
		{"/hook", "", "/hook", "/hook", "/hook"},
		{"/a b/收", "", "/a%20b/%E6%94%B6", "/a b/收", "/a%20b/%E6%94%B6"},
		{"/a/b", "/a%2Fb", "/a%2Fb", "/a%2Fb", "/a%2Fb"},
		{"/收/x/y", "/收/x%2fy", "/收/x%2fy", "/收/x%2fy", "/%E6%94%B6/x%2fy"},
		{"/p#q", "/p#q", "/p#q", "/p#q", "/p%23q"},
		{"/./a//b", "", "/./a//b", "/./a//b", "/./a//b"},
		{"/a;v=1", "", "/a;v=1", "/a;v=1", "/a;v=1"},
		// No path: OPTIONS *, and the authority a CONNECT asked for.
		{"*", "", "*", "*", "*"},
		{"example.com:443", "", "example.com:443", "example.com:443", "example.com:443"},
		{"[::1]:443", "", "[::1]:443", "[::1]:443", "%5B::1%5D:443"},
	} {
		r := &Record{Path: tc.path, RawPath: tc.raw}
		if got := r.TargetPath(); got != tc.target {
			t.Errorf("%q %q: TargetPath %q, want %q", tc.path, tc.raw, got, tc.target)
		}
		if got := r.ShownPath(); got != tc.shown {
			t.Errorf("%q %q: ShownPath %q, want %q", tc.path, tc.raw, got, tc.shown)
		}
		if got := r.URLPath(); got != tc.inURL {
			t.Errorf("%q %q: URLPath %q, want %q", tc.path, tc.raw, got, tc.inURL)
		}
	}
}

// SetURLPath records the path a client sends for a URL as listen records
// it: check --save-cases wrote the escaped path where the decoded one
// belongs, and "/hook%20x" read back as a path with a '%' in it.
func TestSetURLPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, path, raw string }{
		{"http://h", "/", ""},
		{"http://h/hook", "/hook", ""},
		{"http://h/hook%20x", "/hook x", ""},
		{"http://h/a%2Fb", "/a/b", "/a%2Fb"},
		{"http://h/%41", "/A", "/%41"},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		var r Record
		r.SetURLPath(u)
		if r.Path != tc.path || r.RawPath != tc.raw {
			t.Errorf("%s: %q %q, want %q %q", tc.url, r.Path, r.RawPath, tc.path, tc.raw)
		}
		if r.TargetPath() != u.EscapedPath() && u.EscapedPath() != "" {
			t.Errorf("%s: TargetPath %q, the client sent %q", tc.url, r.TargetPath(), u.EscapedPath())
		}
	}
}

// InvalidUTF8 is the offset of the first byte that is not UTF-8: a
// U+FFFD written as itself before it is a character, not a bad byte.
func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", -1},
		{"abc", -1},
		{"\ufffd", -1},
		{"\xff", 0},
		{"a\xffb\xfe", 1},
		{"\ufffd\xff", 3},
	} {
		if got := InvalidUTF8([]byte(tc.in)); got != tc.want {
			t.Errorf("InvalidUTF8(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// A line over the reader's bound is the line's error, said as too large,
// and reading goes on: not its bytes read as a record cut short.
func TestLineOverTheBoundIsSaidSo(t *testing.T) {
	t.Parallel()
	long := `{"capture":1,"body":"` + strings.Repeat("x", 200) + `"}`
	in := input.NewReader(context.Background(), strings.NewReader(long+"\n"+`{"capture":1,"body":"{}"}`+"\n"), input.Options{Lines: true, Max: 100})
	r := ReaderOf(in)
	_, err := r.Next()
	var le *LineError
	if !errors.As(err, &le) || le.Line != 1 || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("line over the bound: %v, want line 1's error saying it is too large", err)
	}
	if rec, err := r.Next(); err != nil || rec.Body != "{}" {
		t.Errorf("the line after it: %+v, %v", rec, err)
	}
}

// FuzzPlaces holds what every command says of a line that is no record
// (At) to the line: it starts "in.ndjson:N:" with the line the reader
// read, and a column, when it has one, falls within that line (one past
// its end for a line that ended early).
func FuzzPlaces(f *testing.F) {
	f.Add([]byte("{\"capture\":1, x}\n"))
	f.Add([]byte("{\"capture\":1,\"body\":\"\xff\"}\n\n{\"capture\":1,\"body\":\"x\",\"body\":\"y\"}\n"))
	f.Add([]byte("{\"capture\":1,\"body\":\"x\"}\n{\"capture\":1,\"bo"))
	f.Add([]byte("\ufeff{\"capture\":1}\n{\"capture\":1e400,\"body\":\"\"}\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		lines := bytes.Split(in, []byte("\n"))
		r := NewReader(bytes.NewReader(in))
		for range len(in) + 2 {
			_, err := r.Next()
			if errors.Is(err, io.EOF) || err == nil {
				if err != nil {
					return
				}
				continue
			}
			var torn *TornError
			var bad *LineError
			if !errors.As(err, &torn) && !errors.As(err, &bad) {
				return // a read error, not a line's
			}
			said := At("in.ndjson", err)
			n := r.Line()
			if prefix := "in.ndjson:" + strconv.Itoa(n) + ":"; !strings.HasPrefix(said, prefix) {
				t.Fatalf("%q: said %q, want it at line %d", in, said, n)
			}
			if bad != nil {
				if col, _, ok := Column(bad.Err); ok {
					line := bytes.TrimSuffix(lines[n-1], []byte("\r"))
					if col < 1 || col > len(line)+1 {
						t.Fatalf("%q: column %d of a line of %d bytes (%q)", in, col, len(line), said)
					}
				}
			}
		}
		t.Fatalf("reader did not reach the end of %d bytes", len(in))
	})
}

// TestPlacesCountCharacters: a column in a record line is counted in
// characters, as validate counts a payload's (docs/concepts.md), not in
// bytes. Found by ls45: for {"capture":1,"名字": x} replay and validate said
// column 24 (bytes) where a payload line {"名字": x} was column 8.
func TestPlacesCountCharacters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"{\"capture\":1,\"名字\": x}\n", "in.ndjson:1:20: not JSON ("},
		{"{\"capture\":1,\"名\":\"\xff\"}\n", "in.ndjson:1:19: not valid UTF-8 ("},
		{"{\"capture\":1, x}\n", "in.ndjson:1:15: not JSON ("},
	} {
		_, err := NewReader(strings.NewReader(tc.in)).Next()
		if got := At("in.ndjson", err); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}
