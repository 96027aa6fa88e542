package capture

import (
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/whsim/whsim/internal/jsonstr"
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
	b = jsonstr.Append(b, r.Remote)
	b = append(b, `,"method":`...)
	b = jsonstr.Append(b, r.Method)
	if r.Proto != "" {
		b = append(b, `,"proto":`...)
		b = jsonstr.Append(b, r.Proto)
	}
	b = append(b, `,"path":`...)
	b = jsonstr.Append(b, r.Path)
	if r.RawPath != "" {
		b = append(b, `,"rawPath":`...)
		b = jsonstr.Append(b, r.RawPath)
	}
	if r.PathEncoding != "" {
		b = append(b, `,"pathEncoding":`...)
		b = jsonstr.Append(b, r.PathEncoding)
	}
	b = append(b, `,"query":`...)
	b = jsonstr.Append(b, r.Query)
	if r.QueryEncoding != "" {
		b = append(b, `,"queryEncoding":`...)
		b = jsonstr.Append(b, r.QueryEncoding)
	}
	b = append(b, `,"headers":`...)
	b = appendHeader(b, r.Headers)
	if len(r.HeaderEncodings) > 0 {
		b = append(b, `,"headerEncodings":{`...)
		keys := slices.Sorted(maps.Keys(r.HeaderEncodings))
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonstr.Append(b, k)
			b = append(b, ':')
			b = jsonstr.Append(b, r.HeaderEncodings[k])
		}
		b = append(b, '}')
	}
	b = append(b, `,"body":`...)
	if r.bodyChecked() {
		b = jsonstr.AppendUTF8(b, r.Body)
	} else {
		b = jsonstr.Append(b, r.Body)
	}
	b = append(b, `,"bodyEncoding":`...)
	b = jsonstr.Append(b, r.BodyEncoding)
	if r.BodyOverLimit != 0 {
		b = append(b, `,"bodyOverLimit":`...)
		b = strconv.AppendInt(b, r.BodyOverLimit, 10)
	}
	if p := r.Response; p != nil {
		b = appendResponse(append(b, `,"response":`...), p)
	}
	if u := r.Unanswered; u != nil {
		b = append(b, `,"unanswered":{"rule":`...)
		b = jsonstr.Append(b, u.Rule)
		b = append(b, `,"reason":`...)
		b = jsonstr.Append(b, u.Reason)
		if p := u.Response; p != nil {
			b = appendResponse(append(b, `,"response":`...), p)
		}
		b = append(b, '}')
	}
	if f := r.Forward; f != nil {
		if math.IsNaN(f.LatencyMS) || math.IsInf(f.LatencyMS, 0) {
			return b, false
		}
		b = append(b, `,"forward":{"url":`...)
		b = jsonstr.Append(b, f.URL)
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
			b = jsonstr.Append(b, f.Body)
		}
		if f.BodyEncoding != "" {
			b = append(b, `,"bodyEncoding":`...)
			b = jsonstr.Append(b, f.BodyEncoding)
		}
		b = append(b, `,"latencyMs":`...)
		b = appendFloat(b, f.LatencyMS)
		if f.Error != "" {
			b = append(b, `,"error":`...)
			b = jsonstr.Append(b, f.Error)
		}
		if f.BodyCut != "" {
			b = append(b, `,"bodyCut":`...)
			b = jsonstr.Append(b, f.BodyCut)
		}
		b = append(b, '}')
	}
	if f := r.Fault; f != nil {
		var ok bool
		if b, ok = appendFault(b, f); !ok {
			return b, false
		}
	}
	if j := r.Rejected; j != nil {
		b = append(b, `,"rejected":{"reason":`...)
		b = jsonstr.Append(b, j.Reason)
		b = append(b, `,"head":`...)
		b = jsonstr.Append(b, j.Head)
		b = append(b, `,"headEncoding":`...)
		b = jsonstr.Append(b, j.HeadEncoding)
		b = append(b, `,"headBytes":`...)
		b = strconv.AppendInt(b, j.HeadBytes, 10)
		if j.ClosedAtStop {
			b = append(b, `,"closedAtStop":true`...)
		}
		b = append(b, '}')
	}
	return append(b, '}', '\n'), true
}

// appendResponse appends an answer of listen's as a JSON object.
func appendResponse(b []byte, p *Response) []byte {
	b = append(b, `{"status":`...)
	b = strconv.AppendInt(b, int64(p.Status), 10)
	if len(p.Headers) > 0 {
		b = append(b, `,"headers":`...)
		b = appendHeader(b, p.Headers)
	}
	b = append(b, `,"body":`...)
	b = jsonstr.Append(b, p.Body)
	b = append(b, `,"bodyEncoding":`...)
	b = jsonstr.Append(b, p.BodyEncoding)
	return append(b, '}')
}

// appendFault appends the fault member of a record (rare: listen --fault).
func appendFault(b []byte, f *Fault) ([]byte, bool) {
	b = append(b, `,"fault":{"kind":`...)
	b = jsonstr.Append(b, f.Kind)
	if f.Arg != "" {
		b = append(b, `,"arg":`...)
		b = jsonstr.Append(b, f.Arg)
	}
	b = append(b, `,"attempt":`...)
	b = strconv.AppendInt(b, int64(f.Attempt), 10)
	b = append(b, `,"sender":`...)
	b = jsonstr.Append(b, f.Sender)
	b = append(b, `,"receiver":`...)
	b = jsonstr.Append(b, f.Receiver)
	if f.Window != 0 {
		b = append(b, `,"window":`...)
		b = strconv.AppendInt(b, int64(f.Window), 10)
	}
	b = append(b, `,"deliveries":`...)
	if f.Deliveries == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, d := range f.Deliveries {
			if math.IsNaN(d.LatencyMS) || math.IsInf(d.LatencyMS, 0) {
				return b, false
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			if d.RequestID != "" {
				b = append(b, `"requestId":`...)
				b = jsonstr.Append(b, d.RequestID)
				b = append(b, ',')
			}
			b = append(b, `"bytes":`...)
			b = strconv.AppendInt(b, int64(d.Bytes), 10)
			if d.Status != 0 {
				b = append(b, `,"status":`...)
				b = strconv.AppendInt(b, int64(d.Status), 10)
			}
			if d.Error != "" {
				b = append(b, `,"error":`...)
				b = jsonstr.Append(b, d.Error)
			}
			b = append(b, `,"latencyMs":`...)
			b = appendFloat(b, d.LatencyMS)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
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
		b = jsonstr.Append(b, k)
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
			b = jsonstr.Append(b, v)
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
