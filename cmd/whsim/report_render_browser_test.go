package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/whsim/whsim/internal/capture"
)

// runReport runs whsim with args (which write --report file) and wants it
// to exit with code.
func runReport(t *testing.T, code int, args ...string) {
	t.Helper()
	out, err := exec.Command("whsim", args...).CombinedOutput()
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("whsim: %v", err)
	}
	if got != code {
		t.Fatalf("whsim %s exited %d, want %d\n%s", strings.Join(args, " "), got, code, out)
	}
}

// skipWithoutChromium skips a test that opens a report in Chromium when
// there is none to open it in.
func skipWithoutChromium(t *testing.T) {
	t.Helper()
	if findChromium() == "" {
		t.Skip("no Chromium on PATH (chromium, chromium-browser or google-chrome): the browser tests need one")
	}
}

// okReceiver answers every call 200 "ok"; it is closed when the test ends.
func okReceiver(t *testing.T) *httptest.Server {
	t.Helper()
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "ok")
	}))
	t.Cleanup(recv.Close)
	return recv
}

// effectsAndSendReports writes the two reports the accessibility tests
// read, both of runs against okReceiver: a check whose probe finds every
// document stored twice (and none of the one never sent), so effects fails
// on each, with its panels; and a send of 20 calls.
func effectsAndSendReports(t *testing.T) (checkFile, sendFile string) {
	t.Helper()
	recv := okReceiver(t)
	dir := t.TempDir()
	checkFile, sendFile = filepath.Join(dir, "check.html"), filepath.Join(dir, "send.html")
	probeCmd := `case "$WHSIM_CODE" in *-NONE) echo '{"count":0}';; *) echo '{"count":2,"state":"created"}';; esac`
	runReport(t, 1, "check", "--url", recv.URL+"/hook", "--seed", "1", "--checks", "accepts-valid,rejects-malformed,duplicates,effects",
		"--probe-cmd", probeCmd, "--settle", "0", "--report", checkFile)
	runReport(t, 0, "send", "--url", recv.URL+"/hook", "--seed", "1", "--count", "20", "--threshold", "p99<10s", "--report", sendFile)
	return checkFile, sendFile
}

// A run that did not complete (the receiver unreachable, the probe
// failing) still draws its report: INCOMPLETE, the headline saying why,
// and no error in the page (its data has no checks).
func TestIncompleteCheckReportInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	recv := okReceiver(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name     string
		args     []string
		headline string
	}{
		{"unreachable", []string{"check", "--url", "http://127.0.0.1:1/hook", "--seed", "1"}, "the run did not complete: cannot reach http://127.0.0.1:1/hook"},
		{"failing probe", []string{"check", "--url", recv.URL + "/hook", "--seed", "1", "--probe-cmd", "echo no such table >&2; exit 3"}, "the run did not complete: probe echo no such table >&2; exit 3: exited 3: no such table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".html")
			runReport(t, 2, append(tc.args, "--report", file)...)
			p := openReport(t, file)
			var verdict, headline, text string
			var children int
			p.run(t, "read the verdict",
				chromedp.Text(`#verdict`, &verdict, chromedp.ByQuery),
				chromedp.Text(`#headline`, &headline, chromedp.ByQuery),
				chromedp.Evaluate(`document.getElementById("app").children.length`, &children),
				chromedp.Evaluate(`document.getElementById("app").innerText`, &text))
			// Exit 2 is no verdict on the receiver: not FAIL, as JUnit
			// (an error) and the job summary ("did not complete") say.
			if verdict != "INCOMPLETE" || !strings.HasPrefix(headline, tc.headline) {
				t.Errorf("verdict %q, headline %q; want INCOMPLETE, %q", verdict, headline, tc.headline)
			}
			if children < 4 || !strings.Contains(text, "whsim check --url") {
				t.Errorf("the page drew %d elements: %q", children, text)
			}
			p.clean(t)
		})
	}
}

// A run that ended before it could report (a flag refused after --report
// was read, a --duration over before the first call) still writes its
// --report: the page is INCOMPLETE with why, never an earlier run's PASS
// left in the file, and draws without an error.
func TestNotRunReportInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	recv := okReceiver(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name     string
		args     []string
		headline string
	}{
		{"check flag refused", []string{"check", "--url", recv.URL + "/hook", "--timeout", "0"}, "the run did not complete: --timeout 0s: want more than 0"},
		{"send nothing sent", []string{"send", "--url", recv.URL + "/hook", "--event", "CREATE_RECEIVABLE_DOC", "--duration", "1ns", "--count", "1"},
			"the run did not complete: nothing was sent: --duration 1ns ended the run before its first call started"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".html")
			if err := os.WriteFile(file, []byte("<!doctype html><p id=verdict>PASS</p>"), 0o600); err != nil {
				t.Fatal(err)
			}
			runReport(t, 2, append(tc.args, "--report", file)...)
			p := openReport(t, file)
			var verdict, headline, note string
			p.run(t, "read the verdict",
				chromedp.Text(`#verdict`, &verdict, chromedp.ByQuery),
				chromedp.Text(`#headline`, &headline, chromedp.ByQuery),
				chromedp.Text(`#not-run`, &note, chromedp.ByQuery))
			if verdict != "INCOMPLETE" || headline != tc.headline || !strings.Contains(note, "no verdict on the receiver") {
				t.Errorf("verdict %q, headline %q, note %q; want INCOMPLETE, %q", verdict, headline, note, tc.headline)
			}
			p.clean(t)
		})
	}
}

// A send no call of which was answered has no rate and no latency (null
// in its JSON): the report says none, as the text and the job summary do,
// where it drew empty cells; and one worker is one worker.
func TestUnansweredSendReportInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	// Every call is cut off before an answer: a reset, the same each run.
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(recv.Close)
	file := filepath.Join(t.TempDir(), "unanswered.html")
	runReport(t, 1, "send", "--url", recv.URL+"/hook", "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1", "--report", file)
	p := openReport(t, file)
	var cards map[string]string
	var percentiles []string
	p.run(t, "read the cards and the percentiles",
		chromedp.Evaluate(`Object.fromEntries([...document.querySelectorAll("#cards .card")].map(c => [c.querySelector(".k").textContent, c.querySelector(".val").textContent]))`, &cards),
		chromedp.Evaluate(`[...document.querySelectorAll("#percentiles tbody td")].map(td => td.textContent)`, &percentiles))
	if got := cards["req/s"]; got != "none (no call was answered)" {
		t.Errorf("req/s card %q, want none (no call was answered)", got)
	}
	if got := cards["model"]; got != "closed, 1 worker" {
		t.Errorf("model card %q, want closed, 1 worker", got)
	}
	if strings.Join(percentiles, ",") != "none,none,none,none,none" {
		t.Errorf("percentiles %q, want none in each", percentiles)
	}
	p.clean(t)
}

// A failed delivery's row shows the start of its answer, as send's line
// and JUnit do, and as text: the receiver's markup is no element of the
// page.
func TestFailedAnswerInSendReportInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "<img id=injected src=x> |\n`c`")
	}))
	t.Cleanup(recv.Close)
	file := filepath.Join(t.TempDir(), "failed.html")
	runReport(t, 1, "send", "--url", recv.URL+"/hook", "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1", "--retries", "0", "--report", file)
	p := openReport(t, file)
	var cell string
	var injected bool
	p.run(t, "read the failed delivery's status",
		chromedp.Evaluate(`[...document.querySelectorAll("h3")].find(h => h.textContent.startsWith("First failed")).nextElementSibling.querySelector("tbody td:nth-child(4)").textContent`, &cell),
		chromedp.Evaluate(`document.getElementById("injected") !== null`, &injected))
	if want := "500: <img id=injected src=x> |\\n`c`"; cell != want {
		t.Errorf("the failure's status cell %q, want %q", cell, want)
	}
	if injected {
		t.Errorf("the answer's markup became an element of the page")
	}
	p.clean(t)
}

// A check that was skipped reads as skipped, never as passed: its row, its
// section and the counts under the table.
func TestSkippedCheckInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Query().Get("businessType") == "" {
			w.WriteHeader(http.StatusBadRequest)
		}
		io.WriteString(w, "ok")
	}))
	defer recv.Close()
	file := filepath.Join(t.TempDir(), "check.html")
	// Without a probe, effects is skipped.
	runReport(t, 0, "check", "--url", recv.URL+"/hook", "--seed", "1", "--checks", "unknown-event,effects", "--report", file)
	p := openReport(t, file)
	var row, verdictClass, counts, headline string
	p.run(t, "read the effects row",
		chromedp.Evaluate(`[...document.querySelectorAll("#checks tbody tr")].find(r => r.textContent.startsWith("effects")).innerText`, &row),
		chromedp.Evaluate(`[...document.querySelectorAll("#checks tbody tr")].find(r => r.textContent.startsWith("effects")).querySelector("span[class^=v-]").className`, &verdictClass),
		chromedp.Text(`#check-counts`, &counts, chromedp.ByQuery),
		chromedp.Text(`#headline`, &headline, chromedp.ByQuery))
	if !strings.Contains(row, "skipped") || strings.Contains(row, "pass") || verdictClass != "v-skipped" {
		t.Errorf("effects row %q (%s), want skipped in its own style", row, verdictClass)
	}
	if counts != "1 passed, 0 warned, 0 failed, 1 skipped" {
		t.Errorf("counts %q", counts)
	}
	if !strings.Contains(headline, "skipped") || strings.Contains(headline, "every check passed") {
		t.Errorf("headline %q, want the skipped check named", headline)
	}
	p.clean(t)
}

// The report is usable by keyboard and screen reader: every block that
// scrolls can take focus and is named, every column header has text, and
// at 1280 px nothing scrolls sideways.
func TestReportAccessibleInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	checkFile, sendFile := effectsAndSendReports(t)
	for _, file := range []string{checkFile, sendFile} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			p := openReport(t, file)
			var unfocusable, unnamed []string
			var scrolls, width int
			p.run(t, "at 1280 px",
				emulation.SetDeviceMetricsOverride(1280, 900, 1, false),
				chromedp.Evaluate(`[...document.querySelectorAll("pre")].filter(e => e.scrollHeight > e.clientHeight || e.scrollWidth > e.clientWidth).length`, &scrolls),
				chromedp.Evaluate(`[...document.querySelectorAll("pre, [style*=overflow]")].filter(e => e.tabIndex !== 0 || !e.getAttribute("aria-label")).map(e => e.className || e.tagName)`, &unfocusable),
				chromedp.Evaluate(`[...document.querySelectorAll("th")].filter(e => e.textContent.trim() === "").map(e => e.closest("table").id || e.closest("section")?.id || "table")`, &unnamed),
				chromedp.Evaluate(`document.documentElement.scrollWidth`, &width))
			if len(unfocusable) > 0 {
				t.Errorf("blocks that scroll without keyboard access or a name: %v", unfocusable)
			}
			if len(unnamed) > 0 {
				t.Errorf("column headers without text in %v", unnamed)
			}
			if width > 1280 {
				t.Errorf("the page is %d px wide at 1280: it scrolls sideways", width)
			}
			if file == checkFile {
				effectsPanel(t, p)
			}
			if os.Getenv("WHSIM_DEBUG") != "" {
				t.Logf("%d blocks scroll", scrolls)
			}
			p.clean(t)
		})
	}
}

// effectsPanel: an effects failure shows each call of its sequence with an
// answer per delivery and its own command, then the probe's answer and
// question; not one "HTTP 200 in 0 µs", not the reproduction twice.
func effectsPanel(t *testing.T, p *reportPage) {
	t.Helper()
	const panel = `section[data-check="effects"] details.case[data-case="re-delivered/CREATE_RECEIVABLE_DOC/serial-x4"]`
	var calls []string
	var repros, probeCmds int
	var probe, text string
	p.run(t, "read the effects panel",
		chromedp.Evaluate(`[...document.querySelectorAll('`+panel+` li.call')].map(e => e.innerText)`, &calls),
		chromedp.Evaluate(`document.querySelectorAll('`+panel+` pre.repro').length`, &repros),
		chromedp.Evaluate(`document.querySelectorAll('`+panel+` pre.probe-command').length`, &probeCmds),
		chromedp.Text(panel+` dd.probe`, &probe, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('`+panel+`').innerText`, &text))
	if len(calls) != 1 || !strings.Contains(calls[0], "CREATE_RECEIVABLE_DOC ×4 in turn: HTTP 200 in") || strings.Count(calls[0], "HTTP 200") != 4 {
		t.Errorf("calls %q, want the one call with its 4 answers", calls)
	}
	if repros != 1 || probeCmds != 1 {
		t.Errorf("%d call commands and %d probe commands, want one each", repros, probeCmds)
	}
	if !strings.Contains(probe, `answered {"count":2,"state":"created"}`) || !strings.Contains(probe, "want count 1, state created, 1 line") ||
		strings.Contains(probe, "1 lines") {
		t.Errorf("probe %q", probe)
	}
	if strings.Contains(text, "in 0 µs") || strings.Contains(text, "Also found") {
		t.Errorf("the panel shows a made-up latency or the record again:\n%s", text)
	}
}

// axeSource is axe-core's script from the npm tools (scripts/install-tools.sh
// npm-validators installs it, pinned): $WHSIM_NPM_TOOLS, else the
// repository's .tools/npm; "" when it is not installed.
func axeSource(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("WHSIM_NPM_TOOLS")
	if dir == "" {
		dir = filepath.Join("..", "..", ".tools", "npm")
	}
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		return ""
	}
	return string(b)
}

// axeViolation is what axe-core reports of one rule.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []string `json:"target"`
	} `json:"nodes"`
}

// TestReportAxeInBrowser runs axe-core over the check and send reports: no
// serious or critical violation.
func TestReportAxeInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	axe := axeSource(t)
	if axe == "" {
		t.Skip("no axe-core (scripts/install-tools.sh npm-validators installs it; or set WHSIM_NPM_TOOLS)")
	}
	checkFile, sendFile := effectsAndSendReports(t)
	for _, file := range []string{checkFile, sendFile} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			p := openReport(t, file)
			for _, scheme := range []string{"light", "dark"} {
				var got []axeViolation
				p.run(t, "axe-core, "+scheme,
					emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}),
					chromedp.Evaluate(axe, nil),
					chromedp.Evaluate(`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations)`, &got,
						func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
				for _, v := range got {
					if v.Impact == "serious" || v.Impact == "critical" {
						var where []string
						for _, n := range v.Nodes {
							where = append(where, strings.Join(n.Target, " "))
						}
						t.Errorf("%s: axe-core %s (%s): %s, at %v", scheme, v.ID, v.Impact, v.Help, where)
					} else {
						t.Logf("%s: axe-core %s (%s): %s", scheme, v.ID, v.Impact, v.Help)
					}
				}
			}
			p.clean(t)
		})
	}
}

// A failing case's request is shown as it was sent: laid out over lines,
// but every token as the bytes whsim sent (1.0000 stays 1.0000, an escaped
// key stays escaped), so a reader judging what the receiver refused reads
// the call itself, not what a JSON parser made of it.
func TestReportRequestAsSentInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		http.Error(w, "down", http.StatusInternalServerError)
	}))
	defer recv.Close()
	dir := t.TempDir()
	file, cases := filepath.Join(dir, "check.html"), filepath.Join(dir, "cases")
	runReport(t, 1, "check", "--url", recv.URL+"/hook", "--seed", "1", "--checks", "accepts-valid",
		"--save-cases", cases, "--report", file)
	p := openReport(t, file)
	var shown map[string]string
	p.run(t, "read the requests shown",
		chromedp.Evaluate(`Object.fromEntries([...document.querySelectorAll('section[data-check="accepts-valid"] details.case')].map(d => [d.dataset.case, d.querySelector("pre.request").textContent]))`, &shown))
	if len(shown) < 10 {
		t.Fatalf("the report shows %d failing accepts-valid cases, want every one", len(shown))
	}
	for name, text := range shown {
		_, body, _ := strings.Cut(text, "\n\n")
		if strings.Contains(body, "more bytes") {
			continue // cut short: a large body shows its head
		}
		f, err := os.Open(filepath.Join(cases, "accepts-valid", strings.ReplaceAll(name, "/", "--")+".ndjson"))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := capture.NewReader(f).Next()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var sent, got bytes.Buffer
		if err := json.Compact(&sent, []byte(rec.Body)); err != nil {
			t.Fatalf("%s: the body sent: %v", name, err)
		}
		if err := json.Compact(&got, []byte(body)); err != nil {
			t.Errorf("%s: the body shown is not JSON: %v\n%s", name, err, body)
			continue
		}
		if got.String() != sent.String() {
			t.Errorf("%s: the report shows a body other than the one sent:\n shown %.300s\n sent  %.300s", name, got.String(), sent.String())
		}
		if !strings.Contains(body, "\n  ") || regexp.MustCompile(`\n\s*\n`).MatchString(body) {
			t.Errorf("%s: the body is not laid out one member a line (an empty [] or {} on its own):\n%.300s", name, body)
		}
	}
	p.clean(t)
}

// A call whose connection the receiver ended after reading it may have
// been taken: the report's failure row says so, as send's line does, and
// as text: its words never become markup.
func TestMayHaveBeenTakenInSendReportInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(recv.Close)
	file := filepath.Join(t.TempDir(), "taken.html")
	runReport(t, 1, "send", "--url", recv.URL+"/hook", "--event", "CREATE_RECEIVABLE_DOC", "--seed", "1", "--retries", "0", "--report", file)
	p := openReport(t, file)
	var cell string
	p.run(t, "read the failed delivery's error",
		chromedp.Evaluate(`[...document.querySelectorAll("h3")].find(h => h.textContent.startsWith("First failed")).nextElementSibling.querySelector("tbody td:nth-child(4)").textContent`, &cell))
	if !strings.HasSuffix(cell, " after the call went out (it may have been taken)") {
		t.Errorf("the failure's cell %q, want it to say the call may have been taken", cell)
	}
	p.clean(t)
}
