package endpoint

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestParseExpect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		ok, fail []int
		err      string
	}{
		{in: "2xx", ok: []int{200, 299}, fail: []int{199, 300}},
		{in: "200,202", ok: []int{200, 202}, fail: []int{201}},
		{in: "200-204, 4XX", ok: []int{204, 404}, fail: []int{205, 500}},
		{in: "204-200", err: `bad range "204-200" (want e.g. 200-204)`},
		{in: "600", err: `bad status "600" (want e.g. 200, 2xx or 200-204)`},
		{in: "", err: `bad status "" (want e.g. 200, 2xx or 200-204)`},
	}
	for _, tt := range tests {
		expect, err := ParseExpect(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseExpect(%q) error %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("ParseExpect(%q): %v", tt.in, err)
		}
		for _, c := range tt.ok {
			if !expect(c) {
				t.Errorf("%q: %d not expected", tt.in, c)
			}
		}
		for _, c := range tt.fail {
			if expect(c) {
				t.Errorf("%q: %d expected", tt.in, c)
			}
		}
	}
}

func TestParseHeader(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, name, val, err string }{
		{in: "x-tenant:  7 ", name: "X-Tenant", val: "7"},
		{in: "Authorization: Bearer a:b", name: "Authorization", val: "Bearer a:b"},
		{in: "no colon", err: `"no colon": want 'Name: value'`},
		{in: "bad name: x", err: `"bad name: x": want 'Name: value'`},
		{in: "X: a\nb", err: `"X": the value holds a line break`},
		{in: "content-length: 5", err: `"Content-Length": whsim frames each body itself (a Content-Length or Transfer-Encoding of your own would cut it short or garble it)`},
		{in: "Transfer-Encoding: chunked", err: `"Transfer-Encoding": whsim frames each body itself (a Content-Length or Transfer-Encoding of your own would cut it short or garble it)`},
		{in: "Host: example.com", name: "Host", val: "example.com"},
	}
	for _, tt := range tests {
		name, val, err := parseHeader(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseHeader(%q) error %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || name != tt.name || val != tt.val {
			t.Errorf("ParseHeader(%q) = %q, %q, %v", tt.in, name, val, err)
		}
	}
}

// Header takes a name and a value apart, as whsimtest.WithHeader gives
// them, by the rules of -H.
func TestHeader(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, val, wantName, wantVal, err string }{
		{name: "x-token", val: " s3cret\t", wantName: "X-Token", wantVal: "s3cret"},
		{name: "Bad(Name)", val: "x", err: `"Bad(Name)" is no header name (a token: letters, digits and !#$%&'*+-.^_` + "`|~)"},
		{name: "", val: "x", err: `"" is no header name (a token: letters, digits and !#$%&'*+-.^_` + "`|~)"},
		{name: "X", val: "a\x00b", err: `"X": the value holds a NUL byte`},
		{name: "X", val: "a\r\nb", err: `"X": the value holds a line break`},
		// Any other control byte but a tab: net/http's client refuses the
		// call ("invalid header field value"), which read as "cannot
		// reach" a healthy receiver, where the fast path sent it.
		{name: "X", val: "a\x01b", err: `"X": the value holds the control byte 0x01`},
		{name: "X", val: "a\x7fb", err: `"X": the value holds the control byte 0x7f`},
		{name: "X", val: "a\tb", wantName: "X", wantVal: "a\tb"},
		{name: "X", val: "收款单", wantName: "X", wantVal: "收款单"},
		{name: "transfer-encoding", val: "chunked", err: `"Transfer-Encoding": whsim frames each body itself (a Content-Length or Transfer-Encoding of your own would cut it short or garble it)`},
	} {
		name, val, err := Header(tt.name, tt.val)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("Header(%q, %q) error %v, want %s", tt.name, tt.val, err, tt.err)
			}
			continue
		}
		if err != nil || name != tt.wantName || val != tt.wantVal {
			t.Errorf("Header(%q, %q) = %q, %q, %v", tt.name, tt.val, name, val, err)
		}
	}
}

func TestParseTarget(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://h:1/hook?x=1#frag": "http://h:1/hook?x=1",
		"ftp://h/":                 `"ftp://h/": want an http:// or https:// URL`,
		"http:///x":                `"http:///x": no host`,
		"http://h/?a=%zz":          `"http://h/?a=%zz": bad query: invalid URL escape "%zz"`,
		"localhost:3000":           `"localhost:3000": no scheme (did you mean http://localhost:3000?)`,
		"127.0.0.1:3000/hook":      `"127.0.0.1:3000/hook": no scheme (did you mean http://127.0.0.1:3000/hook?)`,
		"localhost/hook":           `"localhost/hook": no scheme (did you mean http://localhost/hook?)`,
		"[::1]:3000/hook":          `"[::1]:3000/hook": no scheme (did you mean http://[::1]:3000/hook?)`,
		// A space in the query went into the request line as it was, where
		// it ends the target: the receiver's server answered 400 to every
		// call, which send and check counted as the receiver's failure.
		"http://h/x?a=b c":     `"http://h/x?a=b c": the query holds a space, which no request line can carry: write it %20`,
		"http://h/x?a=b%20c":   "http://h/x?a=b%20c",
		"http://h/x y?a=b+c":   "http://h/x%20y?a=b+c",
		"http://h/x?a=中&b='1'": "http://h/x?a=中&b='1'",
		// A port no socket has was dialled on every call: each failed, and
		// read as the receiver's failure (found by hunt48).
		"http://h:99999/x":  `"http://h:99999/x": port 99999: want 1 to 65535`,
		"http://[::1]:0/x":  `"http://[::1]:0/x": port 0: want 1 to 65535`,
		"http://h:65535/x":  "http://h:65535/x",
		"http://h:0080/x":   "http://h:0080/x",
		"https://[::1]:1/x": "https://[::1]:1/x",
	} {
		if got := parsedAs(ParseTarget, in); got != want {
			t.Errorf("ParseTarget(%q) = %s, want %s", in, got, want)
		}
	}
}

// parsedAs is what parse made of in: the URL, or its error's text.
func parsedAs(parse func(string) (*url.URL, error), in string) string {
	u, err := parse(in)
	if err != nil {
		return err.Error()
	}
	return u.String()
}

func TestParseHookTarget(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://h:1/hook?tenant=7":       "http://h:1/hook?tenant=7",
		"http://h:1/hook?businesstype=x": "http://h:1/hook?businesstype=x",
		"ftp://h/":                       `"ftp://h/": want an http:// or https:// URL`,
		"http://h:1/hook?businessType=CREATE_RECEIVABLE_DOC": `"http://h:1/hook?businessType=CREATE_RECEIVABLE_DOC": the query has businessType already; whsim adds each call's own (drop it from the URL)`,
		"http://h:1/hook?tenant=7&businessType=":             `"http://h:1/hook?tenant=7&businessType=": the query has businessType already; whsim adds each call's own (drop it from the URL)`,
	} {
		if got := parsedAs(ParseHookTarget, in); got != want {
			t.Errorf("ParseHookTarget(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzParseFlags: the parsers of --header, --expect-status and --url never
// panic, and what they accept is what a request can carry.
func FuzzParseFlags(f *testing.F) {
	for _, s := range []string{"X-Token: abc", "Bad Name: x", "X: a\r\nb", "200,202", "2xx", "200-204", "99", "http://127.0.0.1:9000/hook?a=1#f", "localhost:3000", "ftp://x", "http://[::1]:80/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if name, val, err := parseHeader(s); err == nil {
			if name == "" || name != http.CanonicalHeaderKey(name) || strings.ContainsAny(name, " \t:\r\n") || strings.ContainsAny(val, "\r\n\x00") {
				t.Fatalf("ParseHeader(%q) = %q, %q", s, name, val)
			}
		}
		if expect, err := ParseExpect(s); err == nil {
			for _, code := range []int{0, 99, 600, 1000, -200} {
				if expect(code) {
					t.Fatalf("ParseExpect(%q) takes status %d", s, code)
				}
			}
		}
		if u, err := ParseTarget(s); err == nil {
			if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Fragment != "" {
				t.Fatalf("ParseTarget(%q) = %v", s, u)
			}
		}
	})
}

// A refused URL is quoted with its credentials masked: the message reaches
// stderr, and the job summary, JUnit and report of a run that never began.
func TestTargetErrorMasks(t *testing.T) {
	for _, in := range []string{
		"ftp://user:s3cret@host/x?token=s3cret",
		"http://user:s3cret@host/x?businessType=A&api_key=s3cret",
		"user:s3cret@127.0.0.1:1/hook",
		"http://host/x?token=s3cret&a=%zz",
	} {
		_, err := ParseHookTarget(in)
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseHookTarget(%q): %v, want an error without the credential", in, err)
		}
	}
}

// A header written wrongly is quoted with the value of a credential
// masked: the message goes where the run's outputs go.
func TestParseHeaderMasks(t *testing.T) {
	for in, want := range map[string]string{
		"Authorization Bearer s3cret": `"Authorization ****": want 'Name: value'`,
		"X-Api-Key s3cret":            `"X-Api-Key ****": want 'Name: value'`,
		"X-Api-Key=s3cret":            `"X-Api-Key ****": want 'Name: value'`,
		"Auth orization: s3cret":      `"Auth orization: ****": want 'Name: value'`,
		"X-Env dev":                   `"X-Env dev": want 'Name: value'`,
		"Authorization":               `"Authorization": want 'Name: value'`,
	} {
		if _, err := ParseHeaders([]string{in}); err == nil || err.Error() != want {
			t.Errorf("ParseHeaders(%q): %v, want %s", in, err, want)
		}
	}
}
