package capture

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/spec"
)

// BenchmarkReader is what replay, inspect and anonymize pay to read a
// capture: every fixture as the record listen writes for it, read back.
func BenchmarkReader(b *testing.B) {
	var log []byte
	for _, ev := range spec.Events() {
		for _, s := range []spec.Shape{spec.Described, spec.Sample} {
			raw, err := fixtures.Get(ev.Name, s)
			if err != nil {
				continue
			}
			var body bytes.Buffer
			if err := json.Compact(&body, raw); err != nil {
				b.Fatal(err)
			}
			rec := &Record{Time: time.Date(2026, 12, 1, 10, 0, 0, 1, time.UTC), Remote: "127.0.0.1:40000",
				Method: "POST", Path: "/hook", Query: spec.QueryParam + "=" + ev.Name,
				Headers: http.Header{"Content-Type": {"application/json"}, "User-Agent": {"whsim"},
					"Content-Length": {strconv.Itoa(body.Len())}},
				Response: &Response{Status: 200, Headers: http.Header{"Content-Type": {"application/json"}},
					Body: `{"status":200}`, BodyEncoding: UTF8}}
			rec.SetBody(body.Bytes())
			if log, err = Append(log, rec); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(log))
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
