package main

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
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
	replays := holdRequests(t, ctx, "*/api/calls/*/replay")
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] #replay-url`, chromedp.ByQuery),
		chromedp.SetValue(`#replay-url`, recv.URL+"/erp", chromedp.ByQuery),
		chromedp.Click(`#replay`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	first := replays.next("/replay")
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
	for len(replays.ch) > 0 {
		e := <-replays.ch
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

// A stream refused for good because the inspector no longer knows the
// page's session (whsim restarted on the same address, say) made the page
// list again once, which was refused too: the page showed the login note
// while its connection note still said it "lists again in a moment", and
// nothing did. The notes say the list is not live, that the page does not
// try again, and what to do.
func TestInspectorSaysTheListStopsWhenItsSessionIsRefused(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{}}`), nil)
	// The page's first stream is held in the browser while its cookie is
	// cleared: let go, the inspector itself refuses it, and every request
	// after it, as it refuses a session it does not know.
	streams := holdRequests(t, ctx, "*/api/stream*")
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, network.ClearBrowserCookies()); err != nil {
		t.Fatal(err)
	}
	streams.release("api/stream")
	waitJS(t, ctx, "the refused listing said", `!document.getElementById("auth").hidden && !document.getElementById("conn").textContent.includes("lists again in a moment")`)
	var conn string
	var rows int
	if err := chromedp.Run(ctx, chromedp.Text(`#conn`, &conn, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#rows tr").length`, &rows)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"refused this page's session", "not live", "does not try again", "open the URL whsim printed"} {
		if !strings.Contains(conn, want) {
			t.Errorf("the connection note reads %q, want it to say %q", conn, want)
		}
	}
	if rows != 1 {
		t.Errorf("the list has %d rows after the refusal, want the 1 it had", rows)
	}
}

// A stream refused for good (503: too many of the inspector's pages open)
// whose new listing then finds no answer left the page saying it "lists
// again in a moment" while nothing did. The page says the listing failed
// and tries again, and is live once the inspector answers.
func TestInspectorListsAgainUntilTheInspectorAnswers(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{}}`), nil)
	held := holdRequests(t, ctx, "*/api/calls?*", "*/api/stream*")
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page())); err != nil {
		t.Fatal(err)
	}
	next := held.next // the page's next listing or stream, which must be want
	run := func(what string, a chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, a); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	run("the listing", fetch.ContinueRequest(next("/api/calls?").RequestID))
	run("refuse the stream", fetch.FulfillRequest(next("/api/stream").RequestID, http.StatusServiceUnavailable).
		WithResponseHeaders([]*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/json"}}).
		WithBody(base64.StdEncoding.EncodeToString([]byte(`{"error":"inspector: 32 event streams open already"}`))))
	run("no answer to the new listing", fetch.FailRequest(next("/api/calls?").RequestID, network.ErrorReasonConnectionRefused))
	waitJS(t, ctx, "the failed listing said", `document.getElementById("conn").textContent.includes("could not list again") && document.getElementById("conn").textContent.includes("tries again")`)
	run("the listing after", fetch.ContinueRequest(next("/api/calls?").RequestID))
	run("the stream after", fetch.ContinueRequest(next("/api/stream").RequestID))
	waitJS(t, ctx, "the list live again", `document.getElementById("conn").hidden && document.querySelectorAll("#rows tr").length === 1`)
	run("stop holding", fetch.Disable())
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r2","businessType":5007,"data":{}}`), nil)
	waitJS(t, ctx, "the next call live", `document.querySelector("#rows tr").dataset.id === "2"`)
}

// A call opened again while its replay is sending shows it sending, its
// button off, and then its answer: the answer went to the box the replay
// was pressed in, gone once another call was opened, and the call opened
// again offered replay as if none were sending.
func TestInspectorReplayAnswerShowsOnTheCallOpenedAgain(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	for _, id := range []string{"r1", "r2"} {
		l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"`+id+`","businessType":5007,"data":{}}`), nil)
	}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	defer recv.Close()
	replays := holdRequests(t, ctx, "*/api/calls/*/replay")
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] #replay-url`, chromedp.ByQuery),
		chromedp.SetValue(`#replay-url`, recv.URL+"/erp", chromedp.ByQuery),
		chromedp.Click(`#replay`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	held := replays.next("/replay")
	if err := chromedp.Run(ctx,
		chromedp.Click(`#rows tr[data-id="2"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="2"] #replay`, chromedp.ByQuery),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] #replay`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "call 1's replay sending", `document.getElementById("replay").disabled && document.getElementById("replay-result").textContent.startsWith("Sending")`)
	if err := chromedp.Run(ctx, fetch.ContinueRequest(held.RequestID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "call 1's replay answered", `document.querySelector(".detail[data-id='1'] #replay-result .status") !== null && document.querySelector(".detail[data-id='1'] #replay-result .status").textContent === "202" && !document.getElementById("replay").disabled`)
}

// A filter changed while the inspector does not answer: the new listing
// closed the live stream and then failed, unsaid, so the list stopped
// being live while the page said nothing. It says the listing failed,
// tries again, and is live once the inspector answers.
func TestInspectorSaysWhenAFilterCannotList(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{}}`), nil)
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	held := holdRequests(t, ctx, "*/api/calls?*", "*/api/stream*")
	next := held.next
	if err := chromedp.Run(ctx,
		chromedp.SetValue(`#f-event`, "CREATE_RECEIVABLE_DOC", chromedp.ByQuery)); err != nil { // it says "change"
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, fetch.FailRequest(next("event=CREATE_RECEIVABLE_DOC").RequestID, network.ErrorReasonConnectionRefused)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the failed listing said", `!document.getElementById("conn").hidden && document.getElementById("conn").textContent.includes("could not list again") && document.getElementById("conn").textContent.includes("tries again")`)
	if err := chromedp.Run(ctx, fetch.ContinueRequest(next("event=CREATE_RECEIVABLE_DOC").RequestID)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, fetch.ContinueRequest(next("/api/stream").RequestID), fetch.Disable()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the list live again", `document.getElementById("conn").hidden && document.querySelectorAll("#rows tr").length === 1`)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r2","businessType":5007,"data":{}}`), nil)
	waitJS(t, ctx, "the next call live", `document.querySelector("#rows tr").dataset.id === "2"`)
}

// heldRequests are the page's requests that the browser holds (those
// whose URL matches a pattern given to holdRequests) until the test lets
// each go on, fails it or answers it.
type heldRequests struct {
	t   *testing.T
	ctx context.Context
	ch  chan *fetch.EventRequestPaused
}

// holdRequests has the browser hold the page's requests whose URL matches
// one of patterns (fetch's wildcards).
func holdRequests(t *testing.T, ctx context.Context, patterns ...string) *heldRequests {
	t.Helper()
	h := &heldRequests{t: t, ctx: ctx, ch: make(chan *fetch.EventRequestPaused, 16)}
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			h.ch <- e
		}
	})
	ps := make([]*fetch.RequestPattern, len(patterns))
	for i, p := range patterns {
		ps[i] = &fetch.RequestPattern{URLPattern: p}
	}
	if err := chromedp.Run(ctx, fetch.Enable().WithPatterns(ps)); err != nil {
		t.Fatal(err)
	}
	return h
}

// next is the next request held, whose URL must hold want.
func (h *heldRequests) next(want string) *fetch.EventRequestPaused {
	h.t.Helper()
	select {
	case e := <-h.ch:
		if !strings.Contains(e.Request.URL, want) {
			h.t.Fatalf("the page asked for %s, want %s", e.Request.URL, want)
		}
		return e
	case <-h.ctx.Done():
		h.t.Fatalf("the page never asked for %s", want)
		return nil
	}
}
