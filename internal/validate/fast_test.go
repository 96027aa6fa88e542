package validate

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/spec"
)

// quickAccepts says whether the quick scan (fast.go) accepts body: whether
// a check of it is the fast accept path's, with no detailed scan.
func (v *Validator) quickAccepts(body []byte, utf8OK bool) bool {
	c := v.pool.Get().(*checker)
	defer v.pool.Put(c)
	c.reset(body)
	if utf8OK {
		c.lx.ResetUTF8(body)
	}
	ok := c.quick()
	c.lx.Reset(nil)
	return ok
}

// TestQuickAcceptsCleanPayloads: every payload the generator makes and
// every fixture, which the detailed scan finds clean, the quick scan
// accepts too, in every shape setting: the fast path is the one valid
// documents take, not a path nothing takes.
func TestQuickAcceptsCleanPayloads(t *testing.T) {
	t.Parallel()
	seeds := 50
	if testing.Short() {
		seeds = 10
	}
	vs := []*Validator{mustNew(t, Options{Strict: true})}
	for _, s := range spec.Shapes() {
		vs = append(vs, mustNew(t, Options{Shape: string(s), Strict: true}))
	}
	accepted := 0
	check := func(name string, body []byte, s spec.Shape) {
		t.Helper()
		for _, v := range vs {
			if v.shape != "" && v.shape != s { // (s "": auto only)
				continue
			}
			if fs := v.Check(body, ""); len(fs) > 0 {
				t.Fatalf("%s: not clean: %s", name, dump(fs))
			}
			if !v.quickAccepts(body, false) || !v.quickAccepts(body, true) {
				t.Errorf("%s (shape %q): the quick scan gave up on a clean document:\n%s", name, v.shape, body)
				continue
			}
			accepted++
		}
	}
	docs := 0
	for _, s := range spec.Shapes() {
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			src := payload.NewSource(seed, payload.Anchor(), s, nil)
			for _, e := range spec.Events() {
				doc, err := src.Next(e)
				if err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("seed %d %s %s", seed, e.Name, s), payload.Marshal(doc), s)
				check(fmt.Sprintf("seed %d %s %s (indented)", seed, e.Name, s), payload.MarshalIndent(doc), s)
				docs += 2
			}
		}
		for _, e := range spec.Events() {
			b, err := fixtures.Get(e.Name, s)
			if err != nil {
				t.Fatal(err)
			}
			check(fixtures.Name(e.Name, s), b, s)
			docs++
		}
	}
	for _, name := range []string{"receipt.json", "invoice.json", "invoice-sample.json"} {
		check(name, []byte(load(t, name)), "")
		docs++
	}
	if want := docs*2 - 3; accepted != want {
		t.Errorf("the quick scan accepted %d checks of %d", accepted, want)
	}
	t.Logf("the quick scan accepted %d checks (auto and the document's own shape) of %d clean documents", accepted, docs)
}

// TestQuickGivesUp: bodies with a finding of the scan the quick scan does
// not accept, whether or not the rule is ignored; bodies whose findings
// come from post only (the ledger, a foreign member, the query event) it
// accepts, and the check's findings are the detailed pass's.
func TestQuickGivesUp(t *testing.T) {
	t.Parallel()
	receipt := load(t, "receipt.json")
	for _, tc := range []struct {
		name, from, to string
		accept         bool
	}{
		{"clean", "", "", true},
		{"ledger", `"应收金额": `, `"应收金额": 1`, true},
		{"exponent", `"应收金额": `, `"应收金额": 1e0+`, false},
		{"null member", `"收款单编号": "`, `"收款单编号": null, "x": "`, false},
		{"unknown member", `"收款单编号": `, `"未知": 1, "收款单编号": `, false},
		{"duplicate member", `"收款单编号": `, `"收款单编号": "a", "收款单编号": `, false},
		{"escaped key", `"收款单编号"`, `"\u6536款单编号"`, true},
		{"wrong type", `"收款单编号": "`, `"收款单编号": 1, "y": "`, false},
		// The first member of a record and a later one: each is a bit of
		// what is missing, the first the lowest.
		{"first member absent", `"收款单编号": "SKD00020461",`, ``, false},
		{"later member absent", `"单据类型": "销售收款",`, ``, false},
		// The last millisecond of 1999 and the first of 2100 are out of
		// range; the first of 2000 is in.
		{"before 2000", `"业务日期": 1789833600000`, `"业务日期": 946684799999`, false},
		{"2000", `"业务日期": 1789833600000`, `"业务日期": 946684800000`, true},
		{"2100", `"业务日期": 1789833600000`, `"业务日期": 4102444800000`, false},
		{"bad request id", `"requestId": "`, `"requestId": "x`, false},
		{"syntax", `"收款单编号": `, `"收款单编号": ,`, false},
	} {
		body := receipt
		if tc.from != "" {
			if !strings.Contains(receipt, tc.from) {
				t.Fatalf("%s: %q not in the fixture", tc.name, tc.from)
			}
			body = strings.Replace(receipt, tc.from, tc.to, 1)
		}
		for _, ignore := range [][]string{nil, {ruleUnknown, ruleNull, ruleDuplicateKey, ruleType, ruleRequestID}} {
			v := mustNew(t, Options{Ignore: ignore})
			if got := v.quickAccepts([]byte(body), false); got != tc.accept {
				t.Errorf("%s (ignoring %v): quick accepts %v, want %v", tc.name, ignore, got, tc.accept)
			}
			slow := mustNew(t, Options{Ignore: ignore})
			slow.detailedOnly = true
			if got, want := v.Check([]byte(body), ""), slow.Check([]byte(body), ""); !reflect.DeepEqual(got, want) {
				t.Errorf("%s (ignoring %v): findings\n%s\nthe detailed pass's\n%s", tc.name, ignore, dump(got), dump(want))
			}
		}
	}
}

// FuzzQuick holds the fast accept path to the detailed pass: on every
// body, event and shape, the findings of a check are the detailed pass's
// alone, and a body the quick scan accepts is one whose detailed scan
// finds nothing (findings, if any, are post's: the event, the kind and
// shape, the arithmetic). Bodies are a fixture with one span replaced, as
// in FuzzCheckUTF8. Run it with -fuzzminimizetime=50x.
func FuzzQuick(f *testing.F) {
	bases := []string{""}
	for _, name := range []string{"receipt.json", "invoice.json", "invoice-sample.json"} {
		bases = append(bases, load(f, name))
	}
	for i := range bases[1:] {
		f.Add(uint8(i+1), uint16(0), uint16(0), []byte(nil), "", uint8(0))
	}
	f.Add(uint8(1), uint16(strings.Index(bases[1], `"应收金额"`)+8), uint16(3), []byte("1e3"), "", uint8(1))
	f.Add(uint8(2), uint16(strings.Index(bases[2], `"status"`)+10), uint16(1), []byte("1"), "", uint8(2))
	f.Add(uint8(0), uint16(0), uint16(0), []byte(`{"requestId":"x","businessType":4000,"data":{}}`), "CREATE_RECEIVABLE_DOC", uint8(0))
	var quick, detailed []*Validator
	for _, o := range []Options{{}, {Shape: string(spec.Described)}, {Shape: string(spec.Sample)}, {Ignore: []string{ruleMissing, ruleUnknown, ruleNull, ruleTimeRange}}} {
		quick = append(quick, mustNew(f, o))
		d := mustNew(f, o)
		d.detailedOnly = true
		detailed = append(detailed, d)
	}
	f.Fuzz(func(t *testing.T, base uint8, at, cut uint16, insert []byte, event string, which uint8) {
		if len(insert) > maxInsert || len(event) > maxEvent {
			return
		}
		body := splice(bases[int(base)%len(bases)], int(at), int(cut), insert)
		i := int(which) % len(quick)
		utf8OK := utf8.Valid(body) && which&0x80 != 0
		got, _ := quick[i].checkBody(body, event, utf8OK)
		want, _ := detailed[i].checkBody(body, event, utf8OK)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("fast path:\n%s\ndetailed pass:\n%s\nfor %q", dump(got), dump(want), body)
		}
		if !quick[i].quickAccepts(body, utf8OK) {
			return
		}
		c := detailed[i].pool.Get().(*checker)
		defer detailed[i].pool.Put(c)
		c.reset(body)
		if utf8OK {
			c.lx.ResetUTF8(body)
		}
		scanned := c.lx.Run(func() {
			c.lx.Begin()
			c.envelope()
			c.lx.End()
		})
		if scanned != nil || len(c.raw) != 0 {
			t.Fatalf("the quick scan accepted a body the detailed scan finds %v in: %+v\n%q", scanned, c.raw, body)
		}
		c.lx.Reset(nil)
	})
}
