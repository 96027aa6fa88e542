// Package malformedhead knows net/http's refusals of an HTTP/1.x answer's
// head (a status line or header it cannot read), which are plain
// strings (fmt.Errorf) and textproto's ProtocolError. send (attempt) and
// listen --forward-to (receiver) both count such an answer as the
// receiver's, malformed, not as no answer: one list keeps the two alike.
package malformedhead

import (
	"errors"
	"net/textproto"
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
