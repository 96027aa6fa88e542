package inspect

import "testing"

// BenchmarkFeed is what listen --ui adds per call: the hand-off and the
// store (its goroutine's work included, as Close waits for it), with a
// capture file to index the calls in.
func BenchmarkFeed(b *testing.B) {
	body := []byte(receiptBad)
	rec := record(1, "CREATE_RECEIVABLE_DOC", body, 200)
	s := NewFileStore("calls.ndjson", DefaultWindow, nil)
	f := s.NewFeed()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		f.Offer(rec, int64(i)*1000, body, "r-2", nil)
	}
	f.Close()
}
