package payload

import (
	"errors"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/spec"
)

func TestCheckPaths(t *testing.T) {
	t.Parallel()
	inv, _ := spec.Lookup("CREATE_PURCHASE_ORDER_INVOICE")
	rcp, _ := spec.Lookup("CREATE_RECEIVABLE_DOC")
	tests := []struct {
		events []spec.Event
		shape  spec.Shape
		set    string
		err    string // "" means none
		warn   string // "" means none
	}{
		{[]spec.Event{inv}, spec.Described, "data.items.0.quantity=3", "", ""},
		{[]spec.Event{inv}, spec.Described, "data.itemz.0.quantity=3", `no field data.itemz in CREATE_PURCHASE_ORDER_INVOICE (described shape) (did you mean "items"?)`, ""},
		{[]spec.Event{inv}, spec.Described, "data.staffNme=foo", "", `no field data.staffNme in CREATE_PURCHASE_ORDER_INVOICE (described shape), added as an unknown field (did you mean "staffName"?)`},
		{[]spec.Event{inv}, spec.Described, "data.items.0.itemAttributes.颜色=红色", "", ""},
		{[]spec.Event{inv}, spec.Described, "data.items.0.extra=1", "", "no field data.items.0.extra"},
		{[]spec.Event{inv}, spec.Sample, "data.records.0.quantity=3", "", ""},
		{[]spec.Event{inv}, spec.Sample, "data.items.0.quantity=3", "no field data.items in CREATE_PURCHASE_ORDER_INVOICE (sample shape)", ""},
		{[]spec.Event{rcp}, spec.Described, "data.收款单.单据状态=已作废", "", ""},
		{[]spec.Event{rcp}, spec.Described, "data.收款明细.0.手续费=1.5", "", ""},
		{[]spec.Event{rcp}, spec.Described, "data.收款单据.单据状态=x", "no field data.收款单据", ""},
		{[]spec.Event{inv, rcp}, spec.Described, "data.status=PASS", "", "no field data.status in CREATE_RECEIVABLE_DOC (described shape)"},
		{[]spec.Event{inv}, spec.Described, "x-trace=1", "", "no field x-trace"},
		// every event (generate's and send's default): a receipt's model has
		// no field near an invoice's key, and the invoice's did-you-mean is
		// still given, whichever event comes last
		{spec.Events(), spec.Described, "data.staffNme=foo", "", `added as an unknown field (did you mean "staffName"?)`},
		{[]spec.Event{rcp, inv}, spec.Described, "data.staffNme=foo", "", `added as an unknown field (did you mean "staffName"?)`},
		{spec.Events(), spec.Described, "data.cod=1", "", `(did you mean "code"?)`},
		{[]spec.Event{inv}, spec.Described, "requestId=abc", "", ""},
		// A digits-only value for a string field is JSON, a number: the
		// tax id, employee number or invoice number a user types is sent
		// as one unless quoted, which the warning says how to do.
		{[]spec.Event{inv}, spec.Described, "data.taxCode=310104710932064", "", `--set data.taxCode: 310104710932064 is sent as a JSON number, but taxCode is a string; to send the string, quote it: --set 'data.taxCode="310104710932064"'`},
		{[]spec.Event{inv}, spec.Sample, "data.records.0.itemCode=1001", "", `--set data.records.0.itemCode: 1001 is sent as a JSON number, but itemCode is a string; to send the string, quote it: --set 'data.records.0.itemCode="1001"'`},
		{[]spec.Event{rcp}, spec.Described, "data.收款明细.0.编号=2", "", `is sent as a JSON number, but 编号 is a string`},
		// A word for a field the spec makes a number is sent as a string:
		// the audit verdict the help shows (data.status=REFUSAL) is one in
		// the described shape only, the sample shape's status a number.
		{[]spec.Event{inv}, spec.Sample, "data.status=REFUSAL", "", `--set data.status: "REFUSAL" is sent as a string, but status is an integer in the sample shape; whsim writes REFUSAL there as 2: --set 'data.status=2'`},
		{[]spec.Event{inv}, spec.Described, "data.status=REFUSAL", "", ""},
		{[]spec.Event{inv}, spec.Described, "data.items.0.quantity=three", "", `--set data.items.0.quantity: "three" is sent as a string, but quantity is a number in the described shape`},
		{[]spec.Event{rcp}, spec.Described, "data.收款单.是否生产凭证=yes", "", `is sent as a string, but 是否生产凭证 is a boolean`},
		{[]spec.Event{inv}, spec.Sample, `data.status="2"`, "", `is sent as a string, but status is an integer`},
		{[]spec.Event{inv}, spec.Described, `data.taxCode="310104710932064"`, "", ""},
		{[]spec.Event{inv}, spec.Described, "data.taxCode=null", "", ""},
		{[]spec.Event{inv}, spec.Described, "data.items.0.quantity=3", "", ""},
		{[]spec.Event{inv}, spec.Described, "data.staffCode=0012", "", ""}, // not JSON: the string already
		// through a scalar or with a bad index: Apply's to say
		{[]spec.Event{inv}, spec.Described, "data.code.x=1", "", ""},
		{[]spec.Event{inv}, spec.Described, "data.items.x.quantity=1", "", ""},
	}
	for _, tt := range tests {
		ov, err := parseSet(tt.set)
		if err != nil {
			t.Fatal(err)
		}
		warns, err := checkPaths(tt.events, tt.shape, []Override{ov})
		var pe *unknownPathError
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: error %v", tt.set, err)
		case tt.err != "" && (!errors.As(err, &pe) || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want %q", tt.set, err, tt.err)
		}
		if tt.err != "" {
			continue
		}
		switch {
		case tt.warn == "" && len(warns) > 0:
			t.Errorf("%s: warnings %q", tt.set, warns)
		case tt.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0], tt.warn)):
			t.Errorf("%s: warnings %q, want one with %q", tt.set, warns, tt.warn)
		}
	}
	unset, _ := parseUnset("data.nothing")
	if w, err := checkPaths([]spec.Event{inv}, spec.Described, []Override{unset}); err != nil || len(w) > 0 {
		t.Errorf("an unset is not judged here: %q %v", w, err)
	}
}

// A path that fits some events of the run and not others says which.
func TestCheckPathsNamesTheEventsThatFit(t *testing.T) {
	t.Parallel()
	ov, _ := parseSet("data.items.0.quantity=3")
	_, err := checkPaths(spec.Events(), spec.Described, []Override{ov})
	if err == nil || !strings.HasSuffix(err.Error(), "; CREATE_PURCHASE_ORDER_INVOICE, AUDIT_PURCHASE_ORDER_INVOICE have it: choose the events with --event") {
		t.Errorf("error %v", err)
	}
	pl, err := Request{Events: []string{"all"}, Shape: "described", Sets: []string{"data.收款单.汇率=7.1"}, PathEvents: []string{"CREATE_RECEIVABLE_DOC", "ABANDON_RECEIVABLE_DOC"}}.Plan(Anchor())
	if err != nil || len(pl.Warnings) > 0 {
		t.Errorf("held against a scenario's events: %v %q", err, pl.Warnings)
	}
}

// The keys of itemAttributes vary with the generated item, so an unset of
// one removes it where an item has it and is no error where it has not,
// whatever the seed; a field the model does have stays an error when
// missing.
func TestUnsetItemAttributeKeyOverSeeds(t *testing.T) {
	t.Parallel()
	const key = "规格"
	had := 0
	for seed := uint64(1); seed <= 300; seed++ {
		pl, err := Request{Events: []string{"CREATE_PURCHASE_ORDER_INVOICE"}, Shape: "described", Seed: seed,
			Unsets: []string{"data.items.0.itemAttributes." + key}}.Plan(Anchor())
		if err != nil {
			t.Fatal(err)
		}
		doc, err := pl.Next(pl.Events[0])
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if _, ok := Lookup(doc, path{"data", "items", "0", "itemAttributes", key}); ok {
			t.Fatalf("seed %d: %s still there", seed, key)
		}
		plain, _ := Request{Events: []string{"CREATE_PURCHASE_ORDER_INVOICE"}, Shape: "described", Seed: seed}.Plan(Anchor())
		orig, _ := plain.Next(plain.Events[0])
		if _, ok := Lookup(orig, path{"data", "items", "0", "itemAttributes", key}); ok {
			had++
		}
	}
	if had == 0 || had == 300 {
		t.Fatalf("%d of 300 seeds have %s: the test no longer covers both cases", had, key)
	}
	pl, err := Request{Events: []string{"CREATE_PURCHASE_ORDER_INVOICE"}, Shape: "described", Seed: 1,
		Unsets: []string{"data.items.0.bogus"}}.Plan(Anchor())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pl.Next(pl.Events[0]); err == nil || !strings.Contains(err.Error(), "no such field") {
		t.Errorf("a missing spec field: %v", err)
	}
}
