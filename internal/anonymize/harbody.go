package anonymize

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/termsafe"
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
		panic(stop{&undecodableError{magic: magic}})
	case !utf8.Valid(b):
		return v // an image, a file: no text to search
	}
	if p.check {
		a.scanBody(p, text)
		return v
	}
	out, repl, err := a.payload(p, text)
	if err != nil {
		out = []byte(p.bodyText(string(text)))
	}
	p.countFields(repl)
	if bytes.Equal(out, text) {
		return v
	}
	if isGB {
		out = gbEncode(out, gb, b)
	}
	return base64.StdEncoding.EncodeToString(compress(out, b, raw, enc))
}

// undecodableError is a HAR body in base64 that starts as compressed data
// and does not decompress; entry names the entry of log.entries that holds
// it, when found ("" else).
type undecodableError struct{ magic, entry string }

func (e *undecodableError) Error() string {
	where := "a HAR body"
	if e.entry != "" {
		where = "HAR entry " + e.entry + ": its body"
	}
	return fmt.Sprintf("%s in base64 starts as %s data but does not decompress (cut short or corrupt), so anonymize cannot tell what it holds; refused rather than passed on as it is", where, e.magic)
}

// base64Into is base64Body with its result in *out (none with out nil),
// for a switch: it reports whether v was base64. doc is the document
// walked and at the offset of v's string in it: a body refused names its
// entry by them, as a file of hundreds of entries leaves no other way to
// find it.
func (a *anonymizer) base64Into(p *pass, v string, out *string, doc []byte, at int) bool {
	defer func() {
		if r := recover(); r != nil {
			var u *undecodableError
			if s, ok := r.(stop); ok && errors.As(s.err, &u) && u.entry == "" {
				u.entry = harEntryAt(doc, at)
			}
			panic(r)
		}
	}()
	s, ok := a.base64Body(p, v)
	if ok && out != nil {
		*out = s
	}
	return ok
}

// maxShownURL bounds the request URL a message names an entry by.
const maxShownURL = 200

// harEntryAt names the entry of the HAR document doc whose span holds the
// offset at, as whsim's paths count (from 0), with its request's method
// and URL when it has them: "log.entries.1 (POST http://…/hook)". It is
// "" when doc is no HAR or at lies in none of its entries (a body in a
// JSON document held in a string, whose offsets are that string's). It
// runs once, on a refusal: the walk keeps no indexes.
func harEntryAt(doc []byte, at int) string {
	dec := json.NewDecoder(bytes.NewReader(doc))
	// enter reads the object's keys up to name's value, skipping others.
	enter := func(name string) bool {
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return false
		}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return false
			}
			if k == name {
				return true
			}
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return false
			}
		}
		return false
	}
	if !enter("log") || !enter("entries") {
		return ""
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return ""
	}
	for i := 0; dec.More(); i++ {
		start := dec.InputOffset()
		var entry json.RawMessage
		if err := dec.Decode(&entry); err != nil {
			return ""
		}
		if at < int(start) || at >= int(dec.InputOffset()) {
			continue
		}
		where := fmt.Sprintf("log.entries.%d", i)
		var e struct {
			Request struct {
				Method string `json:"method"`
				URL    string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(entry, &e) != nil || e.Request.URL == "" {
			return where
		}
		u := []rune(e.Request.URL)
		shown := string(u)
		if len(u) > maxShownURL {
			shown = string(u[:maxShownURL]) + "…"
		}
		if e.Request.Method != "" {
			shown = e.Request.Method + " " + shown
		}
		return where + " (" + termsafe.Text(shown) + ")"
	}
	return ""
}
