package inspect

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/whsim/whsim/internal/capture"
)

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the parts a
// captured call fills.
type (
	HAR struct {
		Log HARLog `json:"log"`
	}
	HARLog struct {
		Version string     `json:"version"`
		Creator HARCreator `json:"creator"`
		Entries []HAREntry `json:"entries"`
	}
	HARCreator struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	HAREntry struct {
		StartedDateTime string      `json:"startedDateTime"`
		Time            float64     `json:"time"`
		Request         HARRequest  `json:"request"`
		Response        HARResponse `json:"response"`
		Cache           struct{}    `json:"cache"`
		Timings         HARTimings  `json:"timings"`
		Comment         string      `json:"comment,omitempty"`
	}
	HARRequest struct {
		Method      string         `json:"method"`
		URL         string         `json:"url"`
		HTTPVersion string         `json:"httpVersion"`
		Cookies     []HARNameValue `json:"cookies"`
		Headers     []HARNameValue `json:"headers"`
		QueryString []HARNameValue `json:"queryString"`
		PostData    *HARPostData   `json:"postData,omitempty"`
		HeadersSize int            `json:"headersSize"`
		BodySize    int            `json:"bodySize"`
	}
	HARResponse struct {
		Status      int            `json:"status"`
		StatusText  string         `json:"statusText"`
		HTTPVersion string         `json:"httpVersion"`
		Cookies     []HARNameValue `json:"cookies"`
		Headers     []HARNameValue `json:"headers"`
		Content     HARContent     `json:"content"`
		RedirectURL string         `json:"redirectURL"`
		HeadersSize int            `json:"headersSize"`
		BodySize    int            `json:"bodySize"`
	}
	HARNameValue struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	HARPostData struct {
		MimeType string         `json:"mimeType"`
		Params   []HARNameValue `json:"params"`
		Text     string         `json:"text"`
		Comment  string         `json:"comment,omitempty"`
	}
	HARContent struct {
		Size     int    `json:"size"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
		Encoding string `json:"encoding,omitempty"`
	}
	HARTimings struct {
		Send    float64 `json:"send"`
		Wait    float64 `json:"wait"`
		Receive float64 `json:"receive"`
	}
)

// harEntry renders a call; origin (http://host:port) makes its URL.
func harEntry(c *Call, origin string) HAREntry {
	r := c.Record
	u := origin + r.Path
	if r.Query != "" {
		u += "?" + r.Query
	}
	e := HAREntry{
		StartedDateTime: r.Time.Format("2006-01-02T15:04:05.000Z07:00"),
		Request: HARRequest{
			Method: r.Method, URL: u, HTTPVersion: "HTTP/1.1",
			Cookies: []HARNameValue{}, Headers: harHeaders(r.Headers), QueryString: harQuery(r.Query),
			HeadersSize: -1, BodySize: c.Size,
		},
		Response: HARResponse{Cookies: []HARNameValue{}, Headers: []HARNameValue{}, HTTPVersion: "HTTP/1.1", HeadersSize: -1, BodySize: -1},
		Timings:  HARTimings{Send: 0, Wait: 0, Receive: 0},
	}
	if r.BodyEncoding != "" || r.Body != "" {
		pd := &HARPostData{MimeType: r.Headers.Get("Content-Type"), Params: []HARNameValue{}, Text: r.Body}
		if r.BodyEncoding == capture.Base64 {
			// HAR's postData has no encoding field: say it in a comment.
			pd.Comment = "text is the body in base64 (not UTF-8)"
		}
		e.Request.PostData = pd
	}
	if resp := r.Response; resp != nil {
		e.Response.Status = resp.Status
		e.Response.StatusText = http.StatusText(resp.Status)
		e.Response.Headers = harHeaders(resp.Headers)
		e.Response.Content = harContent(resp.Headers, resp.Body, resp.BodyEncoding)
		e.Response.BodySize = e.Response.Content.Size
	}
	if f := r.Forward; f != nil {
		e.Time = f.LatencyMS
		e.Timings.Wait = f.LatencyMS
		e.Comment = "forwarded to " + f.URL
		if f.Error != "" {
			e.Comment += ": " + f.Error
		}
	}
	return e
}

func harContent(h http.Header, body, encoding string) HARContent {
	c := HARContent{MimeType: h.Get("Content-Type"), Text: body}
	if b, err := capture.DecodeBody(body, encoding); err == nil {
		c.Size = len(b)
	}
	if encoding == capture.Base64 {
		c.Encoding = "base64"
	}
	return c
}

func harHeaders(h http.Header) []HARNameValue {
	out := []HARNameValue{}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			out = append(out, HARNameValue{Name: k, Value: v})
		}
	}
	return out
}

func harQuery(raw string) []HARNameValue {
	out := []HARNameValue{}
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
		out = append(out, HARNameValue{Name: k, Value: v})
	}
	return out
}
