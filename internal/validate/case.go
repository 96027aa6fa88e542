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
