package validate

// Case is a checked payload as a report case: its result and the input it
// came from, as messages name it. Package term renders it.
type Case struct {
	File string
	*result
}

// Skipped says the payload was not checked: a capture record cut short
// (torn-line), which its finding says, and which only warns.
func (c Case) Skipped() bool { return c.skipped }

// NotChecked is why no rule could look at the payload, "" when one did:
// counted apart (Summary.NotChecked), never as passed, whether or not the
// finding that says so is ignored.
func (c Case) NotChecked() string { return c.notChecked }

// Place is where finding f is in the input, line and column as editors
// and compilers count them (0: not known): the finding's own for a
// document or an array's element, whose positions are the input's; the
// payload's line for NDJSON, with the finding's column in it. A capture
// record's findings are placed at the record's line alone (their
// positions are in its body, which the line holds escaped), but for a
// line that is not JSON, which has a column in the line.
func (c Case) Place(f Finding) (line, column int) {
	switch {
	case c.Line > 0 && c.capture && f.Rule != ruleCapture:
		return c.Line, 0
	case c.Line > 0 && f.Line == 1:
		return c.Line, f.Column
	case c.Line > 0:
		return c.Line, 0
	}
	return f.Line, f.Column
}

// InBody says f's Line and Column are positions in a body other than the
// input's lines: a capture record's body.
func (c Case) InBody(f Finding) bool {
	return c.capture && f.Rule != ruleCapture && f.Line > 0
}

// NotCheckedAt is where NotChecked's reason is in the input, as Place
// places a finding (0: not known): where a body stops being JSON, or an
// array's element that is not one, when json-syntax is ignored.
func (c Case) NotCheckedAt() (line, column int) {
	at := c.notCheckedAt
	switch {
	case c.Line > 0 && at.line == 1:
		return c.Line, at.column
	case c.Line > 0:
		return c.Line, 0
	}
	return at.line, at.column
}
