package sendout

import (
	"bytes"
	"encoding/json"
	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/load"
	"net/http"
	"strconv"

	"github.com/whsim/whsim/internal/jsonstr"
	"github.com/whsim/whsim/internal/termsafe"
)

// marshalJSONLine encodes v as one line of JSON, HTML characters left as
// they are (as jsonstr and the capture writer leave them).
func marshalJSONLine(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the JSON forms here always encode
	return buf.Bytes()
}

// appendRequestID appends req's requestId as JSON: null for a body that
// names none, "" for one that names an empty one, as listen's JSON says.
func appendRequestID(b []byte, req *attempt.Request) []byte {
	if id, named := req.ID(); named {
		return jsonstr.Append(b, id)
	}
	return append(b, "null"...)
}

// appendResultJSON appends the stable JSON form of a delivery (send and
// replay --output json), one line, without reflection or allocation: it
// runs once per delivery. With verbose (-v) it adds the request's headers
// (secrets masked), the answer's headers and its body.
func appendResultJSON(b []byte, r *attempt.Result, verbose bool) []byte {
	last := r.Last()
	req := r.Request
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, int64(req.Seq), 10)
	b = append(b, `,"event":`...)
	b = jsonstr.Append(b, req.Event)
	b = appendRequestID(append(b, `,"requestId":`...), req)
	b = append(b, `,"duplicate":`...)
	b = strconv.AppendBool(b, req.Duplicate)
	if req.Source != "" {
		b = append(b, `,"source":`...)
		// As the text line and JUnit name it: a capture's name may hold a
		// byte that is not UTF-8, which JSON would hold as U+FFFD.
		b = jsonstr.Append(b, jsonstr.ByteEscaped(req.Source))
	}
	b = append(b, `,"url":`...)
	b = jsonstr.Append(b, shownURL(r))
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(last.Status), 10)
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, r.OK)
	b = append(b, `,"latencyMs":`...)
	b = attempt.AppendMS(b, r.Latency())
	if r.Late > 0 {
		// Only when late: the summary's late count is these lines, and a
		// ledger of deliveries on time is as it was without the field.
		b = append(b, `,"lateMs":`...)
		b = attempt.AppendMS(b, r.Late)
	}
	if last.Kind != "" {
		b = append(b, `,"errorKind":`...)
		b = jsonstr.Append(b, last.Kind)
	}
	if last.Err != "" {
		b = append(b, `,"error":`...)
		b = jsonstr.Append(b, last.Err)
	}
	if why := last.Unfinished(); why != "" {
		b = append(b, `,"unfinished":`...)
		b = jsonstr.Append(b, why)
	}
	b = append(b, `,"attempts":[`...)
	for i := range r.Attempts[:r.Tries()] {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendAttemptJSON(b, &r.Attempts[i])
	}
	b = append(b, ']')
	if verbose {
		b = appendHeaderJSON(b, "requestHeaders", termsafe.MaskHeaders(r.SentHeader))
		b = appendHeaderJSON(b, "responseHeaders", termsafe.MaskHeaders(r.RespHeader))
		b = append(b, `,"responseBody":`...)
		b = jsonstr.Append(b, string(r.RespBody))
	}
	return append(b, "}\n"...)
}

// appendAttemptJSON appends an attempt's object of a delivery's
// "attempts".
func appendAttemptJSON(b []byte, a *attempt.Attempt) []byte {
	b = append(b, '{')
	if a.Status != 0 {
		b = append(b, `"status":`...)
		b = strconv.AppendInt(b, int64(a.Status), 10)
		b = append(b, ',')
	}
	b = append(b, `"latencyMs":`...)
	b = attempt.AppendMS(b, a.Latency)
	for _, kv := range [...][2]string{{"errorKind", a.Kind}, {"error", a.Err}, {"unfinished", a.Unfinished()}, {"location", a.Location}, {"notRetried", a.NotRetried}} {
		if kv[1] != "" {
			b = append(b, `,"`+kv[0]+`":`...)
			b = jsonstr.Append(b, kv[1])
		}
	}
	if s := a.Silent; s != nil {
		// What passed on the connection of a call the time limit
		// ended (attempt.Silence): per call, which the summary and
		// the run's last line group without.
		b = append(b, `,"wroteBytes":`...)
		b = strconv.AppendInt(b, int64(s.Wrote), 10)
		b = append(b, `,"wroteWhole":`...)
		b = strconv.AppendBool(b, s.Whole)
		b = append(b, `,"bodyBytes":`...)
		b = strconv.AppendInt(b, int64(s.Body), 10)
		b = append(b, `,"answerBytes":`...)
		b = strconv.AppendInt(b, int64(s.Read), 10)
	}
	if a.Wait != 0 {
		b = append(b, `,"waitMs":`...)
		b = attempt.AppendMS(b, a.Wait)
	}
	b = append(b, '}')
	return b
}

// appendHeaderJSON appends ,"name":{...} unless h is empty; -v only, so
// the encoder's sorted keys are worth its reflection.
func appendHeaderJSON(b []byte, name string, h http.Header) []byte {
	if len(h) == 0 {
		return b
	}
	b = append(b, `,"`+name+`":`...)
	return append(b, bytes.TrimSuffix(marshalJSONLine(h), []byte("\n"))...)
}

// statsJSON is the stable JSON form of a run's stats, the last line of
// send and replay --output json.
type statsJSON struct {
	Summary struct {
		Sent        int `json:"sent"`
		Succeeded   int `json:"succeeded"`
		Failed      int `json:"failed"`
		Interrupted int `json:"interrupted"`
		NotStarted  int `json:"notStarted"`
		// RetryNotMade and RetryNotMadeByStatus are load.Stats', when not
		// 0: of interrupted, those Ctrl-C stopped in the backoff, not cut
		// short in a call, and by status those that had been answered.
		RetryNotMade         int            `json:"retryNotMade,omitempty"`
		RetryNotMadeByStatus map[string]int `json:"retryNotMadeByStatus,omitempty"`
		// NotStartedUncounted: what stdin still held was not started
		// either, and is not in notStarted (it is read once).
		NotStartedUncounted bool `json:"notStartedUncounted,omitempty"`
		// Documents is how many distinct documents the calls carried
		// (send's; replay's calls count none), WithoutDocument how many
		// calls (re-deliveries aside) named none, when not 0.
		Documents       *int           `json:"documents,omitempty"`
		WithoutDocument int            `json:"withoutDocument,omitempty"`
		Duplicates      int            `json:"duplicates"`
		Retries         int            `json:"retries"`
		FailedByStatus  map[string]int `json:"failedByStatus"`
		FailedByError   map[string]int `json:"failedByError"`
		// ClosedAsSent and ResentAfterClose are load.Stats', when not 0.
		ClosedAsSent     int `json:"closedAsSent,omitempty"`
		ResentAfterClose int `json:"resentAfterClose,omitempty"`
		// Unasked is load.Stats', when not 0.
		Unasked int `json:"unaskedAnswers,omitempty"`
		// RequestsPerSecond and LatencyMS are null when no call was
		// answered: there is no rate nor latency, and a 0 would read as one.
		RequestsPerSecond *float64 `json:"requestsPerSecond"`
		ElapsedMS         float64  `json:"elapsedMs"`
		Model             string   `json:"model"`
		Rate              float64  `json:"rate"`
		MaxConcurrency    int      `json:"maxConcurrency"`
		PeakConcurrency   int      `json:"peakConcurrency"`
		Late              int      `json:"late"`
		// HeldBack is load.Stats', when not 0: of notStarted, the calls
		// due before --duration ended that the bound held back.
		HeldBack  int          `json:"heldBack,omitempty"`
		LatencyMS *latencyJSON `json:"latencyMs"`
		// Histogram is the latencies in µs, HdrHistogram's compressed V2
		// encoding in base64: runs on several machines merge exactly.
		Histogram string `json:"histogram"`
	} `json:"summary"`
}

// latencyJSON is the summary's latency quantiles, in milliseconds.
type latencyJSON struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99.9"`
	Max  float64 `json:"max"`
}

// AppendJSON appends the stats as one line: {"summary": {...}}.
func appendStatsJSON(b []byte, st *load.Stats) []byte {
	var j statsJSON
	s := &j.Summary
	s.Sent, s.Succeeded, s.Failed, s.Interrupted, s.NotStarted = st.Sent, st.Succeeded, st.Failed, st.Interrupted, st.NotStarted
	s.NotStartedUncounted = st.NotStartedUncounted
	s.RetryNotMade = st.RetryNotMade
	for k, v := range st.RetryNotMadeByStatus {
		if s.RetryNotMadeByStatus == nil {
			s.RetryNotMadeByStatus = map[string]int{}
		}
		s.RetryNotMadeByStatus[strconv.Itoa(k)] = v
	}
	if st.Documents > 0 || st.NoDocument > 0 {
		s.Documents = &st.Documents
	}
	s.WithoutDocument, s.Duplicates, s.Retries = st.NoDocument, st.Duplicates, st.Retries
	s.FailedByStatus, s.FailedByError = map[string]int{}, map[string]int{}
	for k, v := range st.ByStatus {
		s.FailedByStatus[strconv.Itoa(k)] = v
	}
	for k, v := range st.ByError {
		s.FailedByError[k] = v
	}
	s.ClosedAsSent, s.ResentAfterClose, s.Unasked = st.ClosedAsSent, st.ResentAfterClose, st.Unasked
	s.ElapsedMS = attempt.MS(st.Elapsed)
	h := &st.Latency
	if h.Count() > 0 {
		rps := float64(int64(st.RequestsPerSecond()*10)) / 10
		s.RequestsPerSecond = &rps
		s.LatencyMS = &latencyJSON{P50: attempt.MS(h.Quantile(.5)), P90: attempt.MS(h.Quantile(.9)), P99: attempt.MS(h.Quantile(.99)),
			P999: attempt.MS(h.Quantile(.999)), Max: attempt.MS(h.Max())}
	}
	s.Model, s.Rate, s.MaxConcurrency, s.PeakConcurrency, s.Late = "closed", st.Rate, st.MaxConcurrency, st.PeakConcurrency, st.Late
	s.HeldBack = st.HeldBack
	if st.Open {
		s.Model = "open"
	}
	// Encoding a histogram fails only for values it cannot hold, which
	// Record never stores; the summary goes out without it then.
	s.Histogram, _ = h.Encode()
	return append(b, marshalJSONLine(j)...)
}

// shownURL is a delivery's URL as output shows it: the one its target
// made (Result.Shown), or masked here.
func shownURL(r *attempt.Result) string {
	if r.Shown != "" {
		return r.Shown
	}
	return termsafe.URLString(r.URL)
}
