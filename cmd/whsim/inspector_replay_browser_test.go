package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
)

// A press of the replay button, or Enter in its box, while the replay is
// still sending sent the call again: the receiver saw it twice. The
// button is off while the replay is in flight, the page says so, and it
// is on again once the answer is shown.
func TestInspectorReplayButtonSendsOnceWhileInFlight(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{}}`), nil)
	var received atomic.Int32
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer recv.Close()

	// The page's replay requests are held in the browser: the first stays
	// in flight until let go, any other goes on at once and is counted.
	paused := make(chan *fetch.EventRequestPaused, 16)
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			paused <- e
		}
	})
	if err := chromedp.Run(ctx, fetch.Enable().WithPatterns([]*fetch.RequestPattern{{URLPattern: "*/api/calls/*/replay"}}),
		chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] #replay-url`, chromedp.ByQuery),
		chromedp.SetValue(`#replay-url`, recv.URL+"/erp", chromedp.ByQuery),
		chromedp.Click(`#replay`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	var first *fetch.EventRequestPaused
	select {
	case first = <-paused:
	case <-ctx.Done():
		t.Fatal("the replay button sent nothing")
	}
	waitJS(t, ctx, "the replay in flight", `document.getElementById("replay").disabled && document.getElementById("replay-result").textContent.includes("not sent twice")`)
	if err := chromedp.Run(ctx,
		chromedp.Click(`#replay`, chromedp.ByQuery),
		chromedp.Focus(`#replay-url`, chromedp.ByQuery),
		pressEnter(),
		fetch.ContinueRequest(first.RequestID),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the replay's answer", `!document.getElementById("replay").disabled && (document.querySelector("#replay-result .status") || {}).textContent === "202"`)
	var again int
	for len(paused) > 0 {
		e := <-paused
		again++
		if err := chromedp.Run(ctx, fetch.ContinueRequest(e.RequestID)); err != nil {
			t.Fatal(err)
		}
	}
	if again != 0 {
		t.Errorf("the page sent %d more replays of call 1 while the first was in flight, want none", again)
	}
	if n := received.Load(); n != 1 {
		t.Errorf("the receiver got call 1 %d times, want once", n)
	}
	var result string
	if err := chromedp.Run(ctx, chromedp.Text(`#replay-result`, &result, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(result, "replayed already") {
		t.Errorf("the result reads %q: a second press reached the inspector", result)
	}
}
