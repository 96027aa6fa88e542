package anonymize

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/sign"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/termsafe"
)

// Options tune a stream.
type Options struct {
	// Resign signs every capture record again (Standard Webhooks) after its
	// body changed; nil drops the signature headers only.
	Resign *sign.Signer
	// Now is the time of new signatures.
	Now func() time.Time
	// Check scans the output for identifiers that survived (Stats.Leaks).
	Check bool
	// learn is the first reading (see Stream): written nowhere.
	learn bool
	// checkOnly scans its input, an anonymized output, and writes nothing.
	checkOnly bool
	// SpoolMax replaces MaxSpool when above 0.
	SpoolMax int64
	// oneLine writes a whole JSON document (or array) on one line, as
	// NDJSON holds it: the output is a .ndjson file (File), which whsim's
	// readers take for NDJSON and refuse indented.
	oneLine bool
}

// Stats says what a stream did.
type Stats struct {
	Payloads, Records int
	Replaced          Report
	// Dropped counts the request headers taken out of capture records, by
	// name, and the query's credential parameters ("query parameter
	// token"): signatures no longer match the changed body, and
	// credentials are not to be shared.
	Dropped map[string]int
	// Masked counts the HAR entries whose credentials were masked, by
	// what was masked (harCredentials): a HAR keeps its structure for
	// the tools that read it.
	Masked   map[string]int
	Resigned int
	// AsText counts the capture records whose body is not JSON: kept, and
	// anonymized as text.
	AsText int
	// Torn are the torn capture records that were skipped: the last
	// line, or records cut short that a restarted listen appended after.
	Torn  []*capture.TornError
	Leaks []Leak
}

// InputError says where in the input a payload or record could not be read.
type InputError struct {
	// Name is the input's name, "" when the error is Stream's: then the
	// message starts with the line.
	Name         string
	Line, Column int // Line 0: no place in the input; Column 0: the whole line
	Err          error
}

// Error is name:line:column: message (name:line: without a column), as
// compilers and every command of whsim that reads a file back place it
// (input.At), the input's words terminal-safe. Without a name (Stream's
// own error, which File names) the place is "line N, column C:".
func (e *InputError) Error() string {
	msg := termsafe.Text(e.Err.Error())
	switch {
	case e.Name != "":
		return input.At(e.Name, e.Line, e.Column, msg)
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, msg)
	}
	return msg
}

func (e *InputError) Unwrap() error { return e.Err }

// Stream reads payloads (one JSON document, an array of them, or NDJSON) or
// capture records from r (input.Reader: each document, line or record at
// most input.Max) and writes the same kind, anonymized, to w. An empty
// input writes nothing.
//
// The input is read twice: the first reading anonymizes it all, written
// nowhere, to fill the run's dictionary, so that a value found anywhere in
// the input (in its field, or in a text by its label or shape: 联系人张伟,
// 账号 1202…) is replaced in every text of it, before and after, where no
// label or shape marks it (张伟已确认, 请用 1202…). Input that cannot seek
// (stdin, a pipe) is first copied to a temporary file, removed after, of
// at most MaxSpool bytes: nothing is written before the whole input is in.
func (a *anonymizer) Stream(ctx context.Context, r io.Reader, w io.Writer, opts Options) (st *Stats, err error) {
	rs, ok := r.(io.ReadSeeker)
	start := int64(0)
	if ok {
		var serr error
		if start, serr = rs.Seek(0, io.SeekCurrent); serr != nil {
			ok = false
		}
	}
	empty := &Stats{Replaced: Report{}, Dropped: map[string]int{}}
	if ok {
		if _, err := a.stream(ctx, rs, io.Discard, Options{learn: true}); err != nil {
			return empty, err
		}
	} else {
		// The first reading copies what it reads: an item too large, or
		// /dev/zero, ends it as it ends a file's, after at most an item.
		f, err := os.CreateTemp("", "whsim-anonymize-in-*")
		if err != nil {
			return empty, fmt.Errorf("a temporary file for the input's two readings: %w", err)
		}
		defer func() { _ = f.Close(); _ = os.Remove(f.Name()) }()
		cw := &capped{w: f, left: opts.spoolMax()}
		tee := io.TeeReader(ctxio.NewReader(ctx, r), cw)
		if _, err := a.stream(ctx, tee, io.Discard, Options{learn: true}); err != nil {
			return empty, err
		}
		if _, err := io.Copy(io.Discard, tee); err != nil { // what the reading left
			return empty, err
		}
		rs, start = f, 0
	}
	// Every value of the input (and of the inputs learnt before it) is
	// known now: no stand-in may be one of them.
	a.r.settle()
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return empty, err
	}
	if !opts.Check {
		return a.stream(ctx, rs, w, opts)
	}
	// The output is scanned at the end, with all the run knows; it is kept
	// in a temporary file, not in memory.
	out, err := os.CreateTemp("", "whsim-anonymize-out-*")
	if err != nil {
		return &Stats{Replaced: Report{}, Dropped: map[string]int{}}, fmt.Errorf("a temporary file for --check: %w", err)
	}
	defer func() { _ = out.Close(); _ = os.Remove(out.Name()) }()
	once := opts
	once.Check = false
	if st, err = a.stream(ctx, rs, io.MultiWriter(w, out), once); err != nil {
		return st, err
	}
	if _, err := out.Seek(0, io.SeekStart); err != nil {
		return st, err
	}
	chk, err := a.stream(ctx, out, io.Discard, Options{checkOnly: true})
	st.Leaks = chk.Leaks
	return st, err
}

// MaxSpool is the most of an input that cannot seek (stdin) anonymize
// copies to a temporary file for its two readings.
const MaxSpool = 8 << 30

func (o Options) spoolMax() int64 {
	if o.SpoolMax > 0 {
		return o.SpoolMax
	}
	return MaxSpool
}

// SpoolError is an input that cannot seek and is larger than the spool.
type SpoolError struct{ Max int64 }

func (e *SpoolError) Error() string {
	return fmt.Sprintf("the input is larger than %d MiB, the most anonymize copies from stdin or a pipe for its two readings; name the file instead", e.Max>>20)
}

// capped writes to w until left bytes are written, then fails with a
// *SpoolError.
type capped struct {
	w    io.Writer
	left int64
	max  int64
}

func (c *capped) Write(p []byte) (int, error) {
	if c.max == 0 {
		c.max = c.left
	}
	if int64(len(p)) > c.left {
		return 0, &SpoolError{Max: c.max}
	}
	c.left -= int64(len(p))
	return c.w.Write(p)
}

func (a *anonymizer) stream(ctx context.Context, r io.Reader, w io.Writer, opts Options) (st *Stats, err error) {
	st = &Stats{Replaced: Report{}, Dropped: map[string]int{}}
	defer recoverStop(&err)
	// An array is read whole: its bytes between the elements are kept.
	rd := input.NewReader(ctx, r, input.Options{Whole: true, HAR: true, Buffer: 64 << 10})
	kind, err := rd.Kind()
	switch {
	case err != nil:
		if fe, ok := errors.AsType[*input.FormatError](err); ok && fe.Line > 0 {
			// Placed as every other error of the input is (name:line:).
			return st, &InputError{Line: fe.Line, Column: fe.Column, Err: errors.New(fe.Msg)}
		}
		return st, err
	case kind == input.Empty:
		return st, nil
	case kind == input.Captures:
		return st, a.records(ctx, capture.ReaderOf(rd), w, opts, st)
	case kind == input.NDJSON:
		return st, a.lines(ctx, rd, w, opts, st)
	}
	it, err := rd.Next()
	if err != nil {
		return st, err
	}
	if it.Long {
		if kind == input.Array {
			return st, fmt.Errorf("the array is larger than %d MiB; write it as NDJSON (jq -c '.[]') to stream it", rd.Max()>>20)
		}
		return st, rd.TooLarge(it)
	}
	if err := rd.Check(it); err != nil {
		return st, placed(it, err) // not JSON, where: as every command says it
	}
	doc, decoded := it.Body, []byte(nil)
	if u, ok := gbText(doc, ""); ok { // a payload in GBK (see gb.go)
		doc, decoded = u, u
	}
	if opts.checkOnly {
		st.Leaks = a.check(ctx, doc, 1)
		return st, nil
	}
	doc, masked := harCredentials(doc)
	st.mask(masked)
	p := &pass{a: a, ctx: ctx, counts: Report{}, learn: opts.learn}
	out, repl, err := a.payload(p, doc)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return st, &InputError{Line: se.Line, Column: se.Column, Err: errors.New(se.Msg)}
		}
		return st, err
	}
	st.count(repl, p)
	st.Payloads = 1
	if kind == input.Array {
		st.Payloads = elements(doc) // [] is none
	}
	if opts.Check {
		st.Leaks = append(st.Leaks, a.check(ctx, out, 1)...)
	}
	if decoded != nil {
		out = gbEncode(out, decoded, it.Body)
	}
	if opts.oneLine {
		if out, err = ndjsonOf(out, kind == input.Array); err != nil {
			return st, err
		}
	}
	_, err = w.Write(out)
	return st, err
}

// ndjsonOf is doc as NDJSON: one line, or for an array a line per element
// (a line holding the array is one payload that is not an object). Only
// the whitespace between tokens goes: every value keeps its bytes (a
// number's spelling, a string's escapes).
func ndjsonOf(doc []byte, array bool) ([]byte, error) {
	items := []json.RawMessage{doc}
	if array {
		items = nil
		if err := json.Unmarshal(doc, &items); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	for _, it := range items {
		if err := json.Compact(&b, it); err != nil {
			return nil, err
		}
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// check scans an anonymized payload for what survived.
func (a *anonymizer) check(ctx context.Context, out []byte, line int) []Leak {
	p := &pass{a: a, ctx: ctx, check: true, line: line}
	if err := a.scanPayload(p, out, true); err != nil {
		p.bodyText(string(out)) // a body kept as text (a form, percent-encoded)
	}
	return p.leaks
}

// count adds the values replaced in identifying fields, and the spans a
// pass replaced inside text.
func (st *Stats) count(repl []replaced, p *pass) {
	for _, x := range repl {
		if !x.text {
			st.Replaced[x.Class]++
		}
	}
	st.Replaced.Add(p.counts)
	p.counts = Report{}
}

// elements is the number of elements of an array.
func elements(doc []byte) int {
	n := 0
	_ = jsonlex.Walk(doc, func(path []jsonlex.Seg, v jsonlex.Value) {
		if len(path) == 1 && path[0].Index >= 0 {
			n++
		}
	})
	return n
}

// lines anonymizes NDJSON payloads line by line, keeping each line's ending
// (a blank line is written empty).
func (a *anonymizer) lines(ctx context.Context, rd *input.Reader, w io.Writer, opts Options, st *Stats) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	last := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		it, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return bw.Flush()
		}
		if err != nil {
			return err
		}
		if err := rd.Check(it); err != nil {
			return placed(it, err) // too large, or not JSON, where
		}
		for ; last < it.Line-1; last++ {
			bw.WriteByte('\n')
		}
		last = it.Line
		body, decoded := it.Body, []byte(nil)
		if u, ok := gbText(body, ""); ok { // a payload in GBK (see gb.go)
			body, decoded = u, u
		}
		if opts.checkOnly {
			st.Leaks = append(st.Leaks, a.check(ctx, body, it.Line)...)
			continue
		}
		body, masked := harCredentials(body) // a HAR on one line
		st.mask(masked)
		p := &pass{a: a, ctx: ctx, counts: Report{}, learn: opts.learn}
		out, repl, perr := a.payload(p, body)
		if perr != nil {
			return lineError(it.Line, perr)
		}
		st.Payloads++
		st.count(repl, p)
		if opts.Check {
			st.Leaks = append(st.Leaks, a.check(ctx, out, it.Line)...)
		}
		if decoded != nil {
			out = gbEncode(out, decoded, it.Body)
		}
		bw.Write(out)
		if it.CR {
			bw.WriteByte('\r')
		}
		if !it.Unended {
			bw.WriteByte('\n')
		}
	}
}

// placed is an input's error at its place (input.SyntaxError, or an
// NDJSON line too large) as an *InputError, which the file's name is then
// added to.
func placed(it *input.Item, err error) error {
	if se, ok := errors.AsType[*input.SyntaxError](err); ok {
		return &InputError{Line: se.Line, Column: se.Column, Err: errors.New(se.Msg)}
	}
	if it.Line > 0 {
		return tooLargeAt(it.Line, err)
	}
	return err
}

// tooLargeAt is err, when it says that line n is too large, as an
// *InputError at that line: input.TooLargeError names the line in its
// words ("line 2 is larger than 64 MiB"), which after the place said it
// twice.
func tooLargeAt(n int, err error) error {
	if tl, ok := errors.AsType[*input.TooLargeError](err); ok {
		return &InputError{Line: n, Err: fmt.Errorf("the line is larger than %d MiB", tl.Max>>20)}
	}
	return err
}

func lineError(n int, err error) error {
	var se *syntaxError
	if errors.As(err, &se) {
		// A line's own position: NDJSON holds one value a line, so the line
		// is the record and the column is what matters.
		return &InputError{Line: n, Column: se.Column, Err: errors.New(se.Msg)}
	}
	return &InputError{Line: n, Err: err}
}

// records anonymizes capture records. Each record is re-encoded: its body
// keeps every byte but the replaced values, Content-Length is corrected and
// the signature and credential headers are dropped (or the call is signed
// again).
func (a *anonymizer) records(ctx context.Context, rd *capture.Reader, w io.Writer, opts Options, st *Stats) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := rd.Next()
		var torn *capture.TornError
		switch {
		case errors.Is(err, io.EOF):
			return bw.Flush()
		case errors.As(err, &torn):
			st.Torn = append(st.Torn, torn)
			continue
		case errors.As(err, new(*capture.LineError)):
			if tl := tooLargeAt(rd.Line(), unwrapLine(err)); tl != unwrapLine(err) {
				return tl
			}
			if col, msg, ok := capture.Column(err); ok {
				// Not JSON, or not UTF-8: the column in the line too.
				return &InputError{Line: rd.Line(), Column: col, Err: errors.New(msg)}
			}
			return &InputError{Line: rd.Line(), Err: unwrapLine(err)}
		case err != nil:
			return err
		}
		if opts.checkOnly {
			if err := checkEncodings(rec); err != nil {
				// Not read, not checked: refused, as record refuses it.
				return &InputError{Line: rd.Line(), Err: err}
			}
			p := &pass{a: a, ctx: ctx, check: true, line: rd.Line()}
			a.parts(p, rec)
			st.Leaks = append(st.Leaks, p.leaks...)
			continue
		}
		if err := a.record(ctx, rec, opts, st); err != nil {
			return &InputError{Line: rd.Line(), Err: err}
		}
		if opts.Check {
			p := &pass{a: a, ctx: ctx, check: true, line: rd.Line()}
			a.parts(p, rec)
			st.Leaks = append(st.Leaks, p.leaks...)
		}
		if buf, err = capture.Append(buf[:0], rec); err != nil {
			return &InputError{Line: rd.Line(), Err: err}
		}
		bw.Write(buf)
	}
}

func unwrapLine(err error) error {
	var le *capture.LineError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// record anonymizes every part of a capture record: the request body
// first, so that its identifiers join the dictionary before the other
// parts are searched; a body that is not JSON is kept and anonymized as
// text. Secret headers (termsafe.SecretHeader: credentials, tokens,
// signatures) are dropped from the request, the response and the forward.
func (a *anonymizer) record(ctx context.Context, rec *capture.Record, opts Options, st *Stats) error {
	if j := rec.Rejected; j != nil && !opts.learn {
		// The head of a request the server refused is bytes that did not
		// read as HTTP: credentials in it cannot be told from the rest,
		// so none of it is kept (HeadBytes still says how much came).
		j.Head, j.HeadEncoding = "", capture.UTF8
	}
	body, err := rec.RequestBody()
	if err != nil {
		return err
	}
	if err := checkEncodings(rec); err != nil {
		return err
	}
	// A compressed body is anonymized as what it holds (see encoding.go).
	compressed, enc := body, contentEncoding(rec.Headers)
	if body, err = decompress(body, enc); err != nil {
		return err
	}
	plain := body
	// A GBK or GB18030 body is anonymized as the text it is (see gb.go).
	raw, decoded := body, []byte(nil)
	if u, ok := gbText(body, rec.Headers.Get("Content-Type")); ok {
		body, decoded = u, u
	}
	st.Records++
	p := &pass{a: a, ctx: ctx, counts: Report{}, learn: opts.learn}
	if len(bytes.TrimSpace(body)) > 0 {
		out, repl, err := a.payload(p, body)
		if _, syntax := errors.AsType[*syntaxError](err); syntax {
			out, repl, err = []byte(p.bodyText(string(body))), nil, nil
			st.AsText++
		}
		if err != nil {
			return err
		}
		body = out
		st.count(repl, p)
	}
	doc := body // the document, as --resign reads its requestId
	if decoded != nil {
		body = gbEncode(body, decoded, raw)
	}
	body = compress(body, plain, compressed, enc)
	rec.SetBody(body)
	dropped := map[string]bool{}
	for _, h := range []http.Header{rec.Headers, responseHeaders(rec), forwardHeaders(rec)} {
		for name := range h {
			if termsafe.SecretHeader(name) {
				delete(h, name)
				dropped[http.CanonicalHeaderKey(name)] = true
			}
		}
	}
	// So are the query's credentials (?token=, ?access_token=, ?sig=…),
	// which a receiver's URL carries where a header would: taken out of
	// the query and the forward's URL.
	rec.Query = dropSecretParams(rec.Query, dropped)
	if f := rec.Forward; f != nil {
		f.URL = dropSecretParamsURL(f.URL, dropped)
	}
	answersWere := [2][]byte{answerBytes(rec.Response), forwardBytes(rec.Forward)}
	a.parts(p, rec)
	st.count(nil, p)
	// Each body's Content-Length and digests follow what it became: the
	// request's, and the answers' of listen and of the receiver behind it.
	followBody(rec.Headers, compressed, body, dropped)
	if r := rec.Response; r != nil {
		followBody(r.Headers, answersWere[0], answerBytes(r), dropped)
	}
	if f := rec.Forward; f != nil {
		followBody(f.Headers, answersWere[1], forwardBytes(f), dropped)
	}
	for name := range dropped {
		st.Dropped[name]++
	}
	if opts.Resign != nil {
		if rec.Headers == nil {
			rec.Headers = http.Header{}
		}
		// Receivers require a webhook-id: the captured one, else the
		// requestId of the document (a compressed body's too), else one
		// made from the body, as replay --sign makes it.
		id := rec.Headers.Get("Webhook-Id")
		if id == "" {
			id = requestID(doc)
		}
		if id == "" {
			sum := sha256.Sum256(body)
			id = "msg_" + hex.EncodeToString(sum[:12])
		}
		opts.Resign.Sign(rec.Headers, id, opts.Now(), body)
		st.Resigned++
	}
	return nil
}

// followBody sets the Content-Length of h (contentLength) and its digest
// headers (redigest) to those of the body is, anonymized from was; a
// digest it cannot make again is noted in dropped.
func followBody(h http.Header, was, is []byte, dropped map[string]bool) {
	for name, vs := range h {
		if strings.EqualFold(name, "Content-Length") {
			h[name] = []string{strconv.FormatInt(contentLength(vs, len(was), len(is)), 10)}
		}
	}
	if !bytes.Equal(was, is) {
		redigest(h, is, dropped)
	}
}

// answerBytes and forwardBytes are the bytes an answer's stored body
// holds (nil for none, or one that does not decode).
func answerBytes(r *capture.Response) []byte {
	if r == nil {
		return nil
	}
	b, _ := capture.DecodeBody(r.Body, r.BodyEncoding)
	return b
}

func forwardBytes(f *capture.Forward) []byte {
	if f == nil {
		return nil
	}
	b, _ := capture.DecodeBody(f.Body, f.BodyEncoding)
	return b
}

// contentLength is the Content-Length of a body anonymized from was bytes
// to is: is, or, when the sender declared more than the was that arrived
// (a body that came cut short, listen's http-body-incomplete), as much
// more than is, so that the record still says it came cut short.
func contentLength(declared []string, was, is int) int64 {
	if len(declared) == 1 {
		if n, err := strconv.ParseInt(strings.TrimSpace(declared[0]), 10, 64); err == nil && n > int64(was) {
			return n - int64(was) + int64(is)
		}
	}
	return int64(is)
}

func responseHeaders(rec *capture.Record) http.Header {
	if rec.Response == nil {
		return nil
	}
	return rec.Response.Headers
}

func forwardHeaders(rec *capture.Record) http.Header {
	if rec.Forward == nil {
		return nil
	}
	return rec.Forward.Headers
}

// parts anonymizes (or, in a check, scans) every part of a record but the
// request body's JSON, which record does first: the remote address, the
// path, the query, every header but the secret ones, the answers of
// listen and of the receiver behind it, the forward URL and error, and a
// fault's texts. A check scans the request body as well.
func (a *anonymizer) parts(p *pass, rec *capture.Record) {
	if p.check {
		body, _ := rec.RequestBody()
		if plain, err := decompress(body, contentEncoding(rec.Headers)); err == nil {
			body = plain
		}
		if u, ok := gbText(body, rec.Headers.Get("Content-Type")); ok {
			body = u
		}
		a.scanBody(p, body)
	}
	rec.Remote = p.remote(rec.Remote)
	if rec.RawPath != "" {
		// The path as sent: anonymized as written, escapes kept where
		// nothing in them changed ("/a%2Fb" stays one segment), and the
		// decoded path made of it, so the two still name one path.
		raw := p.path(rec.RawPath)
		if d, err := url.PathUnescape(raw); err == nil {
			rec.Path, rec.RawPath = d, raw
			if raw == (&url.URL{Path: d}).EscapedPath() {
				rec.RawPath = ""
			}
		} else {
			rec.Path, rec.RawPath = p.path(rec.Path), ""
		}
	} else {
		rec.Path = p.path(rec.Path)
	}
	rec.Query = p.query(rec.Query)
	a.headers(p, rec.Headers)
	if r := rec.Response; r != nil {
		a.headers(p, r.Headers)
		r.Body, r.BodyEncoding = a.storedBody(p, r.Body, r.BodyEncoding, r.Headers)
	}
	if f := rec.Forward; f != nil {
		f.URL = p.url(f.URL)
		a.headers(p, f.Headers)
		f.Body, f.BodyEncoding = a.storedBody(p, f.Body, f.BodyEncoding, f.Headers)
		f.Error = p.message(f.Error)
	}
	if j := rec.Rejected; j != nil {
		if p.check {
			head, _ := j.RawHead()
			a.scanBody(p, head)
		}
		j.Reason = p.message(j.Reason) // it may quote the request line
	}
	if u := rec.Unanswered; u != nil {
		// listen's words too; a record made by hand may put anything
		// there, and --check reads every part of a record.
		u.Reason = p.message(u.Reason)
	}
	if f := rec.Fault; f != nil {
		// listen's words, quoting the forward's errors and their URLs.
		f.Sender, f.Receiver = p.message(f.Sender), p.message(f.Receiver)
		f.Arg = p.message(f.Arg)
		for i := range f.Deliveries {
			f.Deliveries[i].Error = p.message(f.Deliveries[i].Error)
		}
	}
}

func (a *anonymizer) headers(p *pass, h http.Header) {
	renamed := map[string]string{}
	for name, vals := range h {
		if p.check && termsafe.SecretHeader(name) {
			continue // a signature --resign wrote
		}
		if strings.EqualFold(name, "Content-Length") {
			// A length, never data: a body of 1445 bytes is not staff
			// 1445 (4-digit codes and a webhook's few KB meet often).
			// record corrects it from what it declared.
			continue
		}
		addrs := forwardedFor(name)
		for i, v := range vals {
			if _, err := http.ParseTime(v); err == nil {
				// An HTTP date (Date, Last-Modified, Expires) names
				// nobody, and its year is no staff code 2026.
				continue
			}
			if vals[i] = p.labelled(name, v, func(v string) string { return p.escaped(v, false) }); addrs {
				vals[i] = p.addresses(vals[i])
			}
		}
		// A name can hold an identifier too (X-Tenant-91310115ma1fl3xk9d,
		// canonical as listen records it): the header is renamed to hold
		// its stand-in, which stays as it is written (upper case), as
		// a check looks for it.
		if n := p.text(name); n != name {
			renamed[name] = n
		}
	}
	for name, n := range renamed {
		h[n] = append(h[n], h[name]...)
		delete(h, name)
	}
}

// forwardedFor reports the headers in which proxies name the client's
// address: each address in them is someone's.
func forwardedFor(name string) bool {
	switch strings.ToLower(name) {
	case "x-forwarded-for", "x-real-ip", "forwarded", "true-client-ip", "cf-connecting-ip", "x-client-ip", "x-original-forwarded-for":
		return true
	}
	return false
}

// storedBody anonymizes a stored answer: JSON as a payload is, anything
// else (text, or bytes that are not UTF-8) as text; GBK or GB18030 (by
// contentType, or by its bytes) decoded first and encoded again. It
// returns the body stored again and its encoding, which follows the
// bytes: text a record stored in base64 (a hand-made one, another
// tool's) is written back as text, and said so.
func (a *anonymizer) storedBody(p *pass, stored, encoding string, h http.Header) (string, string) {
	raw, err := capture.DecodeBody(stored, encoding)
	if err != nil || len(raw) == 0 {
		return stored, encoding
	}
	// Compressed, it is decompressed first (record refused one that
	// cannot be) and compressed again.
	enc := contentEncoding(h)
	b, err := decompress(raw, enc)
	if err != nil {
		b, enc = raw, ""
	}
	if u, ok := gbText(b, h.Get("Content-Type")); ok {
		if p.check {
			a.scanBody(p, u)
			return stored, encoding
		}
		out, repl, err := a.payload(p, u)
		if err != nil {
			out = []byte(p.bodyText(string(u)))
		}
		p.countFields(repl)
		if bytes.Equal(out, u) {
			return stored, encoding
		}
		return capture.EncodeBody(compress(gbEncode(out, u, b), b, raw, enc))
	}
	if p.check {
		a.scanBody(p, b)
		return stored, encoding
	}
	out, repl, err := a.payload(p, b)
	if err != nil {
		out = []byte(p.bodyText(string(b))) // text, perhaps a form
	}
	p.countFields(repl)
	if bytes.Equal(out, b) {
		return stored, encoding
	}
	return capture.EncodeBody(compress(out, b, raw, enc))
}

// scanBody checks a body: as JSON when it is, else as text.
func (a *anonymizer) scanBody(p *pass, b []byte) {
	if len(bytes.TrimSpace(b)) == 0 {
		return
	}
	if err := a.scanPayload(p, b, false); err != nil {
		p.bodyText(string(b))
	}
}

// requestID reads the body's requestId, the webhook-id of a new signature.
func requestID(body []byte) string {
	if sp, ok := jsonlex.Member(body, spec.FieldRequestID); ok && sp.Kind == jsonlex.String {
		return jsonlex.StringAt(body, sp)
	}
	return ""
}

// Add adds the counts and leaks of o to st, for a run over several inputs.
func (st *Stats) Add(o *Stats) {
	st.Payloads += o.Payloads
	st.Records += o.Records
	st.Replaced.Add(o.Replaced)
	for k, n := range o.Dropped {
		st.Dropped[k] += n
	}
	st.mask(o.Masked)
	st.Resigned += o.Resigned
	st.AsText += o.AsText
	st.Leaks = append(st.Leaks, o.Leaks...)
}

// mask adds the counts of masked (harCredentials) to st's.
func (st *Stats) mask(masked map[string]int) {
	for k, n := range masked {
		if st.Masked == nil {
			st.Masked = map[string]int{}
		}
		st.Masked[k] += n
	}
}

// dropSecretParams is the raw query q without its credential parameters
// (termsafe.SecretParam), each one taken noted in dropped as "query
// parameter NAME"; the others byte for byte, in their order.
func dropSecretParams(q string, dropped map[string]bool) string {
	if q == "" {
		return q
	}
	parts := strings.Split(q, "&")
	kept := parts[:0]
	for _, kv := range parts {
		if k, v, ok := strings.Cut(kv, "="); ok && termsafe.SecretParam(k, v) {
			dropped["query parameter "+termsafe.QueryKey(k)] = true
			continue
		}
		kept = append(kept, kv)
	}
	return strings.Join(kept, "&")
}

// dropSecretParamsURL is dropSecretParams of u's query; u as it is when it
// has none, or is no URL.
func dropSecretParamsURL(u string, dropped map[string]bool) string {
	base, q, ok := strings.Cut(u, "?")
	if !ok {
		return u
	}
	frag := ""
	if i := strings.IndexByte(q, '#'); i >= 0 {
		q, frag = q[:i], q[i:]
	}
	if q = dropSecretParams(q, dropped); q == "" {
		return base + frag
	}
	return base + "?" + q + frag
}
