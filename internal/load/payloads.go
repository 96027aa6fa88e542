package load

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/reqid"
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
	if n, ok := strings.CutPrefix(e.Where, "line "); ok {
		// name:line, as every command that reads a file back places
		// what it says of it.
		where = name + ":" + n
	} else if e.Where != "" {
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
//
// A payload that repeats an earlier one's call is marked Resent, one of a
// document an earlier one carried KnownDocument (fileCalls).
func FileLanes(payloads []Payload, events []spec.Event, header http.Header) ([][][]attempt.Template, error) {
	return fileLanes(payloads, events, header, newFileCalls(0))
}

func fileLanes(payloads []Payload, events []spec.Event, header http.Header, fc *fileCalls) ([][][]attempt.Template, error) {
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
			t := newTemplate(e.Name, header, p.Body, false, nil)
			fc.mark(&t, e)
			lanes = append(lanes, [][]attempt.Template{{t}})
		}
	}
	return lanes, nil
}

// fileCalls tells, of a file's payloads in the order they are sent, which
// repeat an earlier payload's call (its event and bytes) and which carry a document an earlier
// one carried, as a receiver keeps them: a file of captured bodies holds
// the sender's re-deliveries and each document's later events, and
// counting each payload a document would say the receiver lost the
// difference. It keeps hashes, of at least the last window calls and
// documents (0: all).
type fileCalls struct {
	docs         DocPaths
	calls, known seenSet
}

func newFileCalls(window int) *fileCalls {
	return &fileCalls{docs: NewDocPaths(nil), calls: seenSet{max: window}, known: seenSet{max: window}}
}

// mark sets t's Resent and KnownDocument, t a payload sent under e.
func (fc *fileCalls) mark(t *attempt.Template, e spec.Event) {
	// The same bytes under the same event are the same call, as a
	// re-delivery is (a body under another requestId is a message of its
	// own, of the same document or not).
	h := fnv.New64a()
	h.Write([]byte(e.Name))
	h.Write([]byte{0})
	h.Write(t.Body)
	if fc.calls.add(h.Sum64()) {
		t.Resent = true
	}
	// A body that names no document (no number the spec keys one on)
	// is no document: counted apart, not as one of its own.
	key := fc.docs.documentKey(t.Body, e)
	t.NoDocument = key == ""
	if key != "" && fc.known.add(reqid.Hash(key)) {
		t.KnownDocument = true
	}
}

// seenSet is a set of hashes that holds at least the last max added (0:
// all): two generations, the older dropped when the newer is full, so
// that a stream without end keeps a bounded memory.
type seenSet struct {
	cur, prev map[uint64]struct{}
	max       int
}

// add adds h and reports whether it was there already.
func (s *seenSet) add(h uint64) bool {
	if _, ok := s.cur[h]; ok {
		return true
	}
	_, was := s.prev[h]
	if s.cur == nil || s.max > 0 && len(s.cur) >= s.max {
		s.prev, s.cur = s.cur, make(map[uint64]struct{})
	}
	s.cur[h] = struct{}{}
	return was
}
