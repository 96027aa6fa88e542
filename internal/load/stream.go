package load

import (
	"io"
	"net/http"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/spec"
)

// Stream is the feed of a file read as it comes (stdin, a pipe, a FIFO):
// each payload's deliveries are made as soon as it is read, in the order
// and with the requests a feed of one round over FileLanes would make,
// rather than after the input ends, which a live stream never does. Next
// waits on the input: run it with RunOptions.Waits. It is used from one
// goroutine at a time.
type Stream struct {
	more   func() (Payload, error)
	events []spec.Event
	header http.Header
	out    [][]*attempt.Request
	seq    int
	err    error
	// calls tells repeated calls and documents among at least the last
	// streamWindow, in bounded memory.
	calls *fileCalls
}

// streamWindow is how many calls and documents back a stream recognises
// a repeat: a relay runs without end, and its memory must not grow.
const streamWindow = 1 << 16

// NewStream is a stream of the payloads more returns (any error ends it:
// io.EOF at the input's end), each sent under events, or when events is
// nil the event its businessType names, as FileLanes does. first, when
// not nil, is a payload read already, sent first.
func NewStream(first *Payload, more func() (Payload, error), events []spec.Event, header http.Header) *Stream {
	s := &Stream{more: more, events: events, header: header, calls: newFileCalls(streamWindow)}
	if first != nil {
		s.err = s.add(*first)
	}
	return s
}

// Next returns the next delivery, waiting for the next payload when none
// is read; nil once the input ended or was refused (Err).
func (s *Stream) Next() []*attempt.Request {
	for len(s.out) == 0 {
		if s.err != nil {
			return nil
		}
		p, err := s.more()
		if err == nil {
			err = s.add(p)
		}
		s.err = err
	}
	job := s.out[0]
	s.out[0] = nil
	s.out = s.out[1:]
	return job
}

// add makes p's deliveries; a payload whose event cannot be told is a
// *PayloadError.
func (s *Stream) add(p Payload) error {
	lanes, err := fileLanes([]Payload{p}, s.events, s.header, s.calls)
	if err != nil {
		return err
	}
	for _, lane := range lanes {
		t := &lane[0][0]
		s.seq++
		// As feed.make makes a --file body's delivery: sent as it is.
		r := &attempt.Request{Event: t.Event, Query: t.Query, Header: t.Header, Body: t.Body, RequestID: t.RequestID, NoRequestID: t.NoRequestID,
			Document: !t.Resent && !t.KnownDocument && !t.NoDocument, NoDocument: t.NoDocument, Duplicate: t.Resent, Seq: s.seq}
		s.out = append(s.out, []*attempt.Request{r})
	}
	return nil
}

// Err is what ended the stream: nil at the input's end (io.EOF) or before
// it ended.
func (s *Stream) Err() error {
	if s.err == io.EOF {
		return nil
	}
	return s.err
}
