package check

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/probe"
	"github.com/whsim/whsim/internal/reqid"
	"github.com/whsim/whsim/internal/spec"
)

// DefaultSettle is how long a document's probe may take to match by
// default. A receiver that answers first and stores from a queue stores
// within milliseconds when idle and within a second or so when a worker
// polls its queue; two seconds covers that, and because every document is
// probed at once at the end of its sequence, a run pays it about once, and
// only for a document that is wrong.
const DefaultSettle = 2 * time.Second

// loadSample is how many load documents are probed at most: all of a run
// of the default size, a random sample of a longer one.
const loadSample = 200

// skippedEffects is the reason effects is skipped without a probe.
const skippedEffects = "effects needs a probe: it would have proved that the receiver stored each document once (re-deliveries, retries and copies arriving together not again, large documents whole), applied voids and audits in any order, and kept every document of the load check; turn it on with --probe <url-template> or --probe-cmd <command>"

// EffectsStats are the figures of the effects check.
type EffectsStats struct {
	// Documents is how many documents the probe was asked about, load's
	// included; not those left inconclusive, their calls not accepted.
	Documents int
	// Load and LoadHeld are the load documents answered 2xx and how many
	// of them were probed (all, or a random sample).
	Load, LoadProbed int
	// Slowest is the longest a document took, from its last call, to
	// match; SlowestDoc names it.
	Slowest    time.Duration
	SlowestDoc string
	Settle     time.Duration
	// NoneHeld: the probe held not one document of the run, likelier a
	// probe asking about other numbers than a receiver losing them all.
	NoneHeld bool
	// NoneHeldOf are the kinds ("receipt") of which the probe held not one
	// document while it held others': a probe asking another table or
	// number for that kind, as likely as a receiver losing all of it.
	NoneHeldOf []string
	// ProbeNotFound: the probe answered 404 for every document it was
	// asked about, each acknowledged with 2xx: as likely a --probe URL
	// that matches no route of the receiver's as a receiver that lost
	// them all.
	ProbeNotFound bool
	// SaidFailed, where the probe held none of the documents asked about
	// and the receiver's own 2xx answers to the calls of each said the
	// call failed, is what the first said (`"success": false`): the
	// probe is not in doubt.
	SaidFailed string
}

// numbering gives the documents whsim probes their numbers and, with a
// run nonce, requestIds of their own: a receiver keeps what earlier runs
// sent it, so a run's documents must not be those of the run before.
type numbering struct {
	mu    sync.Mutex
	tag   string
	nonce uint64
	seq   uint64
}

// codeAlphabet is Crockford's base 32: no I, L, O or U to misread, and
// nothing a shell, a URL or SQL must escape.
const codeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

func newNumbering(seed, nonce uint64) *numbering {
	x := seed
	if nonce != 0 {
		x = nonce
	}
	x = reqid.Spread(x ^ 0x5bd1e9955bd1e995)
	var tag [6]byte
	for i := range tag {
		tag[i] = codeAlphabet[x%32]
		x /= 32
	}
	return &numbering{tag: string(tag[:]), nonce: nonce}
}

// number gives the document of env a fresh number and, with a nonce, env a
// fresh requestId; it returns the probe.Question that asks about it.
func (b *builder) number(env *payload.Obj, e spec.Event, s spec.Shape) probe.Question {
	code := b.numbers.next(e.Kind)
	raw, _ := json.Marshal(code)
	_ = set(env, pathOf(e.Kind, s, codeDatum(e.Kind)), string(raw))
	b.fresh(env)
	q := probe.Question{Kind: e.Kind, Code: code, Event: e.Name}
	q.RequestID, _ = getString(env, spec.FieldRequestID)
	if p := pathOf(e.Kind, s, spec.InvNumber); p != "" {
		q.InvoiceCode, _ = lookupString(env, p)
	}
	return q
}

// next draws a document number of the run's own: PREFIX-TAG-SEQ.
func (n *numbering) next(k spec.Kind) string {
	n.mu.Lock()
	n.seq++
	seq := n.seq
	n.mu.Unlock()
	prefix := "CGFP"
	if k == spec.Receipt {
		prefix = "SKD"
	}
	return fmt.Sprintf("%s-%s-%04d", prefix, n.tag, seq)
}

// renumber gives one document, sent as envs (its events), a number of the
// run's own when the run has a nonce, as effects' documents have: the same
// seed then sends the same documents under numbers no earlier run sent.
// Without a nonce (--fixed-ids) the seed's numbers repeat byte for byte.
func (b *builder) renumber(k spec.Kind, s spec.Shape, envs ...*payload.Obj) {
	if b.numbers == nil || b.numbers.nonce == 0 {
		return
	}
	raw, _ := json.Marshal(b.numbers.next(k))
	for _, env := range envs {
		_ = set(env, pathOf(k, s, codeDatum(k)), string(raw))
	}
}

// fresh gives env a requestId of the run's own when the run has a nonce.
func (b *builder) fresh(env *payload.Obj) *payload.Obj {
	n := b.numbers
	if n == nil || n.nonce == 0 {
		return env
	}
	n.mu.Lock()
	n.seq++
	seq := n.seq
	n.mu.Unlock()
	env.Put(spec.FieldRequestID, reqid.For(n.nonce, "whsim check "+n.tag, seq))
	return env
}

func codeDatum(k spec.Kind) spec.Datum {
	if k == spec.Receipt {
		return spec.RecNumber
	}
	return spec.InvCode
}

func linesDatum(k spec.Kind) spec.Datum {
	if k == spec.Receipt {
		return spec.RecLines
	}
	return spec.InvItems
}

// pathOf is the dotted path of the field carrying datum in the body of a
// kind in a shape, from the spec's table; "" when the shape has none.
func pathOf(k spec.Kind, s spec.Shape, d spec.Datum) string {
	var find func(f spec.Field, path string) string
	find = func(f spec.Field, path string) string {
		for _, m := range f.Fields {
			p := path + "." + m.Name
			if m.Of == d {
				return p
			}
			if m.Type == spec.Object {
				if q := find(m, p); q != "" {
					return q
				}
			}
		}
		return ""
	}
	return find(spec.Data(k, s), spec.FieldData)
}

func getString(o *payload.Obj, key string) (string, bool) {
	v, ok := o.Get(key)
	s, _ := v.(string)
	return s, ok
}

func lookupString(doc *payload.Obj, path string) (string, bool) {
	p, err := payload.ParsePath(path)
	if err != nil {
		return "", false
	}
	v, ok := payload.Lookup(doc, p)
	s, _ := v.(string)
	return s, ok
}

// linesOf is how many lines the document of env carries.
func linesOf(env *payload.Obj, k spec.Kind, s spec.Shape) int {
	p, err := payload.ParsePath(pathOf(k, s, linesDatum(k)))
	if err != nil {
		return -1
	}
	v, _ := payload.Lookup(env, p)
	lines, ok := v.([]any)
	if !ok {
		return -1
	}
	return len(lines)
}

// expect is what a probe must answer for a document.
type expect struct {
	state string // "" any
	lines int    // -1 any
}

func (e expect) met(a probe.Answer) bool {
	return a.Count == 1 && (e.state == "" || a.State == e.state) && (e.lines < 0 || a.Lines < 0 || a.Lines == e.lines)
}

// effStep is one call of a document's sequence.
type effStep struct {
	c      *Case
	copies int  // delivered this many times (0: once)
	atOnce bool // all copies together
	retry  bool // delivered twice, the second as a sender's retry
	early  bool // before its create: sent again after it unless it got 2xx
}

// sentCall is a call as it was delivered, for the reason and the
// reproduction.
type sentCall struct {
	step    effStep
	req     *attempt.Request  // the first delivery, headers as sent
	retried *attempt.Request  // a sender's retry, with its fresh signature
	answers []attempt.Attempt // one per delivery
	again   bool              // an early call sent again after the create
	copies  int
	// together, for copies at once, is the most that were in flight at
	// one moment (runner.burst).
	together int
}

// effDoc is a document the effects check follows, from its calls to the
// probe's last answer.
type effDoc struct {
	// began is when its first call went out (sendDoc).
	began time.Time
	name  string
	what  string // created, re-delivered, lifecycle, out-of-order, load
	q     probe.Question
	shape spec.Shape
	lines int
	want  expect
	steps []effStep

	sent  []sentCall
	end   time.Time
	skip  string // inconclusive: why the document cannot be judged
	early *sentCall

	ans  probe.Answer
	asks int
	met  bool
	// firstAsked is when the probe was first asked about it.
	firstAsked time.Time
	// changed: an answer differed from the one before it, so the
	// receiver stored something of it while the probe asked.
	changed bool
	// seq is the order it was sent in: 1, 2, ... for effects' own
	// documents, in turn; 0 for load's, all sent before them.
	seq  int
	took time.Duration
	// twin, for copies at once under new requestIds, is the document
	// whose copies arrived at once under one requestId: whether it was
	// doubled too tells a race from the requestId trap.
	twin *effDoc
	// serial, for copies at once and copies under new requestIds, is the
	// document re-delivered in turn under one requestId: held more than
	// once too, the receiver stores every delivery, which is neither a
	// race between copies nor the requestId trap.
	serial *effDoc
	// alone, for a create then a follow-up (lifecycle), is the created
	// case of its kind: held, it tells a follow-up that removed the
	// document from a create never stored.
	alone *effDoc
}

// effects builds the documents of the effects check.
func (b *builder) effects(serial, concurrent int) []*effDoc {
	var docs []*effDoc
	inv, rcp := b.creates[spec.Invoice], b.creates[spec.Receipt]
	audit, void := b.follows[spec.Invoice], b.follows[spec.Receipt]
	newDoc := func(what, name string, e spec.Event, s spec.Shape, env *payload.Obj) (*effDoc, *Case) {
		q := b.number(env, e, s)
		// Every document is held whole, lines as sent: a re-delivered
		// one was judged on its count alone, and a receiver that inserted
		// its lines again with each delivery passed.
		lines := linesOf(env, e.Kind, s)
		d := &effDoc{what: what, name: what + "/" + name, q: q, shape: s, lines: lines, want: expect{state: probe.StateCreated, lines: lines}}
		return d, docCase(Effects, d.name, e, env)
	}
	follow := func(d *effDoc, e spec.Event, s spec.Shape, data *payload.Obj) *Case {
		return docCase(Effects, d.name, e, b.fresh(b.g.Envelope(e, s, data.Clone())))
	}

	// created once: every creating event in both shapes, and a large one.
	for _, k := range kinds() {
		e := b.creates[k]
		for _, s := range spec.Shapes() {
			d, c := newDoc("created", e.Name+"/"+string(s), e, s, b.g.Build(e, s))
			d.steps = []effStep{{c: c}}
			docs = append(docs, d)
		}
	}
	d, c := newDoc("created", inv.Name+"/large-300-lines", inv, spec.Described, b.largeInvoice(inv, 300))
	d.steps = []effStep{{c: c}}
	docs = append(docs, d)

	// re-delivered: in turn, together, and as a sender's retry.
	for _, k := range kinds() {
		e := b.creates[k]
		d, c := newDoc("re-delivered", fmt.Sprintf("%s/serial-x%d", e.Name, serial), e, spec.Described, b.g.Build(e, spec.Described))
		d.steps = []effStep{{c: c, copies: serial}}
		docs = append(docs, d)
		inTurn := d
		d, c = newDoc("re-delivered", fmt.Sprintf("%s/concurrent-x%d", e.Name, concurrent), e, spec.Described, b.g.Build(e, spec.Described))
		d.steps = []effStep{{c: c, copies: concurrent, atOnce: true}}
		d.serial = inTurn
		docs = append(docs, d)
		d, c = newDoc("re-delivered", e.Name+"/sender-retry", e, spec.Described, b.g.Build(e, spec.Described))
		d.steps = []effStep{{c: c, retry: true}}
		docs = append(docs, d)
	}

	// lifecycle and out of order: audit and void after and before create.
	for _, t := range []struct {
		create, follow spec.Event
		state          string
	}{{inv, audit, spec.StateAfter(audit)}, {rcp, void, spec.StateAfter(void)}} {
		data := b.g.DataFor(t.create, spec.Described, t.follow)
		d, c := newDoc("lifecycle", t.follow.Name+"/after-create", t.create, spec.Described, b.g.Envelope(t.create, spec.Described, data))
		d.want.state = t.state
		if i := slices.IndexFunc(docs, func(o *effDoc) bool { return o.name == "created/"+t.create.Name+"/"+string(spec.Described) }); i >= 0 {
			d.alone = docs[i]
		}
		d.steps = []effStep{{c: c}, {c: follow(d, t.follow, spec.Described, data)}}
		docs = append(docs, d)

		data = b.g.DataFor(t.create, spec.Described, t.follow)
		env := b.g.Envelope(t.create, spec.Described, data)
		d, c = newDoc("out-of-order", t.follow.Name+"/before-create", t.create, spec.Described, env)
		d.want.state = t.state
		d.steps = []effStep{{c: follow(d, t.follow, spec.Described, data), early: true}, {c: c}}
		docs = append(docs, d)
	}

	// the same document again under new requestIds, in turn and together
	// (the requestId trap); last, so that the other documents keep their
	// numbers.
	for _, k := range kinds() {
		e := b.creates[k]
		var twin *effDoc
		for _, o := range docs {
			if o.what == "re-delivered" && o.q.Kind == k && o.steps[0].atOnce {
				twin = o
			}
		}
		var inTurn *effDoc
		if twin != nil {
			inTurn = twin.serial
		}
		d, c := newDoc("re-delivered", fmt.Sprintf("%s/%s-serial-x%d", e.Name, newRequestID, serial), e, spec.Described, b.g.Build(e, spec.Described))
		c.NewRequestIDs = true
		d.steps = []effStep{{c: c, copies: serial}}
		d.serial = inTurn
		docs = append(docs, d)
		d, c = newDoc("re-delivered", fmt.Sprintf("%s/%s-concurrent-x%d", e.Name, newRequestID, concurrent), e, spec.Described, b.g.Build(e, spec.Described))
		c.NewRequestIDs = true
		d.steps = []effStep{{c: c, copies: concurrent, atOnce: true}}
		d.twin = twin
		d.serial = inTurn
		docs = append(docs, d)
	}

	// An audit in the sample shape carries 4000, as a create's sample
	// body does: only the query's businessType says it is an audit, and a
	// receiver that routes on the body number reads it as a create of a
	// document held, and drops it. Last, as the trap's, so that the other
	// documents keep their numbers.
	data := b.g.DataFor(inv, spec.Sample, audit)
	d, c = newDoc("lifecycle", audit.Name+"/after-create-"+string(spec.Sample), inv, spec.Sample, b.g.Envelope(inv, spec.Sample, data))
	d.want.state = spec.StateAfter(audit)
	if i := slices.IndexFunc(docs, func(o *effDoc) bool { return o.name == "created/"+inv.Name+"/"+string(spec.Sample) }); i >= 0 {
		d.alone = docs[i]
	}
	d.steps = []effStep{{c: c}, {c: follow(d, audit, spec.Sample, data)}}
	docs = append(docs, d)
	return docs
}

// probeSanity asks about a document of each of ks that cannot exist: a
// probe that cannot answer count 0 for it is the probe's error, not the
// receiver's. The run asks before the first case (round 0) and again,
// about the kinds it probed, once its documents are probed (round 1): a
// probe that ignores the document it is asked about answers 0 on a store
// still empty, and then the count of every document the receiver holds.
//
// bare asks once more about the invoice, as about one in the sample
// shape, which carries no invoice number (the run probed such an
// invoice): a probe that finds invoices by {invoiceCode} alone counts
// every invoice stored without one, and would grade those of the run on
// the count of others.
func (r *runner) probeSanity(ctx context.Context, round uint64, bare bool, ks ...spec.Kind) error {
	n := r.cases.numbers
	for i, k := range ks {
		code := "CGFP-" + n.tag + "-NONE"
		if k == spec.Receipt {
			code = "SKD-" + n.tag + "-NONE"
		}
		q := probe.Question{Kind: k, Code: code, Event: r.cases.creates[k].Name,
			RequestID: reqid.For(r.cfg.Seed^n.nonce, "whsim check sanity", 2*round+uint64(i))}
		if k == spec.Invoice {
			// Nor its invoice number: a probe may ask by {invoiceCode}.
			q.InvoiceCode = code
		}
		if err := probe.AskNeverSent(ctx, r.cfg.Probe, q); err != nil {
			return err
		}
		if k == spec.Invoice && bare {
			q.InvoiceCode = ""
			q.RequestID = reqid.For(r.cfg.Seed^n.nonce, "whsim check sanity", 2*round+uint64(len(ks)))
			if err := probe.AskNeverSent(ctx, r.cfg.Probe, q); err != nil {
				return err
			}
		}
	}
	return nil
}

// effects sends each document's sequence, then probes every document at
// once, load's included, and judges what the receiver holds.
func (r *runner) effects(ctx context.Context) error {
	began := time.Now()
	if r.cfg.Probe == nil {
		r.skip(Effects, skippedEffects)
		return nil
	}
	// --exclude-cases leaves out documents as it leaves out other checks'
	// cases: not sent, not judged; with every one left out, effects is
	// skipped, not passed.
	docs := slices.DeleteFunc(r.cases.effects(serialCopies, r.cfg.Concurrent), func(d *effDoc) bool {
		return r.excluded(&Case{Check: Effects, Name: d.name})
	})
	for i, d := range docs {
		d.seq = i + 1
		if err := r.sendDoc(ctx, d); err != nil {
			return err
		}
	}
	var load []*effDoc
	underLoad := r.loadSent != nil && !r.excluded(underLoadCase())
	if underLoad {
		load = r.loadDocs()
	}
	if len(docs) == 0 && !underLoad {
		r.skip(Effects, SkippedExcluded)
		return nil
	}
	probed := append(docs, load...)
	if err := r.probeAll(ctx, probed); err != nil {
		return err
	}
	// Once the documents' answers are in (a receiver storing from a queue
	// has stored by then what it will): a probe that ignores the document
	// it is asked about answers of those the receiver holds.
	bare := slices.ContainsFunc(probed, func(d *effDoc) bool { return d.skip == "" && d.q.Kind == spec.Invoice && d.q.InvoiceCode == "" })
	if err := r.probeSanity(ctx, 1, bare, probedKinds(probed)...); err != nil {
		return err
	}
	st := &EffectsStats{LoadProbed: len(load), Settle: r.cfg.Settle}
	if r.loadSent != nil {
		st.Load = r.loadSent.held
	}
	asked, held := 0, 0
	askedOf, heldOf := map[spec.Kind]int{}, map[spec.Kind]int{}
	for _, d := range probed {
		if d.met && d.took > st.Slowest {
			st.Slowest, st.SlowestDoc = d.took, probe.KindWord(d.q.Kind)+" "+d.q.Code
		}
		if d.asks > 0 {
			asked++
			askedOf[d.q.Kind]++
			if d.ans.Count > 0 {
				held++
				heldOf[d.q.Kind]++
			}
		}
	}
	// A document whose own call was not accepted is inconclusive and never
	// asked about: it is not counted as probed.
	st.Documents = asked
	st.NoneHeld = asked > 0 && held == 0
	if st.NoneHeld && !slices.ContainsFunc(probed, func(d *effDoc) bool { return d.asks > 0 && d.saidFailed() == "" }) {
		// The receiver said it failed every call whose document the probe
		// did not find: the probe is right, not in doubt.
		i := slices.IndexFunc(probed, func(d *effDoc) bool { return d.asks > 0 })
		st.SaidFailed = probed[i].saidFailed()
	}
	st.ProbeNotFound = st.NoneHeld && st.SaidFailed == "" && !slices.ContainsFunc(probed, func(d *effDoc) bool { return d.asks > 0 && !d.ans.NotFound })
	if st.ProbeNotFound {
		r.probeNotFound = probeNotFound(asked)
	}
	for _, k := range kinds() {
		if !st.NoneHeld && askedOf[k] > 0 && heldOf[k] == 0 {
			st.NoneHeldOf = append(st.NoneHeldOf, probe.KindWord(k))
		}
	}
	r.sum.Effects = st
	switch i := slices.IndexFunc(probed, func(d *effDoc) bool { return d.changed }); {
	case st.Slowest > 0:
		r.storesLate = fmt.Sprintf("%s was held only %s after its last call", st.SlowestDoc, ms(st.Slowest))
	case i >= 0:
		r.storesLate = fmt.Sprintf("the probe's answer about %s %s changed while it asked", probe.KindWord(probed[i].q.Kind), probed[i].q.Code)
	case behind(probed):
		r.storesLate = "every document it holds was sent before every one it holds nothing of, as from a queue that is behind"
	}
	// Each document's time runs from its first call to its judging: all
	// are probed at the end, so they overlap, as JUnit's suite time (the
	// span, by Ended) allows; the load's, from the check's start.
	for _, d := range docs {
		res := r.judgeDoc(d)
		res.Took = max(time.Since(d.began), 1)
		r.report(res)
	}
	if underLoad {
		res := r.judgeLoad(load, st, docs)
		res.Took = max(time.Since(began), 1)
		r.report(res)
	}
	return nil
}

// behind reports whether the documents held are the first sent and those
// held not at all the last, some of each: the shape of a receiver storing
// from a queue that has not yet reached the rest, as much as of one that
// lost them. Load's documents count as sent before effects' own, in no
// order among themselves.
func behind(docs []*effDoc) bool {
	lastHeld, firstNot := -1, -1
	for _, d := range docs {
		switch {
		case d.asks == 0:
		case d.ans.Count > 0:
			lastHeld = max(lastHeld, d.seq)
		case firstNot < 0 || d.seq < firstNot:
			firstNot = d.seq
		}
	}
	return lastHeld >= 0 && firstNot >= 0 && (lastHeld < firstNot || lastHeld == 0 && firstNot == 0)
}

// probedKinds are the kinds of the docs the probe is to be asked about,
// in kinds' order: not of those left inconclusive, whose calls were not
// accepted (a receiver that takes no receipts may have no store for them).
func probedKinds(docs []*effDoc) []spec.Kind {
	var ks []spec.Kind
	for _, k := range kinds() {
		if slices.ContainsFunc(docs, func(d *effDoc) bool { return d.q.Kind == k && d.skip == "" }) {
			ks = append(ks, k)
		}
	}
	return ks
}

// sendDoc delivers a document's sequence in turn; an early call that got
// no 2xx is sent again after the create, as the ERP would.
func (r *runner) sendDoc(ctx context.Context, d *effDoc) error {
	d.began = time.Now()
	n := len(d.steps)
	steps := append([]effStep(nil), d.steps...)
	for i := 0; i < len(steps); i++ {
		st := steps[i]
		sc := sentCall{step: st, copies: max(st.copies, 1), again: i >= n}
		sc.req = r.request(st.c, true)
		if st.atOnce {
			results, together, err := r.burst(st.c, sc.copies)
			if err != nil {
				return err
			}
			sc.together = together
			for _, res := range results {
				sc.answers = append(sc.answers, res.Last())
			}
		} else {
			for k := range sc.copies {
				req := sc.req
				if k > 0 {
					req = r.request(st.c.Delivery(k), true)
				}
				a, err := r.deliverOne(ctx, st.c, req)
				if err != nil {
					return err
				}
				sc.answers = append(sc.answers, a)
			}
		}
		if st.retry {
			// A sender's retry: the same requestId and webhook-id, a
			// timestamp a moment later and so a signature of its own.
			sc.retried = r.request(st.c, false)
			if r.cfg.Signer != nil {
				r.cfg.Signer.Sign(sc.retried.Header, r.cases.webhookID(st.c), r.cfg.Now().Add(time.Second), st.c.Body)
			}
			a, err := r.deliverOne(ctx, st.c, sc.retried)
			if err != nil {
				return err
			}
			sc.answers = append(sc.answers, a)
		}
		d.sent = append(d.sent, sc)
		if st.early && !sc.again && !is2xx(sc.answers[0].Status) {
			again := st
			again.early = false
			steps = append(steps, again)
		}
	}
	d.end = time.Now()
	for i := range d.sent {
		sc := &d.sent[i]
		if sc.step.early {
			d.early = sc
			continue
		}
		if !slices.ContainsFunc(sc.answers, func(a attempt.Attempt) bool { return is2xx(a.Status) }) {
			d.skip = fmt.Sprintf("%s %s: inconclusive, the call itself was not accepted (accepts-valid judges that)", sc.step.c.Event, answer(sc.answers[0]))
			break
		}
	}
	return nil
}

func (r *runner) deliverOne(ctx context.Context, c *Case, req *attempt.Request) (attempt.Attempt, error) {
	n := r.begin()
	res := r.deliverer().Deliver(ctx, req)
	return res.Last(), r.record(c, res, call{n: n})
}

// probeAll asks about every document at once (probe.Concurrency
// questions at a time), each again with backoff until it matches or the
// settle time runs out.
//
// A receiver that held some document only after it was first asked stores
// after it answers (from a queue): the later copies of a document it held
// once, or a late follow-up, may land after that first match. So once
// every document has settled, each of more than one call that matched is
// asked once more, and judged on that answer: when is probe.AgainAt's.
func (r *runner) probeAll(ctx context.Context, docs []*effDoc) error {
	asked := slices.DeleteFunc(slices.Clone(docs), func(d *effDoc) bool { return d.skip != "" })
	deadline := time.Now().Add(r.cfg.Settle)
	ask := func(ctx context.Context, d *effDoc) error {
		a, err := r.cfg.Probe.Ask(ctx, d.q)
		if err != nil {
			return err
		}
		d.changed = d.changed || d.asks > 0 && (a.Count != d.ans.Count || a.State != d.ans.State || a.Lines != d.ans.Lines)
		if d.asks == 0 {
			d.firstAsked = time.Now()
		}
		d.asks++
		d.ans = a
		d.met = d.want.met(a)
		return nil
	}
	err := probe.Settle(ctx, len(asked), deadline, func(ctx context.Context, i int) (bool, error) {
		d := asked[i]
		if err := ask(ctx, d); err != nil || !d.met {
			return false, err
		}
		// Held when first asked: it took no settling, however long the
		// other documents' calls kept it waiting.
		if d.asks > 1 {
			d.took = time.Since(d.end)
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	late := slices.ContainsFunc(asked, func(d *effDoc) bool { return d.asks > 1 })
	again := slices.DeleteFunc(asked, func(d *effDoc) bool { return !d.met || d.calls() < 2 })
	held := make([]probe.Sent, len(again))
	for i, d := range again {
		held[i] = probe.Sent{Began: d.began, End: d.end, FirstAnswer: d.firstAsked}
	}
	at, ok := probe.AgainAt(held, late, r.cfg.Settle, deadline)
	if !ok {
		return nil
	}
	if err := probe.WaitUntil(ctx, at); err != nil {
		return err
	}
	return probe.Settle(ctx, len(again), time.Time{}, func(ctx context.Context, i int) (bool, error) {
		return true, ask(ctx, again[i])
	})
}

// calls is how many deliveries were made for the document.
func (d *effDoc) calls() int {
	n := 0
	for _, sc := range d.sent {
		n += len(sc.answers)
	}
	return n
}

// judgeDoc grades a document on the probe's last answer; the reason names
// the document, the calls sent for it and what the probe said.
func (r *runner) judgeDoc(d *effDoc) Result {
	last := d.sent[len(d.sent)-1]
	c := last.step.c
	res := Result{Case: c, Verdict: Pass, Status: last.answers[len(last.answers)-1].Status}
	switch {
	case d.skip != "":
		res.Verdict, res.Reason, res.Inconclusive = Warn, d.skip, true
		return res
	case d.met:
		for _, sc := range d.sent {
			if sc.step.atOnce && sc.together < 2 {
				res.Verdict, res.Reason, res.Inconclusive = Warn, fmt.Sprintf("%s %s is held once, but %s", probe.KindWord(d.q.Kind), d.q.Code, notTogether(sc.copies)), true
				break
			}
		}
		return res
	}
	res.Verdict = Fail
	res.Reason = fmt.Sprintf("%s %s: %s; calls: %s; the probe answered %s", probe.KindWord(d.q.Kind), d.q.Code, r.defect(d), callList(d), answerText(d))
	res.Repro, res.Effects, res.bodies = r.effectsRepro(d, c)
	return res
}

// defect says what a wrong answer shows about the receiver.
func (r *runner) defect(d *effDoc) string {
	a := d.ans
	settled := ""
	if r.cfg.Settle > 0 {
		settled = fmt.Sprintf(" (still so %s after its last call)", r.cfg.Settle)
	}
	switch {
	case a.Count == 0 && d.saidFailed() != "":
		// Not "acknowledged and lost", nor the probe in doubt: the
		// receiver said it did not store the calls, in the body of a
		// 2xx, which the ERP takes as delivered (accepts-valid warns).
		return saidFailedDefect(saidFailedWords(d)) + settled
	case a.Count == 0 && r.probeNotFound != "":
		// Not "acknowledged and lost": a probe URL that matches no route
		// of the receiver's answers the same 404 for every document.
		return "holds nothing for it although every call got 2xx" + settled + ", by the probe's answer; but " + r.probeNotFound
	case a.Count == 0 && r.storesLate != "":
		// Held by a receiver that stores at once, a create then nothing
		// after a void tells a void that deletes; from one that stores
		// after answering, it tells nothing yet.
		return fmt.Sprintf("holds nothing for it although every call got 2xx%s, and the receiver stores after answering (%s): it may store this one later still (a longer --settle waits for it), or it acknowledged it and lost it", settled, r.storesLate)
	case a.Count == 0 && d.what == "lifecycle" && len(d.sent) > 1 && d.alone != nil && d.alone.met:
		ev := d.sent[1].step.c.Event
		return fmt.Sprintf("holds nothing for it after %s answered %s, though %s is held: the %s removed the document instead of marking it %s",
			ev, statusWord(d.sent[1]), d.alone.name, ev, d.want.state) + settled
	case a.Count == 0:
		return "holds nothing for it although every call got 2xx: the document was acknowledged and lost" + settled
	case a.Count > 1:
		first := d.sent[0]
		switch {
		case d.serial != nil && d.serial.asks > 0 && !d.serial.met && d.serial.ans.Count > 1:
			// The copies in turn under one requestId were stored again
			// too: nothing de-duplicates, whether copies share a
			// requestId or arrive together.
			how := "in turn"
			if first.step.atOnce {
				how = "at once"
			}
			if first.step.c.NewRequestIDs {
				how += ", each under a new requestId"
			}
			return fmt.Sprintf("holds %d records of one document sent %d times %s, as it held %d of one re-delivered in turn under one requestId (%s): it stores every delivery, keyed on neither requestId nor the document; the ERP may deliver a document again under the same requestId or a new one, so key on the document (its number)",
				a.Count, first.copies, how, d.serial.ans.Count, d.serial.name)
		case first.step.c.NewRequestIDs && first.step.atOnce && d.twin != nil && !d.twin.met && d.twin.ans.Count > 1:
			return fmt.Sprintf("holds %d records of one document whose copies arrived together, each under a new requestId, as it did when they shared one (%s): concurrent copies were all stored, as by a receiver that checks, then inserts, without a lock or unique key on the document", a.Count, d.twin.name)
		case first.step.c.NewRequestIDs:
			how := "in turn"
			if first.step.atOnce {
				how = "at once"
			}
			key := "requestId"
			if r.cfg.Signer != nil {
				// A signed call's webhook-id is its requestId: a receiver
				// keyed on webhook-id, as Standard Webhooks advises for
				// retries, stores the document again just the same, and
				// reads no requestId to be blamed for.
				key = "requestId (or on webhook-id, which each signed call carries the same)"
			}
			return fmt.Sprintf("holds %d records of one document sent %d times %s, each under a new requestId: the receiver de-duplicates on %s, not on the document; %s, so key on the document (its number)", a.Count, first.copies, how, key, requestIDTrap)
		case d.sent[0].step.atOnce:
			return fmt.Sprintf("holds %d records of one document whose copies arrived together: concurrent copies were all stored, as by a receiver that checks, then inserts, without a lock or unique key", a.Count)
		case d.sent[0].step.retry:
			return fmt.Sprintf("holds %d records of one document: a sender's retry (same requestId and webhook-id, a fresh timestamp and signature) was stored again", a.Count)
		case d.sent[0].copies > 1:
			return fmt.Sprintf("holds %d records of one document: a re-delivery (same requestId, same document) was stored again", a.Count)
		}
		if d.what == "lifecycle" && len(d.sent) > 1 {
			return fmt.Sprintf("holds %d records of a document created once and then sent as %s (answered %s): the %s was stored as a record of its own instead of applied to the one held",
				a.Count, d.sent[1].step.c.Event, statusWord(d.sent[1]), d.sent[1].step.c.Event)
		}
		return fmt.Sprintf("holds %d records of a document created once", a.Count)
	case d.want.state != "" && a.State != d.want.state:
		early := d.early
		var follow *sentCall // the void or audit the state is short of
		switch {
		case d.what == "lifecycle" && len(d.sent) > 1:
			follow = &d.sent[1]
		case early != nil && is2xx(early.answers[0].Status):
			follow = early
		}
		switch {
		case follow != nil && r.storesLate != "" && spec.StateRank(a.State) < spec.StateRank(d.want.state):
			// Held as an earlier call left it, by a receiver that stores
			// after answering: the follow-up may be in its queue still.
			return fmt.Sprintf("is %s, want %s%s, and the receiver stores after answering (%s): it may apply the %s answered %s later still (a longer --settle waits for it), or it acknowledged it and never applied it",
				a.State, d.want.state, settled, r.storesLate, follow.step.c.Event, statusWord(*follow))
		case d.what == "lifecycle" && d.want.state == probe.StateVoided:
			return fmt.Sprintf("is %s after a void answered %s: the void was acknowledged and never applied", a.State, statusWord(d.sent[1]))
		case d.what == "lifecycle" && d.shape == spec.Sample:
			return fmt.Sprintf("is %s after an audit answered %s: the audit was acknowledged and never applied; its body carried businessType %d, as a create's sample body does: a receiver that takes the event from the body number, not from the query's businessType, reads it as a create", a.State, statusWord(d.sent[1]), spec.SampleInvoiceNumber)
		case d.what == "lifecycle":
			return fmt.Sprintf("is %s after an audit answered %s: the audit was acknowledged and never applied", a.State, statusWord(d.sent[1]))
		case early != nil && is2xx(early.answers[0].Status) && d.want.state == probe.StateVoided:
			return fmt.Sprintf("is %s, want voided: a void answered %s before its create was lost, or the late create revived the voided document", a.State, statusWord(*early))
		case early != nil && is2xx(early.answers[0].Status):
			return fmt.Sprintf("is %s, want audited: an audit answered %s before its create was lost, or the late create took its state back", a.State, statusWord(*early))
		case early != nil:
			return fmt.Sprintf("is %s, want %s: the %s refused before its create and sent again after it was not applied", a.State, d.want.state, early.step.c.Event)
		}
		return fmt.Sprintf("is %s, want %s", a.State, d.want.state)
	case d.want.lines >= 0 && a.Lines >= 0 && a.Lines < d.want.lines:
		return fmt.Sprintf("holds %s of the %d sent: the document was stored cut short", lineCount(a.Lines), d.want.lines)
	case d.want.lines >= 0 && a.Lines >= 0 && a.Lines > d.want.lines:
		// More lines than sent is no document cut short: lines stored
		// again, by a later call of the same document when there was one.
		// Stored again only when the lines are whole copies of those sent,
		// no more copies than deliveries: 3 of 2 is no copy. Of one line
		// sent, any count is copies: either may be the cause.
		if n := deliveries(d); n > 1 && d.want.lines > 0 && a.Lines%d.want.lines == 0 && a.Lines/d.want.lines <= n {
			if d.want.lines == 1 {
				return fmt.Sprintf("holds %d lines of the 1 sent, in one record of a document its calls delivered %d times: it stored lines the document was not sent with, or its line again with a later call (the document kept once, its lines inserted with each)", a.Lines, n)
			}
			return fmt.Sprintf("holds %d lines of the %d sent, in one record of a document its calls delivered %d times: its lines were stored again by a later call (the document kept once, its lines inserted with each)", a.Lines, d.want.lines, n)
		}
		return fmt.Sprintf("holds %s of the %d sent: it stored lines the document was not sent with", lineCount(a.Lines), d.want.lines)
	}
	return "does not match"
}

// deliveries is how many times d's calls were delivered, its follow-ups
// and copies included.
func deliveries(d *effDoc) int {
	n := 0
	for _, sc := range d.sent {
		n += len(sc.answers)
	}
	return n
}

func statusWord(sc sentCall) string {
	return fmt.Sprintf("%d", sc.answers[0].Status)
}

// callList is the calls sent for a document, in order, with what each got.
func callList(d *effDoc) string {
	var parts []string
	for i, sc := range d.sent {
		var got []string
		for _, a := range sc.answers {
			if a.Status == 0 {
				got = append(got, attempt.ShortError(a))
			} else {
				got = append(got, fmt.Sprint(a.Status))
			}
		}
		how := sc.step.c.Event
		switch {
		case sc.step.atOnce:
			how += fmt.Sprintf(" x%d at once", sc.copies)
		case sc.copies > 1:
			how += fmt.Sprintf(" x%d in turn", sc.copies)
		case sc.step.retry:
			how += " then a sender's retry"
		case sc.again:
			how += " again"
		}
		parts = append(parts, fmt.Sprintf("%d. %s got %s", i+1, how, strings.Join(got, ", ")))
	}
	return strings.Join(parts, ", ")
}

// saidFailed says what the first 2xx answer to the document's calls
// whose body says the call failed said (bodySaysFailed), "" when none.
func (d *effDoc) saidFailed() string {
	for _, sc := range d.sent {
		for _, a := range sc.answers {
			if is2xx(a.Status) {
				if why := bodySaysFailed(a.BodyPrefix); why != "" {
					return why
				}
			}
		}
	}
	return ""
}

// saidFailedDefect is what a document the probe holds nothing of shows
// when its calls' 2xx answers said the call failed (words, saidFailedOf):
// a run's reason and its rerun's say it alike.
func saidFailedDefect(words string) string {
	return "holds nothing for it, as the receiver said: " + words + "; the ERP takes any 2xx as delivered and never sends the call again, so the document is lost: answer 5xx when a call was not stored (a sender retries it), 4xx when it never will be"
}

// saidFailedWords says which of the documents' 2xx answers said the call
// failed, and what the first said: "its calls got 2xx, but the body of
// each said the call failed ("success": false)".
func saidFailedWords(docs ...*effDoc) string {
	var answers [][]attempt.Attempt
	for _, d := range docs {
		for _, sc := range d.sent {
			answers = append(answers, sc.answers)
		}
	}
	return saidFailedOf(answers...)
}

// saidFailedOf is saidFailedWords of calls' answers, each call's in
// turn; "" when no 2xx answer said the call failed. A rerun of a document
// says it as the run did (rerunEffects).
func saidFailedOf(answers ...[]attempt.Attempt) string {
	ok, said, first := 0, 0, ""
	for _, as := range answers {
		for _, a := range as {
			if !is2xx(a.Status) {
				continue
			}
			ok++
			if why := bodySaysFailed(a.BodyPrefix); why != "" {
				said++
				if first == "" {
					first = why
				}
			}
		}
	}
	if said == 0 {
		return ""
	}
	which := "each"
	if said < ok {
		which = fmt.Sprintf("%d of the %d", said, ok)
	}
	return fmt.Sprintf("its calls got 2xx, but the body of %s said the call failed (%s)", which, first)
}

// probeNotFound says why a probe that answered 404 for each of the asked
// documents, every one acknowledged with 2xx, may be at fault itself.
func probeNotFound(asked int) string {
	every := fmt.Sprintf("every one of the %d documents asked about", asked)
	if asked == 1 {
		every = "the one document asked about"
	}
	return fmt.Sprintf("the probe answered 404 for %s, though the receiver answered 2xx to its calls: the probe itself may be wrong (a --probe URL template that matches no route of the receiver's gets 404 too: ask it about a document the receiver holds), or the receiver lost every one", every)
}

func answerText(d *effDoc) string {
	if d.ans.Raw == "" {
		return fmt.Sprintf("count %d", d.ans.Count)
	}
	if d.ans.NotFound {
		return "404 (nothing held)"
	}
	return d.ans.Raw
}

// loadRecord is what the load check sent and what each call got, so that
// effects can ask about every document load delivered.
type loadRecord struct {
	mu    sync.Mutex
	pairs [][]*Case
	qs    []probe.Question
	byID  map[string][2]int   // requestId -> pair, call
	got   [][]attempt.Attempt // per pair, per call
	held  int                 // documents whose create got 2xx
}

// noteLoad keeps the load check's documents for effects.
func (r *runner) noteLoad(pairs [][]*Case, qs []probe.Question) {
	if r.cfg.Probe == nil || !slices.Contains(r.sum.Order, Effects) {
		return
	}
	lr := &loadRecord{pairs: pairs, qs: qs, byID: map[string][2]int{}, got: make([][]attempt.Attempt, len(pairs))}
	for i, p := range pairs {
		lr.got[i] = make([]attempt.Attempt, len(p))
		for j, c := range p {
			lr.byID[c.RequestID] = [2]int{i, j}
		}
	}
	r.loadSent = lr
}

// loadAnswered hears of one load delivery.
func (r *runner) loadAnswered(res *attempt.Result) {
	lr := r.loadSent
	if lr == nil {
		return
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	if at, ok := lr.byID[res.Request.RequestID]; ok {
		lr.got[at[0]][at[1]] = res.Last()
		if at[1] == 0 && is2xx(res.Last().Status) {
			lr.held++
		}
	}
}

// loadDocs are the load documents to probe: every one whose create got
// 2xx, or a random sample of them.
func (r *runner) loadDocs() []*effDoc {
	lr := r.loadSent
	if lr == nil {
		return nil
	}
	lr.mu.Lock()
	defer lr.mu.Unlock()
	var docs []*effDoc
	end := time.Now()
	for i, p := range lr.pairs {
		if !is2xx(lr.got[i][0].Status) {
			continue
		}
		d := &effDoc{what: "under-load", name: "under-load", q: lr.qs[i], lines: -1, want: expect{lines: -1}, end: end}
		for j, c := range p {
			if lr.got[i][j].Status == 0 && lr.got[i][j].Kind == "" {
				break // not sent: the run was cut short
			}
			d.sent = append(d.sent, sentCall{step: effStep{c: c}, req: r.request(c, true), copies: 1, answers: []attempt.Attempt{lr.got[i][j]}})
		}
		// One worker sends a document's calls in order, each once the one
		// before was answered: when every one got 2xx the document is in
		// the state the last left. Judged on its count alone, a void or
		// audit acknowledged under load and never applied passed.
		if e, ok := spec.Lookup(d.sent[len(d.sent)-1].step.c.Event); ok && !slices.ContainsFunc(d.sent, func(sc sentCall) bool { return !is2xx(sc.answers[0].Status) }) {
			d.want.state = spec.StateAfter(e)
		}
		docs = append(docs, d)
	}
	if len(docs) > loadSample {
		rng := rand.New(rand.NewPCG(r.cfg.Seed, r.cfg.Nonce))
		rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
		docs = docs[:loadSample]
	}
	return docs
}

// lifecycleCause names the defect behind doubled load documents when it
// is not load: every one of them had a follow-up (a void, an audit) whose
// document the lifecycle case, sent alone, found doubled too. "" when
// some doubled document is not explained so.
func lifecycleCause(doubled, seq []*effDoc) string {
	if len(doubled) == 0 {
		return ""
	}
	byEvent := map[string]*effDoc{}
	for _, d := range seq {
		if d.what == "lifecycle" && !d.met && d.ans.Count > 1 && len(d.sent) > 1 {
			byEvent[d.sent[1].step.c.Event] = d
		}
	}
	var events, names []string
	for _, d := range doubled {
		if len(d.sent) < 2 || byEvent[d.sent[1].step.c.Event] == nil {
			return ""
		}
		if e := d.sent[1].step.c.Event; !slices.Contains(events, e) {
			events = append(events, e)
			names = append(names, byEvent[e].name)
		}
	}
	return fmt.Sprintf("each of them was sent %s after its create, and %s, sent on its own without load, was doubled the same way: the %s is stored as a record of its own (the lifecycle defect), not a fault under load",
		strings.Join(events, " or "), strings.Join(names, " and "), strings.Join(events, " or "))
}

// lossCause names the defect behind load documents held not at all when
// it is not load: every one of them is of a kind whose created case, sent
// alone, was not held either, or was sent a follow-up (a void, an audit)
// after which the lifecycle case, sent alone, was not held either (a void
// that deletes the document). "" when some lost document is not explained
// so.
func lossCause(lost, seq []*effDoc) string {
	if len(lost) == 0 {
		return ""
	}
	gone := func(d *effDoc) bool { return d.skip == "" && d.asks > 0 && !d.met && d.ans.Count == 0 }
	alone := map[spec.Kind]*effDoc{}
	after := map[string]*effDoc{} // follow-up event -> the lifecycle case lost after it
	for _, d := range seq {
		switch {
		case !gone(d):
		case d.what == "created" && alone[d.q.Kind] == nil:
			alone[d.q.Kind] = d
		case d.what == "lifecycle" && len(d.sent) > 1:
			after[d.sent[1].step.c.Event] = d
		}
	}
	var kinds, names, events, lifecycles []string
	for _, d := range lost {
		if a := alone[d.q.Kind]; a != nil {
			if k := probe.KindWord(d.q.Kind); !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
				names = append(names, a.name)
			}
			continue
		}
		var l *effDoc
		if len(d.sent) > 1 {
			l = after[d.sent[len(d.sent)-1].step.c.Event]
		}
		if l == nil {
			return ""
		}
		if e := d.sent[len(d.sent)-1].step.c.Event; !slices.Contains(events, e) {
			events = append(events, e)
			lifecycles = append(lifecycles, l.name)
		}
	}
	var causes []string
	if len(kinds) > 0 {
		alsoLost := "sent on its own without load, was not held either"
		if len(names) > 1 {
			alsoLost = "each sent on its own without load, were not held either"
		}
		causes = append(causes, fmt.Sprintf("each of them is %s, and %s, %s: the receiver loses %ss busy or not",
			articled(kinds), strings.Join(names, " and "), alsoLost, strings.Join(kinds, "s and ")))
	}
	if len(events) > 0 {
		alsoLost := "sent on its own without load, was not held after it either"
		if len(lifecycles) > 1 {
			alsoLost = "each sent on its own without load, were not held after it either"
		}
		each := "each of them"
		if len(kinds) > 0 {
			each = "the others"
		}
		causes = append(causes, fmt.Sprintf("%s was sent %s after its create, and %s, %s: the %s removes the document it applies to, busy or not",
			each, strings.Join(events, " or "), strings.Join(lifecycles, " and "), alsoLost, strings.Join(events, " or ")))
	}
	return strings.Join(causes, "; ") + ", not a fault under load"
}

// statesHeld says what the unapplied load documents were held as against
// what their last calls left them: "created, want voided".
func statesHeld(unapplied []*effDoc) string {
	var out []string
	for _, d := range unapplied {
		if s := fmt.Sprintf("%s, want %s", d.ans.State, d.want.state); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

// unappliedCause names the defect behind load documents held in the
// wrong state when it is not load: every one of them was sent a follow-up
// (a void, an audit) that the lifecycle case, sent alone, found not
// applied either. "" when some is not explained so.
func unappliedCause(unapplied, seq []*effDoc) string {
	if len(unapplied) == 0 {
		return ""
	}
	after := map[string]*effDoc{} // follow-up event -> the lifecycle case it was not applied to
	for _, d := range seq {
		if d.what == "lifecycle" && d.asks > 0 && !d.met && d.ans.Count == 1 && d.ans.State != d.want.state && len(d.sent) > 1 {
			after[d.sent[1].step.c.Event] = d
		}
	}
	var events, names []string
	for _, d := range unapplied {
		l := after[d.sent[len(d.sent)-1].step.c.Event]
		if len(d.sent) < 2 || l == nil {
			return ""
		}
		if e := d.sent[len(d.sent)-1].step.c.Event; !slices.Contains(events, e) {
			events = append(events, e)
			names = append(names, l.name)
		}
	}
	return fmt.Sprintf("each of them was sent %s after its create, and %s, sent on its own without load, was not applied either: the %s is acknowledged and never applied, busy or not, not a fault under load",
		strings.Join(events, " or "), strings.Join(names, " and "), strings.Join(events, " or "))
}

// articled is "a receipt", or "an invoice or a receipt".
func articled(kinds []string) string {
	var out []string
	for _, k := range kinds {
		a := "a "
		if strings.HasPrefix(k, "i") {
			a = "an "
		}
		out = append(out, a+k)
	}
	return strings.Join(out, " or ")
}

// judgeLoad grades the load documents: every one held exactly once.
func (r *runner) judgeLoad(docs []*effDoc, st *EffectsStats, seq []*effDoc) Result {
	c := &Case{Check: Effects, Name: fmt.Sprintf("under-load/%d-of-%d-documents", len(docs), st.Load)}
	// Its documents are those of load calls answered 2xx.
	res := Result{Case: c, Verdict: Pass, answered: len(docs) > 0}
	if len(docs) == 0 {
		// Nothing to probe is no proof that nothing was lost.
		res.Verdict, res.Inconclusive = Warn, true
		res.Reason = "inconclusive: no call of the load check got 2xx, so no load document could be probed (load judges that)"
		return res
	}
	var bad, doubled, gone, unapplied []*effDoc
	lost, twice := 0, 0
	for _, d := range docs {
		switch {
		case d.met:
			continue
		case d.ans.Count == 0:
			lost++
			gone = append(gone, d)
		case d.ans.Count > 1:
			twice++
			doubled = append(doubled, d)
		default:
			unapplied = append(unapplied, d)
		}
		bad = append(bad, d)
	}
	if len(bad) == 0 {
		return res
	}
	d := bad[0]
	first := d.sent[0].step.c
	res.Case = &Case{Check: Effects, Name: c.Name, Event: first.Event, Query: first.Query, Body: first.Body, RequestID: first.RequestID}
	sample := "every one"
	if len(docs) < st.Load {
		sample = fmt.Sprintf("a random sample of %d", len(docs))
	}
	var why []string
	if lost > 0 {
		why = append(why, fmt.Sprintf("%d held not at all", lost))
	}
	if twice > 0 {
		why = append(why, fmt.Sprintf("%d held more than once", twice))
	}
	if len(unapplied) > 0 {
		why = append(why, fmt.Sprintf("%d held once but not in the state their last call left (%s)", len(unapplied), statesHeld(unapplied)))
	}
	res.Verdict = Fail
	cause := "the receiver drops or doubles documents while busy"
	if lost == 0 && twice == 0 {
		cause = "the receiver acknowledged calls while busy and did not apply them"
	}
	lc, gc, uc := lifecycleCause(doubled, seq), lossCause(gone, seq), unappliedCause(unapplied, seq)
	said := 0
	for _, d := range gone {
		if d.saidFailed() != "" {
			said++
		}
	}
	switch {
	case said > 0 && said == lost && twice == 0 && len(unapplied) == 0:
		// The receiver said so itself, in the bodies of its 2xx.
		cause = fmt.Sprintf("the receiver said so of each: %s; the ERP takes any 2xx as delivered and never sends the call again, so they are lost", saidFailedWords(gone...))
	case r.probeNotFound != "" && gc != "":
		cause = gc + "; but " + r.probeNotFound
	case r.probeNotFound != "":
		cause = r.probeNotFound
	case lost == 0 && len(unapplied) == 0 && twice == len(doubled) && lc != "":
		cause = lc
	case twice == 0 && r.storesLate != "":
		// Not held yet is no loss, busy or not, from a receiver that
		// stores after answering.
		cause = fmt.Sprintf("the receiver stores after answering (%s): it may store them later still (a longer --settle waits for them), or it lost them", r.storesLate)
	case twice == 0 && len(unapplied) == 0 && gc != "":
		cause = gc
	case twice == 0 && lost == 0 && uc != "":
		cause = uc
	}
	res.Reason = fmt.Sprintf("%s of %d documents the load check delivered and got 2xx for (%s probed): %s; first: %s %s, calls: %s; the probe answered %s",
		strings.Join(why, " and "), st.Load, sample, cause, probe.KindWord(d.q.Kind), d.q.Code, callList(d), answerText(d))
	res.Repro, res.Effects, res.bodies = r.effectsRepro(d, res.Case)
	return res
}

// lineCount is "1 line", "n lines".
func lineCount(n int) string {
	if n == 1 {
		return "1 line"
	}
	return strconv.Itoa(n) + " lines"
}
