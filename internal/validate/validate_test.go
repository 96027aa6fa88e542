package validate

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/termsafe"
)

func load(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustNew(t testing.TB, opts Options) *Validator {
	t.Helper()
	v, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func ruleSet(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		if !slices.Contains(out, f.Rule) {
			out = append(out, f.Rule)
		}
	}
	slices.Sort(out)
	return out
}

// edit replaces the first old with new in s and fails when old is absent.
func edit(t *testing.T, s string, pairs ...string) string {
	t.Helper()
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("edit: %q not in the base", pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

func TestCheck(t *testing.T) {
	t.Parallel()
	rec, inv, smp := load(t, "receipt.json"), load(t, "invoice.json"), load(t, "invoice-sample.json")
	tests := []struct {
		name  string
		body  func(t *testing.T) string
		event string
		opts  Options
		want  []string // the set of rule ids found
		path  string   // the path of the first finding, when set
		n     int      // the number of findings, when set
	}{
		{name: "receipt valid", body: func(*testing.T) string { return rec }},
		{name: "invoice valid", body: func(*testing.T) string { return inv }},
		{name: "sample invoice valid", body: func(*testing.T) string { return smp }},
		{name: "sample invoice with event", event: "AUDIT_PURCHASE_ORDER_INVOICE", body: func(*testing.T) string { return smp }},
		{name: "receipt with event", event: "CREATE_RECEIVABLE_DOC", body: func(*testing.T) string { return rec }},
		{name: "empty", body: func(*testing.T) string { return "" }, want: []string{ruleSyntax}},
		{name: "whitespace", body: func(*testing.T) string { return " \n\t " }, want: []string{ruleSyntax}},
		{name: "bom", body: func(*testing.T) string { return "\ufeff" + rec }, want: []string{ruleSyntax}},
		{name: "NaN", body: func(t *testing.T) string { return edit(t, rec, "1.0000,", "NaN,") }, want: []string{ruleSyntax}},
		{name: "Infinity", body: func(t *testing.T) string { return edit(t, rec, "1.0000,", "-Infinity,") }, want: []string{ruleSyntax}},
		{name: "single quotes", body: func(t *testing.T) string { return edit(t, rec, `"编号": "1"`, `"编号": '1'`) }, want: []string{ruleSyntax}},
		{name: "trailing comma object", body: func(t *testing.T) string { return edit(t, rec, `"收款跳转标志": 0`, `"收款跳转标志": 0,`) }, want: []string{ruleSyntax}},
		{name: "trailing comma array", body: func(t *testing.T) string { return `{"a":[1,2,]}` }, want: []string{ruleSyntax}},
		{name: "trailing data", body: func(*testing.T) string { return rec + "x" }, want: []string{ruleSyntax}},
		{name: "two values", body: func(*testing.T) string { return rec + rec }, want: []string{ruleSyntax}},
		{name: "invalid utf8", body: func(t *testing.T) string { return edit(t, rec, "销售收款", "\xff\xfe") }, want: []string{ruleSyntax}},
		{name: "truncated", body: func(*testing.T) string { return rec[:len(rec)/2] }, want: []string{ruleSyntax}},
		{name: "comment", body: func(*testing.T) string { return "// hi\n" + rec }, want: []string{ruleSyntax}},
		{name: "leading zero", body: func(t *testing.T) string { return edit(t, rec, `"收款跳转标志": 0`, `"收款跳转标志": 01`) }, want: []string{ruleSyntax}},
		{name: "control char in string", body: func(t *testing.T) string { return edit(t, rec, "销售收款", "a\tb") }, want: []string{ruleSyntax}},
		{name: "bad escape", body: func(t *testing.T) string { return edit(t, rec, "销售收款", `a\x`) }, want: []string{ruleSyntax}},
		{name: "array body", body: func(*testing.T) string { return "[" + rec + "]" }, want: []string{ruleEnvelope}},
		{name: "string body", body: func(*testing.T) string { return `"hi"` }, want: []string{ruleEnvelope}},
		{name: "empty object", body: func(*testing.T) string { return `{}` }, want: []string{ruleBusinessType, ruleData, ruleRequestID}},
		{name: "requestId missing", body: func(t *testing.T) string {
			return edit(t, rec, `"requestId": "9424f8a8-0aa8-434f-88f9-c391ba0cdad4",`, "")
		}, want: []string{ruleRequestID}, path: "requestId"},
		{name: "requestId number", body: func(t *testing.T) string { return edit(t, rec, `"9424f8a8-0aa8-434f-88f9-c391ba0cdad4"`, "42") }, want: []string{ruleRequestID}},
		{name: "requestId not uuid", body: func(t *testing.T) string { return edit(t, rec, `9424f8a8-0aa8`, "9424f8a8_0aa8") }, want: []string{ruleRequestID}},
		{name: "requestId upper case", body: func(t *testing.T) string {
			return edit(t, rec, `9424f8a8-0aa8-434f-88f9-c391ba0cdad4`, "9424F8A8-0AA8-434F-88F9-C391BA0CDAD4")
		}},
		{name: "businessType missing", body: func(t *testing.T) string { return edit(t, rec, `"businessType": 5007,`, "") }, want: []string{ruleBusinessType}},
		{name: "businessType string", body: func(t *testing.T) string { return edit(t, rec, `5007,`, `"5007",`) }, want: []string{ruleBusinessType}},
		{name: "businessType fraction", body: func(t *testing.T) string { return edit(t, rec, `5007,`, `5007.5,`) }, want: []string{ruleBusinessType}},
		{name: "businessType 5007.0 is an integer", body: func(t *testing.T) string { return edit(t, rec, `5007,`, `5007.0,`) }, want: []string{ruleIntegerForm}},
		{name: "businessType unknown", body: func(t *testing.T) string { return edit(t, rec, `5007,`, `5008,`) }, want: []string{ruleBusinessType}},
		{name: "data missing", body: func(*testing.T) string {
			return `{"requestId":"9424f8a8-0aa8-434f-88f9-c391ba0cdad4","businessType":5007}`
		}, want: []string{ruleData}},
		{name: "data null", body: func(*testing.T) string {
			return `{"requestId":"9424f8a8-0aa8-434f-88f9-c391ba0cdad4","businessType":5007,"data":null}`
		}, want: []string{ruleData}},
		{name: "data array", body: func(*testing.T) string {
			return `{"requestId":"9424f8a8-0aa8-434f-88f9-c391ba0cdad4","businessType":5007,"data":[]}`
		}, want: []string{ruleData}},
		{name: "event mismatch", event: "CREATE_PURCHASE_ORDER_INVOICE", body: func(*testing.T) string { return rec }, want: []string{ruleEventNumber}},
		{name: "4011 with create", event: "CREATE_PURCHASE_ORDER_INVOICE", body: func(*testing.T) string { return inv }, want: []string{ruleEventNumber}},
		{name: "5009 with create", event: "CREATE_RECEIVABLE_DOC", body: func(t *testing.T) string { return edit(t, rec, "5007", "5009") }, want: []string{ruleEventNumber}},
		{name: "unknown event", event: "NOPE", body: func(*testing.T) string { return rec }, want: []string{RuleQueryEvent}},
		{name: "string for number", body: func(t *testing.T) string {
			return edit(t, rec, `"应收金额": 198306.44`, `"应收金额": "198306.44"`)
		}, want: []string{ruleType}, path: "data.收款明细[0].应收金额"},
		{name: "fraction for millis", body: func(t *testing.T) string { return edit(t, rec, "1789833600000", "1789833600000.5") }, want: []string{ruleType}},
		{name: "negative millis", body: func(t *testing.T) string { return edit(t, rec, "1789833600000", "-1789833600000") }, want: []string{ruleFormat}},
		// -0 is zero, not a negative number: JSON Schema's minimum 0 (and
		// every parser) takes it as 0, which is a time before 2000.
		{name: "negative zero millis", body: func(t *testing.T) string { return edit(t, rec, "1789833600000", "-0") }, want: []string{ruleTimeRange}, n: 1},
		{name: "negative zero millis with a fraction", body: func(t *testing.T) string { return edit(t, inv, "1791100048266", "-0.0") }, want: []string{ruleIntegerForm, ruleTimeRange}, n: 2},
		// A number beyond float64's range is JSON by RFC 8259's grammar, but
		// Go's encoding/json refuses it and JavaScript reads it as Infinity
		// (which JSON Schema's "number" then rejects): a type error, as the
		// schema has it, rather than a pass with its arithmetic skipped.
		{name: "amount beyond a double", body: func(t *testing.T) string { return edit(t, rec, `"手续费": 0.00`, `"手续费": 1e400`) }, want: []string{ruleType}, path: "data.收款明细[0].手续费"},
		{name: "rate beyond a double", body: func(t *testing.T) string { return edit(t, rec, `"汇率": 1.0000`, `"汇率": -1e400`) }, want: []string{ruleType}, path: "data.收款单.汇率"},
		{name: "millis beyond a double", body: func(t *testing.T) string { return edit(t, rec, "1789833600000", "1789833600000e300") }, want: []string{ruleType}},
		{name: "quantity beyond a double", body: func(t *testing.T) string { return edit(t, inv, `"quantity": 91,`, `"quantity": 91e999,`) }, want: []string{ruleType}, path: "data.items[0].quantity"},
		{name: "tiny amount is zero", body: func(t *testing.T) string { return edit(t, rec, `"手续费": 0.00`, `"手续费": 1e-400`) }},
		{name: "large amount within a double", body: func(t *testing.T) string { return edit(t, rec, `"手续费": 0.00`, `"手续费": 0e400`) }},
		{name: "seconds", body: func(t *testing.T) string { return edit(t, rec, "1789833600000", "1789833600") }, want: []string{ruleSeconds}},
		{name: "before 2000", body: func(t *testing.T) string { return edit(t, rec, "1789833600000", "1000") }, want: []string{ruleTimeRange}},
		{name: "after 2100", body: func(t *testing.T) string { return edit(t, rec, "1789833600000", "9789833600000") }, want: []string{ruleTimeRange}},
		{name: "boolean as string", body: func(t *testing.T) string {
			return edit(t, rec, `"是否生产凭证": false`, `"是否生产凭证": "false"`)
		}, want: []string{ruleType}},
		{name: "itemAttributes not strings", body: func(t *testing.T) string { return edit(t, inv, `"蓝色"`, `3`) }, want: []string{ruleType}, path: "data.items[0].itemAttributes.颜色"},
		{name: "itemAttributes array", body: func(t *testing.T) string { return edit(t, inv, `"itemAttributes": {`, `"itemAttributes": [], "x": {`) }, want: []string{ruleType, ruleUnknown}},
		{name: "createType unknown", body: func(t *testing.T) string { return edit(t, inv, `"PURCHASE_RECEIPT"`, `"INVENTED"`) }, want: []string{ruleEnum}},
		{name: "status unknown", body: func(t *testing.T) string { return edit(t, inv, `"PASS"`, `"pass"`) }, want: []string{ruleEnum}},
		{name: "currency lower", body: func(t *testing.T) string { return edit(t, inv, `"currency": "CNY"`, `"currency": "cny"`) }, want: []string{ruleFormat}},
		{name: "receipt currency PRE001", body: func(t *testing.T) string { return edit(t, rec, `"code": "CNY"`, `"code": "PRE001"`) }, want: []string{ruleAdvisory}},
		{name: "decimal string", body: func(t *testing.T) string { return edit(t, rec, `"198306.44"`, `"198306.4"`) }, want: []string{ruleFormat}},
		{name: "decimal string number", body: func(t *testing.T) string { return edit(t, rec, `"198306.44"`, `198306.44`) }, want: []string{ruleType}},
		{name: "receipt lacks 源单明细", body: func(t *testing.T) string { return edit(t, rec, `"源单明细"`, `"源单明细x"`) }, want: []string{ruleReceiptPart, ruleUnknown}},
		{name: "receipt lines object", body: func(t *testing.T) string { return edit(t, rec, `"收款明细": [`, `"收款明细": 1, "y": [`) }, want: []string{ruleType, ruleUnknown}},
		{name: "receipt line not object", body: func(t *testing.T) string { return edit(t, rec, `"收款明细": [`, `"收款明细": [1,`) }, want: []string{ruleType}, path: "data.收款明细[0]"},
		{name: "invoice carries receipt member", body: func(t *testing.T) string { return edit(t, inv, `"code": "CGFP`, `"收款明细": [], "code": "CGFP`) }, want: []string{ruleForeignPart}},
		{name: "mixed markers", body: func(t *testing.T) string { return edit(t, inv, `"customerCode"`, `"enterpriseCode"`) }, want: []string{ruleMixedShape}},
		{name: "integer status with described", body: func(t *testing.T) string { return edit(t, inv, `"PASS"`, `1`) }, want: []string{ruleMixedShape}},
		{name: "string status with sample", body: func(t *testing.T) string { return edit(t, smp, `"status": 1`, `"status": "PASS"`) }, want: []string{ruleMixedShape}},
		{name: "status boolean", body: func(t *testing.T) string { return edit(t, inv, `"PASS"`, `true`) }, want: []string{ruleType}, n: 1},
		// A status of neither shape's type is one type error, also in an
		// invoice the other fields show to be of the sample shape.
		{name: "status boolean in sample", body: func(t *testing.T) string { return edit(t, smp, `"status": 1`, `"status": true`) }, want: []string{ruleType}, n: 1, path: "data.status"},
		{name: "status object in sample", body: func(t *testing.T) string { return edit(t, smp, `"status": 1`, `"status": {}`) }, want: []string{ruleType}, n: 1, path: "data.status"},
		// A field of another document kind or shape is unknown there (a
		// warning), whatever its value: the spec gives it no type in this
		// document, so its value breaks no rule of it, as the schema of
		// the event and shape has it too.
		{name: "invoice fields in a receipt are unknown, whatever their values", body: func(t *testing.T) string {
			return edit(t, rec, `"收款单": {`, `"currency": "usd", "createType": "X", "status": "x", "items": 5, "taxCode": 5, "createTime": -5, "收款单": {`)
		}, want: []string{ruleUnknown}, n: 6},
		{name: "described-only fields in a sample invoice are unknown, whatever their values", body: func(t *testing.T) string {
			return edit(t, smp, `"status": 1`, `"status": 1, "invoiceCode": 5, "applicationName": [], "applicationCode": {"a": 1}`)
		}, want: []string{ruleUnknown}, n: 3},
		{name: "a duplicate key inside an unknown field is still one", body: func(t *testing.T) string {
			return edit(t, rec, `"收款单": {`, `"items": [{"tax": 1, "tax": 2}], "收款单": {`)
		}, want: []string{ruleDuplicateKey, ruleUnknown}, n: 2},
		{name: "described asserted on sample", opts: Options{Shape: "described"}, body: func(*testing.T) string { return smp }, want: []string{ruleMissing, ruleType, ruleUnknown}},
		{name: "sample asserted on receipt", opts: Options{Shape: "sample"}, body: func(*testing.T) string { return rec }},
		{name: "described asserted on sample receipt", opts: Options{Shape: "described"}, body: func(*testing.T) string { return rec }, want: []string{ruleUnknown}},
		{name: "duplicate key", body: func(t *testing.T) string { return edit(t, rec, `"编号": "1",`, `"编号": "1", "编号": "1",`) }, want: []string{ruleDuplicateKey}},
		{name: "duplicate envelope key", body: func(t *testing.T) string {
			return edit(t, rec, `"businessType": 5007,`, `"businessType": 5007, "businessType": 5007,`)
		}, want: []string{ruleDuplicateKey}},
		{name: "duplicate free key", body: func(t *testing.T) string {
			return edit(t, inv, `"颜色": "蓝色",`, `"颜色": "蓝色", "\u989c\u8272": "红色",`)
		}, want: []string{ruleDuplicateKey}},
		{name: "duplicate unknown key", body: func(t *testing.T) string { return edit(t, rec, `"编号": "1",`, `"z": 1, "z": 2,`) }, want: []string{ruleDuplicateKey, ruleMissing, ruleUnknown}},
		{name: "missing field", body: func(t *testing.T) string { return edit(t, rec, `"收款用途": "销售收款",`, ``) }, want: []string{ruleMissing}, path: "data.收款明细[0].收款用途"},
		{name: "unknown field", body: func(t *testing.T) string { return edit(t, rec, `"编号": "1",`, `"编号": "1", "备注": "",`) }, want: []string{ruleUnknown}},
		{name: "unknown envelope field", body: func(t *testing.T) string {
			return edit(t, rec, `"businessType": 5007,`, `"businessType": 5007, "x": 1,`)
		}, want: []string{ruleUnknown}},
		{name: "null field", body: func(t *testing.T) string {
			return edit(t, rec, `"收款用途": "销售收款"`, `"收款用途": null`)
		}, want: []string{ruleNull}},
		{name: "invoiceType other", body: func(t *testing.T) string { return edit(t, inv, `"VALUE_ADDED_TAX"`, `"ORDINARY"`) }, want: []string{ruleAdvisory}},
		{name: "tax id check", body: func(t *testing.T) string { return edit(t, inv, `91340104MAF6QHFY1J`, `91340104MAF6QHFY1K`) }, want: []string{ruleTaxID}},
		{name: "tax id standard example", body: func(t *testing.T) string { return edit(t, inv, `91340104MAF6QHFY1J`, `91350100M000100Y43`) }},
		{name: "tax id full-width", body: func(t *testing.T) string {
			return edit(t, inv, `91340104MAF6QHFY1J`, `９１３４０１０４MAF6QHFY1J`)
		}, want: []string{ruleTaxID}, path: "data.taxCode"},
		// Six Chinese characters are 18 bytes but 6 characters: no code
		// misread, and no length a taxpayer id has.
		{name: "tax id of six Chinese characters", body: func(t *testing.T) string { return edit(t, inv, `91340104MAF6QHFY1J`, `统一社会信用`) }, want: []string{ruleTaxID}, path: "data.taxCode"},
		{name: "tax id cut short", body: func(t *testing.T) string { return edit(t, inv, `91340104MAF6QHFY1J`, `91340104MAF6QHFY1`) }, want: []string{ruleTaxID}, path: "data.taxCode"},
		{name: "tax id one too many", body: func(t *testing.T) string { return edit(t, inv, `91340104MAF6QHFY1J`, `91340104MAF6QHFY1JJ`) }, want: []string{ruleTaxID}, path: "data.taxCode"},
		{name: "tax id of 20 digits", body: func(t *testing.T) string { return edit(t, inv, `91340104MAF6QHFY1J`, `11010519491231002X01`) }},
		{name: "tax id empty", body: func(t *testing.T) string { return edit(t, inv, `"91340104MAF6QHFY1J"`, `""`) }},
		{name: "tax id a sole trader's identity card number", body: func(t *testing.T) string { return edit(t, inv, `91340104MAF6QHFY1J`, `11010519491231002X`) }},
		{name: "tax id pilot", body: func(t *testing.T) string { return edit(t, inv, `91340104MAF6QHFY1J`, `91350100M000100Y4Z`) }, want: []string{ruleTaxID}},
		{name: "line tax", body: func(t *testing.T) string { return edit(t, inv, `2992.99`, `2000.00`) }, want: []string{ruleLineTax}, path: "data.items[0].tax"},
		{name: "receipt totals", body: func(t *testing.T) string {
			return edit(t, rec, `"实收金额": 315811.94`, `"实收金额": 315811.95`)
		}, want: []string{ruleBaseCurrency, ruleTotals}},
		{name: "outstanding", body: func(t *testing.T) string {
			return edit(t, rec, `"未核销金额": 198306.44`, `"未核销金额": 198306.45`)
		}, want: []string{ruleOutstanding}},
		{name: "base amount", body: func(t *testing.T) string {
			return edit(t, rec, `"应收金额本位币": 315811.94`, `"应收金额本位币": 315811.00`)
		}, want: []string{ruleBaseCurrency}},
		{name: "base amount hidden", body: func(t *testing.T) string { return edit(t, rec, `"198306.44"`, `"198306.40"`) }, want: []string{ruleBaseCurrency}},
		{name: "ignore", opts: Options{Ignore: []string{ruleBaseCurrency}}, body: func(t *testing.T) string { return edit(t, rec, `"198306.44"`, `"198306.40"`) }},
		{name: "escaped key known", body: func(t *testing.T) string { return edit(t, rec, `"收款用途"`, `"\u6536\u6b3e\u7528\u9014"`) }},
		{name: "deep nesting", body: func(*testing.T) string {
			return `{"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}"
		}, want: []string{ruleSyntax}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := mustNew(t, tt.opts)
			got := v.Check([]byte(tt.body(t)), tt.event)
			if !slices.Equal(ruleSet(got), tt.want) {
				t.Errorf("rules %q, want %q; findings:\n%s", ruleSet(got), tt.want, dump(got))
			}
			if tt.n != 0 && len(got) != tt.n {
				t.Errorf("%d findings, want %d:\n%s", len(got), tt.n, dump(got))
			}
			if tt.path != "" && (len(got) == 0 || got[0].Path != tt.path) {
				t.Errorf("first path: want %q; findings:\n%s", tt.path, dump(got))
			}
			for _, f := range got {
				if f.Rule == ruleSyntax && (f.Line == 0 || f.Column == 0 || !strings.Contains(f.Message, "column")) {
					t.Errorf("syntax finding without a position: %+v", f)
				}
			}
		})
	}
}

func dump(fs []Finding) string {
	var sb strings.Builder
	for _, f := range fs {
		sb.WriteString("  " + f.Rule + " " + string(f.Severity) + " " + f.Path + ": " + f.Message + "\n")
	}
	return sb.String()
}

// An integer is a number whose value has no fractional part (JSON Schema
// 2020-12): 1e3, 1.0 and -0 are integers, as Ajv and Python's jsonschema
// read them; 1e-999 and 5007.0000000000000001 are not, which those read
// as the doubles 0 and 5007. Their type error says so, or it reads as
// whsim's mistake beside a schema validator that passed the payload.
func TestIntegerWrittenOtherwise(t *testing.T) {
	t.Parallel()
	// How they are written is TestIntegerForm's.
	v := mustNew(t, Options{Ignore: []string{ruleTimeRange, ruleSeconds, ruleIntegerForm}})
	inv := load(t, "invoice.json")
	for _, tt := range []struct{ millis, want string }{
		{"1e3", ""},
		{"1.0", ""},
		{"1000.000", ""},
		{"-0", ""},
		{"10e-1", ""},
		{"1.5", "want integer (milliseconds since the Unix epoch), got 1.5"},
		{"1e-999", "want integer (milliseconds since the Unix epoch), got 1e-999: a fraction as written, which a parser that reads numbers as doubles (JavaScript, Python, Ajv) reads as 0"},
		{"1791100048266.0000001", "want integer (milliseconds since the Unix epoch), got 1791100048266.0000001: a fraction as written, which a parser that reads numbers as doubles (JavaScript, Python, Ajv) reads as 1791100048266"},
	} {
		var msgs []string
		for _, f := range v.Check([]byte(edit(t, inv, "1791100048266", tt.millis)), "") {
			msgs = append(msgs, f.Message)
		}
		if got := strings.Join(msgs, "; "); got != tt.want {
			t.Errorf("createTime %s: %q, want %q", tt.millis, got, tt.want)
		}
	}
	bt := v.Check([]byte(edit(t, load(t, "receipt.json"), "5007,", "5007.0000000000000001,")), "")
	if len(bt) != 1 || bt[0].Message != "want an integer, got 5007.0000000000000001: a fraction as written, which a parser that reads numbers as doubles (JavaScript, Python, Ajv) reads as 5007" {
		t.Errorf("businessType 5007.0000000000000001: %+v", bt)
	}
}

// An integer written with a fraction or an exponent (5007.0, 1e3) is an
// integer to JSON Schema, and no error, but Go's encoding/json and Rust's
// serde_json refuse it for an integer field: a receiver written in them
// fails to decode the body, and the warning says where.
func TestIntegerForm(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{Ignore: []string{ruleTimeRange, ruleSeconds}})
	inv, rec, smp := load(t, "invoice.json"), load(t, "receipt.json"), load(t, "invoice-sample.json")
	const why = ": Go's encoding/json and Rust's serde_json refuse it for an integer field"
	for _, tt := range []struct{ name, body, want string }{
		{"businessType 5007.0", edit(t, rec, "5007,", "5007.0,"), "businessType: 5007.0 is an integer written with a fraction or an exponent (write 5007)" + why},
		{"businessType 5.007e3", edit(t, rec, "5007,", "5.007e3,"), "businessType: 5.007e3 is an integer written with a fraction or an exponent (write 5007)" + why},
		{"createTime 1e3", edit(t, inv, "1791100048266", "1e3"), "data.createTime: 1e3 is an integer written with a fraction or an exponent (write 1000)" + why},
		{"createTime 1791100048266.0", edit(t, inv, "1791100048266", "1791100048266.0"), "data.createTime: 1791100048266.0 is an integer written with a fraction or an exponent (write 1791100048266)" + why},
		{"sample status 1.0", edit(t, smp, `"status": 1`, `"status": 1.0`), "data.status: 1.0 is an integer written with a fraction or an exponent (write 1)" + why},
		{"-0 decodes", edit(t, inv, "1791100048266", "-0"), ""},
		{"plain integer", inv, ""},
		// A number field takes a fraction: 5.0 is a price.
		{"price 253.00", inv, ""},
	} {
		var got []string
		for _, f := range v.Check([]byte(tt.body), "") {
			if f.Rule == ruleIntegerForm {
				if f.Severity != Warning {
					t.Errorf("%s: severity %s", tt.name, f.Severity)
				}
				got = append(got, f.Path+": "+f.Message)
			}
		}
		if g := strings.Join(got, "; "); g != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, g, tt.want)
		}
	}
}

// A body number that is wrong and also written in another form (4011.0,
// 4.011e3, a string) is one fault: one finding says both, not an
// integer-form warning beside the body-number error. Ignoring either rule
// leaves the other's finding whole.
func TestBodyNumberOneFinding(t *testing.T) {
	t.Parallel()
	inv, rec := load(t, "invoice.json"), load(t, "receipt.json")
	const form = " is an integer written with a fraction or an exponent"
	for _, tt := range []struct {
		name, body, event string
		ignore            []string
		want              string
	}{
		{"mismatch 4.011e3", edit(t, inv, "4011,", "4.011e3,"), "CREATE_PURCHASE_ORDER_INVOICE", nil,
			"error event-mismatch businessType: the query event CREATE_PURCHASE_ORDER_INVOICE carries body number 4010 or 4000, not 4011; and 4.011e3" + form + " (write 4011): Go's encoding/json and Rust's serde_json refuse it for an integer field"},
		{"mismatch 5009.0", edit(t, rec, "5007,", "5009.0,"), "CREATE_RECEIVABLE_DOC", nil,
			"error event-mismatch businessType: the query event CREATE_RECEIVABLE_DOC carries body number 5007, not 5009; and 5009.0" + form + " (write 5009): Go's encoding/json and Rust's serde_json refuse it for an integer field"},
		{"unknown number 4012.0", edit(t, inv, "4011,", "4012.0,"), "", nil,
			"error envelope-business-type businessType: 4012.0 is not a body number of the interface (4000, 4010, 4011, 5007, 5009); and 4012.0" + form + " (write 4012): Go's encoding/json and Rust's serde_json refuse it for an integer field"},
		{"string of a mismatched number", edit(t, rec, "5007,", `"5009",`), "CREATE_RECEIVABLE_DOC", nil,
			`error envelope-business-type businessType: want an integer, got string "5009"; and the query event CREATE_RECEIVABLE_DOC carries body number 5007, not 5009`},
		{"string of the right number", edit(t, rec, "5007,", `"5007",`), "CREATE_RECEIVABLE_DOC", nil,
			`error envelope-business-type businessType: want an integer, got string "5007"`},
		{"right number, other form", edit(t, rec, "5007,", "5.007e3,"), "CREATE_RECEIVABLE_DOC", nil,
			"warning integer-form businessType: 5.007e3" + form + " (write 5007): Go's encoding/json and Rust's serde_json refuse it for an integer field"},
		{"mismatch, integer-form ignored", edit(t, rec, "5007,", "5009.0,"), "CREATE_RECEIVABLE_DOC", []string{ruleIntegerForm},
			"error event-mismatch businessType: the query event CREATE_RECEIVABLE_DOC carries body number 5007, not 5009"},
		{"mismatch ignored", edit(t, rec, "5007,", "5009.0,"), "CREATE_RECEIVABLE_DOC", []string{ruleEventNumber},
			"warning integer-form businessType: 5009.0" + form + " (write 5009): Go's encoding/json and Rust's serde_json refuse it for an integer field"},
	} {
		v := mustNew(t, Options{Ignore: append([]string{ruleTimeRange, ruleSeconds, ruleReceiptPart, ruleUnknown}, tt.ignore...)})
		var got []string
		for _, f := range v.Check([]byte(tt.body), tt.event) {
			if f.Path == "businessType" {
				got = append(got, fmt.Sprintf("%s %s %s: %s", f.Severity, f.Rule, f.Path, f.Message))
			}
		}
		if g := strings.Join(got, "; "); g != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, g, tt.want)
		}
	}
}

// A \u escape of half a surrogate pair is valid JSON that receivers read
// three ways (U+FFFD, the half, a refused body): a warning at the first
// one, on the quick and the detailed pass alike, and none for a pair.
func TestLoneSurrogate(t *testing.T) {
	t.Parallel()
	rec, inv := load(t, "receipt.json"), load(t, "invoice.json")
	const why = " is half of a UTF-16 surrogate pair, with no other half: Go's encoding/json reads U+FFFD, JavaScript keeps the half, and PostgreSQL's jsonb refuses the body"
	for _, tt := range []struct{ name, body, want string }{
		{"high alone", edit(t, rec, "销售收款", `\ud83d销售收款`), `\ud83d` + why},
		{"low alone", edit(t, inv, `"code": "`, `"code": "\uDE00`), `\uDE00` + why},
		{"a pair is one character", edit(t, rec, "销售收款", `\ud83d\ude00销售收款`), ""},
		{"an escaped backslash is no escape", edit(t, rec, "销售收款", `\\ud83d\ude00`), `\ude00` + why},
		{"the first of two, in a body with an error too", edit(t, edit(t, rec, "销售收款", `\udc00`), `5007,`, `"5007",`), `\udc00` + why},
		{"other escapes", edit(t, rec, "销售收款", `\u9500\u552e\n`), ""},
	} {
		for _, detailed := range []bool{false, true} {
			v := mustNew(t, Options{})
			v.detailedOnly = detailed
			var got []string
			for _, f := range v.Check([]byte(tt.body), "") {
				if f.Rule == ruleLoneHalf {
					if f.Severity != Warning || f.Where() != "(body)" || f.Line == 0 {
						t.Errorf("%s: %+v", tt.name, f)
					}
					got = append(got, f.Message)
				}
			}
			if g := strings.Join(got, "; "); g != tt.want {
				t.Errorf("%s (detailed pass only %v): %q, want %q", tt.name, detailed, g, tt.want)
			}
		}
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	if _, err := New(Options{Ignore: []string{"nope"}}); err == nil {
		t.Error("unknown rule accepted")
	}
	if _, err := New(Options{Shape: "round"}); err == nil {
		t.Error("unknown shape accepted")
	}
	for _, s := range ShapeNames() {
		if _, err := New(Options{Shape: s}); err != nil {
			t.Errorf("shape %s: %v", s, err)
		}
	}
}

func TestSyntaxPosition(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	tests := []struct {
		body      string
		line, col int
	}{
		{"", 1, 1},
		{"{\n  \"a\": 1,\n}", 3, 1},
		{"{\"收款\": NaN}", 1, 8},
		{"{\"a\":\n  [1,\n   2", 3, 5},
		{"\ufeff{}", 1, 1},
	}
	for _, tt := range tests {
		fs := v.Check([]byte(tt.body), "")
		if len(fs) != 1 || fs[0].Line != tt.line || fs[0].Column != tt.col {
			t.Errorf("%q: got %+v, want line %d column %d", tt.body, fs, tt.line, tt.col)
		}
	}
}

func TestCheckCapture(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	rec := strings.ReplaceAll(strings.ReplaceAll(load(t, "receipt.json"), "\n", ""), `"`, `\"`)
	line := func(query, body, enc string) []byte {
		return []byte(`{"capture":1,"time":"2026-11-22T04:00:00.123456789Z","remote":"127.0.0.1:53422","method":"POST","path":"/hook","query":"` +
			query + `","headers":{"Content-Type":["application/json"]},"body":"` + body + `","bodyEncoding":"` + enc + `"}`)
	}
	tests := []struct {
		name string
		line []byte
		want []string
	}{
		{"valid", line("businessType=CREATE_RECEIVABLE_DOC", rec, "utf8"), nil},
		{"mismatch", line("businessType=ABANDON_RECEIVABLE_DOC", rec, "utf8"), []string{ruleEventNumber}},
		{"no event", line("x=1", rec, "utf8"), []string{RuleQueryEvent}},
		{"unknown event", line("businessType=NOPE", rec, "utf8"), []string{RuleQueryEvent}},
		{"base64 bad utf8", line("businessType=CREATE_RECEIVABLE_DOC", "/w==", "base64"), []string{ruleSyntax}},
		{"bad base64", line("businessType=CREATE_RECEIVABLE_DOC", "!!", "base64"), []string{ruleCapture}},
		{"torn", line("businessType=CREATE_RECEIVABLE_DOC", rec, "utf8")[:100], []string{ruleTorn}}, // cut short: the torn case, wherever it stands
		// A query that is not UTF-8 is stored base64 (capture.Append): its
		// businessType is read once decoded.
		{"base64 query", line(b64("businessType=CREATE_RECEIVABLE_DOC&n=\xff")+`","queryEncoding":"base64`, rec, "utf8"), nil},
		{"base64 query and body", line(b64("businessType=ABANDON_RECEIVABLE_DOC&n=\xff")+`","queryEncoding":"base64`, b64(strings.ReplaceAll(load(t, "receipt.json"), "\n", "")), "base64"), []string{ruleEventNumber}},
		{"bad base64 query", line(`!!","queryEncoding":"base64`, rec, "utf8"), []string{ruleCapture}},
		// A body over listen's --max-body was not kept: its empty body is
		// not what came, and is not checked as if it were.
		{"body over the limit", []byte(strings.TrimSuffix(string(line("businessType=CREATE_RECEIVABLE_DOC", "", "utf8")), "}") + `,"bodyOverLimit":100,"response":{"status":413,"body":"","bodyEncoding":"utf8"}}`), []string{RuleBodyLimit}},
	}
	for _, tt := range tests {
		if !isCapture(tt.line) {
			t.Errorf("%s: not seen as a capture record", tt.name)
		}
		fs, _, torn := v.checkCapture(tt.line)
		got := ruleSet(fs)
		if torn {
			got = append(got, ruleTorn)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: rules %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestCaptureBodyOverLimit: a record of a body listen did not keep, as
// listen writes it, gets listen's own finding for it, saying what was
// answered, on the fast path's input as on the slow path's.
func TestCaptureBodyOverLimit(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	for _, tc := range []struct {
		name   string
		status int
		want   string
	}{
		{"answered 413", 413, "body over the 100-byte limit (answered 413): listen did not keep it"},
		{"capture failed", 500, "body over the 100-byte limit (answered 500): listen did not keep it"},
	} {
		rec := &capture.Record{Method: "POST", Path: "/", Query: "businessType=CREATE_RECEIVABLE_DOC",
			Headers: http.Header{"Content-Length": {"2993"}, "Content-Type": {"application/json"}}, BodyOverLimit: 100, Response: &capture.Response{Status: tc.status}}
		rec.SetBody(nil)
		line, err := capture.Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		want := []Finding{{Rule: RuleBodyLimit, Severity: Error, Message: tc.want}}
		if fs, _, torn := v.checkCapture(line); torn || !reflect.DeepEqual(fs, want) {
			t.Errorf("%s: checkCapture = %+v (torn %v), want %+v", tc.name, fs, torn, want)
		}
		if fs := v.CheckRecord(rec); !reflect.DeepEqual(fs, want) {
			t.Errorf("%s: CheckRecord = %+v, want %+v", tc.name, fs, want)
		}
	}
	// Ignored, it says nothing, as listen's own findings do when ignored.
	quiet := mustNew(t, Options{Ignore: []string{RuleBodyLimit}})
	rec := &capture.Record{Query: "businessType=CREATE_RECEIVABLE_DOC", BodyOverLimit: 100}
	if fs := quiet.CheckRecord(rec); len(fs) != 0 {
		t.Errorf("--ignore %s: %+v", RuleBodyLimit, fs)
	}
}

// A request listen's own stop closed unread as it arrived is no invalid
// payload: nothing of it was read, and the sender did nothing wrong. It
// says so as a warning of its own, not as the HTTP server refusing it
// (an error, an invalid verdict), on the fast path's input as on the slow
// path's; a refused request stays the error it is.
func TestCaptureClosedAtStop(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	for _, tc := range []struct {
		name    string
		stopped bool
		want    Finding
	}{
		{"closed at the stop", true, Finding{Rule: RuleClosedAtStop, Severity: Warning,
			Message: "not read, so not checked: listen was stopping (Ctrl-C or SIGTERM) when the request arrived, and closed its connection: no answer"}},
		{"refused", false, Finding{Rule: RuleRejected, Severity: Error,
			Message: "the HTTP server refused the request before listen could read it: listen was stopping (Ctrl-C or SIGTERM) when the request arrived, and closed its connection: no answer (no answer)"}},
	} {
		rec := &capture.Record{Method: "POST", Path: "/", Query: "businessType=CREATE_RECEIVABLE_DOC", Headers: http.Header{},
			Rejected: &capture.Rejected{Reason: "listen was stopping (Ctrl-C or SIGTERM) when the request arrived, and closed its connection: no answer", HeadBytes: 40, ClosedAtStop: tc.stopped}}
		line, err := capture.Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		want := []Finding{tc.want}
		if fs, _, torn := v.checkCapture(line); torn || !reflect.DeepEqual(fs, want) {
			t.Errorf("%s: checkCapture = %+v (torn %v), want %+v", tc.name, fs, torn, want)
		}
		if fs := v.CheckRecord(rec); !reflect.DeepEqual(fs, want) || (Verdict(fs) == "invalid") == tc.stopped {
			t.Errorf("%s: CheckRecord = %+v (verdict %s), want %+v", tc.name, fs, Verdict(fs), want)
		}
	}
}

// TestCaptureQueryPairSkipped: a captured query whose businessType pair does
// not parse (a ';', a bad escape) is not said to have no businessType: the
// finding names the pair, why Go drops it, and that other receivers read it.
func TestCaptureQueryPairSkipped(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	body := []byte(load(t, "receipt.json"))
	tests := []struct{ query, want string }{
		{"businessType=CREATE_RECEIVABLE_DOC;x=1", `the captured query "businessType=CREATE_RECEIVABLE_DOC;x=1" has no businessType a Go receiver reads: its pair "businessType=CREATE_RECEIVABLE_DOC;x=1" does not parse (invalid semicolon separator in query), so Go's URL.Query drops it, while receivers that split on '&' alone (Express, PHP) read it`},
		{"x=1&businessType=%zz", `the captured query "x=1&businessType=%zz" has no businessType a Go receiver reads: its pair "businessType=%zz" does not parse (invalid URL escape "%zz"), so Go's URL.Query drops it, while receivers that split on '&' alone (Express, PHP) read it`},
		{"x=1", `the captured query "x=1" has no businessType`},
	}
	for _, tt := range tests {
		var got []string
		fs, _ := v.checkRequest(body, tt.query, false)
		for _, f := range fs {
			if f.Rule == RuleQueryEvent {
				got = append(got, f.Message)
			}
		}
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("query %q: query-event findings %q, want [%q]", tt.query, got, tt.want)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	bodies := [][]byte{[]byte(load(t, "receipt.json")), []byte(load(t, "invoice.json")), []byte(`{"a":[1,2,]}`), []byte(`{"requestId":1}`)}
	want := make([][]string, len(bodies))
	for i, b := range bodies {
		want[i] = ruleSet(v.Check(b, ""))
	}
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- true }()
			for n := 0; n < 200; n++ {
				i := n % len(bodies)
				if got := ruleSet(v.Check(bodies[i], "")); !slices.Equal(got, want[i]) {
					t.Errorf("body %d: %q, want %q", i, got, want[i])
					return
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}

// TestMessagesAreTerminalSafe: a message that quotes the input shows hostile
// bytes as escapes, never as they are.
func TestMessagesAreTerminalSafe(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	tests := []struct {
		name, body, event, want string
	}{
		{"escaped control", "{\"a\":\"\\\x1b[2J\"}", "", `invalid escape \\x1b in a string`},
		{"escaped C1", "{\"a\":\"\\\u009b\"}", "", `invalid escape \\u009b in a string`},
		{"escaped bidi", "{\"a\":\"\\\u202e\"}", "", `invalid escape \\u202e in a string`},
		{"escaped invalid UTF-8", "{\"a\":\"\\\xff\"}", "", `invalid escape \\xff in a string`},
		{"escaped letter", `{"a":"\q"}`, "", `invalid escape \q in a string`},
		{"query event", `{}`, "X\x1b]52;c;aGk=\x07\u202e", `unknown event "X\x1b]52;c;aGk=\a\u202e"`},
		{"enum", `{"businessType":4010,"data":{"status":"\u001b[31m\u009b"}}`, "", `"\x1b[31m\u009b" is not one of`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := v.Check([]byte(tt.body), tt.event)
			found := false
			for _, f := range fs {
				if !termsafe.Safe(f.Message) {
					t.Errorf("unsafe message %q", f.Message)
				}
				found = found || strings.Contains(f.Message, tt.want)
			}
			if !found {
				t.Errorf("no message holds %q: %+v", tt.want, fs)
			}
		})
	}
}

// TestDuplicateKeysInLargeObjects: past dupScan unknown keys an object's
// keys are kept in a map; duplicates are still found, once each, and only
// within their own object.
func TestDuplicateKeysInLargeObjects(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	object := func(n int, extra ...string) string {
		var sb strings.Builder
		sb.WriteByte('{')
		for i := range n {
			fmt.Fprintf(&sb, `"k%d":%d,`, i, i)
		}
		for _, k := range extra {
			fmt.Fprintf(&sb, `"%s":0,`, k)
		}
		return strings.TrimSuffix(sb.String(), ",") + "}"
	}
	for _, tt := range []struct {
		name string
		body string
		dups []string // the paths of the duplicate-key findings
	}{
		{"before the map", `{"x":` + object(10, "k3", "k9") + `}`, []string{"x.k3", "x.k9"}},
		{"at the switch", `{"x":` + object(dupScan, "k0", "k31") + `}`, []string{"x.k0", "x.k31"}},
		{"in the map", `{"x":` + object(200, "k0", "k150", "k150") + `}`, []string{"x.k0", "x.k150", "x.k150"}},
		{"siblings", `{"x":` + object(100) + `,"y":` + object(100) + `,"z":[` + object(50) + `,` + object(50) + `]}`, nil},
		{"nested", `{"x":{"a":` + object(40) + `,"k0":` + object(40) + `,"b":1,"a":2}}`, []string{"x.a"}},
		{"escaped", `{"x":` + object(40, `k\u0035`) + `}`, []string{"x.k5"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range v.Check([]byte(tt.body), "") {
				if f.Rule == ruleSyntax {
					t.Fatal(f)
				}
				if f.Rule == ruleDuplicateKey {
					got = append(got, f.Path)
				}
			}
			if !slices.Equal(got, tt.dups) {
				t.Errorf("duplicates at %q, want %q", got, tt.dups)
			}
		})
	}
	// The pooled checker forgets the keys of a body that broke off.
	v.Check([]byte(`{"x":`+object(100)), "")
	for _, f := range v.Check([]byte(`{"x":`+object(100)+`}`), "") {
		if f.Rule == ruleDuplicateKey {
			t.Errorf("stale key: %+v", f)
		}
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// A finding's place reads the same in listen's lines and validate's: the
// call around the body is the request, the whole body the body.
func TestFindingWhere(t *testing.T) {
	for _, tt := range []struct {
		f    Finding
		want string
	}{
		{Finding{Rule: "type", Path: "data.code"}, "data.code"},
		{Finding{Rule: "json-syntax"}, "(body)"},
		{Finding{Rule: RuleRejected}, "(request)"},
		{Finding{Rule: "http-content-type"}, "(request)"},
		{Finding{Rule: RuleQueryEvent}, "(request)"},
		{Finding{Rule: RuleQueryRepeated}, "(request)"},
	} {
		if got := tt.f.Where(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.f, got, tt.want)
		}
	}
}

// TestLongValueQuotedShort: a finding is one line that says what is wrong
// where; a value of the body it quotes is cut short, not a megabyte long.
func TestLongValueQuotedShort(t *testing.T) {
	t.Parallel()
	inv := load(t, "invoice.json")
	long := strings.Repeat("长", 40000)
	tests := []struct {
		name, body, rule, start string
	}{
		{"string", edit(t, inv, `"PURCHASE_RECEIPT"`, `"`+long+`"`), ruleEnum, `"长长`},
		{"number", edit(t, inv, `"quantity": 91,`, `"quantity": `+strings.Repeat("9", 100000)+`,`), ruleType, "want number, got 999"},
		{"requestId", edit(t, inv, `"requestId": "`, `"requestId": "`+long), ruleRequestID, `"长长`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := mustNew(t, Options{}).Check([]byte(tt.body), "")
			if len(fs) != 1 || fs[0].Rule != tt.rule {
				t.Fatalf("want one %s finding:\n%s", tt.rule, dump(fs))
			}
			msg := fs[0].Message
			if len(msg) > 400 || !strings.HasPrefix(msg, tt.start) || !strings.Contains(msg, "…") || !utf8.ValidString(msg) {
				t.Errorf("message of %d bytes, want under 400 starting %q with an ellipsis: %.200s", len(msg), tt.start, msg)
			}
		})
	}
}

// A long key is quoted in part, in the message and in the path of every
// finding under it, and the message says so: a megabyte key made a
// finding of two megabytes (its path and its message).
func TestLongKeyQuotedShort(t *testing.T) {
	t.Parallel()
	rec := load(t, "receipt.json")
	key := strings.Repeat("键", 400000) // 1.2 MB
	tests := []struct {
		name, body, path, msg string
	}{
		{"unknown in data", edit(t, rec, `"收款明细": [`, `"`+key+`": 1, "收款明细": [`), `data["` + strings.Repeat("键", 33) + `…"]`,
			`"` + strings.Repeat("键", 33) + `…" (a key of 1200000 bytes, quoted in part) is not a field of data`},
		{"unknown in the envelope", edit(t, rec, `"businessType"`, `"`+key+`": 1, "businessType"`), `["` + strings.Repeat("键", 33) + `…"]`,
			`"` + strings.Repeat("键", 33) + `…" (a key of 1200000 bytes, quoted in part) is not a field of the envelope`},
		{"duplicate under a long key", edit(t, rec, `"收款明细": [`, `"`+key+`": {"a": 1, "a": 2}, "收款明细": [`), `data["` + strings.Repeat("键", 33) + `…"].a`,
			`duplicate key "a": a receiver's JSON library may keep either value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, f := range mustNew(t, Options{}).Check([]byte(tt.body), "") {
				if len(f.Path)+len(f.Message) > 600 {
					t.Errorf("%s: a finding of %d bytes: %.200s", f.Rule, len(f.Path)+len(f.Message), f.Path)
				}
				if f.Path == tt.path && f.Message == tt.msg {
					return
				}
			}
			t.Errorf("no finding %s: %s", tt.path, tt.msg)
		})
	}
}

// A body that is no object is named by what it is: "the body is null",
// not "a null".
func TestEnvelopeNamesWhatTheBodyIs(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	for body, want := range map[string]string{
		`null`:  "the body is null, not an object",
		`1`:     "the body is a number, not an object",
		`"x"`:   "the body is a string, not an object",
		`true`:  "the body is a boolean, not an object",
		`[{}]`:  "the body is an array, not an object",
		`false`: "the body is a boolean, not an object",
	} {
		fs := v.Check([]byte(body), "")
		if len(fs) != 1 || fs[0].Message != want {
			t.Errorf("%s: %+v, want one finding %q", body, fs, want)
		}
	}
}

// CheckUTF8 finds in every valid UTF-8 body what Check finds: the
// fixtures, and each cut short and with bytes changed, so that errors
// inside strings (a control byte, a bad escape, an end inside a string)
// are among them.
func TestCheckUTF8AsCheck(t *testing.T) {
	v := mustNew(t, Options{})
	files, err := filepath.Glob("../../fixtures/*.json")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bodies := [][]byte{doc}
		for i := 1; i < len(doc); i += 97 {
			bodies = append(bodies, doc[:i])
			for _, c := range []byte{0x01, '\\', '"', 'x'} {
				b := slices.Clone(doc)
				b[i] = c
				bodies = append(bodies, b)
			}
		}
		for _, b := range bodies {
			if !utf8.Valid(b) {
				continue
			}
			for _, event := range []string{"", spec.EventNames()[0]} {
				want, got := v.Check(b, event), v.CheckUTF8(b, event)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, %q: CheckUTF8 = %+v, Check %+v", f, b, got, want)
				}
			}
		}
	}
}

// A captured query that names businessType more than once: two values are
// a query-event error naming both and what receivers read (checked as the
// first); the same value twice a query-event-repeated warning (receivers
// that join repeated values read "A,A"), which was passed without a word.
func TestCaptureQueryRepeated(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	body := []byte(load(t, "receipt.json"))
	tests := []struct {
		query, rule string
		sev         severity
		wants       []string
	}{
		{"businessType=CREATE_RECEIVABLE_DOC&businessType=ABANDON_RECEIVABLE_DOC", RuleQueryEvent, Error,
			[]string{`twice, "CREATE_RECEIVABLE_DOC" and "ABANDON_RECEIVABLE_DOC"`, `"CREATE_RECEIVABLE_DOC,ABANDON_RECEIVABLE_DOC"`, "Express makes an array", "checked as CREATE_RECEIVABLE_DOC"}},
		{"businessType=CREATE_RECEIVABLE_DOC&businessType=CREATE_RECEIVABLE_DOC", RuleQueryRepeated, Warning,
			[]string{`twice, each "CREATE_RECEIVABLE_DOC"`, `"CREATE_RECEIVABLE_DOC,CREATE_RECEIVABLE_DOC"`}},
	}
	for _, tt := range tests {
		fs, _ := v.checkRequest(body, tt.query, false)
		var got []Finding
		for _, f := range fs {
			if f.Rule == RuleQueryEvent || f.Rule == RuleQueryRepeated {
				got = append(got, f)
			}
		}
		if len(got) != 1 || got[0].Rule != tt.rule || got[0].Severity != tt.sev {
			t.Errorf("query %q: findings %+v, want one %s %s", tt.query, got, tt.sev, tt.rule)
			continue
		}
		for _, w := range tt.wants {
			if !strings.Contains(got[0].Message, w) {
				t.Errorf("query %q: %q lacks %s", tt.query, got[0].Message, w)
			}
		}
	}
}

// A finding says what came as well as what was wanted: a status of the
// other shape's type named its type too (before: "want integer in the
// sample invoice shape" alone), and a timestamp at 2100-01-01T00:00Z, which
// the range rule flags, is said to be in 2100 or later (before: "after
// 2100", which it is not).
func TestFindingsSayWhatCame(t *testing.T) {
	t.Parallel()
	inv, smp, rec := load(t, "invoice.json"), load(t, "invoice-sample.json"), load(t, "receipt.json")
	for _, tt := range []struct {
		name, shape, body, path, msg string
	}{
		{"string status read as the sample shape", "sample", inv, "data.status", "want integer in the sample invoice shape, got string"},
		{"integer status read as the described shape", "described", smp, "data.status", "want string in the described invoice shape, got integer"},
		{"the first millisecond of 2100", "", edit(t, rec, "1789833600000", "4102444800000"), "", "4102444800000 is in 2100 or later"},
	} {
		v := mustNew(t, Options{Shape: tt.shape})
		found := false
		for _, f := range v.Check([]byte(tt.body), "") {
			found = found || f.Message == tt.msg && (tt.path == "" || f.Path == tt.path)
		}
		if !found {
			t.Errorf("%s: %+v, want a finding %q", tt.name, v.Check([]byte(tt.body), ""), tt.msg)
		}
	}
}

// A payload's verdict is its worst finding, and only --strict fails one
// whose worst is a warning.
func TestVerdictAndFailed(t *testing.T) {
	t.Parallel()
	warn := Finding{Rule: ruleUnknown, Severity: Warning}
	bad := Finding{Rule: ruleType, Severity: Error}
	lax, strict := mustNew(t, Options{}), mustNew(t, Options{Strict: true})
	tests := []struct {
		name             string
		fs               []Finding
		verdict          string
		failed, failedSt bool
	}{
		{"none", nil, "valid", false, false},
		{"a warning", []Finding{warn}, "warning", false, true},
		{"warnings", []Finding{warn, warn}, "warning", false, true},
		{"an error", []Finding{bad}, "invalid", true, true},
		{"an error after a warning", []Finding{warn, bad}, "invalid", true, true},
		{"a warning after an error", []Finding{bad, warn}, "invalid", true, true},
	}
	for _, tt := range tests {
		if got := Verdict(tt.fs); got != tt.verdict {
			t.Errorf("%s: Verdict = %q, want %q", tt.name, got, tt.verdict)
		}
		if got := lax.Failed(tt.fs); got != tt.failed {
			t.Errorf("%s: Failed = %v, want %v", tt.name, got, tt.failed)
		}
		if got := strict.Failed(tt.fs); got != tt.failedSt {
			t.Errorf("%s: Failed under Strict = %v, want %v", tt.name, got, tt.failedSt)
		}
	}
}

// An invoice that shows neither shape's fields is read in the shape its
// body number says: 4000, the sample bodies' number, is the sample shape;
// any other the described.
func TestInvoiceShapeFromItsNumber(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	for number, shape := range map[string]string{"4000": "sample", "4010": "described", "4011": "described"} {
		body := `{"requestId":"6f1c0a52-7a47-4d7e-9a55-0a4c3c1e8f11","businessType":` + number + `,"data":{}}`
		want := "code is absent (" + shape + " invoice shape)"
		if fs := v.Check([]byte(body), ""); !slices.ContainsFunc(fs, func(f Finding) bool { return f.Rule == ruleMissing && f.Message == want }) {
			t.Errorf("number %s: findings %v, want %s %q", number, fs, ruleMissing, want)
		}
	}
}

// A receipt's missing member is said as it came: absent, or null.
func TestReceiptMemberAbsentOrNull(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	rec := load(t, "receipt.json")
	tests := []struct{ name, body, want string }{
		{"absent", edit(t, rec, `"收款单": {`, `"收款单-": {`), "a receipt's data lacks 收款单"},
		{"null", edit(t, rec, `"收款单": {`, `"收款单": null, "收款单-": {`), "a receipt's data has a null 收款单"},
	}
	for _, tt := range tests {
		if fs := v.Check([]byte(tt.body), "CREATE_RECEIVABLE_DOC"); !slices.ContainsFunc(fs, func(f Finding) bool { return f.Rule == ruleReceiptPart && f.Message == tt.want }) {
			t.Errorf("%s: findings %v, want %s %q", tt.name, fs, ruleReceiptPart, tt.want)
		}
	}
}

// A null invoice field is null-field's warning alone: it is there, so
// not missing-field's as well.
func TestNullInvoiceFieldIsNotAlsoMissing(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	body := edit(t, load(t, "invoice.json"), `"invoiceCode": "`, `"invoiceCode": null, "invoiceCode-": "`)
	var got []string
	for _, f := range v.Check([]byte(body), "CREATE_PURCHASE_ORDER_INVOICE") {
		if f.Path == "data.invoiceCode" {
			got = append(got, f.Rule)
		}
	}
	if !slices.Equal(got, []string{ruleNull}) {
		t.Errorf("findings at data.invoiceCode: %v, want [%s]", got, ruleNull)
	}
}

// A timestamp in seconds of 2000 up to (not including) 2100 looks like
// seconds; the seconds of 2100 are a millisecond timestamp of 1970.
func TestTimestampSecondsBounds(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	rec := load(t, "receipt.json")
	for value, rule := range map[string]string{"946684800": ruleSeconds, "4102444799": ruleSeconds, "4102444800": ruleTimeRange} {
		body := edit(t, rec, `"业务日期": 1789833600000`, `"业务日期": `+value)
		var got []string
		for _, f := range v.Check([]byte(body), "CREATE_RECEIVABLE_DOC") {
			if f.Path == "data.收款单.业务日期" {
				got = append(got, f.Rule)
			}
		}
		if !slices.Equal(got, []string{rule}) {
			t.Errorf("业务日期 %s: %v, want [%s]", value, got, rule)
		}
	}
}

// A document carrying the other kind's members says so first: one
// receipt key dropped into an invoice came last, after the 21 findings
// inside it, and a whole document under the other kind's number was said
// only by all its findings together. Every finding is still there.
func TestOtherKindSaidFirst(t *testing.T) {
	t.Parallel()
	v := mustNew(t, Options{})
	inv, rec := load(t, "invoice.json"), load(t, "receipt.json")
	tests := []struct {
		name, body string
		rule, msg  string // the first finding's
		others     int    // the findings after it, at least
	}{
		{"receipt member in an invoice", edit(t, inv, `"code": "CGFP`, `"收款单": {"收款单编号": "SKD1"}, "code": "CGFP`),
			ruleForeignPart, "an invoice's data carries the receipt member 收款单; the 21 findings under it read it as a receipt's", 21},
		{"receipt under an invoice's number", edit(t, rec, `"businessType": 5007`, `"businessType": 4010`),
			ruleForeignPart, "an invoice's data carries the receipt member 收款单, and no invoice field: a receipt's document under an invoice's businessType", 2},
		{"invoice under a receipt's number", edit(t, inv, `"businessType": 4011`, `"businessType": 5007`),
			ruleReceiptPart, "a receipt's data lacks 收款单, and holds only invoice fields: an invoice's document under a receipt's businessType", 2},
	}
	for _, tt := range tests {
		fs := v.Check([]byte(tt.body), "")
		if len(fs) <= tt.others || fs[0].Rule != tt.rule || fs[0].Message != tt.msg {
			t.Errorf("%s: findings %v, want first %s %q and %d more", tt.name, fs, tt.rule, tt.msg, tt.others)
		}
	}
}

// TestKeyOffByCaseNamesTheField: a key that differs from a field's only in
// case or in spaces around it (requestID, "收款明细 ") is unknown, and the
// field absent; the unknown-field finding names the field it misses, so
// that the two findings apart do not leave the reader to pair them.
func TestKeyOffByCaseNamesTheField(t *testing.T) {
	t.Parallel()
	inv, rec := load(t, "invoice.json"), load(t, "receipt.json")
	v := mustNew(t, Options{})
	for _, tt := range []struct {
		body, key, field string
	}{
		{edit(t, inv, `"requestId"`, `"requestID"`), "requestID", spec.FieldRequestID},
		{edit(t, inv, `"businessType"`, `"BusinessType"`), "BusinessType", spec.FieldBusinessType},
		{edit(t, inv, `"taxCode"`, `"taxcode"`), "taxcode", spec.FieldTaxID},
		{edit(t, rec, `"收款明细"`, `"收款明细 "`), `"收款明细 "`, spec.ReceiptLines},
		{edit(t, rec, `"收款单编号"`, `" 收款单编号"`), `" 收款单编号"`, spec.FieldReceiptNumber},
	} {
		want := tt.key + " is not a field of"
		hint := "(the field is " + tt.field + ": keys match exactly, case and spaces included)"
		var got []string
		found := false
		for _, f := range v.Check([]byte(tt.body), "") {
			if f.Rule == ruleUnknown {
				got = append(got, f.Message)
				found = found || strings.HasPrefix(f.Message, want) && strings.HasSuffix(f.Message, hint)
			}
		}
		if !found {
			t.Errorf("%s: unknown-field findings %q, want one %q…%q", tt.key, got, want, hint)
		}
	}
	// A key like no field's gets no hint, nor one like a field of the
	// other document kind only (an invoice's code in a receipt).
	for _, body := range []string{
		edit(t, inv, `"taxCode"`, `"extra"`),
		edit(t, rec, `"收款明细"`, `"Code"`),
		edit(t, inv, `"taxCode"`, `"收款单 "`),
	} {
		for _, f := range v.Check([]byte(body), "") {
			if f.Rule == ruleUnknown && strings.Contains(f.Message, "the field is") {
				t.Errorf("%q names a field", f.Message)
			}
		}
	}
}

// TestNumberForItsNameNamesTheValue: the spec gives the numbers createType's
// names stand for (SALE_ORDER (0) … PURCHASE_RETURN (5)); a body that sends
// the number, as a number or a string, for the name fails, and the finding
// names the value the number stands for. Every value of every numbered field
// of the model, as the model has them.
func TestNumberForItsNameNamesTheValue(t *testing.T) {
	t.Parallel()
	inv := load(t, "invoice.json")
	v := mustNew(t, Options{})
	checked := 0
	for _, f := range spec.Data(spec.Invoice, spec.Described).Fields {
		if !f.Numbered {
			continue
		}
		for i, name := range f.ValueNames() {
			number := f.ValueNumbers()[i]
			hint := fmt.Sprintf("(%s stands for %d in the spec: the field carries the name)", name, number)
			for _, sent := range []string{fmt.Sprint(number), fmt.Sprintf("%q", fmt.Sprint(number))} {
				body := strings.Replace(inv, `"`+f.Name+`": "PURCHASE_RECEIPT"`, `"`+f.Name+`": `+sent, 1)
				if body == inv {
					t.Fatalf("invoice.json has no %s of PURCHASE_RECEIPT", f.Name)
				}
				found := false
				for _, fd := range v.Check([]byte(body), "") {
					found = found || fd.Severity == Error && fd.Path == "data."+f.Name && strings.HasSuffix(fd.Message, hint)
				}
				if !found {
					t.Errorf("%s = %s: %+v, want an error ending %q", f.Name, sent, v.Check([]byte(body), ""), hint)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("the model has no numbered field")
	}
}

// TestAssertedShapeStatusOneFinding: with --shape described or sample, a
// status that is not of that shape's type is one type error, saying the
// shape's type and what came; the other shape's rules (PASS or REFUSAL, an
// integer) are not applied to it, nor is it evidence of a mixed shape.
// --shape sample used to add "not one of PASS, REFUSAL" for "1" (and call
// a sample body mixed); --shape described said "want integer, got 1.5" and
// then "got integer" of the same 1.5.
func TestAssertedShapeStatusOneFinding(t *testing.T) {
	t.Parallel()
	inv, smp := load(t, "invoice.json"), load(t, "invoice-sample.json")
	for _, tt := range []struct {
		shape, body, msg string
	}{
		{"sample", edit(t, inv, `"status": "PASS"`, `"status": "1"`), "want integer in the sample invoice shape, got string"},
		{"sample", edit(t, smp, `"status": 1`, `"status": "1"`), "want integer in the sample invoice shape, got string"},
		{"sample", inv, "want integer in the sample invoice shape, got string"},
		{"sample", edit(t, smp, `"status": 1`, `"status": true`), "want integer in the sample invoice shape, got boolean"},
		{"described", edit(t, smp, `"status": 1`, `"status": 1.5`), "want string in the described invoice shape, got number"},
		{"described", edit(t, inv, `"status": "PASS"`, `"status": 1.5`), "want string in the described invoice shape, got number"},
		{"described", edit(t, inv, `"status": "PASS"`, `"status": 1.0`), "want string in the described invoice shape, got integer"},
		{"described", smp, "want string in the described invoice shape, got integer"},
	} {
		var got []string
		for _, f := range mustNew(t, Options{Shape: tt.shape}).Check([]byte(tt.body), "") {
			if f.Path == "data.status" || f.Rule == ruleMixedShape {
				got = append(got, f.Rule+": "+f.Message)
			}
		}
		if want := []string{ruleType + ": " + tt.msg}; !slices.Equal(got, want) {
			t.Errorf("--shape %s: status findings %q, want %q", tt.shape, got, want)
		}
	}
}
