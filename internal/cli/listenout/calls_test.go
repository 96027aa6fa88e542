package listenout

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/receiver"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/validate"
)

func call(body string, headers http.Header) *receiver.Call {
	return &receiver.Call{
		Seq: 1,
		Record: &capture.Record{
			Time: time.Date(2026, 11, 23, 1, 2, 3, 4e6, time.UTC), Remote: "127.0.0.1:5", Method: "POST",
			Path: "/hook\x1b[2J", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: headers,
			Response: &capture.Response{Status: 200},
		},
		Body: []byte(body), Content: []byte(body), Event: "CREATE_RECEIVABLE_DOC", HasEvent: true,
	}
}

// A call's line and -v block: terminal-safe, secrets masked, colours from
// the style.
func TestText(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	st := term.Style{OK: term.Wrap{Pre: "<ok>", Post: "</ok>"}, Verbose: true}
	p := NewCallPrinter(&out, false, st)
	p.Observe(call(`{"requestId":"r-1"}`, http.Header{"Authorization": {"Bearer t0k3n"}, "X-Note": {"a\u202eb"}}), nil)
	for _, want := range []string{
		"01:02:03.004  POST /hook\\x1b[2J  CREATE_RECEIVABLE_DOC  requestId=r-1  19 B  → <ok>200</ok>",
		"    Authorization: Bearer ****\n",
		"    X-Note: a\\u202eb\n",
		"    {\n      \"requestId\": \"r-1\"\n    }\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
	var sum bytes.Buffer
	p.Summary(&sum, term.Style{Bold: term.Wrap{Pre: "<b>", Post: "</b>"}}, "listen stopped:", "calls.ndjson")
	for _, want := range []string{"<b>listen stopped:</b> 1 call in ", "  by event:   CREATE_RECEIVABLE_DOC 1\n", "  by status:  200 1\n", "  capture:    calls.ndjson\n"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary: missing %q in\n%s", want, sum.String())
		}
	}
}

// --output json: one object per call, headers masked, values a parser
// reads back unchanged.
func TestJSON(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := NewCallPrinter(&out, true, term.Style{})
	p.Observe(call(`{"requestId":"r\u202e"}`, http.Header{"Webhook-Signature": {"v1,abc"}}), nil)
	if bytes.Contains(out.Bytes(), []byte("\u202e")) {
		t.Errorf("a raw bidi character in %s", out.Bytes())
	}
	var got struct {
		RequestID string            `json:"requestId"`
		Headers   map[string]string `json:"headers"`
		Status    int               `json:"status"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.RequestID != "r\u202e" || got.Headers["Webhook-Signature"] != "****" || got.Status != 200 {
		t.Errorf("got %+v", got)
	}
}

// A call whose body names no requestId is "-" on its line and null in its
// JSON; one that names an empty one is "" in quotes and "": not the same
// call, said apart, as send and replay say them.
func TestRequestIDAbsentOrEmpty(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body, text, json string
	}{
		{`{"businessType":5007}`, "  requestId=-  ", `"requestId":null`},
		{`{"requestId":null}`, "  requestId=-  ", `"requestId":null`},
		{`{"requestId":""}`, `  requestId=""  `, `"requestId":""`},
	} {
		var text, js bytes.Buffer
		NewCallPrinter(&text, false, term.Style{}).Observe(call(c.body, nil), nil)
		NewCallPrinter(&js, true, term.Style{}).Observe(call(c.body, nil), nil)
		if !strings.Contains(text.String(), c.text) {
			t.Errorf("%s: line %q, want %q in it", c.body, text.String(), c.text)
		}
		if !strings.Contains(js.String(), c.json) || !json.Valid(js.Bytes()) {
			t.Errorf("%s: JSON %s, want %s in it", c.body, js.String(), c.json)
		}
	}
}

// A faulted call shows its fault on its line, under it, in its JSON and in
// the summary, which counts the calls the receiver was sent against the
// sender's.
func TestFaultShown(t *testing.T) {
	t.Parallel()
	var out, sum bytes.Buffer
	p := NewCallPrinter(&out, false, term.Style{})
	p.Faults = []string{"duplicate", "drop", "delay:300ms"}
	dup := call(`{"requestId":"r-1"}`, nil)
	dup.Record.Forward = &capture.Forward{Status: 200}
	dup.Record.Fault = &capture.Fault{Kind: "duplicate", Attempt: 1, Sender: "the receiver's 200", Receiver: "2 copies\x1b[2J",
		Deliveries: []capture.Delivery{{Status: 200}, {Status: 200}}}
	drop := call(`{"requestId":"r-2"}`, nil)
	drop.Record.Response.Status = 503
	drop.Record.Fault = &capture.Fault{Kind: "drop", Attempt: 1, Sender: "503 from listen", Receiver: "nothing"}
	plain := call(`{"requestId":"r-3"}`, nil)
	plain.Record.Forward = &capture.Forward{Error: "reset"}
	// A call that could not reach the receiver is not counted sent to it.
	unsent := call(`{"requestId":"r-4"}`, nil)
	unsent.Record.Forward = &capture.Forward{Error: "connection refused"}
	unsent.Unsent = true
	p.Observe(dup, nil)
	p.Observe(drop, nil)
	p.Observe(plain, nil)
	p.Observe(unsent, nil)
	p.Summary(&sum, term.Style{}, "listen stopped:", "")
	for _, want := range []string{
		"→ 200 (forwarded, 0.0ms)  FAULT duplicate  valid\n",
		"    fault   duplicate (attempt 1): sender got the receiver's 200; receiver got 2 copies\\x1b[2J\n",
		"→ 503  FAULT drop  valid\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range []string{
		"  faults:     duplicate 1, drop 1, delay:300ms 0\n",
		"  receiver:   sent 3 calls for the sender's 4 (2 answered, 1 with no whole answer)\n",
	} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}

	var js bytes.Buffer
	jp := NewCallPrinter(&js, true, term.Style{})
	jp.Observe(drop, nil)
	var o struct{ Fault *capture.Fault }
	if err := json.Unmarshal(js.Bytes(), &o); err != nil || o.Fault == nil || o.Fault.Kind != "drop" || o.Fault.Sender != "503 from listen" {
		t.Errorf("JSON %s: %+v, %v", js.String(), o.Fault, err)
	}
	// Without faults, the summary says nothing of them.
	var none bytes.Buffer
	q := NewCallPrinter(&bytes.Buffer{}, false, term.Style{})
	q.Observe(plain, nil)
	q.Summary(&none, term.Style{}, "listen stopped:", "")
	if strings.Contains(none.String(), "faults:") || strings.Contains(none.String(), "receiver:") {
		t.Errorf("summary without faults:\n%s", none.String())
	}
}

// A request the HTTP server refused is shown as such, whatever of its
// request line could be made out, with the status sent or "no answer";
// the summary counts it.
func TestRejected(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := NewCallPrinter(&out, false, term.Style{})
	answered := &receiver.Call{Seq: 1, Record: &capture.Record{Time: time.Date(2026, 11, 23, 1, 2, 3, 0, time.UTC),
		Response: &capture.Response{Status: 400}, Rejected: &capture.Rejected{Reason: "Bad Request", HeadBytes: 2048}}}
	unanswered := &receiver.Call{Seq: 2, Record: &capture.Record{Time: time.Date(2026, 11, 23, 1, 2, 4, 0, time.UTC), Method: "POST", Path: "/slow",
		Rejected: &capture.Rejected{Reason: "the request's head did not arrive whole in time", HeadBytes: 30}}}
	// Listen's stop closed it as it came: not refused for what it was,
	// and counted apart (the rejected: count took it in).
	closed := &receiver.Call{Seq: 3, StopClosed: true, Record: &capture.Record{Time: time.Date(2026, 11, 23, 1, 2, 5, 0, time.UTC), Method: "POST", Path: "/hook",
		Rejected: &capture.Rejected{Reason: "listen was stopping (Ctrl-C or SIGTERM) when the request arrived, and closed its connection: no answer", HeadBytes: 50}}}
	p.Observe(answered, nil)
	p.Observe(unanswered, nil)
	p.Observe(closed, nil)
	for _, want := range []string{
		"01:02:03.000  - -  (no businessType)  REJECTED by the HTTP server, not read  2.0 KiB of head  → 400  valid\n",
		"01:02:04.000  POST /slow  (no businessType)  REJECTED by the HTTP server, not read  30 B of head  → no answer  valid\n",
		"01:02:05.000  POST /hook  (no businessType)  CLOSED as listen stopped, not read  50 B of head  → no answer  valid\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
	var sum bytes.Buffer
	p.Summary(&sum, term.Style{}, "listen stopped:", "")
	for _, want := range []string{"listen stopped: 3 calls", "  by status:  no answer 2, 400 1\n",
		"  rejected:   2 (refused by the HTTP server before listen could read them: see their lines)\n",
		"  stopping:   1 (arrived as listen was stopping: closed unanswered, unread, recorded; see their lines)\n"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary: missing %q in\n%s", want, sum.String())
		}
	}
	var js bytes.Buffer
	jp := NewCallPrinter(&js, true, term.Style{})
	jp.Observe(unanswered, nil)
	jp.Observe(closed, nil)
	if got := strings.Count(js.String(), `"closedAtStop":true`); got != 1 || !strings.Contains(strings.Split(js.String(), "\n")[1], `"closedAtStop":true`) {
		t.Errorf("JSON says closedAtStop of %d calls, want of the one the stop closed:\n%s", got, js.String())
	}
}

// A call whose sender never got its answer (it had gone, or listen's stop
// cut the call short) is not counted under the status listen answered: the
// summary says it apart, and its JSON says so beside the status.
func TestUnansweredCounted(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := NewCallPrinter(&out, true, term.Style{})
	p.Observe(call(`{}`, nil), nil)
	gone := call(`{}`, nil)
	gone.Record.Response.Status = 503
	gone.Unanswered = true
	p.Observe(gone, nil)
	lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	for i, want := range []bool{false, true} {
		var got struct {
			Status     int  `json:"status"`
			Unanswered bool `json:"unanswered"`
		}
		if err := json.Unmarshal(lines[i], &got); err != nil {
			t.Fatal(err)
		}
		if got.Unanswered != want {
			t.Errorf("call %d: unanswered %v, want %v: %s", i+1, got.Unanswered, want, lines[i])
		}
	}
	var sum bytes.Buffer
	p.Summary(&sum, term.Style{}, "listen stopped:", "")
	for _, want := range []string{"  by status:  200 1\n", "  unanswered: 1 (the sender had gone, or listen's stop cut the call short, before the answer: 503 1; see their lines)\n"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary: missing %q in\n%s", want, sum.String())
		}
	}
}

// A credential in the query reads **** in the -v text and in JSON, as a
// credential header does (docs/concepts.md: listen masks by the one list);
// it was printed whole: "query: businessType=...&token=s3cret".
func TestQueryCredentialMasked(t *testing.T) {
	t.Parallel()
	c := call(`{"requestId":"r-1"}`, http.Header{})
	c.Record.Query = "businessType=CREATE_RECEIVABLE_DOC&token=s3cret&tenant=7"
	const masked = "businessType=CREATE_RECEIVABLE_DOC&token=****&tenant=7"
	var text bytes.Buffer
	NewCallPrinter(&text, false, term.Style{Verbose: true}).Observe(c, nil)
	if !strings.Contains(text.String(), "    query: "+masked+"\n") || strings.Contains(text.String(), "s3cret") {
		t.Errorf("-v text: want the query %q in\n%s", masked, text.String())
	}
	var js bytes.Buffer
	NewCallPrinter(&js, true, term.Style{}).Observe(c, nil)
	var got struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil || got.Query != masked {
		t.Errorf("JSON query %q (%v), want %q", got.Query, err, masked)
	}
}

// A credential in the URL a call was forwarded to (the sender's query, or
// --forward-to's own) is masked wherever listen prints it, as the call's
// query is: the forward's URL and error, and the fault's words.
func TestForwardCredentialsMasked(t *testing.T) {
	t.Parallel()
	const u = "http://127.0.0.1:9/hook?key=fw-s3cret&businessType=CREATE_RECEIVABLE_DOC&token=snd-s3cret"
	const failed = `Post "` + u + `": dial tcp 127.0.0.1:9: connect: connection refused`
	c := call(`{"requestId":"r-1"}`, nil)
	c.Record.Query = "businessType=CREATE_RECEIVABLE_DOC&token=snd-s3cret"
	c.Record.Response.Status = 502
	c.Record.Forward = &capture.Forward{URL: u, Error: failed}
	c.Record.Fault = &capture.Fault{Kind: "duplicate", Attempt: 1, Sender: "listen's 502 (the forward failed) to the first copy",
		Receiver:   "1 of 2 copies, one after the other: the first not reached (" + failed + "), the second answered 200",
		Deliveries: []capture.Delivery{{Status: 200, Error: ""}, {Error: failed}}}
	st := term.Style{Verbose: true}
	var text, js bytes.Buffer
	NewCallPrinter(&text, false, st).Observe(c, nil)
	NewCallPrinter(&js, true, st).Observe(c, nil)
	for name, out := range map[string]string{"text": text.String(), "JSON": js.String()} {
		if strings.Contains(out, "s3cret") {
			t.Errorf("%s shows a credential:\n%s", name, out)
		}
		if !strings.Contains(out, "127.0.0.1:9/hook?key=****&businessType=CREATE_RECEIVABLE_DOC&token=****") {
			t.Errorf("%s does not show the forward's URL masked:\n%s", name, out)
		}
	}
	// The record itself is not touched: the capture keeps what replay needs.
	if c.Record.Forward.URL != u || c.Record.Fault.Deliveries[1].Error != failed || !strings.Contains(c.Record.Fault.Receiver, u) {
		t.Errorf("the record was changed: %+v %+v", c.Record.Forward, c.Record.Fault)
	}
}

// A reorder call alone in its window was held but shuffled with nothing:
// the summary counts it hit, and says how many went alone, so that a
// sender waiting for each answer does not read as one the receiver got
// out of order.
func TestFaultReorderAlone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		windows []int
		want    string
	}{
		{[]int{3, 3, 3}, "  faults:     reorder:3 3\n"},
		{[]int{1, 1}, "  faults:     reorder:3 2 (2 alone in their window: not reordered)\n"},
		{[]int{2, 2, 1}, "  faults:     reorder:3 3 (1 alone in its window: not reordered)\n"},
		{[]int{0}, "  faults:     reorder:3 1\n"}, // gave up while held: in no window
	} {
		var out, sum bytes.Buffer
		p := NewCallPrinter(&out, false, term.Style{})
		p.Faults = []string{"reorder:3"}
		for i, w := range tc.windows {
			c := call(`{"requestId":"r-`+strconv.Itoa(i)+`"}`, nil)
			c.Record.Fault = &capture.Fault{Kind: "reorder", Arg: "3", Attempt: 1, Window: w,
				Deliveries: []capture.Delivery{{Status: 200}}}
			p.Observe(c, nil)
		}
		p.Summary(&sum, term.Style{}, "listen stopped:", "")
		if !strings.Contains(sum.String(), tc.want) {
			t.Errorf("windows %v: summary lacks %q:\n%s", tc.windows, tc.want, sum.String())
		}
	}
}

// One forward that failed reads as English: "its sender got listen's own
// 504 1" read as a status of 5041, or as a 504 that was number 1; the
// statuses follow a colon, as the unanswered line's do.
func TestForwardSummaryOneFailed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		statuses []int
		want     string
	}{
		{[]int{504}, "  failed:     1 forward (its sender got listen's own status, not the receiver's answer: 504 1; see its line)\n"},
		{[]int{502, 502}, "  failed:     2 forwards (their senders got listen's own status, not the receiver's answer: 502 2; see their lines)\n"},
	} {
		var sum bytes.Buffer
		p := NewCallPrinter(&bytes.Buffer{}, false, term.Style{})
		p.Forwarding = true
		for i, st := range tc.statuses {
			c := call(`{"requestId":"r-`+strconv.Itoa(i)+`"}`, nil)
			c.Record.Response.Status = st
			c.Record.Forward = &capture.Forward{Error: "the receiver did not answer within 30s"}
			p.Observe(c, nil)
		}
		p.Summary(&sum, term.Style{}, "listen stopped:", "")
		if !strings.Contains(sum.String(), tc.want) {
			t.Errorf("%v: summary lacks %q:\n%s", tc.statuses, tc.want, sum.String())
		}
	}
}

// listen --forward-to's summary counted by status what the senders got,
// the receiver's answers and listen's own 502 for a forward that failed
// alike, and said nothing of the forwards without --fault: a receiver
// that answered 502 and one that could not be reached read the same.
// With forwarding on, it says how many calls the receiver was sent and
// answered, and which of the statuses were listen's own.
func TestForwardSummary(t *testing.T) {
	t.Parallel()
	var sum bytes.Buffer
	p := NewCallPrinter(&bytes.Buffer{}, false, term.Style{})
	p.Forwarding = true
	answered := call(`{"requestId":"r-1"}`, nil)
	answered.Record.Forward = &capture.Forward{Status: 200}
	own502 := call(`{"requestId":"r-2"}`, nil)
	own502.Record.Response.Status = 502
	own502.Record.Forward = &capture.Forward{Status: 502}
	cut := call(`{"requestId":"r-3"}`, nil)
	cut.Record.Response.Status = 502
	cut.Record.Forward = &capture.Forward{Error: "the receiver answered 200, then its answer was cut short"}
	unreached := call(`{"requestId":"r-4"}`, nil)
	unreached.Record.Response.Status = 502
	unreached.Record.Forward = &capture.Forward{Error: "connection refused"}
	unreached.Unsent = true
	slow := call(`{"requestId":"r-5"}`, nil)
	slow.Record.Response.Status = 504
	slow.Record.Forward = &capture.Forward{Error: "the receiver did not answer within 30s"}
	// The sender gave up: counted unanswered, not as a forward that failed.
	gone := call(`{"requestId":"r-6"}`, nil)
	gone.Record.Response.Status = 502
	gone.Record.Forward = &capture.Forward{Error: "the sender gave up before the receiver answered"}
	gone.Unanswered = true
	for _, c := range []*receiver.Call{answered, own502, cut, unreached, slow, gone} {
		p.Observe(c, nil)
	}
	p.Summary(&sum, term.Style{}, "listen stopped:", "")
	for _, want := range []string{
		"  by status:  200 1, 502 3, 504 1\n",
		"  receiver:   sent 5 calls for the sender's 6 (2 answered, 3 with no whole answer)\n",
		"  failed:     3 forwards (their senders got listen's own status, not the receiver's answer: 502 2, 504 1; see their lines)\n",
	} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
	// Every forward answered: no failed line.
	var clean bytes.Buffer
	q := NewCallPrinter(&bytes.Buffer{}, false, term.Style{})
	q.Forwarding = true
	q.Observe(answered, nil)
	q.Summary(&clean, term.Style{}, "listen stopped:", "")
	if !strings.Contains(clean.String(), "  receiver:   sent 1 call for the sender's 1 (1 answered)\n") || strings.Contains(clean.String(), "failed:") {
		t.Errorf("summary of one forward answered:\n%s", clean.String())
	}
}

// The summary's malformed line counts the receiver's answers the framing
// check found malformed, whichever kind, and names every kind it finds:
// it left out an answer to HEAD with a body, which it counted.
func TestForwardSummaryMalformed(t *testing.T) {
	t.Parallel()
	var sum bytes.Buffer
	p := NewCallPrinter(&bytes.Buffer{}, false, term.Style{})
	p.Forwarding = true
	for i, how := range []string{
		"malformed answer: the receiver answered 200 to HEAD and sent bytes after its head, which frames no body",
		"malformed answer: the receiver answered 200 with Content-Length 2 and sent bytes after that body",
		"malformed answer: the receiver answered 204 and sent bytes after its head, which a 204 has no body after",
		"malformed answer: the receiver answered 200 with both Content-Length and Transfer-Encoding",
		"the receiver did not answer within 30s", // failed, not malformed
	} {
		c := call(`{"requestId":"r-`+strconv.Itoa(i)+`"}`, nil)
		c.Record.Response.Status = 502
		c.Record.Forward = &capture.Forward{Error: how}
		p.Observe(c, nil)
	}
	p.Summary(&sum, term.Style{}, "listen stopped:", "")
	want := "  malformed:  4 answers of the receiver's that were no HTTP/1.1 answer (a head that is no HTTP/1.1 answer's, a Content-Length short of its body, a 204 or 304 with a body, an answer to HEAD with a body, both Content-Length and Transfer-Encoding; see their lines)\n"
	if !strings.Contains(sum.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, sum.String())
	}
}

// A fault's deliveries are forwards of their own, each with its answer:
// a malformed one is counted on the malformed line as a call's forward
// is. They were not: a --fault run against a receiver whose every answer
// was malformed had no malformed line, its lines saying "malformed
// answer".
func TestFaultDeliveriesMalformedCounted(t *testing.T) {
	t.Parallel()
	var sum bytes.Buffer
	p := NewCallPrinter(&bytes.Buffer{}, false, term.Style{})
	p.Faults = []string{"duplicate"}
	p.Forwarding = true
	c := call(`{"requestId":"r-1"}`, nil)
	c.Record.Response.Status = 502
	c.Record.Fault = &capture.Fault{Kind: "duplicate", Attempt: 1, Deliveries: []capture.Delivery{
		{Error: "malformed answer: the receiver answered 204 and sent bytes after its head, which a 204 has no body after"},
		{Error: "malformed answer: the receiver answered 200 with Content-Length 2 and sent bytes after that body"},
		{Status: 200},
	}}
	p.Observe(c, nil)
	p.Summary(&sum, term.Style{}, "listen stopped:", "")
	for _, want := range []string{
		"  receiver:   sent 3 calls for the sender's 1 (1 answered, 2 malformed)\n",
		"  malformed:  2 answers of the receiver's that were no HTTP/1.1 answer (",
	} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
}

// The summary's counts: each event, verdict and status with its count,
// none that no call had; unanswered calls summed over their statuses, a
// call with no answer said so; and past Limit, the calls tallied but not
// printed.
func TestSummaryCounts(t *testing.T) {
	t.Parallel()
	var out, sum bytes.Buffer
	p := NewCallPrinter(&out, false, term.Style{})
	p.Limit = 4
	warn := call(`{"requestId":"r-2"}`, nil)
	warn.Findings = []validate.Finding{{Rule: "unknown-field", Severity: validate.Warning}}
	bad := call(`{"requestId":"r-3"}`, nil)
	bad.Event, bad.HasEvent = "", false
	bad.Findings = []validate.Finding{{Rule: "query-event", Severity: validate.Error}}
	bad.Record.Response.Status = 404
	gone503 := call(`{"requestId":"r-4"}`, nil)
	gone503.Record.Response.Status = 503
	gone503.Unanswered = true
	gone200 := call(`{"requestId":"r-5"}`, nil)
	gone200.Unanswered = true
	none := call(`{"requestId":"r-6"}`, nil)
	none.Record.Response = nil
	for _, c := range []*receiver.Call{call(`{"requestId":"r-1"}`, nil), warn, bad, gone503, gone200, none} {
		p.Observe(c, nil)
	}
	if n := strings.Count(out.String(), "01:02:03.004  POST"); n != 4 {
		t.Errorf("printed %d calls, want the first 4:\n%s", n, out.String())
	}
	p.Summary(&sum, term.Style{}, "listen stopped:", "")
	for _, want := range []string{
		"listen stopped: 6 calls in ",
		"  shown:      the first 4\n",
		"  by event:   CREATE_RECEIVABLE_DOC 5, (no businessType) 1\n",
		"  by verdict: valid 4, warning 1, invalid 1\n",
		"  by status:  no answer 1, 200 2, 404 1\n",
		"  unanswered: 2 (the sender had gone, or listen's stop cut the call short, before the answer: 200 1, 503 1; see their lines)\n",
	} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}

	// As many calls as the limit: all shown, none said not to be.
	var all bytes.Buffer
	q := NewCallPrinter(&bytes.Buffer{}, false, term.Style{})
	q.Limit = 1
	q.Observe(call(`{}`, nil), nil)
	q.Summary(&all, term.Style{}, "listen stopped:", "")
	if strings.Contains(all.String(), "shown:") || !strings.Contains(all.String(), "  by verdict: valid 1\n") {
		t.Errorf("summary of 1 call under a limit of 1:\n%s", all.String())
	}
	// No call: the title alone.
	var empty bytes.Buffer
	NewCallPrinter(&bytes.Buffer{}, false, term.Style{}).Summary(&empty, term.Style{}, "listen stopped:", "")
	if n := strings.Count(empty.String(), "\n"); n != 1 || !strings.HasPrefix(empty.String(), "listen stopped: 0 calls in ") {
		t.Errorf("summary of no call:\n%s", empty.String())
	}
}

// Forwards that failed are summed over the statuses their senders got.
func TestForwardFailedSummed(t *testing.T) {
	t.Parallel()
	var sum bytes.Buffer
	p := NewCallPrinter(&bytes.Buffer{}, false, term.Style{})
	p.Forwarding = true
	for _, status := range []int{502, 502, 504} {
		c := call(`{}`, nil)
		c.Record.Response.Status = status
		c.Record.Forward = &capture.Forward{Error: "connection reset"}
		p.Observe(c, nil)
	}
	p.Summary(&sum, term.Style{}, "listen stopped:", "")
	if want := "  failed:     3 forwards (their senders got listen's own status, not the receiver's answer: 502 2, 504 1; see their lines)\n"; !strings.Contains(sum.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, sum.String())
	}
}

// A status is coloured by its class: 2xx ok, 3xx and 4xx a warning, 5xx
// a failure.
func TestStatusColour(t *testing.T) {
	t.Parallel()
	st := term.Style{OK: term.Wrap{Pre: "ok"}, Warn: term.Wrap{Pre: "warn"}, Fail: term.Wrap{Pre: "fail"}}
	p := NewCallPrinter(&bytes.Buffer{}, false, st)
	for status, want := range map[int]string{199: "warn", 200: "ok", 299: "ok", 300: "warn", 499: "warn", 500: "fail", 599: "fail"} {
		if got := p.statusWrap(status).Pre; got != want {
			t.Errorf("status %d coloured %q, want %q", status, got, want)
		}
	}
}

// A call whose body was over --max-body says so in its JSON, beside the
// size 0 of the empty body kept, as its capture record and its line do:
// its JSON alone said a call of 0 bytes.
func TestJSONBodyOverLimit(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := NewCallPrinter(&out, true, term.Style{})
	c := call("", http.Header{"Content-Length": {"2993"}})
	c.Record.BodyOverLimit, c.Record.Response.Status = 100, 413
	p.Observe(c, nil)
	var got struct {
		Size          int   `json:"size"`
		BodyOverLimit int64 `json:"bodyOverLimit"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.BodyOverLimit != 100 || got.Size != 0 {
		t.Errorf("got %s, want bodyOverLimit 100 beside size 0", out.Bytes())
	}
	out.Reset()
	p.Observe(call(`{}`, nil), nil)
	if bytes.Contains(out.Bytes(), []byte("bodyOverLimit")) {
		t.Errorf("a body kept: %s", out.Bytes())
	}
}

// Calls answered but not recorded (the capture had failed) are counted in
// the text summary and in --output json's, whose job reads stdout only:
// "byStatus":{"503":2} alone reads as listen's own --status 503.
func TestSummaryNotRecorded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lost int
		text string // the text summary's line, "" for none
	}{
		{0, ""},
		{2, "  not recorded: 2 (the capture had failed: answered 5xx, for their senders to send them again; see their lines)\n"},
	} {
		var out, sum, js bytes.Buffer
		p := NewCallPrinter(&out, true, term.Style{})
		p.Observe(call(`{"requestId":"r-1"}`, nil), nil)
		for range tc.lost {
			c := call(`{"requestId":"r-2"}`, nil)
			c.Record.Response.Status = 503
			c.CaptureErr = capture.ErrGone
			p.Observe(c, nil)
		}
		p.Summary(&sum, term.Style{}, "listen stopped:", "calls.ndjson")
		if tc.text != "" && !strings.Contains(sum.String(), tc.text) || tc.text == "" && strings.Contains(sum.String(), "not recorded") {
			t.Errorf("%d lost: summary:\n%s\nwant the line %q", tc.lost, sum.String(), tc.text)
		}
		if err := p.SummaryJSON(&js, "calls.ndjson"); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Summary struct {
				NotRecorded *int `json:"notRecorded"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(js.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if got.Summary.NotRecorded == nil || *got.Summary.NotRecorded != tc.lost {
			t.Errorf("%d lost: JSON summary %s; want \"notRecorded\":%d", tc.lost, js.Bytes(), tc.lost)
		}
	}
}

// A call's "recorded" in --output json is true only when it is in the
// capture file: a listen without --capture said "recorded":true of every
// call, which a tool reading the stream took for a record it could replay.
func TestJSONRecordedOnlyWithACapture(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		capturing bool
		failed    bool
		want      string
	}{
		{false, false, `"recorded":false`},
		{true, false, `"recorded":true`},
		{true, true, `"recorded":false`},
	} {
		var out bytes.Buffer
		p := NewCallPrinter(&out, true, term.Style{})
		p.Capturing = tc.capturing
		c := call(`{}`, nil)
		if tc.failed {
			c.CaptureErr = capture.ErrGone
		}
		p.Observe(c, nil)
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("capturing %v, failed %v: %s; want %s", tc.capturing, tc.failed, out.String(), tc.want)
		}
	}
}

// A call forwarded while the capture failed (a disk full, the file
// removed, as the receiver held it) went to the receiver, which answered
// it, and could not be recorded: its sender got listen's 503. Its line
// read "→ 503 (forwarded, 1020.5ms)", as if the receiver had answered
// 503, and the summary counted it among the receiver's answered calls
// with nothing said: the receiver holds calls the capture lacks and
// their senders were told to send again. The line says the 503 is
// listen's and the receiver's answer; the summary and its JSON count
// them.
func TestForwardedUnrecordedSaid(t *testing.T) {
	t.Parallel()
	gone := errors.New("/tmp/c.ndjson: the capture file was deleted, replaced or moved away")
	unrecorded := func(id string) *receiver.Call {
		c := call(`{"requestId":"`+id+`"}`, nil)
		c.Record.Response.Status = 503
		c.Record.Forward = &capture.Forward{Status: 200, LatencyMS: 1020.5}
		c.CaptureErr = gone
		return c
	}
	// Refused before it was forwarded: not one of them.
	refused := call(`{"requestId":"r-3"}`, nil)
	refused.Record.Response.Status = 503
	refused.Record.Forward = &capture.Forward{Error: "not forwarded: the capture had failed"}
	refused.Unsent = true
	refused.CaptureErr = gone
	faulted := unrecorded("r-4")
	faulted.Record.Fault = &capture.Fault{Kind: "duplicate", Attempt: 1, Deliveries: []capture.Delivery{{Status: 200}, {Status: 200}}}

	var out, sum, js bytes.Buffer
	p := NewCallPrinter(&out, false, term.Style{})
	p.Forwarding, p.Faults = true, []string{"duplicate"}
	q := NewCallPrinter(&bytes.Buffer{}, true, term.Style{})
	q.Forwarding, q.Faults = true, []string{"duplicate"}
	for _, c := range []*receiver.Call{unrecorded("r-1"), unrecorded("r-2"), refused, faulted} {
		p.Observe(c, nil)
		q.Observe(c, nil)
	}
	line := strings.SplitN(out.String(), "\n", 2)[0]
	if want := "→ 503 (listen's own, not the receiver's: it answered 200 in 1020.5ms, and the call could not be recorded)"; !strings.Contains(line, want) {
		t.Errorf("line %q lacks %q", line, want)
	}
	p.Summary(&sum, term.Style{}, "listen stopped:", "")
	want := "  unrecorded: 3 calls went to the receiver (it answered 200 3) and could not be recorded: the capture lacks them, and their senders got listen's own status (503 3), not the receiver's answer, so they may send them again; see their lines\n"
	if !strings.Contains(sum.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, sum.String())
	}
	if err := q.SummaryJSON(&js, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"unrecorded":3`) {
		t.Errorf("JSON summary %s lacks the receiver's unrecorded 3", js.String())
	}
}

// A flag of another call, given with the call whose judgement earned it
// (a refused re-delivery printed before its accepted original), says on
// the line which call it judges, carries its seq in the JSON ("of"), and
// is counted in the summary with the calls flagged on their own lines:
// the retry's line had gone out without it, and nothing counted it.
func TestFlagOfAnotherCall(t *testing.T) {
	t.Parallel()
	retry := call(`{"requestId":"r-1"}`, nil)
	retry.Seq = 2
	retry.Record.Response.Status = 409
	retry.Record.Forward = &capture.Forward{Status: 409}
	original := call(`{"requestId":"r-1"}`, nil)
	original.Record.Forward = &capture.Forward{Status: 200}
	late := []CallFlag{{Check: receiver.Duplicates, Reason: "requestId r-1 was accepted (2xx) in call #1, which came before its re-delivery #2", Of: 2}}
	invalid := call(`{"requestId":"r-3"}`, nil)
	invalid.Seq = 3
	invalid.Record.Forward = &capture.Forward{Status: 200}
	own := []CallFlag{{Check: receiver.RejectsMalformed, Reason: "the receiver answered 200 to a call the validator finds invalid"}}

	var text, sum bytes.Buffer
	p := NewCallPrinter(&text, false, term.Style{})
	p.Forwarding = true
	p.Observe(retry, nil)
	p.Observe(original, late)
	p.Observe(invalid, own)
	p.Summary(&sum, term.Style{}, "listen stopped:", "")
	if want := "    FLAG    duplicates, of call #2 (printed before this one): requestId r-1 was accepted"; !strings.Contains(text.String(), want) {
		t.Errorf("lines lack %q:\n%s", want, text.String())
	}
	if want := "  flagged:    duplicates 1, rejects-malformed 1 (calls whose answers break check's rules; see the FLAG lines)\n"; !strings.Contains(sum.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, sum.String())
	}

	var js bytes.Buffer
	q := NewCallPrinter(&js, true, term.Style{})
	q.Forwarding = true
	q.Observe(retry, nil)
	q.Observe(original, late)
	q.Observe(invalid, own)
	if err := q.SummaryJSON(&js, ""); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	var second struct {
		Flags []CallFlag `json:"flags"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &second); err != nil || len(second.Flags) != 1 || second.Flags[0].Of != 2 {
		t.Errorf("the original's JSON flags %+v (%v), want one of call 2: %s", second.Flags, err, lines[1])
	}
	var s struct {
		Summary struct {
			Receiver struct {
				Flagged map[string]int `json:"flagged"`
			} `json:"receiver"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil {
		t.Fatal(err)
	}
	if f := s.Summary.Receiver.Flagged; f[receiver.Duplicates] != 1 || f[receiver.RejectsMalformed] != 1 {
		t.Errorf("the JSON summary's flagged %v, want duplicates 1, rejects-malformed 1", f)
	}
}

// The calls sent to the receiver are a partition: each one answered (its
// answer passed on), malformed (it answered with no HTTP/1.1 answer) or
// with no whole answer (none came, none in time, one cut short, its
// sender gone), counted once, in the text summary and in JSON alike. A
// receiver that answered every call malformed read "0 answered" beside
// "malformed 200", and a head net/http refused ("2x0") was in no count
// but sent (found by fw46).
func TestForwardSummaryPartition(t *testing.T) {
	t.Parallel()
	type forward struct {
		err    string
		unsent bool
		gone   bool
	}
	for _, tt := range []struct {
		name                               string
		forwards                           []forward
		text                               string
		answered, malformed, noWhole, sent int
	}{
		{"every answer malformed", []forward{
			{err: "malformed answer: the receiver answered 200 with Content-Length 2 and sent bytes after that body"},
			{err: "malformed answer: the receiver answered with a head that is no HTTP/1.1 answer's (malformed HTTP status code \"2x0\")"},
		}, "sent 2 calls for the sender's 2 (0 answered, 2 malformed)", 0, 2, 0, 2},
		{"one of each, one unsent, one sender gone", []forward{
			{},
			{err: "malformed answer: the receiver answered 204 and sent bytes after its head"},
			{err: "the receiver did not answer within 30s"},
			{err: "connection refused", unsent: true},
			{err: "the sender gave up before the receiver answered", gone: true},
		}, "sent 4 calls for the sender's 5 (1 answered, 1 malformed, 2 with no whole answer)", 1, 1, 2, 4},
		{"all answered", []forward{{}, {}}, "sent 2 calls for the sender's 2 (2 answered)\n", 2, 0, 0, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var sum, js bytes.Buffer
			p := NewCallPrinter(&bytes.Buffer{}, false, term.Style{})
			p.Forwarding = true
			jp := NewCallPrinter(&bytes.Buffer{}, true, term.Style{})
			jp.Forwarding = true
			for i, f := range tt.forwards {
				c := call(`{"requestId":"r-`+strconv.Itoa(i)+`"}`, nil)
				if f.err != "" {
					c.Record.Response.Status = 502
				}
				c.Record.Forward = &capture.Forward{Status: 200, Error: f.err}
				if f.err != "" {
					c.Record.Forward.Status = 0
				}
				c.Unsent, c.Unanswered = f.unsent, f.gone
				p.Observe(c, nil)
				jp.Observe(c, nil)
			}
			p.Summary(&sum, term.Style{}, "listen stopped:", "")
			if !strings.Contains(sum.String(), "  receiver:   "+tt.text) {
				t.Errorf("summary lacks %q:\n%s", tt.text, sum.String())
			}
			if err := jp.SummaryJSON(&js, ""); err != nil {
				t.Fatal(err)
			}
			var o struct {
				Summary struct {
					Receiver map[string]any `json:"receiver"`
				} `json:"summary"`
			}
			if err := json.Unmarshal(js.Bytes(), &o); err != nil {
				t.Fatal(err)
			}
			r := o.Summary.Receiver
			num := func(k string) int {
				v, ok := r[k].(float64)
				if !ok {
					t.Errorf("JSON receiver lacks %q: %s", k, js.String())
				}
				return int(v)
			}
			sent, answered, malformed, noWhole := num("sent"), num("answered"), num("malformed"), num("noWholeAnswer")
			if sent != tt.sent || answered != tt.answered || malformed != tt.malformed || noWhole != tt.noWhole {
				t.Errorf("JSON receiver %v, want sent %d, answered %d, malformed %d, noWholeAnswer %d", r, tt.sent, tt.answered, tt.malformed, tt.noWhole)
			}
			if answered+malformed+noWhole != sent {
				t.Errorf("answered %d + malformed %d + noWholeAnswer %d != sent %d: a call counted twice or not at all", answered, malformed, noWhole, sent)
			}
		})
	}
}
