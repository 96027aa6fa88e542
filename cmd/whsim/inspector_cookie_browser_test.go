package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Browsers keep cookies per host, not per port: a page served from
// another port of 127.0.0.1, opened in the same browser after the
// inspector, gets whatever cookies the inspector set for 127.0.0.1 that
// its paths match. Whatever it gets must not open the inspector's API,
// whichever of the inspector's paths it is replayed to.
func TestInspectorCookieDoesNotOpenTheAPIFromAnotherPort(t *testing.T) {
	ctx := newBrowser(t, 90*time.Second)
	l := startListenUI(t)
	const secret = "Bearer captured-erp-secret-0123456789"
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{}}`),
		http.Header{"Authorization": {secret}})

	// The other local server: it keeps the Cookie headers it is sent.
	var mu sync.Mutex
	var cookies []string
	requests := 0
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		cookies = append(cookies, r.Header.Values("Cookie")...)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>another local server</title><img src="/pixel.png">`)
	}))
	defer other.Close()

	// The inspector's page works in this browser: its own cookie opens
	// the API (the row is listed through it).
	var dir string
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()),
		chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.Evaluate(`location.pathname`, &dir)); err != nil {
		t.Fatalf("open the inspector: %v", err)
	}
	// Then the other server's pages, at the paths a page of its own could
	// name: its root, the inspector's API paths, another session's path.
	for _, p := range []string{"/", "/api/export?format=ndjson", "/s/AAAAAAAAAAAAAAAAAAAAAAAAAA/api/export?format=ndjson"} {
		if err := chromedp.Run(ctx, chromedp.Navigate(other.URL+p)); err != nil {
			t.Fatalf("open %s%s: %v", other.URL, p, err)
		}
	}
	mu.Lock()
	got, n := append([]string(nil), cookies...), requests
	mu.Unlock()
	if n == 0 {
		t.Fatal("the browser never reached the other server")
	}
	// Replay every cookie it got to the inspector, on the API's own path
	// and under the inspector tab's session path, as the other server's
	// owner would with curl.
	base := strings.TrimSuffix(l.ui, "/")
	for _, c := range got {
		for _, p := range []string{"/api/export?format=ndjson", dir + "api/export?format=ndjson"} {
			req, _ := http.NewRequest("GET", base+p, nil)
			req.Header.Set("Cookie", c)
			resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || strings.Contains(string(body), "captured-erp-secret") {
				t.Errorf("the cookie another port got (%q) opens %s%s: %d", c, base, p, resp.StatusCode)
			}
		}
	}
	t.Logf("the other port got %d requests and the cookies %q", n, got)
}
