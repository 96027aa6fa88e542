// Package input answers "what is in this file?" once for every command
// that reads what a user names (validate, anonymize, send --file, replay,
// inspect): one JSON document, a JSON array of documents, NDJSON, or
// capture records (whose last line may be torn), and it reads any of them
// item by item in bounded memory: no document, line or array element is
// held beyond Max bytes, whatever the input's size.
//
// It splits and never judges: an item that is not JSON is still an item,
// and what to do with it is the command's (validate reports it, send
// refuses it).
package input

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/jsonerr"
	"github.com/whsim/whsim/internal/jsonlex"
)

// Max is the largest document, NDJSON line or array element an input may
// hold. It is well above listen's default --max-body (10 MiB), base64
// included.
const Max = 64 << 20

// Kind is what an input holds.
type Kind int

const (
	// Empty is an input with nothing but white space.
	Empty Kind = iota
	// Document is one JSON document (or one value that is not JSON).
	Document
	// Array is a JSON array of documents.
	Array
	// NDJSON is one document a line.
	NDJSON
	// Captures is capture records, one a line, as listen writes them; the
	// last may be torn (Item.Torn).
	Captures
)

func (k Kind) String() string {
	switch k {
	case Empty:
		return "nothing"
	case Document:
		return "one JSON document"
	case Array:
		return "a JSON array"
	case NDJSON:
		return "NDJSON"
	case Captures:
		return "capture records"
	}
	return "?"
}

// Payloads reports whether the input holds payloads (a document, an array
// or NDJSON) rather than capture records.
func (k Kind) Payloads() bool { return k == Document || k == Array || k == NDJSON }

// IsRecord reports whether a JSON object line is a capture record rather
// than a plain payload, by its "capture" member: listen writes it first.
// A tool that sorts an object's members (jq -S, a Go map, a JSON library's
// sort_keys) moves it behind "body", which every record has and which
// sorts before every other member of one: such a line, starting {"body":
// with a number "capture" at its top level, is a record all the same. Read
// as a payload, validate failed it on envelope fields it never had, and
// replay refused the file as payloads, pointing at send --file. A payload
// line is looked at no further than its first member (validate asks of
// every line).
func IsRecord(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	if bytes.HasPrefix(t, []byte(`{"capture":`)) {
		return true
	}
	return bytes.HasPrefix(t, []byte(`{"body":`)) && topLevelCapture(t)
}

// topLevelCapture says whether the object that starts t has a member
// "capture" whose value is a number, as far as t is JSON (a record torn
// after that member is one). The members before it are skipped by the
// lexer validate reads bodies with, which copies no value (a sorted
// record's "body", the whole call, comes first).
func topLevelCapture(t []byte) bool {
	var lx jsonlex.Lexer
	lx.Reset(t)
	found := false
	_ = lx.Run(func() {
		if lx.Peek() != jsonlex.Object || !lx.Enter() {
			return
		}
		for first := true; ; first = false {
			key := lx.Key(first)
			k := lx.Peek()
			if string(lx.KeyBytes(key)) == "capture" {
				if k == jsonlex.Number {
					lx.Num()
					found = true
				}
				return
			}
			lx.Skip(k)
			if !lx.More('}') {
				return
			}
		}
	})
	return found
}

// TornLine is what every reader of captures (validate, replay, anonymize,
// inspect) says of a torn line, each adding what it did with the line
// (skipped, not replayed): one wording, so that a reader of one
// command's warnings reads another's. restarted says the line was ended
// after it was cut short (CutShort): a listen restarted on the file ends
// it and appends its records after it, but one that took no call, or an
// editor, ends it too, so records after it are not claimed; else it is
// the last line (Item.Torn).
func TornLine(restarted bool) string {
	if restarted {
		return "a capture record cut short, as a crash or a full disk while listen wrote it leaves it, and its line ended after (as a listen restarted on the file ends it)"
	}
	return "the last line is a capture record cut short, as a crash or a full disk while listen wrote it leaves it"
}

// CutShort says line is a capture record cut short: a record's start
// whose JSON is valid as far as it goes and ends before the record closes,
// as a crash or a full disk leaves the line listen was writing. A listen
// restarted on the file ends that line and appends its records after it,
// so the line need not be the last. Only a line that did not parse is
// asked: the check parses it again.
func CutShort(line []byte) bool {
	if !IsRecord(line) {
		return false
	}
	// A text valid up to its end stops at its end, not at a byte of it;
	// any other flaw is what it is. encoding/json's words do not tell:
	// it reads one space past the end, so a cut after an escape's
	// backslash, in a number or in a literal is named as a space that
	// does not fit there, and a body stored as escaped JSON holds a
	// backslash before every quote.
	se := jsonerr.FirstSyntaxError(line)
	return se != nil && !se.AtByte
}

// Options say how to read one input.
type Options struct {
	// Name is the input's name; one ending in .ndjson or .jsonl is NDJSON
	// whatever its first line holds.
	Name string
	// Max replaces the package's Max when above 0.
	Max int
	// Lines reads the input as lines whatever it holds (a capture reader).
	Lines bool
	// Buffer is the read buffer's size, 1 MiB when 0.
	Buffer int
	// Whole reads an array as one item, as a document is read, for a
	// command that keeps its bytes between the elements (anonymize).
	Whole bool
	// HAR reads a HAR file as the JSON document it is; without it one is
	// refused (see isHAR).
	HAR bool
}

// Item is one document, NDJSON line or array element of an input, or a
// fault in the array around them (Problem).
type Item struct {
	// Body is the item's bytes, valid until the next call of Next: a whole
	// document as it stands (white space included), a line without its
	// line ending, an element without the white space around it. Nil when
	// Long.
	Body []byte
	// Line is the item's line in the input (0 for a whole document) and
	// Column, for an array element or a Problem, where it starts.
	Line, Column int
	// Element is the index of an array element, -1 for anything else.
	Element int
	// Offset is where a line starts in the input, in bytes.
	Offset int64
	// Long says the item is larger than Max: its bytes were dropped.
	Long bool
	// Torn says the item is the last line, unterminated, and a capture
	// record cut short, as a crash while writing leaves it. A torn line a
	// restarted listen ended is not the last: see CutShort.
	Torn bool
	// Unended says the item is a last line without a line ending; CR, a
	// line that ended in "\r\n".
	Unended, CR bool
	// Problem, when not "", says what is wrong with the array at Line and
	// Column: an empty element, a missing ], data after it.
	Problem string
}

// What names the item in messages: "line 3", "element 2", "the payload".
func (it *Item) What() string {
	switch {
	case it.Element >= 0:
		return fmt.Sprintf("element %d", it.Element)
	case it.Line > 0:
		return fmt.Sprintf("line %d", it.Line)
	}
	return "the payload"
}

// TooLargeError is an item larger than a reader takes.
type TooLargeError struct {
	What string // Item.What
	Max  int
	// Line is the item's line when it is one of NDJSON (What "line N"),
	// 0 otherwise: Named places it there.
	Line int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d MiB", e.What, e.Max>>20)
}

// TooLarge is the error of a Long item.
func (rd *Reader) TooLarge(it *Item) error {
	e := &TooLargeError{What: it.What(), Max: rd.max}
	if it.Element < 0 {
		e.Line = it.Line
	}
	return e
}

// FormatError is an input that cannot be read as what it says it is: a
// file named *.ndjson holding pretty-printed JSON, a line that runs on
// without end, or an input that is not JSON at all.
type FormatError struct {
	// Line and Column place the fault when it has a place of its own
	// (Line 0: none; Column 0: the line as a whole); Msg is then what is
	// wrong there.
	Line, Column int
	Msg          string
}

func (e *FormatError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// jsonSpace is the white space RFC 8259 allows between values.
const jsonSpace = " \t\r\n"

// Reader reads the items of one input. It reads through a buffer of its
// own: nothing else may read r after NewReader.
type Reader struct {
	ctx    context.Context
	name   string
	max    int
	src    io.Reader // what br reads; ReadChunk reads it straight
	br     *bufio.Reader
	kind   Kind
	state  state
	err    error // the error that ended detection
	buf    []byte
	pos    int64 // bytes taken from br
	item   Item
	doc    []byte // the document's head, read while detecting
	nextN  int    // the line number readLine gives next
	arr    *arrayScanner
	idx    int  // the next element's index
	end    byte // what ended the element returned last: ',', ']' or 0
	skip   bool // the line returned last was long: its rest is still to skip
	skipAt int  // its number
	// pending are lines read ahead, which readLine returns first.
	pending []line
	lineBuf []byte // a pending line's bytes when they must outlive the buffer
	// carry is the start of a line ReadChunk read and did not return:
	// the next chunk or line begins with it.
	carry     []byte
	linesOnly bool // Options.Lines
	whole     bool // Options.Whole
	har       bool // Options.HAR
}

type state int

const (
	stStart state = iota
	stDocument
	stDocumentRest // the document was long: its rest is to be skipped
	stLines
	stArray
	stTail
	stDone
)

// NewReader returns a reader of r. Reads give way to ctx between items and
// between reads of r: r itself should give way (ctxio.NewReader) when one
// read can block.
func NewReader(ctx context.Context, r io.Reader, opts Options) *Reader {
	size := opts.Buffer
	if size <= 0 {
		size = 1 << 20
	}
	// A regular file's reads never block, but a document or a line of
	// tens of MB takes most of a second to read here: longer than Ctrl-C
	// may wait.
	r = ctxio.Checked(ctx, r)
	rd := &Reader{ctx: ctx, name: opts.Name, max: opts.Max, linesOnly: opts.Lines, whole: opts.Whole, har: opts.HAR, src: r, br: bufio.NewReaderSize(r, size)}
	if rd.max <= 0 {
		rd.max = Max
	}
	return rd
}

// Max is the largest item the reader takes.
func (rd *Reader) Max() int { return rd.max }

// Buffered says the reader holds bytes it has read and not yet returned:
// when it does not, the next Next may wait on the input (a pipe, a
// terminal), and a caller that batches items should hand over what it has.
func (rd *Reader) Buffered() bool {
	return len(rd.pending) > 0 || len(rd.carry) > 0 || rd.br.Buffered() > 0 || (rd.arr != nil && rd.arr.have)
}

// Kind reads as far as needed (at most two lines) to say what the input
// holds. An error is one the input cannot be read for.
func (rd *Reader) Kind() (Kind, error) {
	if rd.state == stStart {
		rd.err = rd.detect()
		if rd.err != nil {
			rd.state = stDone
		}
	}
	return rd.kind, rd.err
}

// Next returns the next item, io.EOF at the end. The item is the reader's
// own, overwritten by the next call. An error other than io.EOF ends the
// input: it cannot be read on (or ctx is done).
func (rd *Reader) Next() (*Item, error) {
	if _, err := rd.Kind(); err != nil {
		return nil, err
	}
	if err := rd.ctx.Err(); err != nil {
		return nil, err
	}
	rd.item = Item{Element: -1}
	switch rd.state {
	case stDocument:
		return rd.document()
	case stDocumentRest:
		rd.state = stDone
		if err := rd.discard(); err != nil {
			return nil, err
		}
	case stLines:
		return rd.nextLine()
	case stArray:
		return rd.element()
	case stTail:
		rd.state = stDone
		if _, ok := rd.arr.skipSpace(); ok {
			return rd.arr.problem(&rd.item, "data after the array's closing ]"), nil
		}
		if rd.arr.err != nil {
			return nil, rd.arr.err
		}
	}
	rd.state = stDone
	return nil, io.EOF
}

// NDJSONExtensions are the extensions (without the dot) that make a file
// NDJSON whatever its first line holds; shell completion offers them.
func NDJSONExtensions() []string { return []string{"ndjson", "jsonl"} }

func (rd *Reader) detect() error {
	ext := strings.ToLower(filepath.Ext(rd.name))
	forced := slices.Contains(NDJSONExtensions(), strings.TrimPrefix(ext, "."))
	// head is the white space before the first value.
	var head []byte
	for {
		c, err := rd.br.ReadByte()
		if err == io.EOF {
			rd.kind, rd.state = Empty, stDone
			return nil
		}
		if err != nil {
			return err
		}
		if strings.IndexByte(jsonSpace, c) < 0 {
			_ = rd.br.UnreadByte()
			if c == '[' && !forced && !rd.linesOnly {
				if rd.whole {
					rd.kind, rd.state, rd.doc = Array, stDocument, head
					return nil
				}
				rd.kind, rd.state = Array, stArray
				rd.startArray(head)
				return nil
			}
			break
		}
		head = append(head, c)
		rd.pos++
	}
	rd.nextN = 1 + bytes.Count(head, []byte("\n"))
	first, ok, err := rd.readLine()
	if err != nil {
		return err
	}
	if !ok {
		rd.kind, rd.state = Empty, stDone
		return nil
	}
	// The white space of the first line itself, before its value, is
	// the line's as a later line's is (a line is sent as it stands):
	// only the blank lines before it are no part of it.
	lead := head[bytes.LastIndexByte(head, '\n')+1:]
	text := first.text
	switch {
	case !rd.linesOnly && !rd.har && isHAR(text):
		return harError // on one line
	case !rd.linesOnly && !forced && !first.nl && !first.long && bytes.IndexByte(text, '\r') >= 0 && json.Valid(text):
		// No LF at all, and CRs inside one JSON value: a pretty-printed
		// document saved with CR-only line ends (classic Mac OS, some
		// editors' setting), whose findings are placed on its lines, not
		// one NDJSON line. CR-only is no NDJSON line end.
		rd.kind, rd.state, rd.doc = Document, stDocument, withLine(head, first)
		return nil
	case rd.linesOnly || first.long || json.Valid(text):
		return rd.lines(rd.withLead(lead, first))
	case !first.nl && IsRecord(text):
		return rd.lines(rd.withLead(lead, first)) // one capture record, torn
	case !startsJSON(text):
		// YAML, text, HTML: not a payload with a defect but no JSON at
		// all, said once rather than as a broken payload a line.
		return notJSONError(head, first)
	case depth(text) <= 0:
		return rd.lines(rd.withLead(lead, first))
	}
	// A first line that leaves brackets open starts a pretty-printed
	// document, or is an NDJSON record cut short: the second line tells.
	// So in a .ndjson file too: a capture whose first record a crash tore,
	// then a restarted listen's records, is NDJSON all the same, and only
	// one whose second line is no whole value either is pretty-printed.
	fix := "jq -c ."
	if text[0] == '[' {
		fix = "jq -c '.[]'"
	}
	firstN := first.n
	doc := withLine(head, first)
	second, ok, err := rd.readLine()
	if err != nil {
		return err
	}
	if forced && !ok {
		// One line, no whole value: a line cut short or broken, which
		// the syntax check places; nothing pretty-printed is one line.
		first.text = bytes.TrimSuffix(doc[len(head):], []byte("\n"))
		first = rd.withLead(lead, first)
		return rd.lines(first)
	}
	if ok && (second.long || json.Valid(second.text)) {
		rd.lineBuf = append(rd.lineBuf[:0], second.text...)
		second.text = rd.lineBuf
		first.text = bytes.TrimSuffix(doc[len(head):], []byte("\n"))
		first = rd.withLead(lead, first)
		rd.lines(first)
		rd.pending = append(rd.pending, second)
		return nil
	}
	if forced {
		return &FormatError{Line: firstN, Msg: fmt.Sprintf("not a whole JSON value: the file holds pretty-printed JSON, and NDJSON is one value per line (convert it with %s)", fix)}
	}
	if ok {
		doc = withLine(doc, second)
	}
	rd.kind, rd.state, rd.doc = Document, stDocument, doc
	return nil
}

// startsJSON says whether text (a first line, white space trimmed) begins
// as a JSON value does, or as one with a defect the syntax check names: a
// byte-order mark, a comment, single quotes, NaN or Infinity. Anything
// else (a YAML key, "---", a word, "<html>", "#") starts no JSON value.
func startsJSON(text []byte) bool {
	if len(text) == 0 {
		return true
	}
	switch c := text[0]; {
	case strings.IndexByte("{[\"0123456789/'", c) >= 0, c >= 0x80:
		// 0x80 and up: a byte-order mark, or UTF-8 the syntax check says
		// more of.
		return true
	case c == '-' || c == '+':
		// A number, -Infinity, or a number cut short after its sign.
		return len(bytes.TrimRight(text, jsonSpace)) == 1 || text[1] >= '0' && text[1] <= '9' || text[1] == 'I'
	}
	n := 0
	for n < len(text) && isLetter(text[n]) {
		n++
	}
	// A literal, or one cut short ("tru"), which the syntax check says is
	// truncated.
	for _, lit := range [...]string{"true", "false", "null", "NaN", "Infinity"} {
		if n > 0 && strings.HasPrefix(lit, string(text[:n])) {
			return true
		}
	}
	return false
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// notJSONError says an input whose first line starts no JSON value is not
// JSON or NDJSON, with the line's start; head is the white space before it.
func notJSONError(head []byte, first line) error {
	start, _, _ := bytes.Cut(first.text, []byte("\n"))
	if r := []rune(string(start)); len(r) > 24 {
		start = []byte(string(r[:24]) + "…")
	}
	col := utf8.RuneCount(head[bytes.LastIndexByte(head, '\n')+1:]) + 1
	return &FormatError{Line: first.n, Column: col, Msg: fmt.Sprintf("not JSON or NDJSON (the line begins %s, which starts no JSON value)", strconv.Quote(string(start)))}
}

// withLead makes lead, the white space a first line starts with (which
// detect read before its value), the start of l; a line it makes longer
// than max is long.
func (rd *Reader) withLead(lead []byte, l line) line {
	if len(lead) == 0 {
		return l
	}
	l.off -= int64(len(lead))
	switch {
	case l.long:
	case len(lead)+len(l.text) > rd.max:
		l.long, l.record, l.text = true, IsRecord(l.text), nil
	default:
		l.text = append(slices.Clip(lead), l.text...)
	}
	return l
}

func withLine(head []byte, l line) []byte {
	head = append(head, l.text...)
	if l.nl {
		head = append(head, '\n')
	}
	return head
}

// lines starts reading line by line at first: NDJSON, or capture records
// when first is one.
func (rd *Reader) lines(first line) error {
	rd.kind, rd.state = NDJSON, stLines
	if first.record || !first.long && IsRecord(first.text) {
		rd.kind = Captures
	}
	rd.pending = append(rd.pending[:0], first)
	return nil
}

// line is one line of an input, without its "\n".
type line struct {
	text []byte // valid until the next read; nil when long
	n    int    // 1-based
	off  int64  // where it starts
	nl   bool   // it ended in "\n" (else it was the last)
	long bool   // longer than max: its bytes were dropped
	// record says a long line starts as a capture record (IsRecord):
	// a capture whose first record is long is a capture all the same.
	record bool
}

// readLine reads the next line; ok is false at the end of the input. A
// line longer than max is returned as soon as it is known to be, its rest
// skipped by the next call: a reader that stops there reads no further.
func (rd *Reader) readLine() (l line, ok bool, err error) {
	if len(rd.pending) > 0 {
		l = rd.pending[0]
		rd.pending = rd.pending[1:]
		return l, true, nil
	}
	if rd.skip {
		rd.skip = false
		if err := rd.skipLine(); err != nil {
			return l, false, err
		}
	}
	l.n, l.off = rd.nextN, rd.pos-int64(len(rd.carry))
	rd.nextN++
	rd.buf = rd.buf[:0]
	read := 0
	if len(rd.carry) > 0 {
		// The line's start, which ReadChunk read: it is longer than a
		// chunk (it never holds a whole line).
		rd.grow(len(rd.carry))
		rd.buf = append(rd.buf, rd.carry...)
		read, rd.carry = len(rd.carry), rd.carry[:0]
	}
	for {
		chunk, err := rd.br.ReadSlice('\n')
		read += len(chunk)
		rd.pos += int64(len(chunk))
		if read == len(chunk) && err == nil && len(chunk) <= rd.max+1 {
			// The whole line sits in the reader's buffer: no copy.
			l.text, l.nl = chunk[:len(chunk)-1], true
			return l, true, nil
		}
		if read > rd.max+1 {
			start := rd.buf
			if len(start) == 0 {
				start = chunk
			}
			l.long, l.record, rd.buf = true, IsRecord(start), nil
			switch {
			case errors.Is(err, bufio.ErrBufferFull):
				rd.skip, rd.skipAt = true, l.n
			case err == nil:
				l.nl = true
			case err != io.EOF:
				return l, false, err
			}
			return l, true, nil
		}
		rd.grow(len(chunk))
		rd.buf = append(rd.buf, chunk...)
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
		l.text = bytes.TrimSuffix(rd.buf, []byte("\n"))
		return l, true, nil
	}
}

// skipMax is how far past max a long line or document is skipped, in
// multiples of max, before the input is given up: /dev/zero has no end.
const skipMax = 4

// skipLine skips the rest of a long line.
func (rd *Reader) skipLine() error {
	left := skipMax * rd.max
	for {
		chunk, err := rd.br.ReadSlice('\n')
		rd.pos += int64(len(chunk))
		left -= len(chunk)
		switch {
		case err == nil || err == io.EOF:
			return nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return err
		case left < 0:
			return &FormatError{Line: rd.skipAt, Msg: fmt.Sprintf("the line runs on past %d MiB without a line break; the rest is not read", (skipMax+1)*rd.max>>20)}
		}
	}
}

// discard skips the rest of a long document.
func (rd *Reader) discard() error {
	n, err := io.Copy(io.Discard, io.LimitReader(rd.br, int64(skipMax*rd.max)+1))
	if err == nil && n > int64(skipMax*rd.max) {
		err = &FormatError{Msg: fmt.Sprintf("the input is larger than %d MiB; the rest is not read", (skipMax+1)*rd.max>>20)}
	}
	return err
}

// grow makes room for n more bytes in buf, doubling as append would but
// never beyond max+1: a line at the limit costs max bytes, not twice that.
func (rd *Reader) grow(n int) {
	need := len(rd.buf) + n
	if need <= cap(rd.buf) {
		return
	}
	nb := make([]byte, len(rd.buf), min(max(2*cap(rd.buf), need), rd.max+1))
	copy(nb, rd.buf)
	rd.buf = nb
}

func (rd *Reader) nextLine() (*Item, error) {
	for {
		if err := rd.ctx.Err(); err != nil {
			return nil, err
		}
		l, ok, err := rd.readLine()
		if err != nil {
			return nil, err
		}
		if !ok {
			rd.state = stDone
			return nil, io.EOF
		}
		if lineItem(&rd.item, l) {
			return &rd.item, nil
		}
	}
}

// lineItem makes l the item it, as Next returns it; false is a line of
// white space, which is no item.
func lineItem(it *Item, l line) bool {
	*it = Item{Element: -1, Line: l.n, Offset: l.off, Unended: !l.nl}
	if l.long {
		it.Long = true
		return true
	}
	text := bytes.TrimSuffix(l.text, []byte("\r"))
	if len(bytes.Trim(text, jsonSpace)) == 0 {
		return false
	}
	it.Body, it.CR = text, len(text) < len(l.text)
	// A crash while listen wrote it: the README promises a warning.
	it.Torn = !l.nl && IsRecord(text) && !json.Valid(text)
	return true
}

// Chunk is a run of whole lines of an input, read in one piece
// (ReadChunk) and split into items by whoever checks them (Items): a
// caller that spreads the lines over goroutines reads without splitting
// them or copying them again.
type Chunk struct {
	// Bytes are the lines, each with its "\n" but the input's last.
	Bytes []byte
	// Line is the first line's number, Offset where it starts.
	Line   int
	Offset int64
	// Lines is how many lines Bytes holds.
	Lines int
}

// Chunked says the next items can be read with ReadChunk: the input is
// read line by line, and the lines read ahead while detecting (or a long
// line's rest) are taken.
func (rd *Reader) Chunked() bool {
	return rd.state == stLines && len(rd.pending) == 0 && !rd.skip
}

// ReadChunk reads the input's next whole lines into dst, up to its
// capacity, and returns them (in dst); the start of a line it read past
// the last "\n" begins the next chunk. Once the reader's own buffer is
// taken, it reads straight into dst: one read of the input a chunk when
// the input is a file, and as soon as a read ends a line when it is a
// pipe or a terminal, so a line is handed over as soon as it is read.
// An empty chunk with a nil error is a line longer than dst: Next
// returns it. An error other than io.EOF comes with the lines read before
// it; io.EOF with an empty chunk. Call it only when Chunked.
func (rd *Reader) ReadChunk(dst []byte) (Chunk, error) {
	if err := rd.ctx.Err(); err != nil {
		return Chunk{}, err
	}
	dst = dst[:cap(dst)]
	if len(rd.carry) >= len(dst) {
		return Chunk{}, nil // the line is longer than a chunk
	}
	n := copy(dst, rd.carry)
	c := Chunk{Line: rd.nextN, Offset: rd.pos - int64(n)}
	rd.carry = rd.carry[:0]
	for {
		if n == len(dst) {
			// No line ends in dst: Next takes it.
			rd.carry = append(rd.carry, dst...)
			return Chunk{}, nil
		}
		var m int
		var err error
		if rd.br.Buffered() > 0 {
			m, err = rd.br.Read(dst[n:])
		} else {
			m, err = rd.src.Read(dst[n:])
		}
		rd.pos += int64(m)
		from := n
		n += m
		end := 0
		if i := bytes.LastIndexByte(dst[from:n], '\n'); i >= 0 {
			end = from + i + 1
		}
		switch {
		case errors.Is(err, io.EOF):
			// The last line needs no "\n".
			end = n
			rd.state = stDone
		case err != nil:
			// The start of a line before the error is dropped, as Next
			// drops it.
			rd.state = stDone
		case end == 0:
			continue
		}
		rd.carry = append(rd.carry, dst[end:n]...)
		c.Bytes = dst[:end]
		c.Lines = bytes.Count(c.Bytes, []byte("\n"))
		if end > 0 && c.Bytes[end-1] != '\n' {
			c.Lines++
		}
		rd.nextN += c.Lines
		if len(c.Bytes) == 0 && err != nil {
			return c, err
		}
		if errors.Is(err, io.EOF) {
			err = nil // the next call's
		}
		return c, err
	}
}

// At is where the next line starts, its number and its offset in the
// input, when Chunked: a caller that reads a regular file's rest itself
// (at offsets, on many goroutines) starts there.
func (rd *Reader) At() (line int, offset int64) {
	return rd.nextN, rd.pos - int64(len(rd.carry))
}

// Rest returns a reader of the lines of r, the rest of rd's input from
// line number line on, which starts at offset in the input: its items are
// those rd would return from there, read as rd reads them (its kind, its
// limit, its buffer's size). rd is not read again.
func (rd *Reader) Rest(r io.Reader, line int, offset int64) *Reader {
	r = ctxio.Checked(rd.ctx, r)
	return &Reader{ctx: rd.ctx, name: rd.name, max: rd.max, linesOnly: rd.linesOnly, whole: rd.whole, har: rd.har,
		src: r, br: bufio.NewReaderSize(r, rd.br.Size()), kind: rd.kind, state: stLines, nextN: line, pos: offset}
}

// Items calls fn with each item of c, as Next would return them; the item
// is fn's only during the call. It only reads the reader, so many
// goroutines may split chunks at once.
func (rd *Reader) Items(c Chunk, fn func(*Item)) {
	b, l := c.Bytes, line{n: c.Line, off: c.Offset}
	var it Item
	for len(b) > 0 {
		raw := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			raw = b[:i+1]
		}
		b = b[len(raw):]
		l.nl = raw[len(raw)-1] == '\n'
		l.text = raw[:len(raw)-len("\n")]
		if !l.nl {
			l.text = raw
		}
		// As readLine measures a line: with its line ending.
		l.long = len(raw) > rd.max+1
		if l.long {
			l.text = nil
		}
		if lineItem(&it, l) {
			fn(&it)
		}
		l.n++
		l.off += int64(len(raw))
	}
}

// document returns the whole input, the head read while detecting and the
// rest, as one item.
func (rd *Reader) document() (*Item, error) {
	head := rd.doc
	rest, err := io.ReadAll(io.LimitReader(rd.br, int64(rd.max+1-len(head))))
	if err != nil {
		return nil, err
	}
	body := append(head, rest...)
	it := &rd.item
	if len(body) > rd.max {
		it.Long = true
		rd.state = stDocumentRest
		return it, nil
	}
	rd.state = stDone
	if !rd.har && isHAR(body) {
		return nil, harError // pretty-printed, as browsers write it
	}
	it.Body = body
	return it, nil
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

// startArray starts reading the array at the next byte after head.
func (rd *Reader) startArray(head []byte) {
	// The white space before it may end lines at LF, CRLF or CR.
	line, col := jsonlex.Position(head, len(head))
	s := &arrayScanner{r: rd.br, line: line, col: col}
	s.cr = len(head) > 0 && head[len(head)-1] == '\r'
	s.peek()
	s.next() // the '['
	rd.arr, rd.end = s, ','
}

// element returns the next element of the array. Elements are split on
// the array's own commas, so a broken element is one item and the next
// one is still read.
func (rd *Reader) element() (*Item, error) {
	s, it := rd.arr, &rd.item
	switch rd.end {
	case ']':
		rd.state = stTail
		return rd.Next()
	case 0:
		rd.state = stDone
		if s.err != nil {
			return nil, s.err
		}
		return s.problem(it, "the array is not closed (a missing ])"), nil
	}
	c, ok := s.skipSpace()
	if !ok {
		rd.state = stDone
		if s.err != nil {
			return nil, s.err
		}
		return s.problem(it, "the array is not closed (a missing ])"), nil
	}
	if c == ']' && rd.idx == 0 {
		s.next()
		rd.state = stTail
		return rd.Next()
	}
	it.Line, it.Column, it.Element = s.line, s.col, rd.idx
	rd.idx++
	elem, long, end, err := s.element(rd.max)
	if err != nil {
		if errors.Is(err, errRunsOn) {
			err = &FormatError{Msg: fmt.Sprintf("element %d runs on past %d MiB; the rest is not read", it.Element, (skipMax+1)*rd.max>>20)}
		}
		return nil, err
	}
	rd.end = end
	switch {
	case long:
		it.Long = true
	case len(elem) == 0:
		it.Problem = "an empty array element (a trailing comma?)"
	default:
		it.Body = elem
	}
	return it, nil
}

// arrayScanner reads an array byte by byte, keeping the position of the
// next byte (columns in characters, as findings count them).
type arrayScanner struct {
	r         *bufio.Reader
	c         byte
	have      bool
	line, col int
	cr        bool // the byte taken before was a CR
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
	// A line ends at LF, CRLF or a lone CR, as jsonlex.LineCounter
	// counts them for findings inside the element.
	cr := s.cr
	s.cr = s.c == '\r'
	switch {
	case s.c == '\n' && cr:
	case s.c == '\n' || s.c == '\r':
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
	for read := 0; ; read++ {
		if long && read > (skipMax+1)*max {
			return nil, true, 0, errRunsOn
		}
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

var errRunsOn = errors.New("runs on")

// problem makes it a fault of the array at the scanner's position.
func (s *arrayScanner) problem(it *Item, msg string) *Item {
	it.Problem, it.Line, it.Column, it.Element = msg, s.line, s.col, -1
	return it
}

// isHAR says whether doc, one JSON value, is a HAR file (a browser's
// export, or the inspector's): an object whose first member is "log", an
// object with an "entries" list, as every HAR writer puts it. A HAR is
// JSON, but neither payloads nor capture records: read as a payload it
// had envelope errors of fields it never meant to have, and replay
// pointed at send --file, which cannot send it either. Only as much of
// doc is read as leads to "entries".
func isHAR(doc []byte) bool {
	t := bytes.TrimLeft(doc, jsonSpace)
	if !bytes.HasPrefix(t, []byte("{")) || !bytes.HasPrefix(bytes.TrimLeft(t[1:], jsonSpace), []byte(`"log"`)) {
		return false // the common case, decided without a lexer
	}
	var lx jsonlex.Lexer
	lx.Reset(t)
	found := false
	_ = lx.Run(func() {
		if lx.Peek() != jsonlex.Object || !lx.Enter() || string(lx.KeyBytes(lx.Key(true))) != "log" {
			return
		}
		if lx.Peek() != jsonlex.Object || !lx.Enter() {
			return
		}
		for first := true; ; first = false {
			key := lx.Key(first)
			k := lx.Peek()
			if string(lx.KeyBytes(key)) == "entries" {
				found = k == jsonlex.Array
				return
			}
			lx.Skip(k)
			if !lx.More('}') {
				return
			}
		}
	})
	return found
}

// harError is the refusal of a HAR file by a reader that does not take
// one (Options.HAR).
var harError = &FormatError{Msg: "a HAR file, not payloads or capture records: of whsim's commands only anonymize reads HAR (replay and inspect read the NDJSON records listen --capture writes, which the inspector exports too)"}
