package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/spec"
)

// compile compiles a schema document with santhosh-tekuri/jsonschema, an
// independent implementation of draft 2020-12.
func compile(t testing.TB, o *obj) *jsonschema.Schema {
	t.Helper()
	b, err := Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, b)
	}
	return sch
}

func instance(t testing.TB, b []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestGeneratedPayloadsMatch validates every generated payload (all events,
// both shapes, many seeds) and every fixture against its own schema and
// against the bundle of all of them.
func TestGeneratedPayloadsMatch(t *testing.T) {
	t.Parallel()
	bundle := compile(t, Bundle(spec.Events(), spec.Shapes()))
	seeds := 100
	if testing.Short() {
		seeds = 10
	}
	for _, e := range spec.Events() {
		for _, s := range spec.Shapes() {
			sch := compile(t, For(e, s))
			check := func(name string, b []byte) {
				inst := instance(t, b)
				if err := sch.Validate(inst); err != nil {
					t.Errorf("%s against %s: %v", name, defName(e, s), err)
				}
				if err := bundle.Validate(inst); err != nil {
					t.Errorf("%s against the bundle: %v", name, err)
				}
			}
			b, err := fixtures.Get(e.Name, s)
			if err != nil {
				t.Fatal(err)
			}
			check(fixtures.Name(e.Name, s), b)
			for seed := 1; seed <= seeds; seed++ {
				src := payload.NewSource(uint64(seed), payload.Anchor(), s, nil)
				doc, err := src.Next(e)
				if err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("seed %d", seed), payload.Marshal(doc))
			}
		}
	}
}

// set replaces the value at a dotted path (array indexes as numbers) in a
// decoded document; a value of del removes the member.
func set(doc any, path string, v any) {
	parts := strings.Split(path, ".")
	cur := doc
	for i, p := range parts {
		last := i == len(parts)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if v == del {
					delete(c, p)
				} else {
					c[p] = v
				}
				return
			}
			cur = c[p]
		case []any:
			var n int
			fmt.Sscan(p, &n)
			if last {
				c[n] = v
				return
			}
			cur = c[n]
		}
	}
}

var del = &struct{}{}

// TestRejectsTypeErrors checks that the schemas reject what validate calls
// an error.
func TestRejectsTypeErrors(t *testing.T) {
	t.Parallel()
	ev := func(name string) spec.Event { e, _ := spec.Lookup(name); return e }
	tests := []struct {
		event string
		shape spec.Shape
		path  string
		value any
	}{
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "requestId", "not-a-uuid"},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "requestId", 42.0},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "requestId", del},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "businessType", "5007"},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "businessType", 5007.5},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "businessType", 5009.0},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "businessType", 4000.0},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data", nil},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data", []any{}},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data", del},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data.收款单", del},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data.收款单", nil},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data.收款明细", map[string]any{}},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data.收款明细.0", 1.0},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data.源单明细.0", nil},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data.收款单.应收金额", "1.00"},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data.收款单.业务日期", -1.0},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data.收款单.业务日期", 1.5},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data.收款单.是否生产凭证", "false"},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data.收款单.客户名称", "x"},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data.收款明细.0.应收金额本位币-隐", "1.5"},
		{"CREATE_RECEIVABLE_DOC", spec.Sample, "data.收款明细.0.应收金额本位币-隐", 1.5},
		{"ABANDON_RECEIVABLE_DOC", spec.Described, "data.源单明细.0.到期日", "2026-01-01"},
		{"CREATE_PURCHASE_ORDER_INVOICE", spec.Described, "data.createType", "INVENTED"},
		{"CREATE_PURCHASE_ORDER_INVOICE", spec.Described, "data.status", "pass"},
		{"CREATE_PURCHASE_ORDER_INVOICE", spec.Described, "data.status", 1.0},
		{"CREATE_PURCHASE_ORDER_INVOICE", spec.Described, "data.currency", "cny"},
		{"CREATE_PURCHASE_ORDER_INVOICE", spec.Described, "data.createTime", 1.5},
		{"CREATE_PURCHASE_ORDER_INVOICE", spec.Described, "data.items.0.itemAttributes", map[string]any{"颜色": 1.0}},
		{"CREATE_PURCHASE_ORDER_INVOICE", spec.Described, "data.items.0.itemAttributes", []any{}},
		{"CREATE_PURCHASE_ORDER_INVOICE", spec.Described, "data.items.0.quantity", "1"},
		{"CREATE_PURCHASE_ORDER_INVOICE", spec.Described, "data.items.0", "x"},
		{"CREATE_PURCHASE_ORDER_INVOICE", spec.Described, "data.records", []any{}},
		{"CREATE_PURCHASE_ORDER_INVOICE", spec.Described, "data.收款单", map[string]any{}},
		{"CREATE_PURCHASE_ORDER_INVOICE", spec.Described, "businessType", 4011.0},
		{"AUDIT_PURCHASE_ORDER_INVOICE", spec.Sample, "data.status", "PASS"},
		{"AUDIT_PURCHASE_ORDER_INVOICE", spec.Sample, "data.status", 1.5},
		{"AUDIT_PURCHASE_ORDER_INVOICE", spec.Sample, "data.items", []any{}},
		{"AUDIT_PURCHASE_ORDER_INVOICE", spec.Sample, "data.records.0.price", "1"},
	}
	for _, tt := range tests {
		e := ev(tt.event)
		sch := compile(t, For(e, tt.shape))
		doc, err := payload.NewSource(3, payload.Anchor(), tt.shape, nil).Next(e)
		if err != nil {
			t.Fatal(err)
		}
		var inst any
		if err := json.Unmarshal(payload.Marshal(doc), &inst); err != nil {
			t.Fatal(err)
		}
		set(inst, tt.path, tt.value)
		if err := sch.Validate(inst); err == nil {
			t.Errorf("%s %s: %s = %v accepted", tt.event, tt.shape, tt.path, tt.value)
		}
	}
}

// Every JSON Schema document whsim schema prints has an $id of its own:
// a tool that loads several (Ajv's addSchema, ajv -r, a registry of
// schemas by $id) refuses a second document under an $id it has, or
// checks bodies against the first one under it. All events of one shape,
// one event's two shapes and the whole bundle were each
// https://whsim.dev/schema/whsim.json, holding different schemas.
func TestEveryDocumentHasItsOwnID(t *testing.T) {
	t.Parallel()
	var docs []*obj
	choices := func(all []spec.Event) [][]spec.Event {
		out := [][]spec.Event{all}
		for _, e := range all {
			out = append(out, []spec.Event{e})
		}
		return out
	}
	shapeChoices := [][]spec.Shape{spec.Shapes()}
	for _, s := range spec.Shapes() {
		shapeChoices = append(shapeChoices, []spec.Shape{s})
	}
	for _, events := range choices(spec.Events()) {
		for _, shapes := range shapeChoices {
			// As the command chooses (internal/cli/schemacmd).
			if len(events) == 1 && len(shapes) == 1 {
				docs = append(docs, For(events[0], shapes[0]))
			} else {
				docs = append(docs, Bundle(events, shapes))
			}
		}
	}
	c := jsonschema.NewCompiler()
	seen := map[string]int{}
	for i, d := range docs {
		b, err := Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			ID string `json:"$id"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			t.Fatal(err)
		}
		if j, dup := seen[head.ID]; dup {
			t.Errorf("documents %d and %d share the $id %s", j, i, head.ID)
			continue
		}
		seen[head.ID] = i
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(fmt.Sprintf("file:///schema%d.json", i), doc); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range seen {
		if _, err := c.Compile(fmt.Sprintf("file:///schema%d.json", i)); err != nil {
			t.Errorf("document %d beside the others: %v", i, err)
		}
	}
	if _, ok := seen[baseID+"whsim.json"]; !ok {
		t.Errorf("the bundle of every event and shape is no longer %swhsim.json", baseID)
	}
}

// TestClosedValuesDescribed: the spec gives the meaning of each audit
// status and the number each createType name stands for; a closed
// enumeration's description says them, so that a reader of the schema (an
// API portal, generated code's comments) has what the spec gives, not the
// names alone.
func TestClosedValuesDescribed(t *testing.T) {
	t.Parallel()
	b, err := Marshal(For(spec.Events()[1], spec.Described))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties struct {
			Data struct {
				Properties map[string]struct{ Description string }
			}
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		"createType": {"SALE_ORDER (0)", "SALE_OUT (1)", "SALE_RETURN (2)", "PURCHASE_ORDER (3)", "PURCHASE_RECEIPT (4)", "PURCHASE_RETURN (5)"},
		"status":     {"PASS approved", "REFUSAL rejected"},
	} {
		d := doc.Properties.Data.Properties[name].Description
		for _, w := range want {
			if !strings.Contains(d, w) {
				t.Errorf("%s: description %q does not say %q", name, d, w)
			}
		}
	}
}
