package capture

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func gzipped(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDecodeContent(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"requestId":"x"}`)
	var zl, raw bytes.Buffer
	zw := zlib.NewWriter(&zl)
	zw.Write(doc)
	zw.Close()
	fw, _ := flate.NewWriter(&raw, flate.BestSpeed)
	fw.Write(doc)
	fw.Close()
	gz := gzipped(t, doc)
	badCRC := bytes.Clone(gz)
	badCRC[len(badCRC)-5] ^= 0xff
	bomb := gzipped(t, make([]byte, 1<<20))
	for _, tc := range []struct {
		name     string
		encoding []string // Content-Encoding values; nil: no header
		body     []byte
		limit    int64
		want     []byte
		err      string // in the error's message
	}{
		{"none", nil, doc, 100, doc, ""},
		{"identity", []string{"identity"}, doc, 100, doc, ""},
		{"gzip", []string{"gzip"}, gz, 100, doc, ""},
		{"gzip in upper case", []string{" GZIP "}, gz, 100, doc, ""},
		{"x-gzip", []string{"x-gzip"}, gz, 100, doc, ""},
		{"deflate (zlib)", []string{"deflate"}, zl.Bytes(), 100, doc, ""},
		{"deflate (raw)", []string{"deflate"}, raw.Bytes(), 100, doc, ""},
		{"gzip twice, in two values", []string{"gzip", "gzip"}, gzipped(t, gz), 100, doc, ""},
		{"deflate then gzip", []string{"deflate, gzip"}, gzipped(t, zl.Bytes()), 100, doc, ""},
		{"empty body", []string{"gzip"}, nil, 100, nil, ""},
		{"unknown", []string{"br"}, gz, 100, nil, `Content-Encoding "br", which whsim cannot decode (gzip and deflate it can)`},
		{"unknown after gzip", []string{"gzip, zstd"}, gz, 100, nil, `"zstd", which whsim cannot decode`},
		{"not gzip", []string{"gzip"}, doc, 100, nil, `does not decode as gzip (gzip: invalid header)`},
		{"gzip cut short", []string{"gzip"}, gz[:len(gz)-6], 100, nil, `does not decode as gzip (unexpected EOF)`},
		{"gzip checksum wrong", []string{"gzip"}, badCRC, 100, nil, `does not decode as gzip (gzip: invalid checksum)`},
		{"deflate corrupt", []string{"deflate"}, []byte{0xff, 0xff, 0xff}, 100, nil, `does not decode as deflate`},
		{"a bomb", []string{"gzip"}, bomb, 1000, nil, `decodes to more than 1000 bytes (the body limit)`},
		{"exactly the limit", []string{"gzip"}, gzipped(t, make([]byte, 1000)), 1000, make([]byte, 1000), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for _, v := range tc.encoding {
				h.Add("Content-Encoding", v)
			}
			got, err := DecodeContent(tc.body, ContentCodings(h), tc.limit)
			if tc.err != "" {
				var ce *ContentError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want a *ContentError with %q", err, tc.err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, tc.want) {
				t.Errorf("DecodeContent = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if c := ContentCodings(http.Header{"Content-Encoding": {"identity"}}); c != nil {
		t.Errorf("ContentCodings(identity) = %q, want none", c)
	}
	// A hand-made record's name in another case is the same header, as
	// replay sends it; a name that only starts alike is another.
	if c := ContentCodings(http.Header{"content-encoding": {"gzip"}}); len(c) != 1 || c[0] != "gzip" {
		t.Errorf("ContentCodings(content-encoding: gzip) = %q, want gzip", c)
	}
	if c := ContentCodings(http.Header{"Content-Encodings": {"gzip"}}); c != nil {
		t.Errorf("ContentCodings(Content-Encodings: gzip) = %q, want none", c)
	}
}

func FuzzDecodeContent(f *testing.F) {
	f.Add(gzipped(f, []byte(`{"a":1}`)), "gzip")
	f.Add([]byte{0x78, 0x9c, 0x03, 0x00}, "deflate")
	f.Add([]byte("x"), "br")
	f.Fuzz(func(t *testing.T, body []byte, encoding string) {
		got, err := DecodeContent(body, ContentCodings(http.Header{"Content-Encoding": {encoding}}), 4096)
		var ce *ContentError
		switch {
		case err != nil && !errors.As(err, &ce):
			t.Fatalf("error %v is not a *ContentError", err)
		case err != nil && ce.Error() == "":
			t.Fatal("empty message")
		case err == nil && len(got) > 4096:
			t.Fatalf("decoded %d bytes, over the limit", len(got))
		}
	})
}

// TestEncodeContent: a changed document is coded again as the body it
// came from was, layer by layer, so that it decodes with the same codings
// and each layer keeps its form (a gzip header, raw deflate or zlib).
func TestEncodeContent(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"requestId":"11111111-1111-4111-8111-111111111111"}`)
	changed := []byte(`{"requestId":"22222222-2222-4222-8222-222222222222"}`)
	var named bytes.Buffer
	nw := gzip.NewWriter(&named)
	nw.Name, nw.ModTime = "calls.json", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	nw.Write(doc)
	nw.Close()
	var zl, raw bytes.Buffer
	zw := zlib.NewWriter(&zl)
	zw.Write(doc)
	zw.Close()
	fw, _ := flate.NewWriter(&raw, flate.BestSpeed)
	fw.Write(doc)
	fw.Close()
	var zlOfGzip bytes.Buffer
	zw = zlib.NewWriter(&zlOfGzip)
	zw.Write(gzipped(t, doc))
	zw.Close()
	for _, tc := range []struct {
		name    string
		codings []string
		like    []byte
		zlib    bool // the outer layer has zlib's frame
	}{
		{"gzip with a name and a time", []string{"gzip"}, named.Bytes(), false},
		{"deflate as zlib", []string{"deflate"}, zl.Bytes(), true},
		{"raw deflate", []string{"deflate"}, raw.Bytes(), false},
		{"gzip, then deflate", []string{"gzip", "deflate"}, zlOfGzip.Bytes(), true},
		{"none", nil, doc, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := EncodeContent(changed, tc.codings, tc.like)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := DecodeContent(out, tc.codings, 1<<20); err != nil || !bytes.Equal(got, changed) {
				t.Errorf("decodes to %q (%v), want %q", got, err, changed)
			}
			if tc.codings != nil && tc.codings[len(tc.codings)-1] == "deflate" {
				if _, err := zlib.NewReader(bytes.NewReader(out)); (err == nil) != tc.zlib {
					t.Errorf("zlib frame: %v, want %v", err == nil, tc.zlib)
				}
			}
			if tc.codings != nil && tc.codings[0] == "gzip" && len(tc.codings) == 1 {
				zr, err := gzip.NewReader(bytes.NewReader(out))
				if err != nil || zr.Name != "calls.json" || !zr.ModTime.Equal(nw.ModTime) {
					t.Errorf("gzip header %+v (%v), want the captured name and time", zr.Header, err)
				}
			}
		})
	}
	if _, err := EncodeContent(changed, []string{"br"}, []byte("x")); err == nil {
		t.Error("br: no error")
	}
}
