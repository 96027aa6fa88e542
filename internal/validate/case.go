package validate

// Case is a checked payload as a report case: its result and the input it
// came from, as messages name it. Package term renders it.
type Case struct {
	File string
	*result
}
