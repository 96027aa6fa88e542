package capture

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// A sender may compress its body and say so in Content-Encoding (HTTP,
// RFC 9110 §8.4): the bytes on the wire, which a capture records and
// replay sends as they came, are then not the JSON document; the
// document is what decoding them gives. ContentCodings and DecodeContent
// are how listen, inspect and validate read it.

// ContentCodings returns the codings of h's Content-Encoding, lower case,
// in the order the sender applied them ("identity" left out); nil when
// there are none. The name is matched in any case, as HTTP's are: a
// hand-made record's "content-encoding" went out as Content-Encoding on
// replay, while validate and inspect, looking for the canonical key
// alone, read the gzip bytes as the document.
func ContentCodings(h http.Header) []string {
	vs := h["Content-Encoding"]
	if vs == nil {
		for k, v := range h {
			if len(k) == len("Content-Encoding") && strings.EqualFold(k, "Content-Encoding") {
				vs = v
				break
			}
		}
	}
	if len(vs) == 0 {
		return nil
	}
	var codings []string
	for _, v := range vs {
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.ToLower(strings.TrimSpace(c)); c != "" && c != "identity" {
				codings = append(codings, c)
			}
		}
	}
	return codings
}

// ContentError says why a body could not be decoded from its
// Content-Encoding: its message is the finding shown for the call.
type ContentError struct {
	// Coding is the coding that failed.
	Coding string
	// Unknown says whsim cannot read Coding at all.
	Unknown bool
	// Limit, when above 0, is the limit the decoded body went over.
	Limit int64
	// Err is why Coding did not decode (corrupt, cut short).
	Err error
}

func (e *ContentError) Error() string {
	q := strconv.Quote(e.Coding)
	switch {
	case e.Unknown:
		return "body sent with Content-Encoding " + q + ", which whsim cannot decode (gzip and deflate it can): the body was not checked"
	case e.Limit > 0:
		return "body sent with Content-Encoding " + q + " decodes to more than " + strconv.FormatInt(e.Limit, 10) + " bytes (the body limit): the body was not checked"
	}
	return "body sent with Content-Encoding " + q + " does not decode as " + e.Coding + " (" + e.Err.Error() + "): the body was not checked"
}

func (e *ContentError) Unwrap() error { return e.Err }

// DecodeContent undoes codings (as ContentCodings returns them) on b,
// last applied first, and returns the document; b itself when there are
// no codings or b is empty. No stage may give more than limit bytes: a
// small compressed body (a gzip bomb) must not fill the memory. An error
// is a *ContentError.
func DecodeContent(b []byte, codings []string, limit int64) ([]byte, error) {
	if len(b) == 0 {
		return b, nil
	}
	for i := len(codings) - 1; i >= 0; i-- {
		var err error
		if b, err = decodeOne(b, codings[i], limit); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func decodeOne(b []byte, coding string, limit int64) ([]byte, error) {
	var r io.Reader
	var err error
	switch coding {
	case "gzip", "x-gzip":
		r, err = gzip.NewReader(bytes.NewReader(b))
	case "deflate":
		// HTTP's deflate is zlib's format; some senders send raw deflate.
		if r, err = zlib.NewReader(bytes.NewReader(b)); err != nil {
			r, err = flate.NewReader(bytes.NewReader(b)), nil
		}
	default:
		return nil, &ContentError{Coding: coding, Unknown: true}
	}
	if err != nil {
		return nil, &ContentError{Coding: coding, Err: err}
	}
	out, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, &ContentError{Coding: coding, Err: err}
	}
	if int64(len(out)) > limit {
		return nil, &ContentError{Coding: coding, Limit: limit}
	}
	return out, nil
}

// EncodeContent codes doc again as like, the body it was decoded from
// (DecodeContent with the same codings), was coded: the inverse, for a
// document changed on its way out again (replay --new-request-id splices
// a fresh requestId into it). Each layer is written as like's was: a
// gzip layer with its header (name, time, OS), a deflate layer in zlib's
// format (HTTP's) or raw, as the sender sent it.
func EncodeContent(doc []byte, codings []string, like []byte) ([]byte, error) {
	if len(codings) == 0 {
		return doc, nil
	}
	// What each layer of like was written as, outermost first.
	type layer struct {
		gzip *gzip.Header
		raw  bool // deflate without zlib's frame
	}
	layers := make([]layer, len(codings))
	cur := like
	for i := len(codings) - 1; i >= 0; i-- {
		switch codings[i] {
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(bytes.NewReader(cur))
			if err != nil {
				return nil, &ContentError{Coding: codings[i], Err: err}
			}
			h := zr.Header
			layers[i].gzip = &h
		case "deflate":
			_, err := zlib.NewReader(bytes.NewReader(cur))
			layers[i].raw = err != nil
		default:
			return nil, &ContentError{Coding: codings[i], Unknown: true}
		}
		if i > 0 {
			var err error
			// An inner layer is a coding of doc: no larger than doc
			// and the coding's few bytes of its own.
			if cur, err = decodeOne(cur, codings[i], 2*int64(len(doc))+64<<10); err != nil {
				return nil, err
			}
		}
	}
	out := doc
	for i, l := range layers {
		var buf bytes.Buffer
		var w io.WriteCloser
		switch {
		case l.gzip != nil:
			zw := gzip.NewWriter(&buf)
			zw.Header = *l.gzip
			w = zw
		case l.raw:
			w, _ = flate.NewWriter(&buf, flate.DefaultCompression) // a valid level
		default:
			w = zlib.NewWriter(&buf)
		}
		if _, err := w.Write(out); err != nil {
			return nil, &ContentError{Coding: codings[i], Err: err}
		}
		if err := w.Close(); err != nil {
			return nil, &ContentError{Coding: codings[i], Err: err}
		}
		out = buf.Bytes()
	}
	return out, nil
}
