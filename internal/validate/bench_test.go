package validate

import "testing"

func BenchmarkCheck(b *testing.B) {
	for _, name := range []string{"receipt.json", "invoice.json", "invoice-sample.json"} {
		body := []byte(load(b, name))
		b.Run(name, func(b *testing.B) {
			v := mustNew(b, Options{})
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if fs := v.Check(body, ""); len(fs) != 0 {
					b.Fatal(fs)
				}
			}
		})
	}
}
