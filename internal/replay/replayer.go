package replay

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
)

// Replayer streams the records of capture files as deliveries, one at a
// time, so that a large capture is never held in memory. Its Next is the
// feed of load.Run.
type Replayer struct {
	Inputs []capture.Input
	// Events, when not empty, keeps only the calls of these events.
	Events []spec.Event
	// IDs, when set, gives each call a fresh requestId.
	IDs *reqid.IDs
	// Signed says the deliverer signs every call afresh (replay --sign):
	// each request then carries the webhook-id to sign with.
	Signed bool
	// Header, when set, replaces the captured headers of these names (a
	// credential a saved case holds masked).
	Header http.Header
	// Warn is told of each line skipped: a torn last line, a bad record;
	// and, once, of signed calls whose body a fresh requestId changes.
	Warn func(format string, args ...any)
	// Reopen, when set, opens input i afresh, or returns nil when it
	// cannot (stdin): Left reads what a replay cut short left with it.
	Reopen func(i int) (io.ReadCloser, error)
	// Payloads, when set, is given an input found to hold payloads (a
	// pipe, looked into as the replay reaches it) before the replay ends
	// with it: the command saying where to send them is the caller's.
	Payloads func(*capture.PayloadsError)

	i   int
	seq int
	r   *capture.Reader
	// taken counts the items read from r, records or not.
	taken int
	err   error
	// seen holds the requestIds sent so far: a record with one of them is
	// a re-delivery, counted as a duplicate as send counts its own.
	seen      map[string]bool
	warnedSig bool
	// skipped counts the lines skipped with a warning (torn, not a
	// record, not replayable), other the records of events not asked,
	// empty the inputs that held nothing at all.
	skipped, other, empty int
}

// Err is the read error that ended the replay early, if any.
func (s *Replayer) Err() error { return s.err }

// Next returns the next call to deliver, nil at the end.
func (s *Replayer) Next() []*attempt.Request {
	for s.i < len(s.Inputs) {
		in := s.Inputs[s.i]
		if s.r == nil {
			rd := in.Reader()
			// Cached for a file OpenInputs looked into; a pipe is looked
			// into now.
			if err := capture.CheckInput(in.Name, rd); err != nil {
				if pe, ok := errors.AsType[*capture.PayloadsError](err); ok && s.Payloads != nil {
					s.Payloads(pe)
				}
				s.err = err
				return nil
			}
			if kind, _ := rd.Kind(); kind == input.Empty {
				s.empty++
				if len(s.Inputs) > 1 { // of one, NothingSent says it
					s.Warn("%s: empty, nothing to replay", in.Name)
				}
			}
			s.r = capture.ReaderOf(rd)
			s.taken = 0
		}
		rec, err := s.r.Next()
		if !errors.Is(err, io.EOF) {
			s.taken++
		}
		var torn *capture.TornError
		var bad *capture.LineError
		switch {
		case errors.Is(err, io.EOF):
			s.i++
			s.r = nil
			continue
		case errors.As(err, &torn):
			s.skipped++
			s.Warn("%s; skipped, not replayed", capture.At(in.Name, err))
			continue
		case errors.As(err, &bad):
			s.skipped++
			s.Warn("%s; skipped", capture.At(in.Name, err))
			continue
		case err != nil:
			s.err = fmt.Errorf("%s: %w", in.Name, err)
			return nil
		}
		if !s.wanted(rec) {
			s.other++
			continue
		}
		req, renewed, err := request(rec, s.IDs)
		if err != nil {
			s.skipped++
			s.Warn("%s; skipped", input.At(in.Name, s.r.Line(), 0, err.Error()))
			continue
		}
		if s.IDs != nil && !renewed {
			// Sent all the same, and said: under --new-request-id a
			// receiver's deduplication would otherwise be tested with a
			// call the replay took for a fresh one.
			s.Warn("%s", input.At(in.Name, s.r.Line(), 0, "--new-request-id found no requestId to replace in its body (a top-level string of the JSON object it is, after no byte-order mark, decoded when it came compressed): sent as recorded, with whatever id it holds"))
		}
		if why := rec.ReplayWarning(); why != "" {
			// Sent all the same: the receiver's answer to what did
			// arrive may be the thing looked into.
			s.Warn("%s", input.At(in.Name, s.r.Line(), 0, why))
		}
		s.seq++
		req.Seq = s.seq
		req.Source = in.Name + ":" + strconv.Itoa(s.r.Line())
		s.mark(req)
		return []*attempt.Request{req}
	}
	return nil
}

// NothingSent says, once Next has returned nil, why a replay sent no
// call: every line was skipped (the warnings said why), of an event not
// asked for, or the inputs were empty. Nil when a call was sent. Skipped
// is never a pass, and nor is empty: a replay that sent nothing has tested
// no receiver, and in an unattended run (CI, a cron job) a capture that
// came out empty (a listen that never got a call, a path mistyped into a
// fresh file) would otherwise read as a receiver that passed.
func (s *Replayer) NothingSent() error {
	if s.seq > 0 {
		return nil
	}
	var why []string
	if s.skipped > 0 {
		why = append(why, fmt.Sprintf("%d %s skipped (the warnings above say why)", s.skipped, plural(s.skipped, "line was", "lines were")))
	}
	if s.other > 0 {
		names := make([]string, len(s.Events))
		for i, e := range s.Events {
			names[i] = e.Name
		}
		why = append(why, fmt.Sprintf("%d %s not of the events asked (--event %s)", s.other, plural(s.other, "record is", "records are"), strings.Join(names, ", ")))
	}
	if s.empty > 0 || len(why) == 0 {
		why = append(why, s.emptyWhy())
	}
	return fmt.Errorf("nothing was sent: %s", strings.Join(why, "; "))
}

// Skipped says, once Next has returned nil, that lines of the captures
// were skipped (torn, not a record, not replayable; the warnings said
// which and why): nil when none was. Such a replay did not send all it
// was given, and skipped is never a pass: an unattended replay of a
// capture with a corrupt line would otherwise read as complete.
func (s *Replayer) Skipped() error {
	if s.skipped == 0 {
		return nil
	}
	return fmt.Errorf("%d %s skipped, not replayed (the warnings above say why)", s.skipped, plural(s.skipped, "line was", "lines were"))
}

// emptyWhy says which inputs held nothing: by name when there is one.
func (s *Replayer) emptyWhy() string {
	if len(s.Inputs) == 1 {
		return s.Inputs[0].Name + " is empty (it holds no capture record)"
	}
	return fmt.Sprintf("%d of the %d inputs %s empty (no capture record)", s.empty, len(s.Inputs), plural(s.empty, "was", "were"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// wanted says whether rec is of the events asked for.
func (s *Replayer) wanted(rec *capture.Record) bool {
	event, _ := rec.Event()
	return len(s.Events) == 0 || slices.ContainsFunc(s.Events, func(e spec.Event) bool { return e.Name == event })
}

// Left counts the calls Next has not handed out, for the summary of a
// replay cut short ("not started"): the rest of the input being read and
// every input after it, read afresh through Reopen, without a request
// built or a warning said. uncounted says an input Reopen cannot open
// again (stdin, read once) held calls perhaps, which n leaves out: "0 not
// started" would say nothing was left. It ends the replay.
func (s *Replayer) Left() (n int, uncounted bool) {
	for i := s.i; i < len(s.Inputs); i++ {
		skip := 0
		if i == s.i && s.r != nil {
			skip = s.taken
		}
		k, ok := s.count(i, skip)
		n += k
		uncounted = uncounted || !ok
	}
	s.i, s.r = len(s.Inputs), nil
	return n, uncounted
}

// count counts the calls of input i past its first skip items; ok is
// false when it cannot be read again to count them.
func (s *Replayer) count(i, skip int) (n int, ok bool) {
	if s.Reopen == nil {
		return 0, false
	}
	rc, err := s.Reopen(i)
	if err != nil || rc == nil {
		return 0, false
	}
	defer rc.Close()
	r := capture.NewReader(rc)
	for k := 0; ; k++ {
		rec, err := r.Next()
		var torn *capture.TornError
		var bad *capture.LineError
		switch {
		case errors.Is(err, io.EOF):
			return n, true
		case errors.As(err, &torn), errors.As(err, &bad):
			continue
		case err != nil:
			return n, false
		case k < skip || !s.wanted(rec):
			continue
		}
		if replayable(rec) {
			n++
		}
	}
}

// replayable says whether request would make a call of rec, without
// making it: a record it refuses is no call left to send.
func replayable(rec *capture.Record) bool {
	_, err := replayBody(rec)
	return err == nil
}

// methodOf is the method to replay rec with: as captured, case and all
// (methods are case-sensitive, RFC 9110 9.1, and a receiver that refuses
// a sender's "post" must be seen refusing it again); POST, the sender's,
// when the record has none.
func methodOf(rec *capture.Record) string {
	if rec.Method == "" {
		return http.MethodPost
	}
	return rec.Method
}

// mark counts a re-delivery, sets the webhook-id a fresh signature uses,
// the replacement headers, and warns once when a fresh requestId breaks a
// captured signature.
func (s *Replayer) mark(req *attempt.Request) {
	if req.RequestID != "" {
		if s.seen == nil {
			s.seen = map[string]bool{}
		}
		req.Duplicate = s.seen[req.RequestID]
		s.seen[req.RequestID] = true
	}
	for k, vs := range s.Header {
		req.Header[k] = vs
	}
	_, signedBefore := req.Header["Webhook-Signature"]
	switch {
	case s.Signed:
		req.WebhookID = req.ReplayWebhookID(s.IDs != nil)
	case s.IDs != nil && signedBefore && !s.warnedSig:
		s.warnedSig = true
		s.Warn("--new-request-id changes the body of signed calls, so their captured webhook-signature no longer matches; add --sign standard --secret whsec_... to sign each call afresh")
	}
}

// request is the delivery that replays rec: its method, query, headers and
// body byte for byte; with ids, a fresh requestId and nothing else changed
// (renewed), when the body holds one to replace.
func request(rec *capture.Record, ids *reqid.IDs) (req *attempt.Request, renewed bool, err error) {
	body, err := replayBody(rec)
	if err != nil {
		return nil, false, err
	}
	method := methodOf(rec)
	h := capture.ReplayHeaders(rec.Headers)
	// The captured content type is replayed as it was, or not at all;
	// so is the User-Agent: a call that came without one went out with
	// Go's "Go-http-client/1.1", a header its sender never sent (listen's
	// forward adds none either). A name with no value is written by no
	// path of the deliverer, and keeps it from adding its own.
	for _, k := range []string{"Content-Type", "User-Agent"} {
		if _, ok := h[k]; !ok {
			h[k] = nil
		}
	}
	// A body sent compressed (Content-Encoding: gzip) holds its
	// requestId compressed: it is read from the document the body decodes
	// to, and a fresh one is spliced into that, which goes out coded as
	// the body came. One that does not decode (br, cut short) is sent as
	// it is, as a body without a requestId is.
	doc, codings := body, capture.ContentCodings(rec.Headers)
	if len(codings) > 0 {
		if doc, err = capture.DecodeContent(body, codings, input.Max); err != nil {
			doc = nil
		}
	}
	id := ""
	start, end := reqid.Find(doc)
	if start >= 0 {
		id = string(doc[start:end])
	}
	if ids != nil && start >= 0 {
		// Every requestId the body names: a receiver that reads the
		// last of two (Go's encoding/json) reads a fresh one too.
		fresh := ids.Next()
		doc = reqid.SpliceAll(doc, reqid.FindAll(doc), fresh)
		if len(codings) == 0 {
			body, id, renewed = doc, fresh, true
		} else if coded, err := capture.EncodeContent(doc, codings, body); err == nil {
			body, id, renewed = coded, fresh, true
		}
	}
	event, _ := rec.Event()
	if event == "" {
		event = "-"
	}
	return &attempt.Request{Event: event, Method: method, Query: rec.Query, Header: h, Body: body, RequestID: id, NoRequestID: !reqid.Named(doc)}, renewed, nil
}

// replayBody is the body request sends for rec, or why rec is no call to
// send again: the one list of refusals, which replayable reads too.
func replayBody(rec *capture.Record) ([]byte, error) {
	if j := rec.Rejected; j != nil && j.ClosedAtStop {
		return nil, fmt.Errorf("a request listen's stop closed unread as it arrived (%s), so there is no call to send again", j.Reason)
	}
	if j := rec.Rejected; j != nil {
		// Only the first bytes of a head that did not parse were kept:
		// nothing to send that would be the call that came.
		return nil, fmt.Errorf("a request the HTTP server refused before listen could read it (%s), so there is no call to send again", j.Reason)
	}
	if why := rec.TunnelWhy(); why != "" {
		return nil, errors.New(why)
	}
	if rec.BodyOverLimit > 0 {
		// An empty body in its place would be a call the sender never
		// made (and no cut-short body either: none of it was kept).
		return nil, fmt.Errorf("its body was over listen's --max-body of %d bytes and was not kept", rec.BodyOverLimit)
	}
	body, err := rec.RequestBody()
	if err != nil {
		return nil, err
	}
	if err := capture.CheckReplayable(methodOf(rec), rec.Query, rec.Headers); err != nil {
		return nil, err
	}
	return body, nil
}
