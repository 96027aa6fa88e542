package termsafe

import (
	"net/url"
	"strings"
	"testing"
)

func TestURLMasksCredentials(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://h/p", "http://h/p"},
		{"http://h/p?token=s3cret", "http://h/p?token=****"},
		{"http://h/p?a=1&access_token=s3cret&b=2", "http://h/p?a=1&access_token=****&b=2"},
		{"http://h/p?API_KEY=s3cret", "http://h/p?API_KEY=****"},
		{"http://h/p?key=s3cret&sig=abc", "http://h/p?key=****&sig=****"},
		{"http://h/p?X-Amz-Signature=abc&password=p", "http://h/p?X-Amz-Signature=****&password=****"},
		{"http://h/p?auth=x&secret=y", "http://h/p?auth=****&secret=****"},
		{"http://u:pw@h/p?businessType=X", "http://u:xxxxx@h/p?businessType=X"},
		// A user without a password is the credential (sent as Basic
		// auth "TOKEN:"): masked, where a user beside a password is not.
		{"https://TOKEN@receiver.example/hook", "https://****@receiver.example/hook"},
		{"http://tok3n@h:8080/p?businessType=X&token=t", "http://****@h:8080/p?businessType=X&token=****"},
		{"http://tok%40en@h/p", "http://****@h/p"},
		{"http://h/p?token=", "http://h/p?token="},
		{"http://h/p?monkey=1&keys=2", "http://h/p?monkey=1&keys=2"},
		{"http://h/p?to%6Ben=s3cret", "http://h/p?to%6Ben=****"},
	} {
		u, err := url.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := URL(u); got != tc.want {
			t.Errorf("URL(%s) = %s, want %s", tc.in, got, tc.want)
		}
		if got := URLString(tc.in); got != tc.want {
			t.Errorf("URLString(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"%zz?token=abc", "%zz?token=****"},
		// A probe's template keeps its placeholders as they were.
		{"http://h/debug/{kind}s/{code}?token=s3cret", "http://h/debug/{kind}s/{code}?token=****"},
		{"http://h/probe?kind={kind}&code={code}&key={k}x", "http://h/probe?kind={kind}&code={code}&key=****"},
		{"http://u:p@ss@h/{code}", "http://u:xxxxx@h/{code}"},
		{"http://h/p?token=s3cret#top", "http://h/p?token=****#top"},
		{"http://h/a@b?x=1", "http://h/a@b?x=1"},
		{"http://u@h/p", "http://****@h/p"},
		{"http://u@h/a@b", "http://****@h/a@b"},
		{"http://@h/p", "http://@h/p"},
		{"/a://tok3n@h", "/a://tok3n@h"},
		{"http://u:@h/p", "http://u:xxxxx@h/p"},
	} {
		if got := URLString(tc.in); got != tc.want {
			t.Errorf("URLString(%s) = %s, want %s", tc.in, got, tc.want)
		}
		if HasCredential(tc.in) != (tc.in != tc.want) || HasCredential(tc.want) != (tc.in != tc.want) {
			t.Errorf("HasCredential(%s) = %v, HasCredential(%s) = %v", tc.in, HasCredential(tc.in), tc.want, HasCredential(tc.want))
		}
	}
}

// A URL read back masked still carries a credential: what it held is
// not in it, and a command printed from it needs it given again.
func TestHasCredentialMasked(t *testing.T) {
	for _, s := range []string{"http://****@h/p", "http://%2A%2A%2A%2A@h/p", "http://u:xxxxx@h/p", "http://h/?token=****"} {
		if !HasCredential(s) || URLString(s) != URLString(URLString(s)) {
			t.Errorf("HasCredential(%s) = false, or URLString(%s) = %s masks again", s, s, URLString(s))
		}
	}
}

// FuzzURLString holds URLString, done on the text alone, to what
// url.URL.Redacted does with the query masked, wherever parsing and
// printing gives the text back.
func FuzzURLString(f *testing.F) {
	for _, s := range []string{"http://u:pw@h/p?token=t&a=b", "https://h:8/x?sig=1#f", "http://h/p", "http://a@b/c@d?key="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := URLString(s)
		// Masking changes only a URL with a credential, and leaves it one.
		if got != s && !HasCredential(s) || HasCredential(got) != HasCredential(s) {
			t.Fatalf("HasCredential(%q) = %v, URLString = %q", s, HasCredential(s), got)
		}
		u, err := url.Parse(s)
		if err != nil || u.String() != s || u.Opaque != "" {
			return
		}
		r := *u
		r.RawQuery = MaskQuery(r.RawQuery)
		want := r.Redacted()
		if _, hasPassword := u.User.Password(); u.User != nil && !hasPassword && u.User.String() != "" {
			// Redacted keeps a user without a password, the token
			// URLString masks.
			want = strings.Replace(want, "//"+u.User.String()+"@", "//****@", 1)
		}
		if got != want {
			t.Fatalf("URLString(%q) = %q, Redacted = %q", s, got, want)
		}
	})
}

// send reports every delivery's URL: one with nothing to mask costs no
// allocation.
func TestURLStringAllocatesNothingToMask(t *testing.T) {
	s := "http://127.0.0.1:9/webhook?businessType=CREATE_RECEIVABLE_DOC&Page=2"
	if n := testing.AllocsPerRun(100, func() { _ = URLString(s) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
	if URLString(s) != s {
		t.Errorf("changed %s", URLString(s))
	}
}

// URLsIn masks each URL a message quotes (net/http's `Post "URL": …`), and
// leaves the rest of the message as it was.
func TestURLsInMasksEachURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"connection refused", "connection refused"},
		{`Post "http://h/hook?token=s3cret&businessType=X": dial tcp 127.0.0.1:9: connect: connection refused`,
			`Post "http://h/hook?token=****&businessType=X": dial tcp 127.0.0.1:9: connect: connection refused`},
		{"not reached: Post \"https://u:pw@h/p?sig=abc\": EOF), then http://h/?key=k1 and http://h/ok",
			"not reached: Post \"https://u:xxxxx@h/p?sig=****\": EOF), then http://h/?key=**** and http://h/ok"},
		{"http://h/p?token=s3cret", "http://h/p?token=****"},
		{"HTTP://h/p?token=s3cret 'http://h/?pwd=x'", "HTTP://h/p?token=**** 'http://h/?pwd=****'"},
		{"see http:// alone", "see http:// alone"},
		{`Post "http://tok3n@127.0.0.1:9/hook?businessType=X": EOF`, `Post "http://****@127.0.0.1:9/hook?businessType=X": EOF`},
	} {
		if got := URLsIn(tc.in); got != tc.want {
			t.Errorf("URLsIn(%q)\n = %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
