package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/whsim/whsim/internal/capture"
)

// The bodies the inspector shows are Chinese, the page's own words English
// (lang="en"): the browser drew Han characters with the font its fallback
// picks for English, on Linux with Noto CJK "Noto Sans CJK JP": Japanese
// glyph forms for Chinese text. The page's font stacks name Simplified
// Chinese fonts (macOS's, Windows', Noto's, Source Han's) after the
// generic family, in its sans and its monospace text: Latin text keeps
// the generic family's font.
func TestInspectorDrawsChineseWithAChineseFont(t *testing.T) {
	out, err := exec.Command("fc-list", ":lang=zh-cn", "family").Output()
	if err != nil || !strings.Contains(string(out), "SC") {
		t.Skip("no Simplified Chinese font here (fc-list :lang=zh-cn names none; fonts-noto-cjk has one): nothing to check the page's choice against")
	}
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{"收款单":{"收款单编号":"SKD00000001"}}}`), nil)
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .tree`, chromedp.ByQuery),
		chromedp.ActionFunc(func(ctx context.Context) error { return css.Enable().Do(ctx) }),
	); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what, sel string
		latin     bool
	}{
		{"a key of the tree (monospace)", `document.querySelector('.tree [data-path="data.收款单"] > summary .key')`, false},
		{"a finding's message (sans)", `[...document.querySelectorAll("ul.findings .msg")].find((e) => /[\u4e00-\u9fff]/.test(e.textContent))`, false},
		{"a requestId (monospace, Latin)", `document.querySelector('#rows tr[data-id="1"] td.rid')`, true},
		{"a heading (sans, Latin)", `document.querySelector("h1")`, true},
	} {
		var ids []cdp.NodeID
		var fonts []*css.PlatformFontUsage
		if err := chromedp.Run(ctx,
			chromedp.NodeIDs(tc.sel, &ids, chromedp.ByJSPath),
			chromedp.ActionFunc(func(ctx context.Context) error {
				var err error
				fonts, err = css.GetPlatformFontsForNode(ids[0]).Do(ctx)
				return err
			}),
		); err != nil {
			t.Fatalf("%s: %v", tc.what, err)
		}
		if tc.latin {
			if strings.Contains(strings.Join(families(fonts), ","), "CJK") {
				t.Errorf("%s: drawn with %v, want the generic family's font, no CJK one", tc.what, families(fonts))
			}
			continue
		}
		var han []string
		for _, f := range fonts {
			if strings.Contains(f.FamilyName, "CJK") || strings.Contains(f.FamilyName, "Han") {
				han = append(han, f.FamilyName)
			}
		}
		if len(han) == 0 {
			t.Errorf("%s: drawn with %v, no CJK font", tc.what, families(fonts))
			continue
		}
		for _, f := range han {
			if !strings.HasSuffix(f, " SC") {
				t.Errorf("%s: its Han characters drawn with %q (of %v), want a Simplified Chinese font", tc.what, f, families(fonts))
			}
		}
	}
}

func families(fonts []*css.PlatformFontUsage) []string {
	var out []string
	for _, f := range fonts {
		out = append(out, f.FamilyName)
	}
	return out
}

// TestInspectorAxeInBrowser runs axe-core over the inspector with a call
// open and the list's row of a failed call (status 500, invalid)
// selected, light and dark: no serious or critical violation. It found
// the filters labelled only by their title (no visible label) and the
// selected row's red, amber, green and grey text below 4.5:1 on its blue.
func TestInspectorAxeInBrowser(t *testing.T) {
	axe := axeSource(t)
	if axe == "" {
		t.Skip("no axe-core (scripts/install-tools.sh npm-validators installs it; or set WHSIM_NPM_TOOLS)")
	}
	ctx := newInspectorBrowser(t)
	l := startListenUI(t, "--status", "500")
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{"收款单":{"收款单编号":"SKD00000001"}}}`), nil)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r2","businessType":5007,"data":{}}`), nil)
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .tree`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []string{"light", "dark"} {
		var got []axeViolation
		if err := chromedp.Run(ctx,
			emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}),
			chromedp.Evaluate(axe, nil),
			chromedp.Evaluate(`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations)`, &got,
				func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
		); err != nil {
			t.Fatal(err)
		}
		for _, v := range got {
			var where []string
			for _, n := range v.Nodes {
				where = append(where, strings.Join(n.Target, " "))
			}
			if v.Impact == "serious" || v.Impact == "critical" {
				t.Errorf("%s: axe-core %s (%s): %s, at %v", scheme, v.ID, v.Impact, v.Help, where)
			} else {
				t.Logf("%s: axe-core %s (%s): %s, at %v", scheme, v.ID, v.Impact, v.Help, where)
			}
		}
	}
}

// A JSON body of more values than the page builds a tree of (50,000) read
// "Not JSON: see the raw bytes below.": it says it is JSON, too large for
// the tree.
func TestInspectorSaysABodyIsTooLargeForATree(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{"x":[`+strings.Repeat("0,", 50000)+`0]}}`), nil)
	var body string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .tree`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="1"] .tree`, &body, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, "Not JSON") || !strings.Contains(body, "larger than the page shows as a tree (more than 50,000 values") {
		t.Errorf("the body of 50,004 values reads %q, want it said to be JSON too large for the tree", body)
	}
}

// A body nested 9,990 deep (20 KB, valid JSON) made the call's detail an
// answer of 200 and no bytes: the page never opened it, and the raw
// bytes, which would have shown it, never came. Nested 5,000 deep, its
// detail was 38 MB. It opens, says it is JSON nested too deep for a tree,
// and shows the raw bytes.
func TestInspectorOpensABodyNestedTooDeepForATree(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(strings.Repeat("[", 9990)+strings.Repeat("]", 9990)), nil)
	var body string
	var raw int
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .tree`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="1"] .tree`, &body, chromedp.ByQuery),
		chromedp.Click(`.detail[data-id="1"] details.raw summary`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] details.raw pre.body`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector(".detail[data-id='1'] details.raw pre.body").textContent.split("[").length - 1`, &raw),
	); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, "Not JSON") || !strings.Contains(body, "nested deeper than the page shows as a tree") {
		t.Errorf("the body nested 9,990 deep reads %q, want it said to be JSON nested too deep for the tree", body)
	}
	if raw != 9990 {
		t.Errorf("the body nested 9,990 deep: its raw bytes show %d of its 9,990 \"[\"", raw)
	}
}

// A call over listen's --max-body (answered 413, its body not kept) was
// offered as "copy as curl" with no body, a command that runs and sends
// another call, with nothing said; then it was said to have come cut
// short, which it did not: listen did not keep it. The page says so, in
// the body and where the commands were, and offers no command, download
// or replay of it. Its size is "over 1.0 KiB", in the list and the
// detail, as listen's line says: it read "0 B", the empty record's, a
// body the sender never sent.
func TestInspectorSaysABodyWasNotKept(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t, "--max-body", "1KiB")
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{"x":"`+strings.Repeat("x", 2048)+`"}}`), nil)
	var actions, body, cutShort, listed, meta string
	var buttons int
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.Text(`#rows tr[data-id="1"] td:nth-child(7)`, &listed, chromedp.ByQuery),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .actions`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="1"] .meta`, &meta, chromedp.ByQuery),
		chromedp.Evaluate(`(document.querySelector(".detail .actions .gone") || {}).textContent || ""`, &actions),
		chromedp.Evaluate(`document.querySelector(".detail[data-id='1']").textContent`, &body),
		chromedp.Evaluate(`(document.querySelector(".detail .cut-short") || {}).textContent || ""`, &cutShort),
		chromedp.Evaluate(`document.querySelectorAll(".detail .actions button").length`, &buttons),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(actions, "over listen's --max-body of 1024 bytes and was not kept") || buttons != 0 {
		t.Errorf("the call answered 413 offers %d buttons and says %q, want none and that its body was not kept", buttons, actions)
	}
	if !strings.Contains(body, "Not kept: over listen's --max-body of 1024 bytes") || cutShort != "" {
		t.Errorf("the call answered 413 reads %q (cut short: %q), want its body not kept and not cut short", body, cutShort)
	}
	if listed != "over 1.0 KiB" || !strings.Contains(meta, " · over 1.0 KiB · ") {
		t.Errorf("the call answered 413 is listed as of %q, its detail says %q; want its size over 1.0 KiB, not that of the empty record", listed, meta)
	}
}

// A request the HTTP server refused before listen read it has no body:
// the page offered curl, whsim send, a download and replay of an empty
// body, another call than the one that came. It says the request was not
// read, and by whom, and offers none of them. Its size is that of the
// head that came, as listen's line says ("63 B of head"), not 0 B, the
// empty body of its record.
func TestInspectorSaysARequestWasNotRead(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	u, err := url.Parse(l.webhook)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(conn, "POST /hook?businessType=CREATE_RECEIVABLE_DOC HTTP/1.1\r\nHost: x\r\nBad Name: v\r\nContent-Length: 2\r\n\r\n{}")
	answer, _ := io.ReadAll(conn) // net/http's 400, then the close
	conn.Close()
	if !bytes.HasPrefix(answer, []byte("HTTP/1.1 400 ")) {
		t.Fatalf("answered %q, want net/http's 400", answer)
	}
	var actions, body, listed, meta string
	var buttons int
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.Text(`#rows tr[data-id="1"] td:nth-child(7)`, &listed, chromedp.ByQuery),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .actions`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="1"] .meta`, &meta, chromedp.ByQuery),
		chromedp.Evaluate(`(document.querySelector(".detail .actions .gone") || {}).textContent || ""`, &actions),
		chromedp.Evaluate(`document.querySelector(".detail[data-id='1']").textContent`, &body),
		chromedp.Evaluate(`document.querySelectorAll(".detail .actions button, .detail .actions a.button, #replay").length`, &buttons),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(actions, "the HTTP server refused this request before listen could read it, so no body was kept") || buttons != 0 {
		t.Errorf("the refused call offers %d buttons and says %q, want none and that it was not read", buttons, actions)
	}
	if !strings.Contains(body, "Not read: Bad Request: invalid header name") || strings.Contains(body, "Raw bytes") {
		t.Errorf("the refused call reads %q, want why it was not read", body)
	}
	ofHead := regexp.MustCompile(`^[1-9][0-9]* B of head$`)
	if !ofHead.MatchString(listed) || !strings.Contains(meta, " · "+listed+" · ") {
		t.Errorf("the refused call is listed as of %q, its detail says %q; want the size of its head, as listen's line says", listed, meta)
	}
}

// A call whose record is larger than whsim reads back (64 MiB: listen
// took it under a --max-body above that) is in the capture, and the page
// lists it, saying it is too large to show: opened, it failed (500, "line
// 1 is larger than 64 MiB"), and once past the window, or in a search, it
// took every call of the listing with it.
func TestInspectorListsACallTooLargeToShow(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t, "--max-body", "100MiB")
	// Sent without post's 10 s bound: on a loaded machine listen may take
	// longer to check and record 65 MiB, and the test waits for its answer.
	req, err := http.NewRequest("POST", l.webhook+"webhook?businessType=CREATE_RECEIVABLE_DOC",
		strings.NewReader(`{"requestId":"r1","businessType":5007,"data":{"x":"`+strings.Repeat("x", 65<<20)+`"}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("listen answered %d, want 200", resp.StatusCode)
	}
	var cell, actions string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#rows tr[data-id="1"]').textContent`, &cell),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .actions`, chromedp.ByQuery),
		chromedp.Evaluate(`(document.querySelector(".detail .actions .gone") || {}).textContent || ""`, &actions),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cell, "65.0 MiB, too large to show") {
		t.Errorf("the call's row reads %q, want it too large to show", cell)
	}
	if !strings.Contains(actions, "is larger than the 64 MiB whsim reads back: too large to show") {
		t.Errorf("the call opened says %q, want why it is not shown", actions)
	}
}

// A Chinese name is typed through an input method: pinyin ("suzhou") is
// composed, then committed as 苏州. The page searched for every step of
// the composition (the pinyin letters, each an input event), listing
// calls that matched "suzhou" while the user was still choosing
// characters; it searches once the text is committed. And a search
// pasted with spaces around it (" SKD00000001 ") is searched without them.
// The page's timers run on the browser's virtual time: the test waits
// for no clock.
func TestInspectorSearchesWhatTheInputMethodCommits(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{"收款单":{"收款单编号":"SKD00000001","客户名称":{"name":"苏州市盛达新材料有限责任公司"}}}}`), nil)
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r2","businessType":5007,"data":{"note":"suzhou"}}`), nil)
	// Every search the page asks for, as it asks.
	const record = `(() => {
		const f = window.fetch; window.searched = [];
		window.fetch = (u, ...a) => { const q = new URL(u, location.href).searchParams.get("q"); if (q !== null && String(u).includes("api/calls?")) window.searched.push(q); return f(u, ...a); };
	})()`
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	// elapse runs the page's timers due in the next second of virtual time.
	elapse := func(what string) {
		t.Helper()
		expired := make(chan struct{}, 1)
		lctx, cancel := context.WithCancel(ctx)
		defer cancel()
		chromedp.ListenTarget(lctx, func(ev any) {
			if _, ok := ev.(*emulation.EventVirtualTimeBudgetExpired); ok {
				select {
				case expired <- struct{}{}:
				default:
				}
			}
		})
		run(what, chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := emulation.SetVirtualTimePolicy(emulation.VirtualTimePolicyAdvance).WithBudget(1000).Do(ctx)
			return err
		}))
		select {
		case <-expired:
		case <-ctx.Done():
			t.Fatalf("%s: the virtual second never ended", what)
		}
	}
	run("record the searches", chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(record).Do(ctx)
		return err
	}))
	run("open the page", chromedp.Navigate(l.page()))
	waitJS(t, ctx, "both calls listed", `document.querySelectorAll("#rows tr").length === 2`)
	run("compose suzhou", chromedp.Focus(`#f-q`, chromedp.ByQuery), input.ImeSetComposition("suzhou", 6, 6))
	elapse("the composition's second")
	run("commit 苏州", input.InsertText("苏州"))
	elapse("the commit's second")
	var searched []string
	run("read the searches", chromedp.Evaluate(`window.searched`, &searched))
	if len(searched) != 1 || searched[0] != "苏州" {
		t.Errorf("typing 苏州 through an input method searched %q, want only 苏州", searched)
	}
	run("paste a document number with spaces", chromedp.Evaluate(`(() => { const q = document.getElementById("f-q"); q.value = " SKD00000001 "; q.dispatchEvent(new InputEvent("input")); })()`, nil))
	elapse("the paste's second")
	run("read the searches", chromedp.Evaluate(`window.searched`, &searched))
	if last := searched[len(searched)-1]; last != "SKD00000001" {
		t.Errorf("the search pasted as \" SKD00000001 \" searched %q, want it without the spaces", last)
	}
}

// The raw bytes of a large body were put on the page whole: a 10 MB body
// that is not UTF-8 became a hex dump of 48 million characters and froze
// the tab for 9 s. They show a part at a time, as a large tree does: the
// first 64 KiB of a hex dump (1 MiB of text), then "show more", each
// part going on where the last ended, the offsets counting on.
func TestInspectorShowsLargeRawBytesAPartAtATime(t *testing.T) {
	ctx := newInspectorBrowser(t)
	const n = 150 << 10 // not UTF-8: shown as hex
	body := bytes.Repeat([]byte{0xff, 'a'}, n/2)
	var file []byte
	rec := &capture.Record{Time: time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC), Remote: "127.0.0.1:9", Method: "POST", Path: "/hook",
		Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{"Content-Type": {"application/json"}},
		Response: &capture.Response{Status: 200, Body: `{"status":200}`, BodyEncoding: capture.UTF8}}
	rec.SetBody(body)
	file, _ = capture.Append(file, rec)
	path := filepath.Join(t.TempDir(), "calls.ndjson")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	lines := `document.querySelector(".raw pre").textContent.split("\n").length`
	var shown int
	var more, last string
	var n2 int
	run("open the raw bytes",
		chromedp.Navigate(startInspect(t, path)+"#/calls/1"),
		chromedp.WaitVisible(`.detail[data-id="1"] .raw`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector(".raw").open = true`, nil),
		chromedp.WaitVisible(`.raw pre`, chromedp.ByQuery),
		chromedp.Evaluate(lines, &shown),
		chromedp.Evaluate(`(document.querySelector(".raw button.more") || {}).textContent || ""`, &more))
	if shown != 4096 || more != "show 64.0 KiB more of 150.0 KiB" {
		t.Fatalf("the raw bytes open with %d lines of hex and %q, want 4,096 (64 KiB) and a button for more", shown, more)
	}
	for i := 0; i < 2; i++ {
		run("show more", chromedp.Click(`.raw button.more`, chromedp.ByQuery))
	}
	run("read the dump", chromedp.Evaluate(lines, &shown),
		chromedp.Evaluate(`document.querySelector(".raw pre").textContent.split("\n").pop()`, &last),
		chromedp.Evaluate(`document.querySelectorAll(".raw button.more").length`, &n2))
	if shown != n/16 || !strings.HasPrefix(last, fmt.Sprintf("%08x  ff 61", n-16)) || n2 != 0 {
		t.Errorf("all shown: %d lines, the last %q, %d buttons left; want %d lines, the last at offset %x", shown, last, n2, n/16, n-16)
	}
}

// drawnOrder is a script saying, for each "12345" in a text node inside
// the elements sel matches, whether its "1" is drawn left of its "5"
// ("ltr") or not ("rtl"), comma-separated, "absent" when there is none.
// Each element is set on one line first: a line that wraps inside
// "12345" puts its "5" left of its "1".
func drawnOrder(sel string) string {
	return `(() => {
  const out = [];
  for (const root of document.querySelectorAll(` + "`" + sel + "`" + `)) {
    root.style.whiteSpace = "nowrap";
    root.style.overflowWrap = "normal";
    root.style.wordBreak = "normal";
    const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n; (n = w.nextNode()); ) {
      const i = n.data.indexOf("12345");
      if (i < 0) continue;
      const x = (k) => { const r = document.createRange(); r.setStart(n, i + k); r.setEnd(n, i + k + 1); return r.getBoundingClientRect().left; };
      out.push(x(0) < x(4) ? "ltr" : "rtl");
    }
  }
  return out.join(",") || "absent";
})()`
}

// A bidi control in a body reordered what the page drew after it: with a
// key "备注\u202e" (RIGHT-TO-LEFT OVERRIDE), the value beside it,
// "12345", was drawn "54321"; in the request line a path holding one
// drew the query backwards. listen's terminal escapes such characters.
// The tree shows them as JSON escapes (\u202e), and each part of the
// request line is drawn on its own.
func TestInspectorDrawsValuesInOrderAfterABidiControl(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/hook\u202e/x?businessType=CREATE_RECEIVABLE_DOC&page=12345", []byte(`{"requestId":"r1","businessType":5007,"data":{"备注\u202e":"12345"}}`), nil)
	var tree, line, key string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .tree`, chromedp.ByQuery),
		chromedp.Evaluate(drawnOrder(`.detail[data-id="1"] .tree`), &tree),
		chromedp.Evaluate(drawnOrder(`.detail[data-id="1"] h2`), &line),
		chromedp.Evaluate(`[...document.querySelectorAll('.detail[data-id="1"] .tree .key')].map((e) => e.textContent).find((t) => t.includes("备注")) || ""`, &key),
	); err != nil {
		t.Fatal(err)
	}
	if tree != "ltr" || line != "ltr" {
		t.Errorf("after a U+202E, 12345 is drawn %s in the tree and %s in the request line, want ltr in both", tree, line)
	}
	if key != `"备注\u202e"` {
		t.Errorf("the key shows as %q, want its bidi control escaped", key)
	}
}

// The same bidi control in a header value, a query value or a requestId
// reordered what the page drew after it in the Headers and Query tables
// and in the list's row ("12345" drawn "54321"), where the tree showed it
// escaped: each is shown as a visible mark there too.
func TestInspectorDrawsTableValuesInOrderAfterABidiControl(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/hook?businessType=CREATE_RECEIVABLE_DOC&n=%E2%80%AE12345",
		[]byte(`{"requestId":"r\u202e12345","businessType":5007,"data":{}}`), http.Header{"X-Note": {"a\u202e12345"}})
	var tables, row string
	var titles []string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.Evaluate(drawnOrder(`#rows tr[data-id="1"] td.rid`), &row),
		chromedp.Evaluate(`[...document.querySelectorAll('#rows tr[data-id="1"] td[title]')].map(td => td.title)`, &titles),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] table.kv`, chromedp.ByQuery),
		chromedp.Evaluate(drawnOrder(`.detail[data-id="1"] table.kv td`), &tables),
	); err != nil {
		t.Fatal(err)
	}
	// The query's and the header's values, then the answer's table (no
	// 12345 there).
	if tables != "ltr,ltr" || row != "ltr" {
		t.Errorf("after a U+202E, 12345 is drawn %q in the tables and %q in the list's row, want ltr everywhere", tables, row)
	}
	// A cell's tooltip is text too: the requestId's shows the escape, not
	// the control that would draw it backwards on hover.
	rid := false
	for _, tt := range titles {
		if strings.ContainsRune(tt, '\u202e') {
			t.Errorf("a tooltip of the list's row holds U+202E: %q", tt)
		}
		rid = rid || tt == `r\u202e12345`
	}
	if !rid {
		t.Errorf("no tooltip of the list's row is the requestId with its escape, r\\u202e12345: %q", titles)
	}
}

// A call's heading drew a bidi control in its path, and the requestId
// under it, as the control, where the list shows its escape: a requestId
// "r\u202e12345" read "r54321" above the call, and a path "/hook\u202e12345"
// read "/hook54321", another id and another path than the list's and the
// receiver's logs. The event filter named an event so sent with the raw
// control too. Each shows the visible escape now.
func TestInspectorDrawsTheCallsHeadingInOrderAfterABidiControl(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/hook%E2%80%AE12345?businessType=%E2%80%AE12345",
		[]byte(`{"requestId":"r\u202e12345","businessType":5007,"data":{}}`), nil)
	var heading, meta string
	var options []string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] p.meta`, chromedp.ByQuery),
		chromedp.Evaluate(drawnOrder(`.detail[data-id="1"] h2`), &heading),
		chromedp.Evaluate(drawnOrder(`.detail[data-id="1"] p.meta`), &meta),
		chromedp.Evaluate(`[...document.querySelectorAll('#f-event option')].map(o => o.textContent)`, &options),
	); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(heading, "rtl") || heading == "absent" || meta != "ltr" {
		t.Errorf("after a U+202E, 12345 is drawn %q in the call's request line and %q in the line under it, want ltr", heading, meta)
	}
	for _, o := range options {
		if strings.ContainsRune(o, '\u202e') {
			t.Errorf("the event filter's option %q holds U+202E, want its escape", o)
		}
	}
}

// The links between a call's deliveries and the calls about its document
// drew a bidi control in a document number ("Calls about purchase invoice
// \u202eC12345: #1 → #3") or in a delivery's event as the control, which
// reordered the links after it in the line. They show its escape now.
func TestInspectorDrawsTheLinksInOrderAfterABidiControl(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	body := func(rid string) []byte {
		return []byte(`{"requestId":"` + rid + `","businessType":4010,"data":{"code":"\u202eC12345"}}`)
	}
	l.post(t, "/?businessType=CREATE_PURCHASE_ORDER_INVOICE", body("r-1"), nil)
	l.post(t, "/?businessType=%E2%80%AE12345", body("r-1"), nil)
	l.post(t, "/?businessType=CREATE_PURCHASE_ORDER_INVOICE", body("r-2"), nil)
	var raw []string
	var kinds []string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] p.links.document`, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('.detail[data-id="1"] p.links')].map(p => p.className)`, &kinds),
		chromedp.Evaluate(`(() => {
  const out = [];
  for (const p of document.querySelectorAll('.detail[data-id="1"] p.links')) {
    const w = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
    for (let n; (n = w.nextNode()); ) if (n.data.includes("\u202e")) out.push(n.data);
  }
  return out;
})()`, &raw),
	); err != nil {
		t.Fatal(err)
	}
	if len(kinds) != 2 {
		t.Fatalf("the call's links are %q, want its deliveries and its document's", kinds)
	}
	for _, r := range raw {
		t.Errorf("a link line draws U+202E as the control: %q", r)
	}
}

// The diff of two calls drew a bidi control in a requestId, a member's
// name or a value as the control: "requestId differs (r\u202e12345 → r-2):
// expected between deliveries" drew the sentence after the id reordered,
// and a value "\u202e12345" read "54321" in its column. The diff shows
// their escapes, as the tree does.
func TestInspectorDrawsTheDiffInOrderAfterABidiControl(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r\u202e12345","businessType":5007,"data":{"k\u202e":"\u202e12345"}}`), nil)
	l.post(t, "/?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r-2","businessType":5007,"data":{"k\u202e":"x"}}`), nil)
	var raw []string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()), chromedp.WaitVisible(`#rows tr[data-id="2"]`, chromedp.ByQuery),
		chromedp.Evaluate(`location.hash = "#/calls/1"`, nil),
		chromedp.WaitVisible(`.detail[data-id="1"] #diff-base`, chromedp.ByQuery), chromedp.Click(`#diff-base`, chromedp.ByQuery),
		chromedp.Evaluate(`location.hash = "#/calls/2"`, nil),
		chromedp.WaitVisible(`.detail[data-id="2"] #diff`, chromedp.ByQuery), chromedp.Click(`#diff`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail .diff table`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => {
  const out = [];
  const w = document.createTreeWalker(document.querySelector(".detail .diff"), NodeFilter.SHOW_TEXT);
  for (let n; (n = w.nextNode()); ) if (n.data.includes("\u202e")) out.push(n.data);
  return out;
})()`, &raw),
	); err != nil {
		t.Fatal(err)
	}
	for _, r := range raw {
		t.Errorf("the diff draws U+202E as the control: %q", r)
	}
}

// A receiver's 2xx whose body is over --max-body goes to the sender cut
// at the limit (forward.bodyCut says so in the record, the line and the
// JSON), but the page showed the receiver's answer as whole: "the
// receiver answered 200" over 16 bytes of its 40, and a reader took them
// for all it said. It says the body was cut, where the answer is shown.
func TestInspectorSaysAForwardedAnswerWasCut(t *testing.T) {
	receiverSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, strings.Repeat("x", 40))
	}))
	defer receiverSrv.Close()
	ctx := newInspectorBrowser(t)
	l := startListenUI(t, "--forward-to", receiverSrv.URL, "--max-body", "16B")
	l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{}`), nil)
	var detail string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] .actions`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector(".detail[data-id='1']").textContent`, &detail),
	); err != nil {
		t.Fatal(err)
	}
	const cut = "the receiver's answer body was over the body limit (16 bytes): the sender got, and the record holds, its first 16 bytes"
	if !strings.Contains(detail, "answered 200") || !strings.Contains(detail, cut) {
		t.Errorf("the call whose answer was cut reads %q, want the receiver's 200 and %q", detail, cut)
	}
}

// A re-delivery refused before its accepted original was answered is
// flagged under the original's line, "of call #N": the page shows that
// FLAG under the original too, naming and linking the call it judges, as
// listen's line does. The page dropped it, and showed it nowhere (found
// by fw46).
func TestInspectorShowsAFlagOfAnotherCall(t *testing.T) {
	ctx := newInspectorBrowser(t)
	at := time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)
	body := bytes.TrimSpace(generate(t, "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1", "--output", "ndjson"))
	forwarded := func(came time.Time, status int) *capture.Record {
		rec := &capture.Record{Time: came, Remote: "127.0.0.1:9", Method: "POST", Path: "/hook",
			Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{"Content-Type": {"application/json"}},
			Response: &capture.Response{Status: status, Body: `{}`, BodyEncoding: capture.UTF8},
			Forward:  &capture.Forward{URL: "http://127.0.0.1:3000/erp", Status: status}}
		rec.SetBody(body)
		return rec
	}
	var file []byte
	file, _ = capture.Append(file, forwarded(at.Add(time.Second), 409)) // #1: the re-delivery, answered first
	file, _ = capture.Append(file, forwarded(at, 200))                  // #2: the original, came first
	path := filepath.Join(t.TempDir(), "calls.ndjson")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	var flags, link string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(startInspect(t, path)+"#/calls/2"),
		chromedp.WaitVisible(`.detail[data-id="2"] ul.flags`, chromedp.ByQuery),
		chromedp.Text(`.detail[data-id="2"] ul.flags`, &flags, chromedp.ByQuery),
		chromedp.Evaluate(`(document.querySelector('.detail[data-id="2"] ul.flags a') || {getAttribute: () => ""}).getAttribute("href")`, &link),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(flags, "FLAG duplicates, of call #1 (printed before this one): requestId ") || !strings.Contains(flags, "was accepted (2xx) in call #2, which came before its re-delivery #1") || link != "#/calls/1" {
		t.Errorf("call 2's flags %q, link %q; want the duplicates flag of call #1, linked", flags, link)
	}
}

// A bidi control in a key the spec does not have reordered the findings
// list after it: its path ("data.备注\u202e12345") and the message naming
// it were drawn as the control, "12345" read "54321", where the tree and
// the tables show its escape. Each is shown as a visible mark there too.
func TestInspectorDrawsFindingsInOrderAfterABidiControl(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	l.post(t, "/hook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{"备注\u202e12345":1}}`), nil)
	var findings string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.WaitVisible(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.Click(`#rows tr[data-id="1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.detail[data-id="1"] ul.findings`, chromedp.ByQuery),
		chromedp.Evaluate(drawnOrder(`.detail[data-id="1"] ul.findings li`), &findings),
	); err != nil {
		t.Fatal(err)
	}
	if findings == "absent" || strings.Contains(findings, "rtl") {
		t.Errorf("after a U+202E in a key, 12345 is drawn %q in the findings, want ltr each time it is named", findings)
	}
}
