package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
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

// TestSendReportInBrowser: a receiver that stalls twice shows as calls
// whose latency rises while it stalls, read back from the dots of the plot
// and held against what send itself recorded of each call.
func TestSendReportInBrowser(t *testing.T) {
	if findChromium() == "" {
		t.Skip("no Chromium on PATH (chromium, chromium-browser or google-chrome): the browser tests need one")
	}
	if testing.Short() {
		t.Skip("-short: the browser tests start Chromium")
	}
	// The stalls are counted in calls, not timed: the 121st to 160th and
	// the 321st to 360th calls to arrive (the 4th and 9th second of a
	// --rate 40 schedule) are held until the 161st, resp. 361st, arrives.
	// Nothing below reads the clock against a limit: a loaded machine
	// sends late, and every call's latency from its scheduled start is
	// then higher, held or not; what is checked is that the plot draws
	// what send recorded, and that send recorded each held call's wait.
	stalls := []struct {
		from, to int
		over     chan struct{}
	}{{120, 160, make(chan struct{})}, {320, 360, make(chan struct{})}}
	var arrived atomic.Int64
	var mu sync.Mutex
	held := map[string]time.Duration{} // requestId: how long the receiver held it
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(arrived.Add(1)) - 1
		body, _ := io.ReadAll(r.Body)
		for _, s := range stalls {
			switch {
			case n == s.to:
				close(s.over)
			case n >= s.from && n < s.to:
				var doc struct {
					RequestID string `json:"requestId"`
				}
				_ = json.Unmarshal(body, &doc)
				at := time.Now()
				select {
				case <-s.over:
				case <-r.Context().Done(): // send gave up: let the server close
				}
				mu.Lock()
				held[doc.RequestID] = time.Since(at)
				mu.Unlock()
			}
		}
		io.WriteString(w, "ok")
	}))
	defer recv.Close()
	file := filepath.Join(t.TempDir(), "run.html")
	send := exec.Command("whsim", "send", "--url", recv.URL+"/hook", "--event", "all", "--count", "100", "--seed", "1",
		"--rate", "40", "--output", "json", "--report", file)
	var stderr bytes.Buffer
	send.Stderr = &stderr
	out, err := send.Output()
	if err != nil {
		t.Fatalf("send: %v\n%s", err, stderr.Bytes())
	}
	// What send recorded of each call: its place in the schedule and its
	// latency from its scheduled start.
	type delivery struct {
		Seq       int     `json:"seq"`
		RequestID string  `json:"requestId"`
		LatencyMS float64 `json:"latencyMs"`
	}
	var sent []delivery
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if bytes.HasPrefix(line, []byte(`{"summary"`)) {
			continue
		}
		var d delivery
		if err := json.Unmarshal(line, &d); err != nil {
			t.Fatalf("send's line %q: %v", line, err)
		}
		sent = append(sent, d)
	}
	if len(sent) != 400 || len(held) != 80 {
		t.Fatalf("%d deliveries, %d held calls: want 400 and 80", len(sent), len(held))
	}
	// Send recorded each held call's wait: its latency is at least as long
	// as the receiver held it. The held calls are two runs of the
	// schedule, 200 calls (5 s at 40/s) apart.
	var firstHeld []int
	for _, d := range sent {
		h, ok := held[d.RequestID]
		if !ok {
			continue
		}
		if d.LatencyMS < float64(h.Microseconds())/1000 {
			t.Errorf("call %d (%s) held %v, its latency %v ms", d.Seq, d.RequestID, h, d.LatencyMS)
		}
		firstHeld = append(firstHeld, d.Seq)
	}
	slices.Sort(firstHeld)
	if gap := firstHeld[40] - firstHeld[0]; gap < 190 || gap > 210 {
		t.Errorf("the held calls are %v in the schedule: the stalls are not 200 calls apart", firstHeld)
	}

	p := openReport(t, file)
	// The dots, read back through the plot's scales: [start ms, latency
	// ms]; the points the page drew them from; and the scales' size of a
	// pixel.
	var dots, points [][2]float64
	var px [2]float64
	var total int
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
		chromedp.Evaluate(`(() => {
			const g = document.getElementById("latency-plot"), a = (k) => +g.dataset[k];
			return [a("tmax") / (a("x1") - a("x0")), a("lmax") / (a("y0") - a("y1"))];
		})()`, &px),
		chromedp.Evaluate(`JSON.parse(document.getElementById("report-data").textContent).send.points.map(p => [p[0], p[1]])`, &points),
		chromedp.Evaluate(`JSON.parse(document.getElementById("report-data").textContent).send.total`, &total))
	if len(dots) != 400 || len(points) != 400 || total != 400 {
		t.Fatalf("%d dots drawn, %d points, %d sent", len(dots), len(points), total)
	}
	// The report's latencies are send's, call for call.
	lat := func(ms []float64) []float64 { slices.Sort(ms); return ms }
	var ledger, report []float64
	for i := range sent {
		ledger, report = append(ledger, sent[i].LatencyMS), append(report, points[i][1])
	}
	ledger, report = lat(ledger), lat(report)
	for i := range ledger {
		if math.Abs(ledger[i]-report[i]) > 0.01 {
			t.Fatalf("the report's %dth latency is %v ms, send's %v ms", i, report[i], ledger[i])
		}
	}
	// Every point is drawn where it belongs, to within a pixel.
	drawn := make([]bool, len(dots))
	for _, pt := range points {
		at := -1
		for i, d := range dots {
			if !drawn[i] && math.Abs(d[0]-pt[0]) <= px[0] && math.Abs(d[1]-pt[1]) <= px[1] {
				at = i
				break
			}
		}
		if at < 0 {
			t.Fatalf("the point %v is drawn nowhere (a pixel is %v)", pt, px)
		}
		drawn[at] = true
	}
	t.Logf("%d dots; held calls from schedule places %d and %d", len(dots), firstHeld[0], firstHeld[40])
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

// TestCheckReportSaysWhichVariablesToSet: the report's commands (the one
// that runs the check again, each failure's) read the run's credentials
// from variables, as the printed ones do; the page says which, as the
// terminal and the job summary do. Without it, a reader of the CI
// artifact pasted them unset: an empty Authorization, whose 401 is the 4xx
// a malformed case wants, and the receiver read as mended.
func TestCheckReportSaysWhichVariablesToSet(t *testing.T) {
	if findChromium() == "" {
		t.Skip("no Chromium on PATH (chromium, chromium-browser or google-chrome): the browser tests need one")
	}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	defer recv.Close()
	file := filepath.Join(t.TempDir(), "check.html")
	out, err := exec.Command("whsim", "check", "--url", recv.URL+"/hook?token=t0k", "--seed", "1", "-H", "Authorization: Bearer s3cr3t",
		"--checks", "rejects-malformed", "--report", file).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("check exited %v, want 1 (rejects-malformed fails)\n%s", err, out)
	}
	p := openReport(t, file)
	var command, set string
	p.run(t, "read the command and what it reads",
		chromedp.Text(`pre.command`, &command, chromedp.ByQuery),
		chromedp.Evaluate(`(document.querySelector('#set-first') || {}).textContent || ""`, &set))
	if !strings.Contains(command, `"$AUTHORIZATION"`) && !strings.Contains(command, `$AUTHORIZATION`) {
		t.Fatalf("command %q reads no $AUTHORIZATION", command)
	}
	if want := "set TOKEN and AUTHORIZATION first"; !strings.HasPrefix(set, want) {
		t.Errorf("the page says %q, want it to begin %q", set, want)
	}
	p.clean(t)
}
