package inspect

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkFeed is what listen --ui adds per call: the hand-off and the
// store (its goroutine's work included, as Close waits for it), with a
// capture file to index the calls in.
func BenchmarkFeed(b *testing.B) {
	body := []byte(receiptBad)
	rec := record(1, "CREATE_RECEIVABLE_DOC", body, 200)
	s := newFileStore("calls.ndjson", DefaultWindow, nil)
	f := s.NewFeed()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		f.Offer(rec, int64(i)*1000, body, "r-2", nil)
	}
	f.Close()
}

// BenchmarkStoreAdd is the store's own work for each call listen --ui
// hands it (on the feed's goroutine): a receipt of 2 KB, a capture file
// to index it in.
func BenchmarkStoreAdd(b *testing.B) {
	body, err := os.ReadFile("testdata/receipt.json")
	if err != nil {
		b.Fatal(err)
	}
	body = bytes.TrimSpace(body)
	rec := record(1, "CREATE_RECEIVABLE_DOC", body, 200)
	s := newFileStore("calls.ndjson", listenWindow, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		c := newCallWithID(0, rec, body, nil)
		c.RequestID = "r-2"
		s.add(c, int64(i)*1000)
	}
}
