package validate

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture"
)

// A payload no rule could look at (a record with no body, one that cannot
// be read, a body that is not JSON with json-syntax ignored, one larger
// than validate reads) is counted apart from the payloads checked, whether
// or not the rule whose finding says so is ignored: ignoring drops the
// finding, never turns "not checked" into "checked and passed". A payload
// checked, whatever it held, is counted as before.
func TestNotCheckedCountedApart(t *testing.T) {
	t.Parallel()
	good := strings.ReplaceAll(load(t, "receipt.json"), "\n", "")
	record := func(t *testing.T, edit func(*capture.Record)) string {
		rec := &capture.Record{Method: "POST", Path: "/", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{"Content-Type": {"application/json"}}}
		rec.SetBody([]byte(good))
		edit(rec)
		line, err := capture.Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		return string(line)
	}
	notJSON := func(r *capture.Record) { r.SetBody([]byte("not json")) }
	rejected := func(r *capture.Record) {
		r.SetBody(nil)
		r.Rejected = &capture.Rejected{Reason: "Bad Request: missing required Host header", HeadBytes: 40}
	}
	closed := func(r *capture.Record) {
		r.SetBody(nil)
		r.Rejected = &capture.Rejected{Reason: "listen was stopping", HeadBytes: 40, ClosedAtStop: true}
	}
	overLimit := func(r *capture.Record) {
		r.SetBody(nil)
		r.BodyOverLimit = 100
		r.Response = &capture.Response{Status: 413}
	}
	checked := func(*capture.Record) {}
	for _, tc := range []struct {
		name   string
		lines  func(t *testing.T) []string
		max    int
		ignore []string
		want   Summary // Payloads, NotChecked, Failed, Errors, Warnings
	}{
		{"a record checked", func(t *testing.T) []string { return []string{record(t, checked)} }, 0, nil,
			Summary{Payloads: 1}},
		{"a body not JSON", func(t *testing.T) []string { return []string{record(t, notJSON)} }, 0, nil,
			Summary{Payloads: 1, Failed: 1, Errors: 1}},
		{"a body not JSON, json-syntax ignored", func(t *testing.T) []string { return []string{record(t, notJSON)} }, 0, []string{ruleSyntax},
			Summary{NotChecked: 1}},
		{"a plain line not JSON, json-syntax ignored", func(*testing.T) []string { return []string{good, "{not json"} }, 0, []string{ruleSyntax},
			Summary{Payloads: 1, NotChecked: 1}},
		{"a refused request", func(t *testing.T) []string { return []string{record(t, rejected)} }, 0, nil,
			Summary{NotChecked: 1, Failed: 1, Errors: 1}},
		{"a refused request, ignored", func(t *testing.T) []string { return []string{record(t, rejected)} }, 0, []string{RuleRejected},
			Summary{NotChecked: 1}},
		{"closed at listen's stop", func(t *testing.T) []string { return []string{record(t, checked), record(t, closed)} }, 0, nil,
			Summary{Payloads: 1, NotChecked: 1, Warnings: 1}},
		{"closed at listen's stop, ignored", func(t *testing.T) []string { return []string{record(t, closed)} }, 0, []string{RuleClosedAtStop},
			Summary{NotChecked: 1}},
		{"a body over --max-body, ignored", func(t *testing.T) []string { return []string{record(t, overLimit)} }, 0, []string{RuleBodyLimit},
			Summary{NotChecked: 1}},
		{"an unreadable record, ignored", func(*testing.T) []string {
			return []string{`{"capture":1,"query":"businessType=CREATE_RECEIVABLE_DOC","headers":{"Content-Type":["application/json"]},"body":"!!","bodyEncoding":"base64"}`}
		}, 0, []string{ruleCapture}, Summary{NotChecked: 1}},
		{"a payload larger than validate reads, ignored", func(*testing.T) []string { return []string{good, good + strings.Repeat(" ", 4096)} }, 4000, []string{rulePayloadSize},
			Summary{Payloads: 1, NotChecked: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := mustNew(t, Options{Ignore: tc.ignore})
			in := strings.Join(tc.lines(t), "\n") + "\n"
			for _, bt := range []*batching{{workers: 1}, {workers: 3, items: 2, bytes: 64, inFlight: 100}} {
				var sum Summary
				_, err := v.checkInput(context.Background(), bytes.NewReader([]byte(in)), source{name: "in.ndjson", maxPayload: tc.max, batching: bt}, func(r *result) error {
					sum.add(r)
					if r.notChecked != "" && r.Failed != (len(r.Findings) > 0 && v.Failed(r.Findings)) {
						t.Errorf("not checked %q, failed %v, findings %+v", r.notChecked, r.Failed, r.Findings)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				sum.Captures = 0
				if sum != tc.want {
					t.Errorf("workers %d: summary %+v, want %+v", bt.workers, sum, tc.want)
				}
			}
		})
	}
}
