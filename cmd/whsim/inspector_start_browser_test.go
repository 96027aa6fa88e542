package main

import (
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
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
