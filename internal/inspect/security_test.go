package inspect

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/validate"
)

// Every /api/ request a page on another site could make through the
// user's browser is refused: by Sec-Fetch-Site, which browsers send even
// for an <img> that sends no Origin, and by the session token, which a
// foreign page has no way to learn or to make the browser send.
func TestAPIRefusesOtherSitesAndRequestsWithoutTheToken(t *testing.T) {
	srv := newTestServer(t, newTestStore(), nil)
	for _, path := range []string{"/api/calls", "/api/export?format=har", "/api/calls/1", "/api/info", "/api/stream"} {
		for _, tt := range []struct {
			site, auth string
			want       int
		}{
			{"", "Bearer " + testToken, 200},            // curl
			{"same-origin", "Bearer " + testToken, 200}, // the page
			{"none", "Bearer " + testToken, 200},        // the address bar
			{"cross-site", "Bearer " + testToken, 403},  // <img src=http://127.0.0.1:4040/api/export> anywhere
			{"same-site", "Bearer " + testToken, 403},   // a page on another port of this host
			{"cross-site", "", 403},
			{"", "", 401},
			{"same-origin", "", 401},
			{"", "Bearer wrong", 401},
			{"", "Basic " + testToken, 401},
		} {
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
			if tt.site != "" {
				req.Header.Set("Sec-Fetch-Site", tt.site)
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			cancel() // a stream answers 200 and goes on
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("GET %s, Sec-Fetch-Site %q, Authorization %q: %d, want %d", path, tt.site, tt.auth, resp.StatusCode, tt.want)
			}
		}
	}
	// A replay needs the token too.
	req, _ := http.NewRequest("POST", srv.URL+"/api/calls/1/replay", strings.NewReader(`{"url":"http://127.0.0.1:9/"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("replay without the token: %d", resp.StatusCode)
	}
}

// The page gets the token as the URL whsim printed: opening it draws a
// session and sends the browser to its page (/s/<id>/) without the token
// in the address, with a cookie only same-site requests carry
// (SameSite=Strict), out of the page's scripts' reach (HttpOnly) and
// sent only under that path; the cookie opens the API there.
func TestTheTokenURLSetsTheSessionCookie(t *testing.T) {
	srv := newTestServer(t, newTestStore(), nil)
	dir, c := openSession(t, srv.URL)
	u, _ := url.Parse(srv.URL)
	if c.Value == testToken || strings.Contains(c.Value, testToken) || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode ||
		!strings.HasPrefix(c.Name, "whsim-inspector-"+u.Port()+"-") || c.Path != dir {
		t.Errorf("cookie %+v for the page %s", c, dir)
	}
	if code := cookieGet(t, srv.URL+dir+"api/calls", "", c); code != 200 {
		t.Errorf("GET %sapi/calls with the cookie: %d", dir, code)
	}
	// The page is served under the session's path.
	if resp, err := http.Get(srv.URL + dir); err != nil || resp.StatusCode != 200 {
		t.Errorf("GET %s: %v %v", dir, resp.StatusCode, err)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	// The redirect stays on this host, whatever the path.
	resp, err := noRedirect.Get(srv.URL + "//evil.example/x?token=" + testToken + "&a=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") {
		t.Errorf("GET //evil.example/x?token=: Location %q", loc)
	}
	// A wrong token sets nothing.
	resp, err = noRedirect.Get(srv.URL + "/?token=guess")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(resp.Cookies()) != 0 || resp.Header.Get("Location") != "/" {
		t.Errorf("a wrong token set %v, sent to %q", resp.Cookies(), resp.Header.Get("Location"))
	}
	// The page itself holds nothing and is served to anyone.
	if resp, err := http.Get(srv.URL + "/"); err != nil || resp.StatusCode != 200 {
		t.Errorf("GET /: %v %v", resp.StatusCode, err)
	}
}

// TestNoRedirectCopiesTheToken: the token URL with a path ServeMux would
// clean (//, /./, /x/.., under a session's path) is answered by the page's
// own redirect, which drops the token, not by ServeMux's, which copied
// ?token= into its Location (a proxy's log, the browser's history).
func TestNoRedirectCopiesTheToken(t *testing.T) {
	srv := newTestServer(t, newTestStore(), nil)
	for _, p := range []string{"/?", "//?", "/./?", "/x/../?", "/x/..?", "/app.js/./?", "/s/AAAAAAAAAAAAAAAAAAAAAAAAAA/x/../?", "/?a=1&"} {
		req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		path, query, _ := strings.Cut(p, "?")
		req.URL.Path, req.URL.RawQuery = path, query+"token="+testToken
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusSeeOther || strings.Contains(loc, testToken) || !strings.HasPrefix(loc, "/s/") || len(resp.Cookies()) != 1 {
			t.Errorf("GET %s: %d, Location %q, cookies %v; want the session's page, the token not in it", req.URL.RequestURI(), resp.StatusCode, loc, resp.Cookies())
		}
	}
}

// openSession opens base's token URL and returns the page's path and
// the cookie it set.
func openSession(t *testing.T, base string) (dir string, c *http.Cookie) {
	t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(base + "/?token=" + testToken)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Cookies()
	dir = resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(dir, "/s/") || len(dir) != len("/s/")+sessionIDLen+1 || len(cookies) != 1 {
		t.Fatalf("GET /?token=: %d, Location %q, cookies %v", resp.StatusCode, dir, cookies)
	}
	return dir, cookies[0]
}

// cookieGet sends GET url as the page would, with c and Host host (""
// leaves it), and returns the status.
func cookieGet(t *testing.T, url, host string, c *http.Cookie) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.AddCookie(c)
	if host != "" {
		req.Host = host
	}
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The cookie is not the API's token and opens nothing outside its
// session: a server on another port of 127.0.0.1 that a browser sends it
// to (browsers keep cookies per host, not per port) cannot use it on the
// API's own paths, under another session's path, with a Host on another
// port, or against another inspector process; the Bearer token still
// opens the API for scripts on both paths.
func TestTheSessionCookieOpensOnlyItsSessionOnItsPort(t *testing.T) {
	st := newTestStore()
	h := newHandler(Options{Token: testToken, Store: st, Mask: mask})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	dir, c := openSession(t, srv.URL)
	otherDir, _ := openSession(t, srv.URL)
	// Another process with the same --ui-token: another key.
	h2 := newHandler(Options{Token: testToken, Store: st, Mask: mask})
	srv2 := httptest.NewServer(h2)
	t.Cleanup(srv2.Close)
	u2, _ := url.Parse(srv2.URL)
	// The cookie's name and value as they would be for srv2's port.
	moved := &http.Cookie{Name: strings.Replace(c.Name, "-"+u.Port()+"-", "-"+u2.Port()+"-", 1), Value: c.Value}
	for _, tt := range []struct {
		what, url, host string
		c               *http.Cookie
		want            int
	}{
		{"its session", srv.URL + dir + "api/export?format=ndjson", "", c, 200},
		{"the API's own path", srv.URL + "/api/export?format=ndjson", "", c, 401},
		{"the token as the cookie's value", srv.URL + dir + "api/export?format=ndjson", "", &http.Cookie{Name: c.Name, Value: testToken}, 401},
		{"the old cookie", srv.URL + "/api/export?format=ndjson", "", &http.Cookie{Name: "whsim-inspector-" + u.Port(), Value: testToken}, 401},
		{"another session's path", srv.URL + otherDir + "api/export?format=ndjson", "", c, 401},
		{"a Host on another port", srv.URL + dir + "api/export?format=ndjson", "127.0.0.1:1", c, 401},
		{"another process, the Host of the first", srv2.URL + dir + "api/export?format=ndjson", u.Host, c, 401},
		{"another process, its own port", srv2.URL + dir + "api/export?format=ndjson", "", moved, 401},
	} {
		if got := cookieGet(t, tt.url, tt.host, tt.c); got != tt.want {
			t.Errorf("%s: GET %s: %d, want %d", tt.what, tt.url, got, tt.want)
		}
	}
	for _, path := range []string{"/api/export?format=ndjson", dir + "api/export?format=ndjson"} {
		if resp := get(t, srv.URL+path, nil); resp.StatusCode != 200 {
			t.Errorf("GET %s with the Bearer token: %d", path, resp.StatusCode)
		}
	}
}

// A handler's token is drawn when none is given, and differs per run.
func TestNewDrawsAToken(t *testing.T) {
	a, b := newHandler(Options{Store: NewStore(1)}), newHandler(Options{Store: NewStore(1)})
	if len(a.Token()) < 20 || a.Token() == b.Token() {
		t.Errorf("tokens %q and %q", a.Token(), b.Token())
	}
}

// At most MaxStreams streams are open at once; one that ends frees its
// place.
func TestStreamClientCap(t *testing.T) {
	const limit = 3
	srv := httptest.NewServer(newHandler(Options{Token: testToken, Store: newTestStore(), MaxStreams: limit}))
	defer srv.Close()
	open := func() (*http.Response, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/stream", nil)
		resp, err := doAPI(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp, cancel
	}
	var cancels []context.CancelFunc
	for range limit {
		resp, cancel := open()
		if resp.StatusCode != 200 {
			t.Fatalf("stream within the cap: %d", resp.StatusCode)
		}
		// Reading the first event shows the stream holds its place.
		(&sse{r: bufio.NewReader(resp.Body)}).next(t)
		cancels = append(cancels, cancel)
	}
	resp, cancel := open()
	b, _ := io.ReadAll(resp.Body)
	cancel()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "event streams are open") {
		t.Fatalf("stream past the cap: %d %s", resp.StatusCode, b)
	}
	cancels[0]() // the client goes away: its place is freed
	for i := 0; ; i++ {
		resp, cancel := open()
		ok := resp.StatusCode == 200
		cancel()
		resp.Body.Close()
		if ok {
			break
		}
		if i == 10000 {
			t.Fatal("a closed stream's place was never freed")
		}
	}
	for _, c := range cancels[1:] {
		c()
	}
}

// A stream asked to start after a call that does not exist yet is refused:
// it would send nothing until the store caught up.
func TestStreamAfterPastTheNewestIsRefused(t *testing.T) {
	srv := newTestServer(t, newTestStore(), nil) // three calls
	for _, tt := range []struct {
		after, lastID string
		want          int
	}{
		{"3", "", 200},
		{"4", "", 400},
		{"", "99", 400},
		{"x", "", 400},
		{"18446744073709551615", "", 400},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/stream?after="+tt.after, nil)
		if tt.lastID != "" {
			req.Header.Set("Last-Event-ID", tt.lastID)
		}
		resp, err := doAPI(req)
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("after %q, Last-Event-ID %q: %d, want %d", tt.after, tt.lastID, resp.StatusCode, tt.want)
		}
	}
}

// bigFileStore is a capture file of n calls, loaded with a window of 10.
func bigFileStore(t *testing.T, n int) *Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "calls.ndjson")
	file, _, err := capture.OpenFile(path, capture.SyncNever)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if _, err := file.Write(record(i, "CREATE_RECEIVABLE_DOC", []byte(fmt.Sprintf(`{"requestId":"r-%d"}`, i)), 200)); err != nil {
			t.Fatal(err)
		}
	}
	file.Close()
	return loadFile(t, path, 10, func(*capture.Record) []validate.Finding { return nil })
}

// A search whose client goes away stops: it looks at no more calls.
func TestSearchStopsWhenItsClientGoesAway(t *testing.T) {
	s := bigFileStore(t, 500)
	ctx, cancel := context.WithCancel(context.Background())
	var looked atomic.Int64
	f := filter{Query: "never there", Mask: func(h http.Header) http.Header {
		// Mask runs once for each call the search looks at.
		if looked.Add(1) == 20 {
			cancel()
		}
		return h
	}}
	calls, _, err := s.Newest(ctx, 0, f, 10)
	if err != context.Canceled || len(calls) != 0 {
		t.Errorf("Newest = %d calls, %v; want context.Canceled", len(calls), err)
	}
	if n := looked.Load(); n > 21 {
		t.Errorf("looked at %d calls after its client left at 20", n)
	}

	// Through the API: the request's context is the client's.
	looked.Store(0)
	ctx, cancel = context.WithCancel(context.Background())
	h := newHandler(Options{Token: testToken, Store: s, Mask: func(h http.Header) http.Header {
		if looked.Add(1) == 20 {
			cancel()
		}
		return h
	}})
	req := httptest.NewRequestWithContext(ctx, "GET", "/api/calls?q=never", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	h.ServeHTTP(httptest.NewRecorder(), req)
	if n := looked.Load(); n > 21 {
		t.Errorf("the API's search looked at %d calls after its client left at 20", n)
	}
}

// One request's search looks at no more than its bound of calls (scanCalls)
// and says where the rest begins.
func TestSearchIsBoundedPerRequest(t *testing.T) {
	const bound = 200
	n := bound + 50
	s := bigFileStore(t, n)
	s.bound.calls = bound
	var looked atomic.Int64
	srv := httptest.NewServer(newHandler(Options{Token: testToken, Store: s, Mask: func(h http.Header) http.Header {
		looked.Add(1)
		return h
	}}))
	defer srv.Close()
	var calls []summary
	resp := get(t, srv.URL+"/api/calls?q=%22r-1%22&limit=1000", &calls)
	next := resp.Header.Get(nextHeader)
	if looked.Load() > bound || next != fmt.Sprint(n-bound+1) {
		t.Errorf("looked at %d calls (bound %d), %s %q", looked.Load(), bound, nextHeader, next)
	}
	// Going on from there finds the rest, and says it reached the start.
	var rest []summary
	resp = get(t, srv.URL+"/api/calls?q=%22r-1%22&limit=1000&before="+next, &rest)
	if resp.Header.Get(nextHeader) != "" || len(rest) == 0 || rest[len(rest)-1].ID != 1 {
		t.Errorf("the rest: %d calls, %s %q", len(rest), nextHeader, resp.Header.Get(nextHeader))
	}
}

// The export of a store larger than its window is the file, in order,
// har included as one JSON document, read one call at a time.
func TestExportStreamsPastTheWindow(t *testing.T) {
	s := bigFileStore(t, 100)
	srv := newTestServer(t, s, nil)
	resp, err := apiGet(srv.URL + "/api/export?format=ndjson")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if lines := strings.Count(string(b), "\n"); lines != 100 || !strings.HasPrefix(string(b), `{"capture":`) {
		t.Errorf("ndjson export: %d lines", lines)
	}
	var har har
	resp = get(t, srv.URL+"/api/export?format=har", &har)
	if len(har.Log.Entries) != 100 || har.Log.Version != "1.2" || har.Log.Creator.Version != "v1" || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("har: %d entries, %+v", len(har.Log.Entries), har.Log.Creator)
	}
	// A canceled export stops at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	seen := 0
	if err := s.Each(ctx, func(*call) error { seen++; return nil }); err != context.Canceled || seen != 0 {
		t.Errorf("Each after cancel: %v, %d calls", err, seen)
	}
}

func TestMillisTime(t *testing.T) {
	loc := shanghai()
	for _, tt := range []struct{ raw, want string }{
		{"1791388800000", "2026-10-08 00:00:00.000 Asia/Shanghai"}, // midnight in Shanghai is 16:00 UTC the day before
		{"0", "1970-01-01 08:00:00.000 Asia/Shanghai"},
		{"1791388800123", "2026-10-08 00:00:00.123 Asia/Shanghai"},
		{"-1", ""},
		{"1.5", ""},
		{"1e12", ""},
		{"99999999999999999999", ""},
	} {
		if got := millisTime(tt.raw, loc); got != tt.want {
			t.Errorf("MillisTime(%s) = %q, want %q", tt.raw, got, tt.want)
		}
	}
	if !millisFields()["createTime"] || !millisFields()["业务日期"] || !millisFields()["到期日"] || millisFields()["code"] {
		t.Errorf("millisecond fields from the spec: %v", millisFields())
	}
}

// The detail marks the spec's millisecond fields with their date.
func TestDetailShowsShanghaiDates(t *testing.T) {
	s := NewStore(10)
	s.Add(record(1, "CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r","data":{"收款单":{"业务日期":1791388800000,"汇率":1791388800000}}}`), 200), nil)
	srv := newTestServer(t, s, nil)
	var d detail
	get(t, srv.URL+"/api/calls/1", &d)
	b, _ := json.Marshal(d.Tree)
	if strings.Count(string(b), `"time":"2026-10-08 00:00:00.000 Asia/Shanghai"`) != 1 {
		t.Errorf("tree %s: want one date, on 业务日期 only", b)
	}
}
