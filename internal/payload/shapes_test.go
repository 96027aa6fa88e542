package payload

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/whsim/whsim/internal/spec"
)

// The same seed gives the same documents in both shapes: the sample shape
// names some invoice fields otherwise, writes the status as a number and
// leaves fields out, and adds the hidden fields to a receipt, but every
// value both carry is the same, payload after payload of a run (the
// domain document is drawn before, and apart from, its shape). Before,
// the described invoice's applicant and the sample receipt's jump flag
// were drawn for their shape only: the invoice's remark, a receipt's
// source documents and every payload after them differed between shapes.
func TestSameSeedSameDocumentsInBothShapes(t *testing.T) {
	t.Parallel()
	alias := map[string]string{"enterpriseCode": "customerCode", "enterpriseName": "customerName", spec.FieldRecords: spec.FieldItems}
	hidden := map[string]bool{}
	var mark func(fs []spec.Field)
	mark = func(fs []spec.Field) {
		for _, f := range fs {
			if f.Hidden {
				hidden[f.Name] = true
			}
			mark(f.Fields)
		}
	}
	mark(spec.Data(spec.Receipt, spec.Sample).Fields)
	// strip drops the hidden fields of a sample receipt.
	var strip func(v any) any
	strip = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, m := range x {
				if !hidden[k] {
					out[k] = strip(m)
				}
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, m := range x {
				out[i] = strip(m)
			}
			return out
		}
		return v
	}
	decode := func(o *Obj) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(Marshal(o), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for seed := uint64(1); seed <= 100; seed++ {
		d, s := New(seed, Anchor()), New(seed, Anchor())
		for i := range 8 {
			e := spec.Events()[i%len(spec.Events())]
			dd := decode(d.Build(e, spec.Described))[spec.FieldData].(map[string]any)
			sd := decode(s.Build(e, spec.Sample))[spec.FieldData].(map[string]any)
			if e.Kind == spec.Receipt {
				if got := strip(sd); !reflect.DeepEqual(got, dd) {
					t.Fatalf("seed %d, payload %d (%s): the sample receipt without its hidden fields is\n%v\nthe described one\n%v", seed, i, e.Name, got, dd)
				}
				continue
			}
			for k, v := range sd {
				want, ok := dd[k]
				if a, isAlias := alias[k]; isAlias {
					want, ok = dd[a], true
				}
				if k == spec.FieldStatus {
					want = float64(spec.SampleStatus(dd[k].(string)))
				}
				if k == spec.FieldRecords {
					items := want.([]any)
					for j, rec := range v.([]any) {
						for rk, rv := range rec.(map[string]any) {
							if iv := items[j].(map[string]any)[rk]; !reflect.DeepEqual(iv, rv) {
								t.Fatalf("seed %d, payload %d (%s): records[%d].%s is %v, items[%d].%s %v", seed, i, e.Name, j, rk, rv, j, rk, iv)
							}
						}
					}
					continue
				}
				if !ok || !reflect.DeepEqual(v, want) {
					t.Fatalf("seed %d, payload %d (%s): sample %s is %v, described %v", seed, i, e.Name, k, v, want)
				}
			}
		}
	}
}
