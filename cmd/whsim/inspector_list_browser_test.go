package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// newBrowser starts headless Chromium for a test, its tab bounded by
// limit; it skips the test where there is none or with -short.
func newBrowser(t *testing.T, limit time.Duration) context.Context {
	t.Helper()
	chrome := findChromium()
	if chrome == "" {
		t.Skip("no Chromium on PATH (chromium, chromium-browser or google-chrome): the browser tests need one")
	}
	if testing.Short() {
		t.Skip("-short: the browser tests start Chromium")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.NoSandbox,
		chromedp.WindowSize(1400, 900), chromedp.Flag("disable-dev-shm-usage", true))
	// Started here, and again when it exits before it listens: on a
	// loaded CI machine Chromium now and then crashed as it started
	// ("chrome failed to start", crashpad's lines), which says nothing of
	// the page under test.
	for try := 1; ; try++ {
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelTab := chromedp.NewContext(actx)
		// The first Run starts the browser, bound to the context it is
		// given: the limited one, which ends it with the test.
		ctx, cancelTime := context.WithTimeout(ctx, limit)
		err := chromedp.Run(ctx)
		if err == nil {
			t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
			return ctx
		}
		cancelTime()
		cancelTab()
		cancelAlloc()
		if try == 3 || !strings.Contains(err.Error(), "chrome failed to start") {
			t.Fatalf("start Chromium (try %d of 3): %v", try, err)
		}
		t.Logf("Chromium exited as it started (try %d of 3), started again: %v", try, err)
	}
}

// newInspectorBrowser is newBrowser for the inspector's tests.
func newInspectorBrowser(t *testing.T) context.Context {
	t.Helper()
	return newBrowser(t, 120*time.Second)
}

// waitJS waits until the expression is true on the page: it is checked on
// each change of the DOM, not on a clock (the bound only ends a test that
// would otherwise hang).
func waitJS(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Poll(cond, nil, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		t.Fatalf("%s: %s never held (%v)", what, cond, err)
	}
}

// The page keeps its newest 1,000 rows: a live list that grew past them
// drops the oldest and offers "load older calls", which must bring them
// back. It did nothing: only a listing set where to go on, and a page
// opened before the calls came had none. The rows it loads stay as new
// calls come.
func TestInspectorLoadsOlderCallsAfterTheLiveListGrewPastItsRows(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#list-empty`, chromedp.ByQuery)); err != nil {
		t.Fatalf("open the page: %v", err)
	}
	const n = 1005 // past the page's 1,000 rows
	send := exec.Command("whsim", "send", "--url", l.webhook+"webhook", "--event", "CREATE_RECEIVABLE_DOC",
		"--count", fmt.Sprint(n), "--concurrency", "8", "--seed", "3")
	if out, err := send.CombinedOutput(); err != nil {
		t.Fatalf("send: %v\n%s", err, out)
	}
	waitJS(t, ctx, "the live list", fmt.Sprintf(`document.querySelector("#rows tr").dataset.id === "%d" && document.querySelectorAll("#rows tr").length === 1000 && !document.getElementById("older").hidden`, n))

	// The buttons are pressed as a script does, not by a mouse at their
	// place: #newer sits at the top of a list scrolled 24,000 px down,
	// and on a loaded machine chromedp's click, which scrolls to it and
	// then clicks where it was, met it moved and pressed nothing.
	press := func(id string) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("`+id+`").click()`, nil)); err != nil {
			t.Fatal(err)
		}
	}
	press("older")
	waitJS(t, ctx, "load older calls", fmt.Sprintf(`document.querySelectorAll("#rows tr").length === %d`, n))
	var contiguous bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => {
		const ids = [...document.querySelectorAll("#rows tr")].map((r) => Number(r.dataset.id));
		return ids.every((id, i) => id === ids.length - i);
	})()`, &contiguous)); err != nil {
		t.Fatal(err)
	}
	if !contiguous {
		t.Errorf("after load older, the list is not every call from %d down to 1", n)
	}

	// The next live call keeps the rows the user loaded: it dropped the
	// list back to 1,000 at once, so under load "load older" showed its
	// rows for a moment only. It is held back, counted, and shown on
	// asking.
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-next","businessType":5007,"data":{}}`), nil)
	waitJS(t, ctx, "the next call", fmt.Sprintf(`document.querySelector("#rows tr").dataset.id === "%d" || (document.getElementById("newer") || {}).textContent === "show 1 newer call"`, n+1))
	var rows int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll("#rows tr").length`, &rows)); err != nil {
		t.Fatal(err)
	}
	if rows != n {
		t.Errorf("after the next call the list has %d rows, want the %d loaded", rows, n)
	}
	press("newer")
	waitJS(t, ctx, "show the newer call", fmt.Sprintf(`document.querySelector("#rows tr").dataset.id === "%d" && document.getElementById("newer").hidden`, n+1))
}

// Enter opens the selected row, unless the focus is on a link, a button
// or a section's heading: there it is theirs, as for anyone who moves
// with Tab. The page took every Enter, so a keyboard could not press a
// button, follow a link or fold a section once a call was open.
func TestInspectorEnterPressesTheFocusedControl(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{}}`), nil)
	var base, folded string
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] #diff-base`, chromedp.ByQuery),
		chromedp.Focus(`#diff-base`, chromedp.ByQuery),
		pressEnter(),
		chromedp.Text(`#diff-base`, &base, chromedp.ByQuery),
		chromedp.Evaluate(`(() => {
			const s = [...document.querySelectorAll(".detail > details > summary")].find((s) => s.textContent === "Query");
			s.focus();
			return document.activeElement === s ? "" : "no Query section to focus";
		})()`, &folded),
		pressEnter(),
	); err != nil {
		t.Fatal(err)
	}
	if base != "diff base" {
		t.Errorf("Enter on \"set as diff base\": the button reads %q, want \"diff base\"", base)
	}
	if folded != "" {
		t.Fatal(folded)
	}
	var open bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.activeElement.parentElement.open`, &open)); err != nil {
		t.Fatal(err)
	}
	if open {
		t.Error("Enter on the Query section's heading left it open")
	}
}

// pressEnter presses Enter as a keyboard does: one keyDown that carries
// its text, so the browser makes the keypress that presses a button or
// folds a section, and a page's preventDefault on keydown cancels it.
// (chromedp.KeyEvent sends the character as an event of its own, which
// a keydown handler cannot cancel.)
func pressEnter() chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		down := input.DispatchKeyEvent(input.KeyDown).WithKey("Enter").WithCode("Enter").
			WithWindowsVirtualKeyCode(13).WithNativeVirtualKeyCode(13).WithText("\r").WithUnmodifiedText("\r")
		if err := down.Do(ctx); err != nil {
			return err
		}
		return input.DispatchKeyEvent(input.KeyUp).WithKey("Enter").WithCode("Enter").
			WithWindowsVirtualKeyCode(13).WithNativeVirtualKeyCode(13).Do(ctx)
	})
}

// A call with more findings than the inspector keeps opens, and says it
// shows the first of them: a body of 600,005 findings once left the page
// with an exception and no call.
func TestInspectorOpensACallWithManyFindings(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	var body strings.Builder
	body.WriteString(`{"requestId":"r1","businessType":5007,"data":{`)
	for i := range 1500 { // a field the spec does not know: a finding each
		fmt.Fprintf(&body, `"x%d":1,`, i)
	}
	body.WriteString(`"x":1}}`)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(body.String()), nil)
	var note string
	var items int
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .more-findings`, chromedp.ByQuery),
		chromedp.Text(`.more-findings`, &note, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("ul.findings li").length`, &items)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(note, "The first 1000 of 15") || items != 1000 {
		t.Errorf("the call shows %d findings under %q, want the first 1000 and their count", items, note)
	}
}

// A call with 200,000 query parameters (800 KB, which listen takes) opens
// with each of them listed: the page built a table with one argument per
// row, past what a browser allows (RangeError: no call shown).
func TestInspectorOpensACallWithAHugeQuery(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	const n = 200000
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC"+strings.Repeat("&a=1", n), []byte(`{"requestId":"r1","businessType":5007,"data":{}}`), nil)
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the call's query", fmt.Sprintf(`document.querySelector('.detail[data-id="1"]') !== null && document.querySelector('.detail[data-id="1"] table.kv').rows.length === %d`, n+1))
}

// A replay sends the call as captured, its credentials unmasked: to a URL
// that is not this machine's loopback the page asks first and sends
// nothing when told no; to the loopback it sends at once. The page's
// replay requests are caught in the browser and failed there, so none
// reaches whsim and nothing goes to the address typed.
func TestInspectorAsksBeforeReplayingToAnotherMachine(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{}}`),
		http.Header{"Authorization": {"Bearer captured-secret"}})

	var accept atomic.Bool
	dialogs := make(chan string, 4)
	replays := make(chan string, 4) // the body of each replay request the page made
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			dialogs <- e.Message
			go chromedp.Run(ctx, page.HandleJavaScriptDialog(accept.Load()))
		case *fetch.EventRequestPaused:
			replays <- postData(e.Request)
			go chromedp.Run(ctx, fetch.FailRequest(e.RequestID, network.ErrorReasonBlockedByClient))
		}
	})
	replay := func(target string) chromedp.Action {
		return chromedp.Tasks{chromedp.SetValue(`#replay-url`, target, chromedp.ByQuery), chromedp.Click(`form.replay button`, chromedp.ByQuery)}
	}
	if err := chromedp.Run(ctx,
		fetch.Enable().WithPatterns([]*fetch.RequestPattern{{URLPattern: "*/api/calls/*/replay"}}),
		chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] #replay-url`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	// waitFor is the first of a dialog and a replay request (bounded only
	// so that a broken page fails rather than hangs).
	waitFor := func(what string) (dialog, sent string) {
		t.Helper()
		select {
		case dialog = <-dialogs:
		case sent = <-replays:
		case <-ctx.Done():
			t.Fatalf("%s: neither a question nor a replay", what)
		}
		return dialog, sent
	}

	const other = "http://192.0.2.10:8080/erp" // TEST-NET-1: never reached, see above
	accept.Store(false)
	if err := chromedp.Run(ctx, replay(other)); err != nil {
		t.Fatal(err)
	}
	dialog, sent := waitFor("replay to " + other)
	if sent != "" {
		t.Fatalf("the page replayed to %s without asking (%s)", other, sent)
	}
	if !strings.Contains(dialog, "192.0.2.10") || !strings.Contains(dialog, "credentials") {
		t.Errorf("the question %q does not name the host and what goes there", dialog)
	}
	waitJS(t, ctx, "declined", `document.getElementById("replay-result").textContent === "Not sent."`)
	select {
	case sent := <-replays:
		t.Fatalf("declined, the page replayed all the same (%s)", sent)
	default:
	}

	accept.Store(true)
	if err := chromedp.Run(ctx, replay(other)); err != nil {
		t.Fatal(err)
	}
	// Asked, then sent: both events may be in before the test looks, so
	// each is awaited on its own (a select would pick either).
	select {
	case <-dialogs:
	case <-ctx.Done():
		t.Fatal("the second replay was not asked about")
	}
	select {
	case sent := <-replays:
		if !strings.Contains(sent, other) {
			t.Fatalf("accepted, the page sent %q", sent)
		}
	case <-ctx.Done():
		t.Fatal("accepted, the page sent nothing")
	}

	// The page sends one replay of a call at a time: its button is off
	// until the last one's answer (here the failure the listener above
	// makes, from a goroutine). Pressed before that, on a loaded machine,
	// it did nothing, and the test waited out its bound.
	waitJS(t, ctx, "the second replay's end", `!document.getElementById("replay").disabled`)
	const local = "http://127.0.0.1:9/erp"
	if err := chromedp.Run(ctx, replay(local)); err != nil {
		t.Fatal(err)
	}
	if dialog, sent := waitFor("replay to " + local); dialog != "" || !strings.Contains(sent, local) {
		t.Errorf("replay to the loopback: asked %q, sent %q; want no question", dialog, sent)
	}
}

// postData is a request's body as the browser reports it (base64 parts).
func postData(r *network.Request) string {
	var b strings.Builder
	for _, e := range r.PostDataEntries {
		p, _ := base64.StdEncoding.DecodeString(e.Bytes)
		b.Write(p)
	}
	return b.String()
}

// A body of thousands of values opens without building all of them: the
// page built every value of the tree at once (48,001 values took 6.5 s, the
// tab frozen) and now builds a bounded number, the rest when a branch is
// opened or "show more" is pressed; a finding's link still reaches its
// value, wherever it is.
func TestInspectorBuildsALargeTreeOnDemand(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	var doc struct {
		RequestID    string                     `json:"requestId"`
		BusinessType int                        `json:"businessType"`
		Data         map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(generate(t, "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1", "--output", "ndjson"), &doc); err != nil {
		t.Fatal(err)
	}
	var lines []map[string]json.RawMessage
	if err := json.Unmarshal(doc.Data["收款明细"], &lines); err != nil || len(lines) == 0 {
		t.Fatalf("收款明细: %v", err)
	}
	const n, bad = 1500, 1400 // lines, and the one with a string for a number
	many := make([]map[string]json.RawMessage, n)
	for i := range many {
		many[i] = lines[0]
	}
	many[bad] = maps.Clone(lines[0])
	many[bad]["应收金额"] = json.RawMessage(`"abc"`)
	doc.Data["收款明细"], _ = json.Marshal(many)
	body, _ := json.Marshal(doc)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", body, nil)

	path := fmt.Sprintf("data.收款明细[%d].应收金额", bad)
	var built, count int
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .tree`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll(".tree [data-path]").length`, &built),
		chromedp.Evaluate(`document.querySelector('.tree [data-path="data.收款明细"] > summary .count').textContent.trim().split(" ")[0] * 1`, &count)); err != nil {
		t.Fatal(err)
	}
	if built > 3000 || count != n {
		t.Errorf("the page built %d values of the tree (want at most 3000) and counts %d lines (want %d)", built, count, n)
	}
	// The finding's link builds the way to its value and shows it.
	inView := `(() => { const n = [...document.querySelectorAll(".tree [data-path]")].find((n) => n.dataset.path === "` + path + `");
		if (!n) return false; const r = n.getBoundingClientRect(); return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; })()`
	if err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll("ul.findings a.path")].find((a) => a.textContent === "`+path+`").click()`, nil)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "follow the finding to line "+fmt.Sprint(bad), inView)
}

// An event the spec does not name (a new one the ERP sends) can be picked
// in the event filter once a call of it is listed, as the API filters by
// any name: the filter offered the spec's events only.
func TestInspectorFiltersByAnEventTheSpecDoesNotName(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=PAY_SUPPLIER_NEW", []byte(`{"requestId":"r1","businessType":9999,"data":{}}`), nil)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r2","businessType":5007,"data":{}}`), nil)
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="2"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the listed call's event in the filter", `document.querySelector('#f-event option[value="PAY_SUPPLIER_NEW"]') !== null`)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const s = document.getElementById("f-event"); s.value = "PAY_SUPPLIER_NEW"; s.dispatchEvent(new Event("change")); })()`, nil)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "event=PAY_SUPPLIER_NEW", `document.querySelectorAll("#rows tr").length === 1 && document.querySelector("#rows tr").dataset.id === "1"`)
	// A live call of another such event adds it too.
	l.post(t, "/webhook?businessType=REFUND_NEW", []byte(`{"requestId":"r3","businessType":9998,"data":{}}`), nil)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const s = document.getElementById("f-event"); s.value = ""; s.dispatchEvent(new Event("change")); })()`, nil)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the live call's event in the filter", `document.querySelector('#f-event option[value="REFUND_NEW"]') !== null`)
}
