package sendout

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/threshold"
)

// delivery is a delivery as a report case.
type delivery attempt.Result

func (c *delivery) Verdict() term.Verdict {
	if c.OK {
		return term.Pass
	}
	return term.Fail
}

// AppendText is one line (event, requestId, status, latency) and with -v
// the request and the answer.
func (c *delivery) AppendText(b []byte, st *term.Style) []byte {
	res := (*attempt.Result)(c)
	last := res.Last()
	req := res.Request
	b = fmt.Appendf(b, "%-29s %-36s ", termsafe.Text(req.Event), termsafe.Text(req.ShownID()))
	if last.Status != 0 {
		b = fmt.Appendf(b, "%d %s", last.Status, fmtLatency(res.Latency()))
	} else {
		b = fmt.Appendf(b, "--- %s", termsafe.Text(noAnswerText(last)))
	}
	switch {
	case last.Unfinished() != "":
		b = append(b, "  "+last.Unfinished()...)
	case last.Status != 0 && !res.OK:
		b = append(b, "  unexpected status"...)
		if last.Location != "" {
			b = append(b, " (redirect to "+termsafe.Text(last.Location)+" not followed; --follow-redirects)"...)
		}
	}
	// The answer's start goes with its status, before the retries and the
	// duplicate mark: after them it read as what they came to.
	if last.Status != 0 && !res.OK && !st.Verbose {
		b = append(b, excerpt(last.BodyPrefix, last.BodyCut)...)
	}
	switch n := res.Tries(); {
	case n < len(res.Attempts):
		// Ctrl-C in the backoff: the attempt before it was over, and an
		// answer it got (a 429 with Retry-After) is said, not hidden
		// behind the "---" of the retry never made.
		b = fmt.Appendf(b, "  after %d %s, in the backoff", n, term.Plural(n, "attempt", "attempts"))
		if n > 0 {
			if before := res.Attempts[n-1]; before.Status != 0 {
				b = fmt.Appendf(b, " after a %d", before.Status)
			}
		}
		b = append(b, ": its retry not made"...)
	case n > 1:
		b = fmt.Appendf(b, "  after %d attempts", n)
	}
	if last.NotRetried != "" {
		b = append(b, "  not retried: "+last.NotRetried...)
	}
	if req.Duplicate {
		b = append(b, "  duplicate"...)
	}
	if !res.OK && req.Source != "" {
		// The record to look at, or to replay alone.
		b = append(b, "  from "+termsafe.Text(req.Source)...)
	}
	b = append(b, '\n')
	if !st.Verbose {
		return b
	}
	b = fmt.Appendf(b, "  > %s %s\n", cmp.Or(req.Method, http.MethodPost), termsafe.Text(shownURL(res)))
	b = appendHeaders(b, "  > ", termsafe.MaskHeaders(res.SentHeader))
	b = appendBody(b, "  > ", req.Body)
	if res.RespHeader != nil {
		b = fmt.Appendf(b, "  < %d\n", last.Status)
		b = appendHeaders(b, "  < ", res.RespHeader)
		b = appendBody(b, "  < ", res.RespBody)
	}
	return b
}

func (c *delivery) AppendJSON(b []byte, st *term.Style) []byte {
	return appendResultJSON(b, (*attempt.Result)(c), st.Verbose)
}

// JUnit is one test case per delivery in one suite per event.
func (c *delivery) JUnit() term.TestCase {
	res := (*attempt.Result)(c)
	last := res.Last()
	// A call whose body names no requestId is named by its place; one
	// that names an empty one by "" in quotes, as its line shows it.
	tc := term.TestCase{Suite: res.Request.Event, Name: res.Request.ShownID(), Class: "whsim.delivery"}
	if _, named := res.Request.ID(); !named {
		tc.Name = "#" + strconv.Itoa(res.Request.Seq)
	}
	if res.Request.Duplicate {
		// Its requestId is its original's: named apart, so that a JUnit
		// reader keeps both (term's JUnit numbers any further repeat).
		tc.Name += " (re-delivery)"
	}
	// The case's time is the delivery's, start to end, as JUnit readers
	// show it: its attempts and the backoff waited between them (not the
	// one before an attempt Ctrl-C stopped). Deliveries run at once: End
	// (now: Report tells of each as it ends) lets the suite's time be
	// their span, not their sum.
	tc.End = time.Now()
	var sb strings.Builder
	tried := res.Attempts[:res.Tries()]
	for i, a := range tried {
		fmt.Fprintf(&sb, "attempt %d: %s in %s", i+1, attemptText(a), fmtLatency(a.Latency))
		tc.Time += a.Latency
		if i+1 < len(tried) && a.Wait > 0 {
			fmt.Fprintf(&sb, ", then %s backoff", a.Wait.Round(time.Millisecond))
			tc.Time += a.Wait
		}
		sb.WriteByte('\n')
	}
	if res.Tries() < len(res.Attempts) {
		sb.WriteString("interrupted in the backoff before the next attempt\n")
	}
	if why := last.NotRetried; why != "" {
		sb.WriteString("not retried: " + why + "\n")
	}
	tc.Detail = sb.String()
	if !res.OK {
		method := cmp.Or(res.Request.Method, http.MethodPost)
		tc.FailureType = "unexpected status"
		where := shownURL(res)
		// The start of the answer, as the delivery's line and check's
		// JUnit reasons show it: CI shows this message alone.
		tc.Failure = fmt.Sprintf("%s %s: %d%s", method, where, last.Status, excerpt(last.BodyPrefix, last.BodyCut))
		if why := last.Unfinished(); why != "" {
			tc.FailureType = "answer unfinished"
			tc.Failure = fmt.Sprintf("%s %s: %d, %s", method, where, last.Status, why)
		}
		if last.Status == 0 {
			tc.FailureType = last.Kind
			tc.Failure = fmt.Sprintf("%s %s: %s", method, where, noAnswerText(last))
		}
		if src := res.Request.Source; src != "" {
			// CI shows the message alone: it names the record.
			tc.Failure = termsafe.Text(src) + ": " + tc.Failure
		}
		if last.Kind == attempt.KindInterrupted {
			// Cut short by Ctrl-C: neither succeeded nor failed, as the
			// summary counts it (load.Stats), so a case in error, not a
			// failure of the receiver; the run's own failing case says
			// it was interrupted.
			tc.Error, tc.Failure, tc.FailureType = tc.Failure, "", ""
		}
	}
	return tc
}

// attemptText is what an attempt got, as a retry notice and a JUnit case
// tell each one: its status, and why its answer was not read whole; or
// its error.
func attemptText(a attempt.Attempt) string {
	switch {
	case a.Status == 0:
		return noAnswerText(a)
	case a.Unfinished() != "":
		return strconv.Itoa(a.Status) + ", " + a.Unfinished()
	}
	return strconv.Itoa(a.Status)
}

// noAnswerText is why an attempt got no answer; one that went out on a
// kept-alive connection the receiver closed as it arrived says so: not a
// receiver that refuses calls, and the call may have been taken (a handler
// that died on it), or not (a race with an idle timeout). One whose
// connection, new or kept alive, ended after the call went out says the
// call may have been taken: the receiver may have read it and reset. The
// words are attempt.TakenNote's, which the HTML report and the job
// summary say too.
func noAnswerText(a attempt.Attempt) string {
	if note := attempt.TakenNote(a); note != "" {
		return attempt.FailureText(a) + " " + note
	}
	if s := a.Silent; s != nil && s.Whole && a.Kind == attempt.KindTimeout {
		// What passed on the connection, which "timeout" alone hides:
		// the call went out whole, and no answer came, or part of one.
		return attempt.KindTimeout + ": " + s.Words()
	}
	return attempt.FailureText(a)
}

// excerpt is the start of an unexpected answer's body after ": ", as
// check's reasons show it (termsafe.Excerpt: -v shows it whole); "" for
// an empty one.
func excerpt(body []byte, cut bool) string {
	if text := termsafe.Excerpt(body, cut); text != "" {
		return ": " + text
	}
	return ""
}

func appendHeaders(b []byte, prefix string, h http.Header) []byte {
	for _, kv := range termsafe.Headers(h) {
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
		b = append(b, prefix+termsafe.Text(line)+"\n"...)
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

// SendSummary is a delivery run's stats as a report summary: Name is its
// title, Note is said under the counts (send's --count per event).
type SendSummary struct {
	Stats *load.Stats
	Name  string
	Note  string
	// Thresholds are send --threshold's, checked at the end.
	Thresholds []threshold.Result
	// Incomplete, when set, is why the run did not test all it was given
	// (replay's lines skipped, nothing sent): the counts alone would read
	// as a pass.
	Incomplete string
}

// Title, AppendText and AppendJSON make a SendSummary the run's report summary.
func (s SendSummary) Title() string { return s.Name }

func (s SendSummary) AppendJSON(b []byte) []byte {
	return appendIncompleteJSON(appendThresholdsJSON(appendStatsJSON(b, s.Stats), s.Thresholds), s.Incomplete)
}

// appendIncompleteJSON adds why, when set, to the summary line as
// "incomplete".
func appendIncompleteJSON(line []byte, why string) []byte {
	if why == "" {
		return line
	}
	body, ok := bytes.CutSuffix(line, []byte("}}\n"))
	if !ok {
		return line
	}
	out := append(body, `,"incomplete":`...)
	out = append(out, bytes.TrimSuffix(marshalJSONLine(why), []byte("\n"))...)
	return append(out, "}}\n"...)
}

// AppendText is sent, succeeded, failed by status and by error kind,
// throughput and latency.
func (s SendSummary) AppendText(b []byte, rst *term.Style) []byte {
	st, h := s.Stats, &s.Stats.Latency
	b = fmt.Appendf(b, "\nsent %d  succeeded %d  failed %d", st.Sent, st.Succeeded, st.Failed)
	if st.Interrupted > 0 {
		b = fmt.Appendf(b, "  interrupted %d", st.Interrupted)
	}
	if st.NotStarted > 0 || st.NotStartedUncounted {
		b = fmt.Appendf(b, "  not started %d", st.NotStarted)
		if st.NotStartedUncounted {
			b = append(b, " and "+load.StdinUncounted...)
		}
	}
	if st.Documents > 0 || st.NoDocument > 0 {
		// The calls and the documents they carried apart: a receiver
		// that keys on the document stores this many. A body that
		// names no document is none, said apart.
		b = fmt.Appendf(b, "  documents %d", st.Documents)
		if st.NoDocument > 0 {
			b = fmt.Appendf(b, " (%d %s no document number)", st.NoDocument, term.Plural(st.NoDocument, "call carried", "calls carried"))
		}
	}
	b = fmt.Appendf(b, "  duplicates %d  retries %d\n", st.Duplicates, st.Retries)
	if s.Note != "" {
		b = append(b, s.Note+"\n"...)
	}
	if s.Incomplete != "" {
		b = rst.Fail.Append(append(b, "incomplete: "...), termsafe.Text(s.Incomplete))
		b = append(b, '\n')
	}
	b = appendFailed(b, st)
	b = appendUnasked(b, st)
	b = appendRate(b, st)
	b = appendModel(b, st)
	if h.Count() > 0 {
		b = fmt.Appendf(b, "latency p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n", fmtLatency(h.Quantile(.5)),
			fmtLatency(h.Quantile(.9)), fmtLatency(h.Quantile(.99)), fmtLatency(h.Quantile(.999)), fmtLatency(h.Max()))
	}
	if len(s.Thresholds) == 0 || rst == nil {
		return appendThresholdsText(b, s.Thresholds, "FAILED", "ok", "not judged")
	}
	return appendThresholdsText(b, s.Thresholds, string(rst.Fail.Append(nil, "FAILED")), string(rst.OK.Append(nil, "ok")),
		string(rst.Warn.Append(nil, "not judged")))
}

// appendRate is the summary's rate line: answered calls per second, or
// why there is none, with what the rate leaves out.
func appendRate(b []byte, st *load.Stats) []byte {
	h := &st.Latency
	// A refused connection fails at once: a rate over such calls would
	// measure how fast the client gives up, not the receiver. A delivery
	// Ctrl-C ended has no final answer either: one cut short in its call
	// may have been answered, one stopped in the backoff after an answer
	// (a 429's Retry-After) was, and its retry never made. Each is said
	// apart, not as a call that got no answer, nor the second as cut short.
	answered := h.Count()
	cut := min(uint64(max(st.Interrupted-st.RetryNotMade, 0)), uint64(st.Sent)-answered)
	waited := min(uint64(retryNotMadeAnswered(st)), uint64(st.Sent)-answered-cut)
	none := uint64(st.Sent) - answered - cut - waited
	switch elapsed := st.Elapsed.Round(time.Millisecond); {
	case st.Sent == 0:
		b = append(b, "no rate: nothing was sent\n"...)
	case answered == 0 && cut > 0 && waited+none == 0:
		b = fmt.Appendf(b, "no rate: interrupted before a delivery got its final answer (%d cut short over %s)\n", cut, elapsed)
	case answered == 0 && cut+waited > 0:
		var parts []string
		if cut > 0 {
			parts = append(parts, fmt.Sprintf("%d cut short", cut))
		}
		if waited > 0 {
			parts = append(parts, retryNotMadeWords(st))
		}
		if none > 0 {
			parts = append(parts, fmt.Sprintf("%d without an answer", none))
		}
		b = fmt.Appendf(b, "no rate: interrupted before a delivery got its final answer (%s, over %s)\n", strings.Join(parts, ", "), elapsed)
	case answered == 0:
		b = fmt.Appendf(b, "no rate: no call was answered (%d over %s)\n", st.Sent, elapsed)
	case cut+waited+none > 0:
		var left []string
		if cut > 0 {
			left = append(left, fmt.Sprintf("the %d cut short by the interrupt", cut))
		}
		if waited > 0 {
			left = append(left, "the "+retryNotMadeWords(st))
		}
		if none > 0 {
			left = append(left, fmt.Sprintf("the %d %s that got no answer", none, term.Plural(int(none), "call", "calls")))
		}
		b = fmt.Appendf(b, "%.1f answered req/s over %s (%s not counted)\n",
			float64(answered)/st.Elapsed.Seconds(), elapsed, strings.Join(left, " and "))
	default:
		b = fmt.Appendf(b, "%.1f req/s over %s\n", st.RequestsPerSecond(), st.Elapsed.Round(time.Millisecond))
	}
	return b
}

// retryNotMadeAnswered is how many deliveries Ctrl-C stopped in the
// backoff after an answer.
func retryNotMadeAnswered(st *load.Stats) int {
	n := 0
	for _, c := range st.RetryNotMadeByStatus {
		n += c
	}
	return n
}

// retryNotMadeWords says the deliveries Ctrl-C stopped in the backoff
// after an answer, with their statuses: "1 answered 429 and interrupted
// waiting to retry". They were answered: no call of theirs was cut short.
func retryNotMadeWords(st *load.Stats) string {
	n := retryNotMadeAnswered(st)
	codes := slices.Sorted(maps.Keys(st.RetryNotMadeByStatus))
	said := make([]string, len(codes))
	for i, c := range codes {
		said[i] = strconv.Itoa(c)
	}
	return fmt.Sprintf("%d answered %s and interrupted waiting to retry", n, strings.Join(said, " or "))
}

// interruptedWords says what Ctrl-C ended of the deliveries sent, for a
// line that counts them: those cut short in their call, and apart those
// it stopped in the backoff, their attempt over and its retry not made.
func interruptedWords(st *load.Stats) string {
	cut := max(st.Interrupted-st.RetryNotMade, 0)
	words := fmt.Sprintf("%d of them cut short", cut)
	if n := retryNotMadeAnswered(st); n > 0 {
		words += ", " + retryNotMadeWords(st)
	}
	if n := st.RetryNotMade - retryNotMadeAnswered(st); n > 0 {
		words += fmt.Sprintf(", %d without an answer and interrupted waiting to retry", n)
	}
	return words
}

// appendFailed is how the failed deliveries failed: by status, by error,
// and the calls whose kept-alive connection the receiver closed as they
// arrived (failed, or sent again by a retry), which may have been taken.
func appendFailed(b []byte, st *load.Stats) []byte {
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
		if n := st.ClosedAsSent; n > 0 {
			b = fmt.Appendf(b, "  %d of them went out on a kept-alive connection the receiver closed as the call arrived, without an answer: "+
				"its idle timeout is shorter than the sender's (it closes a connection its answer kept alive, without 'Connection: close'), "+
				"or its handler died on the call; the call may have been taken\n", n)
		}
	}
	if n := st.ResentAfterClose; n > 0 {
		b = fmt.Appendf(b, "%d %s resent a call whose kept-alive connection the receiver closed as it arrived, without an answer: the receiver may have taken %s twice\n",
			n, term.Plural(n, "retry", "retries"), term.Plural(n, "it", "them"))
	}
	return b
}

// appendUnasked says how many kept-alive connections held bytes after an
// answer that no call asked for: net/http dropped such a connection
// unsaid, or read the bytes as the next call's answer, and the fast path
// dropped it; either way the counts above rest on answers some of which
// may have been other calls'.
func appendUnasked(b []byte, st *load.Stats) []byte {
	n := st.Unasked
	if n == 0 {
		return b
	}
	return fmt.Appendf(b, "answers no call asked for: %d kept-alive %s held bytes after an answer (a receiver that answers a call twice, "+
		"a 204 with a body, a Content-Length short of the body it sends); an answer read on such a connection may have been another call's, "+
		"so the statuses counted above may not be the calls' own: an HTTP/1.1 receiver answers each call once, framed whole\n",
		n, term.Plural(n, "connection", "connections"))
}

// appendModel says which load model ran, so the latencies are read right,
// and when the open model's bound made calls start late.
func appendModel(b []byte, st *load.Stats) []byte {
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
	if st.HeldBack > 0 {
		// Due, never started: not in the latency, and among not started
		// with the calls never due.
		b = fmt.Appendf(b, "--max-concurrency %d reached: %d %s due before --duration ended never started (of the %d not started); raise it to keep the rate\n",
			st.MaxConcurrency, st.HeldBack, term.Plural(st.HeldBack, "call", "calls"), st.NotStarted)
	}
	return b
}
