package load

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/jsonlex"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
)

// newTemplate prepares body for delivery as event. With freshIDs, each
// delivery made from it gets a fresh requestId when the body holds one of
// UUID length; otherwise the body is sent as it is (a --file body, a
// requestId the user set). With docs, each gets its document's serial in
// the document numbers at docs' paths (nil: a --file body).
func newTemplate(event string, header http.Header, body []byte, freshIDs bool, docs DocPaths) attempt.Template {
	body = docs.byDay(event, body)
	t := attempt.Template{Event: event, Query: spec.Query(event), Header: header, Body: body, IDOff: -1}
	t.DocOffs = docs.offsets(event, body)
	if e, ok := spec.Lookup(event); ok && docs != nil && len(t.DocOffs) == 0 {
		if key := docs.documentKey(body, e); key != "" {
			t.DocKey = reqid.Hash(key) | 1 // 0 is none
		} else {
			t.NoDocument = true // every number missing or empty
		}
	}
	start, end := reqid.Find(body)
	if start >= 0 && end-start == 36 && freshIDs {
		t.IDOff = start
	}
	if start >= 0 {
		t.RequestID = string(body[start:end])
	}
	t.NoRequestID = !reqid.Named(body)
	return t
}

// ambiguousEventError is a body number that several events share.
type ambiguousEventError struct {
	Number string
	Events []spec.Event
}

func (e *ambiguousEventError) Error() string {
	names := make([]string, len(e.Events))
	for i, ev := range e.Events {
		names[i] = ev.Name
	}
	return fmt.Sprintf("businessType %s stands for %s", e.Number, strings.Join(names, " or "))
}

// eventOf tells the event a body is for by its businessType number. The
// error says why it cannot: no number, no event's number, or an
// *AmbiguousEventError.
func eventOf(body []byte) (spec.Event, error) {
	spans, _ := jsonlex.Members(body, spec.FieldBusinessType)
	for _, other := range spans[min(1, len(spans)):] {
		// Receivers differ on which one they read: the event whsim chose
		// would be one reader's guess, and the query would say it.
		if first := spans[0]; !bytes.Equal(body[first.Start:first.End], body[other.Start:other.End]) {
			return spec.Event{}, fmt.Errorf("businessType twice in the body, %s and %s: receivers differ on which they read", body[first.Start:first.End], body[other.Start:other.End])
		}
	}
	if len(spans) == 0 || spans[0].Kind != jsonlex.Number {
		return spec.Event{}, errors.New("no businessType number in the body to tell the event by")
	}
	sp := spans[0]
	number := string(body[sp.Start:sp.End])
	n, _ := strconv.Atoi(number)
	events := spec.EventsForNumber(n)
	switch len(events) {
	case 0:
		return spec.Event{}, fmt.Errorf("businessType %s is no event's number", number)
	case 1:
		return events[0], nil
	}
	return spec.Event{}, &ambiguousEventError{Number: number, Events: events}
}
