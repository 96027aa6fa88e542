// Package validateout renders whsim validate's payloads and summary
// through term's text, JSON and JUnit outputs. It sits beside the command,
// so that term, the format layer, imports no validate.
package validateout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/jsonstr"
	"github.com/whsim/whsim/internal/term"
	"github.com/whsim/whsim/internal/termsafe"
	"github.com/whsim/whsim/internal/validate"
)

// Payload is a checked payload (validate's case) as a report case.
type Payload validate.Case

func (r Payload) Verdict() term.Verdict {
	switch {
	case r.Failed:
		return term.Fail
	case len(r.Findings) > 0:
		return term.Warn
	}
	return term.Pass
}

// placed is a place in the payload's file as compilers and go vet say it,
// and every command that reads a file back: file:line:column, file:line
// without a column, file alone without a line. Editors, problem matchers
// and annotations read a line's place so, and nothing between file and
// line: an array's element is said after the message (elementNote).
// --output json's "at" is the same.
func (r Payload) placed(line, col int) string {
	switch {
	case line > 0 && col > 0:
		return r.File + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
	case line > 0:
		return r.File + ":" + strconv.Itoa(line)
	}
	return r.File
}

// elementNote is what a text line says after its message of an array's
// element: which one, "" for a payload that is none.
func (r Payload) elementNote() string {
	if r.Element < 0 {
		return ""
	}
	return " (element " + strconv.Itoa(r.Element) + ")"
}

// message is f's message as a text line says it after its place: a
// json-syntax message leads with its line and column, which the place
// says already, or, in a capture record's body, names as the body's.
func (r Payload) message(f validate.Finding) string {
	prefix := "line " + strconv.Itoa(f.Line) + ", column " + strconv.Itoa(f.Column) + ": "
	rest, ok := strings.CutPrefix(f.Message, prefix)
	switch {
	case !ok || f.Line == 0:
		return f.Message
	case validate.Case(r).InBody(f):
		return "the body's " + f.Message
	}
	return rest
}

// silentlyUnchecked says the payload was not checked and no finding says
// so (its rule is ignored): a line of its own says it then, or the run's
// "not checked" count would name no payload.
func (r Payload) silentlyUnchecked() bool {
	return validate.Case(r).NotChecked() != "" && len(r.Findings) == 0
}

// AppendText is one line per finding: where, severity, rule, path,
// message; a payload not checked that no finding tells of, one line
// saying so and why.
func (r Payload) AppendText(b []byte, st *term.Style) []byte {
	if r.silentlyUnchecked() {
		b = append(b, termsafe.Text(r.placed(validate.Case(r).NotCheckedAt()))+": "...)
		b = st.Warn.Append(b, "not checked")
		return append(b, ": "+termsafe.Text(validate.Case(r).NotChecked()+r.elementNote())+"\n"...)
	}
	for _, f := range r.Findings {
		loc := r.placed(validate.Case(r).Place(f))
		sev := st.Warn
		if f.Severity == validate.Error {
			sev = st.Fail
		}
		path := f.Where()
		// A file name, a key of the payload or a value quoted in a message
		// can hold ESC, bidi or newline bytes: they reach a terminal escaped.
		b = append(b, termsafe.Text(loc)+": "...)
		b = sev.Append(b, string(f.Severity))
		b = append(b, ' ')
		b = st.Dim.Append(b, f.Rule)
		b = append(b, ' ')
		b = st.Key.Append(b, termsafe.Text(path))
		b = append(b, ": "+termsafe.Text(r.message(f)+r.elementNote())+"\n"...)
	}
	return b
}

// findingJSON is the stable --output json form of a finding: one object
// per line, then a summary object.
type findingJSON struct {
	Type string `json:"type"` // "finding"
	// File is the file's name, or, for a name that is not UTF-8, its
	// bytes in base64 with FileEncoding "base64" (see fileJSON).
	File         string `json:"file"`
	FileEncoding string `json:"fileEncoding,omitempty"`
	Record       int    `json:"record,omitempty"`  // NDJSON line of the payload
	Element      *int   `json:"element,omitempty"` // index of the payload in a JSON array
	Rule         string `json:"rule"`
	Severity     string `json:"severity"`
	Path         string `json:"path"`
	Message      string `json:"message"`
	Line         int    `json:"line,omitempty"` // position in the body
	Column       int    `json:"column,omitempty"`
	// At is where the finding is in the file, as the text and compilers
	// say it: file:line:column, file:line, or file.
	At string `json:"at"`
}

// notCheckedJSON is the --output json line of a payload not checked that
// no finding tells of (its rule ignored): which, and why.
type notCheckedJSON struct {
	Type         string `json:"type"` // "notChecked"
	File         string `json:"file"`
	FileEncoding string `json:"fileEncoding,omitempty"`
	Record       int    `json:"record,omitempty"`
	Element      *int   `json:"element,omitempty"`
	Reason       string `json:"reason"`
	// At is where the reason is in the file, as a finding's at.
	At string `json:"at"`
}

// fileJSON is a file name as --output json gives it: the name itself when
// it is UTF-8; else its bytes in base64 and the encoding "base64", as a
// capture record gives a path that is not (pathEncoding). A JSON string
// holds only Unicode: encoding/json writes U+FFFD for each byte that is
// not UTF-8, and that names no file a reader could open.
func fileJSON(name string) (file, encoding string) { return jsonstr.Exact(name) }

// atJSON is a place as --output json's "at" gives it: as the text says
// it, a byte of the name that is not UTF-8 as its escape (\xff), where
// encoding/json would write U+FFFD; the name's exact bytes are in "file".
func atJSON(at string) string { return jsonstr.ByteEscaped(at) }

func (r Payload) AppendJSON(b []byte, _ *term.Style) []byte {
	var elem *int
	if r.Element >= 0 {
		elem = &r.Element
	}
	file, enc := fileJSON(r.File)
	if r.silentlyUnchecked() {
		j, _ := json.Marshal(notCheckedJSON{"notChecked", file, enc, r.Line, elem, validate.Case(r).NotChecked(), atJSON(r.placed(validate.Case(r).NotCheckedAt()))})
		return append(append(b, j...), '\n')
	}
	if len(r.Findings) == 0 {
		return b
	}
	buf := bytes.NewBuffer(b)
	je := json.NewEncoder(buf)
	je.SetEscapeHTML(false)
	for _, f := range r.Findings {
		_ = je.Encode(findingJSON{"finding", file, enc, r.Line, elem, f.Rule, string(f.Severity), f.Path, f.Message, f.Line, f.Column, atJSON(r.placed(validate.Case(r).Place(f)))})
	}
	return buf.Bytes()
}

// JUnit is one test case per payload in one suite per file; a failure
// names its first error; a payload not checked (a torn line, a record
// with no body, a body no rule could read) that did not fail is skipped.
func (r Payload) JUnit() term.TestCase {
	tc := term.TestCase{Suite: r.File, Name: r.File, Class: "whsim.validate"}
	if r.Element >= 0 {
		tc.Name += "[" + strconv.Itoa(r.Element) + "]"
	}
	if r.Line > 0 {
		tc.Name += ":" + strconv.Itoa(r.Line)
	}
	// Each finding as the text's line says it, its place first
	// (file:line:column: what): the case's name holds no column, and a
	// JUnit reader, a job summary or an editor finds the finding there.
	var sb strings.Builder
	for _, f := range r.Findings {
		sb.WriteString(r.findingLine(f) + "\n")
	}
	tc.Detail = sb.String()
	if validate.Case(r).Skipped() && len(r.Findings) > 0 {
		// Not checked (a torn record): skipped, as the text says, not
		// a test case passed.
		tc.Skipped = r.Findings[0].Message
	}
	if why := validate.Case(r).NotChecked(); why != "" {
		// Skipped even when the finding that says why is ignored: a
		// case with nothing checked is no pass.
		tc.Skipped = "not checked: " + why
		if line, col := validate.Case(r).NotCheckedAt(); col > 0 {
			// The reason leaves its place to the line that leads with it:
			// said here, where the case's name holds no column.
			tc.Skipped += " (at " + r.placed(line, col) + ")"
		}
	}
	if r.Failed {
		first := r.Findings[0]
		for _, f := range r.Findings {
			if f.Severity == validate.Error {
				first = f
				break
			}
		}
		tc.Failure, tc.FailureType = r.findingLine(first), first.Rule
	}
	return tc
}

// findingLine is f as the text's line says it, without colour: place,
// severity, rule, path, message and the array's element.
func (r Payload) findingLine(f validate.Finding) string {
	return r.placed(validate.Case(r).Place(f)) + ": " + string(f.Severity) + " " + f.Rule + " " + f.Where() + ": " + r.message(f) + r.elementNote()
}

// ValidateSummary is a validate run's counts as its report summary.
type ValidateSummary struct {
	validate.Summary
	// Interrupted: Ctrl-C or SIGTERM ended the run before every input was
	// read: the counts are of the payloads checked by then, and no pass.
	Interrupted bool
	// Error, when set, is why an input could not be read (exit 2): the
	// counts are of the payloads checked by then, and no pass; or "no
	// payloads", the inputs held none (exit 1); or NothingChecked, every
	// payload was one no rule could look at (exit 1).
	Error string
}

// NothingChecked is ValidateSummary.Error for a run whose payloads were
// all not checked: no finding failed them, and none passed.
const NothingChecked = "nothing checked"

// Title, AppendText and AppendJSON make a ValidateSummary the run's report summary.
func (s ValidateSummary) Title() string { return "whsim validate" }

func (s ValidateSummary) AppendText(b []byte, st *term.Style) []byte {
	verdict := st.OK.Append(nil, "ok")
	switch {
	case s.Interrupted: // no verdict either way, whatever was found
		verdict = st.Warn.Append(nil, "interrupted")
	case s.Error == NothingChecked: // not "ok": nothing passed
		verdict = st.Fail.Append(nil, "NOT CHECKED")
	case s.Error != "": // the error itself is said on stderr
		verdict = st.Warn.Append(nil, "incomplete")
	case s.Failed > 0:
		verdict = st.Fail.Append(nil, "FAIL")
	}
	b = fmt.Appendf(b, "%s: %d %s checked, ", verdict, s.Payloads, term.Plural(s.Payloads, "payload", "payloads"))
	if s.NotChecked > 0 {
		// Counted apart, never among the payloads checked: said only
		// when there are some, so a run that checked all reads as ever.
		b = fmt.Appendf(b, "%d not checked, ", s.NotChecked)
	}
	return fmt.Appendf(b, "%d failed; %d %s, %d %s\n", s.Failed,
		s.Errors, term.Plural(s.Errors, "error", "errors"), s.Warnings, term.Plural(s.Warnings, "warning", "warnings"))
}

func (s ValidateSummary) AppendJSON(b []byte) []byte {
	j, _ := json.Marshal(struct {
		Type string `json:"type"` // "summary"
		validate.Summary
		Interrupted bool   `json:"interrupted,omitempty"`
		Error       string `json:"error,omitempty"`
	}{"summary", s.Summary, s.Interrupted, jsonstr.ByteEscaped(s.Error)}) // a name in it as the text says it
	return append(append(b, j...), '\n')
}
