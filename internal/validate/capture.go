package validate

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"unsafe"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/input"
	"github.com/whsim/whsim/internal/spec"
)

// isCapture reports whether a line is a capture record written by listen
// rather than a plain payload.
func isCapture(line []byte) bool { return input.IsRecord(line) }

// checkCapture validates the request body of one capture record: the
// query's businessType is the event. A line that is not a readable record,
// or a query without businessType, is an error finding; torn says the line
// is a record cut short (input.CutShort), which has none; notChecked, when
// not "", is why no rule could look at the body (see checkRecord).
func (v *Validator) checkCapture(line []byte) (fs []Finding, notChecked string, torn bool) {
	c := v.pool.Get().(*checker)
	f, ok := leanRecord(&c.lx, line, c.body)
	if ok {
		fs, notChecked = v.checkLean(&f)
		if cap(f.body) > cap(c.body) {
			c.body = f.body[:0] // grown: kept for the next record
		}
	}
	c.lx.Reset(nil)
	v.pool.Put(c)
	if ok {
		return fs, notChecked, false
	}
	// The slow path, and its error messages (leanrecord.go): what replay,
	// inspect and anonymize refuse (a duplicate key, an unknown format
	// version) is no record here either.
	rec, err := capture.Decode(line)
	if err != nil {
		if input.CutShort(line) {
			return nil, "", true
		}
		if col, msg, ok := capture.Column(err); ok {
			// Not JSON, or not UTF-8: placed at its column in the line
			// (the record's line is the payload's), as replay and
			// anonymize place it.
			why := "not a readable capture record: " + msg
			fs := v.single(ruleCapture, why)
			for i := range fs {
				fs[i].Line, fs[i].Column = 1, col
			}
			return fs, why, false
		}
		why := fmt.Sprintf("not a readable capture record: %v", err)
		return v.single(ruleCapture, why), why, false
	}
	fs, notChecked = v.checkRecord(rec)
	return fs, notChecked, false
}

// checkLean is CheckRecord of the record the fast path read, with no copy
// of its body or query in the usual case of a body stored as it was.
func (v *Validator) checkLean(f *leanFields) (fs []Finding, notChecked string) {
	switch string(f.bodyEncoding) {
	case capture.UTF8, "":
		// The query is only read during the check (messages quote a
		// copy). The body is AppendStr's result: valid UTF-8.
		fs, notChecked = v.checkRequest(f.body, unsafe.String(unsafe.SliceData(f.query), len(f.query)), true)
	default: // base64, or an encoding that is an error
		fs, notChecked = v.checkRecordBody(&capture.Record{Query: string(f.query),
			Body: string(f.body), BodyEncoding: string(f.bodyEncoding)})
	}
	if f.headers && string(f.contentType) != "application/json" {
		// The method is POST (leanRecord gives any other up): the content
		// type is all there is to say, as checkRecord says it.
		if request := v.kept(RequestFindings(http.MethodPost, "", string(f.contentType))); request != nil {
			fs = append(request, fs...)
		}
	}
	return fs, notChecked
}

// CheckRecord validates the request body of a capture record as
// checkCapture does. The record's query may still be as its line stores
// it (QueryEncoding set: base64 for a query that is not UTF-8).
func (v *Validator) CheckRecord(rec *capture.Record) []Finding {
	fs, _ := v.checkRecord(rec)
	return fs
}

// checkRecord is CheckRecord; notChecked, when not "", is why no rule
// could look at the body: the record holds none (refused, over the limit,
// closed at listen's stop), or one that cannot be read. It is said whether
// or not the rule that reports it is ignored: dropping a finding does not
// make a body checked.
func (v *Validator) checkRecord(rec *capture.Record) (fs []Finding, notChecked string) {
	if rec.Rejected != nil {
		// A request the server refused: its finding is all listen said.
		return v.checkRecordBody(rec)
	}
	request := append(v.recordRequestFindings(rec), v.replayFindings(rec)...)
	fs, notChecked = v.checkRecordBody(rec)
	if request != nil {
		fs = append(request, fs...)
	}
	return fs, notChecked
}

// replayFindings says why whsim replay refuses to send rec again for its
// method, query or headers (capture.CheckReplayable: a record made or
// edited by hand), or what it warns of as it sends it (a body shorter
// than its Content-Length: capture.Record.ReplayWarning, a warning),
// nil when it sends it as it stands: a user who validates a capture
// before replaying it learns which lines replay will skip or warn of, and
// the run fails as the replay will not be whole. listen records no such call
// (net/http refuses them), so its own checks never find one.
func (v *Validator) replayFindings(rec *capture.Record) []Finding {
	query := rec.Query
	if rec.QueryEncoding != "" {
		q, err := capture.DecodeBody(rec.Query, rec.QueryEncoding)
		if err != nil {
			return nil // checkRecordBody says the query cannot be decoded
		}
		query = string(q)
	}
	if why := rec.TunnelWhy(); why != "" {
		return v.single(ruleReplay, "whsim replay refuses to send it again: "+why)
	}
	if err := capture.CheckReplayable(cmp.Or(rec.Method, http.MethodPost), query, rec.Headers); err != nil {
		return v.single(ruleReplay, "whsim replay refuses to send it again: "+err.Error())
	}
	if why := rec.ReplayWarning(); why != "" && rec.BodyOverLimit == 0 {
		if _, err := rec.RequestBody(); err != nil {
			return nil // replay refuses it; capture-record says why
		}
		// Sent, with a warning: a warning here too, in replay's words.
		return v.singleAs(ruleReplay, Warning, "whsim replay warns as it sends it again: "+why)
	}
	return nil
}

// checkRecordBody is checkRecord less the findings about the call's
// method and Content-Type.
func (v *Validator) checkRecordBody(rec *capture.Record) (fs []Finding, notChecked string) {
	unread := func(rule, why string) ([]Finding, string) { return v.single(rule, why), why }
	if j := rec.Rejected; j != nil && j.ClosedAtStop {
		// Its finding begins "not read, so not checked: "; the reason
		// not-checked lines print after their own "not checked: " is the
		// rest, which says why.
		return v.single(RuleClosedAtStop, rec.RejectedWhy()), "listen never read it: " + j.Reason
	}
	if rec.Rejected != nil {
		return unread(RuleRejected, rec.RejectedWhy())
	}
	if rec.BodyOverLimit > 0 {
		// Its empty body is not what came: nothing to check.
		return unread(RuleBodyLimit, rec.OverLimitWhy())
	}
	body, err := rec.RequestBody()
	if err != nil {
		return unread(ruleCapture, fmt.Sprintf("the record's body (%s) cannot be decoded: %v", rec.BodyEncoding, err))
	}
	query := rec.Query
	if rec.QueryEncoding != "" {
		q, err := capture.DecodeBody(rec.Query, rec.QueryEncoding)
		if err != nil {
			return unread(ruleCapture, fmt.Sprintf("the record's query (%s) cannot be decoded: %v", rec.QueryEncoding, err))
		}
		query = string(q)
	}
	if codings := capture.ContentCodings(rec.Headers); codings != nil {
		// The record holds the bytes as sent; the document is what they
		// decode to (bounded as a payload is).
		content, err := capture.DecodeContent(body, codings, input.Max)
		if err != nil {
			// The bytes as they came are not the document: checked as
			// JSON they would be a false json-syntax, or a false pass of a
			// body labelled br. Ignoring the rule drops its finding, not
			// the "not checked".
			return v.single(RuleContentEncoding, err.Error()), "the body's Content-Encoding cannot be undone: " + err.Error()
		}
		body = content
	}
	return v.checkRequest(body, query, false)
}

// checkRequest checks a captured request's body against the event its
// query names. utf8OK says the body is known to be valid UTF-8;
// notChecked is as checkBody's.
func (v *Validator) checkRequest(body []byte, query string, utf8OK bool) (fs []Finding, notChecked string) {
	event, ok := spec.QueryEvent(query)
	switch {
	case !ok:
		fs = v.single(RuleQueryEvent, fmt.Sprintf("the captured query %q has %s", query, spec.NoEvent(query)))
		event = ""
	case event == "":
		fs = v.single(RuleQueryEvent, "the captured query's businessType is empty")
	default:
		if vs := spec.QueryRepeats(query); vs != nil {
			rule := RuleQueryEvent
			if !slices.ContainsFunc(vs, func(v string) bool { return v != event }) {
				rule = RuleQueryRepeated
			}
			fs = v.single(rule, "the captured query "+spec.Repeated(vs)+"; checked as "+event)
		}
	}
	body2, bad := v.checkBody(body, event, utf8OK)
	return append(fs, body2...), bad.inBody()
}

func (v *Validator) single(rule, msg string) []Finding {
	return v.singleAs(rule, rules[ruleIndex[rule]].Severity, msg)
}

// singleAs is single with a severity other than its rule's: capture-replay
// is an error of a record replay refuses, a warning of one it sends with
// a warning.
func (v *Validator) singleAs(rule string, sev severity, msg string) []Finding {
	if v.ignored[ruleIndex[rule]] {
		return nil
	}
	return []Finding{{Rule: rule, Severity: sev, Message: msg}}
}
