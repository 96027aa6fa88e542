package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/spec"
)

// captureLines is every fixture, compacted, as the capture record listen
// writes for it (as bench/validate/run.sh builds them with CAPTURE=1).
func captureLines(tb testing.TB) [][]byte {
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

// BenchmarkCheckCaptures is validate's work on a capture log, reading
// included: one op is one log of 500 copies of every fixture's record,
// checked one by one and on every CPU. cpu-ns/record is the process's
// CPU time (user+sys), the figure that holds on a busy machine.
func BenchmarkCheckCaptures(b *testing.B) {
	lines := captureLines(b)
	const reps = 500
	log := []byte(strings.Repeat(string(bytes.Join(lines, []byte("\n")))+"\n", reps))
	v := mustNew(b, Options{Strict: true})
	for _, bc := range []struct {
		name string
		bt   *batching
	}{{"one-by-one", &batching{workers: 1}}, {"every-cpu", nil}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			b.ReportAllocs()
			cpu0, _ := cpuTime(b)
			for b.Loop() {
				failed := 0
				_, err := v.checkInput(context.Background(), bytes.NewReader(log), source{name: "captures.ndjson", batching: bc.bt}, func(r *result) error {
					if r.Failed {
						failed++
					}
					return nil
				})
				if err != nil || failed != 0 {
					b.Fatal(err, failed)
				}
			}
			records := float64(b.N * reps * len(lines))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/records, "ns/record")
			if cpu, ok := cpuTime(b); ok {
				b.ReportMetric(float64(cpu-cpu0)/records, "cpu-ns/record")
			}
		})
	}
}
