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
