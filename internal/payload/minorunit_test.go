package payload_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/payload"
	"github.com/whsim/whsim/internal/spec"
)

// noMinorUnit are ISO 4217 currencies whose minor unit is 0 digits: a yen
// or a won is not divided, and an amount of 1234.56 日元 is none an ERP
// books (the base-currency amounts, in CNY, keep their fen).
var noMinorUnit = []string{"JPY", "KRW", "VND", "CLP", "ISK", "UGX"}

// minorUnits checks that a receipt's amounts in its own currency are whole
// units where the currency has no minor unit.
func (c *checker) minorUnits(h map[string]any, lines, sources []any) {
	c.t.Helper()
	cur, _ := h["币别"].(map[string]any)
	code, _ := cur["code"].(string)
	if !contains(noMinorUnit, code) {
		return
	}
	whole := func(p string, o map[string]any) {
		for k, v := range o {
			if strings.Contains(k, "本位币") || k == "汇率" || strings.HasSuffix(k, "汇率") {
				continue
			}
			if _, isNum := v.(interface{ Float64() (float64, error) }); !isNum {
				continue
			}
			if r := rat(v); !r.IsInt() {
				c.errorf(p+k, "%s %s, which has no minor unit", r.FloatString(2), code)
			}
		}
	}
	whole("data.收款单.", h)
	for i, x := range lines {
		whole(fmt.Sprintf("data.收款明细.%d.", i), x.(map[string]any))
	}
	for i, x := range sources {
		whole(fmt.Sprintf("data.源单明细.%d.", i), x.(map[string]any))
	}
}

// TestAmountsInCurrenciesWithoutMinorUnit draws receipts until a few are in
// such a currency (about one in fifty is), in the sample shape, which holds
// every amount, hidden ones too.
func TestAmountsInCurrenciesWithoutMinorUnit(t *testing.T) {
	t.Parallel()
	e, _ := spec.Lookup("CREATE_RECEIVABLE_DOC")
	seen := 0
	for seed := uint64(1); seed <= 3000; seed++ {
		doc, err := payload.NewSource(seed, payload.Anchor(), spec.Sample, nil).Next(e)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		dec := json.NewDecoder(bytes.NewReader(payload.Marshal(doc)))
		dec.UseNumber()
		if err := dec.Decode(&body); err != nil {
			t.Fatal(err)
		}
		d := body[spec.FieldData].(map[string]any)
		h := d[spec.ReceiptHeader].(map[string]any)
		if code := h["币别"].(map[string]any)["code"].(string); contains(noMinorUnit, code) {
			seen++
		}
		c := &checker{t: t, seed: seed}
		c.minorUnits(h, d[spec.ReceiptLines].([]any), d[spec.ReceiptSources].([]any))
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
	if seen < 20 {
		t.Errorf("only %d receipts of 3000 in a currency without a minor unit", seen)
	}
}
