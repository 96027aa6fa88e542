package anonymize

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture"
)

// corpusOriginals reads testdata/leaks.originals: every identifier and
// secret the leak corpus holds.
func corpusOriginals(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/leaks.originals")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// anonymizeCorpus anonymizes testdata/leaks.ndjson as the command does (a
// file: read twice), with --check.
func anonymizeCorpus(t *testing.T, a *anonymizer) ([]byte, *Stats) {
	t.Helper()
	f, err := os.Open("testdata/leaks.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	st, err := a.Stream(context.Background(), f, &out, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), st
}

// decodedTexts is every text an output holds, decoded independently of the
// code under test: each string and key of each record, each stored body
// (base64 decoded; and when it is JSON, each of its strings, keys and
// numbers), and the percent-decoded form of each.
func decodedTexts(t *testing.T, out []byte) []string {
	t.Helper()
	var texts []string
	var collect func(v any)
	add := func(s string) {
		texts = append(texts, s)
		if d, err := url.QueryUnescape(s); err == nil {
			texts = append(texts, d)
		}
		if d, err := url.PathUnescape(s); err == nil {
			texts = append(texts, d)
		}
		var inner any
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		if d.Decode(&inner) == nil {
			collect(inner)
		}
	}
	collect = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				add(k)
				collect(e)
			}
		case []any:
			for _, e := range x {
				collect(e)
			}
		case string:
			add(x)
		case json.Number:
			texts = append(texts, x.String())
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]any
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		if err := d.Decode(&rec); err != nil {
			t.Fatal(err)
		}
		collect(rec)
		bodies := []map[string]any{rec}
		for _, k := range []string{"response", "forward"} {
			if m, ok := rec[k].(map[string]any); ok {
				bodies = append(bodies, m)
			}
		}
		for _, m := range bodies {
			if m["bodyEncoding"] == "base64" {
				b, err := base64.StdEncoding.DecodeString(m["body"].(string))
				if err != nil {
					t.Fatal(err)
				}
				add(string(b))
			}
		}
	}
	return texts
}

// The corpus holds every place an identifier has leaked from: the path, the
// query (percent-encoded), request, response and forward headers (secret
// ones among them), object keys, numbers in identifying fields, mobiles and
// identity-card numbers in unknown fields and item attributes, the forward
// URL and body, the remote address, bodies that are not JSON or not UTF-8,
// and a name first named in a header of an earlier record. None survives.
func TestLeakCorpusAnonymizesEveryPlace(t *testing.T) {
	a := newTestAnonymizer(t, testKey)
	out, st := anonymizeCorpus(t, a)
	if len(st.Leaks) != 0 {
		t.Errorf("--check found leaks in the output: %+v", st.Leaks)
	}
	if st.Records != 4 || st.AsText != 2 {
		t.Errorf("records %d, as text %d; want 4 and 2", st.Records, st.AsText)
	}
	for _, h := range []string{"Authorization", "Cookie", "X-Api-Key", "X-Auth-Token", "X-Webhook-Secret", "Webhook-Signature", "Set-Cookie"} {
		if st.Dropped[h] == 0 {
			t.Errorf("%s not dropped: %v", h, st.Dropped)
		}
	}
	texts := decodedTexts(t, out)
	for _, o := range corpusOriginals(t) {
		for _, s := range texts {
			if strings.Contains(s, o) {
				t.Errorf("original %q survives in %.120q", o, s)
				break
			}
		}
	}
	// What anonymizing keeps, it keeps: the event, the amounts, the item
	// names, the loopback addresses.
	first, err := capture.NewReader(bytes.NewReader(out)).Next()
	if err != nil {
		t.Fatal(err)
	}
	body, _ := first.RequestBody()
	for _, kept := range []string{`"businessType": 4010`, `"quantity": 10`, `"itemName": "\u7f16\u7ec7\u888b"`, `"since": 2019`} {
		if !bytes.Contains(body, []byte(kept)) {
			t.Errorf("%s was changed: %s", kept, body)
		}
	}
	for _, kept := range []string{"businessType=CREATE_INVOICE&", `"remote":"127.0.0.1:40001"`} {
		if !bytes.Contains(out, []byte(kept)) {
			t.Errorf("%s was changed", kept)
		}
	}
	// Every record still reads back, its Content-Length its body's.
	rd := capture.NewReader(bytes.NewReader(out))
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := rec.RequestBody()
		if got := rec.Headers.Get("Content-Length"); got != strconv.Itoa(len(body)) {
			t.Errorf("line %d: Content-Length %s for %d bytes", rd.Line(), got, len(body))
		}
	}
}

// --check finds an original planted back in any place of the output, in
// the forms it could take there.
func TestCheckFindsAnOriginalPlantedAnywhere(t *testing.T) {
	a := newTestAnonymizer(t, testKey)
	out, _ := anonymizeCorpus(t, a)
	rd := capture.NewReader(bytes.NewReader(out))
	clean, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	const name, tax, mobile, idc, code = "上海鼎盛贸易有限公司", "91310115MA1FL3XK9D", "13812345678", "11010519491231002X", "8130430"
	escaped := strings.Trim(strconv.QuoteToASCII(name), `"`)
	places := []struct {
		name  string
		plant func(r *capture.Record)
	}{
		{"path", func(r *capture.Record) { r.Path += "/" + name }},
		{"query, percent-encoded", func(r *capture.Record) { r.Query += "&c=" + url.QueryEscape(name) }},
		{"query, a tax id", func(r *capture.Record) { r.Query += "&t=" + tax }},
		{"request header", func(r *capture.Record) { r.Headers.Set("X-Note", "for "+name) }},
		{"request header, percent-encoded", func(r *capture.Record) { r.Headers.Set("X-Note", url.PathEscape(name)) }},
		{"response header", func(r *capture.Record) { r.Response.Headers.Set("X-Echo", mobile) }},
		{"forward header", func(r *capture.Record) { r.Forward.Headers.Set("X-Echo", idc) }},
		{"forward url", func(r *capture.Record) { r.Forward.URL += "&tax=" + tax }},
		{"forward error", func(r *capture.Record) { r.Forward.Error = "post " + name + ": refused" }},
		{"remote", func(r *capture.Record) { r.Remote = "203.0.113.77:51234" }},
		{"a proxy's client address", func(r *capture.Record) { r.Headers.Set("X-Forwarded-For", "58.246.1.9, 10.0.0.2") }},
		{"response body", func(r *capture.Record) { r.Response.Body = `{"customer":"` + escaped + `"}` }},
		{"forward body", func(r *capture.Record) { r.Forward.Body = "saw " + mobile }},
		{"body, unknown field escaped", func(r *capture.Record) { plantBody(t, r, `"note":"`+escaped+`",`) }},
		{"body, object key", func(r *capture.Record) { plantBody(t, r, `"`+escaped+`":1,`) }},
		{"body, number", func(r *capture.Record) { plantBody(t, r, `"n":`+code+`,`) }},
		{"body, mobile number", func(r *capture.Record) { plantBody(t, r, `"tel":`+mobile+`,`) }},
		{"body not JSON", func(r *capture.Record) { r.SetBody([]byte("customer=" + name)) }},
		{"unanswered reason", func(r *capture.Record) {
			r.Unanswered = &capture.Unanswered{Rule: "sender-gone", Reason: "sent to " + name}
		}},
		{"fault arg", func(r *capture.Record) { r.Fault = &capture.Fault{Kind: "delay", Arg: tax, Attempt: 1} }},
		{"request header, base64", func(r *capture.Record) { r.Headers.Set("X-User", base64.StdEncoding.EncodeToString([]byte(name))) }},
		{"query, base64", func(r *capture.Record) {
			r.Query += "&u=" + base64.RawURLEncoding.EncodeToString([]byte("tel "+mobile))
		}},
		{"body, unknown field in base64", func(r *capture.Record) {
			plantBody(t, r, `"b64":"`+base64.StdEncoding.EncodeToString([]byte("id "+idc))+`",`)
		}},
	}
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			b, err := capture.Append(nil, clean)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := capture.NewReader(bytes.NewReader(b)).Next()
			if err != nil {
				t.Fatal(err)
			}
			pl.plant(rec)
			if b, err = capture.Append(nil, rec); err != nil {
				t.Fatal(err)
			}
			st, err := a.stream(context.Background(), bytes.NewReader(b), io.Discard, Options{checkOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Leaks) == 0 {
				t.Fatalf("no leak found in %s", b)
			}
			for _, l := range st.Leaks {
				for _, o := range []string{name, tax, mobile, idc, code} {
					if strings.Contains(l.Text, o) {
						t.Errorf("the leak report repeats %q", o)
					}
				}
			}
		})
	}
}

// plantBody adds members at the start of the body's data object.
func plantBody(t *testing.T, r *capture.Record, members string) {
	t.Helper()
	b, _ := r.RequestBody()
	i := bytes.Index(b, []byte(`"data": {`))
	if i < 0 {
		t.Fatalf("no data object in %s", b)
	}
	i += len(`"data": {`)
	r.SetBody(append(append(append([]byte{}, b[:i]...), members...), b[i:]...))
}
