package inspect

import (
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/termsafe"
)

// har 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the parts a
// captured call fills.
type (
	har struct {
		Log harLog `json:"log"`
	}
	harLog struct {
		Version string     `json:"version"`
		Creator harCreator `json:"creator"`
		Entries []harEntry `json:"entries"`
	}
	harCreator struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	harEntry struct {
		StartedDateTime string      `json:"startedDateTime"`
		Time            float64     `json:"time"`
		Request         harRequest  `json:"request"`
		Response        harResponse `json:"response"`
		Cache           struct{}    `json:"cache"`
		Timings         harTimings  `json:"timings"`
		Comment         string      `json:"comment,omitempty"`
	}
	harRequest struct {
		Method      string         `json:"method"`
		URL         string         `json:"url"`
		HTTPVersion string         `json:"httpVersion"`
		Cookies     []harNameValue `json:"cookies"`
		Headers     []harNameValue `json:"headers"`
		QueryString []harNameValue `json:"queryString"`
		PostData    *harPostData   `json:"postData,omitempty"`
		HeadersSize int            `json:"headersSize"`
		BodySize    int            `json:"bodySize"`
		// Comment says what the request line asked for when a URL
		// cannot name it: "*" (OPTIONS *).
		Comment string `json:"comment,omitempty"`
	}
	harResponse struct {
		Status      int            `json:"status"`
		StatusText  string         `json:"statusText"`
		HTTPVersion string         `json:"httpVersion"`
		Cookies     []harNameValue `json:"cookies"`
		Headers     []harNameValue `json:"headers"`
		Content     harContent     `json:"content"`
		RedirectURL string         `json:"redirectURL"`
		HeadersSize int            `json:"headersSize"`
		BodySize    int            `json:"bodySize"`
	}
	harNameValue struct {
		Name  string `json:"name"`
		Value string `json:"value"`
		// Comment gives a header value that is not UTF-8 in base64:
		// Value, JSON text, has U+FFFD for its bytes that are not.
		Comment string `json:"comment,omitempty"`
	}
	harPostData struct {
		MimeType string         `json:"mimeType"`
		Params   []harNameValue `json:"params"`
		Text     string         `json:"text"`
		// Encoding is "base64" for a body that is not UTF-8, as in
		// content: HAR 1.2 gives postData none, and a JSON string cannot
		// carry the bytes. A reader that looks for it here as in content
		// sends the decoded bytes; one that does not (har-to-k6 0.14)
		// sends the base64 text, which the docs say.
		Encoding string `json:"encoding,omitempty"`
		Comment  string `json:"comment,omitempty"`
	}
	harContent struct {
		Size int `json:"size"`
		// Compression is the bytes a Content-Encoding saved: size less
		// the response's bodySize.
		Compression *int   `json:"compression,omitempty"`
		MimeType    string `json:"mimeType"`
		Text        string `json:"text"`
		Encoding    string `json:"encoding,omitempty"`
		Comment     string `json:"comment,omitempty"`
	}
	harTimings struct {
		Send    float64 `json:"send"`
		Wait    float64 `json:"wait"`
		Receive float64 `json:"receive"`
	}
)

// entryOf renders a call; origin (http://host:port) makes its URL. A HAR
// is shared (a bug report, a browser's network panel): credentials in
// headers and in the query are masked (termsafe), as every output of
// whsim masks them; the NDJSON export keeps them for replay.
func entryOf(c *call, origin string) harEntry {
	r := c.Record
	u := origin + r.URLPath() // the sender's escapes as written: "/a%2Fb" is not "/a/b"
	if r.Query != "" {
		u += "?" + urlQuery(termsafe.MaskQuery(r.Query))
	}
	e := harEntry{
		StartedDateTime: r.Time.Format("2006-01-02T15:04:05.000Z07:00"),
		Request: harRequest{
			Method: r.Method, URL: u, HTTPVersion: httpVersion(r),
			Cookies: []harNameValue{}, Headers: harHeaders(termsafe.MaskHeaders(r.Headers)), QueryString: harQuery(r.Query),
			HeadersSize: -1, BodySize: c.Size,
		},
		Response: harResponse{Cookies: []harNameValue{}, Headers: []harNameValue{}, HTTPVersion: httpVersion(r), HeadersSize: -1, BodySize: -1},
		Timings:  harTimings{Send: 0, Wait: 0, Receive: 0},
	}
	if target := r.TargetPath(); notAPath(target) {
		// "*" after the port is no URL: a reader's URL parser refused
		// the whole file for it.
		e.Request.URL = origin + "/"
		if r.Query != "" {
			e.Request.URL += "?" + urlQuery(termsafe.MaskQuery(r.Query))
		}
		e.Request.Comment = fmt.Sprintf("the request line asked for %q, not a path; the url names the server", target)
	}
	if r.BodyEncoding != "" || r.Body != "" {
		pd := &harPostData{MimeType: r.Headers.Get("Content-Type"), Params: []harNameValue{}, Text: r.Body}
		if r.BodyEncoding == capture.Base64 {
			pd.Encoding = "base64"
			pd.Comment = "text is the body in base64 (not UTF-8)"
		}
		e.Request.PostData = pd
	}
	if u := r.Unanswered; u != nil {
		// No answer reached the sender: HAR's status 0, as for a request
		// that got none, and why in words.
		e.Comment = "no answer reached the sender (" + u.Rule + "): " + u.Reason
	} else if resp := r.Response; resp != nil {
		e.Response.Status = resp.Status
		e.Response.StatusText = http.StatusText(resp.Status)
		// The call's credentials, masked in its request, are masked in
		// what the receiver answered too: one that echoes its request
		// would otherwise put them in a file made to be shared.
		creds := termsafe.Credentials(nil).AddHeaders(r.Headers).AddURL(&url.URL{RawQuery: r.Query})
		e.Response.Headers = harHeaders(termsafe.MaskHeaders(creds.Header(resp.Headers)))
		e.Response.Content, e.Response.BodySize = contentOf(resp.Headers, resp.Body, resp.BodyEncoding)
		maskContent(&e.Response.Content, creds)
	}
	if f := r.Forward; f != nil {
		e.Time = f.LatencyMS
		e.Timings.Wait = f.LatencyMS
		// Masked as the request's URL is: the forward's URL carries the
		// sender's query, and its error quotes it.
		fwd := "forwarded to " + termsafe.URLString(f.URL)
		if f.Error != "" {
			fwd += ": " + termsafe.URLsIn(f.Error)
		} else if f.BodyCut != "" {
			// The content is the answer's first bytes, not all of it.
			fwd += "; " + f.BodyCut
		}
		if e.Comment != "" {
			fwd = e.Comment + "; " + fwd
		}
		e.Comment = fwd
	}
	return e
}

// httpVersion is the protocol the call came in, which listen answered in
// too: HTTP/1.1 unless the record says another (HTTP/1.0, HTTP/2.0).
func httpVersion(r *capture.Record) string {
	if r.Proto != "" {
		return r.Proto
	}
	return "HTTP/1.1"
}

// contentOf is an answer's content as HAR 1.2 has it, and its bodySize
// (the bytes that came, -1 when the record's body does not decode): text
// is the content a Content-Encoding (gzip, deflate) held, decoded, as a
// browser's HAR has it, with size its length and compression the bytes
// the coding saved; encoding is "base64" only when those bytes are not
// text. An answer whose coding cannot be undone keeps the bytes that
// came, in base64 (they are not the content), and says why.
func contentOf(h http.Header, body, encoding string) (harContent, int) {
	c := harContent{MimeType: h.Get("Content-Type"), Text: body}
	if encoding == capture.Base64 {
		c.Encoding = "base64"
	}
	wire, err := capture.DecodeBody(body, encoding)
	if err != nil {
		return c, -1
	}
	c.Size = len(wire)
	codings := capture.ContentCodings(h)
	if codings == nil || len(wire) == 0 {
		return c, len(wire)
	}
	doc, err := capture.DecodeContent(wire, codings, input.Max)
	if err != nil {
		c.Text, c.Encoding = base64.StdEncoding.EncodeToString(wire), "base64"
		c.Comment = "text is the answer as it came, in base64: " + undecodable(err)
		return c, len(wire)
	}
	c.Text, c.Encoding = capture.EncodeBody(doc)
	if c.Encoding == capture.UTF8 {
		c.Encoding = ""
	}
	c.Size = len(doc)
	saved := len(doc) - len(wire) // below 0 when the coding added bytes (a small answer)
	c.Compression = &saved
	return c, len(wire)
}

// maskContent masks creds in c's text (its bytes, when in base64), and
// says so in its comment: size stays the answer's as it came.
func maskContent(c *harContent, creds termsafe.Credentials) {
	if len(creds) == 0 {
		return
	}
	text := c.Text
	if c.Encoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(c.Text)
		if err != nil {
			return
		}
		if m := creds.Bytes(b, false); len(m) != len(b) || string(m) != string(b) {
			text = base64.StdEncoding.EncodeToString(m)
		}
	} else {
		text = creds.String(c.Text, false)
	}
	if text == c.Text {
		return
	}
	c.Text = text
	note := "the call's credentials are masked in text, as in its request (size is the answer's as it came)"
	if c.Comment != "" {
		note = c.Comment + "; " + note
	}
	c.Comment = note
}

// undecodable says why an answer's Content-Encoding could not be undone.
func undecodable(err error) string {
	ce, ok := errors.AsType[*capture.ContentError](err)
	switch {
	case !ok:
		return err.Error()
	case ce.Unknown:
		return "its Content-Encoding " + strconv.Quote(ce.Coding) + " is not one whsim decodes (gzip and deflate it does)"
	case ce.Limit > 0:
		return "it decodes to more than " + strconv.FormatInt(ce.Limit, 10) + " bytes"
	}
	return "it does not decode as " + ce.Coding + " (" + ce.Err.Error() + ")"
}

func harHeaders(h http.Header) []harNameValue {
	out := []harNameValue{}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			nv := harNameValue{Name: k, Value: v}
			if !utf8.ValidString(v) {
				// As encoding/json would write it, one U+FFFD a byte,
				// and the bytes themselves beside it.
				var b strings.Builder
				for i := 0; i < len(v); {
					r, n := utf8.DecodeRuneInString(v[i:])
					if r == utf8.RuneError && n == 1 {
						b.WriteRune(utf8.RuneError)
					} else {
						b.WriteString(v[i : i+n])
					}
					i += n
				}
				nv.Value = b.String()
				nv.Comment = "not UTF-8: value has U+FFFD for each byte that is not; the bytes in base64: " + base64.StdEncoding.EncodeToString([]byte(v))
			}
			out = append(out, nv)
		}
	}
	return out
}

// urlQuery is a raw query as a URL may hold it: each byte a URL cannot
// (a space, a control, a quote, non-ASCII, a byte that is not UTF-8, and
// a '#', which would end the query there and start a fragment) as %XX,
// as a browser's URL has it, the rest as the sender sent it. JSON
// has no room for a byte that is not UTF-8 (it became U+FFFD, sent on
// as %EF%BF%BD by a reader that replays the URL).
func urlQuery(q string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"#<>\\^`{|}", c) >= 0 {
			if b.Len() == 0 {
				b.WriteString(q[:i])
			}
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(c)
		}
	}
	if b.Len() == 0 {
		return q
	}
	return b.String()
}

// harQuery is the query's pairs, each name decoded and each value
// percent-encoded as JavaScript's encodeURIComponent writes it (a value
// not UTF-8 with U+FFFD for its bad bytes, as a browser decodes it): that
// is how the HAR readers that rebuild a request take them. har-to-k6
// decodes each value and leaves out a pair the URL already has; a value
// written decoded (p=%25 as "%") made it refuse the whole file ("URI
// malformed"), one written as it stands in the URL (q=a+b) it took for
// another pair and sent twice. A credential's value is masked.
func harQuery(raw string) []harNameValue {
	out := queryPairs(raw)
	for i, p := range out {
		if p.Value != "****" || !termsafe.SecretQuery(p.Name) {
			out[i].Value = encodeURIComponent(strings.ToValidUTF8(p.Value, "\uFFFD"))
		}
	}
	return out
}

// queryPairs is the query's pairs as a person reads them, the page's
// Query table: name and value decoded (a pair that does not decode as
// it stands), a credential's value masked.
func queryPairs(raw string) []harNameValue {
	out := []harNameValue{}
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		if v != "" && termsafe.SecretQuery(k) {
			v = "****"
		}
		out = append(out, harNameValue{Name: k, Value: v})
	}
	return out
}

// encodeURIComponent is JavaScript's: every byte but letters, digits and
// -_.!~*'() as %XX.
func encodeURIComponent(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
