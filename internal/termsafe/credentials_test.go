package termsafe

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestCredentialsMask(t *testing.T) {
	t.Parallel()
	u, err := url.Parse("http://user:pa55word@127.0.0.1/hook?token=t%2Fk-9&businessType=X")
	if err != nil {
		t.Fatal(err)
	}
	c := Credentials(nil).
		AddHeader("Authorization", "Bearer s3cr3t-token").
		AddHeader("Webhook-Signature", "v1,c2lnbmF0dXJl").
		AddHeader("Content-Type", "application/json").
		AddHeader("X-Api-Key", "ab").
		AddURL(u).
		Add("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "****")
	for _, tt := range []struct {
		name, in string
		cut      bool
		want     string
	}{
		{"nothing", "ok", false, "ok"},
		{"whole header value", `{"authorization":"Bearer s3cr3t-token"}`, false, `{"authorization":"Bearer ****"}`},
		{"the token alone", "token s3cr3t-token refused", false, "token **** refused"},
		{"signature", "got v1,c2lnbmF0dXJl", false, "got ****"},
		{"signature alone", "sig=c2lnbmF0dXJl;", false, "sig=****;"},
		{"password", "pw pa55word", false, "pw xxxxx"},
		{"query value as sent", "/hook?token=t%2Fk-9&b=1", false, "/hook?token=****&b=1"},
		{"query value decoded", "token t/k-9", false, "token ****"},
		{"signing secret", "secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw!", false, "secret ****!"},
		{"short value as a word", `{"x-api-key":"ab"}`, false, `{"x-api-key":"****"}`},
		{"short value inside a word", "about tab", false, "about tab"},
		{"cut in a credential", "echo: Bearer s3cr3t-to", true, "echo: Bearer ****"},
		{"cut, too short to say", "echo s3c", true, "echo s3c"},
		{"not cut", "echo: Bearer s3cr3t-to", false, "echo: Bearer s3cr3t-to"},
		{"the content type is no credential", "application/json", false, "application/json"},
		{"escaped as PHP's JSON", `{"token":"t\/k-9"}`, false, `{"token":"****"}`},
	} {
		if got := c.String(tt.in, tt.cut); got != tt.want {
			t.Errorf("%s: String(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
		if got := string(c.Bytes([]byte(tt.in), tt.cut)); got != tt.want {
			t.Errorf("%s: Bytes(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

// A value holding what JSON escapes is masked as a JSON echo writes it.
func TestCredentialsEscapedAsJSON(t *testing.T) {
	t.Parallel()
	c := Credentials(nil).AddHeader("X-Api-Key", `k<e"y/1`)
	for in, want := range map[string]string{
		`{"key":"k\u003ce\"y/1"}`:  `{"key":"****"}`,
		`{"key":"k\u003ce\"y\/1"}`: `{"key":"****"}`,
		`key k<e"y/1`:              `key ****`,
	} {
		if got := c.String(in, false); got != want {
			t.Errorf("String(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestCredentialsBasicAndUserToken(t *testing.T) {
	t.Parallel()
	// Basic dXNlcjpodW50ZXIy is user:hunter2.
	c := Credentials(nil).AddHeader("Authorization", "Basic dXNlcjpodW50ZXIy")
	if got := c.String("Basic dXNlcjpodW50ZXIy, hunter2", false); got != "Basic ****, xxxxx" {
		t.Errorf("got %q", got)
	}
	u, _ := url.Parse("https://tok-123456@127.0.0.1/")
	if got := Credentials(nil).AddURL(u).String("user tok-123456", false); got != "user ****" {
		t.Errorf("a user without a password: got %q", got)
	}
}

func TestCredentialsHeader(t *testing.T) {
	t.Parallel()
	c := Credentials(nil).AddHeader("Authorization", "Bearer s3cr3t-token")
	h := http.Header{"X-Echo-Authorization": {"Bearer s3cr3t-token"}, "Content-Type": {"text/plain"}}
	got := c.Header(h)
	if got.Get("X-Echo-Authorization") != "Bearer ****" || got.Get("Content-Type") != "text/plain" {
		t.Errorf("got %v", got)
	}
	if h.Get("X-Echo-Authorization") != "Bearer s3cr3t-token" {
		t.Error("the header given was written to")
	}
	plain := http.Header{"Content-Type": {"text/plain"}}
	if got := c.Header(plain); len(got) != 1 {
		t.Errorf("got %v", got)
	}
}

// Nothing to mask allocates nothing: a run without credentials, or an
// answer without them, pays no copy.
func TestCredentialsNoAllocation(t *testing.T) {
	c := Credentials(nil).AddHeader("Authorization", "Bearer s3cr3t-token")
	b := []byte(`{"ok":true}`)
	if n := testing.AllocsPerRun(100, func() { c.Bytes(b, true); Credentials(nil).Bytes(b, true) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func FuzzCredentials(f *testing.F) {
	f.Add("Bearer s3cr3t-token", "echo Bearer s3cr3t-token", true)
	f.Add("ab", "about ab", false)
	f.Fuzz(func(t *testing.T, token, text string, cut bool) {
		c := Credentials(nil).AddHeader("Authorization", "Bearer "+token)
		got := c.String(text, cut)
		if len(token) >= MinMasked && !strings.Contains(token, "*") && !strings.Contains("Bearer ****", token) && strings.Contains(got, token) {
			t.Errorf("String(%q) = %q keeps %q", text, got, token)
		}
		if string(c.Bytes([]byte(text), cut)) != got {
			t.Error("Bytes and String differ")
		}
	})
}
