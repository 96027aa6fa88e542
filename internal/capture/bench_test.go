package capture_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/capture/capturetest"
)

// BenchmarkReader is what replay, inspect and anonymize pay to read a
// capture: every fixture as the record listen writes for it, read back.
func BenchmarkReader(b *testing.B) {
	log := append(bytes.Join(capturetest.FixtureLines(b), []byte("\n")), '\n')
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		r := capture.NewReader(bytes.NewReader(log))
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
