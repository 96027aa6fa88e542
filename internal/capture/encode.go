package capture

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// appendRecord writes r as encoding/json would (HTML escaping off), without
// reflection: on listen's acknowledgement path encoding/json was the largest
// cost after the syscalls. FuzzAppendMatchesJSON holds the two equal.
func appendRecord(b []byte, r *Record) ([]byte, bool) {
	if y := r.Time.Year(); y < 0 || y > 9999 {
		return b, false // encoding/json reports the error
	}
	b = append(b, `{"capture":`...)
	b = strconv.AppendInt(b, int64(r.Capture), 10)
	b = append(b, `,"time":"`...)
	b = r.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","remote":`...)
	b = appendJSONString(b, r.Remote)
	b = append(b, `,"method":`...)
	b = appendJSONString(b, r.Method)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, r.Path)
	b = append(b, `,"query":`...)
	b = appendJSONString(b, r.Query)
	b = append(b, `,"headers":`...)
	b = appendHeader(b, r.Headers)
	b = append(b, `,"body":`...)
	b = appendJSONString(b, r.Body)
	b = append(b, `,"bodyEncoding":`...)
	b = appendJSONString(b, r.BodyEncoding)
	if p := r.Response; p != nil {
		b = append(b, `,"response":{"status":`...)
		b = strconv.AppendInt(b, int64(p.Status), 10)
		if len(p.Headers) > 0 {
			b = append(b, `,"headers":`...)
			b = appendHeader(b, p.Headers)
		}
		b = append(b, `,"body":`...)
		b = appendJSONString(b, p.Body)
		b = append(b, `,"bodyEncoding":`...)
		b = appendJSONString(b, p.BodyEncoding)
		b = append(b, '}')
	}
	if f := r.Forward; f != nil {
		if math.IsNaN(f.LatencyMS) || math.IsInf(f.LatencyMS, 0) {
			return b, false
		}
		b = append(b, `,"forward":{"url":`...)
		b = appendJSONString(b, f.URL)
		if f.Status != 0 {
			b = append(b, `,"status":`...)
			b = strconv.AppendInt(b, int64(f.Status), 10)
		}
		if len(f.Headers) > 0 {
			b = append(b, `,"headers":`...)
			b = appendHeader(b, f.Headers)
		}
		if f.Body != "" {
			b = append(b, `,"body":`...)
			b = appendJSONString(b, f.Body)
		}
		if f.BodyEncoding != "" {
			b = append(b, `,"bodyEncoding":`...)
			b = appendJSONString(b, f.BodyEncoding)
		}
		b = append(b, `,"latencyMs":`...)
		b = appendFloat(b, f.LatencyMS)
		if f.Error != "" {
			b = append(b, `,"error":`...)
			b = appendJSONString(b, f.Error)
		}
		b = append(b, '}')
	}
	return append(b, '}', '\n'), true
}

func appendHeader(b []byte, h http.Header) []byte {
	if h == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		vs := h[k]
		if vs == nil {
			b = append(b, "null"...)
			continue
		}
		b = append(b, '[')
		for j, v := range vs {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, v)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendFloat formats like encoding/json: 'f' in [1e-6, 1e21), else 'e'
// with a two-digit exponent trimmed (1e-07 -> 1e-7).
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does with HTML escaping off.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		// Two- and three-byte sequences (accents, CJK) are checked here
		// without a call: well-formed and not U+2028 or U+2029 means
		// copied as they are. Anything else is decoded below.
		if i+1 < len(s) && c >= 0xc2 && c <= 0xdf && s[i+1]&0xc0 == 0x80 {
			i += 2
			continue
		}
		if i+2 < len(s) && c >= 0xe0 && c <= 0xef && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 &&
			(c != 0xe0 || s[i+1] >= 0xa0) && (c != 0xed || s[i+1] < 0xa0) &&
			(c != 0xe2 || s[i+1] != 0x80 || s[i+2]&0xfe != 0xa8) {
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
