package whsimtest

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/whsim/whsim/internal/probe"
)

// Document is a document whsim asks the receiver's store about: one it
// sent in the effects check, or one that cannot exist (the sanity
// question asked first, and of each kind once the documents are probed,
// whose answer must be Count 0). The fields are those the CLI's probe
// contract fills (docs/concepts.md, "The probe contract").
type Document struct {
	// Kind is "invoice" (a purchase invoice) or "receipt" (a receipt
	// document).
	Kind string
	// Code is the document number: data.code of an invoice, the number
	// in a receipt's data.收款单 header (as {code} of a probe URL); drawn
	// from A-Z, 0-9 and '-'.
	Code string
	// InvoiceCode is the invoice's invoiceCode, "" for a receipt.
	InvoiceCode string
	// Event and RequestID are those of the call that created the document.
	Event, RequestID string
}

// Document states a probe answers for a document it holds.
const (
	Created = probe.StateCreated
	Audited = probe.StateAudited
	Voided  = probe.StateVoided
)

// Stored is what the receiver holds for a Document.
type Stored struct {
	// Count is how many records the receiver holds for the document: 1 is
	// right, 0 is lost, 2 or more is stored again.
	Count int
	// State is Created, Audited or Voided; required when Count is 1 or
	// more, ignored when it is 0.
	State string
	// Lines is how many lines (invoice items, receipt lines) the
	// receiver holds for it, as whsim check's probe answers "lines": 0
	// is a document held without its lines, which fails as stored cut
	// short (every document whsim sends has at least one), as the CLI
	// fails {"count":1,"lines":0}. A probe that does not count lines sets
	// LinesNotCounted instead; below 0 is the probe's error.
	Lines int
	// LinesNotCounted says the probe does not count lines (the CLI's
	// probe answer without "lines", or with "lines":null): only Count and
	// State are judged, and Lines must be left 0.
	LinesNotCounted bool
}

// ProbeFunc asks the receiver's store what it holds for d. An error is
// the probe's own (the store could not be read), never the receiver's: it
// ends the run and fails the test with it. So does a panic, or t.Fatal or
// a require call inside it, which end the goroutine the battery asks it
// from, not the test's: return the error instead. So does no answer within
// WithTimeout (10s), when ctx ends: the run then waits for the function to
// return, as for a handler.
type ProbeFunc func(ctx context.Context, d Document) (Stored, error)

// probeName is the probe as a failure names it.
const probeName = "WithProbe function"

// funcProbe is a ProbeFunc as the check battery asks it. The battery's
// first question is always the sanity one, about a document never sent.
type funcProbe struct {
	f     ProbeFunc
	asked atomic.Int64
	// timeout bounds one question (WithTimeout), as whsim check --timeout
	// bounds --probe-cmd: a probe that does not answer ends the run as its
	// error, not the test binary at go test's -timeout.
	timeout time.Duration
	// running counts the calls of f not yet returned, which the run waits
	// for as for its handler's (one may ignore its context).
	running *running
	// noLines holds the documents (kind/code) answered held with Lines
	// 0, which the run's log explains: a probe written before
	// LinesNotCounted, or one that forgot it, fails every document as
	// stored without lines. A set, not a count: a document that does not
	// match is asked again until the settle time is out.
	noLines sync.Map
}

func (p *funcProbe) Ask(ctx context.Context, q probe.Question) (probe.Answer, error) {
	d := documentOf(q)
	sanity := p.asked.Add(1) == 1
	what := fmt.Sprintf("%s %s", d.Kind, d.Code)
	if sanity {
		what += " (a document never sent, asked first: the answer must be Count 0)"
	}
	s, ended, err := p.call(ctx, d)
	if ended == errRunEnded {
		return probe.Answer{}, context.Cause(ctx) // the run's own end, not the probe's
	}
	if ended != "" {
		return probe.Answer{}, &probe.Error{Probe: probeName, Reason: fmt.Sprintf("asked about %s, it %s", what, ended)}
	}
	if err != nil {
		return probe.Answer{}, &probe.Error{Probe: probeName, Reason: fmt.Sprintf("asked about %s, it returned an error: %v", what, err)}
	}
	if sanity && s.Count != 0 {
		return probe.Answer{}, &probe.Error{Probe: probeName, Reason: fmt.Sprintf("asked about %s, it answered Count %d: does it look the document up by Document.Code?", what, s.Count)}
	}
	// Lines 0 is a count of 0, as "lines":0 is for --probe-cmd: read as
	// "not counted", a store that kept a document without its lines
	// passed here and failed under whsim check (-1 is the contract's
	// "not said").
	a := probe.Answer{Count: s.Count, State: s.State, Lines: s.Lines}
	if s.LinesNotCounted {
		a.Lines = -1
	}
	switch {
	case s.Count < 0:
		return a, &probe.Error{Probe: probeName, Reason: fmt.Sprintf("asked about %s, it answered Count %d: want 0 or more", what, s.Count)}
	case s.Lines < 0:
		// As whsim check refuses "lines":-1: no count of lines is below
		// 0, so the probe computed it wrong.
		return a, &probe.Error{Probe: probeName, Reason: fmt.Sprintf("asked about %s, it answered Lines %d: want 0 or more (0: the document is held without lines), or LinesNotCounted: true when the probe does not count them", what, s.Lines)}
	case s.LinesNotCounted && s.Lines != 0:
		return a, &probe.Error{Probe: probeName, Reason: fmt.Sprintf("asked about %s, it answered Lines %d and LinesNotCounted: true: a probe that does not count lines leaves Lines 0, one that counts them leaves LinesNotCounted false", what, s.Lines)}
	case s.Count == 0:
		a.State = ""
	case s.State != Created && s.State != Audited && s.State != Voided:
		return a, &probe.Error{Probe: probeName, Reason: fmt.Sprintf("asked about %s, it answered Count %d and State %q: want whsimtest.Created, Audited or Voided (%q, %q or %q)",
			what, s.Count, s.State, Created, Audited, Voided)}
	}
	if s.Count > 0 && a.Lines == 0 {
		p.noLines.Store(d.Kind+"/"+d.Code, true)
	}
	a.Raw = rawOf(a)
	return a, nil
}

// call asks f in a goroutine of its own, so that a probe that does not
// return gives no answer rather than a zero Stored read as "holds
// nothing": one that ends its goroutine (t.Fatal, t.FailNow, t.Skip or a
// require call, which testing allows only in the test's goroutine, end
// the goroutine they are called in) or panics (a panic in a goroutine
// of the battery would end the whole test binary). ended says which,
// "" when f returned.
//
// The question is bounded by p.timeout: past it, ended says the probe gave
// no answer in time, and f is left to finish (counted in p.running); as
// is it when the run ends first (errRunEnded).
func (p *funcProbe) call(ctx context.Context, d Document) (s Stored, ended string, err error) {
	parent := ctx
	if p.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.timeout)
		defer cancel()
	}
	type answer struct {
		s     Stored
		err   error
		ended string
	}
	got := make(chan answer, 1)
	uncount := p.running.add(func() string { return d.Kind + " " + d.Code })
	go func() {
		defer uncount()
		returned := false
		defer func() {
			if returned {
				return
			}
			if v := recover(); v != nil {
				got <- answer{ended: fmt.Sprintf("panicked: %v\n%s", v, debug.Stack())}
				return
			}
			got <- answer{ended: "ended its goroutine without returning (runtime.Goexit: t.Fatal, t.FailNow, t.Skip and require calls end the goroutine they are called in, " +
				"which testing allows only in the test's own): return the error instead"}
		}()
		s, err := p.f(ctx, d)
		returned = true
		got <- answer{s: s, err: err}
	}()
	// answered is what f returned: an error its context's end gave it is
	// said as that end.
	answered := func(a answer) (Stored, string, error) {
		if a.err != nil && ctx.Err() != nil {
			return p.late(parent)
		}
		return a.s, a.ended, a.err
	}
	select {
	case a := <-got:
		return answered(a)
	case <-ctx.Done():
		// A probe that answered as its context ended did answer: a select
		// with both ready picks either.
		select {
		case a := <-got:
			return answered(a)
		default:
		}
		return p.late(parent)
	}
}

// errRunEnded is call's ended when the run ended while the probe was
// asked (its context, or another question's failure): no fault of the
// probe's.
const errRunEnded = "\x00the run ended"

// late is what a question whose context ended before the probe answered
// came to: the run's end (parent done), or the probe's time limit.
func (p *funcProbe) late(parent context.Context) (Stored, string, error) {
	if parent.Err() != nil {
		return Stored{}, errRunEnded, nil
	}
	return Stored{}, fmt.Sprintf("gave no answer within %s (WithTimeout, which bounds each question to the probe as whsim check --timeout bounds its probe): "+
		"is it waiting on a lock, or on a database that is not there?", p.timeout), nil
}

// rawOf is an answer as failures quote it: the JSON a CLI probe would
// print for it.
func rawOf(a probe.Answer) string {
	v := struct {
		Count int    `json:"count"`
		State string `json:"state,omitempty"`
		Lines *int   `json:"lines,omitempty"`
	}{Count: a.Count, State: a.State}
	if a.Lines >= 0 {
		v.Lines = &a.Lines // 0 included: a count of lines, said
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Command is what a reproduction says in place of a shell command: the
// question to put to the probe function.
func (p *funcProbe) Command(q probe.Question) string {
	d := documentOf(q)
	return fmt.Sprintf("# then ask the WithProbe function: Document{Kind: %q, Code: %q, InvoiceCode: %q, Event: %q, RequestID: %q}",
		d.Kind, d.Code, d.InvoiceCode, d.Event, d.RequestID)
}

// heldWithoutLines is how many documents the probe answered held with
// Lines 0.
func (p *funcProbe) heldWithoutLines() int {
	n := 0
	p.noLines.Range(func(any, any) bool { n++; return true })
	return n
}

func documentOf(q probe.Question) Document {
	return Document{Kind: probe.KindWord(q.Kind), Code: q.Code, InvoiceCode: q.InvoiceCode, Event: q.Event, RequestID: q.RequestID}
}
