package cli

import (
	"os"
	"testing"
)

// BenchmarkRequestID: listen reads the requestId of every call it prints.
func BenchmarkRequestID(b *testing.B) {
	rec, err := os.ReadFile("../../fixtures/CREATE_RECEIVABLE_DOC.sample.json")
	if err != nil {
		b.Fatal(err)
	}
	later := append([]byte(`{"businessType":5007,"data":{"收款单":{"编号":"1","客户名称":{"name":"温州锦程"}}},`), rec[1:]...)
	for _, c := range []struct {
		name string
		body []byte
	}{{"first", rec}, {"after-data", later}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if requestID(c.body) == "" {
					b.Fatal("no requestId")
				}
			}
		})
	}
}
