package anonymize

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// harEnvelope is an invoice call's body with a name and a mobile in it,
// and the same gzipped.
func harEnvelope(t *testing.T) (string, []byte) {
	t.Helper()
	envelope := `{"requestId":"7f1c2d3e-1111-4a5b-9c8d-0123456789ab","businessType":4010,"data":{"staffCode":"0038","staffName":"张伟","comments":"手机13812345678"}}`
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	if _, err := w.Write([]byte(envelope)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return envelope, gz.Bytes()
}

// A HAR's body in base64 (compressed, or not UTF-8) is decoded,
// anonymized as a body and written back in base64, compressed as it was;
// --check reads it so.
func TestHARBodiesInBase64AreAnonymized(t *testing.T) {
	t.Parallel()
	envelope, gz := harEnvelope(t)
	for _, tt := range []struct {
		name    string
		raw     []byte
		gzipped bool
	}{{"gzip", gz, true}, {"plain", []byte(envelope), false}} {
		text := base64.StdEncoding.EncodeToString(tt.raw)
		har := `{"log":{"entries":[{"request":{"postData":{"mimeType":"application/json","encoding":"base64","text":"` + text + `"}}}]}}`
		a := newTestAnonymizer(t, testKey)
		out, _, err := a.Payload([]byte(har))
		if err != nil {
			t.Fatal(err)
		}
		var h struct {
			Log struct {
				Entries []struct {
					Request struct {
						PostData struct{ Encoding, Text string }
					}
				}
			}
		}
		mustUnmarshal(t, out, &h)
		pd := h.Log.Entries[0].Request.PostData
		b, err := base64.StdEncoding.DecodeString(pd.Text)
		if err != nil || pd.Encoding != "base64" {
			t.Fatalf("%s: postData %+v: %v", tt.name, pd, err)
		}
		if tt.gzipped {
			r, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s: no longer gzip: %v", tt.name, err)
			}
			if b, err = io.ReadAll(r); err != nil {
				t.Fatalf("%s: the body does not decompress: %v", tt.name, err)
			}
		}
		for _, orig := range []string{"0038", "张伟", "13812345678"} {
			if strings.Contains(string(b), orig) {
				t.Errorf("%s: %s survives in the body %s", tt.name, orig, b)
			}
		}
		if !json.Valid(b) {
			t.Errorf("%s: the body is no longer JSON: %s", tt.name, b)
		}
		if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
			t.Errorf("%s: --check finds %v", tt.name, leaks)
		}
		if leaks := newTestAnonymizer(t, testKey).check(context.Background(), []byte(har), 1); len(leaks) == 0 {
			t.Errorf("%s: --check finds no mobile in the original", tt.name)
		}
	}
}

// A "text" beside "encoding": "base64" that is no base64 is text like any
// other, and searched as such.
func TestATextBesideBase64ThatIsNoBase64IsSearched(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	body := `{"postData":{"encoding":"base64","text":"联系人张伟 13812345678"}}`
	out, _, err := a.Payload([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "张伟") || strings.Contains(string(out), "13812345678") {
		t.Errorf("kept: %s", out)
	}
	if leaks := a.check(context.Background(), []byte(body), 1); len(leaks) == 0 {
		t.Errorf("--check finds nothing in %s", body)
	}
}

// A HAR body in base64 whose first bytes say gzip but which does not
// decompress (cut short) is refused, as a capture's body cut short is: kept
// as it was, it carried the call's names while the run said it replaced
// nothing, and --check passed the file (that it fails is shown on the binary).
func TestHARBodyInBase64CutShortIsRefused(t *testing.T) {
	t.Parallel()
	_, gz := harEnvelope(t)
	cut := gz[:len(gz)-10]
	har := []byte(`{"log":{"entries":[{"request":{"postData":{"mimeType":"application/json","encoding":"base64","text":"` + base64.StdEncoding.EncodeToString(cut) + `"}}}]}}`)
	_, _, err := newTestAnonymizer(t, testKey).Payload(har)
	if err == nil || !strings.Contains(err.Error(), "starts as gzip data but does not decompress") {
		t.Errorf("err %v, want the body refused", err)
	}
}

// The refusal names the entry that holds the body, by its index in
// log.entries (from 0, as whsim's paths count) and its request: it named
// the file alone, and a HAR holds hundreds of entries.
func TestHARBodyRefusedNamesItsEntry(t *testing.T) {
	t.Parallel()
	_, gz := harEnvelope(t)
	cut := base64.StdEncoding.EncodeToString(gz[:len(gz)-10])
	good := base64.StdEncoding.EncodeToString(gz)
	entry := func(url, text string) string {
		return `{"request":{"method":"POST","url":"` + url + `","postData":{"mimeType":"application/json","encoding":"base64","text":"` + text + `"}},"response":{"status":200,"content":{"text":""}}}`
	}
	for _, tt := range []struct {
		name, har, want string
	}{
		{"second entry", `{"log":{"version":"1.2","entries":[` + entry("http://h/hook?businessType=A", good) + `, ` + entry("http://h/hook?businessType=B", cut) + `]}}`,
			"HAR entry log.entries.1 (POST http://h/hook?businessType=B): its body in base64 starts as gzip data but does not decompress"},
		{"first entry, log's other keys after", `{"log":{"entries":[` + entry("http://h/\\u001b[2Jx", cut) + `],"pages":[]}}`,
			`HAR entry log.entries.0 (POST http://h/\x1b[2Jx): its body`},
		{"no URL", `{"log":{"entries":[{"request":{"postData":{"encoding":"base64","text":"` + cut + `"}}}]}}`,
			"HAR entry log.entries.0: its body"},
		{"no HAR", `{"postData":{"encoding":"base64","text":"` + cut + `"}}`,
			"a HAR body in base64 starts as gzip data"},
	} {
		_, _, err := newTestAnonymizer(t, testKey).Payload([]byte(tt.har))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
	}
}

// harEntryAt reads an untrusted document at any offset: it never panics,
// and names an entry only as log.entries.N.
func FuzzHAREntryAt(f *testing.F) {
	f.Add([]byte(`{"log":{"entries":[{"request":{"method":"POST","url":"http://h/"}},{}]}}`), 40)
	f.Add([]byte(`{"log":{"entries":[1,"x",null]}}`), 22)
	f.Add([]byte(`{"log":[]}`), 3)
	f.Fuzz(func(t *testing.T, doc []byte, at int) {
		if got := harEntryAt(doc, at); got != "" && !strings.HasPrefix(got, "log.entries.") {
			t.Errorf("harEntryAt = %q", got)
		}
	})
}

// A browser's HAR holds the call's credentials as sent: they are masked
// (****, as the inspector's HAR export has them), on one line or
// pretty-printed, the structure kept, and counted by what was masked.
// They went out as they came, and --check passed the file.
func TestHARCredentialsAreMasked(t *testing.T) {
	t.Parallel()
	const har = `{"log":{"version":"1.2","entries":[{"_initiator":{"type":"script"},"request":{"method":"POST",` +
		`"url":"http://u:pw1secret@127.0.0.1:3000/hook?businessType=CREATE_RECEIVABLE_DOC&token=tok1secret",` +
		`"headers":[{"name":"authorization","value":"Bearer bearer1secret"},{"name":"Content-Type","value":"application/json"},{"name":"Cookie","value":"sid=cookie1secret"}],` +
		`"queryString":[{"name":"businessType","value":"CREATE_RECEIVABLE_DOC"},{"name":"token","value":"tok1secret"}],` +
		`"cookies":[{"name":"sid","value":"cookie1secret"}],"postData":{"mimeType":"application/json","text":"{}"}},` +
		`"response":{"status":200,"headers":[{"value":"sid=set1secret; HttpOnly","name":"Set-Cookie"}],"cookies":[],"content":{"text":""}}},` +
		`{"request":{"method":"GET","url":"http://127.0.0.1:3000/favicon.ico","headers":[]},"response":{"status":404,"content":{}}}]}}`
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(har), "", "  "); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{har + "\n", strings.ReplaceAll(pretty.String(), "\n", "\r\n") + "\r\n"} {
		out, st := stream(t, newTestAnonymizer(t, testKey), []byte(in), Options{Check: true})
		if bytes.Contains(out, []byte("1secret")) {
			t.Errorf("a credential survives:\n%s", out)
		}
		var h struct {
			Log struct {
				Entries []struct {
					Request struct {
						URL         string
						Headers     []struct{ Name, Value string }
						QueryString []struct{ Name, Value string }
					}
				}
			}
		}
		mustUnmarshal(t, out, &h)
		r := h.Log.Entries[0].Request
		if r.URL != "http://u:xxxxx@127.0.0.1:3000/hook?businessType=CREATE_RECEIVABLE_DOC&token=****" ||
			r.Headers[1].Value != "application/json" || r.QueryString[0].Value != "CREATE_RECEIVABLE_DOC" {
			t.Errorf("masked more or less than the credentials: %+v", r)
		}
		want := map[string]int{"Authorization": 1, "Cookie": 1, "Set-Cookie": 1, "cookies": 1, "query parameter token": 1, "the URL's password": 1}
		if len(st.Masked) != len(want) {
			t.Errorf("masked %v, want %v", st.Masked, want)
		}
		for k, n := range want {
			if st.Masked[k] != n {
				t.Errorf("masked %v, want %v", st.Masked, want)
				break
			}
		}
		if bytes.Contains([]byte(in), []byte("\r\n")) && !bytes.Contains(out, []byte("\r\n")) {
			t.Error("CRLF line ends lost")
		}
	}
}

// A URL's user without a password is a token (http://TOKEN@host, sent as
// Basic auth "TOKEN:"): masked ****, as every output masks it, and named.
func TestHARURLUserIsMasked(t *testing.T) {
	t.Parallel()
	const har = `{"log":{"entries":[{"request":{"method":"POST","url":"http://tok1secret@127.0.0.1:3000/hook?businessType=X"}}]}}`
	out, masked := harCredentials([]byte(har))
	if bytes.Contains(out, []byte("1secret")) || !bytes.Contains(out, []byte(`"url":"http://****@127.0.0.1:3000/hook?businessType=X"`)) || masked["the URL's user"] != 1 {
		t.Errorf("%s, masked %v", out, masked)
	}
}

// An edited HAR that names a header's value (or name) twice has every
// value masked: readers differ on which counts, and the second went out
// as it came.
func TestHARCredentialsNamedTwiceAreMasked(t *testing.T) {
	t.Parallel()
	for _, har := range []string{
		`{"log":{"entries":[{"request":{"headers":[{"name":"Authorization","value":"x1secret","value":"y1secret"}]}}]}}`,
		`{"log":{"entries":[{"request":{"headers":[{"name":"X-Note","value":"y1secret","name":"Authorization"}]}}]}}`,
		`{"log":{"entries":[{"request":{"queryString":[{"value":"x1secret","name":"a","name":"token"}]}}]}}`,
	} {
		out, masked := harCredentials([]byte(har))
		if bytes.Contains(out, []byte("1secret")) || len(masked) != 1 {
			t.Errorf("%s: %s, masked %v", har, out, masked)
		}
	}
}

// FuzzHARCredentials: whatever a HAR holds, masking its credentials
// leaves JSON that was JSON, and each count is of an entry there is.
func FuzzHARCredentials(f *testing.F) {
	f.Add([]byte(`{"log":{"entries":[{"request":{"url":"http://u:p@h/?token=t","headers":[{"name":"Cookie","value":"a"}],"cookies":[{"name":"s","value":"v"}]}}]}}`))
	f.Add([]byte(`{"log":{"entries":[{"request":{"headers":[{"value":"x","name":"Authorization","value":"y"}]}}]}}`))
	f.Add([]byte(`{"log":{"entries":[]}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		out, masked := harCredentials(doc)
		if json.Valid(doc) && !json.Valid(out) {
			t.Fatalf("%s became %s", doc, out)
		}
		if masked == nil && !bytes.Equal(out, doc) {
			t.Fatalf("changed with nothing masked: %s", out)
		}
		for k, n := range masked {
			if n < 1 || k == "" {
				t.Fatalf("masked %v", masked)
			}
		}
	})
}
