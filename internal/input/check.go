package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/jsonerr"
)

// syntaxInBackground is the size from which Check reads an item's syntax
// on a goroutine of its own and gives up when the reader's context ends:
// encoding/json cannot be stopped, and a document of tens of MB takes it
// most of a second here, longer than Ctrl-C may wait.
const syntaxInBackground = 1 << 20

// SyntaxError is an item that is not JSON, or a fault of the array around
// the items, at a place in the whole input.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Check says why a command that needs JSON cannot use it: nil for an item
// that is one JSON value, a *TooLargeError for a long one, a *SyntaxError
// placed in the whole input for anything else, and the reader's context's
// error when it ends while a large item is checked.
func (rd *Reader) Check(it *Item) error {
	switch {
	case it.Long:
		return rd.TooLarge(it)
	case it.Problem != "":
		return &SyntaxError{Line: it.Line, Column: it.Column, Msg: it.Problem}
	}
	line, col, msg, ok, err := rd.syntax(it.Body)
	if err != nil {
		return err
	}
	if ok {
		return nil
	}
	switch {
	case it.Element >= 0: // the element starts at it.Line, it.Column
		if line == 1 {
			col += it.Column - 1
		}
		line += it.Line - 1
	case it.Line > 0: // one value a line
		line = it.Line
	}
	return &SyntaxError{Line: line, Column: col, Msg: "not JSON (" + msg + ")"}
}

// syntax is syntax(b), given up with the context's error when the
// context ends first (see syntaxInBackground).
func (rd *Reader) syntax(b []byte) (line, col int, msg string, ok bool, err error) {
	if len(b) < syntaxInBackground || rd.ctx.Done() == nil {
		line, col, msg, ok = syntax(b)
		return line, col, msg, ok, nil
	}
	if err := rd.ctx.Err(); err != nil {
		return 0, 0, "", false, err
	}
	type found struct {
		line, col int
		msg       string
		ok        bool
	}
	done := make(chan found, 1) // the goroutine never waits on a reader gone
	go func() {
		var f found
		f.line, f.col, f.msg, f.ok = syntax(b)
		done <- f
	}()
	select {
	case f := <-done:
		return f.line, f.col, f.msg, f.ok, nil
	case <-rd.ctx.Done():
		return 0, 0, "", false, rd.ctx.Err()
	}
}

// syntax finds the first JSON syntax error in b: its line and column
// (1-based, in characters) and what encoding/json says of it.
func syntax(b []byte) (line, col int, msg string, ok bool) {
	if json.Valid(b) {
		return 0, 0, "", true
	}
	// Found by whsim, not encoding/json, whose place and words for a
	// fault changed with Go 1.27 (json/v2 inside).
	pos, msg := len(b), "not one JSON value"
	if se := jsonerr.FirstSyntaxError(b); se != nil {
		pos = max(0, min(int(se.Offset)-1, len(b)))
		msg = sayByte(se, b)
	}
	line, start := 1, 0
	for i, c := range b[:pos] {
		if c == '\n' {
			line, start = line+1, i+1
		}
	}
	return line, 1 + utf8.RuneCount(b[start:pos]), msg, false
}

// sayByte is se's message, naming what b holds where it stopped.
// encoding/json names the one byte it stopped at as if it were a Latin-1
// character, so a byte-order mark read 'ï', a curly quote 'â' and a byte
// that is no UTF-8 'ÿ': characters nobody finds in the file.
func sayByte(se *jsonerr.SyntaxError, b []byte) string {
	pos := int(se.Offset) - 1
	if !se.AtByte || se.Byte < utf8.RuneSelf || pos < 0 || pos >= len(b) {
		return se.Msg
	}
	if pos == 0 && bytes.HasPrefix(b, []byte("\ufeff")) {
		return "a byte-order mark (U+FEFF) before the value: save the file as UTF-8 without BOM"
	}
	r, n := utf8.DecodeRune(b[pos:])
	if r == utf8.RuneError && n == 1 {
		return fmt.Sprintf("invalid UTF-8 byte 0x%02x %s", se.Byte, se.Context)
	}
	q := strconv.Quote(string(r)) // escaped when not printable: a bidi mark, a C1 control
	return "invalid character '" + q[1:len(q)-1] + "' " + se.Context
}

// At is msg at a place in the input name, as compilers and go vet write
// it, and every command of whsim that reads a file back says it:
// name:line:column: msg, name:line: msg when no column is known (0),
// name: msg when no line is.
func At(name string, line, column int, msg string) string {
	switch {
	case line > 0 && column > 0:
		return name + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(column) + ": " + msg
	case line > 0:
		return name + ":" + strconv.Itoa(line) + ": " + msg
	}
	return name + ": " + msg
}

// ColumnAt is the column of the byte at offset (1 for the first) of line,
// counted in characters as validate counts its columns (an invalid byte
// is one): what encoding/json places by bytes, said as an editor and the
// other commands say it. An offset past the line is one past its end.
func ColumnAt(line []byte, offset int) int {
	if offset < 1 {
		return 1
	}
	return utf8.RuneCount(line[:min(offset-1, len(line))]) + 1
}

// namedError is an error of the input Name. A *SyntaxError's place, a
// placed *FormatError's and an NDJSON line's *TooLargeError's are
// written name:line:column (At).
type namedError struct {
	Name string
	Err  error
}

func (e *namedError) Error() string {
	if se, ok := errors.AsType[*SyntaxError](e.Err); ok {
		return At(e.Name, se.Line, se.Column, se.Msg)
	}
	if fe, ok := errors.AsType[*FormatError](e.Err); ok && fe.Line > 0 {
		return At(e.Name, fe.Line, fe.Column, fe.Msg)
	}
	if tl, ok := errors.AsType[*TooLargeError](e.Err); ok && tl.Line > 0 {
		return At(e.Name, tl.Line, 0, fmt.Sprintf("the line is larger than %d MiB", tl.Max>>20))
	}
	return e.Name + ": " + e.Err.Error()
}

func (e *namedError) Unwrap() error { return e.Err }

// Named is err as an error of the input name.
func Named(name string, err error) error { return &namedError{Name: name, Err: err} }
