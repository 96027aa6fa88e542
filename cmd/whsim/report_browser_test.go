package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// reportPage is an HTML report open in headless Chromium with the network
// off, recording what the page logged as an error and every request it
// made that was not the file itself.
type reportPage struct {
	ctx      context.Context
	mu       sync.Mutex
	errors   []string
	requests []string
}

func openReport(t *testing.T, file string) *reportPage {
	t.Helper()
	ctx := newBrowser(t, 90*time.Second)
	p := &reportPage{ctx: ctx}
	url := "file://" + file
	chromedp.ListenTarget(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError || ev.Type == runtime.APITypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value))
				}
				p.errors = append(p.errors, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			p.errors = append(p.errors, "exception: "+ev.ExceptionDetails.Error())
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.LevelError || ev.Entry.Level == log.LevelWarning {
				p.errors = append(p.errors, "log: "+ev.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			if ev.Request.URL != url {
				p.requests = append(p.requests, ev.Request.URL)
			}
		}
	})
	p.run(t, "open the report offline",
		network.Enable(), log.Enable(), runtime.Enable(),
		network.EmulateNetworkConditions(true, 0, -1, -1),
		chromedp.Navigate(url),
		chromedp.WaitReady(`html[data-ready="1"]`, chromedp.ByQuery))
	return p
}

func (p *reportPage) run(t *testing.T, what string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(p.ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// clean fails the test for anything the page logged as an error and for
// any request beyond the file.
func (p *reportPage) clean(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errors {
		t.Errorf("the page logged %s", e)
	}
	for _, r := range p.requests {
		t.Errorf("the page asked for %s", r)
	}
}

// TestCheckReportInBrowser: with WHSIM_SCREENSHOTS=dir it also writes the
// README's screenshots of the reports there (docs/reports). A receiver that answers 200 to everything
// drops malformed calls; its check report shows that case with its
// request, the answer and the command that reproduces it.
func TestCheckReportInBrowser(t *testing.T) {
	if findChromium() == "" {
		t.Skip("no Chromium on PATH (chromium, chromium-browser or google-chrome): the browser tests need one")
	}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "ok")
	}))
	defer recv.Close()
	file := filepath.Join(t.TempDir(), "check.html")
	out, err := exec.Command("whsim", "check", "--url", recv.URL+"/hook", "--seed", "1",
		"--checks", "accepts-valid,rejects-malformed,duplicates", "--report", file).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("check exited %v, want 1 (rejects-malformed fails)\n%s", err, out)
	}
	p := openReport(t, file)

	var verdict, headline, overview string
	p.run(t, "read the verdict",
		chromedp.Text(`#verdict`, &verdict, chromedp.ByQuery),
		chromedp.Text(`#headline`, &headline, chromedp.ByQuery),
		chromedp.Text(`#checks`, &overview, chromedp.ByQuery))
	if verdict != "FAIL" || !strings.Contains(headline, "rejects-malformed") {
		t.Errorf("verdict %q, headline %q", verdict, headline)
	}
	for _, id := range []string{"accepts-valid", "rejects-malformed", "duplicates"} {
		if !strings.Contains(overview, id) {
			t.Errorf("the checks table has no %s: %q", id, overview)
		}
	}
	const failing = `section[data-check="rejects-malformed"] details.case[data-case="not-json"]`
	var request, answer, repro string
	p.run(t, "read the failing case",
		chromedp.Text(failing+` pre.request`, &request, chromedp.ByQuery),
		chromedp.Text(failing+` dd.answer`, &answer, chromedp.ByQuery),
		chromedp.Text(failing+` pre.repro`, &repro, chromedp.ByQuery))
	if !strings.HasPrefix(request, "POST "+recv.URL+"/hook?businessType=") || !strings.Contains(request, "this is not JSON") {
		t.Errorf("request shown as %q", request)
	}
	if !strings.Contains(answer, "HTTP 200") || !strings.Contains(answer, "want 4xx") {
		t.Errorf("answer shown as %q", answer)
	}
	if !strings.HasPrefix(repro, "curl ") || !strings.Contains(repro, recv.URL+"/hook?businessType=") || !strings.Contains(repro, "this is not JSON") {
		t.Errorf("reproduction shown as %q", repro)
	}
	var passing int
	p.run(t, "count the failures of a passing check",
		chromedp.Evaluate(`document.querySelectorAll('section[data-check="accepts-valid"] details.case').length`, &passing))
	if passing != 0 {
		t.Errorf("accepts-valid passed but shows %d failing cases", passing)
	}

	// Dark: the page follows the reader's scheme.
	var light, dark string
	bg := `getComputedStyle(document.body).backgroundColor`
	p.run(t, "light", chromedp.Evaluate(bg, &light))
	shot(t, p.ctx, "report-check.png")
	p.run(t, "scroll to the failure", chromedp.Evaluate(`document.querySelector('`+failing+`').scrollIntoView()`, nil))
	shot(t, p.ctx, "report-check-failure.png")
	p.run(t, "back to the top", chromedp.Evaluate(`window.scrollTo(0, 0)`, nil))
	p.run(t, "dark",
		emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}),
		chromedp.Evaluate(bg, &dark))
	if light == dark {
		t.Errorf("the background is %s in light and dark", light)
	}
	p.clean(t)
}

// TestSendReportInBrowser: a receiver that stalls twice, 5 s of schedule
// apart, shows as calls whose latency rises while it stalls, read back from
// the dots of the plot.
func TestSendReportInBrowser(t *testing.T) {
	if findChromium() == "" {
		t.Skip("no Chromium on PATH (chromium, chromium-browser or google-chrome): the browser tests need one")
	}
	if testing.Short() {
		t.Skip("-short: the browser tests start Chromium")
	}
	// The stalls are counted in calls, not timed: at --rate 40 the plot's
	// axis puts call n at its scheduled start, n × 25 ms, whenever a loaded
	// machine really sent it. Calls 120 to 159 and 320 to 359 (the 4th and
	// 9th second of schedule) are held until call 160, resp. 360, arrives,
	// so the early ones of each stall wait up to a second, and the two
	// stalls start 200 calls, 5 s of schedule, apart.
	stalls := []struct {
		from, to int
		over     chan struct{}
	}{{120, 160, make(chan struct{})}, {320, 360, make(chan struct{})}}
	var arrived atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(arrived.Add(1)) - 1
		io.Copy(io.Discard, r.Body)
		for _, s := range stalls {
			switch {
			case n == s.to:
				close(s.over)
			case n >= s.from && n < s.to:
				select {
				case <-s.over:
				case <-r.Context().Done(): // send gave up: let the server close
				}
			}
		}
		io.WriteString(w, "ok")
	}))
	defer recv.Close()
	file := filepath.Join(t.TempDir(), "run.html")
	out, err := exec.Command("whsim", "send", "--url", recv.URL+"/hook", "--event", "all", "--count", "100", "--seed", "1",
		"--rate", "40", "--output", "json", "--report", file).CombinedOutput()
	if err != nil {
		t.Fatalf("send: %v\n%s", err, out)
	}
	p := openReport(t, file)

	// The dots, read back through the plot's scales: [start ms, latency ms].
	var dots [][2]float64
	var n, total int
	p.run(t, "read the plot",
		chromedp.Evaluate(`(() => {
			const g = document.getElementById("latency-plot"), a = (k) => +g.dataset[k];
			const out = [];
			for (const path of g.querySelectorAll("path")) {
				for (const m of path.getAttribute("d").matchAll(/M([\d.]+) ([\d.]+)h0/g)) {
					out.push([(m[1] - a("x0")) / (a("x1") - a("x0")) * a("tmax"), (a("y0") - m[2]) / (a("y0") - a("y1")) * a("lmax")]);
				}
			}
			return out;
		})()`, &dots),
		chromedp.Evaluate(`+document.getElementById("latency-plot").dataset.n`, &n),
		chromedp.Evaluate(`JSON.parse(document.getElementById("report-data").textContent).send.total`, &total))
	if len(dots) != n || n != total || n != 400 {
		t.Fatalf("%d dots drawn, %d plotted, %d sent", len(dots), n, total)
	}
	// Calls scheduled early in a stall wait for most of it; the rest answer
	// at once. The slow ones come in two groups 5 s of schedule apart.
	var slow []float64
	fast := 0
	for _, d := range dots {
		switch {
		case d[1] >= 400:
			slow = append(slow, d[0])
		case d[1] < 200:
			fast++
		}
	}
	slices.Sort(slow)
	var groups []float64
	for i, t0 := range slow {
		if i == 0 || t0-slow[i-1] > 2000 {
			groups = append(groups, t0)
		}
	}
	if len(slow) < 10 || len(groups) != 2 {
		t.Fatalf("%d slow dots in %d groups (starts %v ms): the stalls do not show", len(slow), len(groups), groups)
	}
	if gap := groups[1] - groups[0]; gap < 4750 || gap > 5250 {
		t.Errorf("the stalls show %v ms apart, want 5000 (200 calls at 40/s)", gap)
	}
	t.Logf("%d dots, %d slow, stalls from %v ms", len(dots), len(slow), groups)
	if fast < len(dots)/2 {
		t.Errorf("only %d of %d dots are fast outside the stalls", fast, len(dots))
	}
	var percentiles, bars string
	p.run(t, "read the percentiles and the histogram",
		chromedp.Text(`#percentiles`, &percentiles, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll("#histogram rect")].map(r => r.dataset.count).join(",")`, &bars))
	if !strings.Contains(percentiles, "p99") || bars == "" {
		t.Errorf("percentiles %q, histogram bars %q", percentiles, bars)
	}
	p.run(t, "scroll to the figures", chromedp.Evaluate(`window.scrollTo(0, document.getElementById("percentiles").getBoundingClientRect().top + scrollY - 60)`, nil))
	shot(t, p.ctx, "report-send.png")
	p.clean(t)
}
