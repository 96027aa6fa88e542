package cli

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whsim/whsim/internal/deliver"
	"github.com/whsim/whsim/internal/report"
)

// deliveryFlags are what send and replay share: how to reach the receiver
// and how to report.
type deliveryFlags struct {
	URL             string
	Timeout         time.Duration
	Retries         int
	Insecure        bool
	CACert          string
	FollowRedirects bool
	Concurrency     int
	MaxConcurrency  int
	Rate            float64
	ExpectStatus    string
	Output          string
	Verbose         bool
	Each            bool
}

// deliveryReporter reports deliveries as they finish (from many workers at
// once) through the run's report, and tells on stderr of retries and
// warnings, with a progress bar on a terminal.
type deliveryReporter struct {
	rep   report.Reporter
	title string
	// quiet reports only failures: text on a terminal, without --each or
	// -v, where a line per delivery would scroll past by the thousand.
	quiet  bool
	outTTY bool
	// note is said under the summary's counts (send's --count per event).
	note string
	done atomic.Int64
	// failures counts failed deliveries for the progress bar; firstErr is
	// the first transport error, for the one line of a receiver that
	// cannot be reached.
	failures atomic.Int64
	firstErr atomic.Pointer[deliver.Attempt]

	mu      sync.Mutex // stderr
	err     io.Writer
	pal     Palette
	stopBar chan struct{}
	barDone chan struct{}
}

func newDeliveryReporter(a *app, title string, d *deliveryFlags) (*deliveryReporter, error) {
	rep, err := report.New(d.Output, a.streams.Out, style(a.outColor(), d.Verbose), a.streams.OutTTY)
	if err != nil {
		return nil, usagef("--output: %v", err)
	}
	quiet := d.Output == report.Text && a.streams.OutTTY && !d.Each && !d.Verbose
	return &deliveryReporter{rep: rep, title: title, quiet: quiet, outTTY: a.streams.OutTTY, err: a.streams.Err, pal: a.errColor}, nil
}

func (r *deliveryReporter) report(res *deliver.Result) {
	switch {
	case r.quiet && res.OK:
		// Counted by the bar and the summary, not listed.
	case r.outTTY && r.stopBar != nil:
		// Stdout and the bar share the terminal: the line goes above it.
		r.mu.Lock()
		r.clearBar()
		_ = r.rep.Case((*deliveryCase)(res))
		r.mu.Unlock()
	default:
		_ = r.rep.Case((*deliveryCase)(res))
	}
	r.done.Add(1)
	if !res.OK {
		r.failures.Add(1)
		if last := res.Last(); last.Status == 0 && r.firstErr.Load() == nil {
			r.firstErr.CompareAndSwap(nil, &last)
		}
	}
}

// failureText is an attempt's error as a failure line says it: a TLS
// failure gives its reason (x509's) and the way out.
func failureText(a deliver.Attempt) string {
	if a.Kind != deliver.KindTLS {
		return deliver.ShortError(a)
	}
	reason := a.Err
	if i := strings.LastIndex(reason, "x509: "); i >= 0 {
		return "tls: " + reason[i:] + " (--cacert <ca.pem> trusts a private CA, --insecure skips the check)"
	}
	if i := strings.LastIndex(reason, "tls: "); i >= 0 {
		reason = reason[i:]
	}
	if strings.Contains(reason, "does not look like a TLS handshake") {
		return reason + " (the receiver speaks plain HTTP: use an http:// URL)"
	}
	return reason
}

// deliveryCase is a delivery as a report case.
type deliveryCase deliver.Result

func (c *deliveryCase) Verdict() report.Verdict {
	if c.OK {
		return report.Pass
	}
	return report.Fail
}

// AppendText is one line (event, requestId, status, latency) and with -v
// the request and the answer.
func (c *deliveryCase) AppendText(b []byte, st *report.Style) []byte {
	res := (*deliver.Result)(c)
	last := res.Last()
	req := res.Request
	b = fmt.Appendf(b, "%-29s %-36s ", termSafe(req.Event, false), termSafe(req.RequestID, false))
	if last.Status != 0 {
		b = fmt.Appendf(b, "%d %s", last.Status, fmtLatency(last.Latency))
	} else {
		b = fmt.Appendf(b, "--- %s", termSafe(failureText(last), false))
	}
	if last.Status != 0 && !res.OK {
		b = append(b, "  unexpected status"...)
		if last.Location != "" {
			b = append(b, " (redirect to "+termSafe(last.Location, false)+" not followed; --follow-redirects)"...)
		}
	}
	if len(res.Attempts) > 1 {
		b = fmt.Appendf(b, "  after %d attempts", len(res.Attempts))
	}
	if req.Duplicate {
		b = append(b, "  duplicate"...)
	}
	b = append(b, '\n')
	if !st.Verbose {
		return b
	}
	b = fmt.Appendf(b, "  > %s %s\n", cmp.Or(req.Method, http.MethodPost), termSafe(res.URL, false))
	b = appendHeaders(b, "  > ", maskedHeaders(res.SentHeader))
	b = appendBody(b, "  > ", req.Body)
	if res.RespHeader != nil {
		b = fmt.Appendf(b, "  < %d\n", last.Status)
		b = appendHeaders(b, "  < ", res.RespHeader)
		b = appendBody(b, "  < ", res.RespBody)
	}
	return b
}

func (c *deliveryCase) AppendJSON(b []byte, st *report.Style) []byte {
	res := (*deliver.Result)(c)
	if !st.Verbose {
		return res.AppendJSON(b)
	}
	j := res.JSON()
	j.RequestHeaders, j.ResponseHeaders = maskedHeaders(res.SentHeader), maskedHeaders(res.RespHeader)
	body := string(res.RespBody)
	j.ResponseBody = &body
	return append(b, deliver.MarshalJSONLine(j)...)
}

// JUnit is one test case per delivery in one suite per event.
func (c *deliveryCase) JUnit() report.TestCase {
	res := (*deliver.Result)(c)
	last := res.Last()
	tc := report.TestCase{Suite: res.Request.Event, Name: res.Request.RequestID, Class: "whsim.delivery"}
	if tc.Name == "" {
		tc.Name = "#" + strconv.Itoa(res.Request.Seq)
	}
	var sb strings.Builder
	for i, a := range res.Attempts {
		what := strconv.Itoa(a.Status)
		if a.Status == 0 {
			what = failureText(a)
		}
		fmt.Fprintf(&sb, "attempt %d: %s in %s\n", i+1, what, fmtLatency(a.Latency))
	}
	tc.Detail = sb.String()
	if !res.OK {
		method := cmp.Or(res.Request.Method, http.MethodPost)
		tc.FailureType = "unexpected status"
		tc.Failure = fmt.Sprintf("%s %s: %d", method, res.URL, last.Status)
		if last.Status == 0 {
			tc.FailureType = last.Kind
			tc.Failure = fmt.Sprintf("%s %s: %s", method, res.URL, failureText(last))
		}
	}
	return tc
}

func appendHeaders(b []byte, prefix string, h http.Header) []byte {
	for _, kv := range safeHeaders(h) {
		b = append(b, prefix+kv[0]+": "+kv[1]+"\n"...)
	}
	return b
}

// appendBody appends a body, indented when it is JSON, line by line and
// terminal-safe.
func appendBody(b []byte, prefix string, body []byte) []byte {
	if len(body) == 0 {
		return b
	}
	var buf bytes.Buffer
	if json.Indent(&buf, body, "", "  ") == nil {
		body = buf.Bytes()
	}
	for line := range strings.SplitSeq(strings.TrimRight(string(body), "\n"), "\n") {
		b = append(b, prefix+termSafe(line, false)+"\n"...)
	}
	return b
}

func fmtLatency(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%dµs", d.Microseconds())
}

// retry tells, on stderr, of an attempt that will be tried again.
func (r *deliveryReporter) retry(req *deliver.Request, n int, a deliver.Attempt) {
	what := strconv.Itoa(a.Status)
	if a.Status == 0 {
		what = failureText(a)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearBar()
	fmt.Fprintf(r.err, "%s %s %s attempt %d: %s, retrying in %s\n", r.pal.Warn.Sprint("retry"),
		termSafe(req.Event, false), termSafe(req.RequestID, false), n, termSafe(what, false), a.Wait.Round(time.Millisecond))
}

func (r *deliveryReporter) warn(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.err, "%s %s\n", r.pal.Warn.Sprint("warning:"), termSafe(fmt.Sprintf(format, args...), false))
}

func (r *deliveryReporter) clearBar() {
	if r.stopBar != nil {
		fmt.Fprint(r.err, "\r\033[K")
	}
}

// startBar draws a progress bar on stderr (a terminal) until stopped.
func (r *deliveryReporter) startBar(total int, duration time.Duration) {
	r.stopBar, r.barDone = make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(r.barDone)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-r.stopBar:
				r.mu.Lock()
				fmt.Fprint(r.err, "\r\033[K")
				r.mu.Unlock()
				return
			case <-t.C:
			}
			line := progressLine(r.done.Load(), r.failures.Load(), int64(total), time.Since(start), duration)
			r.mu.Lock()
			fmt.Fprint(r.err, "\r\033[K"+line)
			r.mu.Unlock()
		}
	}()
}

// progressLine is the bar: done of total (or of --duration's time), the
// rate, the time left and the failures so far. Without a total or a
// duration there is no end to measure against: the count and the rate.
func progressLine(done, failed, total int64, el, duration time.Duration) string {
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el.Seconds()
	}
	var b strings.Builder
	frac, left := -1.0, time.Duration(-1)
	switch {
	case total > 0:
		frac = float64(done) / float64(total)
		if rate > 0 {
			left = time.Duration(float64(total-done) / rate * float64(time.Second))
		}
	case duration > 0:
		frac, left = el.Seconds()/duration.Seconds(), duration-el
	}
	if frac >= 0 {
		const width = 28
		frac = min(frac, 1)
		fill := int(frac * width)
		b.WriteString("[" + strings.Repeat("=", fill) + strings.Repeat(" ", width-fill) + "] ")
	}
	if total > 0 {
		fmt.Fprintf(&b, "%*d/%d %3.0f%%", len(strconv.FormatInt(total, 10)), done, total, frac*100)
	} else {
		fmt.Fprintf(&b, "%d sent", done)
		if frac >= 0 {
			fmt.Fprintf(&b, "  %.0f%%", frac*100)
		}
	}
	fmt.Fprintf(&b, "  %.0f/s", rate)
	switch {
	case frac >= 0 && left >= 0:
		fmt.Fprintf(&b, "  ETA %s", max(left, 0).Round(time.Second))
	case frac >= 0:
		b.WriteString("  ETA --")
	}
	if failed > 0 {
		fmt.Fprintf(&b, "  %d failed", failed)
	}
	return b.String()
}

func (r *deliveryReporter) stop() {
	if r.stopBar != nil {
		close(r.stopBar)
		<-r.barDone
		r.stopBar = nil
	}
}

func (r *deliveryReporter) summary(st *deliver.Stats) error {
	r.stop()
	return r.rep.Finish(deliverySummary{st, r.title, r.note})
}

// deliverySummary is a delivery run's stats as a report summary.
type deliverySummary struct {
	st    *deliver.Stats
	title string
	note  string
}

func (s deliverySummary) Title() string { return s.title }

func (s deliverySummary) AppendJSON(b []byte) []byte { return s.st.AppendJSON(b) }

// AppendText is sent, succeeded, failed by status and by error kind,
// throughput and latency.
func (s deliverySummary) AppendText(b []byte, _ *report.Style) []byte {
	st, h := s.st, &s.st.Latency
	b = fmt.Appendf(b, "\nsent %d  succeeded %d  failed %d", st.Sent, st.Succeeded, st.Failed)
	if st.Interrupted > 0 {
		b = fmt.Appendf(b, "  interrupted %d", st.Interrupted)
	}
	b = fmt.Appendf(b, "  duplicates %d  retries %d\n", st.Duplicates, st.Retries)
	if s.note != "" {
		b = append(b, s.note+"\n"...)
	}
	if len(st.ByStatus) > 0 {
		b = append(b, "failed by status:"...)
		for _, c := range st.StatusCodes() {
			b = fmt.Appendf(b, " %d×%d", c, st.ByStatus[c])
		}
		b = append(b, '\n')
	}
	if len(st.ByError) > 0 {
		b = append(b, "failed by error:"...)
		for i, k := range st.ErrorKinds() {
			if i > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, " %s×%d", k, st.ByError[k])
		}
		b = append(b, '\n')
	}
	b = fmt.Appendf(b, "%.1f req/s over %s\n", st.RequestsPerSecond(), st.Elapsed.Round(time.Millisecond))
	b = appendModel(b, st)
	if h.Count() > 0 {
		b = fmt.Appendf(b, "latency p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n", fmtLatency(h.Quantile(.5)),
			fmtLatency(h.Quantile(.9)), fmtLatency(h.Quantile(.99)), fmtLatency(h.Quantile(.999)), fmtLatency(h.Max()))
	}
	return b
}

// appendModel says which load model ran, so the latencies are read right,
// and when the open model's bound made calls start late.
func appendModel(b []byte, st *deliver.Stats) []byte {
	if !st.Open {
		if st.MaxConcurrency == 1 {
			return append(b, "closed model: 1 worker, waiting for each answer before the next call (latency per call)\n"...)
		}
		return fmt.Appendf(b, "closed model: %d workers, each waiting for its answer before the next call (latency per call)\n", st.MaxConcurrency)
	}
	b = fmt.Appendf(b, "open model: %g/s on schedule, latency from each call's scheduled start; at most %d in flight of --max-concurrency %d\n",
		st.Rate, st.PeakConcurrency, st.MaxConcurrency)
	if st.Late > 0 {
		b = fmt.Appendf(b, "--max-concurrency %d reached: %d calls started late (their wait is in the latency); raise it to keep the rate\n",
			st.MaxConcurrency, st.Late)
	}
	return b
}
