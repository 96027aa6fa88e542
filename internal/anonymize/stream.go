package anonymize

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/deliver"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/termsafe"
)

// Options tune a stream.
type Options struct {
	// Resign signs every capture record again (Standard Webhooks) after its
	// body changed; nil drops the signature headers only.
	Resign *deliver.Signer
	// Now is the time of new signatures.
	Now func() time.Time
	// Check scans the output for identifiers that survived (Stats.Leaks).
	Check bool
}

// Stats says what a stream did.
type Stats struct {
	Payloads, Records int
	Replaced          Report
	// Dropped counts the request headers taken out of capture records, by
	// name: signatures no longer match the changed body, and credentials are
	// not to be shared.
	Dropped  map[string]int
	Resigned int
	// Torn is the line of a torn last capture record that was skipped (0:
	// none).
	Torn  int
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

// Error is name:line:column: message, the input's words terminal-safe.
func (e *InputError) Error() string {
	msg := termsafe.Text(e.Err.Error())
	switch {
	case e.Name == "" && e.Column > 0:
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, msg)
	case e.Name == "":
		return fmt.Sprintf("line %d: %s", e.Line, msg)
	case e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.Name, e.Line, e.Column, msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, msg)
	}
	return e.Name + ": " + msg
}

func (e *InputError) Unwrap() error { return e.Err }

// Stream reads payloads (one JSON document, an array of them, or NDJSON) or
// capture records from r (input.Reader: each document, line or record at
// most input.Max) and writes the same kind, anonymized, to w. An empty
// input writes nothing.
func (a *Anonymizer) Stream(ctx context.Context, r io.Reader, w io.Writer, opts Options) (*Stats, error) {
	st := &Stats{Replaced: Report{}, Dropped: map[string]int{}}
	// An array is read whole: its bytes between the elements are kept.
	rd := input.NewReader(ctx, r, input.Options{Whole: true, Buffer: 64 << 10})
	kind, err := rd.Kind()
	switch {
	case err != nil:
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
		return st, placed(err) // not JSON, where: as every command says it
	}
	doc := it.Body
	out, repl, err := a.Payload(doc)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return st, &InputError{Line: se.Line, Column: se.Column, Err: errors.New(se.Msg)}
		}
		return st, err
	}
	st.count(repl)
	st.Payloads = 1
	if kind == input.Array {
		st.Payloads = elements(doc) // [] is none
	}
	if opts.Check {
		st.Leaks = append(st.Leaks, leaksIn(out, 1, repl)...)
	}
	_, err = w.Write(out)
	return st, err
}

func (st *Stats) count(repl []Replaced) {
	for _, x := range repl {
		st.Replaced[x.Class]++
	}
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
func (a *Anonymizer) lines(ctx context.Context, rd *input.Reader, w io.Writer, opts Options, st *Stats) error {
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
			return placed(err) // too large, or not JSON, where
		}
		for ; last < it.Line-1; last++ {
			bw.WriteByte('\n')
		}
		last = it.Line
		out, repl, perr := a.Payload(it.Body)
		if perr != nil {
			return lineError(it.Line, perr)
		}
		st.Payloads++
		st.count(repl)
		if opts.Check {
			st.Leaks = append(st.Leaks, leaksIn(out, it.Line, repl)...)
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

// placed is an input's error at its place (input.SyntaxError) as an
// *InputError, which the file's name is then added to.
func placed(err error) error {
	if se, ok := errors.AsType[*input.SyntaxError](err); ok {
		return &InputError{Line: se.Line, Column: se.Column, Err: errors.New(se.Msg)}
	}
	return err
}

func lineError(n int, err error) error {
	var se *SyntaxError
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
func (a *Anonymizer) records(ctx context.Context, rd *capture.Reader, w io.Writer, opts Options, st *Stats) error {
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
			st.Torn = torn.Line
			return bw.Flush()
		case errors.As(err, new(*capture.LineError)):
			return &InputError{Line: rd.Line(), Err: unwrapLine(err)}
		case err != nil:
			return err
		}
		repl, err := a.record(rec, opts, st)
		if err != nil {
			return &InputError{Line: rd.Line(), Err: err}
		}
		if buf, err = capture.Append(buf[:0], rec); err != nil {
			return &InputError{Line: rd.Line(), Err: err}
		}
		if opts.Check {
			st.Leaks = append(st.Leaks, leaksIn(buf, rd.Line(), repl)...)
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

// droppedHeaders are taken out of a shared capture: credentials, and every
// signature (the body it signed has changed).
func droppedHeader(name string) bool {
	n := strings.ToLower(name)
	return n == "authorization" || n == "proxy-authorization" || n == "cookie" ||
		strings.Contains(n, "signature")
}

func (a *Anonymizer) record(rec *capture.Record, opts Options, st *Stats) ([]Replaced, error) {
	body, err := rec.RequestBody()
	if err != nil {
		return nil, err
	}
	st.Records++
	var repl []Replaced
	if len(bytes.TrimSpace(body)) > 0 {
		out, r, err := a.Payload(body)
		if err != nil {
			var se *SyntaxError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("the body is not JSON (body line %d, column %d: %s), so it cannot be anonymized; leave the record out", se.Line, se.Column, se.Msg)
			}
			return nil, err
		}
		body, repl = out, r
		rec.SetBody(body)
	}
	st.count(repl)
	echoes := echoReplacer(repl)
	rec.Query = echoes.Replace(rec.Query)
	for name, vals := range rec.Headers {
		if droppedHeader(name) {
			delete(rec.Headers, name)
			st.Dropped[http.CanonicalHeaderKey(name)]++
			continue
		}
		if strings.EqualFold(name, "Content-Length") {
			vals = []string{strconv.Itoa(len(body))}
		}
		for i, v := range vals {
			vals[i] = echoes.Replace(v)
		}
		rec.Headers[name] = vals
	}
	if opts.Resign != nil {
		if rec.Headers == nil {
			rec.Headers = http.Header{}
		}
		id := rec.Headers.Get("Webhook-Id")
		if id == "" {
			id = requestID(body)
		}
		opts.Resign.Sign(rec.Headers, id, opts.Now(), body)
		st.Resigned++
	}
	if rec.Response != nil {
		rec.Response.Body = echoBody(echoes, rec.Response.Body, rec.Response.BodyEncoding)
	}
	if rec.Forward != nil {
		rec.Forward.Body = echoBody(echoes, rec.Forward.Body, rec.Forward.BodyEncoding)
	}
	return repl, nil
}

// echoReplacer replaces each identifier long enough to name someone with its
// stand-in, wherever it stands (a query, a header, a receiver's answer).
func echoReplacer(repl []Replaced) *strings.Replacer {
	var olds []string
	for _, x := range repl {
		if x.Class != Echo && len(x.Old) >= minEcho {
			olds = append(olds, x.Old, x.New)
		}
	}
	return strings.NewReplacer(olds...)
}

// echoBody replaces identifiers in a stored body that is text; a base64
// body is bytes that are not UTF-8, so no identifier of ours stands in it.
func echoBody(echoes *strings.Replacer, body, encoding string) string {
	if encoding == capture.Base64 {
		return body
	}
	return echoes.Replace(body)
}

// requestID reads the body's requestId, the webhook-id of a new signature.
func requestID(body []byte) string {
	if sp, ok := jsonlex.Member(body, spec.FieldRequestID); ok && sp.Kind == jsonlex.String {
		return jsonlex.StringAt(body, sp)
	}
	return ""
}

// leaksIn scans out for identifiers that are not among the stand-ins.
func leaksIn(out []byte, line int, repl []Replaced) []Leak {
	standIns := make(map[string]bool, len(repl))
	for _, x := range repl {
		standIns[x.New] = true
	}
	return leaks(string(out), line, standIns)
}
