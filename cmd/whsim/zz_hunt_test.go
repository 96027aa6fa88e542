package main

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

func TestZZHuntReport(t *testing.T) {
	for _, file := range strings.Split(os.Getenv("HUNT_FILES"), ",") {
		t.Run(file, func(t *testing.T) {
			p := openReport(t, file)
			var width int
			var wide []string
			var text string
			var alerts int
			p.run(t, "measure",
				emulation.SetDeviceMetricsOverride(1280, 900, 1, false),
				chromedp.Evaluate(`document.querySelectorAll("details").forEach(d => d.open = true)`, nil),
				chromedp.Evaluate(`document.documentElement.scrollWidth`, &width),
				chromedp.Evaluate(`[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > 1280 && !e.closest("pre")).slice(0,8).map(e => e.tagName+"."+e.className+": "+e.textContent.slice(0,80))`, &wide),
				chromedp.Evaluate(`document.querySelectorAll("img,iframe,object,embed").length`, &alerts),
				chromedp.Evaluate(`document.body.innerText.slice(0, 1500)`, &text))
			t.Logf("width %d, wide %q, injected elements %d", width, wide, alerts)
			t.Logf("text: %s", text)
			p.clean(t)
		})
	}
}
