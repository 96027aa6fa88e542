package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// findChromium returns a Chromium or Chrome on PATH, "" when there is none.
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// inspectorUnderTest is `whsim listen --ui` running as a child process.
type inspectorUnderTest struct {
	webhook string // listen's URL, ending in /
	ui      string // the page's URL, ending in /
	token   string // the session's token
	stop    func() // interrupts listen and waits for it to end
}

// page is the URL listen printed: the page with the session's token.
func (l *inspectorUnderTest) page() string { return l.ui + "?token=" + l.token }

// get sends GET ui+path with the token, as the README tells curl to.
func (l *inspectorUnderTest) get(t *testing.T, path string) *http.Response {
	t.Helper()
	return apiGet(t, l.ui+path, l.token)
}

func apiGet(t *testing.T, url, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// splitToken splits the URL whsim printed into the page and the token.
func splitToken(t *testing.T, u string) (page, token string) {
	t.Helper()
	page, token, ok := strings.Cut(u, "?token=")
	if !ok || token == "" {
		t.Fatalf("the inspector's URL %q carries no token", u)
	}
	return page, token
}

// startListenUI starts listen --ui with a capture file and args.
func startListenUI(t *testing.T, args ...string) *inspectorUnderTest {
	t.Helper()
	return startListenUIWith(t, true, args...)
}

// startListenUIWith starts listen --ui with args, and a capture file when
// capture is set (without one, bodies that leave the inspector's memory
// are gone from it).
func startListenUIWith(t *testing.T, capture bool, args ...string) *inspectorUnderTest {
	t.Helper()
	dir := t.TempDir()
	ready := filepath.Join(dir, "url.txt")
	var stderr syncBuffer
	base := []string{"listen", "--addr", "127.0.0.1:0", "--ui", "127.0.0.1:0", "--ready-file", ready}
	if capture {
		base = append(base, "--capture", filepath.Join(dir, "calls.ndjson"))
	}
	cmd := exec.Command("whsim", append(base, args...)...)
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			cmd.Wait()
		})
	}
	t.Cleanup(stop)
	uiLine := regexp.MustCompile(`inspector on (http://\S+)`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(ready)
		if m := uiLine.FindStringSubmatch(stderr.String()); m != nil && len(b) > 0 {
			ui, token := splitToken(t, m[1])
			return &inspectorUnderTest{webhook: strings.TrimSpace(string(b)), ui: ui, token: token, stop: stop}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("listen --ui did not start: %s", stderr.String())
	return nil
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (l *inspectorUnderTest) post(t *testing.T, pathQuery string, body []byte, header http.Header) {
	t.Helper()
	req, err := http.NewRequest("POST", strings.TrimSuffix(l.webhook, "/")+pathQuery, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func generate(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := exec.Command("whsim", append([]string{"generate"}, args...)...).Output()
	if err != nil {
		t.Fatalf("whsim generate %v: %v", args, err)
	}
	return out
}

// TestInspectorInBrowser drives the page in headless Chromium against a
// real `whsim listen --ui`. With WHSIM_SCREENSHOTS=dir it also writes the
// README's screenshots there.
func TestInspectorInBrowser(t *testing.T) {
	ctx := newBrowser(t, 120*time.Second)
	l := startListenUI(t)

	first := generate(t, "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1", "--output", "ndjson")
	first = bytes.TrimSpace(first)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", first, nil)

	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	rowCount := func() int {
		var n int
		run("count rows", chromedp.Evaluate(`document.querySelectorAll("#rows tr").length`, &n))
		return n
	}
	// waitRows waits for the list to show want rows: the page redraws it
	// after a filter's event, so this waits on the page, not on a clock (the
	// 30 s bound only ends a test that would otherwise hang).
	waitRows := func(what string, want int) {
		t.Helper()
		cond := fmt.Sprintf(`document.querySelectorAll("#rows tr").length === %d`, want)
		if err := chromedp.Run(ctx, chromedp.Poll(cond, nil, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(30*time.Second))); err != nil {
			t.Fatalf("%s: %d rows, want %d (%v)", what, rowCount(), want, err)
		}
	}

	// A call that came before the page opened is listed.
	run("open the page", chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery))

	// A new call appears without a reload: an invalid one, a string where
	// a number belongs.
	bad := bytes.TrimSpace(generate(t, "--event", "CREATE_RECEIVABLE_DOC", "--seed", "2", "--output", "ndjson",
		"--set", `data.收款明细.0.应收金额="abc"`))
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", bad, nil)
	run("see the new call", chromedp.WaitVisible(`#rows tr[data-id="2"]`, chromedp.ByQuery))
	var top string
	run("read the top row", chromedp.AttributeValue(`#rows tr`, "data-id", &top, nil, chromedp.ByQuery))
	if top != "2" {
		t.Errorf("top row is call %s, want the newest (2)", top)
	}

	// Clicking it shows the body with the finding at its path.
	const path = "data.收款明细[0].应收金额"
	var note, findings string
	run("open the invalid call",
		chromedp.Click(`#rows tr[data-id="2"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="2"] .tree`, chromedp.ByQuery),
		chromedp.Text(`.tree [data-path="`+path+`"].has-finding .note`, &note, chromedp.ByQuery),
		chromedp.Text(`ul.findings`, &findings, chromedp.ByQuery))
	if !strings.Contains(note, "type") || !strings.Contains(note, "want number") || !strings.Contains(findings, path) {
		t.Errorf("finding at %s: note %q, list %q", path, note, findings)
	}
	// The finding's link scrolls the tree to its node.
	// The scroll may be smooth: wait until the node is in view (bounded),
	// not for a fixed time.
	inView := `(() => { const r = document.querySelector('.tree [data-path="` + path + `"]').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`
	run("follow the finding", chromedp.Click(`ul.findings a.path`, chromedp.ByQuery))
	if err := chromedp.Run(ctx, chromedp.Poll(inView, nil, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Errorf("the finding's node is not scrolled into view (%v)", err)
	}
	shot(t, ctx, "inspector-detail.png")

	// The filters and the search narrow the list.
	run("filter invalid", chromedp.Evaluate(`(() => { const s = document.getElementById("f-verdict"); s.value = "invalid"; s.dispatchEvent(new Event("change")); })()`, nil))
	waitRows("verdict=invalid", 1)
	var only string
	run("read the row", chromedp.AttributeValue(`#rows tr`, "data-id", &only, nil, chromedp.ByQuery))
	if only != "2" {
		t.Errorf("verdict=invalid lists call %s, want 2", only)
	}
	run("clear the filter", chromedp.Evaluate(`(() => { const s = document.getElementById("f-verdict"); s.value = ""; s.dispatchEvent(new Event("change")); })()`, nil))
	waitRows("no filter", 2)
	id1 := string(regexp.MustCompile(`"requestId":"([^"]+)"`).FindSubmatch(first)[1])
	run("search", chromedp.SendKeys(`#f-q`, id1[:13], chromedp.ByQuery))
	waitRows("search "+id1[:13], 1)
	run("read the row", chromedp.AttributeValue(`#rows tr`, "data-id", &only, nil, chromedp.ByQuery))
	if only != "1" {
		t.Errorf("search for call 1's requestId lists call %s", only)
	}
	run("clear the search", chromedp.Evaluate(`(() => { const q = document.getElementById("f-q"); q.value = ""; q.dispatchEvent(new Event("input")); })()`, nil))
	waitRows("no search", 2)

	// The keyboard: j moves down from the open call (2) to call 1, Enter
	// opens it, / goes to the search box.
	var focused string
	run("keyboard",
		chromedp.Evaluate(`document.activeElement.blur()`, nil),
		chromedp.KeyEvent("j"), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`.detail[data-id="1"]`, chromedp.ByQuery),
		chromedp.KeyEvent("k"), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`.detail[data-id="2"]`, chromedp.ByQuery),
		chromedp.KeyEvent("/"),
		chromedp.Evaluate(`document.activeElement.id`, &focused))
	if focused != "f-q" {
		t.Errorf("/ focused %q, want the search box", focused)
	}
	// The devtools protocol types the key's character after the page took
	// the keystroke; a person's "/" only moves the focus.
	run("leave the search box", chromedp.Evaluate(`(() => { const q = document.getElementById("f-q"); q.value = ""; q.blur(); })()`, nil))

	// Replay from the page reaches a receiver byte for byte.
	got := make(chan []byte, 1)
	gotQuery := make(chan string, 1)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotQuery <- r.URL.RawQuery
		got <- b
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"ok":true}`)
	}))
	defer recv.Close()
	var result, initial string
	run("replay call 1",
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] #replay-url`, chromedp.ByQuery),
		chromedp.Value(`#replay-url`, &initial, chromedp.ByQuery),
		chromedp.SetValue(`#replay-url`, recv.URL+"/erp", chromedp.ByQuery),
		chromedp.Click(`form.replay button`, chromedp.ByQuery),
		chromedp.WaitVisible(`#replay-result .status`, chromedp.ByQuery),
		chromedp.Text(`#replay-result`, &result, chromedp.ByQuery))
	select {
	case b := <-got:
		if !bytes.Equal(b, first) {
			t.Errorf("replayed body differs from the call:\n got %q\nwant %q", b, first)
		}
		if q := <-gotQuery; q != "businessType=CREATE_RECEIVABLE_DOC" {
			t.Errorf("replayed query %q", q)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the replay did not reach the receiver")
	}
	if !strings.Contains(result, "202") {
		t.Errorf("replay result shown as %q, want the receiver's 202", result)
	}
	// Without --forward-to and before any replay the box was empty, never
	// an address of whsim's choosing; now it starts at the last target.
	var next string
	// Clicked in the page, not by a node id: the list is drawn again as
	// the replay's answer comes, and a node looked up before that was
	// gone by the click ("Could not find node with given id", the
	// clean-clone CI rehearsal of e35f157d, under load).
	run("open call 2", chromedp.WaitVisible(`#rows tr[data-id="2"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#rows tr[data-id="2"]').click()`, nil),
		chromedp.WaitVisible(`.detail[data-id="2"] #replay-url`, chromedp.ByQuery),
		chromedp.Value(`#replay-url`, &next, chromedp.ByQuery))
	if initial != "" || next != recv.URL+"/erp" {
		t.Errorf("replay box: %q before a replay, %q after one to %s/erp", initial, next, recv.URL)
	}

	// A body, path and header full of markup render as text and run nothing.
	evil := []byte(`{"requestId":"<script>window.pwned=1</script>","businessType":5007,"data":{"x":"<img src=x onerror=\"window.pwned=2\">"}}`)
	l.post(t, "/%3Cimg%20src=x%20onerror=window.pwned=3%3E?businessType=CREATE_RECEIVABLE_DOC", evil,
		http.Header{"X-Note": {`<img src=x onerror="window.pwned=4">`}})
	var pwned bool
	var nodes int
	var tree, rid string
	// Clicked in the page, as call 2 is: the new call redraws the list,
	// and a row looked up before that was gone by the click.
	run("open the markup call",
		chromedp.WaitVisible(`#rows tr[data-id="3"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#rows tr[data-id="3"]').click()`, nil),
		chromedp.WaitVisible(`.detail[data-id="3"] .tree`, chromedp.ByQuery),
		chromedp.Sleep(300*time.Millisecond), // time for an onerror to fire, were there an img
		chromedp.Evaluate(`window.pwned !== undefined`, &pwned),
		chromedp.Evaluate(`document.querySelectorAll("main script, main img, main iframe, main [onerror]").length`, &nodes),
		chromedp.Text(`.detail[data-id="3"] .tree`, &tree, chromedp.ByQuery),
		chromedp.Text(`#rows tr[data-id="3"] td.rid`, &rid, chromedp.ByQuery))
	if pwned || nodes != 0 {
		t.Errorf("markup from the network ran or became elements: pwned=%v, %d elements", pwned, nodes)
	}
	if !strings.Contains(tree, `<img src=x onerror=\"window.pwned=2\">`) || rid != "<script>window.pwned=1</script>" {
		t.Errorf("markup not shown as text: tree %q, requestId cell %q", tree, rid)
	}

	// The list with a few more calls, for the README.
	if dir := os.Getenv("WHSIM_SCREENSHOTS"); dir != "" {
		send := exec.Command("whsim", "send", "--url", l.webhook+"webhook", "--event", "all", "--count", "2", "--seed", "7")
		if out, err := send.CombinedOutput(); err != nil {
			t.Fatalf("send: %v\n%s", err, out)
		}
		waitRows("after send", 11)
		run("select a call", chromedp.Click(`#rows tr[data-id="2"]`, chromedp.ByQuery),
			chromedp.WaitVisible(`.detail[data-id="2"]`, chromedp.ByQuery))
		shot(t, ctx, "inspector-list.png")
	}
}

// shot writes a screenshot of the page to $WHSIM_SCREENSHOTS/name.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("WHSIM_SCREENSHOTS")
	if dir == "" {
		return
	}
	var png []byte
	if err := chromedp.Run(ctx,
		emulation.SetDeviceMetricsOverride(1400, 900, 1, false),
		chromedp.CaptureScreenshot(&png)); err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
