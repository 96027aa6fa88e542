package inspect

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/validate"
)

var t0 = time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)

func record(i int, event string, body []byte, status int) *capture.Record {
	rec := &capture.Record{
		Capture: capture.Version, Time: t0.Add(time.Duration(i) * time.Second), Remote: "127.0.0.1:5000",
		Method: "POST", Path: "/hook", Query: "businessType=" + event,
		Headers:  http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer s3cret"}, "X-Trace": {fmt.Sprintf("trace-%d", i)}},
		Response: &capture.Response{Status: status, Headers: http.Header{"Content-Type": {"application/json"}}, Body: `{"status":200}`, BodyEncoding: capture.UTF8},
	}
	rec.SetBody(body)
	return rec
}

const receiptBad = `{"requestId":"r-2","businessType":5007,"data":{"收款明细":[{"应收金额":"x"}]}}`

var typeFinding = validate.Finding{Rule: "type", Severity: validate.Error, Path: "data.收款明细[0].应收金额", Message: "want number, got string"}

// newTestStore holds three calls: a valid invoice, an invalid receipt
// answered 500, and a body that is not UTF-8.
func newTestStore() *Store {
	s := NewStore(10)
	s.Add(record(1, "CREATE_PURCHASE_ORDER_INVOICE", []byte(`{"requestId":"r-1","businessType":4010,"data":{"code":"A"}}`), 200), nil)
	s.Add(record(2, "CREATE_RECEIVABLE_DOC", []byte(receiptBad), 500), []validate.Finding{
		typeFinding,
		{Rule: "missing-field", Severity: validate.Warning, Path: "data.收款明细[0].编号", Message: "absent"},
	})
	s.Add(record(3, "CREATE_RECEIVABLE_DOC", []byte{0xff, 0xfe, 0x00, '{'}, 200), []validate.Finding{{Rule: "json-syntax", Severity: validate.Error, Message: "invalid UTF-8"}})
	return s
}

func mask(h http.Header) http.Header {
	out := h.Clone()
	if _, ok := out["Authorization"]; ok {
		out["Authorization"] = []string{"Bearer ****"}
	}
	return out
}

func newTestServer(t *testing.T, s *Store, replay func(context.Context, *capture.Record, string) Replayed) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(newHandler(Options{Token: testToken, Store: s, Mask: mask, Replay: replay, Origin: "http://127.0.0.1:8080", Source: "test", Version: "v1"}))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, out any) *http.Response {
	t.Helper()
	resp, err := apiGet(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("GET %s: %v in %q", url, err, b)
		}
	}
	return resp
}

func ids(calls []summary) []uint64 {
	var out []uint64
	for _, c := range calls {
		out = append(out, c.ID)
	}
	return out
}

func TestListFiltersAndPages(t *testing.T) {
	srv := newTestServer(t, newTestStore(), nil)
	tests := []struct {
		query string
		want  string
	}{
		{"", "[3 2 1]"},
		{"?event=CREATE_RECEIVABLE_DOC", "[3 2]"},
		{"?verdict=invalid", "[3 2]"},
		{"?verdict=valid", "[1]"},
		{"?status=500", "[2]"},
		{"?status=5xx", "[2]"},
		{"?status=2xx", "[3 1]"},
		{"?q=R-1", "[1]"},                // requestId, any case
		{"?q=trace-2", "[2]"},            // a header value
		{"?q=s3cret", "[]"},              // credentials are searched masked
		{"?q=%E5%BA%94%E6%94%B6", "[2]"}, // body text: 应收
		// Trimmed as the page trims its box: a pasted number with a space
		// (or a full-width one) around it, and a search of spaces alone.
		{"?q=%20R-1%20", "[1]"},
		{"?q=%E3%80%80R-1%09", "[1]"},
		{"?q=%20", "[3 2 1]"},
		{"?limit=1", "[3]"},
		{"?before=3&limit=1", "[2]"},
		{"?before=2", "[1]"},
		{"?event=-", "[]"},
	}
	for _, tt := range tests {
		var got []summary
		if resp := get(t, srv.URL+"/api/calls"+tt.query, &got); resp.StatusCode != 200 {
			t.Fatalf("%s: status %d", tt.query, resp.StatusCode)
		}
		if s := fmt.Sprint(ids(got)); s != tt.want {
			t.Errorf("GET /api/calls%s = %s, want %s", tt.query, s, tt.want)
		}
	}
	var got []summary
	get(t, srv.URL+"/api/calls", &got)
	c := got[1]
	if c.Event != "CREATE_RECEIVABLE_DOC" || c.RequestID == nil || *c.RequestID != "r-2" || c.Status != 500 || c.Verdict != "invalid" || c.Findings != 2 || c.Size != len(receiptBad) || !c.ReceivedAt.Equal(t0.Add(2*time.Second)) {
		t.Errorf("summary = %+v", c)
	}
	// A filter that can match nothing by its spelling is refused, not
	// answered [] as if no call matched it: a script's typo would read as
	// "no invalid calls".
	for q, want := range map[string]string{
		"?limit=0": "limit", "?limit=x": "limit", "?before=x": "before",
		"?verdict=invalide": `verdict "invalide": want valid, warning or invalid`,
		"?verdict=error":    `verdict "error"`,
		"?status=5":         `status "5": want a code (404) or a class (4xx)`,
		"?status=99x":       `status "99x"`,
		"?status=abc":       `status "abc"`,
	} {
		var e struct{ Error string }
		if resp := get(t, srv.URL+"/api/calls"+q, &e); resp.StatusCode != 400 || !strings.Contains(e.Error, want) {
			t.Errorf("GET /api/calls%s: status %d, error %q, want 400 saying %s", q, resp.StatusCode, e.Error, want)
		}
		if !strings.HasPrefix(want, "verdict") && !strings.HasPrefix(want, "status") {
			continue // the stream takes neither limit nor before
		}
		if resp := get(t, srv.URL+"/api/stream"+q, &e); resp.StatusCode != 400 || !strings.Contains(e.Error, want) {
			t.Errorf("GET /api/stream%s: status %d, error %q, want 400 saying %s", q, resp.StatusCode, e.Error, want)
		}
	}
}

func TestDetailTreeFindingsAndMasking(t *testing.T) {
	srv := newTestServer(t, newTestStore(), nil)
	var d detail
	get(t, srv.URL+"/api/calls/2", &d)
	if d.Method != "POST" || d.Path != "/hook" || d.Query != "businessType=CREATE_RECEIVABLE_DOC" || d.Body != receiptBad {
		t.Fatalf("detail = %+v", d)
	}
	for _, h := range d.Headers {
		if h.Name == "Authorization" && h.Value != "Bearer ****" {
			t.Errorf("Authorization shown as %q", h.Value)
		}
	}
	if len(d.Findings) != 2 || d.Findings[0].At != typeFinding.Path || d.Findings[1].At != "data.收款明细[0]" {
		t.Fatalf("findings = %+v", d.Findings)
	}
	// Walk the tree to the finding's node: member order as sent, the
	// finding marked there.
	n := d.Tree
	if n == nil || n.Kind != "object" || n.Children[0].Key != "requestId" || n.Children[1].Value != "5007" {
		t.Fatalf("tree root = %+v", n)
	}
	n = n.Children[2].Children[0].Children[0]
	if n.Path != "data.收款明细[0]" || n.Index == nil || *n.Index != 0 || fmt.Sprint(n.Findings) != "[1]" {
		t.Errorf("element = %+v", n)
	}
	leaf := n.Children[0]
	if leaf.Path != typeFinding.Path || leaf.Kind != "string" || leaf.Value != "x" || fmt.Sprint(leaf.Findings) != "[0]" {
		t.Errorf("leaf = %+v", leaf)
	}
	if !strings.Contains(d.Curl, "-H 'Authorization: Bearer ****'") || !strings.Contains(d.Curl, "'http://127.0.0.1:8080/hook?businessType=CREATE_RECEIVABLE_DOC'") ||
		!strings.Contains(d.Curl, "--data-binary '"+receiptBad+"'") {
		t.Errorf("curl = %s", d.Curl)
	}
	if d.Send != "whsim send --url 'http://127.0.0.1:8080/hook' --file call-2.json --event CREATE_RECEIVABLE_DOC -H 'Authorization: Bearer ****' -H 'X-Trace: trace-2'" {
		t.Errorf("send = %s", d.Send)
	}
	if d.Response == nil || d.Response.Status != 500 {
		t.Errorf("response = %+v", d.Response)
	}

	var bin detail
	get(t, srv.URL+"/api/calls/3", &bin)
	if bin.BodyEncoding != capture.Base64 || bin.Tree != nil || !strings.Contains(bin.Curl, "--data-binary @- <call-3.json") {
		t.Errorf("non-UTF-8 detail = %+v", bin)
	}
	for path, want := range map[string]int{"/api/calls/9": 404, "/api/calls/x": 400, "/api/calls/0": 404} {
		if resp := get(t, srv.URL+path, nil); resp.StatusCode != want {
			t.Errorf("GET %s: status %d, want %d", path, resp.StatusCode, want)
		}
	}
}

func TestRawIsTheExactBytes(t *testing.T) {
	srv := newTestServer(t, newTestStore(), nil)
	for _, tt := range []struct {
		path string
		want []byte
	}{
		{"/api/calls/3/raw", []byte{0xff, 0xfe, 0x00, '{'}},
		{"/api/calls/2/raw?download", []byte(receiptBad)},
	} {
		resp, err := apiGet(srv.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Equal(b, tt.want) || resp.Header.Get("Content-Type") != "application/octet-stream" {
			t.Errorf("GET %s = %q (%s), want %q", tt.path, b, resp.Header.Get("Content-Type"), tt.want)
		}
		if strings.HasSuffix(tt.path, "download") != strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
			t.Errorf("GET %s: Content-Disposition %q", tt.path, resp.Header.Get("Content-Disposition"))
		}
	}
}

// sse reads events from a stream: id and data of each.
type sse struct {
	r    *bufio.Reader
	body io.Closer
}

func openStream(t *testing.T, url, lastID string) *sse {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := doAPI(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	return &sse{r: bufio.NewReader(resp.Body), body: resp.Body}
}

// named returns the next event that has a name, and its data.
func (s *sse) named(t *testing.T) (string, string) {
	t.Helper()
	var name, data string
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "" && name != "":
			return name, data
		case strings.HasPrefix(line, "event: "):
			name = line[7:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		}
	}
}

// next returns the next event's id and data ("" for an id-only event).
func (s *sse) next(t *testing.T) (string, string) {
	t.Helper()
	var id, data string
	seen := false
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "" && seen:
			return id, data
		case strings.HasPrefix(line, "id: "):
			id, seen = line[4:], true
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		}
	}
}

func TestStreamResumesAfterLastEventID(t *testing.T) {
	s := newTestStore()
	srv := newTestServer(t, s, nil)
	st := openStream(t, srv.URL+"/api/stream", "1")
	for _, want := range []string{"2", "3"} {
		if id, data := st.next(t); id != want || !strings.Contains(data, `"id":`+want) {
			t.Fatalf("event %s %s, want id %s", id, data, want)
		}
	}
	s.Add(record(4, "ABANDON_RECEIVABLE_DOC", []byte(`{"requestId":"r-4"}`), 200), nil)
	if id, data := st.next(t); id != "4" || !strings.Contains(data, `"requestId":"r-4"`) {
		t.Fatalf("live event %s %s", id, data)
	}

	// A filtered stream moves the client's Last-Event-ID past what it
	// leaves out, with an event that carries no data.
	fl := openStream(t, srv.URL+"/api/stream?verdict=valid&after=1", "")
	if id, data := fl.next(t); id != "4" || !strings.Contains(data, `"id":4`) {
		t.Fatalf("filtered: %s %s", id, data)
	}
	s.Add(record(5, "ABANDON_RECEIVABLE_DOC", []byte(`{}`), 200), []validate.Finding{typeFinding})
	if id, data := fl.next(t); id != "5" || data != "" {
		t.Fatalf("filtered-out call: id %s data %q, want id 5 and no data", id, data)
	}
}

func TestReplay(t *testing.T) {
	var gotURL string
	var gotRec *capture.Record
	srv := newTestServer(t, newTestStore(), func(_ context.Context, rec *capture.Record, u string) Replayed {
		gotURL, gotRec = u, rec
		return Replayed{URL: u, Status: 202, LatencyMS: 1.5, Body: "ok", BodyEncoding: capture.UTF8}
	})
	post := func(ct, body string) (int, map[string]any) {
		resp, err := apiPost(srv.URL+"/api/calls/2/replay", ct, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	code, out := post("application/json", `{"url":"http://127.0.0.1:9/x"}`)
	if code != 200 || out["status"] != 202.0 || out["latencyMs"] != 1.5 || gotURL != "http://127.0.0.1:9/x" || gotRec.Body != receiptBad {
		t.Fatalf("replay: %d %v (url %q)", code, out, gotURL)
	}
	for _, tt := range []struct {
		ct, body string
		want     int
	}{
		{"text/plain", `{"url":"http://x/"}`, 415},
		{"application/json", `{"url":"ftp://x/"}`, 400},
		{"application/json", `{"url":`, 400},
		// whsim replay refuses such a URL: the call's own businessType is
		// added, and the receiver got two, most reading the URL's first.
		{"application/json", `{"url":"http://127.0.0.1:9/x?businessType=CREATE_RECEIVABLE_DOC"}`, 400},
		{"application/json", `{"url":"http://127.0.0.1:9/x?a=1&business%54ype=X"}`, 400},
	} {
		if code, out := post(tt.ct, tt.body); code != tt.want || out["error"] == nil {
			t.Errorf("replay %s %s: %d %v, want %d with an error", tt.ct, tt.body, code, out, tt.want)
		}
	}
	off := newTestServer(t, newTestStore(), nil)
	resp, _ := apiPost(off.URL+"/api/calls/1/replay", "application/json", strings.NewReader(`{"url":"http://x/"}`))
	if resp.StatusCode != http.StatusNotImplemented {
		t.Errorf("replay without a replayer: %d", resp.StatusCode)
	}
}

// A second replay of a call while the first is still sending is refused,
// not sent: two presses, or two of the inspector's pages, sent the call to
// the receiver twice. Another call replays meanwhile, and the call
// replays again once the first has its answer.
func TestReplayRefusesTheSameCallWhileItIsSending(t *testing.T) {
	entered := make(chan uint64, 4)
	release := make(chan struct{})
	var mu sync.Mutex
	sent := map[string]int{}
	srv := newTestServer(t, newTestStore(), func(_ context.Context, rec *capture.Record, u string) Replayed {
		mu.Lock()
		sent[u]++
		mu.Unlock()
		if u == "http://127.0.0.1:9/held" {
			entered <- 0
			<-release
		}
		return Replayed{URL: u, Status: 202, BodyEncoding: capture.UTF8}
	})
	post := func(id int, u string) (int, map[string]any) {
		resp, err := apiPost(fmt.Sprintf("%s/api/calls/%d/replay", srv.URL, id), "application/json", strings.NewReader(`{"url":"`+u+`"}`))
		if err != nil {
			t.Error(err)
			return 0, nil
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	first := make(chan int)
	go func() {
		code, _ := post(2, "http://127.0.0.1:9/held")
		first <- code
	}()
	<-entered
	if code, out := post(2, "http://127.0.0.1:9/again"); code != http.StatusConflict || !strings.Contains(fmt.Sprint(out["error"]), "call 2 is being replayed already") {
		t.Errorf("a second replay of call 2 while the first sends: %d %v, want 409 saying so", code, out)
	}
	if code, _ := post(1, "http://127.0.0.1:9/other"); code != http.StatusOK {
		t.Errorf("a replay of call 1 while call 2 sends: %d, want 200", code)
	}
	close(release)
	if code := <-first; code != http.StatusOK {
		t.Errorf("the first replay of call 2: %d, want 200", code)
	}
	if code, _ := post(2, "http://127.0.0.1:9/after"); code != http.StatusOK {
		t.Errorf("a replay of call 2 after the first answered: %d, want 200", code)
	}
	mu.Lock()
	defer mu.Unlock()
	if sent["http://127.0.0.1:9/again"] != 0 || sent["http://127.0.0.1:9/held"] != 1 || sent["http://127.0.0.1:9/after"] != 1 {
		t.Errorf("sent %v, want the held and the later replay once each and the refused one never", sent)
	}
}

// A call whose body left memory, with no capture file to read it back
// from, is not replayed: its record went with an empty body, another call
// than the one captured, and the page showed the receiver's answer to it.
// Nor are its raw bytes served as an empty body (or an empty download),
// nor is it copied as a command.
func TestACallWhoseBodyIsGoneIsNeitherReplayedNorServedEmpty(t *testing.T) {
	s := NewStore(10).LimitBytes(1)
	s.Add(record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1","businessType":5007,"data":{}}`), 200), nil)
	s.Add(record(2, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-2","businessType":5007,"data":{}}`), 200), nil)
	replayed := 0
	srv := newTestServer(t, s, func(_ context.Context, rec *capture.Record, u string) Replayed {
		replayed++
		return Replayed{URL: u, Status: 202, BodyEncoding: capture.UTF8}
	})
	resp, err := apiPost(srv.URL+"/api/calls/1/replay", "application/json", strings.NewReader(`{"url":"http://127.0.0.1:9/x"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != http.StatusGone || !strings.Contains(fmt.Sprint(out["error"]), "call 1: not replayed: the bodies left") || replayed != 0 {
		t.Errorf("replay of a call whose body is gone: %d %v, replayed %d times; want 410 saying why, never sent", resp.StatusCode, out, replayed)
	}
	for _, path := range []string{"/api/calls/1/raw", "/api/calls/1/raw?download"} {
		raw := get(t, srv.URL+path, nil)
		if raw.StatusCode != http.StatusGone || raw.Header.Get("Content-Disposition") != "" {
			t.Errorf("GET %s of a call whose body is gone: %d (%s), want 410, no attachment: it read as an empty body", path, raw.StatusCode, raw.Header.Get("Content-Disposition"))
		}
	}
	// Nor copied as commands: curl's would send an empty body (a large
	// one's, a file the page cannot download), whsim send's a file the
	// page cannot download either.
	var gone, whole detail
	get(t, srv.URL+"/api/calls/1", &gone)
	get(t, srv.URL+"/api/calls/2", &whole)
	if !gone.BodyGone || gone.Curl != "" || gone.Send != "" {
		t.Errorf("call 1, its body gone (bodyGone %v): curl %q, send %q; want no command: it would not send the call", gone.BodyGone, gone.Curl, gone.Send)
	}
	if whole.BodyGone || !strings.Contains(whole.Curl, `"requestId":"r-2"`) || !strings.Contains(whole.Send, "--file call-2.json") {
		t.Errorf("call 2, kept whole: curl %q, send %q; want both", whole.Curl, whole.Send)
	}
	kept, err := apiPost(srv.URL+"/api/calls/2/replay", "application/json", strings.NewReader(`{"url":"http://127.0.0.1:9/x"}`))
	if err != nil {
		t.Fatal(err)
	}
	kept.Body.Close()
	if kept.StatusCode != http.StatusOK || replayed != 1 {
		t.Errorf("replay of the newest call, kept whole: %d, replayed %d times in all; want 200, once", kept.StatusCode, replayed)
	}
}

// A diff with a call whose body left memory compared nothing with
// something: two such calls read as "the same JSON", one of them as a
// body removed. It is refused (410), as its raw bytes are.
func TestDiffRefusesACallWhoseBodyIsGone(t *testing.T) {
	s := NewStore(10).LimitBytes(1)
	s.Add(record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1","businessType":5007,"data":{"amount":1}}`), 200), nil)
	s.Add(record(2, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-2","businessType":5007,"data":{"amount":2}}`), 200), nil)
	s.Add(record(3, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-3","businessType":5007,"data":{"amount":3}}`), 200), nil)
	srv := newTestServer(t, s, nil)
	for _, q := range []string{"a=1&b=2", "a=2&b=3", "a=3&b=1"} {
		var out map[string]any
		resp := get(t, srv.URL+"/api/diff?"+q, &out)
		if resp.StatusCode != http.StatusGone || !strings.Contains(fmt.Sprint(out["error"]), "not compared: the bodies left") {
			t.Errorf("diff %s, a body gone: %d %v; want 410 saying why", q, resp.StatusCode, out)
		}
	}
}

func TestDiffIgnoresKeyOrderAndCallsOutRequestID(t *testing.T) {
	s := NewStore(10)
	s.Add(record(1, "E", []byte(`{"requestId":"a","data":{"x":1,"y":[1,2],"z":"s"}}`), 200), nil)
	s.Add(record(2, "E", []byte(`{"data":{"z":"s","y":[1,2],"x":1.0},"requestId":"b"}`), 200), nil)
	s.Add(record(3, "E", []byte(`{"requestId":"a","data":{"x":2,"y":[1],"w":null}}`), 200), nil)
	srv := newTestServer(t, s, nil)
	var d diff
	get(t, srv.URL+"/api/diff?a=1&b=2", &d)
	if len(d.Differences) != 0 || !d.RequestID.Differ || d.RequestID.A != "a" || d.RequestID.B != "b" || d.Equal {
		t.Errorf("reordered: %+v", d)
	}
	get(t, srv.URL+"/api/diff?a=1&b=3", &d)
	want := `[{data.x changed 1 2} {data.y[1] removed 2 } {data.z removed "s" } {data.w added  null}]`
	if got := fmt.Sprint(d.Differences); got != want || d.RequestID.Differ {
		t.Errorf("diff = %s, want %s (requestId %+v)", got, want, d.RequestID)
	}
	if resp := get(t, srv.URL+"/api/diff?a=1&b=7", nil); resp.StatusCode != 404 {
		t.Errorf("diff with an unknown call: %d", resp.StatusCode)
	}
}

// harFile is a HAR 1.2 reader's view, written from the spec, not from the
// package's own types.
type harFile struct {
	Log struct {
		Version string `json:"version"`
		Creator struct{ Name, Version string }
		Entries []struct {
			StartedDateTime time.Time `json:"startedDateTime"`
			Time            float64   `json:"time"`
			Request         struct {
				Method, URL, HTTPVersion string
				Headers                  []struct{ Name, Value string }
				QueryString              []struct{ Name, Value string }
				PostData                 *struct{ MimeType, Text string }
				HeadersSize, BodySize    int
			} `json:"request"`
			Response struct {
				Status  int `json:"status"`
				Content struct {
					Size     int
					MimeType string
					Text     string
				} `json:"content"`
			} `json:"response"`
			Timings *struct{ Send, Wait, Receive float64 } `json:"timings"`
			Cache   *struct{}                              `json:"cache"`
		} `json:"entries"`
	} `json:"log"`
}

func TestExport(t *testing.T) {
	srv := newTestServer(t, newTestStore(), nil)
	resp, err := apiGet(srv.URL + "/api/export?format=ndjson")
	if err != nil {
		t.Fatal(err)
	}
	r := capture.NewReader(resp.Body)
	var bodies [][]byte
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Headers.Get("Authorization") != "Bearer s3cret" {
			t.Errorf("export masked a header: the capture keeps them for replay")
		}
		b, _ := rec.RequestBody()
		bodies = append(bodies, b)
	}
	resp.Body.Close()
	if len(bodies) != 3 || string(bodies[1]) != receiptBad || !bytes.Equal(bodies[2], []byte{0xff, 0xfe, 0x00, '{'}) {
		t.Fatalf("ndjson bodies = %q", bodies)
	}

	var h harFile
	get(t, srv.URL+"/api/export?format=har", &h)
	if h.Log.Version != "1.2" || h.Log.Creator.Name != "whsim" || len(h.Log.Entries) != 3 {
		t.Fatalf("har = %+v", h.Log)
	}
	e := h.Log.Entries[1]
	if e.Request.Method != "POST" || e.Request.URL != "http://127.0.0.1:8080/hook?businessType=CREATE_RECEIVABLE_DOC" ||
		e.Request.PostData == nil || e.Request.PostData.Text != receiptBad || e.Request.BodySize != len(receiptBad) ||
		e.Response.Status != 500 || e.Timings == nil || e.Cache == nil || !e.StartedDateTime.Equal(t0.Add(2*time.Second)) ||
		len(e.Request.QueryString) != 1 || e.Request.QueryString[0].Value != "CREATE_RECEIVABLE_DOC" {
		t.Errorf("har entry = %+v", e)
	}
	if resp := get(t, srv.URL+"/api/export?format=csv", nil); resp.StatusCode != 400 {
		t.Errorf("export csv: %d", resp.StatusCode)
	}
}

func TestRefusesOtherSites(t *testing.T) {
	srv := newTestServer(t, newTestStore(), nil)
	for _, tt := range []struct {
		host, origin string
		want         int
	}{
		{"", "", 200},
		{"localhost:4040", "", 200},
		{"evil.example:4040", "", 403}, // DNS rebinding
		{"", "http://evil.example", 403},
	} {
		req, _ := http.NewRequest("GET", srv.URL+"/api/calls", nil)
		if tt.host != "" {
			req.Host = tt.host
		}
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		resp, err := doAPI(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("host %q origin %q: %d, want %d", tt.host, tt.origin, resp.StatusCode, tt.want)
		}
		// The API's refusals are JSON, as its other errors are: a script
		// reads .error whatever refused it.
		var e struct{ Error string }
		if tt.want == 403 && (json.Unmarshal(b, &e) != nil || e.Error == "") {
			t.Errorf("host %q origin %q: body %q, want {\"error\": ...}", tt.host, tt.origin, b)
		}
	}
}

func TestPageIsServed(t *testing.T) {
	srv := newTestServer(t, newTestStore(), nil)
	for _, p := range []string{"/", "/app.js", "/app.css"} {
		resp, err := apiGet(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(b) == 0 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("GET %s: %d, %d bytes, CSP %q", p, resp.StatusCode, len(b), resp.Header.Get("Content-Security-Policy"))
		}
		if bytes.Contains(b, []byte("innerHTML")) || bytes.Contains(b, []byte("https://")) {
			t.Errorf("%s uses innerHTML or loads from the network", p)
		}
	}
}

func TestLoadFilePagesPastTheWindow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calls.ndjson")
	var file []byte
	for i := 1; i <= 5; i++ {
		file, _ = capture.Append(file, record(i, "CREATE_RECEIVABLE_DOC", []byte(fmt.Sprintf(`{"requestId":"r-%d"}`, i)), 200))
		if i == 2 {
			file = append(file, "not a record\n"...)
		}
	}
	file = append(file, `{"capture":1,"time":`...) // torn
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	checked := 0
	s, skipped, err := LoadFile(context.Background(), path, nil, 2, func(*capture.Record) []validate.Finding { checked++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 2 || skipped[0].Line != 3 || skipped[1].Line != 7 || checked != 5 || s.Last() != 5 {
		t.Fatalf("skipped %+v, checked %d, last %d", skipped, checked, s.Last())
	}
	c, err := s.Get(1) // left the window: read back from the file
	if err != nil || c.RequestID != "r-1" || c.ID != 1 {
		t.Fatalf("Get(1) = %+v, %v", c, err)
	}
	page, _, err := s.Newest(context.Background(), 0, filter{}, 10)
	if err != nil || fmt.Sprint(idsOf(page)) != "[5 4 3 2 1]" {
		t.Fatalf("Newest = %v, %v", idsOf(page), err)
	}
	page, _, _, err = s.After(context.Background(), 0, filter{Query: "r-2"}, 10)
	if err != nil || fmt.Sprint(idsOf(page)) != "[2]" {
		t.Fatalf("After = %v, %v", idsOf(page), err)
	}
	if _, err := s.Get(6); err != errNotFound {
		t.Errorf("Get(6): %v", err)
	}
}

func idsOf(cs []*call) []uint64 {
	var out []uint64
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

func TestWindowForgetsWithoutAFile(t *testing.T) {
	s := NewStore(2)
	for i := 1; i <= 3; i++ {
		s.Add(record(i, "E", []byte(`{}`), 200), nil)
	}
	if _, err := s.Get(1); err != errNotFound {
		t.Errorf("Get(1) past the window: %v", err)
	}
	page, upTo, _, _ := s.After(context.Background(), 0, filter{}, 10)
	if fmt.Sprint(idsOf(page)) != "[2 3]" || upTo != 3 {
		t.Errorf("After(0) = %v up to %d", idsOf(page), upTo)
	}
}

func TestFeedNeverWaits(t *testing.T) {
	s := NewStore(feedQueue * 3)
	f := s.NewFeed()
	s.mu.Lock() // the store is busy: the feed's goroutine cannot store
	taken := 0
	const offered = 2*feedQueue + 2 // the feed may take one batch before it blocks on the store
	for i := 0; i < offered; i++ {
		if f.Offer(record(i, "E", []byte(`{}`), 200), -1, nil, "", nil) {
			taken++
		}
	}
	s.mu.Unlock()
	f.Close()
	if s.Dropped() == 0 || uint64(taken)+s.Dropped() != offered || s.Last() != uint64(taken) {
		t.Errorf("taken %d, dropped %d, stored %d", taken, s.Dropped(), s.Last())
	}
}

func FuzzParseTree(f *testing.F) {
	for _, s := range []string{receiptBad, `[1,{"a":null}]`, `"x"`, `{"a":1}{`, `{"":{"[x]":true}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		n := parseTree(body)
		if n == nil {
			return
		}
		if !json.Valid(body) {
			t.Fatalf("a tree of invalid JSON %q", body)
		}
		// Every finding lands on a node of the tree.
		at := attach(n, []validate.Finding{{Path: "a.b[0].c"}, {Path: `["x.y"]`}})
		for _, p := range at {
			if p != "" && !strings.HasPrefix("a.b[0].c", p) && !strings.HasPrefix(`["x.y"]`, p) {
				t.Fatalf("finding shown at %q", p)
			}
		}
	})
}

func TestDetailShowsTheForwardedAnswer(t *testing.T) {
	s := NewStore(10)
	rec := record(1, "E", []byte(`{}`), 502)
	rec.Forward = &capture.Forward{URL: "http://127.0.0.1:3000/erp", Status: 502, LatencyMS: 12.5,
		Headers: http.Header{"X-Session-Token": {"t-1"}}, Body: "bad gateway", BodyEncoding: capture.UTF8}
	s.Add(rec, nil)
	srv := httptest.NewServer(newHandler(Options{Token: testToken, Store: s, Mask: func(h http.Header) http.Header {
		out := h.Clone()
		for k := range out {
			if strings.Contains(strings.ToLower(k), "token") {
				out[k] = []string{"****"}
			}
		}
		return out
	}}))
	defer srv.Close()
	var d detail
	get(t, srv.URL+"/api/calls/1", &d)
	f := d.Forward
	if f == nil || f.URL != "http://127.0.0.1:3000/erp" || f.Status != 502 || f.LatencyMS != 12.5 || f.Body != "bad gateway" ||
		len(f.Headers) != 1 || f.Headers[0].Value != "****" {
		t.Errorf("forward = %+v", f)
	}
}

func TestAppendSummaryIsJSONMarshal(t *testing.T) {
	s := newTestStore()
	odd := record(4, "E\"<x>", []byte(`{"requestId":"a\u2028b"}`), 0)
	odd.Path = "/\x01\xff<script>"
	odd.Response = nil
	s.Add(odd, nil)
	unanswered := record(5, "CREATE_RECEIVABLE_DOC", []byte(`{}`), 200)
	unanswered.Unanswered = &capture.Unanswered{Rule: "http-sender-gone", Reason: "gone"}
	s.Add(unanswered, nil)
	over := record(6, "CREATE_RECEIVABLE_DOC", nil, 413)
	over.BodyOverLimit = 1024
	s.Add(over, nil)
	refused := record(7, "CREATE_RECEIVABLE_DOC", nil, 400)
	refused.Capture, refused.Rejected = 2, &capture.Rejected{Reason: "Bad Request", HeadBytes: 63}
	s.Add(refused, nil)
	for id := uint64(1); id <= 7; id++ {
		c, _ := s.Get(id)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(summarize(c))
		want := bytes.TrimSpace(buf.Bytes())
		// The U+FFFD of an invalid byte either way: Go 1.26's
		// encoding/json writes \ufffd, as appendSummary does, Go 1.27's
		// (json/v2 inside) the character itself, the same string.
		escaped, raw := []byte(`\ufffd`), []byte("\uFFFD")
		if got := appendSummary(nil, c); !bytes.Equal(bytes.ReplaceAll(got, escaped, raw), bytes.ReplaceAll(want, escaped, raw)) {
			t.Errorf("call %d:\n got %s\nwant %s", id, got, want)
		}
	}
}

// Calls the feed missed (its queue full: its goroutine got no CPU) never
// reach the store, and take no id: the page listed fewer calls than the
// capture holds with nothing to say so, and only listen's stop warned.
// The stream says how many, at once and as the count grows.
func TestStreamSaysWhatTheFeedMissed(t *testing.T) {
	s := NewStore(feedQueue * 3)
	f := s.NewFeed()
	s.mu.Lock() // the store is busy: the feed's goroutine cannot store
	for i := 0; i < 2*feedQueue+2; i++ {
		f.Offer(record(i, "E", []byte(`{}`), 200), -1, nil, "", nil)
	}
	s.mu.Unlock()
	f.Close()
	if s.Dropped() == 0 {
		t.Fatal("the feed missed no call")
	}
	srv := newTestServer(t, s, nil)
	st := openStream(t, srv.URL+"/api/stream", fmt.Sprint(s.Last()))
	s.Add(record(1, "E", []byte(`{}`), 200), nil) // a call for the stream to send after
	if name, data := st.named(t); name != "missed" || data != fmt.Sprintf(`{"calls":%d}`, s.Dropped()) {
		t.Fatalf("first event %q %s, want missed, the %d calls", name, data, s.Dropped())
	}
	if name, _ := st.named(t); name != "call" {
		t.Fatalf("then %q, want the call", name)
	}
}

func TestStreamSaysWhatLeftTheWindow(t *testing.T) {
	s := NewStore(2)
	for i := 1; i <= 5; i++ {
		s.Add(record(i, "E", []byte(`{}`), 200), nil)
	}
	srv := newTestServer(t, s, nil)
	st := openStream(t, srv.URL+"/api/stream", "1")
	if id, data := st.next(t); id != "3" || data != `{"from":2,"to":3,"listed":false}` {
		t.Fatalf("gap event: id %s data %s", id, data)
	}
	for _, want := range []string{"4", "5"} {
		if id, _ := st.next(t); id != want {
			t.Fatalf("event %s, want %s", id, want)
		}
	}
}

// listenStore feeds a store as listen --capture --ui does: each call is
// written to a capture file, then offered with the offset the write
// returned. Calls 2 and 3 reach the feed in the other order than the
// file's (concurrent calls do), and call `lost` was never recorded (its
// write failed). It returns the store and the requestIds by ID.
func listenStore(t *testing.T, n, window, lost int) (*Store, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "calls.ndjson")
	file, _, err := capture.OpenFile(path, capture.SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	type written struct {
		rec *capture.Record
		off int64
		id  string
	}
	var calls []written
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("r-%d", i)
		rec := record(i, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"`+id+`"}`), 200)
		off := int64(-1)
		if i != lost {
			if off, err = file.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		calls = append(calls, written{rec, off, id})
	}
	calls[1], calls[2] = calls[2], calls[1]
	checked := func(*capture.Record) []validate.Finding { return []validate.Finding{typeFinding} }
	s := newFileStore(path, window, checked)
	f := s.NewFeed()
	want := []string{""}
	for _, c := range calls {
		body, _ := c.rec.RequestBody()
		if !f.Offer(c.rec, c.off, body, c.id, nil) {
			t.Fatal("feed full")
		}
		want = append(want, c.id)
	}
	f.Close()
	return s, want
}

func TestListenStorePagesPastTheWindow(t *testing.T) {
	s, want := listenStore(t, 6, 2, 4)
	if s.Last() != 6 || s.Kept() != 5 { // a stream sends the window only
		t.Fatalf("last %d, kept %d", s.Last(), s.Kept())
	}
	for id := uint64(1); id <= 6; id++ {
		c, err := s.Get(id)
		if id == 4 {
			if err != errNotFound {
				t.Errorf("Get(4), never recorded: %v, want ErrNotFound", err)
			}
			continue
		}
		if err != nil || c.ID != id || c.RequestID != want[id] {
			t.Fatalf("Get(%d) = %+v, %v; want requestId %s", id, c, err, want[id])
		}
		// Read back from the file and checked again, or kept as fed.
		if inFile := id <= 4; inFile != (len(c.Findings) == 1) {
			t.Errorf("Get(%d): findings %v", id, c.Findings)
		}
	}
	page, _, err := s.Newest(context.Background(), 0, filter{}, 10)
	if err != nil || fmt.Sprint(idsOf(page)) != "[6 5 3 2 1]" {
		t.Fatalf("Newest = %v, %v", idsOf(page), err)
	}
	page, _, err = s.Newest(context.Background(), 3, filter{}, 1)
	if err != nil || fmt.Sprint(idsOf(page)) != "[2]" || page[0].RequestID != want[2] {
		t.Fatalf("Newest(before 3, 1) = %v, %v", idsOf(page), err)
	}
	page, upTo, _, err := s.After(context.Background(), 0, filter{Query: want[3]}, 10)
	if err != nil || fmt.Sprint(idsOf(page)) != "[3]" || upTo != 6 { // from the file, then the window
		t.Fatalf("After(0, q=%s) = %v up to %d, %v", want[3], idsOf(page), upTo, err)
	}
}

// The page lists and opens a call that left listen's window, read back
// from the capture file, the same as one in the window.
func TestAPIOpensACallOlderThanListensWindow(t *testing.T) {
	s, want := listenStore(t, 5, 2, 0)
	srv := newTestServer(t, s, nil)
	var list []summary
	get(t, srv.URL+"/api/calls?before=3", &list)
	if fmt.Sprint(ids(list)) != "[2 1]" || ridOf(list[0]) != want[2] || ridOf(list[1]) != want[1] {
		t.Fatalf("GET /api/calls?before=3 = %+v", list)
	}
	var d detail
	if resp := get(t, srv.URL+"/api/calls/1", &d); resp.StatusCode != 200 {
		t.Fatalf("GET /api/calls/1: %d", resp.StatusCode)
	}
	if d.ID != 1 || ridOf(d.summary) != want[1] || d.Body != `{"requestId":"`+want[1]+`"}` || len(d.Findings) != 1 || d.Response == nil {
		t.Errorf("GET /api/calls/1 = %+v", d)
	}
	resp, err := apiGet(srv.URL + "/api/calls/1/raw")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(raw) != d.Body {
		t.Errorf("raw = %q, want %q", raw, d.Body)
	}
	// A stream that starts behind the window is told what it missed: listen
	// does not read the file back for a page that fell behind.
	st := openStream(t, srv.URL+"/api/stream", "0")
	if id, data := st.next(t); id != "3" || data != `{"from":1,"to":3,"listed":true}` {
		t.Fatalf("gap event: id %s data %s", id, data)
	}
	for _, w := range []string{"4", "5"} {
		if id, _ := st.next(t); id != w {
			t.Fatalf("stream event %s, want %s", id, w)
		}
	}
}

// A faulted call's detail says what listen --fault did, for the page.
func TestDetailShowsTheFault(t *testing.T) {
	s := NewStore(10)
	rec := record(1, "E", []byte(`{}`), 504)
	rec.Forward = &capture.Forward{URL: "http://127.0.0.1:3000/erp", Status: 200}
	rec.Fault = &capture.Fault{Kind: "lose-answer", Attempt: 2, Sender: "504 from listen", Receiver: "the call, answered 200 (discarded)",
		Deliveries: []capture.Delivery{{Bytes: 2, Status: 200, LatencyMS: 1}}}
	s.Add(rec, nil)
	srv := httptest.NewServer(newHandler(Options{Token: testToken, Store: s}))
	defer srv.Close()
	var d detail
	get(t, srv.URL+"/api/calls/1", &d)
	if f := d.Fault; f == nil || f.Kind != "lose-answer" || f.Attempt != 2 || f.Sender != "504 from listen" || len(f.Deliveries) != 1 {
		t.Errorf("fault = %+v", f)
	}
}

// The copy commands mask under shellcmd's one rule whatever the page's
// Mask: the sender's credentials (a signature too: the inspector cannot
// tell one from a fixed secret), a credential in the query; the headers a
// client sets for itself are left out, send's Content-Type as well, but
// not the sender's User-Agent, and curl's own Accept is removed from a
// call that came without one.
func TestCommandsMaskByTheOneRule(t *testing.T) {
	rec := record(1, "E", []byte(`{"a":"it's"}`), 200)
	rec.Query = "token=t0k&businessType=E"
	rec.Headers["Webhook-Signature"] = []string{"v1,abc="}
	rec.Headers["User-Agent"] = []string{"sender/1"}
	s := NewStore(10)
	c := s.Add(rec, nil)
	h := newHandler(Options{Token: testToken, Store: s, Origin: "http://127.0.0.1:8080"})
	curl, send := h.commands(c, "call-1.json")
	if want := `curl -X POST 'http://127.0.0.1:8080/hook?token=****&businessType=E' -H 'Accept: ' -H 'Authorization: Bearer ****' -H 'Content-Type: application/json' -H 'User-Agent: sender/1' -H 'Webhook-Signature: ****' -H 'X-Trace: trace-1' --data-binary '{"a":"it'\''s"}'`; curl != want {
		t.Errorf("curl =\n %s\nwant\n %s", curl, want)
	}
	if want := `whsim send --url 'http://127.0.0.1:8080/hook?token=****' --file call-1.json --event E -H 'Authorization: Bearer ****' -H 'User-Agent: sender/1' -H 'Webhook-Signature: ****' -H 'X-Trace: trace-1'`; send != want {
		t.Errorf("send =\n %s\nwant\n %s", send, want)
	}
}

// A query holding a raw '#' (a sender that writes its own request line;
// listen records it as sent): curl would take it for a fragment and send
// the query cut there, so the command gives the request line's target,
// credentials masked as in a URL.
func TestCommandsSendAHashInTheQuery(t *testing.T) {
	rec := record(1, "E", []byte(`{}`), 200)
	rec.Query = "businessType=E&n=ab#cd&token=t0k"
	s := NewStore(10)
	c := s.Add(rec, nil)
	h := newHandler(Options{Token: testToken, Store: s, Origin: "http://127.0.0.1:8080"})
	curl, _ := h.commands(c, "call-1.json")
	if want := `curl --request-target '/hook?businessType=E&n=ab#cd&token=****' -X POST 'http://127.0.0.1:8080/hook' -H `; !strings.HasPrefix(curl, want) {
		t.Errorf("curl =\n %s\nwant prefix\n %s", curl, want)
	}
}

// whsim send adds the call's businessType to --url and refuses a URL that
// has one: the copied send command carries the rest of the call's query,
// as it came, so it reaches the receiver with the query the call had, as
// the copied curl does (one whose businessType was not last gets no send
// command: TestNoSendCommandForAQuerySendWouldReorder).
func TestSendCommandKeepsTheQuery(t *testing.T) {
	tests := []struct{ query, url string }{
		{"businessType=E", "'http://127.0.0.1:8080/hook'"},
		{"", "'http://127.0.0.1:8080/hook'"},
		{"tenant=7&businessType=E", "'http://127.0.0.1:8080/hook?tenant=7'"},
		{"businessType=E&tenant=7&x=it's", `'http://127.0.0.1:8080/hook?tenant=7&x=it'\''s'`},
		{"a=1&businessType=E&b=%26&businessType=F", "'http://127.0.0.1:8080/hook?a=1&b=%26'"},
		{"business%54ype=E&a=1", "'http://127.0.0.1:8080/hook?a=1'"},
		{"a&b=", "'http://127.0.0.1:8080/hook?a&b='"},
		{"businessType=E&n=ab#cd", "'http://127.0.0.1:8080/hook?n=ab%23cd'"},
	}
	for _, tt := range tests {
		rec := record(1, "E", []byte(`{}`), 200)
		rec.Query = tt.query
		s := NewStore(10)
		c := s.Add(rec, nil)
		h := newHandler(Options{Token: testToken, Store: s, Origin: "http://127.0.0.1:8080"})
		_, send := h.commands(c, "call-1.json")
		if want := "whsim send --url " + tt.url + " --file "; !strings.HasPrefix(send, want) {
			t.Errorf("query %q: send = %s\nwant prefix %s", tt.query, send, want)
		}
	}
}

// The record's path is decoded (a call to /a%20b is "/a b"): the copy
// commands and the HAR URL escape it again, so curl and whsim send reach
// the path the call reached, with its query, rather than failing on a
// space or cutting the URL at a decoded "?" or "#".
func TestCommandsEscapeTheDecodedPath(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/hook", "/hook"},
		{"/a b", "/a%20b"},
		{"/a?b", "/a%3Fb"},
		{"/a#b", "/a%23b"},
		{"/100%", "/100%25"},
		{"/收款", "/%E6%94%B6%E6%AC%BE"},
	}
	for _, tt := range tests {
		rec := record(1, "E", []byte(`{}`), 200)
		rec.Path = tt.path
		s := NewStore(10)
		c := s.Add(rec, nil)
		h := newHandler(Options{Token: testToken, Store: s, Origin: "http://127.0.0.1:8080"})
		curl, send := h.commands(c, "call-1.json")
		if want := "curl -X POST 'http://127.0.0.1:8080" + tt.want + "?businessType=E' "; !strings.HasPrefix(curl, want) {
			t.Errorf("%q: curl = %s\nwant prefix %s", tt.path, curl, want)
		}
		if want := "whsim send --url 'http://127.0.0.1:8080" + tt.want + "' "; !strings.HasPrefix(send, want) {
			t.Errorf("%q: send = %s\nwant prefix %s", tt.path, send, want)
		}
		har := entryOf(c, "http://127.0.0.1:8080").Request.URL
		if u, err := url.Parse(har); err != nil || u.Path != tt.path || u.RawQuery != "businessType=E" {
			t.Errorf("%q: HAR URL %s: %v, want path %q and query businessType=E", tt.path, har, err, tt.path)
		}
	}
}

// inspect reads calls past its window back from the file it indexed. A
// file replaced at its path after (an atomic writer's rename: anonymize
// --out onto it, an editor, a rotation) must not have its records shown
// under the old calls' ids: the file indexed is the one read. One cut
// shorter than what was indexed is an error, not a wrong call.
func TestLoadFileReadsTheFileItIndexed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "calls.ndjson")
	write := func(p string, first int) {
		var file []byte
		for i := first; i < first+5; i++ {
			file, _ = capture.Append(file, record(i, "CREATE_RECEIVABLE_DOC", []byte(fmt.Sprintf(`{"requestId":"r-%d"}`, i)), 200))
		}
		if err := os.WriteFile(p, file, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(path, 1)
	s, _, err := LoadFile(context.Background(), path, nil, 2, func(*capture.Record) []validate.Finding { return nil })
	if err != nil {
		t.Fatal(err)
	}
	// Replaced by a rename: the same names, each record one call on.
	write(filepath.Join(dir, "new"), 2)
	if err := os.Rename(filepath.Join(dir, "new"), path); err != nil {
		t.Fatal(err)
	}
	for _, id := range []uint64{2, 3} {
		if c, err := s.Get(id); err != nil || c.RequestID != fmt.Sprintf("r-%d", id) {
			t.Errorf("call %d after the file was replaced: %+v, %v; want r-%d as indexed", id, c, err, id)
		}
	}
	// Cut short in place: what was indexed is not there any more.
	s, _, err = LoadFile(context.Background(), path, nil, 2, func(*capture.Record) []validate.Finding { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Get(1); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Errorf("call 1 after the file was emptied: %+v, %v; want an error saying the file changed", c, err)
	}
}

// A body sent gzip or deflate (Content-Encoding) is shown, searched and
// compared as the document it decodes to, as validate checks it, saying so;
// its raw bytes stay those sent. It used to show the compressed bytes:
// no tree, a search that found nothing of the document, a diff of bytes.
func TestDecodedBodyIsTheDocument(t *testing.T) {
	zipped := func(coding, doc string) []byte {
		var b bytes.Buffer
		var w io.WriteCloser = gzip.NewWriter(&b)
		if coding == "deflate" {
			w = zlib.NewWriter(&b)
		}
		io.WriteString(w, doc)
		w.Close()
		return b.Bytes()
	}
	s := NewStore(10)
	for i, tc := range []struct{ coding, doc string }{
		{"gzip", `{"requestId":"r-1","businessType":4010,"data":{"code":"CGFP-GZ","x":1}}`},
		{"deflate", `{"requestId":"r-2","businessType":4010,"data":{"code":"CGFP-GZ","x":2}}`},
		{"gzip", `not json`},
	} {
		rec := record(i+1, "CREATE_PURCHASE_ORDER_INVOICE", zipped(tc.coding, tc.doc), 200)
		rec.Headers.Set("Content-Encoding", tc.coding)
		s.Add(rec, nil)
	}
	srv := newTestServer(t, s, nil)
	var d detail
	get(t, srv.URL+"/api/calls/1", &d)
	if d.Tree == nil || d.Decoded != "gzip" || ridOf(d.summary) != "r-1" || !strings.Contains(d.DocNumber, "CGFP-GZ") || d.BodyEncoding != capture.Base64 {
		t.Errorf("gzip call: tree %v, decoded %q, requestId %q, document %q, raw %s; want the document's tree, gzip, r-1, CGFP-GZ, the base64 bytes sent",
			d.Tree != nil, d.Decoded, ridOf(d.summary), d.DocNumber, d.BodyEncoding)
	}
	get(t, srv.URL+"/api/calls/2", &d)
	if d.Tree == nil || d.Decoded != "deflate" || len(d.Document) != 2 {
		t.Errorf("deflate call: tree %v, decoded %q, %d calls about its document; want a tree, deflate, 2", d.Tree != nil, d.Decoded, len(d.Document))
	}
	var list []summary
	get(t, srv.URL+"/api/calls?q=CGFP-GZ", &list)
	if fmt.Sprint(ids(list)) != "[2 1]" {
		t.Errorf("search in the decoded documents found %v, want [2 1]", ids(list))
	}
	var df diff
	get(t, srv.URL+"/api/diff?a=1&b=2", &df)
	if got := fmt.Sprint(df.Differences); got != "[{data.x changed 1 2}]" {
		t.Errorf("diff = %s, want data.x only", got)
	}
	get(t, srv.URL+"/api/diff?a=1&b=3", &df)
	if len(df.Differences) != 1 || df.Differences[0].Kind != "body" || df.Differences[0].B != "not json" {
		t.Errorf("diff with a body that is not JSON: %+v, want the decoded bytes", df.Differences)
	}
}

// A body of many lines that each carry a field the spec does not know
// has a finding per field: 600,005 for one of 7 MB. A call keeps the
// first maxFindings, its verdict and count made of all: kept whole they
// cost memory the window's bound does not count (they stay when the body
// is shed), and the page got 97 MB of JSON and a list it could not build.
func TestACallKeepsTheFirstOfManyFindings(t *testing.T) {
	n := maxFindings + 500
	fs := make([]validate.Finding, n)
	for i := range fs {
		fs[i] = validate.Finding{Rule: "unknown-field", Severity: validate.Warning, Path: fmt.Sprintf("data.收款明细[%d].x", i), Message: "x is not a field of 收款明细"}
	}
	fs[n-1] = typeFinding // the one error, past the kept ones
	s := NewStore(10)
	s.Add(record(1, "CREATE_RECEIVABLE_DOC", []byte(receiptBad), 200), fs)
	srv := newTestServer(t, s, nil)

	var d detail
	get(t, srv.URL+"/api/calls/1", &d)
	if d.summary.Findings != n || d.Verdict != "invalid" || len(d.Findings) != maxFindings || d.Findings[0].Path != fs[0].Path {
		t.Errorf("detail: findings %d, verdict %s, %d listed (first %q); want %d, invalid, the first %d",
			d.summary.Findings, d.Verdict, len(d.Findings), d.Findings[0].Path, n, maxFindings)
	}
	var list []summary
	get(t, srv.URL+"/api/calls?verdict=invalid", &list)
	if len(list) != 1 || list[0].Findings != n {
		t.Errorf("verdict=invalid lists %+v, want call 1 with %d findings", list, n)
	}
	c, err := s.Get(1)
	if err != nil || cap(c.Findings) > maxFindings {
		t.Errorf("the call holds %d findings (%v), want at most %d", cap(c.Findings), err, maxFindings)
	}
}

// A listing says the newest call it looked at (Whsim-Newest), for a
// page's event stream to go on after: a search that found nothing within
// its bound gave the page no call to start after, and its stream, from
// 0, sent the older calls that "search older calls" then listed again,
// each twice on the page.
func TestListingSaysTheNewestCallItLookedAt(t *testing.T) {
	const bound = 200
	n := bound + 50
	s := bigFileStore(t, n)
	s.bound.calls = bound
	srv := newTestServer(t, s, nil)
	for _, tc := range []struct{ query, want string }{
		{"q=%22r-1%22&limit=1000", fmt.Sprint(n)}, // none of the newest 200 matches
		{"q=never", fmt.Sprint(n)},
		{"limit=10", fmt.Sprint(n)},
		{"limit=10&before=100", "99"},
		{"limit=10&before=100000", fmt.Sprint(n)},
	} {
		resp := get(t, srv.URL+"/api/calls?"+tc.query, nil)
		if got := resp.Header.Get(newestHeader); got != tc.want {
			t.Errorf("GET /api/calls?%s: %s %q, want %q", tc.query, newestHeader, got, tc.want)
		}
	}
}

// A body without a tree says why: too many values for one (past
// maxNodes), or not JSON. A valid JSON body of 350,000 values read "Not
// JSON: see the raw bytes below." on the page.
func TestDetailSaysWhyABodyHasNoTree(t *testing.T) {
	many := []byte("[" + strings.Repeat("0,", maxNodes) + "0]")
	s := NewStore(10)
	for i, body := range [][]byte{[]byte(`{"requestId":"r-1"}`), many, []byte(`{"requestId":`), nil} {
		s.Add(record(i+1, "CREATE_RECEIVABLE_DOC", body, 200), nil)
	}
	srv := newTestServer(t, s, nil)
	for id, want := range map[int]string{1: "", 2: "too-large", 3: "not-json", 4: ""} {
		var d detail
		get(t, fmt.Sprintf("%s/api/calls/%d", srv.URL, id), &d)
		if d.NoTree != want || (want == "" && id == 1) != (d.Tree != nil) {
			t.Errorf("call %d: noTree %q (tree %v), want %q", id, d.NoTree, d.Tree != nil, want)
		}
	}
}

// A call whose body came cut short (over listen's --max-body, answered
// 413; or its sender gone mid-body) is copied, downloaded and replayed
// as the bytes recorded, not the call made: the detail says so
// (cutShort), as whsim replay warns of it. A call kept whole, and one
// whose body left memory (its record's body emptied), are not cut short.
func TestDetailSaysABodyCameCutShort(t *testing.T) {
	short := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId"`), 413)
	short.Headers.Set("Content-Length", "12064887")
	whole := record(2, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-2"}`), 200)
	whole.Headers.Set("Content-Length", "19")
	kept := NewStore(10)
	kept.Add(short, nil)
	kept.Add(whole, nil)
	// Its body gone, a call's record has none: not cut short for that.
	gone := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1"}`), 200)
	gone.Headers.Set("Content-Length", "19")
	shed := NewStore(10).LimitBytes(1)
	shed.Add(gone, nil)
	shed.Add(record(2, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-2"}`), 200), nil)
	for _, tc := range []struct {
		name  string
		store *Store
		id    int
		want  string
	}{
		{"cut short", kept, 1, "12064887/12"},
		{"whole", kept, 2, ""},
		{"its body gone", shed, 1, ""},
	} {
		var d detail
		get(t, fmt.Sprintf("%s/api/calls/%d", newTestServer(t, tc.store, nil).URL, tc.id), &d)
		got := ""
		if d.CutShort != nil {
			got = fmt.Sprintf("%d/%d", d.CutShort.Declared, d.CutShort.Recorded)
		}
		if got != tc.want || (tc.name == "its body gone") != d.BodyGone {
			t.Errorf("%s: cutShort %q (bodyGone %v), want %q", tc.name, got, d.BodyGone, tc.want)
		}
	}
}

// A call whose body was over listen's --max-body, which listen did not
// keep, says so (bodyOverLimit): not cut short (none of it was recorded),
// and with no curl or whsim send command, which would send an empty body,
// a call the sender never made.
func TestDetailSaysABodyWasNotKept(t *testing.T) {
	over := record(1, "CREATE_RECEIVABLE_DOC", nil, 413)
	over.Headers.Set("Content-Length", "2993")
	over.BodyOverLimit = 100
	s := NewStore(10)
	s.Add(over, nil)
	var d detail
	get(t, newTestServer(t, s, nil).URL+"/api/calls/1", &d)
	if d.BodyOverLimit != 100 || d.CutShort != nil || d.Curl != "" || d.Send != "" {
		t.Errorf("bodyOverLimit %d, cutShort %+v, curl %q, send %q; want 100, none, no commands", d.BodyOverLimit, d.CutShort, d.Curl, d.Send)
	}
}

// Asked for directly, the body of a call listen did not keep is refused,
// saying so: its bytes were served as an empty body (200, 0 bytes, and a
// download of an empty call-1.json), and a diff compared nothing with the
// other call's body, as a body removed.
func TestRawAndDiffRefuseABodyNotKept(t *testing.T) {
	over := record(1, "CREATE_RECEIVABLE_DOC", nil, 413)
	over.Headers.Set("Content-Length", "2993")
	over.BodyOverLimit = 100
	s := NewStore(10)
	s.Add(over, nil)
	s.Add(record(2, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-2","businessType":5007,"data":{}}`), 200), nil)
	srv := newTestServer(t, s, nil)
	for _, path := range []string{"/api/calls/1/raw", "/api/calls/1/raw?download", "/api/diff?a=1&b=2", "/api/diff?a=2&b=1"} {
		var out map[string]any
		resp := get(t, srv.URL+path, &out)
		if resp.StatusCode != http.StatusGone || resp.Header.Get("Content-Disposition") != "" ||
			!strings.Contains(fmt.Sprint(out["error"]), "call 1: ") || !strings.Contains(fmt.Sprint(out["error"]), "its body was over listen's --max-body of 100 bytes and was not kept") {
			t.Errorf("GET %s of a body not kept: %d (%s) %v; want 410 saying it was not kept", path, resp.StatusCode, resp.Header.Get("Content-Disposition"), out)
		}
	}
	// A HAR has no word for it but a comment: its empty postData is not
	// the body sent.
	resp, err := apiGet(srv.URL + "/api/export?format=har")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var har struct {
		Log struct{ Entries []harEntry } `json:"log"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&har); err != nil || len(har.Log.Entries) != 2 {
		t.Fatalf("HAR: %v, %d entries", err, len(har.Log.Entries))
	}
	if c := har.Log.Entries[0].Comment; !strings.Contains(c, "was not kept") {
		t.Errorf("HAR entry of a body not kept: comment %q, want it to say so", c)
	}
}

// A request listen never read (the HTTP server refused its head, or
// listen's stop closed it as it arrived) has no body: the call says why,
// in words that tell the two apart, and offers no command, raw bytes or
// diff, which sent or served an empty body as the call's.
func TestDetailSaysARequestWasNotRead(t *testing.T) {
	refused := record(1, "CREATE_RECEIVABLE_DOC", nil, 400)
	refused.Capture, refused.Rejected = capture.VersionRejected, &capture.Rejected{Reason: "Bad Request: invalid header name", HeadBytes: 80}
	stopped := record(2, "CREATE_RECEIVABLE_DOC", nil, 0)
	stopped.Capture, stopped.Response = capture.VersionRejected, nil
	stopped.Rejected = &capture.Rejected{Reason: "listen was stopping (Ctrl-C or SIGTERM) when the request arrived, and closed its connection: no answer", HeadBytes: 90, ClosedAtStop: true}
	s := NewStore(10)
	s.Add(refused, nil)
	s.Add(stopped, nil)
	s.Add(record(3, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-3","businessType":5007,"data":{}}`), 200), nil)
	srv := newTestServer(t, s, nil)
	for _, tc := range []struct {
		id           int
		why          string
		closedAtStop bool
	}{
		{1, "the HTTP server refused it before listen could read it: no body was kept", false},
		{2, "listen's stop closed it unread as it arrived (Ctrl-C or SIGTERM): no body was kept", true},
	} {
		var d detail
		get(t, fmt.Sprintf("%s/api/calls/%d", srv.URL, tc.id), &d)
		if d.NotKept != tc.why || d.Curl != "" || d.Send != "" || d.Rejected == nil || d.Rejected.ClosedAtStop != tc.closedAtStop {
			t.Errorf("call %d: notKept %q, curl %q, send %q, rejected %+v; want %q, no commands, closedAtStop %v", tc.id, d.NotKept, d.Curl, d.Send, d.Rejected, tc.why, tc.closedAtStop)
		}
		for _, path := range []string{fmt.Sprintf("/api/calls/%d/raw", tc.id), fmt.Sprintf("/api/diff?a=%d&b=3", tc.id)} {
			var out map[string]any
			resp := get(t, srv.URL+path, &out)
			if resp.StatusCode != http.StatusGone || !strings.Contains(fmt.Sprint(out["error"]), tc.why) {
				t.Errorf("GET %s: %d %v; want 410 saying %q", path, resp.StatusCode, out, tc.why)
			}
		}
	}
}

// The copied whsim send command runs as printed and sends the call again,
// or is not offered, saying why: whsim send POSTs a spec event's JSON body
// uncoded, under its content type. A gzip call's send read the download's
// compressed bytes (exit 2: "not JSON or NDJSON"), one of an event the spec
// does not name was refused (exit 2: unknown event), one with no
// businessType went with the body's, a PUT went as a POST, one sent as
// text/plain went as application/json, and so did one sent without a
// Content-Type.
func TestSendCommandSendsTheCallOrIsNotOffered(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	io.WriteString(zw, `{"requestId":"r-1","businessType":5007,"data":{}}`)
	zw.Close()
	const ev = "CREATE_RECEIVABLE_DOC"
	tests := []struct {
		name   string
		edit   func(*capture.Record)
		send   string // a part of the command, "" for none
		noSend string // a part of the reason, "" for a command
	}{
		{"spec event, JSON", func(*capture.Record) {}, "--event CREATE_RECEIVABLE_DOC", ""},
		{"gzip", func(r *capture.Record) { r.Headers.Set("Content-Encoding", "gzip"); r.SetBody(zipped.Bytes()) }, "", "gzip"},
		{"identity coding", func(r *capture.Record) { r.Headers.Set("Content-Encoding", "identity") }, "--event CREATE_RECEIVABLE_DOC", ""},
		{"unknown event", func(r *capture.Record) { r.Query = "businessType=FOO" }, "", `"FOO"`},
		{"no businessType", func(r *capture.Record) { r.Query = "tenant=7" }, "", "no businessType"},
		{"event in another case", func(r *capture.Record) { r.Query = "businessType=create_receivable_doc" }, "", `"create_receivable_doc"`},
		{"PUT", func(r *capture.Record) { r.Method = "PUT" }, "", "PUT"},
		{"text/plain", func(r *capture.Record) { r.Headers.Set("Content-Type", "text/plain") }, "-H 'Content-Type: text/plain'", ""},
		// send gives every call its application/json: one that came
		// without a Content-Type went with one.
		{"no content type", func(r *capture.Record) { r.Headers.Del("Content-Type") }, "", "no Content-Type"},
		// send --file reads a file as its payloads: an array or NDJSON
		// went as one call each, a body that is not JSON or empty exit 2.
		{"array", func(r *capture.Record) { r.SetBody([]byte(`[{"a":1},{"b":2}]`)) }, "", "array"},
		{"ndjson", func(r *capture.Record) { r.SetBody([]byte("{\"a\":1}\n{\"b\":2}\n")) }, "", "not one JSON value"},
		{"not json", func(r *capture.Record) { r.SetBody([]byte("this is not JSON\n")) }, "", "not one JSON value"},
		{"empty", func(r *capture.Record) { r.SetBody(nil) }, "", "empty"},
		{"pretty object", func(r *capture.Record) { r.SetBody([]byte("{\n  \"a\": 1\n}\n")) }, "--event CREATE_RECEIVABLE_DOC", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := record(1, ev, []byte(`{"requestId":"r-1","businessType":5007,"data":{}}`), 200)
			tt.edit(rec)
			s := NewStore(10)
			s.Add(rec, nil)
			srv := newTestServer(t, s, nil)
			var d detail
			get(t, srv.URL+"/api/calls/1", &d)
			if d.Curl == "" {
				t.Errorf("curl = %q, want a command", d.Curl)
			}
			switch {
			case tt.send != "" && (!strings.Contains(d.Send, tt.send) || d.NoSend != ""):
				t.Errorf("send = %q, noSend %q; want a command with %q", d.Send, d.NoSend, tt.send)
			case tt.noSend != "" && (d.Send != "" || !strings.Contains(d.NoSend, tt.noSend)):
				t.Errorf("send = %q, noSend %q; want none, saying %q", d.Send, d.NoSend, tt.noSend)
			}
		})
	}
}

// A small body can ask for a huge tree: every node carries its whole path,
// so nesting and long keys multiply. A 10 KB body nested 5,000 deep gave
// a 38 MB detail; one nested 9,990 deep a detail of 200 and no bytes (the
// encoder's depth limit, met after the header), so the page could not open
// the call at all; a 10,000-byte key over 20,000 items, a 50 KB body, gave
// 201 MB in 7 s and 800 MB of listen's memory. Such a body has no tree, and
// says why; the raw bytes still show it. Past the decoder's 10,000 levels
// a body is not JSON, as the validator says of it.
func TestDetailOfAHostileBodyIsBounded(t *testing.T) {
	deep := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	longKey := []byte(`{"` + strings.Repeat("k", 10000) + `":[` + strings.Repeat("1,", 20000) + `1]}`)
	fine := []byte(`{"data":` + strings.Repeat(`{"收款单":`, 40) + `1` + strings.Repeat("}", 40) + `}`)
	notJSON := []byte(strings.Repeat("[", 300) + "x")
	bodies := [][]byte{deep(5000), deep(9990), deep(20000), longKey, fine, notJSON}
	s := NewStore(10)
	for i, body := range bodies {
		s.Add(record(i+1, "CREATE_RECEIVABLE_DOC", body, 200), nil)
	}
	srv := newTestServer(t, s, nil)
	for id, want := range map[int]string{1: "too-deep", 2: "too-deep", 3: "not-json", 4: "too-large", 5: "", 6: "not-json"} {
		resp, err := apiGet(fmt.Sprintf("%s/api/calls/%d", srv.URL, id))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var d detail
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Errorf("call %d: detail of %d bytes is no JSON: %v", id, len(raw), err)
			continue
		}
		if d.NoTree != want || (want == "") != (d.Tree != nil) {
			t.Errorf("call %d: noTree %q (tree %v), want %q", id, d.NoTree, d.Tree != nil, want)
		}
		if limit := 3*len(bodies[id-1]) + 64<<10; len(raw) > limit {
			t.Errorf("call %d: detail of %d bytes for a body of %d, want at most %d", id, len(raw), len(bodies[id-1]), limit)
		}
	}
}

// A credential in a call's query is masked where the page shows the
// query: the detail's "query" (the page's request line) read
// "POST /hook?businessType=…&token=QSECRET1" while its query table, the
// copied curl, the HAR and listen's own line and JSON masked it; and a
// search for the secret found the call, as one for a header's does not.
func TestDetailMasksTheQuerysCredentials(t *testing.T) {
	s := NewStore(10)
	rec := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1"}`), 200)
	rec.Query += "&token=QSECRET1&page=2"
	s.Add(rec, nil)
	srv := newTestServer(t, s, nil)
	var d detail
	get(t, srv.URL+"/api/calls/1", &d)
	if want := "businessType=CREATE_RECEIVABLE_DOC&token=****&page=2"; d.Query != want {
		t.Errorf("detail query %q, want %q", d.Query, want)
	}
	for q, want := range map[string]int{"QSECRET1": 0, "page=2": 1, "token=": 1} {
		var calls []summary
		get(t, srv.URL+"/api/calls?q="+url.QueryEscape(q), &calls)
		if len(calls) != want {
			t.Errorf("search %q: %d calls, want %d", q, len(calls), want)
		}
	}
}

// listen --forward-to with a credential in its URL: the page's forward
// section read "forward to http://u:FPASS@…/hook?token=FSECRET failed:
// Post "http://u:FPASS@…": …", where listen's own lines mask both.
func TestDetailMasksTheForwardURLsCredentials(t *testing.T) {
	s := NewStore(10)
	const u = "http://u:FPASS@127.0.0.1:3000/hook?token=FSECRET"
	failed := record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1"}`), 502)
	failed.Forward = &capture.Forward{URL: u, Error: `Post "` + u + `": connection refused`}
	answered := record(2, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-2"}`), 200)
	answered.Forward = &capture.Forward{URL: u, Status: 200}
	s.Add(failed, nil)
	s.Add(answered, nil)
	srv := newTestServer(t, s, nil)
	for id := 1; id <= 2; id++ {
		var d detail
		get(t, fmt.Sprintf("%s/api/calls/%d", srv.URL, id), &d)
		if d.Forward == nil {
			t.Fatalf("call %d: no forward", id)
		}
		for _, s := range []string{d.Forward.URL, d.Forward.Error} {
			if strings.Contains(s, "FPASS") || strings.Contains(s, "FSECRET") {
				t.Errorf("call %d: forward shows %q, want its credentials masked", id, s)
			}
		}
		if !strings.Contains(d.Forward.URL, "127.0.0.1:3000/hook") {
			t.Errorf("call %d: forward URL %q, want it to name the receiver", id, d.Forward.URL)
		}
	}
}

// A call's links to related calls stop at maxRelated: the detail says how
// many more there are on either side (the list said nothing of them), and
// that a count stopped at the walk's bound is a lower bound; null when
// none was left out.
func TestDetailCountsTheLinksNotShown(t *testing.T) {
	const n = maxRelated + 10
	s := NewStore(4 * maxRelated)
	body := []byte(`{"requestId":"r-1","businessType":4010,"data":{"code":"A"}}`)
	for i := 1; i <= n; i++ {
		s.Add(record(i, "CREATE_PURCHASE_ORDER_INVOICE", body, 200), nil)
	}
	s.Add(record(n+1, "CREATE_PURCHASE_ORDER_INVOICE", []byte(`{"requestId":"r-2","businessType":4010,"data":{"code":"B"}}`), 200), nil)
	srv := newTestServer(t, s, nil)
	for _, tt := range []struct {
		id               int
		older, newer     int
		first, last      uint64
		documentNotShown bool
	}{
		{n, 10, 0, 11, n, true},
		{1, 0, 10, 1, maxRelated, true},
		{30, 4, 6, 5, maxRelated + 4, true},
	} {
		var d detail
		get(t, srv.URL+fmt.Sprintf("/api/calls/%d", tt.id), &d)
		ns := d.DeliveriesNotShown
		if len(d.Deliveries) != maxRelated || d.Deliveries[0].ID != tt.first || d.Deliveries[maxRelated-1].ID != tt.last ||
			ns == nil || ns.Older != tt.older || ns.Newer != tt.newer || ns.OlderAtLeast {
			t.Errorf("call %d: %d deliveries (%v…), not shown %+v; want %d from %d to %d, %d older and %d newer not shown",
				tt.id, len(d.Deliveries), d.Deliveries[:min(1, len(d.Deliveries))], ns, maxRelated, tt.first, tt.last, tt.older, tt.newer)
		}
		if dn := d.DocumentNotShown; len(d.Document) != maxRelated || dn == nil || *dn != *ns {
			t.Errorf("call %d: %d about the document, not shown %+v; want %d, as the deliveries %+v", tt.id, len(d.Document), dn, maxRelated, ns)
		}
	}
	// Alone, or within the bound: nothing left out, said as null.
	var raw map[string]json.RawMessage
	get(t, srv.URL+fmt.Sprintf("/api/calls/%d", n+1), &raw)
	if string(raw["deliveriesNotShown"]) != "null" || string(raw["documentNotShown"]) != "null" {
		t.Errorf("a call alone: deliveriesNotShown %s, documentNotShown %s; want null", raw["deliveriesNotShown"], raw["documentNotShown"])
	}

	// Past the walk's bound (4×maxRelated links back): the count of the
	// older ones is a lower bound, and says so.
	big := NewStore(5 * maxRelated)
	for i := 1; i <= 5*maxRelated; i++ {
		big.Add(record(i, "CREATE_PURCHASE_ORDER_INVOICE", body, 200), nil)
	}
	var d detail
	get(t, newTestServer(t, big, nil).URL+fmt.Sprintf("/api/calls/%d", 5*maxRelated), &d)
	if ns := d.DeliveriesNotShown; ns == nil || ns.Older != 3*maxRelated || ns.Newer != 0 || !ns.OlderAtLeast {
		t.Errorf("past the bound: not shown %+v, want at least %d older", ns, 3*maxRelated)
	}
}

// A record whose body cannot be decoded (an encoding no listen writes, or
// base64 that is not) is listed with its body as stored, and told of at
// its line, Listed, as replay skips it with a warning: the page alone
// hid it (found by hk45).
func TestLoadFileTellsOfABodyNotDecodable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "calls.ndjson")
	file, _ := capture.Append(nil, record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-1"}`), 200))
	for _, enc := range []string{`"rot13"`, `"base64"`} {
		line := bytes.Replace(file[:bytes.IndexByte(file, '\n')+1], []byte(`"bodyEncoding":"utf8"`), []byte(`"bodyEncoding":`+enc), 1)
		file = append(file, line...)
	}
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	s, skipped, err := LoadFile(context.Background(), path, nil, 10, func(*capture.Record) []validate.Finding { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if s.Last() != 3 {
		t.Errorf("%d calls listed, want 3", s.Last())
	}
	want := []string{`2 true unknown body encoding "rot13"`, `3 true illegal base64 data at input byte 0`}
	var got []string
	for _, sk := range skipped {
		got = append(got, fmt.Sprint(sk.Line, " ", sk.Listed, " ", sk.Err))
	}
	if !slices.Equal(got, want) {
		t.Errorf("told of %q, want %q", got, want)
	}
}

// A call whose body names no requestId (none, or null) has requestId null
// in the list and in its detail; one that names an empty one "" (both
// were ""; the page showed "-" of both), as listen's JSON says them.
func TestRequestIDAbsentOrEmpty(t *testing.T) {
	t.Parallel()
	s := NewStore(10)
	s.Add(record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"businessType":5007,"data":{}}`), 200), nil)
	s.Add(record(2, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"","businessType":5007,"data":{}}`), 200), nil)
	s.Add(record(3, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":null,"businessType":5007,"data":{}}`), 200), nil)
	srv := newTestServer(t, s, nil)
	resp, err := apiGet(srv.URL + "/api/calls")
	if err != nil {
		t.Fatal(err)
	}
	list, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`"id":1,`, `"id":2,`, `"id":3,`} {
		i := strings.Index(string(list), want)
		if i < 0 {
			t.Fatalf("no %s in %s", want, list)
		}
		rest := string(list[i:])
		rid := rest[strings.Index(rest, `"requestId":`):]
		wantID := `"requestId":null,`
		if want == `"id":2,` {
			wantID = `"requestId":"",`
		}
		if !strings.HasPrefix(rid, wantID) {
			t.Errorf("call %s: %.30s, want %s", want, rid, wantID)
		}
	}
	for id, want := range map[string]string{"1": "<nil>", "2": `""`, "3": "<nil>"} {
		var d detail
		get(t, srv.URL+"/api/calls/"+id, &d)
		got := "<nil>"
		if d.RequestID != nil {
			got = strconv.Quote(*d.RequestID)
		}
		if got != want {
			t.Errorf("call %s: requestId %s, want %s", id, got, want)
		}
	}
}

// ridOf is a summary's requestId, "" for none.
func ridOf(s summary) string {
	if s.RequestID == nil {
		return ""
	}
	return *s.RequestID
}
