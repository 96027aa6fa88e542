package load

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/spec"
)

// Payload is one body of a file send delivers byte for byte, as
// input.Reader split it.
type Payload struct {
	Body []byte
	// Where names it in its file: "line 3", "element 2"; "" for a whole
	// document.
	Where string
}

// PayloadError says which payload of a file an error is about.
type PayloadError struct {
	Where string // Payload.Where
	Err   error
}

func (e *PayloadError) Error() string { return e.Err.Error() }
func (e *PayloadError) Unwrap() error { return e.Err }

// Explain says the error of a payload of file name, where it is and what
// to do: name the event with --event.
func (e *PayloadError) Explain(name string) string {
	where := name
	if e.Where != "" {
		where = fmt.Sprintf("%s: %s", name, e.Where)
	}
	var amb *ambiguousEventError
	if errors.As(e.Err, &amb) {
		return fmt.Sprintf("%s: %v; say which with --event", where, e.Err)
	}
	return fmt.Sprintf("%s: %v; give --event", where, e.Err)
}

// FileLanes is a lane per payload of a file sent byte for byte: one
// template per event of events, or when events is nil of the event the
// payload's businessType number names (EventOf). A payload whose event
// cannot be told is a *PayloadError.
func FileLanes(payloads []Payload, events []spec.Event, header http.Header) ([][][]attempt.Template, error) {
	var lanes [][][]attempt.Template
	for _, p := range payloads {
		evs := events
		if evs == nil {
			e, err := eventOf(p.Body)
			if err != nil {
				return nil, &PayloadError{Where: p.Where, Err: err}
			}
			evs = []spec.Event{e}
		}
		for _, e := range evs {
			lanes = append(lanes, [][]attempt.Template{{newTemplate(e.Name, header, p.Body, false, nil)}})
		}
	}
	return lanes, nil
}
