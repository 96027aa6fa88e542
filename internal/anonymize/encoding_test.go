package anonymize

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zlibbed(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encodedRecord is a capture record whose body is body, sent with the
// Content-Encoding encoding.
func encodedRecord(t *testing.T, body []byte, encoding string) []byte {
	t.Helper()
	rec := &capture.Record{Time: time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC), Remote: "127.0.0.1:40000", Method: "POST",
		Path: "/hook", Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE", Headers: http.Header{
			"Content-Type": {"application/json"}, "Content-Encoding": {encoding}, "Content-Length": {strconv.Itoa(len(body))}}}
	rec.SetBody(body)
	b, err := capture.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A sender may compress its body (Content-Encoding: gzip, as HTTP lets
// it): listen records the compressed bytes, in which no name or tax id is
// to be found as it is. Such a body is decompressed, anonymized and
// compressed again, so nothing the run replaces survives in it; one that
// cannot be read (an encoding anonymize does not know, or cut short) is
// refused with the line, never passed on as it was.
func TestCompressedBodiesAreAnonymized(t *testing.T) {
	t.Parallel()
	const name, tax = "上海鼎盛贸易有限公司", "91310115MA1FL3XK9D"
	plain := []byte(`{"businessType":4010,"data":{"customerName":"` + name + `","taxCode":"` + tax + `","staffName":"方俊"}}`)
	for _, tt := range []struct {
		name, encoding string
		body           []byte
		decode         func(io.Reader) (io.Reader, error)
	}{
		{"gzip", "gzip", gzipped(t, plain), func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
		{"x-gzip", "x-gzip", gzipped(t, plain), func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
		{"deflate", "deflate", zlibbed(t, plain), func(r io.Reader) (io.Reader, error) { return zlib.NewReader(r) }},
	} {
		a := newTestAnonymizer(t, testKey)
		out, st := stream(t, a, encodedRecord(t, tt.body, tt.encoding), Options{Check: true})
		if len(st.Leaks) != 0 {
			t.Errorf("%s: --check finds %+v in the output", tt.name, st.Leaks)
		}
		rec, err := capture.NewReader(bytes.NewReader(out)).Next()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		body, _ := rec.RequestBody()
		zr, err := tt.decode(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s: the output's body is not %s: %v", tt.name, tt.encoding, err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for _, orig := range []string{name, tax, "方俊"} {
			if strings.Contains(string(got), orig) {
				t.Errorf("%s: %s survives in %s", tt.name, orig, got)
			}
		}
		if !strings.Contains(string(got), `"businessType":4010`) {
			t.Errorf("%s: the body is not the payload any more: %s", tt.name, got)
		}
		if rec.Headers.Get("Content-Encoding") != tt.encoding || rec.Headers.Get("Content-Length") != strconv.Itoa(len(body)) {
			t.Errorf("%s: headers %v for a body of %d bytes", tt.name, rec.Headers, len(body))
		}

		// --check alone, over the input, finds what the compressed body holds.
		chk, err := a.stream(context.Background(), bytes.NewReader(encodedRecord(t, tt.body, tt.encoding)), io.Discard, Options{checkOnly: true})
		if err != nil || len(chk.Leaks) == 0 {
			t.Errorf("%s: a check of the input finds %+v (%v), want the tax id", tt.name, chk.Leaks, err)
		}
	}

	for _, tt := range []struct {
		name, encoding string
		body           []byte
		want           string
	}{
		{"brotli", "br", []byte{0x1b, 0x2a, 0x00, 0xf8}, `Content-Encoding "br"`},
		{"gzip cut short", "gzip", gzipped(t, plain)[:40], `not readable as gzip`},
	} {
		a := newTestAnonymizer(t, testKey)
		var out bytes.Buffer
		_, err := a.Stream(context.Background(), bytes.NewReader(encodedRecord(t, tt.body, tt.encoding)), &out, Options{})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%s: error %v, want one at line 1 saying %s", tt.name, err, tt.want)
		}
	}
}
