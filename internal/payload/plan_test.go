package payload

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/spec"
)

func TestRequestPlan(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name       string
		req        Request
		wantEvents []string
		wantShape  spec.Shape
		wantOvs    int
		wantNow    time.Time
		wantErr    string
	}{
		{name: "all events, seeded", req: Request{Events: []string{"all"}, Shape: "described", Seed: 1},
			wantEvents: spec.EventNames(), wantShape: spec.Described, wantNow: Anchor()},
		{name: "unseeded runs around now", req: Request{Events: []string{"create_receivable_doc"}, Shape: "sample"},
			wantEvents: []string{"CREATE_RECEIVABLE_DOC"}, wantShape: spec.Sample, wantNow: now},
		{name: "sets before unsets", req: Request{Events: []string{"all"}, Shape: "described", Sets: []string{"data.a=1"}, Unsets: []string{"data.b"}},
			wantEvents: spec.EventNames(), wantShape: spec.Described, wantOvs: 2, wantNow: now},
		{name: "unknown event", req: Request{Events: []string{"NOPE"}, Shape: "described"},
			wantErr: `--event: unknown event "NOPE" (valid: CREATE_PURCHASE_ORDER_INVOICE, AUDIT_PURCHASE_ORDER_INVOICE, CREATE_RECEIVABLE_DOC, ABANDON_RECEIVABLE_DOC, all)`},
		{name: "no event", req: Request{Shape: "described"},
			wantErr: "--event: none given (valid: CREATE_PURCHASE_ORDER_INVOICE, AUDIT_PURCHASE_ORDER_INVOICE, CREATE_RECEIVABLE_DOC, ABANDON_RECEIVABLE_DOC, all)"},
		{name: "event before shape", req: Request{Shape: "x"}, wantErr: "--event: none given (valid: CREATE_PURCHASE_ORDER_INVOICE, AUDIT_PURCHASE_ORDER_INVOICE, CREATE_RECEIVABLE_DOC, ABANDON_RECEIVABLE_DOC, all)"},
		{name: "unknown shape", req: Request{Events: []string{"all"}, Shape: "x"},
			wantErr: `--shape: unknown shape "x" (valid: described, sample)`},
		{name: "bad set", req: Request{Events: []string{"all"}, Shape: "described", Sets: []string{"a"}},
			wantErr: `--set "a": want <path>=<value>`},
		{name: "bad unset", req: Request{Events: []string{"all"}, Shape: "described", Unsets: []string{""}},
			wantErr: `--unset "": empty path`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pl, err := tt.req.Plan(now)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range pl.Events {
				names = append(names, e.Name)
			}
			if !slices.Equal(names, tt.wantEvents) || pl.Shape != tt.wantShape || len(pl.Overrides) != tt.wantOvs || !pl.Now.Equal(tt.wantNow) {
				t.Errorf("plan = %v %s %d overrides around %v, want %v %s %d around %v",
					names, pl.Shape, len(pl.Overrides), pl.Now, tt.wantEvents, tt.wantShape, tt.wantOvs, tt.wantNow)
			}
		})
	}
}

// An override that does not fit a payload names the event, the shape and
// the path, and stays a *PathError underneath.
func TestPlanNextWrapsPathError(t *testing.T) {
	t.Parallel()
	pl, err := Request{Events: []string{"CREATE_RECEIVABLE_DOC"}, Shape: "described", Seed: 1, Unsets: []string{"data.nope"}}.Plan(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, err = pl.NextBody(pl.Events[0])
	const want = "CREATE_RECEIVABLE_DOC described payload 1: --unset data.nope: no such field"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if !errors.As(err, new(*PathError)) {
		t.Errorf("err %T is not a *PathError underneath", err)
	}
}

// Generated arrays vary in length, so an index the first payload has may
// be past the end of a later one: the error says which payload, and why
// the path worked before.
func TestPlanNextIndexPastTheEndNamesThePayload(t *testing.T) {
	t.Parallel()
	for _, op := range []Request{{Sets: []string{"data.items.2.quantity=1"}}, {Unsets: []string{"data.items.2"}}} {
		op.Events, op.Shape, op.Seed = []string{"CREATE_PURCHASE_ORDER_INVOICE"}, "described", 1
		pl, err := op.Plan(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 1000 && err == nil; i++ {
			_, err = pl.Next(pl.Events[0])
		}
		if err == nil || !strings.Contains(err.Error(), "CREATE_PURCHASE_ORDER_INVOICE described payload ") ||
			!strings.HasSuffix(err.Error(), "(generated arrays vary in length from one payload to the next: index 0 is in every one)") {
			t.Errorf("%v: err = %v, want the payload's number and the hint", op, err)
		}
	}
}

// NextBody is Next's payload encoded, the same as a source of the same seed
// makes.
func TestPlanNextBodyMatchesSource(t *testing.T) {
	t.Parallel()
	pl, err := Request{Events: []string{"all"}, Shape: "sample", Seed: 9}.Plan(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	src := NewSource(9, Anchor(), spec.Sample, nil)
	for _, e := range pl.Events {
		got, err := pl.NextBody(e)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := src.Next(e)
		if want := Marshal(doc); string(got) != string(want) {
			t.Errorf("%s: NextBody differs from the source's payload", e.Name)
		}
	}
}

// NextBody shares blocks of memory between bodies: every body is still
// Marshal of what a source of the same seed and nonce makes, in both
// shapes, with and without overrides, and none changes when later bodies
// are made.
func TestPlanNextBodyIsMarshalOfNext(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		shape  spec.Shape
		seed   uint64
		nonce  uint64
		sets   []string
		unsets []string
	}{
		{shape: spec.Described, seed: 1},
		{shape: spec.Sample, seed: 2},
		{shape: spec.Described, seed: 3, nonce: 77},
		{shape: spec.Sample, seed: 4, sets: []string{"data.note=x"}},
		{shape: spec.Described, seed: 5, unsets: []string{"requestId"}},
	} {
		req := Request{Events: []string{spec.AllEvents}, Shape: string(tt.shape), Seed: tt.seed, Nonce: tt.nonce, Sets: tt.sets, Unsets: tt.unsets}
		pl, err := req.Plan(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		ovs, err := req.overrides()
		if err != nil {
			t.Fatal(err)
		}
		src := NewSource(tt.seed, Anchor(), tt.shape, ovs).WithNonce(tt.nonce)
		var bodies, wants [][]byte
		for range 300 {
			for _, e := range pl.Events {
				got, err := pl.NextBody(e)
				if err != nil {
					t.Fatal(err)
				}
				doc, err := src.Next(e)
				if err != nil {
					t.Fatal(err)
				}
				bodies, wants = append(bodies, got), append(wants, Marshal(doc))
			}
		}
		for i := range bodies {
			if string(bodies[i]) != string(wants[i]) {
				t.Fatalf("%s seed %d: body %d differs from Marshal(Next):\n got %s\nwant %s", tt.shape, tt.seed, i, bodies[i], wants[i])
			}
		}
	}
}
