package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/report"
	"github.com/whsim/whsim/internal/validate"
)

// A checked payload and a validate run, as report cases and summary.

func (r *payloadResult) Verdict() report.Verdict {
	switch {
	case r.failed:
		return report.Fail
	case len(r.findings) > 0:
		return report.Warn
	}
	return report.Pass
}

// AppendText is one line per finding: where, severity, rule, path, message.
func (r *payloadResult) AppendText(b []byte, st *report.Style) []byte {
	for _, f := range r.findings {
		loc := r.file
		if r.element >= 0 {
			loc += "[" + strconv.Itoa(r.element) + "]"
		}
		switch {
		case r.line > 0:
			loc += ":" + strconv.Itoa(r.line)
		case f.Line > 0:
			loc += ":" + strconv.Itoa(f.Line)
		}
		sev := st.Warn
		if f.Severity == validate.Error {
			sev = st.Fail
		}
		path := f.Path
		if path == "" {
			path = "(body)"
		}
		b = append(b, loc+": "...)
		b = sev.Append(b, string(f.Severity))
		b = append(b, ' ')
		b = st.Dim.Append(b, f.Rule)
		b = append(b, ' ')
		b = st.Key.Append(b, path)
		b = append(b, ": "+f.Message+"\n"...)
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

func (r *payloadResult) AppendJSON(b []byte, _ *report.Style) []byte {
	if len(r.findings) == 0 {
		return b
	}
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	var elem *int
	if r.element >= 0 {
		elem = &r.element
	}
	for _, f := range r.findings {
		_ = enc.Encode(findingJSON{"finding", r.file, r.line, elem, f.Rule, string(f.Severity), f.Path, f.Message, f.Line, f.Column})
	}
	return buf.Bytes()
}

// JUnit is one test case per payload in one suite per file; a failure
// names its first error.
func (r *payloadResult) JUnit() report.TestCase {
	tc := report.TestCase{Suite: r.file, Name: r.file, Class: "whsim.validate"}
	if r.element >= 0 {
		tc.Name += "[" + strconv.Itoa(r.element) + "]"
	}
	if r.line > 0 {
		tc.Name += ":" + strconv.Itoa(r.line)
	}
	var sb strings.Builder
	for _, f := range r.findings {
		fmt.Fprintf(&sb, "%s %s %s: %s\n", f.Severity, f.Rule, f.Path, f.Message)
	}
	tc.Detail = sb.String()
	if r.failed {
		first := r.findings[0]
		for _, f := range r.findings {
			if f.Severity == validate.Error {
				first = f
				break
			}
		}
		tc.Failure, tc.FailureType = first.Rule+" "+first.Path+": "+first.Message, first.Rule
	}
	return tc
}

// validateSummary counts a validate run; it is the run's report summary.
type validateSummary struct {
	Payloads int `json:"payloads"`
	Failed   int `json:"failed"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
}

func (s validateSummary) Title() string { return "whsim validate" }

func (s validateSummary) AppendText(b []byte, st *report.Style) []byte {
	verdict := st.OK.Append(nil, "ok")
	if s.Failed > 0 {
		verdict = st.Fail.Append(nil, "FAIL")
	}
	return fmt.Appendf(b, "%s: %d %s checked, %d failed; %d %s, %d %s\n", verdict,
		s.Payloads, plural(s.Payloads, "payload", "payloads"), s.Failed,
		s.Errors, plural(s.Errors, "error", "errors"), s.Warnings, plural(s.Warnings, "warning", "warnings"))
}

func (s validateSummary) AppendJSON(b []byte) []byte {
	j, _ := json.Marshal(struct {
		Type string `json:"type"` // "summary"
		validateSummary
	}{"summary", s})
	return append(append(b, j...), '\n')
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
