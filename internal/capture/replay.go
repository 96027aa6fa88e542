package capture

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// replayDropped are the headers a replay never copies from a record: the
// client sets them for the connection it makes, and a proxy's credentials
// are not the receiver's. Canonical names.
var replayDropped = map[string]bool{
	"Host": true, "Content-Length": true, "Transfer-Encoding": true, "Connection": true,
	"Keep-Alive": true, "Te": true, "Trailer": true, "Upgrade": true, "Proxy-Connection": true,
	"Proxy-Authorization": true, "Accept-Encoding": true,
}

// ReplayHeaders returns the headers to replay a call with: a copy of the
// recorded ones, names canonical, without the connection's own headers in
// any case (a hand-made capture may say "host" or "content-length", which
// would otherwise go out beside the client's own). The headers the
// recorded Connection header names belong to that connection as much as
// Connection does (RFC 9110 7.6.1), so they are dropped too, as listen
// --forward-to drops them: a sender's "Connection: X-Trace" would
// otherwise send its X-Trace on a connection that never named it.
func ReplayHeaders(h http.Header) http.Header {
	named := map[string]bool{}
	for k, vs := range h {
		if textproto.CanonicalMIMEHeaderKey(k) != "Connection" {
			continue
		}
		for _, v := range vs {
			for name := range strings.SplitSeq(v, ",") {
				if name = textproto.TrimString(name); name != "" {
					named[textproto.CanonicalMIMEHeaderKey(name)] = true
				}
			}
		}
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		k = textproto.CanonicalMIMEHeaderKey(k)
		if replayDropped[k] || named[k] {
			continue
		}
		out[k] = append(out[k], vs...)
	}
	return out
}

// CheckReplayable says why a record's method, query or headers would not
// go out as one well-formed HTTP/1.1 request, nil when they would. A
// capture file is untrusted input: listen never records a CR, LF or NUL in
// a header, nor a space in the request line, but a hand-made or tampered
// file may hold them, and written as they are they would add headers or
// requests of their own (request smuggling). Bytes a sender may really
// send are let through: a tab or obs-text (0x80-0xff) in a value, any
// byte but a space and controls in the query.
func CheckReplayable(method, query string, h http.Header) error {
	if !isToken(method) {
		return fmt.Errorf("method %q: not an HTTP method (a token: letters, digits and !#$%%&'*+-.^_`|~)", method)
	}
	for i := 0; i < len(query); i++ {
		if c := query[i]; c <= ' ' || c == 0x7f {
			return fmt.Errorf("query %q: holds a space or a control character at byte %d", query, i)
		}
	}
	for k, vs := range h {
		if !isToken(k) {
			return fmt.Errorf("header %q: not a header name (a token: letters, digits and !#$%%&'*+-.^_`|~)", k)
		}
		for _, v := range vs {
			for i := 0; i < len(v); i++ {
				if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
					return fmt.Errorf("header %q: its value holds the control character 0x%02x", k, c)
				}
			}
		}
	}
	return nil
}

// isToken says whether s is an RFC 9110 token, as a method and a header
// name must be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}

// TunnelWhy says why a CONNECT record is no webhook call to send again
// (a tunnel asked of listen as of an HTTP proxy: sent again it would go to
// --url's path as a CONNECT no sender made of the receiver), "" for any
// other. whsim replay skips it in these words, and validate names it so.
func (r *Record) TunnelWhy() string {
	if r.Method != http.MethodConnect {
		return ""
	}
	return fmt.Sprintf("a CONNECT to %q, a tunnel asked of listen as of an HTTP proxy, so there is no webhook call to send again", r.ShownPath())
}

// ReplayWarning is what whsim replay warns of as it sends r again, ""
// for nothing: a body shorter than its Content-Length, which replay sends
// as recorded (see CutShort). whsim validate says it in the same words
// (its capture-replay warning), so that validating a capture before
// replaying it tells of every line replay will.
func (r *Record) ReplayWarning() string {
	declared, recorded, short := r.CutShort()
	if !short {
		return ""
	}
	if resp := r.Response; resp != nil && resp.Status >= 200 && resp.Status < 300 {
		// listen answers 2xx only to a body it read whole: this one was
		// edited since (jq on the body), not cut short.
		return fmt.Sprintf("its body is shorter than its Content-Length (%d, %d bytes recorded), which listen answered %d whole: edited since; sent as recorded", declared, recorded, resp.Status)
	}
	return fmt.Sprintf("its body came cut short (Content-Length %d, %d bytes recorded): sent as recorded, as a whole call, which the sender never made", declared, recorded)
}

// CutShort reports a record whose body came cut short: listen records
// the bytes that arrived of a body not read whole (its
// http-body-incomplete finding) under the Content-Length the sender
// declared, which replay does not send. It returns that length and the
// body's, short when the declared one is more. A chunked body cut short
// has no length to tell it by, and is not reported.
func (r *Record) CutShort() (declared, recorded int64, short bool) {
	got := int64(len(r.Body))
	if r.BodyEncoding == Base64 {
		got = int64(base64.StdEncoding.DecodedLen(len(r.Body)) - strings.Count(r.Body[max(0, len(r.Body)-2):], "="))
	}
	for k, vs := range r.Headers {
		if !strings.EqualFold(k, "Content-Length") {
			continue
		}
		for _, v := range vs {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n > got {
				return n, got, true
			}
		}
	}
	return 0, got, false
}
