package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/input"
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
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			if fail.Load() {
				go chromedp.Run(ctx, fetch.FulfillRequest(e.RequestID, http.StatusInternalServerError).
					WithResponseHeaders([]*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/json"}}).
					WithBody(base64.StdEncoding.EncodeToString([]byte(refusal))))
			} else {
				go chromedp.Run(ctx, fetch.ContinueRequest(e.RequestID))
			}
		}
	})
	toggle := chromedp.Evaluate(`(() => { const d = document.querySelector(".detail details.raw"); d.open = !d.open; })()`, nil)
	if err := chromedp.Run(ctx,
		fetch.Enable().WithPatterns([]*fetch.RequestPattern{{URLPattern: "*/api/calls/*/raw"}}),
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
