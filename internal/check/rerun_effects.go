package check

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/termsafe"
)

// rerunEffects sends a failed effects document's calls again, as the run
// did (copies in turn or at once, a sender's retry, an early call sent
// again after its create when it got no 2xx), for a fresh document: the
// receiver still holds what the run made of the old one. Then it asks the
// probe, again with backoff until Settle runs out, and judges what it
// holds as the run did.
func rerunEffects(ctx context.Context, cfg RerunConfig, c Failed) (RerunResult, error) {
	e := c.Effects
	d := &attempt.Deliverer{Client: cfg.Client, Now: cfg.Now, Target: cfg.Target, KeepBody: true, Credentials: credentialsOf(cfg.Header, cfg.Signer)}
	if cfg.Signer != nil && slices.ContainsFunc(e.Calls, func(c EffectsCall) bool { return c.Resign }) {
		d.Signer = cfg.Signer
	}
	fresh := freshDoc(e, cfg.IDs)
	q := probe.Question{Kind: spec.Invoice, Code: fresh.code, InvoiceCode: fresh.invoiceCode, Event: e.Event}
	if e.Kind == "receipt" {
		q.Kind = spec.Receipt
	}
	type sentOne struct {
		call    EffectsCall
		answers []attempt.Attempt
	}
	var sent []sentOne
	// answers are where the calls' answers were read: bytes no call asked
	// for after one keep the document failing (heldReruns).
	var answers []answerOn
	var calls []EffectsCall
	for _, call := range e.Calls {
		if !call.Again { // sent again below, as the run did, when needed
			calls = append(calls, call)
		}
	}
	n := len(calls)
	apart := 0   // the copies of the first call sent at once of which no two were in flight together
	masked := "" // a credential the calls carry as the report masks it
	began := time.Now()
	for i := 0; i < len(calls); i++ {
		call := calls[i]
		req, err := fresh.request(call, cfg)
		if err != nil {
			return RerunResult{}, err
		}
		if masked == "" {
			masked = MaskedCredential(d.Target, req.Query, req.Header)
		}
		if call.Event == e.Event && q.RequestID == "" && !call.Early {
			q.RequestID = req.RequestID
		}
		var got []attempt.Attempt
		results, together := deliverCopies(ctx, d, copiesOf(req, call.NewRequestIDs, call.Resign, cfg.IDs), max(call.Copies, 1), call.AtOnce, cfg.copyHeld)
		if call.AtOnce && call.Copies > 1 && together < 2 && apart == 0 {
			apart = call.Copies
		}
		for _, r := range results {
			got = append(got, r.Last())
			answers = appendAnswers(answers, r)
		}
		if call.Retry {
			// A sender's retry: the same requestId and webhook-id, signed
			// afresh by the deliverer.
			r := d.Deliver(ctx, req)
			got = append(got, r.Last())
			answers = appendAnswers(answers, r)
		}
		if ctx.Err() != nil {
			return RerunResult{}, ctx.Err()
		}
		if i == 0 && got[0].Status == 0 && (got[0].Kind == attempt.KindRefused || got[0].Kind == attempt.KindDNS || got[0].Kind == attempt.KindTLS) {
			ue := &UnreachableError{URL: termsafe.URL(cfg.Target), Kind: attempt.FailureText(got[0])}
			// On a rerun's first case that is no verdict (Rerun says so);
			// after an answer, it is this case's failure.
			return RerunResult{Case: c, Outcome: StillFailing, Reason: ue.Error(), unreachable: ue}, nil
		}
		again := call
		again.Early, again.Again = false, true
		sent = append(sent, sentOne{call: call, answers: got})
		if call.Early && i < n && !is2xx(got[0].Status) {
			calls = append(calls, again)
		}
	}
	// The calls as the reason lists them, and whether each was accepted.
	var parts []string
	last := 0
	var lastLatency time.Duration
	notTaken := ""
	var notTakenAnswer attempt.Attempt
	for i, s := range sent {
		var got []string
		ok := false
		for _, a := range s.answers {
			if a.Status == 0 {
				got = append(got, attempt.ShortError(a))
			} else {
				got = append(got, fmt.Sprint(a.Status))
			}
			ok = ok || is2xx(a.Status)
			last, lastLatency = a.Status, a.Latency
		}
		how := s.call.Event
		switch {
		case s.call.AtOnce:
			how += fmt.Sprintf(" x%d at once", max(s.call.Copies, 1))
		case s.call.Copies > 1:
			how += fmt.Sprintf(" x%d in turn", s.call.Copies)
		case s.call.Retry:
			how += " then a sender's retry"
		case s.call.Again:
			how += " again"
		}
		parts = append(parts, fmt.Sprintf("%d. %s got %s", i+1, how, strings.Join(got, ", ")))
		if !ok && !s.call.Early && notTaken == "" {
			notTaken = fmt.Sprintf("%s got %s", s.call.Event, got[0])
			notTakenAnswer = s.answers[0]
		}
	}
	callText := strings.Join(parts, ", ")
	res := RerunResult{Case: c, Status: last, Latency: lastLatency, answers: answers}
	if notTaken != "" && masked != "" && is4xx(notTakenAnswer.Status) {
		// Refused perhaps for the mask, not the call (notRerunMasked).
		return notRerunMasked(res, notTakenAnswer, masked), nil
	}
	if notTaken != "" {
		res.Outcome, res.Answer = StillFailing, replyOf(notTakenAnswer)
		res.Reason = fmt.Sprintf("%s %s: %s: the call itself was not accepted, so what was stored cannot be judged; calls: %s", e.Kind, q.Code, notTaken, callText)
		return res, nil
	}
	want := expect{state: e.WantState, lines: e.WantLines}
	end := time.Now()
	deadline := end.Add(cfg.Settle)
	a, asks, err := askUntil(ctx, cfg, q, want, deadline)
	if err != nil {
		return RerunResult{}, err
	}
	firstAsked := time.Now()
	// A document of more than one call that matched is asked once more,
	// as the run's probeAll asks (probe.AgainAt): a receiver still storing
	// each copy, late, read FIXED on its first copy.
	deliveries := 0
	for _, s := range sent {
		deliveries += len(s.answers)
	}
	if deliveries > 1 && want.met(a) {
		held := []probe.Sent{{Began: began, End: end, FirstAnswer: firstAsked}}
		if at, ok := probe.AgainAt(held, asks > 1, cfg.Settle, deadline); ok {
			if a, err = askAt(ctx, cfg, q, at); err != nil {
				return RerunResult{}, err
			}
		}
	}
	// Asked again once the document is probed: a probe that ignores the
	// document it is asked about answered count 0 before anything was
	// sent to a receiver that held nothing (one CI starts afresh for the
	// rerun), and would read this, the one document it holds, FIXED.
	if err := probe.AskNeverSent(ctx, cfg.Probe, neverSent(e, cfg.IDs)); err != nil {
		return RerunResult{}, err
	}
	wantText := "held once"
	if want.state != "" {
		wantText += ", " + want.state
	}
	if want.lines >= 0 {
		wantText += fmt.Sprintf(", %d lines", want.lines)
		if want.lines == 1 {
			wantText = strings.TrimSuffix(wantText, "s") // "1 line"
		}
	}
	raw := a.Raw
	if raw == "" {
		raw = fmt.Sprintf("count %d", a.Count)
	}
	if want.met(a) {
		res.Outcome = Fixed
		res.Reason = fmt.Sprintf("%s %s: %s; the probe answered %s", e.Kind, q.Code, wantText, raw)
		if apart > 0 {
			return notRerunTogether(res, apart), nil
		}
		return res, nil
	}
	res.Outcome = StillFailing
	res.Reason = fmt.Sprintf("%s %s: the probe answered %s, want %s; calls: %s", e.Kind, q.Code, raw, wantText, callText)
	if a.Count == 0 {
		// As the run's reason says it (runner.defect): the receiver's
		// own 2xx answers said it stored nothing.
		var answers [][]attempt.Attempt
		for _, s := range sent {
			answers = append(answers, s.answers)
		}
		if words := saidFailedOf(answers...); words != "" {
			res.Reason = fmt.Sprintf("%s %s: %s; the probe answered %s, want %s; calls: %s", e.Kind, q.Code, saidFailedDefect(words), raw, wantText, callText)
		}
	}
	return res, nil
}

// askUntil asks the probe about q until its answer is what want says
// or deadline has passed (probe.AskUntil's backoff): the last answer and
// how many times it asked.
func askUntil(ctx context.Context, cfg RerunConfig, q probe.Question, want expect, deadline time.Time) (probe.Answer, int, error) {
	var a probe.Answer
	asks := 0
	err := probe.AskUntil(ctx, deadline, func(ctx context.Context) (bool, error) {
		var err error
		a, err = cfg.Probe.Ask(ctx, q)
		asks++
		return err == nil && want.met(a), err
	})
	return a, asks, err
}

// askAt asks the probe about q once, at at.
func askAt(ctx context.Context, cfg RerunConfig, q probe.Question, at time.Time) (probe.Answer, error) {
	if err := probe.WaitUntil(ctx, at); err != nil {
		return probe.Answer{}, err
	}
	return cfg.Probe.Ask(ctx, q)
}

// freshDocument is a document's new numbers for a rerun.
type freshDocument struct {
	old, code               string
	oldInvoice, invoiceCode string
	ids                     *reqid.IDs
}

// freshDoc gives a document a number no run has sent: the same prefix and
// length, a tag of the rerun's own (so a probe keyed on the number asks
// about this rerun's document, not the run's), and for a described invoice
// a fresh invoice number likewise.
func freshDoc(e *EffectsRecord, ids *reqid.IDs) *freshDocument {
	seed := sha256.Sum256([]byte(ids.Next()))
	f := &freshDocument{old: e.Code, oldInvoice: e.InvoiceCode, ids: ids}
	f.code = retag(e.Code, seed[:16])
	f.invoiceCode = retag(e.InvoiceCode, seed[16:])
	return f
}

// neverSent is a question about a document of e's kind that no run or
// rerun sends: a fresh number of e's shape, its sequence NONE, as a run's
// sanity question asks.
func neverSent(e *EffectsRecord, ids *reqid.IDs) probe.Question {
	code := freshDoc(e, ids).code
	if i := strings.LastIndexByte(code, '-'); i > 0 {
		code = code[:i]
	}
	q := probe.Question{Kind: spec.Invoice, Code: code + "-NONE", Event: e.Event, RequestID: ids.Next()}
	if e.Kind == "receipt" {
		q.Kind = spec.Receipt
	} else {
		// Nor its invoice number: a probe may ask by {invoiceCode}.
		q.InvoiceCode = q.Code
	}
	return q
}

// retag keeps s's shape: its last six letters and digits (the run's tag
// of a whsim number, or the tail of another) are drawn again, a digit
// for a digit and a letter for a letter.
func retag(s string, rnd []byte) string {
	if s == "" {
		return ""
	}
	b := []byte(s)
	parts := strings.Split(s, "-")
	// whsim's numbers are PREFIX-TAG-SEQ: the tag is what a run owns.
	from, to := len(b)-min(6, len(b)), len(b)
	if len(parts) == 3 && len(parts[1]) == 6 {
		from = len(parts[0]) + 1
		to = from + 6
	}
	for i, k := from, 0; i < to; i, k = i+1, k+1 {
		r := rnd[k%len(rnd)]
		switch c := b[i]; {
		case c >= '0' && c <= '9':
			b[i] = '0' + r%10
		case c >= 'A' && c <= 'Z':
			b[i] = codeAlphabet[10+int(r)%22]
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + r%26
		}
	}
	if string(b) == s { // nothing to draw: mark it apart
		return s + "-R"
	}
	return string(b)
}

// body is b with the document's old numbers replaced by f's.
func (f *freshDocument) body(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte(`"`+f.old+`"`), []byte(`"`+f.code+`"`))
	if f.oldInvoice != "" {
		b = bytes.ReplaceAll(b, []byte(`"`+f.oldInvoice+`"`), []byte(`"`+f.invoiceCode+`"`))
	}
	return b
}

// request is one call of the document again: its numbers fresh, a
// requestId of its own (shared by its copies and a retry), the user's
// headers over the report's (which masks credentials), signed afresh
// when the run signed it.
func (f *freshDocument) request(call EffectsCall, cfg RerunConfig) (*attempt.Request, error) {
	body, err := capture.DecodeBody(call.Body, call.BodyEncoding)
	if err != nil {
		return nil, err
	}
	body = f.body(body)
	h := capture.ReplayHeaders(call.Headers)
	for _, k := range []string{"Webhook-Id", "Webhook-Timestamp", "Webhook-Signature"} {
		h.Del(k)
	}
	for k, v := range cfg.Header {
		h[k] = v
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	req := &attempt.Request{Event: call.Event, Method: http.MethodPost, Query: call.Query, Header: h, Body: body}
	if start, end := reqid.Find(body); start >= 0 {
		req.RequestID = cfg.IDs.Next()
		req.Body = reqid.Splice(body, start, end, req.RequestID)
	}
	if call.Resign {
		// The deliverer signs each delivery afresh with this id, as the
		// run signed the document's calls with their requestIds.
		req.WebhookID = req.RequestID
		if req.WebhookID == "" {
			req.WebhookID = "msg_" + cfg.IDs.Next()
		}
	}
	return req, nil
}
