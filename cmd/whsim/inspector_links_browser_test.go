package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A call's links to the deliveries of its requestId stop at 50: the page
// said nothing of the rest. It says how many are not shown, and its
// search for the requestId lists them all.
func TestInspectorSaysTheLinksNotShown(t *testing.T) {
	ctx := newInspectorBrowser(t)
	l := startListenUI(t)
	const n = 52 // two past the 50 links shown
	for range n {
		l.post(t, "/webhook?businessType=CREATE_RECEIVABLE_DOC", []byte(`{"requestId":"r1","businessType":5007,"data":{"收款单":{"收款单编号":"SKD00000001"}}}`), nil)
	}
	var note string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(l.page()),
		chromedp.Click(fmt.Sprintf(`#rows tr[data-id="%d"]`, n), chromedp.ByQuery),
		chromedp.WaitVisible(`.detail .links.deliveries .not-shown`, chromedp.ByQuery),
		chromedp.Text(`.detail .links.deliveries .not-shown`, &note, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if want := "(2 older not shown: search the list for r1)"; !strings.Contains(note, want) {
		t.Errorf("the deliveries' note %q, want %q", note, want)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`.detail .links.deliveries a.search-related`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the search for the requestId", `document.getElementById("f-q").value === "r1" && document.querySelectorAll("#rows tr[data-id]").length === `+fmt.Sprint(n))
}
