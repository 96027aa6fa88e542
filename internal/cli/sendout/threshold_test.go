package sendout

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/term"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/threshold"
)

// Every metric a threshold may name has a value, and the summary lists
// each threshold in its text and inside its JSON summary object.
func TestThresholdsInSummary(t *testing.T) {
	t.Parallel()
	st := load.NewStats()
	for i := range 10 {
		st.Add(&attempt.Result{Request: &attempt.Request{Seq: i + 1}, OK: i != 3, Attempts: []attempt.Attempt{{Status: map[bool]int{true: 200, false: 500}[i != 3], Latency: time.Duration(i+1) * time.Millisecond}}})
	}
	st.Elapsed = time.Second
	m := st.Measured()
	for _, name := range threshold.Names() {
		if _, ok := m[name]; !ok {
			t.Errorf("no measured value of %s", name)
		}
	}
	if len(m) != len(threshold.Names()) {
		t.Errorf("measured %d metrics, thresholds know %d", len(m), len(threshold.Names()))
	}
	var ts []threshold.Threshold
	for _, s := range []string{"failed<5%", "p99<=11ms", "rps>=20"} {
		th, err := threshold.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	sum := SendSummary{Stats: st, Name: "whsim send", Thresholds: threshold.CheckAll(ts, m)}
	text := string(sum.AppendText(nil, &term.Style{}))
	for _, want := range []string{"thresholds:\n", "  failed<5%  failed 10%  FAILED\n", "  p99<=11ms  p99 10.0ms  ok\n", "  rps>=20    rps 10/s  FAILED\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	var j struct {
		Summary struct {
			Sent       int
			Thresholds []threshold.JSON
		}
	}
	if err := json.Unmarshal(sum.AppendJSON(nil), &j); err != nil {
		t.Fatal(err)
	}
	var pass []bool
	for _, r := range j.Summary.Thresholds {
		pass = append(pass, r.Pass)
	}
	if j.Summary.Sent != 10 || !slices.Equal(pass, []bool{false, true, false}) {
		t.Errorf("JSON summary %+v", j.Summary)
	}
	if got := string((SendSummary{Stats: st}).AppendJSON(nil)); strings.Contains(got, "thresholds") {
		t.Errorf("a run without thresholds lists them: %s", got)
	}
}

// A run Ctrl-C ended listed its thresholds "ok", judged on the calls
// answered so far: skipped is never pass. Each reads as not judged, and
// why, in the text summary, the JSON summary and the JUnit report (a
// skipped case, the run's own interrupted case failing it).
func TestThresholdsOfAnInterruptedRunNotJudged(t *testing.T) {
	t.Parallel()
	for _, format := range []string{term.Text, term.JSON} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 2 {
					cancel() // Ctrl-C as the receiver got the second call
				}
			}))
			defer srv.Close()
			c, err := attempt.NewClient(attempt.ClientOptions{Timeout: 10 * time.Second, Concurrency: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseIdleConnections()
			u, _ := url.Parse(srv.URL + "/hook")
			var ts []threshold.Threshold
			for _, s := range []string{"failed<50%", "p99<10s"} {
				th, err := threshold.Parse(s)
				if err != nil {
					t.Fatal(err)
				}
				ts = append(ts, th)
			}
			var out, junit bytes.Buffer
			con, err := NewConsole(ConsoleOptions{Title: "whsim send", Format: format, Out: &out, Err: &bytes.Buffer{}, Thresholds: ts, JUnit: &junit})
			if err != nil {
				t.Fatal(err)
			}
			const total = 10
			given := 0
			next := func() []*attempt.Request {
				if given == total {
					return nil
				}
				given++
				return []*attempt.Request{{Seq: given, Event: "E", Query: "businessType=E", Body: []byte(`{}`)}}
			}
			d := &attempt.Deliverer{Client: c, Target: u}
			st, err := con.Run(ctx, d, next, load.RunOptions{Concurrency: 1}, total)
			if err != nil {
				t.Fatal(err)
			}
			why := fmt.Sprintf("interrupted after %d of 10 calls", st.Sent)
			for _, r := range con.Thresholds() {
				if r.Pass || r.NotJudged != why {
					t.Errorf("%s: pass %v, not judged %q; want no pass, not judged %q", r.Text, r.Pass, r.NotJudged, why)
				}
			}
			switch format {
			case term.Text:
				for _, want := range []string{"  failed<50%  failed 0% so far  not judged (" + why + ")\n", "  p99<10s     p99 "} {
					if !strings.Contains(out.String(), want) {
						t.Errorf("text lacks %q:\n%s", want, out.String())
					}
				}
				if strings.Contains(out.String(), "  ok\n") {
					t.Errorf("text says a threshold held:\n%s", out.String())
				}
			case term.JSON:
				if !strings.Contains(out.String(), `"pass":false,"notJudged":"`+why+`"}`) || strings.Contains(out.String(), `"pass":true`) {
					t.Errorf("JSON summary:\n%s", out.String())
				}
			}
			for _, want := range []string{`<testcase name="failed&lt;50%" classname="whsim.threshold"`, `<skipped message="failed&lt;50% not judged: ` + why + ` (failed 0% so far)"`} {
				if !strings.Contains(junit.String(), want) {
					t.Errorf("JUnit lacks %q:\n%s", want, junit.String())
				}
			}
		})
	}
}
