package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// pressKey presses a key as a keyboard does (see pressEnter): Tab moves
// the focus, and a page's keydown handler sees the key on its target.
func pressKey(key, code string, vk int64, text string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		down := input.DispatchKeyEvent(input.KeyDown).WithKey(key).WithCode(code).
			WithWindowsVirtualKeyCode(vk).WithNativeVirtualKeyCode(vk)
		if text != "" {
			down = down.WithText(text).WithUnmodifiedText(text)
		} else {
			down.Type = input.KeyRawDown
		}
		if err := down.Do(ctx); err != nil {
			return err
		}
		return input.DispatchKeyEvent(input.KeyUp).WithKey(key).WithCode(code).
			WithWindowsVirtualKeyCode(vk).WithNativeVirtualKeyCode(vk).Do(ctx)
	})
}

// activeRow is the id of the call row that has the focus, "" for none.
const activeRow = `(document.activeElement && document.activeElement.matches("#rows tr")) ? document.activeElement.dataset.id : ""`

// The list of calls is reached and worked with the keyboard alone, as
// WAI-ARIA's grid pattern has it: Tab reaches the list (one stop, the
// current row), the arrows move the focus from row to row, Enter or Space
// opens the row's call, and the focused row shows it. The rows took no
// focus: Tab went from the filters to the export links, so a keyboard or a
// screen reader could not open a call.
func TestInspectorListWorksWithTheKeyboard(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	for i := 1; i <= 3; i++ {
		l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", fmt.Appendf(nil, `{"requestId":"r%d","businessType":5007,"data":{}}`, i), nil)
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.Focus(`#f-q`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	tab := pressKey("Tab", "Tab", 9, "")
	var row string
	for range 10 { // the search box, the export links, then the list
		if err := chromedp.Run(ctx, tab, chromedp.Evaluate(activeRow, &row)); err != nil {
			t.Fatal(err)
		}
		if row != "" {
			break
		}
	}
	if row != "3" {
		t.Fatalf("Tab from the search box never reached the list's first row (the newest, #3): the focus is on row %q", row)
	}
	var outline string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`getComputedStyle(document.activeElement).outlineStyle`, &outline)); err != nil {
		t.Fatal(err)
	}
	if outline == "none" || outline == "" {
		t.Error("the focused row shows no focus (its outline is none)")
	}

	down := pressKey("ArrowDown", "ArrowDown", 40, "")
	if err := chromedp.Run(ctx, down, chromedp.Evaluate(activeRow, &row)); err != nil {
		t.Fatal(err)
	}
	if row != "2" {
		t.Fatalf("ArrowDown on row #3: the focus is on row %q, want #2", row)
	}
	if err := chromedp.Run(ctx, pressEnter()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "Enter on row #2", `document.querySelector('.detail[data-id="2"]') !== null && document.querySelector('#rows tr[data-id="2"]').getAttribute("aria-current") === "true"`)
	if err := chromedp.Run(ctx, chromedp.Evaluate(activeRow, &row)); err != nil {
		t.Fatal(err)
	}
	if row != "2" {
		t.Errorf("opening #2 moved the focus off its row (to row %q)", row)
	}

	if err := chromedp.Run(ctx, down, pressKey(" ", "Space", 32, " ")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "Space on row #1", `document.querySelector('.detail[data-id="1"]') !== null`)

	// One stop: Tab leaves the list from the row it is on, and Shift+Tab
	// comes back to that row, not to the first.
	var after string
	if err := chromedp.Run(ctx, tab, chromedp.Evaluate(activeRow, &row), chromedp.Evaluate(`document.activeElement.id || document.activeElement.tagName`, &after)); err != nil {
		t.Fatal(err)
	}
	if row != "" {
		t.Errorf("Tab on row #1 went to row %s: the list should be one stop", row)
	}
	back := chromedp.ActionFunc(func(ctx context.Context) error {
		for _, typ := range []input.KeyType{input.KeyRawDown, input.KeyUp} {
			if err := input.DispatchKeyEvent(typ).WithKey("Tab").WithCode("Tab").WithWindowsVirtualKeyCode(9).
				WithNativeVirtualKeyCode(9).WithModifiers(input.ModifierShift).Do(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err := chromedp.Run(ctx, back, chromedp.Evaluate(activeRow, &row)); err != nil {
		t.Fatal(err)
	}
	if row != "1" {
		t.Errorf("Shift+Tab back from %s: the focus is on row %q, want #1, the row it left", after, row)
	}
}

// A raw view whose bytes the server refuses says it could not load them,
// and why, apart from any body: the page showed the server's JSON error
// ({"error": ...}) as if it were the bytes the sender sent. Reopened, it
// asks again. The browser answers the page's raw request itself, so the
// failure is the one the test chose.
func TestInspectorSaysWhenTheRawBytesFailToLoad(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{}}`), nil)
	const refusal = `{"error":"read calls.ndjson: the record of call 1 changed"}`
	var fail atomic.Bool
	fail.Store(true)
	refuseWhile(t, ctx, &fail, "*/api/calls/*/raw", refusal)
	toggle := chromedp.Evaluate(`(() => { const d = document.querySelector(".detail details.raw"); d.open = !d.open; })()`, nil)
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] details.raw`, chromedp.ByQuery),
		toggle); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the refused raw view", `document.querySelector(".detail details.raw .hint") === null`)
	var shown, body string
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.querySelector(".detail details.raw > div").textContent`, &shown),
		chromedp.Evaluate(`(document.querySelector(".detail details.raw pre.body") || {}).textContent || ""`, &body)); err != nil {
		t.Fatal(err)
	}
	if body != "" || !strings.Contains(shown, "could not load") || !strings.Contains(shown, "500") ||
		!strings.Contains(shown, "the record of call 1 changed") || strings.Contains(shown, `{"error"`) {
		t.Errorf("the raw view of a refused request shows %q (as the body: %q); want that it could not load them, the status and the server's reason, and no body", shown, body)
	}

	fail.Store(false)
	if err := chromedp.Run(ctx, toggle, toggle); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the raw view reopened", `(document.querySelector(".detail details.raw pre.body") || {}).textContent === '{"requestId":"r1","businessType":5007,"data":{}}'`)
}

// release lets go the requests held until one whose URL has want, and
// stops holding: held streams, let go while calls came that the page saw
// none of, start with a gap.
func (h *heldRequests) release(want string) {
	t, ctx := h.t, h.ctx
	t.Helper()
	for {
		select {
		case e := <-h.ch:
			if err := chromedp.Run(ctx, fetch.ContinueRequest(e.RequestID)); err != nil && strings.Contains(e.Request.URL, want) {
				t.Fatal(err)
			}
			if strings.Contains(e.Request.URL, want) {
				if err := chromedp.Run(ctx, fetch.Disable()); err != nil {
					t.Fatal(err)
				}
				return
			}
		case <-ctx.Done():
			t.Fatalf("the page opened no stream with %q", want)
		}
	}
}

// sendCalls sends n calls of an event to listen.
func sendCalls(t *testing.T, l *inspectorUnderTest, event string, n int) {
	t.Helper()
	send := exec.Command("whsim", "send", "--url", l.webhook+"webhook", "--event", event,
		"--count", fmt.Sprint(n), "--concurrency", "8", "--seed", "3")
	if out, err := send.CombinedOutput(); err != nil {
		t.Fatalf("send: %v\n%s", err, out)
	}
}

// The note about calls the list does not show tells the truth at every
// moment. A page that fell 1,100 calls behind got "Calls 6 to 105 left
// the page's window" and kept it after "load older calls" had listed
// every one of them; a new listing (another filter) has them all, and the
// note stayed too.
func TestInspectorGapNoteSaysWhatTheListMisses(t *testing.T) {
	const gapNote = `(document.getElementById("gap").hidden ? "" : document.getElementById("gap").textContent)`
	t.Run("loaded older", func(t *testing.T) {
		ctx := newInspectorBrowser(t)
		l := startListenUI(t)
		sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 5)
		h := holdRequests(t, ctx, "*/api/stream*")
		if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="5"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 1100) // 6 to 1105: listen keeps 106 to 1105
		h.release("after=5")
		waitJS(t, ctx, "the stream after the gap", `document.querySelector("#rows tr").dataset.id === "1105" && !document.getElementById("older").hidden`)
		var note string
		if err := chromedp.Run(ctx, chromedp.Evaluate(gapNote, &note)); err != nil {
			t.Fatal(err)
		}
		// The page keeps 1,000 rows, 106 to 1105: calls 6 to 105 are
		// older ones now, which "load older calls" lists.
		if note != "" {
			t.Errorf("rows 1105 down to 106 and \"load older calls\" for the rest, yet the page says %q", note)
		}
		if err := chromedp.Run(ctx, chromedp.Click(`#older`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "load older calls", `document.querySelectorAll("#rows tr").length === 1105`)
		if err := chromedp.Run(ctx, chromedp.Evaluate(gapNote, &note)); err != nil {
			t.Fatal(err)
		}
		if note != "" {
			t.Errorf("every call from 1105 down to 1 is listed, yet the page says %q", note)
		}
	})
	// With no row below them the missed calls are older ones, which "load
	// older calls" lists: the page offered no way to them but a new listing.
	t.Run("nothing below", func(t *testing.T) {
		ctx := newInspectorBrowser(t)
		l := startListenUI(t)
		h := holdRequests(t, ctx, "*/api/stream*")
		if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#list-empty`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 1100) // listen keeps 101 to 1100
		h.release("after=0")
		waitJS(t, ctx, "the stream after the gap", `document.querySelectorAll("#rows tr").length === 1000 && document.querySelector("#rows tr").dataset.id === "1100"`)
		var older bool
		var note string
		if err := chromedp.Run(ctx, chromedp.Evaluate(`!document.getElementById("older").hidden`, &older), chromedp.Evaluate(gapNote, &note)); err != nil {
			t.Fatal(err)
		}
		if !older || note != "" {
			t.Fatalf("rows 1100 down to 101: \"load older calls\" shown %v, the note %q; want it shown and no note", older, note)
		}
		if err := chromedp.Run(ctx, chromedp.Click(`#older`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "load older calls", `document.querySelectorAll("#rows tr").length === 1100 && document.getElementById("gap").hidden`)
	})
	t.Run("new listing", func(t *testing.T) {
		ctx := newInspectorBrowser(t)
		l := startListenUI(t)
		sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 3)
		h := holdRequests(t, ctx, "*/api/stream*")
		if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="3"]`, chromedp.ByQuery),
			chromedp.Evaluate(`(() => { const s = document.getElementById("f-event"); s.value = "CREATE_RECEIVABLE_DOC"; s.dispatchEvent(new Event("change")); })()`, nil)); err != nil {
			t.Fatal(err)
		}
		sendCalls(t, l, "AUDIT_PURCHASE_ORDER_INVOICE", 1100) // 4 to 1103
		sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 2)           // 1104, 1105: listen keeps 106 to 1105
		h.release("event=CREATE_RECEIVABLE_DOC")
		// Between #1104 and #3 the list misses what left the window.
		waitJS(t, ctx, "the stream after the gap", `document.querySelector("#rows tr").dataset.id === "1105" && !document.getElementById("gap").hidden`)
		var note string
		if err := chromedp.Run(ctx, chromedp.Evaluate(gapNote, &note)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(note, "calls 4 to 105,") {
			t.Errorf("rows 1105, 1104, 3, 2, 1: the note says %q, want that calls 4 to 105 are not shown", note)
		}
		if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const s = document.getElementById("f-event"); s.value = ""; s.dispatchEvent(new Event("change")); })()`, nil)); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "every event listed", `document.querySelectorAll("#rows tr").length === 200`)
		if err := chromedp.Run(ctx, chromedp.Evaluate(gapNote, &note)); err != nil {
			t.Fatal(err)
		}
		if note != "" {
			t.Errorf("a new listing has the newest 200 calls, 1105 down to 906, yet the page says %q", note)
		}
	})
}

// activeIs is a description of the focused element, for a message.
const activeIs = `(() => { const a = document.activeElement; return a.tagName + (a.id ? "#" + a.id : "") + (a.dataset && a.dataset.id ? "[" + a.dataset.id + "]" : "") + " " + a.textContent.slice(0, 40); })()`

// The keyboard's focus never falls back to the page's start when what
// has it goes away: a link to another delivery followed with Enter, the
// "show newer calls" and "load older calls" buttons that hide once
// pressed. Each left the focus on the page's body, so the next Tab
// started over from the filters. Escape in a call goes back to its row.
func TestInspectorKeepsTheKeyboardFocus(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	for range 2 { // two deliveries of r1: each links to the other
		l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{}}`), nil)
	}
	var active string
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="2"]`, chromedp.ByQuery),
		chromedp.Evaluate(`location.hash = "#/calls/2"`, nil),
		chromedp.WaitVisible(`.detail[data-id="2"] p.deliveries a`, chromedp.ByQuery),
		chromedp.Focus(`.detail[data-id="2"] p.deliveries a`, chromedp.ByQuery), pressEnter(),
		chromedp.WaitVisible(`.detail[data-id="1"]`, chromedp.ByQuery),
		chromedp.Evaluate(activeIs, &active)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(active, "H2 POST /webhook") {
		t.Errorf("Enter on the link to delivery #1: the focus is on %q, want #1's heading", active)
	}
	if err := chromedp.Run(ctx, pressKey("Escape", "Escape", 27, ""), chromedp.Evaluate(activeIs, &active)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(active, "TR[1]") {
		t.Errorf("Escape in call #1: the focus is on %q, want its row", active)
	}
}

// "load older calls" pressed from the keyboard, once there is no more to
// load, hands the focus to the first row it loaded; "show newer calls"
// to the list.
func TestInspectorKeepsTheFocusOnTheListsButtons(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 205) // the page lists 200
	var active string
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#older`, chromedp.ByQuery),
		chromedp.Focus(`#older`, chromedp.ByQuery), pressEnter()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "load older calls", `document.querySelectorAll("#rows tr").length === 205 && document.getElementById("older").hidden`)
	if err := chromedp.Run(ctx, chromedp.Evaluate(activeIs, &active)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(active, "TR[5]") {
		t.Errorf("Enter on \"load older calls\", the last of them loaded: the focus is on %q, want the first row loaded, #5", active)
	}

	// Past 1,000 rows with older ones loaded, new calls are held back.
	sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 800)
	waitJS(t, ctx, "the calls held back", `!document.getElementById("newer").hidden`)
	if err := chromedp.Run(ctx, chromedp.Focus(`#newer`, chromedp.ByQuery), pressEnter()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "show newer calls", `document.getElementById("newer").hidden && document.querySelector("#rows tr").dataset.id === "1005"`)
	if err := chromedp.Run(ctx, chromedp.Evaluate(activeIs, &active)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(active, "TR[") {
		t.Errorf("Enter on \"show newer calls\": the focus is on %q, want the list", active)
	}
}

// New calls do not move the row the keyboard is on: at the top of the
// list, where the browser's scroll anchoring does not hold it, 50 new
// calls pushed the focused row #98 from the top of the screen to well
// below its bottom.
func TestInspectorLiveCallsLeaveTheFocusedRowInPlace(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 100)
	const where = `document.querySelector('#rows tr[data-id="98"]').getBoundingClientRect().top`
	var before, after float64
	var row string
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="100"]`, chromedp.ByQuery),
		chromedp.Focus(`#rows tr[data-id="98"]`, chromedp.ByQuery), chromedp.Evaluate(where, &before)); err != nil {
		t.Fatal(err)
	}
	sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 50)
	waitJS(t, ctx, "the new calls", `document.querySelector("#rows tr").dataset.id === "150"`)
	nextFrame(t, ctx)
	if err := chromedp.Run(ctx, chromedp.Evaluate(where, &after), chromedp.Evaluate(activeRow, &row)); err != nil {
		t.Fatal(err)
	}
	if row != "98" || after < before-1 || after > before+1 {
		t.Errorf("50 new calls: the focus is on row %q, #98 moved from %.0f px to %.0f px; want it focused and in place", row, before, after)
	}

	// Scrolled down the list, where the browser anchors the view too.
	const where60 = `document.querySelector('#rows tr[data-id="60"]').getBoundingClientRect().top`
	if err := chromedp.Run(ctx, chromedp.Focus(`#rows tr[data-id="60"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("list-pane").scrollTop += 50`, nil), chromedp.Evaluate(where60, &before)); err != nil {
		t.Fatal(err)
	}
	sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 50)
	waitJS(t, ctx, "the new calls", `document.querySelector("#rows tr").dataset.id === "200"`)
	nextFrame(t, ctx)
	if err := chromedp.Run(ctx, chromedp.Evaluate(where60, &after), chromedp.Evaluate(activeRow, &row)); err != nil {
		t.Fatal(err)
	}
	if row != "60" || after < before-1 || after > before+1 {
		t.Errorf("the list scrolled, 50 new calls: the focus is on row %q, #60 moved from %.0f px to %.0f px; want it focused and in place", row, before, after)
	}
}

// A page whose inspector stopped answering (whsim ended, say) says so at
// once, and what that means for the list; a call opened then says it got
// no answer. The page showed its list as live, with no word, and a call
// opened said only "Failed to fetch".
func TestInspectorSaysWhenTheInspectorStopsAnswering(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 2)
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="2"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	l.stop()
	waitJS(t, ctx, "a note that the inspector does not answer", `[...document.querySelectorAll(".note")].some((n) => !n.hidden && n.textContent.includes("does not answer"))`)
	var opened string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`location.hash = "#/calls/1"`, nil),
		chromedp.WaitVisible(`#detail-pane p.error`, chromedp.ByQuery),
		chromedp.Text(`#detail-pane p.error`, &opened, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(opened, "Call #1 could not open: no answer from the inspector") {
		t.Errorf("opening call #1 with whsim gone says %q, want that the inspector gave no answer", opened)
	}
}

// "show more" in a long branch of the body, pressed from the keyboard,
// hands the focus to the next "show more", or to the branch once all is
// shown: the button removed itself and the focus fell back to the
// page's start.
func TestInspectorShowMoreKeepsTheFocus(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	body := `{"requestId":"r1","businessType":5007,"data":{},"x":[` + strings.Repeat("1,", 1199) + `1]}`
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(body), nil)
	const more = `.tree [data-path="x"] > .kids > button.more`
	var active string
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.Evaluate(`location.hash = "#/calls/1"`, nil),
		chromedp.WaitVisible(more, chromedp.ByQuery), chromedp.Focus(more, chromedp.ByQuery), pressEnter(),
		chromedp.Evaluate(activeIs, &active)); err != nil {
		t.Fatal(err)
	}
	if active != "BUTTON show 200 more of 1200" {
		t.Errorf("Enter on \"show 500 more of 1200\": the focus is on %q, want the next \"show more\"", active)
	}
	if err := chromedp.Run(ctx, pressEnter(), chromedp.Evaluate(activeIs, &active)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(active, `SUMMARY "x": [ 1200 items`) {
		t.Errorf("Enter on the last \"show more\": the focus is on %q, want the branch's heading", active)
	}
}

// "load older calls" that the server refuses says so, and why, and is
// pressed again to try again: the page swallowed the error and the button
// did nothing at all.
func TestInspectorSaysWhenOlderCallsFailToLoad(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 205) // the page lists 200
	var fail atomic.Bool
	fail.Store(true)
	refuseWhile(t, ctx, &fail, "*/api/calls?*before=*", `{"error":"read calls.ndjson: input/output error"}`)
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()), chromedp.WaitVisible(`#older`, chromedp.ByQuery), chromedp.Click(`#older`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the refusal said", `document.getElementById("older").textContent.includes("input/output error")`)
	var said string
	if err := chromedp.Run(ctx, chromedp.Text(`#older`, &said, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(said, "could not") || !strings.Contains(said, "again") {
		t.Errorf("the refused \"load older calls\" reads %q, want that they could not load, why, and to press again", said)
	}
	fail.Store(false)
	if err := chromedp.Run(ctx, chromedp.Click(`#older`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "load older calls, again", `document.querySelectorAll("#rows tr").length === 205 && document.getElementById("older").hidden`)
}

// A diff the server refuses says so, and why, where the diff goes: the
// page swallowed the error and "diff with #1" did nothing.
func TestInspectorSaysWhenADiffFails(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 2)
	var fail atomic.Bool
	fail.Store(true)
	refuseWhile(t, ctx, &fail, "*/api/diff?*", `{"error":"read calls.ndjson: input/output error"}`)
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="2"]`, chromedp.ByQuery),
		chromedp.Evaluate(`location.hash = "#/calls/1"`, nil),
		chromedp.WaitVisible(`.detail[data-id="1"] #diff-base`, chromedp.ByQuery), chromedp.Click(`#diff-base`, chromedp.ByQuery),
		chromedp.Evaluate(`location.hash = "#/calls/2"`, nil),
		chromedp.WaitVisible(`.detail[data-id="2"] #diff`, chromedp.ByQuery), chromedp.Click(`#diff`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the refused diff said", `(document.querySelector(".detail .diff p.error") || {}).textContent === "The diff of #1 and #2 could not load: read calls.ndjson: input/output error"`)
}

// A call that could not open opens when its row is picked again: the
// address already named it, so nothing happened, and the call stayed
// closed until another was opened first.
func TestInspectorOpensACallAgainAfterItFailed(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 2)
	var fail atomic.Bool
	fail.Store(true)
	refuseWhile(t, ctx, &fail, "*/api/calls/1", `{"error":"read calls.ndjson: input/output error"}`)
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#detail-pane p.error`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	fail.Store(false)
	if err := chromedp.Run(ctx, chromedp.Focus(`#rows tr[data-id="1"]`, chromedp.ByQuery), pressEnter()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "Enter on the row again", `document.querySelector('.detail[data-id="1"]') !== null`)
	// And by a click, after another failure (from call #2).
	fail.Store(true)
	if err := chromedp.Run(ctx, chromedp.Click(`#rows tr[data-id="2"]`, chromedp.ByQuery), chromedp.WaitVisible(`.detail[data-id="2"]`, chromedp.ByQuery),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#detail-pane p.error`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	fail.Store(false)
	if err := chromedp.Run(ctx, chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "a click on the row again", `document.querySelector('.detail[data-id="1"]') !== null`)
}

// nextFrame waits until the page has drawn its next frame, when what it
// does before drawing (requestAnimationFrame) is done.
func nextFrame(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Evaluate(`new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))`, nil,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
		t.Fatal(err)
	}
}

// A status filter that is not whole (a code, 500, or a class, 5xx) says
// it is not applied: the list went on showing every call under "abc" or
// "50", as if they were the filter's.
func TestInspectorSaysAStatusFilterIsNotApplied(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 1)
	const said = `[...document.querySelectorAll("header .error")].some((n) => !n.hidden && n.textContent.includes("not applied"))`
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.SendKeys(`#f-status`, "abc", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the status filter \"abc\"", said+` && document.getElementById("f-status").getAttribute("aria-invalid") === "true"`)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("f-status").value = ""`, nil), chromedp.SendKeys(`#f-status`, "5xx", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the status filter \"5xx\"", `!(`+said+`) && document.getElementById("f-status").getAttribute("aria-invalid") !== "true" && document.getElementById("list-empty").hidden === false`)
}

// refuseWhile has the browser answer the page's requests whose URL
// matches pattern with a 500 and the JSON body while fail is set, as the
// inspector answers one it cannot serve, and let them go on otherwise.
func refuseWhile(t *testing.T, ctx context.Context, fail *atomic.Bool, pattern, body string) {
	t.Helper()
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			if fail.Load() {
				go chromedp.Run(ctx, fetch.FulfillRequest(e.RequestID, http.StatusInternalServerError).
					WithResponseHeaders([]*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/json"}}).
					WithBody(base64.StdEncoding.EncodeToString([]byte(body))))
			} else {
				go chromedp.Run(ctx, fetch.ContinueRequest(e.RequestID))
			}
		}
	})
	if err := chromedp.Run(ctx, fetch.Enable().WithPatterns([]*fetch.RequestPattern{{URLPattern: pattern}})); err != nil {
		t.Fatal(err)
	}
}
