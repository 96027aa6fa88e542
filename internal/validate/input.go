package validate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/ctxio"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/spec"
)

// source says how to read one input.
type source struct {
	// name is what findings call the input; a name ending in .ndjson or
	// .jsonl makes it NDJSON whatever its first line holds.
	name string
	// event is the query event plain payloads were sent with; "" lets the
	// body number decide.
	event string
	// maxPayload, when above 0, replaces input.Max: the largest payload,
	// NDJSON line or array element an input may hold (a larger one is
	// reported and skipped, never held in memory).
	maxPayload int
	// batching, when not nil, replaces defaultBatching.
	batching *batching
}

// result is one checked payload of an input.
type result struct {
	// Line is the payload's line in an NDJSON input, 0 otherwise.
	Line int
	// Element is the payload's index in an input holding a JSON array, -1
	// otherwise. Findings then carry their line in the whole input.
	Element  int
	Findings []Finding
	Failed   bool
	// notChecked, when not "", is why no rule could look at the payload
	// (its body is not there, cannot be read, or is not JSON with
	// json-syntax ignored): it is counted apart, never as passed.
	notChecked string
	// notCheckedAt is where notChecked's reason is in the body (line 0:
	// the payload as a whole), as a Finding's Line and Column are:
	// Case.NotCheckedAt places it in the input.
	notCheckedAt place
	// skipped says the line was not checked as a payload: a torn last
	// capture line, which only warns, even under Strict.
	skipped bool
	// capture says the payload was a capture record, otherEvent that its
	// query names an event other than the run's (--event), which it was
	// checked as.
	capture, otherEvent bool
}

// Summary counts a validation run.
type Summary struct {
	// Payloads counts the payloads checked; NotChecked those no rule
	// could look at (their findings, if any, still count in Failed,
	// Errors and Warnings). A skipped torn line is neither.
	Payloads int `json:"payloads"`
	Failed   int `json:"failed"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// NotChecked is written only when not 0: a run where every payload
	// was checked reads as it always has.
	NotChecked int `json:"notChecked,omitempty"`
	// Array names the first input that held a JSON array, read as a list
	// of payloads (a webhook body is one object, never an array); "" none.
	Array string `json:"-"`
	// Captures counts the capture records checked, and OtherEvent those
	// whose query names an event other than the run's (--event): a
	// record is checked as the event it was delivered with.
	Captures, OtherEvent int `json:"-"`
}

// add counts one result.
func (s *Summary) add(r *result) {
	switch {
	case r.skipped:
	case r.notChecked != "":
		s.NotChecked++
	default:
		s.Payloads++
	}
	if r.Failed {
		s.Failed++
	}
	if r.capture {
		s.Captures++
	}
	if r.otherEvent {
		s.OtherEvent++
	}
	for _, f := range r.Findings {
		if f.Severity == Error {
			s.Errors++
		} else {
			s.Warnings++
		}
	}
}

// checkInput reads the payloads of one input (input.Reader: a document,
// an array, NDJSON or capture records) and calls fn with each one's
// result, in input order. It streams: memory is bounded by the largest
// payload, whatever the input's size. kind is what the input held. An
// error is an input that cannot be read (or cancellation), never a
// finding.
func (v *Validator) checkInput(ctx context.Context, r io.Reader, in source, fn func(*result) error) (input.Kind, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	size, regular := regularFile(r)
	ra, raSize := offsets(r, size, regular)
	if !regular {
		// A read of a terminal or a pipe may block for ever: it must give
		// way to ctx. A regular file's reads end; input.Reader checks ctx
		// between them, and the wrapper's goroutine and copy per read are
		// spared.
		r = ctxio.NewReader(ctx, r)
	}
	// The read buffer serves the kind's detection, lines longer than a
	// batch and arrays: NDJSON and capture lines are read straight into
	// the batches (input.Reader.ReadChunk). 64 KiB then, and no more than
	// a small file's size: every fresh page is a page fault (each 1 MiB
	// some 256, 3 ms of CPU here), and a short run sets off no GC cycle.
	rd := input.NewReader(ctx, r, input.Options{Name: in.name, Max: in.maxPayload, Buffer: fitted(size, 64<<10)})
	kind, err := rd.Kind()
	if err != nil {
		return kind, err
	}
	if bt := batchingOf(in, kind); bt.workers > 1 {
		if size > 0 {
			bt.bytes = fitted(size, bt.bytes)
		}
		if ra == nil || bt.stream || kind != input.NDJSON && kind != input.Captures {
			return kind, v.checkParallel(ctx, cancel, rd, kind, in, bt, fn)
		}
		// The lines read while detecting the kind, then the rest in
		// ranges (checkRanges), each worker reading its own.
		if end, err := v.checkItems(rd, kind, in, fn, rd.Chunked); end || err != nil {
			return kind, err
		}
		line, off := rd.At()
		return kind, v.checkRanges(ctx, cancel, rd, ra, raSize, line, off, kind, in, bt, fn)
	}
	_, err = v.checkItems(rd, kind, in, fn, func() bool { return false })
	return kind, err
}

// checkItems checks the items of rd one by one, until the input ends (end)
// or fails, or until is true before an item.
func (v *Validator) checkItems(rd *input.Reader, kind input.Kind, in source, fn func(*result) error, until func() bool) (end bool, err error) {
	// One result serves every payload: fn is done with it when it returns
	// (see CheckFiles), and a fresh one each was a page fault every 56
	// payloads.
	res := new(result)
	for !until() {
		it, err := rd.Next()
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return true, err
		}
		*res = result{}
		if it.Long {
			v.judgeLong(rd, kind, it, res)
		} else {
			v.judge(kind, it, in.event, res)
		}
		if err := fn(res); err != nil {
			return true, err
		}
	}
	return false, nil
}

// offsets is r as an input read at offsets (checkRanges) from where its
// reading starts, and the bytes it has from there: an open regular file,
// whose size is size, or bytes in memory. Nil for anything else: a pipe,
// a terminal, stdin that is not a regular file (fileStdin), whose reads
// cannot be repeated.
func offsets(r io.Reader, size int64, regular bool) (io.ReaderAt, int64) {
	var ra io.ReaderAt
	switch x := r.(type) {
	case *os.File:
		if !regular {
			return nil, 0
		}
		ra = x
	case readerAtSize:
		ra, size = x, x.Size()
	default:
		return nil, 0
	}
	sk, ok := r.(io.Seeker)
	if !ok {
		return nil, 0
	}
	at, err := sk.Seek(0, io.SeekCurrent)
	if err != nil || at > size {
		return nil, 0
	}
	// Unbounded: a file that grows while read is read on (checkRest).
	return io.NewSectionReader(ra, at, math.MaxInt64-at), size - at
}

// regularFile says r is an open regular file, and its size.
func regularFile(r io.Reader) (int64, bool) {
	f, ok := r.(*os.File)
	if !ok {
		return 0, false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	return fi.Size(), true
}

// fitted is a buffer of up to limit bytes for a file of size bytes (0
// when not known): one byte more than the file, so that one read finds
// its end, but never below 64 KiB, for a file that grows while read (a
// capture listen writes).
func fitted(size int64, limit int) int {
	if size <= 0 || size >= int64(limit) {
		return limit
	}
	return max(int(size)+1, min(64<<10, limit))
}

// judgeLong reports an item too large to check into r.
func (v *Validator) judgeLong(rd *input.Reader, kind input.Kind, it *input.Item, r *result) {
	r.Line, r.Element = it.Line, it.Element
	r.Findings, r.notChecked = v.tooLarge(rd, it)
	switch kind {
	case input.Document:
		r.Line = 0
	case input.Array:
		r.Line = 0
		for i := range r.Findings {
			shift(&r.Findings[i], it.Line, it.Column)
		}
	}
	r.Failed = v.Failed(r.Findings)
}

// judge checks one item of an input of kind (not a Long one: see
// tooLarge) into r.
func (v *Validator) judge(kind input.Kind, it *input.Item, event string, r *result) {
	r.Line, r.Element = it.Line, it.Element
	switch {
	case kind == input.Document:
		r.Line = 0
		var bad syntaxAt
		r.Findings, bad = v.checkBody(it.Body, event, false)
		r.notChecked, r.notCheckedAt = bad.reason(), bad.at
	case kind == input.Array:
		r.Line = 0
		if it.Problem != "" {
			r.Findings = v.single(ruleSyntax, it.Problem)
			if r.Findings == nil {
				r.notChecked = notJSON("the element", it.Problem)
				r.notCheckedAt = place{it.Line, it.Column}
			}
		} else {
			r.Findings, r.notChecked, r.notCheckedAt, _ = v.check(it.Body, event)
			if r.notCheckedAt.line > 0 {
				r.notCheckedAt = r.notCheckedAt.shift(it.Line, it.Column)
			}
		}
		for i := range r.Findings {
			shift(&r.Findings[i], it.Line, it.Column)
		}
	case it.Torn:
		r.skipped = true
		r.Findings = v.single(ruleTorn, input.TornLine(false)+"; skipped")
	default:
		var torn bool
		if r.Findings, r.notChecked, r.notCheckedAt, torn = v.check(it.Body, event); torn {
			// A restarted listen ended the torn line and wrote on.
			r.skipped = true
			r.Findings = v.single(ruleTorn, input.TornLine(true)+"; skipped")
		}
	}
	r.Failed = !r.skipped && v.Failed(r.Findings)
	if kind != input.Document && !r.skipped && isCapture(it.Body) {
		r.capture = true
		if event != "" {
			q, ok := capturedEvent(it.Body)
			r.otherEvent = ok && q != event
		}
	}
}

// capturedEvent is the event the query of the capture record line names;
// false when the record, its query or the event cannot be read (which its
// findings say).
func capturedEvent(line []byte) (string, bool) {
	rec, err := capture.Decode(line)
	if err != nil || rec.Rejected != nil {
		return "", false
	}
	query := rec.Query
	if rec.QueryEncoding != "" {
		q, err := capture.DecodeBody(rec.Query, rec.QueryEncoding)
		if err != nil {
			return "", false
		}
		query = string(q)
	}
	event, ok := spec.QueryEvent(query)
	return event, ok && event != ""
}

// check judges one payload or capture record; torn says it is a capture
// record cut short, notChecked why no rule could look at it (see
// checkCapture), and at where in body that is when it is one place (line
// 0: the payload as a whole, or a capture record's body, whose places
// are not the line's).
func (v *Validator) check(body []byte, event string) (fs []Finding, notChecked string, at place, torn bool) {
	if isCapture(body) {
		fs, notChecked, torn = v.checkCapture(body)
		return fs, notChecked, place{}, torn
	}
	fs, bad := v.checkBody(body, event, false)
	return fs, bad.reason(), bad.at, false
}

// place is a line and column (0: not known) in a body or an input, as
// editors count them.
type place struct{ line, column int }

// shift is p, a place in an element of an array, as a place in the whole
// input: the element started at line, col.
func (p place) shift(line, col int) place {
	if p.line == 1 {
		p.column += col - 1
	}
	p.line += line - 1
	return p
}

// syntaxAt is where a body stops being JSON and what is wrong there (at
// line 0: nothing, it was read).
type syntaxAt struct {
	at  place
	msg string
}

// notJSON is why what is not checked when it is not JSON (msg says
// how) and json-syntax, which would say so, is ignored.
func notJSON(what, msg string) string {
	return what + " is not JSON (" + msg + ") and " + ruleSyntax + " is ignored"
}

// reason is the not-checked reason of a body that is not JSON, "" for
// one that is: without its place, which the line placing the payload
// says (Case.NotCheckedAt).
func (s syntaxAt) reason() string {
	if s.at.line == 0 {
		return ""
	}
	return notJSON("the body", s.msg)
}

// inBody is reason for a capture record's body, whose lines are not the
// input's: its place in the body is said in it.
func (s syntaxAt) inBody() string {
	if s.at.line == 0 {
		return ""
	}
	return notJSON("the body", fmt.Sprintf("at its line %d, column %d: %s", s.at.line, s.at.column, s.msg))
}

// tooLarge is the finding of an item too large to check, and why it was
// not checked (said also when payload-size is ignored).
func (v *Validator) tooLarge(rd *input.Reader, it *input.Item) ([]Finding, string) {
	var tl *input.TooLargeError
	errors.As(rd.TooLarge(it), &tl)
	why := tl.Error() + "; not checked"
	if tl.Line > 0 {
		// The finding is placed at that line: "the line", as every
		// command that reads a file back says it there.
		why = fmt.Sprintf("the line is larger than %d MiB; not checked", tl.Max>>20)
	}
	return v.single(rulePayloadSize, why), why
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
	if f.Rule == ruleSyntax {
		// The message leads with the position (see checker.finish).
		if _, msg, ok := strings.Cut(f.Message, ": "); ok && strings.HasPrefix(f.Message, "line ") {
			f.Message = fmt.Sprintf("line %d, column %d: %s", f.Line, f.Column, msg)
		}
	}
}
