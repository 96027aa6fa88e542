package capture

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRecordRoundTripsBodiesByteForByte(t *testing.T) {
	t.Parallel()
	bodies := []struct {
		name string
		body []byte
		enc  string
	}{
		{"json with chinese keys", []byte(`{"data":{"收款单":{"汇率":7.1}}}`), UTF8},
		{"html characters and line separators", []byte("{\"a\":\"<&>\u2028\u2029\"}\n"), UTF8},
		{"terminal escapes", []byte("\x1b[31mred\x1b[0m\x07"), UTF8},
		{"invalid utf-8", []byte{0xff, 0xfe, '{', 0x80, '}'}, Base64},
		{"empty", nil, UTF8},
	}
	for _, tt := range bodies {
		t.Run(tt.name, func(t *testing.T) {
			rec := &Record{Time: time.Date(2026, 11, 22, 4, 0, 0, 123, time.UTC), Remote: "127.0.0.1:1",
				Method: "POST", Path: "/hook", Query: "businessType=CREATE_RECEIVABLE_DOC&x=1",
				Headers: http.Header{"Content-Type": {"application/json"}}}
			rec.SetBody(tt.body)
			if rec.BodyEncoding != tt.enc {
				t.Errorf("encoding %s, want %s", rec.BodyEncoding, tt.enc)
			}
			line, err := Append(nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			if !IsRecord(line) || bytes.Count(line, []byte("\n")) != 1 {
				t.Fatalf("not one record line: %q", line)
			}
			got, err := NewReader(bytes.NewReader(line)).Next()
			if err != nil {
				t.Fatal(err)
			}
			body, err := got.RequestBody()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, tt.body) {
				t.Errorf("body %q, want %q", body, tt.body)
			}
			if ev, ok := got.Event(); !ok || ev != "CREATE_RECEIVABLE_DOC" {
				t.Errorf("event %q %v", ev, ok)
			}
			if !got.Time.Equal(rec.Time) || got.Headers.Get("Content-Type") != "application/json" {
				t.Errorf("record changed: %+v", got)
			}
		})
	}
}

func TestReaderSkipsATornLastLine(t *testing.T) {
	t.Parallel()
	var file []byte
	for range 3 {
		rec := &Record{Method: "POST", Path: "/"}
		rec.SetBody([]byte(`{}`))
		file, _ = Append(file, rec)
	}
	torn := append(bytes.Clone(file), `{"capture":1,"time":"2026-11-22T04:0`...)
	tests := []struct {
		name     string
		in       string
		records  int
		wantErrs []string
	}{
		{"clean", string(file), 3, nil},
		{"torn last line", string(torn), 3, []string{"line 4: torn last line skipped"}},
		{"garbage in the middle", `{"capture":1}` + "\nnot json\n" + `{"capture":1}` + "\n", 2, []string{"line 2: invalid character"}},
		{"a payload is not a record", `{"requestId":"x"}` + "\n", 0, []string{`line 1: not a capture record`}},
		{"blank lines", "\n\n" + `{"capture":1}` + "\n\n", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in))
			var n int
			var errs []string
			for {
				_, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				var te *TornError
				var le *LineError
				switch {
				case errors.As(err, &te), errors.As(err, &le):
					errs = append(errs, err.Error())
				case err != nil:
					t.Fatal(err)
				default:
					n++
				}
			}
			if n != tt.records {
				t.Errorf("%d records, want %d", n, tt.records)
			}
			if len(errs) != len(tt.wantErrs) {
				t.Fatalf("errors %q, want %q", errs, tt.wantErrs)
			}
			for i, w := range tt.wantErrs {
				if !strings.HasPrefix(errs[i], w) {
					t.Errorf("error %q, want prefix %q", errs[i], w)
				}
			}
		})
	}
}

func FuzzReader(f *testing.F) {
	rec := &Record{Method: "POST"}
	rec.SetBody([]byte{0xff, '{'})
	line, _ := Append(nil, rec)
	f.Add(line)
	f.Add([]byte(`{"capture":1,"body":"x","bodyEncoding":"base64"}`))
	f.Add([]byte("\n\n{"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(bytes.NewReader(in))
		for range len(in) + 2 {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if rec != nil {
				_, _ = rec.RequestBody()
				_, _ = rec.Event()
			}
		}
		t.Fatalf("reader did not reach the end of %d bytes", len(in))
	})
}
