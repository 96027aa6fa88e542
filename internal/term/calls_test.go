package term

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/receiver"
)

func call(body string, headers http.Header) *receiver.Call {
	return &receiver.Call{
		Seq: 1,
		Record: &capture.Record{
			Time: time.Date(2026, 11, 23, 1, 2, 3, 4e6, time.UTC), Remote: "127.0.0.1:5", Method: "POST",
			Path: "/hook\x1b[2J", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: headers,
			Response: &capture.Response{Status: 200},
		},
		Body: []byte(body), Event: "CREATE_RECEIVABLE_DOC", HasEvent: true,
	}
}

// A call's line and -v block: terminal-safe, secrets masked, colours from
// the style.
func TestText(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	st := Style{OK: Wrap{Pre: "<ok>", Post: "</ok>"}, Verbose: true}
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
	p.Summary(&sum, Style{Bold: Wrap{Pre: "<b>", Post: "</b>"}}, "listen stopped:", "calls.ndjson")
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
	p := NewCallPrinter(&out, true, Style{})
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
