package validate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture/capturetest"
)

// BenchmarkCheckCaptures is validate's work on a capture log, reading
// included: one op is one log of 500 copies of every fixture's record,
// checked one by one and on every CPU. cpu-ns/record is the process's
// CPU time (user+sys), the figure that holds on a busy machine.
func BenchmarkCheckCaptures(b *testing.B) {
	lines := capturetest.FixtureLines(b)
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

// BenchmarkCheckCapturesFile is a capture log as validate reads a file:
// in ranges each worker reads itself (checkRanges), and as a stream read
// by a goroutine of its own (checkParallel), on every CPU.
func BenchmarkCheckCapturesFile(b *testing.B) {
	lines := capturetest.FixtureLines(b)
	const reps = 2000
	log := []byte(strings.Repeat(string(bytes.Join(lines, []byte("\n")))+"\n", reps))
	path := filepath.Join(b.TempDir(), "captures.ndjson")
	if err := os.WriteFile(path, log, 0o600); err != nil {
		b.Fatal(err)
	}
	v := mustNew(b, Options{Strict: true})
	for _, bc := range []struct {
		name   string
		stream bool
	}{{"ranges", false}, {"stream", true}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			cpu0, _ := cpuTime(b)
			bt := defaultBatching()
			bt.stream = bc.stream
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				failed := 0
				_, err = v.checkInput(context.Background(), f, source{name: "captures.ndjson", batching: &bt}, func(r *result) error {
					if r.Failed {
						failed++
					}
					return nil
				})
				f.Close()
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
