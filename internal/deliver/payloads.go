package deliver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/whsim/whsim/internal/spec"
)

// SplitPayloads returns the payloads of a file send delivers: one per
// non-blank line of NDJSON (a first line that is a whole JSON value, with
// more after it), else the body itself. Each is returned with its line, 0 for a
// whole body.
func SplitPayloads(body []byte) (bodies [][]byte, lines []int) {
	first, rest, _ := bytes.Cut(body, []byte("\n"))
	if !json.Valid(first) || len(bytes.TrimSpace(rest)) == 0 {
		return [][]byte{body}, []int{0}
	}
	for i, line := range bytes.Split(body, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) > 0 {
			bodies = append(bodies, line)
			lines = append(lines, i+1)
		}
	}
	return bodies, lines
}

// PayloadError says which payload of a file an error is about.
type PayloadError struct {
	Line int // its line in an NDJSON file; 0 for a whole body
	Err  error
}

func (e *PayloadError) Error() string { return e.Err.Error() }
func (e *PayloadError) Unwrap() error { return e.Err }

// Explain says the error of a payload of file name, where it is and what
// to do: name the event with --event.
func (e *PayloadError) Explain(name string) string {
	where := name
	if e.Line > 0 {
		where = fmt.Sprintf("%s: line %d", name, e.Line)
	}
	var amb *AmbiguousEventError
	if errors.As(e.Err, &amb) {
		return fmt.Sprintf("%s: %v; say which with --event", where, e.Err)
	}
	return fmt.Sprintf("%s: %v; give --event", where, e.Err)
}

// FileLanes is a lane per payload of a file sent byte for byte
// (SplitPayloads): one template per event of events, or when events is nil
// of the event the payload's businessType number names (EventOf). A payload
// whose event cannot be told is a *PayloadError.
func FileLanes(body []byte, events []spec.Event, header http.Header) ([][][]Template, error) {
	var lanes [][][]Template
	bodies, lines := SplitPayloads(body)
	for i, b := range bodies {
		evs := events
		if evs == nil {
			e, err := EventOf(b)
			if err != nil {
				return nil, &PayloadError{Line: lines[i], Err: err}
			}
			evs = []spec.Event{e}
		}
		for _, e := range evs {
			lanes = append(lanes, [][]Template{{NewTemplate(e.Name, header, b, false)}})
		}
	}
	return lanes, nil
}
