package load

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/attempt"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/spec"
)

func TestPool(t *testing.T) {
	t.Parallel()
	for count, want := range map[int]int{0: poolSize, 1: 1, 255: 255, poolSize: poolSize, 5000: poolSize} {
		if got := Pool(count); got != want {
			t.Errorf("Pool(%d) = %d, want %d", count, got, want)
		}
	}
}

// A round takes one group from every lane: a delivery per event, or a
// document's whole life.
func TestPerRound(t *testing.T) {
	t.Parallel()
	one := []attempt.Template{{}}
	life := []attempt.Template{{}, {}, {}}
	for _, tt := range []struct {
		name  string
		lanes [][][]attempt.Template
		want  int
	}{
		{"an event", [][][]attempt.Template{{one, one}}, 1},
		{"four events", [][][]attempt.Template{{one}, {one}, {one, one}, {one}}, 4},
		{"a scenario", [][][]attempt.Template{{life, life}}, 3},
	} {
		if got := PerRound(tt.lanes); got != tt.want {
			t.Errorf("%s: PerRound = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// Generated requestIds are replaced per delivery; one the user set or
// removed (fresh false) is sent as it is.
func TestEventLanes(t *testing.T) {
	t.Parallel()
	events, _ := spec.ParseEvents([]string{spec.AllEvents})
	for _, fresh := range []bool{true, false} {
		src := payload.NewSource(7, payload.Anchor(), spec.Described, nil)
		next := func(e spec.Event) ([]byte, error) {
			doc, err := src.Next(e)
			return payload.Marshal(doc), err
		}
		lanes, err := EventLanes(events, 3, http.Header{}, fresh, nil, next)
		if err != nil {
			t.Fatal(err)
		}
		if len(lanes) != len(events) {
			t.Fatalf("%d lanes for %d events", len(lanes), len(events))
		}
		for i, lane := range lanes {
			if len(lane) != 3 {
				t.Fatalf("lane %d: %d bodies, want 3", i, len(lane))
			}
			tpl := lane[0][0]
			if tpl.Event != events[i].Name || (tpl.IDOff >= 0) != fresh {
				t.Errorf("fresh %v: lane %d: event %s, fresh ids %v", fresh, i, tpl.Event, tpl.IDOff >= 0)
			}
		}
	}
}

// Build makes each kind of run's lanes: a lane per generated event, one
// lane of documents' lives, a lane per file payload and event; the pool
// follows Rounds; requestIds are fresh and document numbers distinct but
// where they are the user's, and a file's bodies go as they are.
func TestLanesBuild(t *testing.T) {
	t.Parallel()
	receipt, _ := spec.Lookup("CREATE_RECEIVABLE_DOC")
	voided, _ := spec.Lookup("ABANDON_RECEIVABLE_DOC")
	all, _ := spec.ParseEvents([]string{spec.AllEvents})
	invoice, _ := spec.Lookup("CREATE_PURCHASE_ORDER_INVOICE")
	audited, _ := spec.Lookup("AUDIT_PURCHASE_ORDER_INVOICE")
	nextIn := func(sh spec.Shape) func(spec.Event) ([]byte, error) {
		src := payload.NewSource(7, payload.Anchor(), sh, nil)
		return func(e spec.Event) ([]byte, error) {
			doc, err := src.Next(e)
			return payload.Marshal(doc), err
		}
	}
	next := func() func(spec.Event) ([]byte, error) { return nextIn(spec.Described) }
	// sampleInvoices are n invoices of the sample shape (whose code, one
	// in ten empty, is their only number), each created then audited,
	// from the same seed on every call, as a scenario's are.
	sampleInvoices := func(n int) ([][]Step, error) {
		nx := nextIn(spec.Sample)
		out := make([][]Step, n)
		for i := range out {
			b, err := nx(invoice)
			if err != nil {
				return nil, err
			}
			out[i] = []Step{{Event: invoice.Name, Body: b}, {Event: audited.Name, Body: b}}
		}
		return out, nil
	}
	// lives are n receipts each created then voided; got is the n asked.
	lives := func(got *int) func(int) ([][]Step, error) {
		return func(n int) ([][]Step, error) {
			*got = n
			nx := next()
			out := make([][]Step, n)
			for i := range out {
				for _, e := range []spec.Event{receipt, voided} {
					b, err := nx(e)
					if err != nil {
						return nil, err
					}
					out[i] = append(out[i], Step{Event: e.Name, Body: b})
				}
			}
			return out, nil
		}
	}
	boom := errors.New("boom")
	file := fmt.Sprintf(`{"requestId":"0a8b5b0e-6a4e-4b3c-9d8f-2f1d9c6b7a51","businessType":%d}`, receipt.Number)
	var n1, n2 int
	for _, tt := range []struct {
		name  string
		l     Lanes
		lives *int // the n Lives was asked for
		// want is each lane's first group's events and the lane's groups.
		want       string
		fresh      bool // requestIds replaced per delivery
		docs       bool // document numbers get serials
		err        error
		payloadErr bool
	}{
		{name: "an event", l: Lanes{Rounds: 3, Events: []spec.Event{receipt}, Next: next()},
			want: "CREATE_RECEIVABLE_DOC×3", fresh: true, docs: true},
		{name: "every event, until a duration", l: Lanes{Events: all, Next: next()},
			want:  fmt.Sprintf("CREATE_PURCHASE_ORDER_INVOICE×%[1]d AUDIT_PURCHASE_ORDER_INVOICE×%[1]d CREATE_RECEIVABLE_DOC×%[1]d ABANDON_RECEIVABLE_DOC×%[1]d", poolSize),
			fresh: true, docs: true},
		{name: "more rounds than the pool", l: Lanes{Rounds: 5000, Events: []spec.Event{receipt}, Next: next()},
			want: fmt.Sprintf("CREATE_RECEIVABLE_DOC×%d", poolSize), fresh: true, docs: true},
		// A body without a number to make anew would be the same
		// document each round: before, a sample-shape invoice with an
		// empty code went out again and again (documents 296 of 300).
		{name: "sample-shape invoices", l: Lanes{Rounds: 300, Events: []spec.Event{invoice}, Next: nextIn(spec.Sample)},
			want: fmt.Sprintf("CREATE_PURCHASE_ORDER_INVOICE×%d", poolSize), fresh: true, docs: true},
		{name: "a scenario of sample-shape invoices", l: Lanes{Rounds: 300, Lives: sampleInvoices},
			want: fmt.Sprintf("CREATE_PURCHASE_ORDER_INVOICE+AUDIT_PURCHASE_ORDER_INVOICE×%d", poolSize), fresh: true, docs: true},
		{name: "the user's empty code", l: Lanes{Rounds: 2, Set: [][]string{{spec.FieldData, "code"}}, Events: []spec.Event{invoice}, Next: nextIn(spec.Sample)},
			want: "CREATE_PURCHASE_ORDER_INVOICE×2", fresh: true},
		{name: "the user's requestId", l: Lanes{Rounds: 2, UserIDs: true, Events: []spec.Event{receipt}, Next: next()},
			want: "CREATE_RECEIVABLE_DOC×2", docs: true},
		{name: "the user's numbers", l: Lanes{Rounds: 2, Set: [][]string{{spec.FieldData}}, Events: []spec.Event{receipt}, Next: next()},
			want: "CREATE_RECEIVABLE_DOC×2", fresh: true},
		{name: "a failing generator", l: Lanes{Rounds: 2, Events: []spec.Event{receipt},
			Next: func(spec.Event) ([]byte, error) { return nil, boom }}, err: boom},
		{name: "a scenario", l: Lanes{Rounds: 2, Lives: lives(&n1)}, lives: &n1,
			want: "CREATE_RECEIVABLE_DOC+ABANDON_RECEIVABLE_DOC×2", fresh: true, docs: true},
		{name: "a scenario until a duration", l: Lanes{UserIDs: true, Lives: lives(&n2)}, lives: &n2,
			want: fmt.Sprintf("CREATE_RECEIVABLE_DOC+ABANDON_RECEIVABLE_DOC×%d", poolSize), docs: true},
		{name: "a failing scenario", l: Lanes{Rounds: 1, Lives: func(int) ([][]Step, error) { return nil, boom }}, err: boom},
		{name: "a file", l: Lanes{File: true, Rounds: 3, Payloads: []Payload{{Body: []byte(file)}, {Body: []byte(file)}}},
			want: "CREATE_RECEIVABLE_DOC×1 CREATE_RECEIVABLE_DOC×1"},
		{name: "a file under two events", l: Lanes{File: true, Events: []spec.Event{voided, receipt}, Payloads: []Payload{{Body: []byte(file)}}},
			want: "ABANDON_RECEIVABLE_DOC×1 CREATE_RECEIVABLE_DOC×1"},
		{name: "an empty file", l: Lanes{File: true, Events: all}},
		{name: "a file payload without an event", l: Lanes{File: true, Payloads: []Payload{{Body: []byte(`{}`), Where: "line 2"}}}, payloadErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lanes, err := tt.l.Build()
			var pe *PayloadError
			switch {
			case tt.err != nil || tt.payloadErr:
				if err == nil || tt.err != nil && !errors.Is(err, tt.err) || tt.payloadErr != errors.As(err, &pe) {
					t.Fatalf("err = %v, want %v (a payload's: %v)", err, tt.err, tt.payloadErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			var got []string
			for _, lane := range lanes {
				var evs []string
				for _, tpl := range lane[0] {
					evs = append(evs, tpl.Event)
				}
				got = append(got, fmt.Sprintf("%s×%d", strings.Join(evs, "+"), len(lane)))
				for _, group := range lane {
					for _, tpl := range group {
						if fresh, docs := tpl.IDOff >= 0, len(tpl.DocOffs) > 0; fresh != tt.fresh || docs != tt.docs {
							t.Fatalf("%s: fresh ids %v, document serials %v; want %v, %v", tpl.Event, fresh, docs, tt.fresh, tt.docs)
						}
					}
				}
			}
			if s := strings.Join(got, " "); s != tt.want {
				t.Errorf("lanes %q, want %q", s, tt.want)
			}
			if tt.lives != nil && *tt.lives != Pool(tt.l.Rounds) {
				t.Errorf("Lives asked for %d documents, want %d", *tt.lives, Pool(tt.l.Rounds))
			}
		})
	}
}

// BenchmarkEventLanes builds send's pool of bodies for every event, as a
// run of --count 256 does before it starts (#35): its allocations are what
// a fresh process pays for in page faults and zeroing.
func BenchmarkEventLanes(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		pl, err := payload.Request{Events: []string{spec.AllEvents}, Shape: string(spec.Described), Seed: 1}.Plan(payload.Anchor())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := EventLanes(pl.Events, poolSize, nil, true, NewDocPaths(nil), pl.NextBody); err != nil {
			b.Fatal(err)
		}
	}
}
