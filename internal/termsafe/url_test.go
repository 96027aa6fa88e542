package termsafe

import (
	"net/url"
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
	if got := URLString("%zz?token=abc"); got != "%zz?token=****" {
		t.Errorf("unparsable URL: %s", got)
	}
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
