package receiver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/spec"
)

// fakeProbe answers from a table by document code.
type fakeProbe map[string]probe.Answer

func (p fakeProbe) Ask(_ context.Context, q probe.Question) (probe.Answer, error) {
	return p[q.Code+q.InvoiceCode], nil
}
func (p fakeProbe) Command(q probe.Question) string { return "ask " + q.Code }

func docCall(event, body string, fwdStatus int, f *capture.Fault) *Call {
	rec := &capture.Record{Query: "businessType=" + event}
	if fwdStatus != 0 {
		rec.Forward = &capture.Forward{Status: fwdStatus}
	}
	rec.Fault = f
	return &Call{Record: rec, Body: []byte(body), Content: []byte(body), Event: event, HasEvent: true}
}

const (
	receiptA = `{"requestId":"r-1","data":{"收款单":{"收款单编号":"SKD-A"}}}`
	receiptB = `{"requestId":"r-2","data":{"收款单":{"收款单编号":"SKD-B"}}}`
	invoiceC = `{"requestId":"r-3","data":{"code":"","invoiceCode":"INV-C"}}`
	receiptD = `{"requestId":"r-4","data":{"收款单":{"收款单编号":"SKD-D"}}}`
)

func TestDocumentsJudge(t *testing.T) {
	d := NewDocuments()
	lose := &capture.Fault{Kind: "lose-answer", Attempt: 1, Deliveries: []capture.Delivery{{Status: 200}}}
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, lose))
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
	d.Observe(docCall("ABANDON_RECEIVABLE_DOC", receiptA, 200, nil))
	d.Observe(docCall("ABANDON_RECEIVABLE_DOC", receiptB, 200, nil))
	// A void before its create still leaves the receipt voided.
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptB, 200, nil))
	d.Observe(docCall("CREATE_PURCHASE_ORDER_INVOICE", invoiceC, 200, nil))
	// Never acknowledged whole: not judged.
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptD, 200, &capture.Fault{Kind: "truncate", Deliveries: []capture.Delivery{{Status: 200}}}))
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptD, 0, &capture.Fault{Kind: "drop"}))
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", `not json`, 200, nil))
	d.Observe(docCall("NOPE", receiptA, 200, nil))

	if d.Untracked != 2 || len(d.Docs()) != 4 {
		t.Fatalf("untracked %d, docs %d", d.Untracked, len(d.Docs()))
	}
	p := fakeProbe{
		"SKD-A": {Count: 2, State: "voided"},
		"SKD-B": {Count: 1, State: "voided"},
		"INV-C": {Count: 1, State: "audited"},
	}
	v, err := d.Judge(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Asked != 3 || v.Held != 1 || v.Unjudged != 1 || len(v.Broke) != 2 {
		t.Fatalf("verdict %+v", v)
	}
	a, c := v.Broke[0], v.Broke[1]
	if a.Name() != "receipt SKD-A" || a.Want != "voided" || a.Calls != 3 || a.Defect() != "holds 2 records of it, want 1 (voided)" ||
		len(a.Faults) != 1 || !strings.HasPrefix(a.Faults[0], "lose-answer (requestId r-1, attempt 1)") {
		t.Errorf("A: %s %+v: %s", a.Name(), a, a.Defect())
	}
	if c.Name() != "invoice invoiceCode INV-C" || c.Defect() != "holds it audited, want created" {
		t.Errorf("C: %s: %s", c.Name(), c.Defect())
	}
}

// queuedStore answers as a probe that ignores the document it is asked
// about, over a receiver storing from a queue: it holds nothing until the
// probe first asks about a document the sender sent, then one of each kind.
type queuedStore struct {
	mu     sync.Mutex
	stored bool
}

func (p *queuedStore) Ask(_ context.Context, q probe.Question) (probe.Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stored = p.stored || !strings.HasPrefix(q.Code, "WHSIM-NONE-")
	if !p.stored {
		return probe.Answer{Lines: -1, Raw: `{"count":0}`}, nil
	}
	return probe.Answer{Count: 1, State: probe.StateCreated, Lines: -1, Raw: `{"count":1,"state":"created"}`}, nil
}
func (p *queuedStore) Command(q probe.Question) string { return "ask " + q.Code }

// TestDocumentsJudgeProbeIgnoringTheDocument: a probe that answers of
// every document of a kind it holds, not the one asked about (a count
// without its where clause), is the probe's error, found by asking about
// a document no sender sent once the documents' answers are in: it read
// one receiver's one document held.
func TestDocumentsJudgeProbeIgnoringTheDocument(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body, event string
		p           probe.Probe
	}{
		{receiptA, "CREATE_RECEIVABLE_DOC", &probe.Cmd{Run: `echo '{"count":1,"state":"created"}'`, Timeout: time.Minute}},
		{invoiceC, "CREATE_PURCHASE_ORDER_INVOICE", &probe.Cmd{Run: `echo '{"count":1,"state":"created"}'`, Timeout: time.Minute}},
		{receiptA, "CREATE_RECEIVABLE_DOC", &queuedStore{}},
	} {
		d := NewDocuments()
		d.Observe(docCall(tt.event, tt.body, 200, nil))
		v, err := d.Judge(context.Background(), tt.p, 0)
		var pe *probe.Error
		if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "a document never sent, it answered") {
			t.Errorf("%s, %T: verdict %+v, err %v; want the probe's error", tt.event, tt.p, v, err)
		}
	}
}

// A document sent compressed (Content-Encoding: gzip) is the one its
// decoded body holds: tracked and probed as any other.
func TestDocumentsOfCompressedBodies(t *testing.T) {
	t.Parallel()
	d := NewDocuments()
	c := docCall("CREATE_RECEIVABLE_DOC", "\x1f\x8b compressed bytes", 200, nil)
	c.Content = []byte(receiptA) // what the observer decoded
	d.Observe(c)
	if d.Untracked != 0 || len(d.Docs()) != 1 || d.Docs()[0].Q.Code != "SKD-A" || d.Docs()[0].Q.RequestID != "r-1" {
		t.Errorf("untracked %d, docs %+v; want receipt SKD-A of r-1", d.Untracked, d.Docs())
	}
}

// A document number from the traffic that a command could take as code is
// never given to --probe-cmd: that document alone is not asked, and the
// others are judged.
func TestDocumentsJudgeUnsafeNumber(t *testing.T) {
	t.Parallel()
	d := NewDocuments()
	evil := `{"requestId":"r-9","data":{"收款单":{"收款单编号":"X'; DELETE FROM documents; --"}}}`
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", evil, 200, nil))
	p := &probe.Cmd{Run: `case $WHSIM_CODE in SKD-A) echo '{"count":1,"state":"created"}';; *) echo '{"count":0}';; esac`, Timeout: time.Minute}
	v, err := d.Judge(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Asked != 1 || v.Held != 1 || len(v.Broke) != 0 || len(v.Unasked) != 1 {
		t.Fatalf("verdict %+v, want 1 asked and held, 1 not asked", v)
	}
	if u := v.Unasked[0]; u.Q.Code != "X'; DELETE FROM documents; --" || u.Unsafe == nil || u.Unsafe.Name != probe.EnvCode {
		t.Errorf("not asked: %+v", u)
	}
}

// gatedProbe holds every question until want of them are in flight at
// once, then answers them all (and those after) from answers: how many
// questions are asked at once shows, with no clock. A Judge asking one
// question at a time never gets there; failsafe then releases them, so
// that the test fails rather than hangs.
type gatedProbe struct {
	want     int
	answers  fakeProbe
	failsafe time.Duration

	mu             sync.Mutex
	inFlight, most int
	release        chan struct{}
	releaseOnce    sync.Once
}

func (p *gatedProbe) Ask(ctx context.Context, q probe.Question) (probe.Answer, error) {
	p.mu.Lock()
	p.inFlight++
	p.most = max(p.most, p.inFlight)
	if p.inFlight == p.want {
		p.releaseOnce.Do(func() { close(p.release) })
	}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.inFlight--
		p.mu.Unlock()
	}()
	failsafe := time.NewTimer(p.failsafe)
	defer failsafe.Stop()
	select {
	case <-p.release:
	case <-failsafe.C:
		p.releaseOnce.Do(func() { close(p.release) })
	case <-ctx.Done():
		return probe.Answer{Lines: -1}, ctx.Err()
	}
	return p.answers.Ask(ctx, q)
}
func (p *gatedProbe) Command(q probe.Question) string { return "ask " + q.Code }

// The documents are asked probe.Concurrency at a time, no more (at the
// stop, 1,000 documents asked one at a time with a curl-style probe took
// about 9 s), and the verdict is what it was: the documents that broke,
// and those not asked, in the order their first call came.
func TestDocumentsJudgeAsksConcurrently(t *testing.T) {
	t.Parallel()
	d := NewDocuments()
	answers := fakeProbe{}
	const n = 3*probe.Concurrency + 1
	for i := range n {
		code := fmt.Sprintf("SKD-%02d", i)
		switch {
		case i%5 == 3:
			code = fmt.Sprintf("X'%02d", i) // a number a command could take as code
		case i%4 == 1:
			answers[code] = probe.Answer{Count: 2, State: probe.StateCreated, Lines: -1}
		default:
			answers[code] = probe.Answer{Count: 1, State: probe.StateCreated, Lines: -1}
		}
		d.Observe(docCall("CREATE_RECEIVABLE_DOC", fmt.Sprintf(`{"requestId":"r-%d","data":{"收款单":{"收款单编号":%q}}}`, i, code), 200, nil))
	}
	// The unsafe numbers are refused as a command would refuse them.
	p := &gatedProbe{want: probe.Concurrency, answers: answers, failsafe: time.Minute, release: make(chan struct{})}
	refusing := refusingProbe{p}
	v, err := d.Judge(context.Background(), refusing, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.most != probe.Concurrency {
		t.Errorf("at most %d questions in flight at once, want %d", p.most, probe.Concurrency)
	}
	var broke, unasked []string
	for _, doc := range v.Broke {
		broke = append(broke, doc.Q.Code)
	}
	for _, doc := range v.Unasked {
		unasked = append(unasked, doc.Q.Code)
	}
	wantBroke := "SKD-01 SKD-05 SKD-09 SKD-17 SKD-21"
	wantUnasked := "X'03 X'08 X'13 X'18 X'23"
	if strings.Join(broke, " ") != wantBroke || strings.Join(unasked, " ") != wantUnasked || v.Asked != n-5 || v.Held != n-10 {
		t.Errorf("asked %d, held %d, broke %v, not asked %v; want %d, %d, %s, %s", v.Asked, v.Held, broke, unasked, n-5, n-10, wantBroke, wantUnasked)
	}
}

// refusingProbe refuses a number holding ' as a --probe-cmd does, and asks
// p about the others.
type refusingProbe struct{ p probe.Probe }

func (r refusingProbe) Ask(ctx context.Context, q probe.Question) (probe.Answer, error) {
	if strings.Contains(q.Code, "'") {
		return probe.Answer{Lines: -1}, &probe.UnsafeError{Name: probe.EnvCode, Value: q.Code, What: "holds '"}
	}
	return r.p.Ask(ctx, q)
}
func (r refusingProbe) Command(q probe.Question) string { return r.p.Command(q) }

// An event whose call went out to the receiver and got no whole answer
// (its answer cut short, the sender gone before it, a copy's connection
// failing) may have been taken: the receiver holding the document in its
// state is right, as is one that did not take it. Only its acknowledged
// events counted, so a receiver that took the audit (and answered 200,
// cut short) was judged BROKE, "holds it audited, want created", though
// it held the invoice once, as sent. A call none of which went out
// (Unsent) is no such event.
func TestDocumentsJudgeUnansweredEvent(t *testing.T) {
	t.Parallel()
	unanswered := func(event, body string, unsent bool) *Call {
		c := docCall(event, body, 0, nil)
		c.Record.Forward = &capture.Forward{Error: "the receiver answered 200, then its answer was cut short"}
		c.Unsent = unsent
		return c
	}
	const (
		invoiceE = `{"requestId":"r-5","data":{"code":"INV-E"}}`
		invoiceF = `{"requestId":"r-6","data":{"code":"INV-F"}}`
		invoiceG = `{"requestId":"r-7","data":{"code":"INV-G"}}`
		invoiceH = `{"requestId":"r-8","data":{"code":"INV-H"}}`
	)
	d := NewDocuments()
	for _, code := range []string{invoiceE, invoiceF, invoiceG, invoiceH} {
		d.Observe(docCall("CREATE_PURCHASE_ORDER_INVOICE", code, 200, nil))
	}
	d.Observe(unanswered("AUDIT_PURCHASE_ORDER_INVOICE", invoiceE, false))
	d.Observe(unanswered("AUDIT_PURCHASE_ORDER_INVOICE", invoiceF, false))
	d.Observe(unanswered("AUDIT_PURCHASE_ORDER_INVOICE", invoiceG, true))
	// A duplicate's copies that went out and got no answer.
	d.Observe(docCall("AUDIT_PURCHASE_ORDER_INVOICE", invoiceH, 0, &capture.Fault{Kind: "duplicate",
		Deliveries: []capture.Delivery{{Error: "connection reset"}, {Error: "connection reset"}}}))
	p := fakeProbe{
		"INV-E": {Count: 1, State: "audited"}, // took the audit
		"INV-F": {Count: 1, State: "created"}, // did not
		"INV-G": {Count: 1, State: "audited"}, // was never sent it
		"INV-H": {Count: 1, State: "audited"},
	}
	v, err := d.Judge(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Asked != 4 || v.Held != 3 || len(v.Broke) != 1 || v.Broke[0].Name() != "invoice INV-G" {
		t.Fatalf("verdict %+v, want INV-G alone broke", v)
	}
	if got := v.Broke[0].Defect(); got != "holds it audited, want created" {
		t.Errorf("INV-G: %s", got)
	}

	// One that broke all the same says what it may hold.
	d = NewDocuments()
	d.Observe(docCall("CREATE_PURCHASE_ORDER_INVOICE", invoiceE, 200, nil))
	d.Observe(unanswered("AUDIT_PURCHASE_ORDER_INVOICE", invoiceE, false))
	v, err = d.Judge(context.Background(), fakeProbe{"INV-E": {Count: 2, State: "audited"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "holds 2 records of it, want 1 (created); or audited: that event went out to it unanswered"
	if len(v.Broke) != 1 || v.Broke[0].Defect() != want {
		t.Errorf("verdict %+v, want INV-E broke: %s", v, want)
	}
}

// byInvoiceCode answers as a probe that finds invoices by {invoiceCode}
// alone, over a receiver holding two invoices of the sample shape, which
// carry none: asked with an empty one, it counts both.
type byInvoiceCode struct{}

func (byInvoiceCode) Ask(_ context.Context, q probe.Question) (probe.Answer, error) {
	if q.InvoiceCode == "" {
		return probe.Answer{Count: 2, State: probe.StateCreated, Lines: -1, Raw: `{"count":2,"state":"created"}`}, nil
	}
	return probe.Answer{Lines: -1, Raw: `{"count":0}`}, nil
}
func (byInvoiceCode) Command(q probe.Question) string { return "ask " + q.InvoiceCode }

// TestDocumentsJudgeProbeByInvoiceCode: sample-shape invoices carry no
// invoice number, so a probe finding invoices by it alone answered, of
// each, the count of all, and each was said to be held twice: the
// receiver was blamed for the probe's error. Asked about a sample-shape
// invoice no sender sent, it is the probe's error, saying why.
func TestDocumentsJudgeProbeByInvoiceCode(t *testing.T) {
	d := NewDocuments()
	d.Observe(docCall("CREATE_PURCHASE_ORDER_INVOICE", `{"requestId":"r-5","data":{"code":"CGFP-E","records":[]}}`, 200, nil))
	d.Observe(docCall("CREATE_PURCHASE_ORDER_INVOICE", `{"requestId":"r-6","data":{"code":"CGFP-F","records":[]}}`, 200, nil))
	v, err := d.Judge(context.Background(), byInvoiceCode{}, 0)
	var pe *probe.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "a document never sent, it answered") || !strings.Contains(pe.Reason, "{invoiceCode}") {
		t.Errorf("verdict %+v, err %v; want the probe's error naming {invoiceCode}", v, err)
	}
}

// lateCopies answers as a probe over a receiver storing from a queue:
// SKD-A and SKD-B are held once from the second question about them on,
// and SKD-A twice once asked at or after settled (its re-delivery
// stored late, once listen's settle time is out). It counted questions
// instead (SKD-A held once from the third, twice from the fourth), and a
// loaded machine asked fewer within the settle time: SKD-A read as never
// held (found by fx47 in a -race -count=4 -cpu 1,2,4 -shuffle=on run
// of the package under two busy loops).
type lateCopies struct {
	mu      sync.Mutex
	asks    map[string]int
	settled time.Time // before listen's own settle time ends
}

func (p *lateCopies) Ask(_ context.Context, q probe.Question) (probe.Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if strings.HasPrefix(q.Code, "WHSIM-NONE-") {
		return probe.Answer{Lines: -1, Raw: `{"count":0}`}, nil
	}
	p.asks[q.Code]++
	n := p.asks[q.Code]
	switch {
	case q.Code == "SKD-A" && !time.Now().Before(p.settled):
		return probe.Answer{Count: 2, State: probe.StateCreated, Lines: -1, Raw: `{"count":2,"state":"created"}`}, nil
	case n >= 2:
		return probe.Answer{Count: 1, State: probe.StateCreated, Lines: -1, Raw: `{"count":1,"state":"created"}`}, nil
	}
	return probe.Answer{Lines: -1, Raw: `{"count":0}`}, nil
}
func (p *lateCopies) Command(q probe.Question) string { return "ask " + q.Code }

// TestDocumentsJudgeLateCopies: a document the receiver held once when
// first found, whose re-delivery it stored later still, was judged held
// once; a receiver that stores after answering is asked again about each
// document of more than one call once the settle time is out.
func TestDocumentsJudgeLateCopies(t *testing.T) {
	d := NewDocuments()
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptB, 200, nil))
	const settle = 150 * time.Millisecond
	p := &lateCopies{asks: map[string]int{}, settled: time.Now().Add(settle)}
	// SKD-A is held twice only when asked once the settle time is out.
	v, err := d.Judge(context.Background(), p, settle)
	if err != nil {
		t.Fatal(err)
	}
	if v.Held != 1 || len(v.Broke) != 1 || v.Broke[0].Name() != "receipt SKD-A" || v.Broke[0].Defect() != "holds 2 records of it, want 1 (created)" {
		t.Errorf("verdict %+v, want SKD-A broken, held twice", v)
	}
}

// copiesOnFirstAsk answers as a probe over a receiver that stored the
// first call of each document at once and its re-delivery only after the
// probe's first question: SKD-A is held once when first asked, twice after.
type copiesOnFirstAsk struct {
	mu   sync.Mutex
	asks map[string]int
}

func (p *copiesOnFirstAsk) Ask(_ context.Context, q probe.Question) (probe.Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asks[q.Code]++
	if q.Code == "SKD-A" && p.asks[q.Code] > 1 {
		return probe.Answer{Count: 2, State: probe.StateCreated, Lines: -1, Raw: `{"count":2,"state":"created"}`}, nil
	}
	if strings.HasPrefix(q.Code, "WHSIM-NONE-") {
		return probe.Answer{Lines: -1, Raw: `{"count":0}`}, nil
	}
	return probe.Answer{Count: 1, State: probe.StateCreated, Lines: -1, Raw: `{"count":1,"state":"created"}`}, nil
}
func (p *copiesOnFirstAsk) Command(q probe.Question) string { return "ask " + q.Code }

// TestDocumentsJudgeCopiesAfterFirstAsk: every document held as it should
// be when first asked said nothing of a receiver storing late, and a
// re-delivery it stored a moment later was never seen: a document of more
// than one call is asked once more, once a queue that took no longer than
// the probe came would have stored its last call.
func TestDocumentsJudgeCopiesAfterFirstAsk(t *testing.T) {
	d := NewDocuments()
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptB, 200, nil))
	p := &copiesOnFirstAsk{asks: map[string]int{}}
	// Asked again a moment after the first answer, long before the
	// settle time is out.
	v, err := d.Judge(context.Background(), p, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if v.Held != 1 || len(v.Broke) != 1 || v.Broke[0].Name() != "receipt SKD-A" || v.Broke[0].Defect() != "holds 2 records of it, want 1 (created)" {
		t.Errorf("verdict %+v, want SKD-A broken, held twice", v)
	}
	if p.asks["SKD-B"] != 1 {
		t.Errorf("SKD-B, sent once and held, asked %d times, want 1", p.asks["SKD-B"])
	}
	// --settle 0 asks once.
	d = NewDocuments()
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
	p = &copiesOnFirstAsk{asks: map[string]int{}}
	if _, err := d.Judge(context.Background(), p, 0); err != nil || p.asks["SKD-A"] != 1 {
		t.Errorf("settle 0: asked %d times (%v), want once", p.asks["SKD-A"], err)
	}
}

// A document the receiver refused every call of is not judged on its
// state, but two records of it are wrong whatever it answered: a receiver
// that inserts, then answers 500, is sent the call again and keeps each
// copy. One record, or none, stays unjudged.
func TestDocumentsJudgeRefusedButStored(t *testing.T) {
	t.Parallel()
	d := NewDocuments()
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
	for range 3 {
		d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptB, 500, nil)) // stored each time, refused
	}
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptD, 500, nil)) // stored once, refused
	d.Observe(docCall("CREATE_PURCHASE_ORDER_INVOICE", invoiceC, 500, nil))
	p := fakeProbe{
		"SKD-A": {Count: 1, State: "created", Lines: -1},
		"SKD-B": {Count: 3, State: "created", Lines: -1},
		"SKD-D": {Count: 1, State: "created", Lines: -1},
	}
	v, err := d.Judge(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Asked != 2 || v.Held != 1 || v.Unjudged != 2 || len(v.Broke) != 1 {
		t.Fatalf("verdict %+v, want 2 asked (A held, B broke), D and C unjudged", v)
	}
	b := v.Broke[0]
	want := "holds 3 records of it, want at most 1: it acknowledged none of its 3 calls, and stored calls it refused (a sender sends a refused call again)"
	if b.Name() != "receipt SKD-B" || b.Defect() != want {
		t.Errorf("broke %s: %q, want %q", b.Name(), b.Defect(), want)
	}

	// Only refused documents, and a probe that answers of every document
	// (count 2 of each): the probe's error, not two documents broke.
	d = NewDocuments()
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptB, 500, nil))
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptD, 500, nil))
	all := &probe.Cmd{Run: `echo '{"count":2,"state":"created"}'`, Timeout: time.Minute}
	v, err = d.Judge(context.Background(), all, 0)
	var pe *probe.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "a document never sent, it answered") {
		t.Errorf("verdict %+v, err %v; want the probe's error", v, err)
	}
}

// Document numbers and requestIds are the sender's, and may be as long as
// a body: the documents followed keep at most keepBytes of them, and a
// document past that is counted not followed, as one past maxDocuments.
func TestDocumentsKeepBoundedBytes(t *testing.T) {
	t.Parallel()
	d := NewDocuments()
	d.keepBytes = 10_000
	long := strings.Repeat("x", 3000)
	for i := range 5 {
		body := fmt.Sprintf(`{"requestId":"r-%d","data":{"收款单":{"收款单编号":"SKD-%d-%s"}}}`, i, i, long)
		d.Observe(docCall("CREATE_RECEIVABLE_DOC", body, 200, nil))
	}
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil)) // short: still fits
	if len(d.Docs()) != 4 || d.Untracked != 2 || d.kept > d.keepBytes {
		t.Errorf("followed %d, untracked %d, kept %d of %d; want 4 followed (3 long, A), 2 untracked", len(d.Docs()), d.Untracked, d.kept, d.keepBytes)
	}
	if got := d.Docs()[3].Q.Code; got != "SKD-A" {
		t.Errorf("the fourth document followed is %.20q, want SKD-A", got)
	}
}

// FollowedDocuments, which listen's summary prints, is written from the
// bounds themselves.
func TestFollowedDocumentsSaysTheBounds(t *testing.T) {
	if got, want := FollowedDocuments(), "100,000, or 64 MiB of their numbers and requestIds"; got != want {
		t.Errorf("FollowedDocuments() = %q, want %q", got, want)
	}
}

// The question about a document names the call that created it: a void
// that came first gives way to the create, and a copy of the create does
// not take its place.
func TestDocumentsQuestionNamesTheCreate(t *testing.T) {
	t.Parallel()
	d := NewDocuments()
	voidFirst := `{"requestId":"r-void","data":{"收款单":{"收款单编号":"SKD-V"}}}`
	create := `{"requestId":"r-create","data":{"收款单":{"收款单编号":"SKD-V"}}}`
	copyOf := `{"requestId":"r-copy","data":{"收款单":{"收款单编号":"SKD-V"}}}`
	d.Observe(docCall("ABANDON_RECEIVABLE_DOC", voidFirst, 200, nil))
	if q := d.Docs()[0].Q; q.Event != "ABANDON_RECEIVABLE_DOC" || q.RequestID != "r-void" {
		t.Fatalf("after the void alone: %s %s, want ABANDON_RECEIVABLE_DOC r-void", q.Event, q.RequestID)
	}
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", create, 200, nil))
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", copyOf, 200, nil))
	if q := d.Docs()[0].Q; q.Event != "CREATE_RECEIVABLE_DOC" || q.RequestID != "r-create" {
		t.Errorf("question names %s %s, want CREATE_RECEIVABLE_DOC r-create", q.Event, q.RequestID)
	}
}

// A document whose numbers fill the bytes kept to the last byte is still
// followed; one byte more is not.
func TestDocumentsKeepBytesToTheByte(t *testing.T) {
	t.Parallel()
	size := len("SKD-A") + len("r-1") // receiptA's code and requestId
	for _, tc := range []struct {
		keep      int
		followed  int
		untracked int
	}{
		{keep: size, followed: 1},
		{keep: size - 1, untracked: 1},
	} {
		d := NewDocuments()
		d.keepBytes = tc.keep
		d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
		if len(d.Docs()) != tc.followed || d.Untracked != tc.untracked {
			t.Errorf("keep %d bytes for %d: followed %d, untracked %d; want %d, %d", tc.keep, size, len(d.Docs()), d.Untracked, tc.followed, tc.untracked)
		}
	}
}

// At maxDocuments followed, a new document is not followed: the bound is
// the count, not one past it.
func TestDocumentsFollowAtMostMaxDocuments(t *testing.T) {
	t.Parallel()
	d := NewDocuments()
	// Stand-ins for the documents already followed: only their count is read.
	d.order = make([]*Doc, maxDocuments-1)
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptB, 200, nil))
	if len(d.order) != maxDocuments || d.Untracked != 1 {
		t.Errorf("followed %d, untracked %d; want %d followed and the last one untracked", len(d.order), d.Untracked, maxDocuments)
	}
}

// A document keeps the first maxDocFaults faults for its reason, no more.
func TestDocumentsKeepMaxDocFaults(t *testing.T) {
	t.Parallel()
	d := NewDocuments()
	for i := range maxDocFaults + 2 {
		d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, &capture.Fault{Kind: "duplicate", Attempt: i + 1, Deliveries: []capture.Delivery{{Status: 200}}}))
	}
	if got := len(d.Docs()[0].Faults); got != maxDocFaults {
		t.Errorf("kept %d faults, want %d", got, maxDocFaults)
	}
}

// What the receiver took of a document is read from its answers: a 2xx
// to a whole copy (a fault's delivery or a forward) is the event taken;
// a refusal is not; an answer that did not come whole may have been.
func TestDocumentsWantFromTheAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		call  *Call
		want  string
		maybe bool
	}{
		{"forward 200", docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil), "created", false},
		{"forward 500", docCall("CREATE_RECEIVABLE_DOC", receiptA, 500, nil), "", false},
		{"fault delivered 200", docCall("CREATE_RECEIVABLE_DOC", receiptA, 0,
			&capture.Fault{Kind: "delay", Deliveries: []capture.Delivery{{Status: 200}}}), "created", false},
		{"fault delivered 500", docCall("CREATE_RECEIVABLE_DOC", receiptA, 0,
			&capture.Fault{Kind: "delay", Deliveries: []capture.Delivery{{Status: 500}}}), "", false},
		{"answer cut short after 200", func() *Call {
			c := docCall("CREATE_RECEIVABLE_DOC", receiptA, 0, nil)
			c.Record.Forward = &capture.Forward{Status: 200, Error: "answer cut short"}
			return c
		}(), "", true},
	} {
		d := NewDocuments()
		d.Observe(tc.call)
		doc := d.Docs()[0]
		if doc.Want != tc.want || (len(doc.Maybe) > 0) != tc.maybe {
			t.Errorf("%s: want %q, maybe %v; want %q, maybe %v", tc.name, doc.Want, doc.Maybe, tc.want, tc.maybe)
		}
	}
}

// Held is one record in the state wanted: a probe that counts none holds
// nothing, whatever state it names.
func TestDocumentsHeldIsExactlyOne(t *testing.T) {
	t.Parallel()
	for _, a := range []probe.Answer{{Count: 0, State: "created"}, {Count: 2, State: "created"}} {
		d := NewDocuments()
		d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
		v, err := d.Judge(context.Background(), fakeProbe{"SKD-A": a}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if v.Held != 0 || len(v.Broke) != 1 {
			t.Errorf("answer %+v: held %d, broke %d; want 0 held, 1 broke", a, v.Held, len(v.Broke))
		}
	}
}

// recordingProbe answers from a table by document code, as fakeProbe, and
// keeps every question it was asked.
type recordingProbe struct {
	mu      sync.Mutex
	answers map[string][]probe.Answer // by code, one a question; the last repeats
	asked   []probe.Question
}

func (p *recordingProbe) Ask(_ context.Context, q probe.Question) (probe.Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, a := range p.asked {
		if a.Code == q.Code && a.InvoiceCode == q.InvoiceCode {
			n++
		}
	}
	p.asked = append(p.asked, q)
	as := p.answers[q.Code+q.InvoiceCode]
	if len(as) == 0 {
		return probe.Answer{Lines: -1}, nil
	}
	return as[min(n, len(as)-1)], nil
}
func (p *recordingProbe) Command(q probe.Question) string { return "ask " + q.Code }

// times says how many questions were about code, and how many about a
// document never sent with no invoice number.
func (p *recordingProbe) times(code string) (n, bareNone int) {
	for _, q := range p.asked {
		if q.Code == code {
			n++
		}
		if strings.HasPrefix(q.Code, "WHSIM-NONE-") && q.Kind == spec.Invoice && q.InvoiceCode == "" {
			bareNone++
		}
	}
	return n, bareNone
}

// A document held only on its second question makes Judge ask once more,
// when settle is out, about each held document of more than one call, and
// about no other: SKD-A's re-delivery, stored late, is found; SKD-B, sent
// once, is not asked again.
func TestDocumentsJudgeAsksAgainAfterASecondQuestion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := NewDocuments()
		d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
		d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
		d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptB, 200, nil))
		one := probe.Answer{Count: 1, State: probe.StateCreated, Lines: -1}
		two := probe.Answer{Count: 2, State: probe.StateCreated, Lines: -1}
		p := &recordingProbe{answers: map[string][]probe.Answer{
			"SKD-A": {{Lines: -1}, one, two},
			"SKD-B": {one},
		}}
		v, err := d.Judge(context.Background(), p, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if v.Held != 1 || len(v.Broke) != 1 || v.Broke[0].Name() != "receipt SKD-A" {
			t.Errorf("verdict %+v, want SKD-A broken (held twice when asked again), SKD-B held", v)
		}
		if a, _ := p.times("SKD-A"); a != 3 {
			t.Errorf("SKD-A asked %d times, want 3", a)
		}
		if b, _ := p.times("SKD-B"); b != 1 {
			t.Errorf("SKD-B, sent once and held when first asked, asked %d times, want 1", b)
		}
	})
}

// An acknowledged document past its state by an unanswered event says so
// in its defect, and a copy of the acknowledged event does not.
func TestDocumentsDefectNamesOnlyStatesPastWant(t *testing.T) {
	t.Parallel()
	unanswered := func() *Call {
		c := docCall("CREATE_RECEIVABLE_DOC", receiptA, 0, nil)
		c.Record.Forward = &capture.Forward{Error: "connection reset"}
		return c
	}
	d := NewDocuments()
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptA, 200, nil))
	d.Observe(unanswered())
	v, err := d.Judge(context.Background(), fakeProbe{"SKD-A": {Count: 2, State: "created"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Broke) != 1 || v.Broke[0].Defect() != "holds 2 records of it, want 1 (created)" {
		t.Errorf("verdict %+v; want SKD-A broke, holding 2 records (want 1, created) and nothing more said", v)
	}
}

// The probe's sanity question (a document never sent) is asked of each
// kind Judge asked about, and only of those: a refused document holding
// one record is not asked about, so its kind gets no such question; an
// invoice with an invoice number gets one, with that number.
func TestDocumentsJudgeNeverSentQuestions(t *testing.T) {
	t.Parallel()
	d := NewDocuments()
	d.Observe(docCall("CREATE_RECEIVABLE_DOC", receiptB, 500, nil))
	d.Observe(docCall("CREATE_PURCHASE_ORDER_INVOICE", `{"requestId":"r-7","data":{"code":"CGFP-G","invoiceCode":"INV-G"}}`, 200, nil))
	p := &recordingProbe{answers: map[string][]probe.Answer{
		"SKD-B":       {{Count: 1, State: "created", Lines: -1}},
		"CGFP-GINV-G": {{Count: 1, State: "created", Lines: -1}},
	}}
	v, err := d.Judge(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Asked != 1 || v.Held != 1 || v.Unjudged != 1 {
		t.Errorf("verdict %+v, want the invoice held, SKD-B unjudged", v)
	}
	var receipts, invoices int
	for _, q := range p.asked {
		if strings.HasPrefix(q.Code, "WHSIM-NONE-") {
			if q.Kind == spec.Receipt {
				receipts++
			} else {
				invoices++
			}
		}
	}
	if _, bare := p.times(""); receipts != 0 || invoices != 1 || bare != 0 {
		t.Errorf("never-sent questions: %d receipts, %d invoices (%d without an invoice number); want 0, 1, 0", receipts, invoices, bare)
	}
}

// A document number that is no string (check's malformed call sends an
// invoice's code as 12345) is no number listen knows: the receiver may
// hold the invoice under it, and listen asked by its invoiceCode and
// said "holds nothing for it, though it acknowledged its created event".
// It is not followed; a string number, an empty one too, is.
func TestDocumentsNumberNoString(t *testing.T) {
	for _, tt := range []struct {
		name, event, body string
		followed          bool
	}{
		{"invoice code a number", "CREATE_PURCHASE_ORDER_INVOICE", `{"requestId":"r-1","data":{"code":12345,"invoiceCode":"INV-1"}}`, false},
		{"invoice code an object", "CREATE_PURCHASE_ORDER_INVOICE", `{"requestId":"r-1","data":{"code":{},"invoiceCode":"INV-1"}}`, false},
		{"receipt number a number", "CREATE_RECEIVABLE_DOC", `{"requestId":"r-1","data":{"收款单":{"收款单编号":7}}}`, false},
		{"invoice code empty", "CREATE_PURCHASE_ORDER_INVOICE", `{"requestId":"r-1","data":{"code":"","invoiceCode":"INV-1"}}`, true},
		{"invoice code null", "CREATE_PURCHASE_ORDER_INVOICE", `{"requestId":"r-1","data":{"code":null,"invoiceCode":"INV-1"}}`, true},
		{"invoice code a string", "CREATE_PURCHASE_ORDER_INVOICE", `{"requestId":"r-1","data":{"code":"CGFP-1"}}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDocuments()
			d.Observe(docCall(tt.event, tt.body, 200, nil))
			if got := len(d.Docs()) == 1 && d.Untracked == 0; got != tt.followed {
				t.Errorf("docs %d, untracked %d; want followed %v", len(d.Docs()), d.Untracked, tt.followed)
			}
		})
	}
}
