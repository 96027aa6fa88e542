// Package listenout prints the calls a receiver observes, as listen and
// send's built-in receiver print them: a line per call (or a JSON object),
// its findings and flags, with -v its headers and body, all terminal-safe;
// and the tallies of a run at the end. It sits beside the command, so that
// term, the format layer, imports no receiver, capture or validate.
package listenout

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/validate"
)

// CallPrinter reports each call as it is observed and keeps the tallies for the
// summary. Observe runs on the receiver's one observer goroutine only.
type CallPrinter struct {
	w    io.Writer
	json bool

	// Limit, when > 0, is how many calls are printed; the rest are only
	// tallied (send's built-in receiver under load).
	Limit int
	// Faults, when set, is the kinds listen --fault puts on calls, in the
	// plan's order: the summary then counts them, and the calls the
	// receiver was sent against those the sender made.
	Faults []string
	// Forwarding says the calls go on to a receiver (listen
	// --forward-to): the summary then counts the calls it was sent and
	// answered, and the statuses listen gave itself for a forward that
	// failed, which by status alone would read as the receiver's.
	Forwarding bool
	// Capturing says the calls are recorded (listen --capture): a call's
	// JSON says "recorded" true only then, and only when its record was
	// written.
	Capturing bool

	byFault map[string]int
	// alone counts, by fault, the reorder calls whose window held only
	// them.
	alone map[string]int
	// forwarded counts the calls listen sent the receiver (a fault's
	// deliveries each), and splits them, each in one: answered (its
	// answer came whole and was passed on), malformed (it answered with
	// no HTTP/1.1 answer) and noWhole (no whole answer: none came, none
	// in time, one cut short, its sender gone first). "0 answered"
	// beside "malformed 200" read as a receiver that never answered.
	forwarded, answered, noWhole int
	// failed counts, by the status listen answered the sender itself,
	// the calls whose forward failed (not reached, cut short, too slow)
	// and whose sender was there for that answer.
	failed map[int]int
	// malformed counts the forwards (a fault's deliveries too) whose
	// answer was no HTTP/1.1 answer, its head or its framing
	// (receiver.IsMalformedAnswer): each answered listen's 502, said
	// apart so that the summary says the receiver answered, wrongly,
	// where "failed" alone reads as none.
	malformed int
	// flagged counts the flags judged of forwarded answers, by check:
	// each call flagged once, on its line or, judged after its line went
	// out, on the line of the call whose judgement flagged it (Of).
	flagged map[string]int
	// unrecorded counts, by the receiver's status (0: none), the calls
	// that went to the receiver and could not be recorded (the capture
	// failed as they were forwarded); unrecordedGot by the status listen
	// answered their senders instead.
	unrecorded, unrecordedGot map[int]int

	calls int
	// rejected counts the calls the HTTP server refused before listen
	// could read them; stopClosed those listen's stop closed unanswered
	// as they arrived, which were not refused for what they were. No call
	// is in both.
	rejected, stopClosed int
	// notRecorded counts the calls whose record was not written (the
	// capture had failed): each was answered 5xx, for its sender to send
	// it again.
	notRecorded int
	byEvent     map[string]int
	byVerdict   map[string]int
	// byStatus counts the answers the senders got; unanswered the answers
	// of the calls whose sender never got one (receiver.Call.Unanswered).
	byStatus, unanswered map[int]int
	started              time.Time

	// st holds the colours as fixed strings: the call line is built by
	// appending, without fmt.
	st  term.Style
	buf []byte
}

// NewCallPrinter returns a printer writing to w as text in the style st, or with
// json as one JSON object per call.
func NewCallPrinter(w io.Writer, json bool, st term.Style) *CallPrinter {
	return &CallPrinter{
		w: w, json: json,
		byEvent: map[string]int{}, byVerdict: map[string]int{}, byStatus: map[int]int{}, unanswered: map[int]int{},
		started: time.Now(),
		st:      st,
	}
}

const noEvent = "(no businessType)"

// CallFlag is what a judge of forwarded calls (check.Forwarded) says of
// the receiver's answer to one.
type CallFlag struct {
	Check  string `json:"check"`
	Reason string `json:"reason"`
	// Of is the seq of the call the flag judges, when not this one's
	// (receiver.Flag.Of).
	Of uint64 `json:"of,omitempty"`
}

// Observe prints and tallies one call, with the flags judged of its
// forwarded answer (none when it was not forwarded).
func (p *CallPrinter) Observe(c *receiver.Call, flags []CallFlag) {
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
	if c.Unanswered {
		p.unanswered[status]++
	} else {
		p.byStatus[status]++
	}
	p.tallyForward(c)
	for _, f := range flags {
		if p.flagged == nil {
			p.flagged = map[string]int{}
		}
		p.flagged[f.Check]++
	}
	if c.CaptureErr != nil && reachedReceiver(c) {
		if p.unrecorded == nil {
			p.unrecorded, p.unrecordedGot = map[int]int{}, map[int]int{}
		}
		p.unrecorded[c.Record.Forward.Status]++
		p.unrecordedGot[status]++
	}
	if f := c.Record.Forward; f != nil && f.Error != "" && !c.Unanswered {
		if p.failed == nil {
			p.failed = map[int]int{}
		}
		p.failed[status]++
	}
	if c.CaptureErr != nil {
		p.notRecorded++
	}
	switch {
	case c.StopClosed:
		p.stopClosed++
	case c.Record.Rejected != nil:
		p.rejected++
	}
	if p.Limit > 0 && p.calls > p.Limit {
		return
	}
	if p.json {
		p.printJSON(c, verdict, status, flags)
		return
	}
	p.printText(c, ev, verdict, status, flags)
}

func (p *CallPrinter) printText(c *receiver.Call, ev, verdict string, status int, flags []CallFlag) {
	r := c.Record
	b := p.buf[:0]
	b = append(b, p.st.Dim.Pre...)
	b = r.Time.AppendFormat(b, "15:04:05.000")
	b = append(b, p.st.Dim.Post...)
	b = append(b, "  "...)
	b = p.appendRequest(b, c, ev)
	b = append(b, "  → "...)
	if status == 0 {
		b = p.st.Fail.Append(b, "no answer")
	} else {
		b = p.statusWrap(status).Append(b, strconv.Itoa(status))
	}
	if f := r.Forward; f != nil {
		if f.Error != "" {
			b = p.st.Fail.Append(b, " (forward failed: "+termsafe.Text(termsafe.URLsIn(f.Error))+")")
		} else if c.CaptureErr != nil && reachedReceiver(c) {
			// The status is listen's own: the receiver's answer was not
			// passed on to a call that could not be recorded.
			b = p.st.Fail.Append(b, fmt.Sprintf(" (listen's own, not the receiver's: it answered %d in %.1fms, and the call could not be recorded)", f.Status, f.LatencyMS))
		} else if f.BodyCut != "" {
			b = fmt.Appendf(b, " (forwarded, %.1fms; ", f.LatencyMS)
			b = p.st.Warn.Append(b, termsafe.Text(f.BodyCut))
			b = append(b, ')')
		} else {
			b = fmt.Appendf(b, " (forwarded, %.1fms)", f.LatencyMS)
		}
	}
	if f := r.Fault; f != nil {
		b = p.st.Warn.Append(b, "  FAULT "+termsafe.Text(faultLabel(f)))
	}
	b = append(b, "  "...)
	b = verdictWrap(p.st, verdict).Append(b, verdict)
	if c.CaptureErr != nil {
		b = p.st.Fail.Append(b, "  NOT RECORDED: "+c.CaptureErr.Error())
	}
	b = append(b, '\n')
	if f := r.Fault; f != nil {
		b = fmt.Appendf(b, "    %s %s (attempt %d): sender got %s; receiver got %s\n", p.st.Warn.Pre+"fault  "+p.st.Warn.Post,
			termsafe.Text(faultLabel(f)), f.Attempt, termsafe.Text(termsafe.URLsIn(f.Sender)), termsafe.Text(termsafe.URLsIn(f.Receiver)))
	}
	for _, f := range c.Findings {
		sev := p.st.Warn.Pre + "warning" + p.st.Warn.Post
		if f.Severity == validate.Error {
			sev = p.st.Fail.Pre + "error  " + p.st.Fail.Post
		}
		b = fmt.Appendf(b, "    %s %s  %s: %s\n", sev, p.st.Dim.Pre+f.Rule+p.st.Dim.Post, termsafe.Text(f.Where()), termsafe.Text(f.Message))
	}
	for _, f := range flags {
		of := ""
		if f.Of != 0 {
			// Its line went out before the judgement that flags it.
			of = fmt.Sprintf(", of call #%d (printed before this one)", f.Of)
		}
		b = fmt.Appendf(b, "    %s %s%s: %s\n", p.st.Fail.Pre+"FLAG   "+p.st.Fail.Post, f.Check, of, termsafe.Text(f.Reason))
	}
	if p.st.Verbose {
		if q := r.Query; q != "" {
			b = append(b, "    "+p.st.Dim.Pre+"query: "+p.st.Dim.Post+termsafe.Text(termsafe.MaskQuery(q))+"\n"...)
		}
		b = append(b, "    "+p.st.Dim.Pre+"from: "+p.st.Dim.Post+termsafe.Text(r.Remote)+"\n"...)
		for _, h := range termsafe.Headers(r.Headers) {
			b = append(b, "    "+p.st.Key.Pre+h[0]+p.st.Key.Post+": "+h[1]+"\n"...)
		}
		if body := c.Body; len(body) > 0 {
			if c.Content != nil {
				body = c.Content // decoded from its Content-Encoding
			}
			b = append(b, indentLines(prettyBody(body), "    ")...)
		}
	}
	p.w.Write(b)
	if cap(b) <= 64<<10 {
		p.buf = b
	}
}

// appendRequest appends what the call asked: method, path, event, and its
// requestId and size, or that the HTTP server refused it unread.
func (p *CallPrinter) appendRequest(b []byte, c *receiver.Call, ev string) []byte {
	r := c.Record
	method, path := r.Method, r.ShownPath() // "/a%2Fb" is not "/a/b"
	if r.Rejected != nil {
		// What could be made out of a head the server refused.
		method, path = cmp.Or(method, "-"), cmp.Or(path, "-")
	}
	b = p.st.Bold.Append(b, termsafe.Text(method))
	b = append(b, ' ')
	b = append(b, termsafe.Text(path)...)
	b = append(b, "  "...)
	b = p.st.Key.Append(b, termsafe.Text(ev))
	if j := r.Rejected; j != nil {
		if c.StopClosed {
			b = p.st.Warn.Append(b, "  CLOSED as listen stopped, not read")
		} else {
			b = p.st.Fail.Append(b, "  REJECTED by the HTTP server, not read")
		}
		b = append(b, "  "...)
		b = appendByteSize(b, int(j.HeadBytes))
		return append(b, " of head"...)
	}
	// "-" for a body that names none, "" in quotes for an empty one, as
	// send and replay show them.
	id := reqid.Shown(reqid.Lookup(c.Content))
	b = append(b, "  requestId="...)
	b = append(b, termsafe.Text(id)...)
	b = append(b, "  "...)
	if r.BodyOverLimit > 0 {
		// Not kept: the body was no 0 B, as its empty record's size said
		// beside "body over the limit".
		b = append(b, "over "...)
		return appendByteSize(b, int(r.BodyOverLimit))
	}
	return appendByteSize(b, len(c.Body))
}

func (p *CallPrinter) statusWrap(status int) term.Wrap {
	switch {
	case status >= 200 && status < 300:
		return p.st.OK
	case status >= 500:
		return p.st.Fail
	}
	return p.st.Warn
}

func verdictWrap(st term.Style, verdict string) term.Wrap {
	switch verdict {
	case "valid":
		return st.OK
	case "warning":
		return st.Warn
	}
	return st.Fail
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
	s := termsafe.Lines(string(body))
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

// callJSON is the stable --output json form of a call.
type callJSON struct {
	Seq       uint64    `json:"seq"`
	Time      time.Time `json:"time"`
	Remote    string    `json:"remote"`
	Method    string    `json:"method"`
	Path      string    `json:"path"`
	RawPath   string    `json:"rawPath,omitempty"` // as the capture record's: the path as sent, when not Path escaped as Go escapes it
	Query     string    `json:"query"`             // credentials masked, as the headers'
	Event     *string   `json:"event"`             // null: the query has no businessType
	RequestID *string   `json:"requestId"`
	Size      int       `json:"size"`
	// BodyOverLimit is --max-body when the body was over it and not kept:
	// Size is then that of the empty body kept, not the body's.
	BodyOverLimit int64             `json:"bodyOverLimit,omitempty"`
	Headers       map[string]string `json:"headers"` // secrets masked, values joined with ", "
	Status        int               `json:"status"`
	// Unanswered says the sender never got Status: it had gone, or
	// listen's stop cut the call short.
	Unanswered bool           `json:"unanswered,omitempty"`
	Forward    *forwardJSON   `json:"forward,omitempty"`
	Fault      *capture.Fault `json:"fault,omitempty"`
	// Rejected is set on a request the HTTP server refused before listen
	// could read it: why, and how many bytes of its head came.
	Rejected *rejectedJSON      `json:"rejected,omitempty"`
	Recorded bool               `json:"recorded"`
	Verdict  string             `json:"verdict"`
	Findings []validate.Finding `json:"findings"`
	// Flags judge the answer of a forwarded call, as whsim check would.
	Flags []CallFlag `json:"flags,omitempty"`
}

type rejectedJSON struct {
	Reason    string `json:"reason"`
	HeadBytes int64  `json:"headBytes"`
	// ClosedAtStop says listen's stop closed it unanswered as it arrived:
	// not refused for what it was.
	ClosedAtStop bool `json:"closedAtStop,omitempty"`
}

type forwardJSON struct {
	URL       string  `json:"url"`
	Status    int     `json:"status,omitempty"`
	LatencyMS float64 `json:"latencyMs"`
	Error     string  `json:"error,omitempty"`
	BodyCut   string  `json:"bodyCut,omitempty"`
}

func (p *CallPrinter) printJSON(c *receiver.Call, verdict string, status int, flags []CallFlag) {
	r := c.Record
	o := callJSON{
		Seq: c.Seq, Time: r.Time, Remote: r.Remote, Method: r.Method, Path: r.Path, RawPath: r.RawPath, Query: termsafe.MaskQuery(r.Query),
		Size: len(c.Body), BodyOverLimit: r.BodyOverLimit, Headers: map[string]string{}, Status: status, Unanswered: c.Unanswered,
		Recorded: p.Capturing && c.CaptureErr == nil, Verdict: verdict, Findings: c.Findings, Flags: flags,
	}
	if o.Findings == nil {
		o.Findings = []validate.Finding{}
	}
	if c.HasEvent {
		o.Event = &c.Event
	}
	if id, named := reqid.Lookup(c.Content); named {
		o.RequestID = &id // "" for an empty one, as send's JSON says
	}
	for k, vs := range r.Headers {
		v := strings.Join(vs, ", ")
		if termsafe.SecretHeader(k) {
			v = termsafe.Mask(k, v)
		}
		o.Headers[k] = v
	}
	if f := r.Forward; f != nil {
		// The URL carries the sender's query and --forward-to's own:
		// their credentials masked, as the call's query is.
		o.Forward = &forwardJSON{URL: termsafe.URLString(f.URL), Status: f.Status, LatencyMS: f.LatencyMS, Error: termsafe.URLsIn(f.Error), BodyCut: f.BodyCut}
	}
	o.Fault = maskedFault(r.Fault)
	if j := r.Rejected; j != nil {
		o.Rejected = &rejectedJSON{Reason: j.Reason, HeadBytes: j.HeadBytes, ClosedAtStop: c.StopClosed}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(o); err != nil {
		return // a value built above always encodes
	}
	p.w.Write(termsafe.JSON(buf.Bytes()))
}

// Summary writes the tallies to w, coloured as st says, once the receiver
// has stopped.
func (p *CallPrinter) Summary(w io.Writer, st term.Style, title, capturePath string) {
	fmt.Fprintf(w, "%s %d %s in %s\n", st.Bold.Append(nil, title), p.calls, term.Plural(p.calls, "call", "calls"), time.Since(p.started).Round(time.Millisecond))
	if p.Limit > 0 && p.calls > p.Limit {
		fmt.Fprintf(w, "  shown:      the first %d\n", p.Limit)
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
		evs = append(evs, fmt.Sprintf("%s %d", termsafe.Text(e), p.byEvent[e]))
	}
	fmt.Fprintf(w, "  by event:   %s\n", strings.Join(evs, ", "))
	var vs []string
	for _, v := range []string{"valid", "warning", "invalid"} {
		if n := p.byVerdict[v]; n > 0 {
			vs = append(vs, string(verdictWrap(st, v).Append(nil, v))+" "+strconv.Itoa(n))
		}
	}
	fmt.Fprintf(w, "  by verdict: %s\n", strings.Join(vs, ", "))
	if ss := statusCounts(p.byStatus); len(ss) > 0 {
		fmt.Fprintf(w, "  by status:  %s\n", strings.Join(ss, ", "))
	}
	if ss := statusCounts(p.unanswered); len(ss) > 0 {
		n := 0
		for _, k := range p.unanswered {
			n += k
		}
		fmt.Fprintf(w, "  unanswered: %d (the sender had gone, or listen's stop cut the call short, before the answer: %s; see their lines)\n", n, strings.Join(ss, ", "))
	}
	if p.rejected > 0 {
		fmt.Fprintf(w, "  rejected:   %d (refused by the HTTP server before listen could read %s: see their lines)\n", p.rejected, term.Plural(p.rejected, "it", "them"))
	}
	if p.stopClosed > 0 {
		fmt.Fprintf(w, "  stopping:   %d (arrived as listen was stopping: closed unanswered, unread, recorded; see their lines)\n", p.stopClosed)
	}
	if p.notRecorded > 0 {
		fmt.Fprintf(w, "  not recorded: %d (the capture had failed: answered 5xx, for their senders to send them again; see their lines)\n", p.notRecorded)
	}
	if p.Faults != nil {
		var fs []string
		for _, k := range p.Faults {
			f := fmt.Sprintf("%s %d", k, p.byFault[k])
			if n := p.alone[k]; n > 0 {
				// Counted as hit, since each was held; but a window of
				// one shuffles nothing, and "reorder 5" alone would read
				// as five calls the receiver got out of order.
				f += fmt.Sprintf(" (%d alone in %s window: not reordered)", n, term.Plural(n, "its", "their"))
			}
			fs = append(fs, f)
		}
		fmt.Fprintf(w, "  faults:     %s\n", strings.Join(fs, ", "))
	}
	if p.Faults != nil || p.Forwarding {
		p.receiverSummary(w)
	}
	if capturePath != "" {
		fmt.Fprintf(w, "  capture:    %s\n", capturePath)
	}
}

// receiverSummary writes the summary's lines of what listen sent the
// receiver (--forward-to, --fault).
func (p *CallPrinter) receiverSummary(w io.Writer) {
	// Each call sent in one part: answered, malformed, no whole answer
	// (the last two said when there are some).
	parts := fmt.Sprintf("%d answered", p.answered)
	if p.malformed > 0 {
		parts += fmt.Sprintf(", %d malformed", p.malformed)
	}
	if p.noWhole > 0 {
		parts += fmt.Sprintf(", %d with no whole answer", p.noWhole)
	}
	fmt.Fprintf(w, "  receiver:   sent %d %s for the sender's %d (%s)\n", p.forwarded, term.Plural(p.forwarded, "call", "calls"), p.calls, parts)
	if ss := statusCounts(p.failed); len(ss) > 0 {
		n := 0
		for _, k := range p.failed {
			n += k
		}
		// The statuses after a colon, as the unanswered line puts its
		// own: "got listen's own 504 1" read as a status of 5041.
		fmt.Fprintf(w, "  failed:     %d %s (%s listen's own status, not the receiver's answer: %s; see %s)\n",
			n, term.Plural(n, "forward", "forwards"), term.Plural(n, "its sender got", "their senders got"), strings.Join(ss, ", "), term.Plural(n, "its line", "their lines"))
	}
	if len(p.flagged) > 0 {
		var fs []string
		for _, k := range slices.Sorted(maps.Keys(p.flagged)) {
			fs = append(fs, fmt.Sprintf("%s %d", k, p.flagged[k]))
		}
		fmt.Fprintf(w, "  flagged:    %s (calls whose answers break check's rules; see the FLAG lines)\n", strings.Join(fs, ", "))
	}
	if n := p.malformed; n > 0 {
		fmt.Fprintf(w, "  malformed:  %d %s no HTTP/1.1 answer (%s; see %s)\n",
			n, term.Plural(n, "answer of the receiver's that was", "answers of the receiver's that were"), receiver.MalformedKinds, term.Plural(n, "its line", "their lines"))
	}
	if ss := statusCounts(p.unrecorded); len(ss) > 0 {
		n := 0
		for _, k := range p.unrecorded {
			n += k
		}
		fmt.Fprintf(w, "  unrecorded: %d %s to the receiver (it answered %s) and could not be recorded: the capture lacks %s, and %s listen's own status (%s), not the receiver's answer, so %s; see %s\n",
			n, term.Plural(n, "call went", "calls went"), strings.Join(ss, ", "), term.Plural(n, "it", "them"),
			term.Plural(n, "its sender got", "their senders got"), strings.Join(statusCounts(p.unrecordedGot), ", "),
			term.Plural(n, "it may send it again", "they may send them again"), term.Plural(n, "its line", "their lines"))
	}
}

// reachedReceiver says some of c went out to the receiver: a delivery of
// its fault, or its forward.
func reachedReceiver(c *receiver.Call) bool {
	if f := c.Record.Fault; f != nil {
		return len(f.Deliveries) > 0 && c.Record.Forward != nil
	}
	return c.Record.Forward != nil && !c.Unsent
}

// statusCounts is each status of counts and how many, in order: "200 5",
// "no answer 1" for a call with none.
func statusCounts(counts map[int]int) []string {
	codes := slices.Sorted(maps.Keys(counts))
	var ss []string
	for _, c := range codes {
		if c == 0 {
			ss = append(ss, fmt.Sprintf("no answer %d", counts[c]))
			continue
		}
		ss = append(ss, fmt.Sprintf("%d %d", c, counts[c]))
	}
	return ss
}

// tallyForward counts what listen sent the receiver for a call, and its
// fault: each delivery of a faulted call, else its forward unless none of
// it went out (the receiver could not be reached).
func (p *CallPrinter) tallyForward(c *receiver.Call) {
	r := c.Record
	if f := r.Fault; f != nil {
		if p.byFault == nil {
			p.byFault = map[string]int{}
		}
		p.byFault[faultLabel(f)]++
		if f.Window == 1 {
			if p.alone == nil {
				p.alone = map[string]int{}
			}
			p.alone[faultLabel(f)]++
		}
		for _, d := range f.Deliveries {
			p.tallySent(d.Error)
		}
		return
	}
	if f := r.Forward; f != nil && !c.Unsent {
		p.tallySent(f.Error)
	}
}

// tallySent counts a call sent to the receiver, whose forward failed
// with forwardErr ("" for none), in one part of the sent.
func (p *CallPrinter) tallySent(forwardErr string) {
	p.forwarded++
	switch {
	case forwardErr == "":
		p.answered++
	case receiver.IsMalformedAnswer(forwardErr):
		p.malformed++
	default:
		p.noWhole++
	}
}

// maskedFault is f as listen prints it: the errors its words and
// deliveries quote name the URL the call was forwarded to, credentials
// masked. The record's own fault is not touched (the capture keeps it).
func maskedFault(f *capture.Fault) *capture.Fault {
	if f == nil {
		return nil
	}
	m := *f
	m.Sender, m.Receiver = termsafe.URLsIn(f.Sender), termsafe.URLsIn(f.Receiver)
	m.Deliveries = slices.Clone(f.Deliveries)
	for i := range m.Deliveries {
		m.Deliveries[i].Error = termsafe.URLsIn(m.Deliveries[i].Error)
	}
	return &m
}

// faultLabel is a fault as --fault names it: kind, or kind:arg.
func faultLabel(f *capture.Fault) string {
	if f.Arg == "" {
		return f.Kind
	}
	return f.Kind + ":" + f.Arg
}
