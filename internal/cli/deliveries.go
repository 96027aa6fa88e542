package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whsim/whsim/internal/deliver"
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
}

// expectSet parses --expect-status: codes, NNxx classes and ranges, comma
// separated: "200,202", "2xx", "200-204".
func parseExpect(s string) (func(int) bool, error) {
	type span struct{ lo, hi int }
	var spans []span
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		switch {
		case len(part) == 3 && strings.HasSuffix(strings.ToLower(part), "xx") && part[0] >= '1' && part[0] <= '5':
			lo := int(part[0]-'0') * 100
			spans = append(spans, span{lo, lo + 99})
		case strings.Contains(part, "-"):
			a, b, _ := strings.Cut(part, "-")
			lo, err1 := strconv.Atoi(a)
			hi, err2 := strconv.Atoi(b)
			if err1 != nil || err2 != nil || lo < 100 || hi > 599 || lo > hi {
				return nil, fmt.Errorf("--expect-status: bad range %q (want e.g. 200-204)", part)
			}
			spans = append(spans, span{lo, hi})
		default:
			n, err := strconv.Atoi(part)
			if err != nil || n < 100 || n > 599 {
				return nil, fmt.Errorf("--expect-status: bad status %q (want e.g. 200, 2xx or 200-204)", part)
			}
			spans = append(spans, span{n, n})
		}
	}
	return func(code int) bool {
		return slices.ContainsFunc(spans, func(s span) bool { return code >= s.lo && code <= s.hi })
	}, nil
}

// parseHeader reads one --header 'Name: value'.
func parseHeader(s string) (string, string, error) {
	name, val, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	}) {
		return "", "", fmt.Errorf("--header %q: want 'Name: value'", s)
	}
	val = strings.TrimSpace(val)
	if strings.ContainsAny(val, "\r\n\x00") {
		return "", "", fmt.Errorf("--header %q: the value holds a line break", name)
	}
	return http.CanonicalHeaderKey(name), val, nil
}

// deliveryReporter prints deliveries as they finish (from many workers at once),
// retry notices, a progress bar and the summary.
type deliveryReporter struct {
	mu      sync.Mutex
	out     *bufio.Writer
	outTTY  bool
	err     io.Writer
	pal     Palette
	json    bool
	verbose bool
	done    atomic.Int64
	// lines recycles the buffers JSON lines are formatted in, one per
	// delivery otherwise.
	lines sync.Pool

	stopBar chan struct{}
	barDone chan struct{}
}

func newDeliveryReporter(a *app, output string, verbose bool) *deliveryReporter {
	return &deliveryReporter{
		out: bufio.NewWriterSize(a.streams.Out, 64<<10), outTTY: a.streams.OutTTY,
		err: a.streams.Err, pal: a.errColor, json: output == "json", verbose: verbose,
	}
}

// deliveryJSON is the stable --output json form of one delivery.
type deliveryJSON struct {
	Seq             int           `json:"seq"`
	Event           string        `json:"event"`
	RequestID       string        `json:"requestId"`
	Duplicate       bool          `json:"duplicate"`
	URL             string        `json:"url"`
	Status          int           `json:"status"`
	OK              bool          `json:"ok"`
	LatencyMS       float64       `json:"latencyMs"`
	ErrorKind       string        `json:"errorKind,omitempty"`
	Error           string        `json:"error,omitempty"`
	Attempts        []attemptJSON `json:"attempts"`
	RequestHeaders  http.Header   `json:"requestHeaders,omitempty"`
	ResponseHeaders http.Header   `json:"responseHeaders,omitempty"`
	ResponseBody    *string       `json:"responseBody,omitempty"`
}

type attemptJSON struct {
	Status    int     `json:"status,omitempty"`
	LatencyMS float64 `json:"latencyMs"`
	ErrorKind string  `json:"errorKind,omitempty"`
	Error     string  `json:"error,omitempty"`
	Location  string  `json:"location,omitempty"`
	WaitMS    float64 `json:"waitMs,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (r *deliveryReporter) report(res *deliver.Result) {
	// Format outside the lock: 32 workers should not queue behind encoding.
	var b []byte
	switch {
	case r.json && r.verbose:
		b, _ = json.Marshal(r.deliveryJSON(res))
		b = append(b, '\n')
	case r.json:
		bp, _ := r.lines.Get().(*[]byte)
		if bp == nil {
			bp = new([]byte)
		}
		b = appendDeliveryJSON((*bp)[:0], res)
		defer func() {
			*bp = b
			r.lines.Put(bp)
		}()
	default:
		b = []byte(r.line(res))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out.Write(b)
	if r.verbose && !r.json {
		r.writeVerbose(res)
	}
	if r.outTTY {
		r.out.Flush()
	}
	r.done.Add(1)
}

func (r *deliveryReporter) deliveryJSON(res *deliver.Result) deliveryJSON {
	last := res.Last()
	req := res.Request
	j := deliveryJSON{
		Seq: req.Seq, Event: req.Event, RequestID: req.RequestID, Duplicate: req.Duplicate, URL: res.URL,
		Status: last.Status, OK: res.OK, LatencyMS: ms(last.Latency), ErrorKind: last.Kind, Error: last.Err,
	}
	for _, a := range res.Attempts {
		j.Attempts = append(j.Attempts, attemptJSON{a.Status, ms(a.Latency), a.Kind, a.Err, a.Location, ms(a.Wait)})
	}
	if r.verbose {
		j.RequestHeaders, j.ResponseHeaders = maskedHeaders(res.SentHeader), res.RespHeader
		s := string(res.RespBody)
		j.ResponseBody = &s
	}
	return j
}

// appendDeliveryJSON writes the same object json.Marshal makes of
// deliveryJSON (without the -v fields), by hand: it runs once per delivery.
func appendDeliveryJSON(b []byte, res *deliver.Result) []byte {
	last := res.Last()
	req := res.Request
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, int64(req.Seq), 10)
	b = append(b, `,"event":`...)
	b = appendJSONString(b, req.Event)
	b = append(b, `,"requestId":`...)
	b = appendJSONString(b, req.RequestID)
	b = append(b, `,"duplicate":`...)
	b = strconv.AppendBool(b, req.Duplicate)
	b = append(b, `,"url":`...)
	b = appendJSONString(b, res.URL)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(last.Status), 10)
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, res.OK)
	b = append(b, `,"latencyMs":`...)
	b = strconv.AppendFloat(b, ms(last.Latency), 'f', -1, 64)
	if last.Kind != "" {
		b = append(b, `,"errorKind":`...)
		b = appendJSONString(b, last.Kind)
	}
	if last.Err != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, last.Err)
	}
	b = append(b, `,"attempts":[`...)
	for i, a := range res.Attempts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		if a.Status != 0 {
			b = append(b, `"status":`...)
			b = strconv.AppendInt(b, int64(a.Status), 10)
			b = append(b, ',')
		}
		b = append(b, `"latencyMs":`...)
		b = strconv.AppendFloat(b, ms(a.Latency), 'f', -1, 64)
		for _, kv := range [][2]string{{"errorKind", a.Kind}, {"error", a.Err}, {"location", a.Location}} {
			if kv[1] != "" {
				b = append(b, `,"`+kv[0]+`":`...)
				b = appendJSONString(b, kv[1])
			}
		}
		if a.Wait != 0 {
			b = append(b, `,"waitMs":`...)
			b = strconv.AppendFloat(b, ms(a.Wait), 'f', -1, 64)
		}
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

// appendJSONString quotes s as encoding/json does, with a fast path for
// the plain ASCII of event names, UUIDs and URLs.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// line is one delivery in text: event, requestId, status, latency.
func (r *deliveryReporter) line(res *deliver.Result) string {
	last := res.Last()
	req := res.Request
	var b strings.Builder
	fmt.Fprintf(&b, "%-29s %-36s ", req.Event, termSafe(req.RequestID, false))
	if last.Status != 0 {
		fmt.Fprintf(&b, "%d %s", last.Status, fmtLatency(last.Latency))
	} else {
		fmt.Fprintf(&b, "--- %s", termSafe(deliver.ShortError(last), false))
	}
	if last.Status != 0 && !res.OK {
		b.WriteString("  unexpected status")
		if last.Location != "" {
			b.WriteString(" (redirect to " + termSafe(last.Location, false) + " not followed; --follow-redirects)")
		}
	}
	if len(res.Attempts) > 1 {
		fmt.Fprintf(&b, "  after %d attempts", len(res.Attempts))
	}
	if req.Duplicate {
		b.WriteString("  duplicate")
	}
	b.WriteByte('\n')
	return b.String()
}

func (r *deliveryReporter) writeVerbose(res *deliver.Result) {
	w := r.out
	method := res.Request.Method
	if method == "" {
		method = http.MethodPost
	}
	fmt.Fprintf(w, "  > %s %s\n", method, termSafe(res.URL, false))
	writeHeaders(w, "  > ", maskedHeaders(res.SentHeader))
	writeBody(w, "  > ", res.Request.Body)
	if res.RespHeader != nil {
		fmt.Fprintf(w, "  < %d\n", res.Last().Status)
		writeHeaders(w, "  < ", res.RespHeader)
		writeBody(w, "  < ", res.RespBody)
	}
}

func writeHeaders(w io.Writer, prefix string, h http.Header) {
	for _, kv := range safeHeaders(h) {
		fmt.Fprintf(w, "%s%s: %s\n", prefix, kv[0], kv[1])
	}
}

// writeBody prints a body, indented when it is JSON, line by line and
// terminal-safe.
func writeBody(w io.Writer, prefix string, body []byte) {
	if len(body) == 0 {
		return
	}
	var buf bytes.Buffer
	if json.Indent(&buf, body, "", "  ") == nil {
		body = buf.Bytes()
	}
	for line := range strings.SplitSeq(strings.TrimRight(string(body), "\n"), "\n") {
		fmt.Fprintf(w, "%s%s\n", prefix, termSafe(line, false))
	}
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
		what = deliver.ShortError(a)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearBar()
	fmt.Fprintf(r.err, "%s %s %s attempt %d: %s, retrying in %s\n", r.pal.Warn.Sprint("retry"),
		req.Event, termSafe(req.RequestID, false), n, termSafe(what, false), a.Wait.Round(time.Millisecond))
}

func (r *deliveryReporter) warn(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.err, "%s %s\n", r.pal.Warn.Sprint("warning:"), fmt.Sprintf(format, args...))
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
			done := r.done.Load()
			el := time.Since(start)
			frac := 0.0
			switch {
			case total > 0:
				frac = float64(done) / float64(total)
			case duration > 0:
				frac = el.Seconds() / duration.Seconds()
			}
			frac = min(frac, 1)
			const width = 30
			fill := int(frac * width)
			r.mu.Lock()
			fmt.Fprintf(r.err, "\r\033[K[%s%s] %d sent  %.0f/s  %s", strings.Repeat("=", fill), strings.Repeat(" ", width-fill),
				done, float64(done)/el.Seconds(), el.Round(time.Second))
			r.mu.Unlock()
		}
	}()
}

func (r *deliveryReporter) stop() {
	if r.stopBar != nil {
		close(r.stopBar)
		<-r.barDone
		r.stopBar = nil
	}
}

// deliverySummaryJSON is the stable --output json form of the summary, the last line.
type deliverySummaryJSON struct {
	Summary struct {
		Sent              int            `json:"sent"`
		Succeeded         int            `json:"succeeded"`
		Failed            int            `json:"failed"`
		Interrupted       int            `json:"interrupted"`
		Duplicates        int            `json:"duplicates"`
		Retries           int            `json:"retries"`
		FailedByStatus    map[string]int `json:"failedByStatus"`
		FailedByError     map[string]int `json:"failedByError"`
		RequestsPerSecond float64        `json:"requestsPerSecond"`
		ElapsedMS         float64        `json:"elapsedMs"`
		Model             string         `json:"model"`
		Rate              float64        `json:"rate"`
		MaxConcurrency    int            `json:"maxConcurrency"`
		PeakConcurrency   int            `json:"peakConcurrency"`
		Late              int            `json:"late"`
		LatencyMS         struct {
			P50  float64 `json:"p50"`
			P90  float64 `json:"p90"`
			P99  float64 `json:"p99"`
			P999 float64 `json:"p99.9"`
			Max  float64 `json:"max"`
		} `json:"latencyMs"`
		// Histogram is the latencies in µs, HdrHistogram's compressed V2
		// encoding in base64: runs on several machines merge exactly.
		Histogram string `json:"histogram"`
	} `json:"summary"`
}

func (r *deliveryReporter) summary(st *deliver.Stats) error {
	r.stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	h := &st.Latency
	if r.json {
		var j deliverySummaryJSON
		s := &j.Summary
		s.Sent, s.Succeeded, s.Failed, s.Interrupted = st.Sent, st.Succeeded, st.Failed, st.Interrupted
		s.Duplicates, s.Retries = st.Duplicates, st.Retries
		s.FailedByStatus, s.FailedByError = map[string]int{}, map[string]int{}
		for k, v := range st.ByStatus {
			s.FailedByStatus[strconv.Itoa(k)] = v
		}
		for k, v := range st.ByError {
			s.FailedByError[k] = v
		}
		s.RequestsPerSecond = float64(int64(st.RequestsPerSecond()*10)) / 10
		s.ElapsedMS = ms(st.Elapsed)
		s.LatencyMS.P50, s.LatencyMS.P90, s.LatencyMS.P99, s.LatencyMS.Max = ms(h.Quantile(.5)), ms(h.Quantile(.9)), ms(h.Quantile(.99)), ms(h.Max())
		s.LatencyMS.P999 = ms(h.Quantile(.999))
		s.Model, s.Rate, s.MaxConcurrency, s.PeakConcurrency, s.Late = "closed", st.Rate, st.MaxConcurrency, st.PeakConcurrency, st.Late
		if st.Open {
			s.Model = "open"
		}
		var err error
		if s.Histogram, err = h.Encode(); err != nil {
			return fmt.Errorf("summary: %w", err)
		}
		b, _ := json.Marshal(j)
		r.out.Write(b)
		r.out.WriteByte('\n')
		return r.out.Flush()
	}
	w := r.out
	fmt.Fprintf(w, "\nsent %d  succeeded %d  failed %d", st.Sent, st.Succeeded, st.Failed)
	if st.Interrupted > 0 {
		fmt.Fprintf(w, "  interrupted %d", st.Interrupted)
	}
	fmt.Fprintf(w, "  duplicates %d  retries %d\n", st.Duplicates, st.Retries)
	if len(st.ByStatus) > 0 {
		w.WriteString("failed by status:")
		for _, c := range st.StatusCodes() {
			fmt.Fprintf(w, " %d×%d", c, st.ByStatus[c])
		}
		w.WriteByte('\n')
	}
	if len(st.ByError) > 0 {
		w.WriteString("failed by error:")
		for i, k := range st.ErrorKinds() {
			if i > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, " %s×%d", k, st.ByError[k])
		}
		w.WriteByte('\n')
	}
	fmt.Fprintf(w, "%.1f req/s over %s\n", st.RequestsPerSecond(), st.Elapsed.Round(time.Millisecond))
	writeModel(w, st)
	if h.Count() > 0 {
		fmt.Fprintf(w, "latency p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n", fmtLatency(h.Quantile(.5)),
			fmtLatency(h.Quantile(.9)), fmtLatency(h.Quantile(.99)), fmtLatency(h.Quantile(.999)), fmtLatency(h.Max()))
	}
	return w.Flush()
}

// writeModel says which load model ran, so the latencies are read right,
// and when the open model's bound made calls start late.
func writeModel(w io.Writer, st *deliver.Stats) {
	if !st.Open {
		fmt.Fprintf(w, "closed model: %d workers, each waiting for its answer before the next call (latency per call)\n", st.MaxConcurrency)
		return
	}
	fmt.Fprintf(w, "open model: %g/s on schedule, latency from each call's scheduled start; at most %d in flight of --max-concurrency %d\n",
		st.Rate, st.PeakConcurrency, st.MaxConcurrency)
	if st.Late > 0 {
		fmt.Fprintf(w, "--max-concurrency %d reached: %d calls started late (their wait is in the latency); raise it to keep the rate\n",
			st.MaxConcurrency, st.Late)
	}
}
