package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser starts headless Chromium for a test, skipping without one.
func browser(t *testing.T) (context.Context, func(what string, actions ...chromedp.Action)) {
	t.Helper()
	ctx := newBrowser(t, 120*time.Second)
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	return ctx, run
}

// No page on another site can use the inspector through the browser, even
// once the user has opened it (the session cookie is set): an <img> sends
// no Origin, but Chromium says where it comes from (Sec-Fetch-Site), and
// the cookie is not sent along: not across sites (SameSite=Strict), and
// not to the API's own paths on this host either (its Path is the
// session's /s/<id>/, which a page elsewhere does not know).
func TestInspectorRefusesOtherSitesInBrowser(t *testing.T) {
	_, run := browser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC",
		bytes.TrimSpace(generate(t, "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1", "--output", "ndjson")), nil)

	// The browser reaches the inspector through a proxy that notes, for
	// each API request, what came back and whether the cookie went along.
	type seenReq struct {
		status int
		site   string
		cookie bool
	}
	var mu sync.Mutex
	seen := map[string]seenReq{}
	target, _ := url.Parse(l.ui)
	proxy := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) { pr.Out.URL.Scheme, pr.Out.URL.Host = "http", target.Host }, // Host stays the proxy's
		ModifyResponse: func(resp *http.Response) error {
			r := resp.Request
			uri := r.URL.RequestURI()
			if rest, ok := strings.CutPrefix(uri, "/s/"); ok && len(rest) > 26 { // the session's page: /s/<id>/
				uri = rest[26:]
			}
			if strings.HasPrefix(uri, "/api/") {
				mu.Lock()
				seen[uri] = seenReq{resp.StatusCode, r.Header.Get("Sec-Fetch-Site"), r.Header.Get("Cookie") != ""}
				mu.Unlock()
			}
			return nil
		},
	})
	defer func() { proxy.CloseClientConnections(); proxy.Close() }() // the page's event stream may still be open
	got := func(u string) seenReq {
		mu.Lock()
		defer mu.Unlock()
		return seen[u]
	}
	run("open the inspector (sets the session cookie)",
		chromedp.Navigate(proxy.URL+"/?token="+l.token), chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery))
	if r := got("/api/calls?limit=200"); r.status != 200 || r.site != "same-origin" || !r.cookie {
		t.Fatalf("the page's own request: %+v, want 200, same-origin, with the cookie", r)
	}

	const export, calls = "/api/export?format=ndjson", "/api/calls/1"
	hostile := []byte(`<!doctype html><title>elsewhere</title><img src="` + proxy.URL + export + `"><img src="` + proxy.URL + calls + `">`)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(hostile)
	}))
	elsewhere.Listener = ln
	elsewhere.Start()
	defer elsewhere.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, tt := range []struct {
		page, site string
		cookie     bool
	}{
		{fmt.Sprintf("http://localhost:%d/", port), "cross-site", false}, // another site: SameSite=Strict keeps the cookie back
		{fmt.Sprintf("http://127.0.0.1:%d/", port), "same-site", false},  // this host, another port: the cookie's Path keeps it back
	} {
		mu.Lock()
		clear(seen)
		mu.Unlock()
		run("open "+tt.page, chromedp.Navigate(tt.page), chromedp.WaitReady(`img`, chromedp.ByQuery))
		for _, u := range []string{export, calls} {
			for i := 0; got(u).status == 0 && i < 400; i++ {
				time.Sleep(25 * time.Millisecond)
			}
			if r := got(u); r.status != http.StatusForbidden || r.site != tt.site || r.cookie != tt.cookie {
				t.Errorf("a page on %s loading %s: %+v, want 403, Sec-Fetch-Site %s, cookie %v", tt.page, u, r, tt.site, tt.cookie)
			}
		}
	}
}

// The page shows what listen prints under each call: its FLAG lines, that
// its requestId was seen before, and the calls about the same document,
// linked; millisecond timestamps with their date in Asia/Shanghai; a link
// of its own for each call; and the replay box starts at --forward-to.
func TestInspectorShowsWhatTheTerminalShows(t *testing.T) {
	ctx, run := browser(t)
	// The receiver behind listen accepts everything once and refuses a
	// re-delivery, as a careless deduplicating receiver does.
	var mu sync.Mutex
	seen := map[string]bool{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		id := regexp.MustCompile(`"requestId":"([^"]+)"`).FindSubmatch(b)
		mu.Lock()
		defer mu.Unlock()
		if id != nil && seen[string(id[1])] {
			w.WriteHeader(http.StatusConflict)
			return
		}
		if id != nil {
			seen[string(id[1])] = true
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer recv.Close()
	forward := recv.URL + "/erp"
	l := startListenUI(t, "--forward-to", forward)

	const doc = "SKD-LINK-1"
	create := bytes.TrimSpace(generate(t, "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1", "--output", "ndjson",
		"--set", `data.收款单.收款单编号="`+doc+`"`))
	bad := bytes.TrimSpace(generate(t, "--event", "CREATE_RECEIVABLE_DOC", "--seed", "2", "--output", "ndjson",
		"--set", `data.收款明细.0.应收金额="abc"`))
	void := bytes.TrimSpace(generate(t, "--event", "ABANDON_RECEIVABLE_DOC", "--seed", "3", "--output", "ndjson",
		"--set", `data.收款单.收款单编号="`+doc+`"`))
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", create, nil) // 1
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", bad, nil)    // 2: accepted though invalid
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", create, nil) // 3: a re-delivery, refused
	l.post(t, "/webhook?businessType=ABANDON_RECEIVABLE_DOC", void, nil)  // 4: the void of call 1's document

	// A call's link opens it, on a page opened at that link.
	var title string
	run("open call 2 by its link", chromedp.Navigate(l.page()+"#/calls/2"),
		chromedp.WaitVisible(`.detail[data-id="2"]`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="2"] .reqline`, &title, chromedp.ByQuery))
	if !strings.Contains(title, "/webhook") {
		t.Errorf("call 2's detail: %q", title)
	}
	var flags, mark string
	run("read call 2's FLAG lines", chromedp.Text(`.detail[data-id="2"] ul.flags`, &flags, chromedp.ByQuery),
		chromedp.Text(`#rows tr[data-id="2"] .flag`, &mark, chromedp.ByQuery))
	if !strings.Contains(flags, "FLAG") || !strings.Contains(flags, "rejects-malformed") || !strings.Contains(flags, "answered 200") || !strings.Contains(mark, "FLAG") {
		t.Errorf("call 2's flags: %q, row mark %q", flags, mark)
	}

	// The re-delivery: marked in the list, flagged in the detail.
	var dup, dupFlags, deliveries string
	run("open the re-delivery", chromedp.WaitVisible(`#rows tr[data-id="4"]`, chromedp.ByQuery),
		chromedp.Text(`#rows tr[data-id="3"] .dup`, &dup, chromedp.ByQuery),
		chromedp.Click(`#rows tr[data-id="3"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="3"]`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="3"] ul.flags`, &dupFlags, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="3"] p.links.deliveries`, &deliveries, chromedp.ByQuery))
	if !strings.Contains(dup, "#1") || !strings.Contains(dupFlags, "duplicates") || !strings.Contains(deliveries, "#1") || !strings.Contains(deliveries, "#3") {
		t.Errorf("re-delivery: row mark %q, flags %q, deliveries %q", dup, dupFlags, deliveries)
	}
	var hash string
	run("its address", chromedp.Evaluate(`location.hash`, &hash))
	if hash != "#/calls/3" {
		t.Errorf("clicking call 3 put %q in the address, want #/calls/3", hash)
	}

	// The void links to its document's creation, and back.
	var docLinks string
	run("open the void", chromedp.Click(`#rows tr[data-id="4"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="4"] p.links.document`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="4"] p.links.document`, &docLinks, chromedp.ByQuery))
	if !strings.Contains(docLinks, doc) || !strings.Contains(docLinks, "#1 CREATE_RECEIVABLE_DOC") || !strings.Contains(docLinks, "#4 ABANDON_RECEIVABLE_DOC") {
		t.Errorf("the void's document links: %q", docLinks)
	}
	var back string
	run("follow the link to the creation", chromedp.Click(`.detail[data-id="4"] p.links.document a[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] p.links.document`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="1"] p.links.document`, &back, chromedp.ByQuery))
	if !strings.Contains(back, "#4 ABANDON_RECEIVABLE_DOC") {
		t.Errorf("the creation's document links: %q", back)
	}

	// 业务日期 in milliseconds, with its date in Shanghai beside it.
	ms := regexp.MustCompile(`"业务日期":(\d+)`).FindSubmatch(create)
	n, _ := strconv.ParseInt(string(ms[1]), 10, 64)
	want := time.UnixMilli(n).In(time.FixedZone("CST", 8*3600)).Format("2006-01-02 15:04:05.000") + " Asia/Shanghai"
	var when, num string
	run("read the business date",
		chromedp.Text(`.detail[data-id="1"] .tree [data-path="data.收款单.业务日期"] .when`, &when, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="1"] .tree [data-path="data.收款单.业务日期"] .numv`, &num, chromedp.ByQuery))
	if when != want || num != string(ms[1]) {
		t.Errorf("业务日期 shown as %q beside %q, want %q beside %s", when, num, want, ms[1])
	}
	shot(t, ctx, "inspector-links.png")

	// The replay box starts at --forward-to's URL; after a replay
	// elsewhere, at that target, reload or not.
	var box string
	run("read the replay box", chromedp.Value(`#replay-url`, &box, chromedp.ByQuery))
	if box != forward {
		t.Errorf("replay box %q, want --forward-to's %q", box, forward)
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) }))
	defer other.Close()
	run("replay elsewhere", chromedp.SetValue(`#replay-url`, other.URL+"/b", chromedp.ByQuery),
		chromedp.Click(`form.replay button`, chromedp.ByQuery),
		chromedp.WaitVisible(`#replay-result .status`, chromedp.ByQuery),
		chromedp.Navigate(l.page()+"#/calls/2"),
		chromedp.WaitVisible(`.detail[data-id="2"] #replay-url`, chromedp.ByQuery),
		chromedp.Value(`#replay-url`, &box, chromedp.ByQuery))
	if box != other.URL+"/b" {
		t.Errorf("replay box after a replay to %s/b and a reload: %q", other.URL, box)
	}
}
