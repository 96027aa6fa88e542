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

// AppendText is one line per finding: where, severity, rule, path, message.
func (r Payload) AppendText(b []byte, st *term.Style) []byte {
	for _, f := range r.Findings {
		loc := r.File
		if r.Element >= 0 {
			loc += "[" + strconv.Itoa(r.Element) + "]"
		}
		switch {
		case r.Line > 0:
			loc += ":" + strconv.Itoa(r.Line)
		case f.Line > 0:
			loc += ":" + strconv.Itoa(f.Line)
		}
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
		b = append(b, ": "+termsafe.Text(f.Message)+"\n"...)
	}
	return b
}

// findingJSON is the stable --output json form of a finding: one object
// per line, then a summary object.
type findingJSON struct {
	Type     string `json:"type"` // "finding"
	File     string `json:"file"`
	Record   int    `json:"record,omitempty"`  // NDJSON line of the payload
	Element  *int   `json:"element,omitempty"` // index of the payload in a JSON array
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Path     string `json:"path"`
	Message  string `json:"message"`
	Line     int    `json:"line,omitempty"` // position in the body
	Column   int    `json:"column,omitempty"`
}

func (r Payload) AppendJSON(b []byte, _ *term.Style) []byte {
	if len(r.Findings) == 0 {
		return b
	}
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	var elem *int
	if r.Element >= 0 {
		elem = &r.Element
	}
	for _, f := range r.Findings {
		_ = enc.Encode(findingJSON{"finding", r.File, r.Line, elem, f.Rule, string(f.Severity), f.Path, f.Message, f.Line, f.Column})
	}
	return buf.Bytes()
}

// JUnit is one test case per payload in one suite per file; a failure
// names its first error; a line not checked (torn) is skipped.
func (r Payload) JUnit() term.TestCase {
	tc := term.TestCase{Suite: r.File, Name: r.File, Class: "whsim.validate"}
	if r.Element >= 0 {
		tc.Name += "[" + strconv.Itoa(r.Element) + "]"
	}
	if r.Line > 0 {
		tc.Name += ":" + strconv.Itoa(r.Line)
	}
	var sb strings.Builder
	for _, f := range r.Findings {
		fmt.Fprintf(&sb, "%s %s %s: %s\n", f.Severity, f.Rule, f.Path, f.Message)
	}
	tc.Detail = sb.String()
	if validate.Case(r).Skipped() && len(r.Findings) > 0 {
		// Not checked (a torn record): skipped, as the text says, not
		// a test case passed.
		tc.Skipped = r.Findings[0].Message
	}
	if r.Failed {
		first := r.Findings[0]
		for _, f := range r.Findings {
			if f.Severity == validate.Error {
				first = f
				break
			}
		}
		tc.Failure, tc.FailureType = first.Rule+" "+first.Path+": "+first.Message, first.Rule
	}
	return tc
}

// ValidateSummary is a validate run's counts as its report summary.
type ValidateSummary struct {
	validate.Summary
	// Interrupted: Ctrl-C or SIGTERM ended the run before every input was
	// read: the counts are of the payloads checked by then, and no pass.
	Interrupted bool
	// Error, when set, is why an input could not be read (exit 2): the
	// counts are of the payloads checked by then, and no pass; or "no
	// payloads", the inputs held none (exit 1).
	Error string
}

// Title, AppendText and AppendJSON make a ValidateSummary the run's report summary.
func (s ValidateSummary) Title() string { return "whsim validate" }

func (s ValidateSummary) AppendText(b []byte, st *term.Style) []byte {
	verdict := st.OK.Append(nil, "ok")
	switch {
	case s.Interrupted: // no verdict either way, whatever was found
		verdict = st.Warn.Append(nil, "interrupted")
	case s.Error != "": // the error itself is said on stderr
		verdict = st.Warn.Append(nil, "incomplete")
	case s.Failed > 0:
		verdict = st.Fail.Append(nil, "FAIL")
	}
	return fmt.Appendf(b, "%s: %d %s checked, %d failed; %d %s, %d %s\n", verdict,
		s.Payloads, term.Plural(s.Payloads, "payload", "payloads"), s.Failed,
		s.Errors, term.Plural(s.Errors, "error", "errors"), s.Warnings, term.Plural(s.Warnings, "warning", "warnings"))
}

func (s ValidateSummary) AppendJSON(b []byte) []byte {
	j, _ := json.Marshal(struct {
		Type string `json:"type"` // "summary"
		validate.Summary
		Interrupted bool   `json:"interrupted,omitempty"`
		Error       string `json:"error,omitempty"`
	}{"summary", s.Summary, s.Interrupted, s.Error})
	return append(append(b, j...), '\n')
}
