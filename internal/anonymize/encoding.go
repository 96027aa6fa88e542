package anonymize

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/whsim/whsim/internal/capture"
)

// A sender may compress its body (Content-Encoding: gzip), and a receiver
// its answer: listen records the bytes as they came, in which a name or a
// tax id is not to be found as it is. Such a body is decompressed,
// anonymized as any other and compressed again. A body that cannot be
// read (an encoding other than gzip or deflate, or one cut short) is
// refused: passed on as it was, it would carry everything it holds.

// maxDecompressed bounds what one compressed body may decompress to, so
// that a small hostile body cannot fill the memory.
const maxDecompressed = 256 << 20

// contentEncoding returns h's Content-Encoding, lower case, "" for none
// or identity.
func contentEncoding(h http.Header) string {
	enc := strings.ToLower(strings.TrimSpace(strings.Join(h.Values("Content-Encoding"), ",")))
	if enc == "identity" {
		return ""
	}
	return enc
}

// decompress returns b decoded from the Content-Encoding enc; b itself
// when enc is "" or b is empty. The decoding is capture's, as listen and
// validate read the body; the refusal says what anonymize does about it.
func decompress(b []byte, enc string) ([]byte, error) {
	if enc == "" || len(b) == 0 {
		return b, nil
	}
	out, err := capture.DecodeContent(b, []string{enc}, maxDecompressed)
	var ce *capture.ContentError
	switch {
	case err == nil:
		return out, nil
	case !errors.As(err, &ce):
		return nil, err
	case ce.Unknown:
		return nil, fmt.Errorf("body sent with Content-Encoding %q, which anonymize cannot read (gzip and deflate it can), so it cannot tell what the body holds; refused rather than passed on as it is", enc)
	case ce.Limit > 0:
		err = errors.New("it decompresses to more than 256 MiB")
	default:
		err = ce.Err
	}
	return nil, fmt.Errorf("body sent with Content-Encoding %q is not readable as %s (%v), so anonymize cannot tell what it holds; refused rather than passed on as it is", enc, enc, err)
}

// compress encodes text, plain anonymized, with enc again; orig, the
// bytes plain was decompressed from, is returned when nothing changed.
// With no enc, text is returned as it is.
func compress(text, plain, orig []byte, enc string) []byte {
	if enc == "" {
		return text
	}
	if bytes.Equal(text, plain) {
		return orig
	}
	var buf bytes.Buffer
	var w io.WriteCloser
	if enc == "deflate" {
		w = zlib.NewWriter(&buf)
	} else {
		w = gzip.NewWriter(&buf)
	}
	w.Write(text) // a bytes.Buffer takes every byte
	w.Close()
	return buf.Bytes()
}

// checkEncodings says why one of rec's bodies (the request's, listen's
// answer, the receiver's answer) cannot be read, nil when each can.
func checkEncodings(rec *capture.Record) error {
	type stored struct {
		what           string
		body, encoding string
		header         http.Header
	}
	bodies := []stored{{"request", rec.Body, rec.BodyEncoding, rec.Headers}}
	if r := rec.Response; r != nil {
		bodies = append(bodies, stored{"response", r.Body, r.BodyEncoding, r.Headers})
	}
	if f := rec.Forward; f != nil {
		bodies = append(bodies, stored{"forward", f.Body, f.BodyEncoding, f.Headers})
	}
	for _, s := range bodies {
		b, err := capture.DecodeBody(s.body, s.encoding)
		if err != nil {
			// Bytes it cannot read it cannot anonymize: written on as
			// they are, they would carry the names in them (a request
			// body so stored RequestBody refused already).
			return fmt.Errorf("%s body: %w", s.what, err)
		}
		if _, err := decompress(b, contentEncoding(s.header)); err != nil {
			return fmt.Errorf("%s %w", s.what, err)
		}
	}
	return nil
}
