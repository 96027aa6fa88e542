package main

import (
	"bytes"
	"encoding/base64"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/jsonlex"
)

var update = flag.Bool("update", false, "rewrite testdata/validate from the corpus generator")

// TestValidateCorpusGenerated rebuilds the validate corpus (the cases and
// expect.txt) from the fixtures and checks that testdata/validate holds
// exactly that; with -update it writes it:
//
//	go test ./cmd/whsim -run TestValidateCorpusGenerated -update
func TestValidateCorpusGenerated(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "validate")
	files, expect := validateCorpus(t, filepath.Join("..", "..", "fixtures"))
	if *update {
		cases := filepath.Join(dir, "cases")
		if err := os.RemoveAll(cases); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(cases, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(cases, name), body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "expect.txt"), expect, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(filepath.Join(dir, "expect.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, expect) {
		t.Errorf("expect.txt is not what the generator makes; run go test ./cmd/whsim -run TestValidateCorpusGenerated -update")
	}
	entries, err := os.ReadDir(filepath.Join(dir, "cases"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(files) {
		t.Errorf("cases/ holds %d files, the generator makes %d", len(entries), len(files))
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, "cases", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("cases/%s is not what the generator makes (%v)", name, err)
		}
	}
}

// corpus collects the cases: each a file under cases/ and a line of
// expect.txt: <file> | <exit code> | <extra args> | <rule ids, sorted; - for none>.
type corpus struct {
	t     *testing.T
	files map[string][]byte
	lines []string
}

func (c *corpus) add(name string, body []byte, exit int, rules []string, args ...string) {
	if _, dup := c.files[name]; dup {
		c.t.Fatalf("case %s twice", name)
	}
	c.files[name] = body
	a := "-"
	if len(args) > 0 {
		a = args[0]
	}
	rules = slices.Clone(rules)
	slices.Sort(rules)
	rules = slices.Compact(rules)
	r := strings.Join(rules, ",")
	if r == "" {
		r = "-"
	}
	c.lines = append(c.lines, "cases/"+name+" | "+strconv.Itoa(exit)+" | "+a+" | "+r)
}

// sub replaces the first old in body, which must hold it.
func (c *corpus) sub(body []byte, old, new string) []byte {
	c.t.Helper()
	if !bytes.Contains(body, []byte(old)) {
		c.t.Fatalf("sub: %q not in the body", old)
	}
	return bytes.Replace(body, []byte(old), []byte(new), 1)
}

// subRe replaces the first match of pat in body (${1} in repl is the first
// group); pat must match.
func (c *corpus) subRe(body []byte, pat, repl string) []byte {
	c.t.Helper()
	re := regexp.MustCompile(pat)
	m := re.FindSubmatchIndex(body)
	if m == nil {
		c.t.Fatalf("subRe: %q does not match", pat)
	}
	out := slices.Clone(body[:m[0]])
	out = re.Expand(out, []byte(repl), body, m)
	return append(out, body[m[1]:]...)
}

// compact re-encodes a fixture on one line, as the corpus always has: keys
// in their order, strings with only what JSON requires escaped, numbers
// with a fraction or exponent in their shortest form (117505.50 ->
// 117505.5, 0.00 -> 0.0).
func (c *corpus) compact(b []byte) []byte {
	c.t.Helper()
	var l jsonlex.Lexer
	l.Reset(b)
	var out []byte
	var value func()
	value = func() {
		switch k := l.Peek(); k {
		case jsonlex.Object, jsonlex.Array:
			open, close := byte('['), byte(']')
			if k == jsonlex.Object {
				open, close = '{', '}'
			}
			out = append(out, open)
			if l.Enter() {
				for first := true; ; first = false {
					if !first {
						out = append(out, ',')
					}
					if k == jsonlex.Object {
						out = appendString(out, l.KeyBytes(l.Key(first)))
						out = append(out, ':')
					}
					value()
					if !l.More(close) {
						break
					}
				}
			}
			out = append(out, close)
		case jsonlex.String:
			s, e, esc := l.Str()
			out = appendString(out, l.Content(s, e, esc))
		case jsonlex.Number:
			s, e, _, _ := l.Num()
			out = appendNumber(out, b[s:e], l.Float(s, e))
		default:
			s := l.Pos()
			l.Lit(k)
			out = append(out, b[s:l.Pos()]...)
		}
	}
	if err := l.Run(func() { l.Begin(); value(); l.End() }); err != nil {
		c.t.Fatal(err)
	}
	return out
}

// appendString writes s as a JSON string escaping ", \ and control
// characters only (non-ASCII text stays as it is).
func appendString(out, s []byte) []byte {
	out = append(out, '"')
	for _, ch := range s {
		switch ch {
		case '"', '\\':
			out = append(out, '\\', ch)
		case '\n':
			out = append(out, `\n`...)
		case '\r':
			out = append(out, `\r`...)
		case '\t':
			out = append(out, `\t`...)
		case '\b':
			out = append(out, `\b`...)
		case '\f':
			out = append(out, `\f`...)
		default:
			if ch < 0x20 {
				out = append(out, `\u00`...)
				out = append(out, "0123456789abcdef"[ch>>4], "0123456789abcdef"[ch&0xf])
				continue
			}
			out = append(out, ch)
		}
	}
	return append(out, '"')
}

// appendNumber writes an integer as it was written, and a number with a
// fraction or exponent as its float's shortest form: fixed with at least
// one decimal for exponents -4 to 15, else d.ddde±XX.
func appendNumber(out, text []byte, f float64) []byte {
	if !bytes.ContainsAny(text, ".eE") {
		return append(out, text...)
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return append(out, e...)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return append(out, s...)
}

// capture wraps a body in a capture record as listen writes it.
func (c *corpus) capture(query string, body []byte, base64Body bool) []byte {
	enc, s := "utf8", body
	if base64Body {
		enc, s = "base64", []byte(base64.StdEncoding.EncodeToString(body))
	}
	out := []byte(`{"capture":1,"time":"2026-11-22T04:00:00.123456789Z","remote":"127.0.0.1:53422","method":"POST","path":"/hook","query":`)
	out = appendString(out, []byte(query))
	out = append(out, `,"headers":{"Content-Type":["application/json"]},"body":`...)
	out = appendString(out, s)
	out = append(out, `,"bodyEncoding":"`+enc+`","response":{"status":200,"body":"ok","bodyEncoding":"utf8"}}`...)
	return out
}

func join(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func validateCorpus(t *testing.T, fixturesDir string) (map[string][]byte, []byte) {
	c := &corpus{t: t, files: map[string][]byte{}}
	fx := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(fixturesDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	rec := fx("CREATE_RECEIVABLE_DOC.sample.json")
	inv := fx("AUDIT_PURCHASE_ORDER_INVOICE.described.json")
	invc := fx("CREATE_PURCHASE_ORDER_INVOICE.described.json")
	smp := fx("CREATE_PURCHASE_ORDER_INVOICE.sample.json")
	nl := []byte("\n")
	var none []string
	one := func(rule string) []string { return []string{rule} }

	// valid payloads: every fixture, with and without the event asserted
	entries, err := os.ReadDir(fixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	var all []byte
	for _, n := range names {
		ev, _, _ := strings.Cut(n, ".")
		c.add("valid-"+n, fx(n), 0, none)
		c.add("valid-event-"+n, fx(n), 0, none, "--event "+ev+" --strict")
		all = append(append(all, c.compact(fx(n))...), '\n')
	}
	c.add("valid-all.ndjson", all, 0, none, "--strict")
	c.add("valid-captures.log", join(c.capture("businessType=CREATE_RECEIVABLE_DOC", c.compact(rec), false), nl,
		c.capture("businessType=AUDIT_PURCHASE_ORDER_INVOICE&x=1", c.compact(inv), true), nl), 0, none, "--strict")
	c.add("valid-4000-create.json", smp, 0, none, "--event CREATE_PURCHASE_ORDER_INVOICE")
	c.add("valid-4000-audit.json", smp, 0, none, "--event AUDIT_PURCHASE_ORDER_INVOICE")
	c.add("valid-uuid-upper.json", c.subRe(rec, `"requestId": "[^"]+"`, `"requestId": "9424F8A8-0AA8-434F-88F9-C391BA0CDAD4"`), 0, none, "--strict")
	// An integer to JSON Schema, but Go's encoding/json refuses it for an int.
	c.add("warn-business-type-float.json", c.sub(rec, `"businessType": 5007`, `"businessType": 5007.0`), 0, one("integer-form"))
	c.add("warn-business-type-float-strict.json", c.sub(rec, `"businessType": 5007`, `"businessType": 5007.0`), 1, one("integer-form"), "--strict")
	c.add("valid-escaped-key.json", c.sub(rec, `"收款用途"`, `"\u6536\u6b3e\u7528\u9014"`), 0, none, "--strict")
	c.add("valid-crlf.json", bytes.ReplaceAll(rec, nl, []byte("\r\n")), 0, none, "--strict")

	// strict JSON
	syntax := one("json-syntax")
	// Empty: no payload to check, which fails the run (exit 1), no finding.
	c.add("syntax-empty.json", []byte{}, 1, nil)
	c.add("syntax-whitespace.json", []byte(" \n\t\n"), 1, nil)
	c.add("syntax-bom.json", join([]byte("\xef\xbb\xbf"), rec), 1, syntax)
	c.add("syntax-nan.json", c.sub(rec, `"汇率": 1.0000`, `"汇率": NaN`), 1, syntax)
	c.add("syntax-infinity.json", c.sub(rec, `"汇率": 1.0000`, `"汇率": -Infinity`), 1, syntax)
	c.add("syntax-single-quotes.json", c.sub(rec, `"编号": "1"`, `'编号': '1'`), 1, syntax)
	c.add("syntax-trailing-comma-object.json", c.sub(rec, `"收款跳转标志": 0`, `"收款跳转标志": 0,`), 1, syntax)
	c.add("syntax-trailing-comma-array.json", c.subRe(rec, `\}\n    \],\n    "源单明细"`, "},\n    ],\n    \"源单明细\""), 1, syntax)
	c.add("syntax-trailing-data.json", join(rec, []byte("x\n")), 1, syntax)
	c.add("syntax-two-documents.json", join(rec, rec), 1, syntax)
	c.add("syntax-invalid-utf8.json", c.sub(rec, "销售收款", "\xe9\x94\x80\xff"), 1, syntax)
	c.add("syntax-truncated.json", rec[:len(rec)/2], 1, syntax)
	c.add("syntax-comment.json", join([]byte("// receipt\n"), rec), 1, syntax)
	c.add("syntax-leading-zero.json", c.sub(rec, `"收款跳转标志": 0`, `"收款跳转标志": 00`), 1, syntax)
	c.add("syntax-control-char.json", c.sub(rec, "销售收款", "销售\t收款"), 1, syntax)
	c.add("syntax-bad-escape.json", c.sub(rec, "销售收款", `销售\q收款`), 1, syntax)
	c.add("syntax-unquoted-key.json", c.sub(rec, `"编号": "1"`, `id: "1"`), 1, syntax)
	c.add("syntax-too-deep.json", []byte(`{"x":`+strings.Repeat("[", 10001)+strings.Repeat("]", 10001)+"}"), 1, syntax)

	// the envelope
	trim := func(b []byte) []byte { return bytes.TrimRight(b, " \t\n\r\v\f") }
	c.add("envelope-array.ndjson", join([]byte("["), c.compact(rec), []byte("]\n")), 1, one("envelope"))
	c.add("array-of-payloads.json", join([]byte("[\n"), trim(rec), []byte(",\n"), trim(inv), []byte("\n]\n")), 0, none, "--strict")
	c.add("array-bad-element.json", join([]byte("[\n"), trim(rec), []byte(",\n"), trim(bytes.ReplaceAll(inv, []byte(`"PASS"`), []byte(`"pass"`))), []byte("\n]\n")), 1, one("enum"))
	c.add("envelope-string.json", []byte(`"hello"`), 1, one("envelope"))
	c.add("envelope-null.json", []byte("null"), 1, one("envelope"))
	rid, bt, data := one("envelope-request-id"), one("envelope-business-type"), one("envelope-data")
	c.add("request-id-missing.json", c.subRe(rec, `  "requestId": "[^"]+",\n`, ""), 1, rid)
	c.add("request-id-number.json", c.subRe(rec, `"requestId": "[^"]+"`, `"requestId": 12345`), 1, rid)
	c.add("request-id-null.json", c.subRe(rec, `"requestId": "[^"]+"`, `"requestId": null`), 1, rid)
	c.add("request-id-not-uuid.json", c.subRe(rec, `"requestId": "[^"]+"`, `"requestId": "req-0001"`), 1, rid)
	c.add("business-type-missing.json", c.sub(rec, "  \"businessType\": 5007,\n", ""), 1, bt)
	c.add("business-type-string.json", c.sub(rec, `"businessType": 5007`, `"businessType": "5007"`), 1, bt)
	c.add("business-type-fraction.json", c.sub(rec, `"businessType": 5007`, `"businessType": 5007.5`), 1, bt)
	c.add("business-type-unknown.json", c.sub(rec, `"businessType": 5007`, `"businessType": 5008`), 1, bt)
	c.add("business-type-null.json", c.sub(rec, `"businessType": 5007`, `"businessType": null`), 1, bt)
	const env = `{"requestId":"9424f8a8-0aa8-434f-88f9-c391ba0cdad4","businessType":5007`
	c.add("data-missing.json", []byte(env+`}`), 1, data)
	c.add("data-null.json", []byte(env+`,"data":null}`), 1, data)
	c.add("data-array.json", []byte(env+`,"data":[]}`), 1, data)
	c.add("data-string.json", []byte(env+`,"data":"{}"}`), 1, data)

	// the event against the body number
	mismatch := one("event-mismatch")
	c.add("event-receipt-vs-abandon.json", rec, 1, mismatch, "--event ABANDON_RECEIVABLE_DOC")
	c.add("event-receipt-vs-invoice.json", rec, 1, mismatch, "--event CREATE_PURCHASE_ORDER_INVOICE")
	c.add("event-4011-vs-create.json", inv, 1, mismatch, "--event CREATE_PURCHASE_ORDER_INVOICE")
	c.add("event-4010-vs-audit.json", invc, 1, mismatch, "--event AUDIT_PURCHASE_ORDER_INVOICE")
	c.add("capture-event-mismatch.log", join(c.capture("businessType=ABANDON_RECEIVABLE_DOC", c.compact(rec), false), nl), 1, mismatch)
	c.add("capture-no-event.log", join(c.capture("x=1", c.compact(rec), false), nl), 1, one("query-event"))
	c.add("capture-unknown-event.log", join(c.capture("businessType=DELETE_EVERYTHING", c.compact(rec), false), nl), 1, one("query-event"))
	c.add("capture-base64-bad-utf8.log", join(c.capture("businessType=CREATE_RECEIVABLE_DOC", []byte("{\"a\":\"\xff\"}"), true), nl), 1, syntax)
	c.add("capture-torn-last-line.log", join(c.capture("businessType=CREATE_RECEIVABLE_DOC", c.compact(rec), false), nl,
		c.capture("businessType=CREATE_RECEIVABLE_DOC", c.compact(rec), false)[:300]), 0, one("torn-line"), "--strict")
	c.add("capture-unreadable.log", join(c.capture("businessType=CREATE_RECEIVABLE_DOC", c.compact(rec), false), nl,
		[]byte(`{"capture":1,"body":42}`+"\n")), 1, one("capture-record"))

	// types, enumerations, formats
	typ := one("type")
	c.add("type-number-as-string.json", c.sub(rec, `"应收金额": 315811.94`, `"应收金额": "315811.94"`), 1, typ)
	c.add("type-boolean-as-string.json", c.sub(rec, `"是否生产凭证": false`, `"是否生产凭证": "false"`), 1, typ)
	c.add("type-object-as-string.json", c.subRe(rec, `"客户名称": \{[^}]*\}`, `"客户名称": "温州锦程"`), 1, typ)
	c.add("type-millis-fraction.json", c.subRe(rec, `"业务日期": (\d+)`, `"业务日期": 1789833600000.5`), 1, typ)
	c.add("type-item-attributes-number.json", c.subRe(inv, `"itemAttributes": \{\n\s+"([^"]+)": "[^"]*"`, "\"itemAttributes\": {\n \"${1}\": 3"), 1, typ)
	c.add("type-item-attributes-array.json", c.subRe(inv, `"itemAttributes": \{`, `"itemAttributes": ["x"], "itemAttributes2": {`), 1, []string{"type", "unknown-field"})
	c.add("type-item-not-object.json", c.sub(inv, `"items": [`, `"items": ["CGRKD", `), 1, typ)
	c.add("type-status-boolean.json", c.sub(inv, `"status": "PASS"`, `"status": true`), 1, typ)
	c.add("type-hidden-decimal-number.json", c.subRe(rec, `"应收金额本位币-隐": "([0-9.]+)"`, `"应收金额本位币-隐": ${1}`), 1, typ)
	c.add("enum-create-type.json", c.subRe(inv, `"createType": "[A-Z_]+"`, `"createType": "PURCHASE_INVOICE"`), 1, one("enum"))
	c.add("enum-status.json", c.sub(inv, `"status": "PASS"`, `"status": "APPROVED"`), 1, one("enum"))
	c.add("format-currency.json", c.sub(inv, `"currency": "CNY"`, `"currency": "RMB¥"`), 1, one("format"))
	c.add("format-currency-lower.json", c.sub(inv, `"currency": "CNY"`, `"currency": "cny"`), 1, one("format"))
	c.add("format-decimal-string.json", c.subRe(rec, `"应收金额本位币-隐": "([0-9]+)\.([0-9]{2})"`, `"应收金额本位币-隐": "${1}.${2} 元"`), 1, one("format"))
	c.add("format-negative-millis.json", c.subRe(inv, `"createTime": (\d+)`, `"createTime": -1`), 1, one("format"))

	// receipts and invoices, shapes
	c.add("receipt-lacks-sources.json", c.subRe(rec, `,\n    "源单明细": \[(.|\n)*\]\n  \}\n\}`, "\n  }\n}"), 1, one("receipt-member"))
	c.add("receipt-header-null.json", c.subRe(rec, `"收款单": \{(.|\n)*?\n    \},`, `"收款单": null,`), 1, []string{"null-field", "receipt-member"})
	c.add("receipt-lines-object.json", c.sub(rec, `"收款明细": [`, `"收款明细": {"x": [`), 1, syntax)
	c.add("receipt-lines-string.json", c.subRe(rec, `"收款明细": \[(.|\n)*?\n    \],`, `"收款明细": "none",`), 1, typ)
	c.add("receipt-line-not-object.json", c.sub(rec, `"收款明细": [`, `"收款明细": [null, `), 1, typ)
	c.add("invoice-with-receipt-member.json", c.sub(inv, `"data": {`, "\"data\": {\n    \"收款明细\": [],"), 1, one("receipt-in-invoice"))
	mixed := one("mixed-shape")
	c.add("mixed-markers.json", c.sub(inv, `"customerCode"`, `"enterpriseCode"`), 1, mixed)
	c.add("mixed-records-items.json", c.sub(inv, `"items": [`, "\"records\": [],\n    \"items\": ["), 1, mixed)
	c.add("mixed-integer-status.json", c.sub(inv, `"status": "PASS"`, `"status": 1`), 1, mixed)
	c.add("mixed-string-status.json", c.subRe(smp, `"status": \d+`, `"status": "PASS"`), 1, mixed)
	c.add("shape-described-asserted.json", smp, 1, []string{"missing-field", "type", "unknown-field"}, "--shape described")

	// duplicate keys
	dup := one("duplicate-key")
	c.add("duplicate-envelope.json", c.sub(rec, `"businessType": 5007,`, "\"businessType\": 5007,\n  \"businessType\": 5009,"), 1, dup)
	c.add("duplicate-field.json", c.sub(rec, `"编号": "1",`, "\"编号\": \"1\",\n        \"编号\": \"2\","), 1, dup)
	c.add("duplicate-escaped.json", c.sub(inv, `"itemAttributes": {`, "\"itemAttributes\": {\n \"\\u54c1\\u724c\": \"x\", \"品牌\": \"y\","), 1, dup)

	// warnings: exit 0, unless --strict
	unknown := c.sub(rec, `"编号": "1",`, "\"编号\": \"1\",\n        \"备注\": \"\",")
	c.add("warn-unknown-field.json", unknown, 0, one("unknown-field"))
	c.add("warn-unknown-field-strict.json", unknown, 1, one("unknown-field"), "--strict")
	c.add("warn-unknown-field-ignored.json", unknown, 0, none, "--strict --ignore unknown-field")
	// A field of the other document kind is unknown whatever its value:
	// the spec gives it no type in this document.
	c.add("warn-invoice-field-in-receipt.json", c.sub(rec, `"收款单": {`, "\"currency\": \"usd\",\n    \"createType\": 3,\n    \"收款单\": {"), 0, one("unknown-field"))
	missing := c.subRe(rec, `\n\s+"收款用途": "[^"]*",`, "")
	c.add("warn-missing-field.json", missing, 0, one("missing-field"))
	c.add("warn-missing-field-strict.json", missing, 1, one("missing-field"), "--strict")
	c.add("warn-null-field.json", c.subRe(rec, `"收款用途": "[^"]*"`, `"收款用途": null`), 0, one("null-field"))
	c.add("warn-invoice-type.json", c.sub(inv, `"VALUE_ADDED_TAX"`, `"ORDINARY_INVOICE"`), 0, one("unexpected-value"))
	c.add("warn-currency-pre001.json", c.sub(rec, `"code": "CNY"`, `"code": "PRE001"`), 0, one("unexpected-value"))
	c.add("warn-tax-id.json", c.subRe(inv, `"taxCode": "([0-9A-Z]{17})[0-9A-Z]"`, `"taxCode": "${1}Z"`), 0, one("tax-id-check"))
	// A taxCode cut short or one character long: no taxpayer id has 17
	// or 19 characters (15, 18 or 20). An empty one is none given.
	c.add("warn-tax-id-length.json", c.subRe(inv, `"taxCode": "([0-9A-Z]{17})[0-9A-Z]"`, `"taxCode": "${1}"`), 0, one("tax-id-check"))
	c.add("valid-tax-id-empty.json", c.subRe(inv, `"taxCode": "[0-9A-Z]{18}"`, `"taxCode": ""`), 0, none)
	c.add("warn-tax-id-pilot.json", c.subRe(inv, `"taxCode": "[0-9A-Z]{18}"`, `"taxCode": "91350100M000100Y4Z"`), 0, one("tax-id-check"))
	c.add("warn-timestamp-seconds.json", c.subRe(rec, `"业务日期": (\d+)\d\d\d`, `"业务日期": ${1}`), 0, one("timestamp-seconds"))
	c.add("warn-timestamp-1970.json", c.subRe(rec, `"业务日期": (\d+)`, `"业务日期": 86400000`), 0, one("timestamp-range"))
	c.add("warn-timestamp-future.json", c.subRe(inv, `"createTime": (\d+)`, `"createTime": 32503680000000`), 0, one("timestamp-range"))
	c.add("warn-line-tax.json", c.subRe(inv, `"tax": [0-9.]+`, `"tax": 0.5`), 0, one("line-tax"))
	c.add("warn-receipt-totals.json", c.subRe(rec, `"已核销金额": 0.00,\n      "未核销金额": ([0-9.]+)`, "\"已核销金额\": 1.00,\n      \"未核销金额\": 1.00"), 0, []string{"outstanding-amount", "receipt-totals"})
	c.add("warn-outstanding.json", c.subRe(rec, `"未核销金额": ([0-9]+)\.[0-9]{2},\n        "已核销金额本位币`, "\"未核销金额\": 1.00,\n        \"已核销金额本位币"), 0, one("outstanding-amount"))
	c.add("warn-base-amount.json", c.subRe(rec, `"应收金额本位币": [0-9.]+`, `"应收金额本位币": 1.00`), 0, one("base-amount"))

	// NDJSON: findings name the line
	c.add("ndjson-one-bad-line.ndjson", join(c.compact(rec), nl, bytes.ReplaceAll(c.compact(inv), []byte(`"PASS"`), []byte(`"pass"`)), nl, nl, c.compact(smp), nl), 1, one("enum"))
	c.add("ndjson-truncated-line.jsonl", join(c.compact(rec), nl, c.compact(inv)[:200], nl), 1, syntax)
	cr := c.compact(rec)
	c.add("ndjson-bad-first-line", join(cr[:len(cr)-1], []byte(",}\n"), c.compact(inv), nl), 1, syntax)

	// usage errors: exit 2
	c.add("usage-unknown-event.json", rec, 2, none, "--event CREATE_RECEIVABLE")
	c.add("usage-unknown-rule.json", rec, 2, none, "--ignore no-such-rule")
	c.add("usage-unknown-shape.json", rec, 2, none, "--shape round")
	c.add("usage-unknown-output.json", rec, 2, none, "--output yaml")

	expect := "# file | exit code | extra args (- for none) | rule ids found (- for none); see validate_corpus_gen_test.go in cmd/whsim\n" +
		strings.Join(c.lines, "\n") + "\n"
	return c.files, []byte(expect)
}
