package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/check"
	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/report"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/validate"
)

// callPrinter reports each call as it is observed and keeps the tallies
// for the summary. It runs on the receiver's one observer goroutine only.
type callPrinter struct {
	w    io.Writer
	json bool

	// limit, when > 0, is how many calls are printed; the rest are only
	// tallied (send's built-in receiver under load).
	limit int
	// judge flags the receiver's answers to forwarded calls.
	judge *check.Forwarded

	calls     int
	byEvent   map[string]int
	byVerdict map[string]int
	byStatus  map[int]int
	started   time.Time

	// st is the palette's colours as fixed strings, worked out once: the
	// call line is built by appending, without fmt.
	st  report.Style
	buf []byte
}

func newCallPrinter(w io.Writer, output string, verbose bool, pal Palette) *callPrinter {
	return &callPrinter{
		w: w, json: output == "json",
		byEvent: map[string]int{}, byVerdict: map[string]int{}, byStatus: map[int]int{},
		started: time.Now(), judge: check.NewForwarded(),
		st: style(pal, verbose),
	}
}

const noEvent = "(no businessType)"

func (p *callPrinter) observe(c *receiver.Call) {
	ev := noEvent
	if c.HasEvent {
		ev = c.Event
	}
	verdict := c.Verdict()
	status := 0
	if c.Record.Response != nil {
		status = c.Record.Response.Status
	}
	p.calls++
	p.byEvent[ev]++
	p.byVerdict[verdict]++
	p.byStatus[status]++
	var flags []check.Flag
	if f := c.Record.Forward; f != nil && f.Error == "" {
		flags = p.judge.Judge(requestID(c.Body), verdict == "invalid", f.Status)
	}
	if p.limit > 0 && p.calls > p.limit {
		return
	}
	if p.json {
		p.printJSON(c, verdict, status, flags)
		return
	}
	p.printText(c, ev, verdict, status, flags)
}

// requestID reads the body's requestId, "" when there is none to read: a
// string's value, or a number or object as it was sent. It reads the body
// only up to the requestId (senders put it first), so a large body costs
// little: a full json.Unmarshal here was a fifth of listen's CPU under load.
func requestID(body []byte) string {
	sp, ok := jsonlex.Member(body, spec.FieldRequestID)
	switch {
	case !ok || sp.Kind == jsonlex.Null:
		return ""
	case sp.Kind == jsonlex.String:
		return jsonlex.StringAt(body, sp)
	}
	return string(body[sp.Start:sp.End])
}

func (p *callPrinter) printText(c *receiver.Call, ev, verdict string, status int, flags []check.Flag) {
	r := c.Record
	id := requestID(c.Body)
	if id == "" {
		id = "-"
	}
	b := p.buf[:0]
	b = append(b, p.st.Dim.Pre...)
	b = r.Time.AppendFormat(b, "15:04:05.000")
	b = append(b, p.st.Dim.Post...)
	b = append(b, "  "...)
	b = p.st.Bold.Append(b, termSafe(r.Method, false))
	b = append(b, ' ')
	b = append(b, termSafe(r.Path, false)...)
	b = append(b, "  "...)
	b = p.st.Key.Append(b, termSafe(ev, false))
	b = append(b, "  requestId="...)
	b = append(b, termSafe(id, false)...)
	b = append(b, "  "...)
	b = appendByteSize(b, len(c.Body))
	b = append(b, "  → "...)
	b = p.statusWrap(status).Append(b, strconv.Itoa(status))
	if f := r.Forward; f != nil {
		if f.Error != "" {
			b = p.st.Fail.Append(b, " (forward failed: "+termSafe(f.Error, false)+")")
		} else {
			b = fmt.Appendf(b, " (forwarded, %.1fms)", f.LatencyMS)
		}
	}
	b = append(b, "  "...)
	b = p.verdictWrap(verdict).Append(b, verdict)
	if c.CaptureErr != nil {
		b = p.st.Fail.Append(b, "  NOT RECORDED: "+c.CaptureErr.Error())
	}
	b = append(b, '\n')
	for _, f := range c.Findings {
		sev := p.st.Warn.Pre + "warning" + p.st.Warn.Post
		if f.Severity == validate.Error {
			sev = p.st.Fail.Pre + "error  " + p.st.Fail.Post
		}
		where := f.Path
		switch {
		case strings.HasPrefix(f.Rule, "http-") || f.Rule == validate.RuleQueryEvent:
			where = "(request)"
		case where == "":
			where = "(body)"
		}
		b = fmt.Appendf(b, "    %s %s  %s: %s\n", sev, p.st.Dim.Pre+f.Rule+p.st.Dim.Post, termSafe(where, false), termSafe(f.Message, false))
	}
	for _, f := range flags {
		b = fmt.Appendf(b, "    %s %s: %s\n", p.st.Fail.Pre+"FLAG   "+p.st.Fail.Post, f.Check, termSafe(f.Reason, false))
	}
	if p.st.Verbose {
		if q := r.Query; q != "" {
			b = append(b, "    "+p.st.Dim.Pre+"query: "+p.st.Dim.Post+termSafe(q, false)+"\n"...)
		}
		b = append(b, "    "+p.st.Dim.Pre+"from: "+p.st.Dim.Post+termSafe(r.Remote, false)+"\n"...)
		for _, h := range safeHeaders(r.Headers) {
			b = append(b, "    "+p.st.Key.Pre+h[0]+p.st.Key.Post+": "+h[1]+"\n"...)
		}
		if len(c.Body) > 0 {
			b = append(b, indentLines(prettyBody(c.Body), "    ")...)
		}
	}
	p.w.Write(b)
	if cap(b) <= 64<<10 {
		p.buf = b
	}
}

func (p *callPrinter) statusWrap(status int) report.Wrap {
	switch {
	case status >= 200 && status < 300:
		return p.st.OK
	case status >= 500:
		return p.st.Fail
	}
	return p.st.Warn
}

func (p *callPrinter) verdictWrap(verdict string) report.Wrap {
	switch verdict {
	case "valid":
		return p.st.OK
	case "warning":
		return p.st.Warn
	}
	return p.st.Fail
}

// maxShownBody bounds the body -v prints; the capture keeps all of it.
const maxShownBody = 64 << 10

// prettyBody indents a JSON body; anything else is shown as it is. Either
// way it is made terminal-safe, keeping only real line breaks.
func prettyBody(body []byte) string {
	more := 0
	if len(body) > maxShownBody {
		more = len(body) - maxShownBody
		body = body[:maxShownBody]
	}
	var buf bytes.Buffer
	if more == 0 && json.Indent(&buf, body, "", "  ") == nil {
		body = buf.Bytes()
	}
	s := termSafe(string(body), true)
	if more > 0 {
		s += fmt.Sprintf("\n… %d more bytes", more)
	}
	return s
}

func indentLines(s, prefix string) string {
	s = strings.TrimRight(s, "\n")
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix) + "\n"
}

func appendByteSize(b []byte, n int) []byte {
	switch {
	case n < 1<<10:
		b = strconv.AppendInt(b, int64(n), 10)
		return append(b, " B"...)
	case n < 1<<20:
		b = strconv.AppendFloat(b, float64(n)/(1<<10), 'f', 1, 64)
		return append(b, " KiB"...)
	}
	b = strconv.AppendFloat(b, float64(n)/(1<<20), 'f', 1, 64)
	return append(b, " MiB"...)
}

func verdictColor(pal Palette, verdict string) interface{ Sprint(...any) string } {
	switch verdict {
	case "valid":
		return pal.OK
	case "warning":
		return pal.Warn
	}
	return pal.Fail
}

// callJSON is the stable --output json form of a call.
type callJSON struct {
	Seq       uint64             `json:"seq"`
	Time      time.Time          `json:"time"`
	Remote    string             `json:"remote"`
	Method    string             `json:"method"`
	Path      string             `json:"path"`
	Query     string             `json:"query"`
	Event     *string            `json:"event"` // null: the query has no businessType
	RequestID *string            `json:"requestId"`
	Size      int                `json:"size"`
	Headers   map[string]string  `json:"headers"` // secrets masked, values joined with ", "
	Status    int                `json:"status"`
	Forward   *forwardJSON       `json:"forward,omitempty"`
	Recorded  bool               `json:"recorded"`
	Verdict   string             `json:"verdict"`
	Findings  []validate.Finding `json:"findings"`
	// Flags judge the answer of a forwarded call, as whsim check would.
	Flags []check.Flag `json:"flags,omitempty"`
}

type forwardJSON struct {
	URL       string  `json:"url"`
	Status    int     `json:"status,omitempty"`
	LatencyMS float64 `json:"latencyMs"`
	Error     string  `json:"error,omitempty"`
}

func (p *callPrinter) printJSON(c *receiver.Call, verdict string, status int, flags []check.Flag) {
	r := c.Record
	o := callJSON{
		Seq: c.Seq, Time: r.Time, Remote: r.Remote, Method: r.Method, Path: r.Path, Query: r.Query,
		Size: len(c.Body), Headers: map[string]string{}, Status: status,
		Recorded: c.CaptureErr == nil, Verdict: verdict, Findings: c.Findings, Flags: flags,
	}
	if o.Findings == nil {
		o.Findings = []validate.Finding{}
	}
	if c.HasEvent {
		o.Event = &c.Event
	}
	if id := requestID(c.Body); id != "" {
		o.RequestID = &id
	}
	for k, vs := range r.Headers {
		v := strings.Join(vs, ", ")
		if termsafe.SecretHeader(k) {
			v = termsafe.Mask(k, v)
		}
		o.Headers[k] = v
	}
	if f := r.Forward; f != nil {
		o.Forward = &forwardJSON{URL: f.URL, Status: f.Status, LatencyMS: f.LatencyMS, Error: f.Error}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o); err != nil {
		return // a value built above always encodes
	}
	p.w.Write(jsonTermSafe(buf.Bytes()))
}

// jsonTermSafe escapes, inside encoded JSON, what encoding/json leaves raw
// but a terminal would act on: DEL, C1 controls and bidi controls. \uXXXX
// is valid JSON, so the value is unchanged for a parser.
func jsonTermSafe(b []byte) []byte {
	if !slices.ContainsFunc(b, func(c byte) bool { return c >= 0x7f }) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == 0x7f || (r >= 0x80 && r <= 0x9f) || isBidi(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// summary prints the tallies once listen has stopped.
func (p *callPrinter) summary(w io.Writer, pal Palette, title, capturePath string) {
	fmt.Fprintf(w, "%s %d calls in %s\n", pal.Bold.Sprint(title), p.calls, time.Since(p.started).Round(time.Millisecond))
	if p.limit > 0 && p.calls > p.limit {
		fmt.Fprintf(w, "  shown:      the first %d\n", p.limit)
	}
	if p.calls == 0 {
		return
	}
	var evs []string
	for _, e := range spec.EventNames() {
		if n := p.byEvent[e]; n > 0 {
			evs = append(evs, fmt.Sprintf("%s %d", e, n))
		}
	}
	var others []string
	for e := range p.byEvent {
		if _, known := spec.Lookup(e); !known {
			others = append(others, e)
		}
	}
	slices.Sort(others)
	for _, e := range others {
		evs = append(evs, fmt.Sprintf("%s %d", termSafe(e, false), p.byEvent[e]))
	}
	fmt.Fprintf(w, "  by event:   %s\n", strings.Join(evs, ", "))
	var vs []string
	for _, v := range []string{"valid", "warning", "invalid"} {
		if n := p.byVerdict[v]; n > 0 {
			vs = append(vs, verdictColor(pal, v).Sprint(v)+" "+strconv.Itoa(n))
		}
	}
	fmt.Fprintf(w, "  by verdict: %s\n", strings.Join(vs, ", "))
	var codes []int
	for c := range p.byStatus {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	var ss []string
	for _, c := range codes {
		ss = append(ss, fmt.Sprintf("%d %d", c, p.byStatus[c]))
	}
	fmt.Fprintf(w, "  by status:  %s\n", strings.Join(ss, ", "))
	if capturePath != "" {
		fmt.Fprintf(w, "  capture:    %s\n", capturePath)
	}
}
