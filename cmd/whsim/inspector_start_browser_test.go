package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/whsim/whsim/internal/capture"
)

// The page's first requests (the inspector's info, then the first
// listing) failing left it blank but for "No calls yet.": no call listed,
// nothing said, nothing tried again. Later failures said what failed and
// what comes next; the first says so too, says nothing of calls it could
// not list, and lists once the inspector answers.
func TestInspectorSaysWhenItsFirstListingFails(t *testing.T) {
	for _, tc := range []struct{ name, pattern string }{
		{"info", "*/api/info*"},
		{"listing", "*/api/calls?*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newInspectorBrowser(t)
			l := startListenUI(t)
			l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{}}`), nil)
			var fail atomic.Bool
			fail.Store(true)
			refuseWhile(t, ctx, &fail, tc.pattern, `{"error":"inspector: the capture file could not be read"}`)
			if err := chromedp.Run(ctx, chromedp.Navigate(l.page())); err != nil {
				t.Fatal(err)
			}
			conn := `document.getElementById("conn")`
			waitJS(t, ctx, "the failed first listing said", `!`+conn+`.hidden && `+conn+`.textContent.includes("could not list the calls") && `+
				conn+`.textContent.includes("the capture file could not be read") && `+conn+`.textContent.includes("tries again")`)
			var empty bool
			if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("list-empty").hidden`, &empty)); err != nil {
				t.Fatal(err)
			}
			if !empty {
				t.Errorf(`the page says "No calls yet." while it could not list them`)
			}
			fail.Store(false)
			waitJS(t, ctx, "the list once the inspector answers", conn+`.hidden && document.querySelectorAll("#rows tr").length === 1`)
			l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r2","businessType":5007,"data":{}}`), nil)
			waitJS(t, ctx, "the next call live", `document.querySelector("#rows tr").dataset.id === "2"`)
		})
	}
}

// A call whose body left the inspector's memory (listen --ui without
// --capture, past its 64 MiB of bodies) was offered as "copy as curl",
// which copied a command sending an empty body: another call than this
// one, with nothing to say so. The page offers no command, download or
// replay of it, and says why where they were; a call kept whole has them.
// A diff with it is refused, and said: it compared nothing with a body.
func TestInspectorOffersNoCommandForACallWhoseBodyIsGone(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUIWith(t, false)
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	controls := `document.querySelectorAll(".detail .actions button, .detail .actions a, #replay").length`
	run("open the page", chromedp.Navigate(l.page()))
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{}}`), nil)
	var whole string
	var wholeControls int
	run("open call 1, kept whole",
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .actions`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="1"] .actions`, &whole, chromedp.ByQuery),
		chromedp.Evaluate(controls, &wholeControls),
		chromedp.Click(`#diff-base`, chromedp.ByQuery))
	if wholeControls != 5 || !strings.Contains(whole, "copy as curl") || !strings.Contains(whole, "copy as whsim send") || !strings.Contains(whole, "download body") {
		t.Errorf("call 1, kept whole: %d controls, actions %q; want its commands, download, diff base and replay", wholeControls, whole)
	}
	// Four bodies of 9 MB, each counted twice (its bytes and the record's
	// text), take the window past 64 MiB: call 1's body leaves memory.
	// Each is waited for in the list, so that each is in the window.
	for id := 2; id <= 5; id++ {
		big := fmt.Appendf(nil, `{"requestId":"r%d","businessType":5007,"data":{"pad":"%s"}}`, id, strings.Repeat("x", 9<<20))
		l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", big, nil)
		waitJS(t, ctx, fmt.Sprintf("call %d listed", id), fmt.Sprintf(`document.querySelector('#rows tr[data-id="%d"]') !== null`, id))
	}
	var gone string
	var goneControls int
	run("open call 1 again, its body gone",
		chromedp.Click(`#rows tr[data-id="2"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="2"] .actions`, chromedp.ByQuery),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .actions`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="1"] .actions`, &gone, chromedp.ByQuery),
		chromedp.Evaluate(controls, &goneControls))
	if goneControls != 0 || !strings.Contains(gone, "body left memory") {
		t.Errorf("call 1, its body gone: %d command, download, diff or replay controls, actions %q; want none, and why", goneControls, gone)
	}
	var diff string
	run("diff call 5 with call 1, the base",
		chromedp.Click(`#rows tr[data-id="5"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="5"] #diff`, chromedp.ByQuery),
		chromedp.Click(`#diff`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="5"] .diff .error`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="5"] .diff`, &diff, chromedp.ByQuery))
	if !strings.Contains(diff, "call 1: not compared") {
		t.Errorf("the diff with call 1, its body gone, reads %q; want it refused, saying why", diff)
	}
}

// A call whsim send would not send again (here one of an event the spec
// does not name, which send refuses) was offered "copy as whsim send"
// all the same, a command that exits 2. The page offers curl only and
// says why there is no send command.
func TestInspectorOffersNoSendCommandItCannotRun(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUIWith(t, false)
	l.post(t, "/webhook?businessType=FOO", []byte(`{"requestId":"r1","businessType":5007,"data":{}}`), nil)
	var actions string
	var sendButtons int
	if err := chromedp.Run(ctx, chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .actions`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="1"] .actions`, &actions, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll(".detail .actions button")].filter(b => b.textContent.includes("whsim send")).length`, &sendButtons)); err != nil {
		t.Fatal(err)
	}
	if sendButtons != 0 || !strings.Contains(actions, "copy as curl") || !strings.Contains(actions, `No whsim send command: its businessType "FOO" is no event of the spec`) {
		t.Errorf("call of event FOO: %d send buttons, actions %q; want curl only, and why no send", sendButtons, actions)
	}
}

// A capture edited by hand whose header value holds a CR LF was offered
// "copy as curl" all the same: curl sent the line after the CR LF as a
// header of its own, a request nobody made, which whsim replay refuses.
// The page offers no command for such a record, and says why; the call
// beside it, whole, keeps its commands.
func TestInspectorOffersNoCommandForARecordReplayRefuses(t *testing.T) {
	ctx := newInspectorBrowser(t)
	path := filepath.Join(t.TempDir(), "edited.ndjson")
	line := `{"capture":1,"time":"2026-11-01T10:00:00Z","remote":"127.0.0.1:5","method":"POST","path":"/hook","query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Type":["application/json"],"X-A":[%q]},"body":"{}","bodyEncoding":"utf8"}` + "\n"
	capture := fmt.Sprintf(line, "v\r\nInjected: 1") + fmt.Sprintf(line, "v")
	if err := os.WriteFile(path, []byte(capture), 0o600); err != nil {
		t.Fatal(err)
	}
	page := startInspect(t, path)
	for _, tc := range []struct {
		id      string
		buttons int
		said    string
	}{
		{"1", 0, `No curl or whsim send command: this record is no request to send again (header "X-A": its value holds the control character 0x0d).`},
		{"2", 2, "copy as curl"},
	} {
		var actions string
		var buttons int
		if err := chromedp.Run(ctx, chromedp.Navigate(page),
			chromedp.Click(`#rows tr[data-id="`+tc.id+`"]`, chromedp.ByQuery),
			chromedp.WaitVisible(`.detail[data-id="`+tc.id+`"] .actions`, chromedp.ByQuery),
			chromedp.Text(`.detail[data-id="`+tc.id+`"] .actions`, &actions, chromedp.ByQuery),
			chromedp.Evaluate(`[...document.querySelectorAll(".detail .actions button")].filter(b => b.textContent.startsWith("copy as")).length`, &buttons)); err != nil {
			t.Fatal(err)
		}
		if buttons != tc.buttons || !strings.Contains(actions, tc.said) {
			t.Errorf("call %s: %d copy buttons, actions %q; want %d, and %q", tc.id, buttons, actions, tc.buttons, tc.said)
		}
	}
}

// startInspect runs `whsim inspect path` on a free port and returns the
// URL it printed (the page, with its token).
func startInspect(t *testing.T, path string) string {
	t.Helper()
	ready := filepath.Join(t.TempDir(), "ui.txt")
	var stderr syncBuffer
	cmd := exec.Command("whsim", "inspect", path, "--ui", "127.0.0.1:0", "--ready-file", ready)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(ready); len(b) > 0 {
			return strings.TrimSpace(string(b))
		}
	}
	t.Fatalf("inspect did not start: %s", stderr.String())
	return ""
}

// A search that finds nothing in the newest calls it may look at (20,000
// a request) gave the page no call to stream after: its stream started at
// call 1 and sent the old call found, which "search older calls" then
// listed again, the call twice in the list. The stream goes on after the
// newest call the listing looked at. The list, empty meanwhile, said "No
// calls yet.": it says no call matches the search so far, or at all.
func TestInspectorSearchListsAnOldCallOnce(t *testing.T) {
	ctx := newInspectorBrowser(t)
	const n = 20001 // one more than a request's search looks at
	var file []byte
	for i := 1; i <= n; i++ {
		rec := &capture.Record{Time: time.Date(2026, 11, 23, 1, 0, 0, i, time.UTC), Remote: "127.0.0.1:9", Method: "POST", Path: "/hook",
			Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{"Content-Type": {"application/json"}},
			Response: &capture.Response{Status: 200, Body: `{"status":200}`, BodyEncoding: capture.UTF8}}
		doc := fmt.Sprintf("SKD%08d", i)
		if i == 1 {
			doc = "SKD-NEEDLE"
		}
		rec.SetBody(fmt.Appendf(nil, `{"requestId":"r-%d","businessType":5007,"data":{"收款单":{"收款单编号":"%s"}}}`, i, doc))
		file, _ = capture.Append(file, rec)
	}
	path := filepath.Join(t.TempDir(), "calls.ndjson")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	page := startInspect(t, path)
	streams := holdRequests(t, ctx, "*/api/stream*")
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	run("open the page", chromedp.Navigate(page))
	run("the first stream", fetch.ContinueRequest(streams.next("/api/stream").RequestID))
	run("search", chromedp.Evaluate(`(() => { const q = document.getElementById("f-q"); q.value = "NEEDLE"; q.dispatchEvent(new Event("input")); })()`, nil))
	searched := streams.next("q=NEEDLE")
	if want := fmt.Sprintf("after=%d&", n); !strings.Contains(searched.Request.URL+"&", want) {
		t.Errorf("the search's stream is %s, want it to go on after the newest call the search looked at (%s)", searched.Request.URL, want)
	}
	run("the search's stream", fetch.ContinueRequest(searched.RequestID), fetch.Disable())
	waitJS(t, ctx, "search older calls offered", `!document.getElementById("older").hidden && document.getElementById("older").textContent.startsWith("search older")`)
	// The list, empty so far, said "No calls yet." of a capture of 20,001.
	var empty string
	run("read the empty list's note", chromedp.Text(`#list-empty`, &empty, chromedp.ByQuery))
	if !strings.Contains(empty, "No call matches the search or filters among the calls looked at so far") || !strings.Contains(empty, "search older calls") {
		t.Errorf("the empty list reads %q, want it to say no call matches yet, and how to look further", empty)
	}
	run("search older calls", chromedp.Click(`#older`, chromedp.ByQuery))
	waitJS(t, ctx, "the old call found", `document.getElementById("older").hidden && document.querySelector('#rows tr[data-id="1"]') !== null`)
	var ids []string
	run("read the list", chromedp.Evaluate(`[...document.querySelectorAll("#rows tr")].map((tr) => tr.dataset.id)`, &ids))
	if len(ids) != 1 {
		t.Errorf("the search lists calls %v, want call 1 once", ids)
	}
	run("search for what no call has", chromedp.Evaluate(`(() => { const q = document.getElementById("f-q"); q.value = "NOWHERE"; q.dispatchEvent(new Event("input")); })()`, nil))
	waitJS(t, ctx, "the search that found nothing", `document.querySelectorAll("#rows tr").length === 0 && document.getElementById("older").textContent.startsWith("search older")`)
	waitJS(t, ctx, "search older calls to the end", `(() => { const b = document.getElementById("older"); if (!b.hidden) b.click(); return b.hidden; })()`)
	run("read the empty list's note", chromedp.Text(`#list-empty`, &empty, chromedp.ByQuery))
	if empty != "No call matches the search or filters." {
		t.Errorf("the list of a search that found nothing reads %q", empty)
	}
}

// "load older calls" pressed twice before its answer came (a double
// click) asked twice for the same calls and listed each twice; a filter
// changed while it loaded had the old filter's calls appended to the new
// listing. One load at a time, and one a new listing outdated is dropped.
func TestInspectorLoadsOlderCallsOnce(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	sendCalls(t, l, "CREATE_RECEIVABLE_DOC", 250)
	// Counts the page's requests for older calls as it makes them, and
	// says when the page has done with an answer: olderAnswered is set in a
	// task after the answer's JSON, so after the microtasks that list it.
	const count = `(() => {
		const f = window.fetch; window.olderAsked = 0; window.olderAnswered = false;
		window.fetch = (u, ...a) => { if (String(u).includes("before=")) window.olderAsked++; return f(u, ...a); };
		const json = Response.prototype.json;
		Response.prototype.json = function () {
			const p = json.call(this);
			if (this.url.includes("before=")) p.then(() => setTimeout(() => { window.olderAnswered = true; }, 0));
			return p;
		};
	})()`
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	run("count the page's requests", chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(count).Do(ctx)
		return err
	}))
	run("open the page", chromedp.Navigate(l.page()))
	waitJS(t, ctx, "the first 200 listed", `document.querySelectorAll("#rows tr").length === 200 && !document.getElementById("older").hidden`)
	var asked int
	run("double-click load older", chromedp.Evaluate(`(() => { const b = document.getElementById("older"); b.click(); b.click(); return window.olderAsked; })()`, &asked))
	if asked != 1 {
		t.Errorf("a double click on \"load older calls\" asked %d times for them, want once", asked)
	}
	waitJS(t, ctx, "the older calls listed", `document.querySelectorAll("#rows tr").length >= 250 && document.getElementById("older").hidden`)
	var rows, distinct int
	run("read the list", chromedp.Evaluate(`document.querySelectorAll("#rows tr").length`, &rows),
		chromedp.Evaluate(`new Set([...document.querySelectorAll("#rows tr")].map((tr) => tr.dataset.id)).size`, &distinct))
	if rows != 250 || distinct != 250 {
		t.Errorf("the list has %d rows, %d calls, want the 250 once each", rows, distinct)
	}

	// A filter changed while older calls load: the load's answer, the
	// unfiltered calls, is not added to the filter's list.
	run("open the page again", chromedp.Navigate(l.page()))
	waitJS(t, ctx, "the first 200 listed", `document.querySelectorAll("#rows tr").length === 200 && !document.getElementById("older").hidden`)
	older := holdRequests(t, ctx, "*before=*")
	run("load older", chromedp.Click(`#older`, chromedp.ByQuery))
	held := older.next("before=")
	run("filter by an event no call has", chromedp.SetValue(`#f-event`, "ABANDON_RECEIVABLE_DOC", chromedp.ByQuery))
	waitJS(t, ctx, "the filter's empty list", `document.querySelectorAll("#rows tr").length === 0 && !document.getElementById("list-empty").hidden`)
	run("answer the load", fetch.ContinueRequest(held.RequestID), fetch.Disable())
	// Polled each frame: a load dropped changes nothing on the page.
	run("the load answered", chromedp.Poll(`window.olderAnswered`, nil, chromedp.WithPollingTimeout(30*time.Second)))
	run("read the list", chromedp.Evaluate(`document.querySelectorAll("#rows tr").length`, &rows))
	if rows != 0 {
		t.Errorf("the list filtered by an event no call has shows %d rows: the older calls loaded before the filter changed", rows)
	}
}

// A call whose sender never got listen's answer (its record's
// "unanswered") was listed with the status listen had ready, green, as
// if delivered: the list says it was not received.
func TestInspectorListsAnUnansweredCallAsNotReceived(t *testing.T) {
	ctx := newInspectorBrowser(t)
	var file []byte
	for i := 1; i <= 2; i++ {
		rec := &capture.Record{Time: time.Date(2026, 11, 23, 1, 0, 0, i, time.UTC), Remote: "127.0.0.1:9", Method: "POST", Path: "/hook",
			Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{"Content-Type": {"application/json"}},
			Response: &capture.Response{Status: 200, Body: `{"status":200}`, BodyEncoding: capture.UTF8}}
		if i == 1 {
			rec.Unanswered = &capture.Unanswered{Rule: "http-sender-gone", Reason: "the sender closed its connection before the answer: it did not wait for the 200"}
		}
		rec.SetBody(fmt.Appendf(nil, `{"requestId":"r-%d","businessType":5007,"data":{}}`, i))
		file, _ = capture.Append(file, rec)
	}
	path := filepath.Join(t.TempDir(), "calls.ndjson")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	var unanswered, answered string
	if err := chromedp.Run(ctx, chromedp.Navigate(startInspect(t, path)),
		chromedp.WaitVisible(`#rows tr[data-id="1"] td.status`, chromedp.ByQuery),
		chromedp.Text(`#rows tr[data-id="1"] td.status`, &unanswered, chromedp.ByQuery),
		chromedp.Text(`#rows tr[data-id="2"] td.status`, &answered, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if unanswered != "none (200 unsent)" || answered != "200" {
		t.Errorf("the list's status cells read %q (unanswered) and %q (answered), want %q and %q", unanswered, answered, "none (200 unsent)", "200")
	}
}
