package inspect

import "testing"

// BenchmarkFeed is what listen --ui adds per call: the hand-off and the
// store (its goroutine's work included, as Close waits for it).
func BenchmarkFeed(b *testing.B) {
	body := []byte(receiptBad)
	rec := record(1, "CREATE_RECEIVABLE_DOC", body, 200)
	s := NewStore(DefaultWindow)
	f := s.NewFeed()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		f.Offer(rec, body, "r-2", nil)
	}
	f.Close()
}
