// Package capturetest builds capture records for tests and benchmarks of
// the packages that read captures.
package capturetest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/spec"
)

// FixtureLines is every fixture, compacted, as the capture record listen
// writes for it (as bench/validate/run.sh builds them with CAPTURE=1),
// one line each without its newline.
func FixtureLines(tb testing.TB) [][]byte {
	tb.Helper()
	var lines [][]byte
	for _, ev := range spec.Events() {
		for _, s := range []spec.Shape{spec.Described, spec.Sample} {
			raw, err := fixtures.Get(ev.Name, s)
			if err != nil {
				continue
			}
			var body bytes.Buffer
			if err := json.Compact(&body, raw); err != nil {
				tb.Fatal(err)
			}
			rec := &capture.Record{Time: time.Date(2026, 12, 1, 10, 0, 0, 1, time.UTC), Remote: "127.0.0.1:40000",
				Method: "POST", Path: "/hook", Query: spec.QueryParam + "=" + ev.Name,
				Headers: http.Header{"Content-Type": {"application/json"}, "User-Agent": {"whsim"},
					"Content-Length": {strconv.Itoa(body.Len())}},
				Response: &capture.Response{Status: 200, Headers: http.Header{"Content-Type": {"application/json"}},
					Body: `{"status":200}`, BodyEncoding: capture.UTF8}}
			rec.SetBody(body.Bytes())
			line, err := capture.Append(nil, rec)
			if err != nil {
				tb.Fatal(err)
			}
			lines = append(lines, bytes.TrimSuffix(line, []byte("\n")))
		}
	}
	if len(lines) == 0 {
		tb.Fatal("no fixtures")
	}
	return lines
}
