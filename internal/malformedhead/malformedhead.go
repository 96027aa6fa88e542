// Package malformedhead knows net/http's refusals of an HTTP/1.x answer's
// head (a status line or header it cannot read), which are plain
// strings (fmt.Errorf) and textproto's ProtocolError. send (attempt) and
// listen --forward-to (receiver) both count such an answer as the
// receiver's, malformed, not as no answer: one list keeps the two alike.
package malformedhead

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/textproto"
	"slices"
	"strings"
)

// words are what net/http's reader (http.ReadResponse and its transfer
// rules, Go 1.26 and 1.27) starts a refusal of an answer's head with, its
// "http: " dropped.
var words = [...]string{
	"malformed HTTP response ",
	"malformed HTTP status code ",
	"malformed HTTP version ",
	"message cannot contain multiple Content-Length headers",
	"bad Content-Length ",
	"invalid empty Content-Length ",
	"too many transfer encodings: ",
	"unsupported transfer encoding: ",
	"bad trailer key ",
	"message too large", // textproto's, of a head's first line starting with a space
	// the transport's, of a head past its 1 MiB (MaxResponseHeaderBytes)
	"server response headers exceeded ",
}

// Said says msg, the words of the last error of a chain (no wrapper's
// prefix), is net/http's refusal of an answer's head.
func Said(msg string) bool {
	msg = strings.TrimPrefix(msg, "http: ")
	for _, w := range words {
		if strings.HasPrefix(msg, w) {
			return true
		}
	}
	return false
}

// Refused says err, a client's error, is net/http's refusal of the
// answer's head: textproto's ProtocolError anywhere in its chain, or the
// words (Said) of its last error, the one net/http made.
func Refused(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if _, ok := err.(textproto.ProtocolError); ok {
			return true
		}
		if errors.Unwrap(err) == nil {
			return Said(lastWords(err.Error()))
		}
	}
	return false
}

// lastWords is msg without the transport's wrappers' prefixes, which an
// error net/http makes as a plain string may carry.
func lastWords(msg string) string {
	for _, wrap := range []string{"net/http: HTTP/1.x transport connection broken: ", "net/http: "} {
		msg = strings.TrimPrefix(msg, wrap)
	}
	return msg
}

// CutShort says head, every byte of an answer that came before its
// connection ended, is the start of a head net/http reads, cut before the
// head's end, and where: in the status line, in a header line, or before
// the end (between lines, or in the empty line that ends the head).
// net/http reads the last line a close cut as a whole one, and refuses
// "Content-Le" ("malformed MIME header: missing colon"), "HTTP/1.1 2"
// ("malformed HTTP status code"): its refusal then is of the close's
// making, not the receiver's head, which came no further. A head whose
// whole lines net/http refuses is no cut one, nor is a cut line that no
// bytes after it make one net/http reads (tried with a few, and the rest
// of "chunked" for a Transfer-Encoding's value: another field's value cut
// in its middle may be taken for one that was malformed).
func CutShort(head []byte) (where string, ok bool) {
	if final, _, _ := heads(head); final || len(head) == 0 {
		return "", false
	}
	lines := head[:bytes.LastIndexByte(head, '\n')+1]
	last := bytes.TrimSuffix(head[len(lines):], []byte("\r")) // a CR may be its line break's start
	_, left, err := heads(lines)
	if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", false // a whole line refused
	}
	atStatus := left == 0 // no bytes after the last head read whole
	switch {
	case len(last) == 0 && len(lines) > 0:
		return "before the end", true
	case len(last) == 0:
		return "", false
	case atStatus:
		rest := ""
		if len(last) < len(statusLine) {
			rest = statusLine[len(last):]
		}
		if final, _, _ := heads(slices.Concat(lines, last, []byte(rest+"\r\n\r\n"))); final {
			return "in the status line", true
		}
		return "", false
	}
	ends := []string{"\r\n\r\n", "0\r\n\r\n", ":0\r\n\r\n"}
	if rest, ok := chunkedRest(last); ok {
		ends = append(ends, rest+"\r\n\r\n")
	}
	for _, end := range ends {
		if final, _, _ := heads(slices.Concat(lines, last, []byte(end))); final {
			return "in a header line", true
		}
	}
	return "", false
}

// chunkedRest is what completes line, a header line cut in its value, as
// "Transfer-Encoding: chunked" ("ked" of "Transfer-Encoding: chun"), the
// one value of that field net/http reads: ok false for any other line.
func chunkedRest(line []byte) (rest string, ok bool) {
	const chunked = "chunked"
	name, value, found := bytes.Cut(line, []byte(":"))
	if !found || !strings.EqualFold(string(name), "Transfer-Encoding") {
		return "", false
	}
	value = bytes.TrimLeft(value, " \t")
	if len(value) >= len(chunked) || !strings.EqualFold(string(value), chunked[:len(value)]) {
		return "", false
	}
	return chunked[len(value):], true
}

// statusLine is a status line that completes a cut one (CutShort): what
// follows the cut is the receiver's to have sent, any that net/http reads.
const statusLine = "HTTP/1.1 200 OK"

// heads reads b as net/http's client reads an answer's heads: any 1xx
// heads, then the final answer's. final says it read that one whole;
// left is how many bytes of b follow the last head read whole; err is
// what stopped the reading (a refusal, or the end of b).
func heads(b []byte) (final bool, left int, err error) {
	rd := bytes.NewReader(b)
	br := bufio.NewReader(rd)
	for {
		left = br.Buffered() + rd.Len()
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return false, left, err
		}
		if resp.StatusCode >= 200 || resp.StatusCode < 100 || resp.StatusCode == http.StatusSwitchingProtocols {
			return true, br.Buffered() + rd.Len(), nil
		}
	}
}
