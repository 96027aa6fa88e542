package receiver

import (
	"bytes"
	"encoding/binary"
	"net/http"
	"reflect"
	"testing"

	"golang.org/x/net/http2/hpack"
)

// h2Frame is an HTTP/2 frame's bytes.
func h2Frame(typ, flags byte, stream uint32, payload []byte) []byte {
	f := []byte{byte(len(payload) >> 16), byte(len(payload) >> 8), byte(len(payload)), typ, flags, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(f[5:], stream)
	return append(f, payload...)
}

// h2Block is the header block of a request, from enc (whose table the
// blocks of one connection share).
func h2Block(enc *hpack.Encoder, buf *bytes.Buffer, method, target string, kv ...string) []byte {
	buf.Reset()
	enc.WriteField(hpack.HeaderField{Name: ":method", Value: method})
	enc.WriteField(hpack.HeaderField{Name: ":scheme", Value: "http"})
	enc.WriteField(hpack.HeaderField{Name: ":authority", Value: "127.0.0.1:8080"})
	enc.WriteField(hpack.HeaderField{Name: ":path", Value: target})
	for i := 0; i+1 < len(kv); i += 2 {
		enc.WriteField(hpack.HeaderField{Name: kv[i], Value: kv[i+1]})
	}
	return bytes.Clone(buf.Bytes())
}

func TestH2Requests(t *testing.T) {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	first := h2Block(enc, &buf, "POST", "/hook?businessType=CREATE_RECEIVABLE_DOC", "content-type", "application/json")
	second := h2Block(enc, &buf, "POST", "/other", "content-type", "application/json") // uses the table the first filled
	settings := h2Frame(0x4, 0, 0, []byte{0, 4, 0, 0x40, 0, 0})
	data := h2Frame(0x0, 0x1, 1, []byte(`{}`))
	hook := h2Request{stream: 1, method: "POST", target: "/hook?businessType=CREATE_RECEIVABLE_DOC", header: http.Header{"Content-Type": {"application/json"}}, whole: true}
	other := h2Request{stream: 3, method: "POST", target: "/other", header: http.Header{"Content-Type": {"application/json"}}, whole: true}
	cut := h2Request{stream: 1, header: http.Header{}}
	padded := append([]byte{3, 0x80, 0, 0, 0, 16}, first...) // pad length 3, priority
	padded = append(padded, 0, 0, 0)

	for _, tt := range []struct {
		name  string
		b     []byte
		reqs  []h2Request
		whole bool
	}{
		{"not the preface", []byte("GET / HTTP/1.1\r\n\r\n"), nil, false},
		{"part of the preface", []byte(h2ClientPreface[:10]), nil, false},
		{"the preface and settings only", cat([]byte(h2ClientPreface), settings), nil, false},
		{"one request, its body", cat([]byte(h2ClientPreface), settings, h2Frame(0x1, 0x4, 1, first), data), []h2Request{hook}, true},
		{"one request, no body yet", cat([]byte(h2ClientPreface), settings, h2Frame(0x1, 0x4, 1, first)), []h2Request{hook}, true},
		{"padded, with priority", cat([]byte(h2ClientPreface), h2Frame(0x1, 0x4|0x8|0x20, 1, padded)), []h2Request{hook}, true},
		{"in a CONTINUATION", cat([]byte(h2ClientPreface), h2Frame(0x1, 0, 1, first[:5]), h2Frame(0x9, 0x4, 1, first[5:])), []h2Request{hook}, true},
		{"CONTINUATION to come", cat([]byte(h2ClientPreface), h2Frame(0x1, 0, 1, first[:5])), []h2Request{cut}, false},
		{"HEADERS frame cut", cat([]byte(h2ClientPreface), settings, h2Frame(0x1, 0x4, 1, first)[:12]), nil, false},
		{"two streams", cat([]byte(h2ClientPreface), h2Frame(0x1, 0x4, 1, first), data, h2Frame(0x1, 0x4, 3, second)), []h2Request{hook, other}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reqs, whole := h2Requests(tt.b)
			if !reflect.DeepEqual(reqs, tt.reqs) || whole != tt.whole {
				t.Errorf("h2Requests = %+v, %v; want %+v, %v", reqs, whole, tt.reqs, tt.whole)
			}
		})
	}
}

func cat(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
