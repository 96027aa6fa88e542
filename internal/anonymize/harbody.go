package anonymize

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"unicode/utf8"
)

// A HAR file (the inspector's export, for sharing) holds a body that is
// not UTF-8, or that came compressed, in base64: its postData or content
// has "encoding": "base64" beside its "text". Kept as it was, such a text
// carried every name and tax id of the call while --check passed the
// file. It is decoded (and decompressed, gzip or deflate by their magic
// bytes), anonymized as a body is (a payload, else text), compressed
// again and written back in base64; in a check it is scanned so.

// base64Body returns v, a body in base64, anonymized (see above); v itself
// when its bytes are not text or nothing changed. ok is false when v is no
// base64: it is then text like any other, and searched as such.
func (a *anonymizer) base64Body(p *pass, v string) (_ string, ok bool) {
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil || len(raw) == 0 {
		return v, false
	}
	return a.base64Decoded(p, v, raw), true
}

func (a *anonymizer) base64Decoded(p *pass, v string, raw []byte) string {
	enc := ""
	switch {
	case len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b:
		enc = "gzip"
	case len(raw) >= 2 && raw[0] == 0x78 && (uint(raw[0])<<8|uint(raw[1]))%31 == 0:
		enc = "deflate"
	}
	magic := enc
	b, err := decompress(raw, enc)
	if err != nil {
		b, enc = raw, ""
	}
	text := b
	gb, isGB := gbText(b, "")
	switch {
	case isGB:
		text = gb
	case !utf8.Valid(b) && err != nil:
		// Its first bytes say gzip or deflate, yet it does not
		// decompress (cut short, corrupt): what it holds cannot be
		// searched, and kept as it is it carried the call's names while
		// the run said it replaced nothing. Refused, as a capture's body
		// cut short is.
		panic(stop{fmt.Errorf("a HAR body in base64 starts as %s data but does not decompress (cut short or corrupt), so anonymize cannot tell what it holds; refused rather than passed on as it is", magic)})
	case !utf8.Valid(b):
		return v // an image, a file: no text to search
	}
	if p.check {
		a.scanBody(p, text)
		return v
	}
	out, _, err := a.payload(p, text)
	if err != nil {
		out = []byte(p.query(string(text)))
	}
	if bytes.Equal(out, text) {
		return v
	}
	if isGB {
		out = gbEncode(out, gb, b)
	}
	return base64.StdEncoding.EncodeToString(compress(out, b, raw, enc))
}

// base64Into is base64Body with its result in *out (none with out nil),
// for a switch: it reports whether v was base64.
func (a *anonymizer) base64Into(p *pass, v string, out *string) bool {
	s, ok := a.base64Body(p, v)
	if ok && out != nil {
		*out = s
	}
	return ok
}
