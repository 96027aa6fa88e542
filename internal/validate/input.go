package validate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/whsim/whsim/internal/ctxio"
)

// MaxPayload is the largest payload, NDJSON line or array element an input
// may hold: a larger one is reported and skipped, never held in memory. It
// is well above listen's default --max-body (10 MiB), base64 included.
const MaxPayload = 64 << 20

// Input says how to read one input.
type Input struct {
	// Name is what findings call the input; a name ending in .ndjson or
	// .jsonl makes it NDJSON whatever its first line holds.
	Name string
	// Event is the query event plain payloads were sent with; "" lets the
	// body number decide.
	Event string
	// MaxPayload replaces the package's MaxPayload when above 0.
	MaxPayload int
}

// Result is one checked payload of an input.
type Result struct {
	// Line is the payload's line in an NDJSON input, 0 otherwise.
	Line int
	// Element is the payload's index in an input holding a JSON array, -1
	// otherwise. Findings then carry their line in the whole input.
	Element  int
	Findings []Finding
	Failed   bool
	// Skipped says the line was not checked as a payload: a torn last
	// capture line, which only warns, even under Strict.
	Skipped bool
}

// Summary counts a validation run.
type Summary struct {
	Payloads int `json:"payloads"`
	Failed   int `json:"failed"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

// Add counts one result.
func (s *Summary) Add(r *Result) {
	if !r.Skipped {
		s.Payloads++
	}
	if r.Failed {
		s.Failed++
	}
	for _, f := range r.Findings {
		if f.Severity == Error {
			s.Errors++
		} else {
			s.Warnings++
		}
	}
}

// CheckInput reads the payloads of one input and calls fn with each one's
// result, in input order. An input is
//   - a JSON array of payloads (generate's --output json), when its first
//     non-blank byte is '[' and its name does not say NDJSON;
//   - NDJSON, one payload or capture record per line, when its name says so
//     or its first line is a whole JSON value, or a bad first record: a line
//     that closes every bracket it opens, or one followed by a whole value;
//   - else one payload.
//
// It streams: memory is bounded by the largest payload, whatever the
// input's size. An error is an input that cannot be read (or cancellation),
// never a finding.
func (v *Validator) CheckInput(ctx context.Context, r io.Reader, in Input, fn func(*Result) error) error {
	rd := &inputReader{v: v, in: in, ctx: ctx, fn: fn, max: in.MaxPayload,
		br: bufio.NewReaderSize(ctxio.NewReader(ctx, r), 1<<20)}
	if rd.max <= 0 {
		rd.max = MaxPayload
	}
	return rd.run()
}

// jsonSpace is the white space RFC 8259 allows between values.
const jsonSpace = " \t\r\n"

type inputReader struct {
	v   *Validator
	in  Input
	ctx context.Context
	fn  func(*Result) error
	max int
	br  *bufio.Reader
	buf []byte
	// pending is a line read ahead, which readLine returns next.
	pending *line
}

// line is one line of an input, without its "\n".
type line struct {
	text []byte // valid until the next read; nil when long
	n    int    // 1-based
	nl   bool   // it ended in "\n" (else it was the last)
	long bool   // longer than max: its bytes were dropped
}

// readLine reads the next line; ok is false at the end of the input.
func (rd *inputReader) readLine(n int) (l line, ok bool, err error) {
	if rd.pending != nil {
		l, rd.pending = *rd.pending, nil
		return l, true, nil
	}
	l.n = n
	rd.buf = rd.buf[:0]
	read := 0
	for {
		chunk, err := rd.br.ReadSlice('\n')
		read += len(chunk)
		if read == len(chunk) && err == nil && len(chunk) <= rd.max+1 {
			// The whole line sits in the reader's buffer: no copy.
			l.text, l.nl = chunk[:len(chunk)-1], true
			return l, true, nil
		}
		if !l.long {
			if read > rd.max+1 {
				l.long, rd.buf = true, nil // let the collector have it
			} else {
				rd.grow(len(chunk))
				rd.buf = append(rd.buf, chunk...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			if read == 0 {
				return l, false, nil
			}
		case err != nil:
			return l, false, err
		default:
			l.nl = true
		}
		if !l.long {
			l.text = bytes.TrimSuffix(rd.buf, []byte("\n"))
		}
		return l, true, nil
	}
}

// grow makes room for n more bytes in buf, doubling as append would but
// never beyond max+1: a line at the limit costs max bytes, not twice that.
func (rd *inputReader) grow(n int) {
	need := len(rd.buf) + n
	if need <= cap(rd.buf) {
		return
	}
	nb := make([]byte, len(rd.buf), min(max(2*cap(rd.buf), need), rd.max+1))
	copy(nb, rd.buf)
	rd.buf = nb
}

func (rd *inputReader) run() error {
	ext := strings.ToLower(filepath.Ext(rd.in.Name))
	forced := ext == ".ndjson" || ext == ".jsonl"
	// head is the white space before the first value.
	var head []byte
	for {
		c, err := rd.br.ReadByte()
		if err == io.EOF {
			if forced {
				return nil
			}
			return rd.document(head) // empty: one (failing) payload
		}
		if err != nil {
			return err
		}
		if strings.IndexByte(jsonSpace, c) < 0 {
			_ = rd.br.UnreadByte()
			if c == '[' && !forced {
				return rd.array(head)
			}
			break
		}
		head = append(head, c)
	}
	first, _, err := rd.readLine(1 + bytes.Count(head, []byte("\n")))
	if err != nil {
		return err
	}
	text := first.text
	switch {
	case first.long || json.Valid(text):
		return rd.ndjson(first)
	case forced && depth(text) > 0:
		fix := "jq -c ."
		if text[0] == '[' {
			fix = "jq -c '.[]'"
		}
		return fmt.Errorf("line %d is not a whole JSON value: the file holds pretty-printed JSON, and NDJSON is one value per line (convert it with %s)", first.n, fix)
	case forced || depth(text) <= 0:
		return rd.ndjson(first)
	}
	// A first line that leaves brackets open starts a pretty-printed
	// document, or is an NDJSON record cut short: the second line tells.
	doc := rd.withFirst(head, first)
	second, ok, err := rd.readLine(first.n + 1)
	if err != nil {
		return err
	}
	if ok && (second.long || json.Valid(second.text)) {
		second.text = bytes.Clone(second.text)
		rd.pending = &second
		first.text = bytes.TrimSuffix(doc[len(head):], []byte("\n"))
		return rd.ndjson(first)
	}
	if ok {
		doc = rd.withFirst(doc, second)
	}
	return rd.document(doc)
}

func (rd *inputReader) withFirst(head []byte, first line) []byte {
	head = append(head, first.text...)
	if first.nl {
		head = append(head, '\n')
	}
	return head
}

// nesting follows the bracket depth of JSON text byte by byte, strings
// aside: what both the NDJSON and the array readers need to tell where a
// value ends without parsing it.
type nesting struct {
	depth      int
	inStr, esc bool
}

func (n *nesting) step(c byte) {
	switch {
	case n.esc:
		n.esc = false
	case n.inStr:
		n.esc, n.inStr = c == '\\', c != '"'
	case c == '"':
		n.inStr = true
	case c == '{' || c == '[':
		n.depth++
	case c == '}' || c == ']':
		n.depth--
	}
}

// depth is how many brackets a line leaves open, strings aside.
func depth(b []byte) int {
	var n nesting
	for _, c := range b {
		n.step(c)
	}
	return n.depth
}

func (rd *inputReader) emit(r *Result) error {
	r.Failed = !r.Skipped && rd.v.Failed(r.Findings)
	return rd.fn(r)
}

// check judges one payload or capture record.
func (rd *inputReader) check(body []byte, record bool) []Finding {
	if record && IsCapture(body) {
		return rd.v.CheckCapture(body)
	}
	return rd.v.Check(body, rd.in.Event)
}

func (rd *inputReader) tooLarge(what string) []Finding {
	return rd.v.single(RulePayloadSize, fmt.Sprintf("%s is larger than %d MiB; not checked", what, rd.max>>20))
}

// document checks the whole input, head and the rest, as one payload.
func (rd *inputReader) document(head []byte) error {
	rest, err := io.ReadAll(io.LimitReader(rd.br, int64(rd.max+1-len(head))))
	if err != nil {
		return err
	}
	body := append(head, rest...)
	r := &Result{Element: -1}
	if len(body) > rd.max {
		if _, err := io.Copy(io.Discard, rd.br); err != nil {
			return err
		}
		r.Findings = rd.tooLarge("the payload")
	} else {
		r.Findings = rd.check(body, false)
	}
	return rd.emit(r)
}

// ndjson checks first and every line after it, one payload or capture
// record each; blank lines are skipped.
func (rd *inputReader) ndjson(l line) error {
	for {
		if err := rd.ctx.Err(); err != nil {
			return err
		}
		text := bytes.TrimSuffix(l.text, []byte("\r"))
		r := &Result{Line: l.n, Element: -1}
		switch {
		case l.long:
			r.Findings = rd.tooLarge(fmt.Sprintf("line %d", l.n))
		case len(bytes.Trim(text, jsonSpace)) == 0:
			r = nil
		case !l.nl && IsCapture(text) && !json.Valid(text):
			// A crash while listen wrote it: the README promises a warning.
			r.Skipped = true
			r.Findings = rd.v.single(RuleTorn, "the last line is a capture record cut short (as a crash while writing leaves it); skipped")
		default:
			r.Findings = rd.check(text, true)
		}
		if r != nil {
			if err := rd.emit(r); err != nil {
				return err
			}
		}
		next, ok, err := rd.readLine(l.n + 1)
		if err != nil || !ok {
			return err
		}
		l = next
	}
}

// array checks each element of a JSON array, which starts at the next
// byte after head, as one payload. Elements are split on the array's own commas, so a
// broken element is judged on its own and the next one is still read.
func (rd *inputReader) array(head []byte) error {
	s := &arrayScanner{r: rd.br, line: 1 + bytes.Count(head, []byte("\n")), col: 1}
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		s.col += len(head) - i - 1
	} else {
		s.col += len(head)
	}
	s.peek()
	s.next() // the '['

	for idx := 0; ; idx++ {
		if err := rd.ctx.Err(); err != nil {
			return err
		}
		c, ok := s.skipSpace()
		if !ok {
			if s.err != nil {
				return s.err
			}
			return rd.emit(s.finding(rd, RuleSyntax, "the array is not closed (a missing ])"))
		}
		if c == ']' && idx == 0 {
			s.next()
			break
		}
		line, col := s.line, s.col
		elem, long, end, err := s.element(rd.max)
		if err != nil {
			return err
		}
		r := &Result{Element: idx}
		switch {
		case long:
			r.Findings = rd.tooLarge(fmt.Sprintf("element %d", idx))
		case len(elem) == 0:
			r.Findings = rd.v.single(RuleSyntax, "an empty array element (a trailing comma?)")
		default:
			r.Findings = rd.check(elem, true)
		}
		for i := range r.Findings {
			shift(&r.Findings[i], line, col)
		}
		if err := rd.emit(r); err != nil {
			return err
		}
		if end == 0 {
			if s.err != nil {
				return s.err
			}
			return rd.emit(s.finding(rd, RuleSyntax, "the array is not closed (a missing ])"))
		}
		if end == ']' {
			break
		}
	}
	if _, ok := s.skipSpace(); ok {
		return rd.emit(s.finding(rd, RuleSyntax, "data after the array's closing ]"))
	}
	return s.err
}

// shift moves a finding's position from its element to the whole input:
// the element started at line, col.
func shift(f *Finding, line, col int) {
	if f.Line == 0 {
		f.Line, f.Column = line, col
		return
	}
	if f.Line == 1 {
		f.Column += col - 1
	}
	f.Line += line - 1
	if f.Rule == RuleSyntax {
		// The message leads with the position (see checker.finish).
		if _, msg, ok := strings.Cut(f.Message, ": "); ok && strings.HasPrefix(f.Message, "line ") {
			f.Message = fmt.Sprintf("line %d, column %d: %s", f.Line, f.Column, msg)
		}
	}
}

// arrayScanner reads an array byte by byte, keeping the position of the
// next byte (columns in characters, as findings count them).
type arrayScanner struct {
	r         *bufio.Reader
	c         byte
	have      bool
	line, col int
	err       error
	buf       []byte
}

// peek returns the next byte without taking it.
func (s *arrayScanner) peek() (byte, bool) {
	if !s.have {
		c, err := s.r.ReadByte()
		if err != nil {
			if err != io.EOF {
				s.err = err
			}
			return 0, false
		}
		s.c, s.have = c, true
	}
	return s.c, true
}

// next takes the byte peek returned.
func (s *arrayScanner) next() {
	if !s.have {
		return
	}
	s.have = false
	switch {
	case s.c == '\n':
		s.line, s.col = s.line+1, 1
	case s.c&0xC0 != 0x80: // not a UTF-8 continuation byte
		s.col++
	}
}

func (s *arrayScanner) skipSpace() (byte, bool) {
	for {
		c, ok := s.peek()
		if !ok || (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
			return c, ok
		}
		s.next()
	}
}

// element reads one element up to the ',' or ']' that ends it at the
// array's level, which it takes and returns as end (0 at the end of the
// input). Bytes past max are dropped and long is set.
func (s *arrayScanner) element(max int) (elem []byte, long bool, end byte, err error) {
	s.buf = s.buf[:0]
	var n nesting
	for {
		c, ok := s.peek()
		if !ok {
			return bytes.Trim(s.buf, jsonSpace), long, 0, s.err
		}
		if !n.inStr && n.depth == 0 && (c == ',' || c == ']') {
			s.next()
			return bytes.Trim(s.buf, jsonSpace), long, c, nil
		}
		n.step(c)
		s.next()
		if !long {
			if len(s.buf) >= max {
				long, s.buf = true, s.buf[:0]
			} else {
				s.buf = append(s.buf, c)
			}
		}
	}
}

// finding makes a result for the array itself at the scanner's position.
func (s *arrayScanner) finding(rd *inputReader, rule, msg string) *Result {
	fs := rd.v.single(rule, msg)
	for i := range fs {
		fs[i].Line, fs[i].Column = s.line, s.col
	}
	return &Result{Element: -1, Findings: fs}
}
