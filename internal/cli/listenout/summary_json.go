package listenout

import (
	"encoding/json"
	"io"
	"maps"
	"strconv"
	"time"

	"github.com/whsim/whsim/internal/jsonstr"
	"github.com/whsim/whsim/internal/termsafe"
)

// summaryJSON is the summary line that ends listen --output json's calls
// (before an exactlyOnce line, with --probe), as send's and check's end
// theirs: a job that reads stdout gets the counts the text summary gives
// on stderr. It is written only when every call taken was printed.
type summaryJSON struct {
	Summary struct {
		Calls     int     `json:"calls"`
		ElapsedMS float64 `json:"elapsedMs"`
		// Shown is how many calls have a line (--limit), when not all.
		Shown     int            `json:"shown,omitempty"`
		ByEvent   map[string]int `json:"byEvent"`
		ByVerdict map[string]int `json:"byVerdict"`
		// ByStatus counts the answers the senders got, by status;
		// Unanswered the calls whose sender got none.
		ByStatus   map[string]int `json:"byStatus"`
		Unanswered int            `json:"unanswered"`
		Rejected   int            `json:"rejected"`
		StopClosed int            `json:"stopClosed"`
		// NotRecorded counts the calls answered 5xx, unrecorded, once
		// the capture had failed (listen then exits 1).
		NotRecorded int            `json:"notRecorded"`
		Faults      map[string]int `json:"faults,omitempty"`
		Receiver    *receiverJSON  `json:"receiver,omitempty"`
		// Capture is the capture file's name, or, for a name that is not
		// UTF-8, its bytes in base64 with CaptureEncoding "base64".
		Capture         string `json:"capture,omitempty"`
		CaptureEncoding string `json:"captureEncoding,omitempty"`
	} `json:"summary"`
}

// receiverJSON is what listen sent the receiver (--forward-to, --fault):
// the calls, each in one of answered, malformed and noWholeAnswer (the
// three sum to sent), and the forwards that failed, by the status listen
// answered their senders itself.
type receiverJSON struct {
	Sent     int `json:"sent"`
	Answered int `json:"answered"`
	// Malformed counts the answers of the receiver's that were no
	// HTTP/1.1 answer, their head or their framing (their forwards
	// failed: in FailedByStatus); NoWholeAnswer the other calls sent,
	// which got no whole answer (none, none in time, one cut short, the
	// sender gone first).
	Malformed      int            `json:"malformed"`
	NoWholeAnswer  int            `json:"noWholeAnswer"`
	FailedByStatus map[string]int `json:"failedByStatus"`
	// Flagged counts the flags judged of the receiver's answers, by
	// check (a flag given with another call's line counted too).
	Flagged map[string]int `json:"flagged,omitempty"`
	// Unrecorded counts the calls that went to the receiver and could
	// not be recorded (the capture failed as they were forwarded): their
	// senders got listen's own 5xx, counted in ByStatus.
	Unrecorded int `json:"unrecorded,omitempty"`
}

// SummaryJSON writes the summary line of --output json to w, once the
// receiver has stopped and every call was printed.
func (p *CallPrinter) SummaryJSON(w io.Writer, capturePath string) error {
	var o summaryJSON
	s := &o.Summary
	s.Calls = p.calls
	s.ElapsedMS = float64(time.Since(p.started).Microseconds()) / 1000
	if p.Limit > 0 && p.calls > p.Limit {
		s.Shown = p.Limit
	}
	// Event names are the senders' (a query may say anything): the
	// line is made terminal-safe whole, as a call's line is.
	s.ByEvent = maps.Clone(p.byEvent)
	if s.ByEvent == nil {
		s.ByEvent = map[string]int{}
	}
	s.ByVerdict = map[string]int{"valid": p.byVerdict["valid"], "warning": p.byVerdict["warning"], "invalid": p.byVerdict["invalid"]}
	s.ByStatus = byStatusJSON(p.byStatus)
	for _, n := range p.unanswered {
		s.Unanswered += n
	}
	s.Rejected, s.StopClosed, s.NotRecorded = p.rejected, p.stopClosed, p.notRecorded
	if p.Faults != nil {
		s.Faults = map[string]int{}
		for _, k := range p.Faults {
			s.Faults[k] = p.byFault[k]
		}
	}
	if p.Faults != nil || p.Forwarding {
		s.Receiver = &receiverJSON{Sent: p.forwarded, Answered: p.answered, Malformed: p.malformed, NoWholeAnswer: p.noWhole, FailedByStatus: byStatusJSON(p.failed), Flagged: maps.Clone(p.flagged)}
		for _, n := range p.unrecorded {
			s.Receiver.Unrecorded += n
		}
	}
	s.Capture, s.CaptureEncoding = jsonstr.Exact(capturePath)
	b, err := json.Marshal(o)
	if err != nil {
		return nil // a value built above always encodes
	}
	_, err = w.Write(termsafe.JSON(append(b, '\n')))
	return err
}

// byStatusJSON is counts keyed by the status as a string ("200"), as
// send's failedByStatus is, "none" for calls given no answer; an empty
// map, not null, for none at all.
func byStatusJSON(counts map[int]int) map[string]int {
	out := make(map[string]int, len(counts))
	for c, n := range counts {
		k := strconv.Itoa(c)
		if c == 0 {
			k = "none"
		}
		out[k] = n
	}
	return out
}
