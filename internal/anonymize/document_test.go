package anonymize

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/whsim/whsim/fixtures"
	"github.com/whsim/whsim/internal/spec"
	"github.com/whsim/whsim/internal/validate"
)

func newTestAnonymizer(t *testing.T, key []byte) *anonymizer {
	t.Helper()
	a, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// eachFixture runs fn on the canonical payload of every event and shape.
func eachFixture(t *testing.T, fn func(t *testing.T, e spec.Event, s spec.Shape, body []byte)) {
	for _, e := range spec.Events() {
		for _, s := range spec.Shapes() {
			body, err := fixtures.Get(e.Name, s)
			if err != nil {
				t.Fatal(err)
			}
			t.Run(e.Name+"."+string(s), func(t *testing.T) { fn(t, e, s, body) })
		}
	}
}

func TestPayloadReplacesIdentifiersAndKeepsTheRest(t *testing.T) {
	a := newTestAnonymizer(t, testKey)
	v, err := validate.New(validate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eachFixture(t, func(t *testing.T, e spec.Event, s spec.Shape, body []byte) {
		out, repl, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		if len(repl) == 0 {
			t.Fatal("nothing replaced")
		}
		for _, x := range repl {
			if len([]rune(x.Old)) >= 2 && bytes.Contains(out, []byte(x.Old)) {
				t.Errorf("%s %q survives in the output", x.Path, x.Old)
			}
		}
		// Everything but the replaced strings is the same: amounts, dates,
		// enumerations, currencies, the envelope.
		var in, got any
		mustUnmarshal(t, body, &in)
		mustUnmarshal(t, out, &got)
		kept := map[string]bool{}
		for _, x := range repl {
			kept[x.Path] = true
		}
		compareKept(t, "", in, got, kept)
		if before, after := v.Check(body, e.Name), v.Check(out, e.Name); len(after) > len(before) {
			t.Errorf("anonymizing added findings: %v", after)
		}
	})
}

func TestPayloadChangesOnlyTheReplacedSpans(t *testing.T) {
	a := newTestAnonymizer(t, testKey)
	body := []byte("{\"requestId\" : \"x\",\r\n  \"businessType\":5007, \"data\":{\"收款单\":{\"\\u6536\\u6b3e\\u5355\\u7f16\\u53f7\": \"SKD00000365\", \"汇率\": 1.0E0}}}")
	out, repl, err := a.Payload(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(repl) != 1 {
		t.Fatalf("replaced %d values, want the receipt number only: %+v", len(repl), repl)
	}
	x := repl[0]
	want := string(body[:x.Start]) + `"` + x.New + `"` + string(body[x.End:])
	if string(out) != want {
		t.Errorf("output\n%s\nwant\n%s", out, want)
	}
}

func TestPayloadIsKeyed(t *testing.T) {
	a, a2 := newTestAnonymizer(t, testKey), newTestAnonymizer(t, testKey)
	b := newTestAnonymizer(t, []byte("a different key of enough length"))
	eachFixture(t, func(t *testing.T, e spec.Event, s spec.Shape, body []byte) {
		x, _, _ := a.Payload(body)
		y, _, _ := a2.Payload(body)
		z, _, _ := b.Payload(body)
		if !bytes.Equal(x, y) {
			t.Error("same key, different bytes")
		}
		if bytes.Equal(x, z) {
			t.Error("another key, same bytes")
		}
	})
}

func TestPayloadErrorsSayWhere(t *testing.T) {
	a := newTestAnonymizer(t, testKey)
	for _, tt := range []struct{ in, want string }{
		{"{\"data\":\n{\"code\": tru}}", "line 2"},
		{`{"data":{}`, "line 1, column 11: unexpected end of input"},
		{`{} {}`, "line 1, column 4: trailing data"},
		{``, "empty"},
		{"{\"a\":1,\"a\":\"\xff\"}", "UTF-8"},
	} {
		_, _, err := a.Payload([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Payload(%q) error %v, want it to say %q", tt.in, err, tt.want)
		}
	}
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatalf("%v in %s", err, b)
	}
}

// compareKept fails for any difference between in and got outside the
// replaced paths.
func compareKept(t *testing.T, path string, in, got any, replaced map[string]bool) {
	t.Helper()
	switch x := in.(type) {
	case map[string]any:
		y, ok := got.(map[string]any)
		if !ok || len(x) != len(y) {
			t.Errorf("%s: object changed", path)
			return
		}
		for k, v := range x {
			compareKept(t, join(path, k), v, y[k], replaced)
		}
	case []any:
		y, ok := got.([]any)
		if !ok || len(x) != len(y) {
			t.Errorf("%s: array changed", path)
			return
		}
		for i := range x {
			compareKept(t, path+"[]", x[i], y[i], replaced)
		}
	default:
		if !replaced[path] && !reflect.DeepEqual(in, got) {
			t.Errorf("%s: %v became %v", path, in, got)
		}
	}
}

func TestPayloadReplacesEchoesInOtherFields(t *testing.T) {
	a := newTestAnonymizer(t, testKey)
	body := []byte(`{"businessType":4010,"data":{"customerName":"上海鼎盛贸易有限公司","taxCode":"91310115MA1FL3XK9D","note":"开给上海鼎盛贸易有限公司 91310115MA1FL3XK9D","staffCode":"12","items":[{"itemAttributes":{"备注":"12号仓"}}]}}`)
	out, repl, err := a.Payload(body)
	if err != nil {
		t.Fatal(err)
	}
	for _, old := range []string{"上海鼎盛贸易有限公司", "91310115MA1FL3XK9D"} {
		if bytes.Contains(out, []byte(old)) {
			t.Errorf("%q survives in %s", old, out)
		}
	}
	if !bytes.Contains(out, []byte("12号仓")) {
		t.Errorf("a two-digit code was replaced inside other text: %s", out)
	}
	echoes := 0
	for _, x := range repl {
		if x.Class == Echo {
			echoes++
		}
	}
	if echoes != 1 {
		t.Errorf("%d echoes replaced, want 1 (the note): %+v", echoes, repl)
	}
}

func TestFieldClassesComeFromTheSpec(t *testing.T) {
	m := fieldClasses()
	for path, want := range map[string]class{
		"data.taxCode":                  TaxID,
		"data.invoiceTitle":             companyName,
		"data.enterpriseName":           companyName,
		"data.staffName":                personName,
		"data.items[].relatedOrderCode": code,
		"data.records[].comments":       remark,
		"data.收款单.收款单编号":                code,
		"data.收款单.客户名称.name":            companyName,
		"data.源单明细[].源单客户.code":         code,
		"data.源单明细[].备注":                remark,
	} {
		if got := m[path]; got != want {
			t.Errorf("%s: class %q, want %q", path, got, want)
		}
	}
	for _, kept := range []string{"requestId", "data.currency", "data.收款单.币别.code", "data.items[].itemCode", "data.invoiceTypeCode"} {
		if c, ok := m[kept]; ok {
			t.Errorf("%s is kept, but has class %q", kept, c)
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// The run's dictionary is searched for identifiers, not for chance
// look-alikes: a four-digit staff code inside an amount or a uuid, a remark
// phrase inside other words, a number that is an amount.
func TestSearchKeepsWhatNamesNobody(t *testing.T) {
	a := newTestAnonymizer(t, testKey)
	body := []byte(`{"requestId":"4f23c6e4-2695-41ac-b91a-1159eaaa4956","businessType":4010,"data":{"staffCode":"2695","customerCode":"08130430","comments":"加急",` +
		`"x":{"price":"2695.02","n":2695,"m":8130430.5,"note":"请加急处理","same":"加急","code":"08130430","in":"见08130430号","tel":13812345678,"run":"A08130430"}}}`)
	out, _, err := a.Payload(body)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		RequestID string         `json:"requestId"`
		Data      map[string]any `json:"data"`
	}
	mustUnmarshal(t, out, &got)
	x := got.Data["x"].(map[string]any)
	if got.RequestID != "4f23c6e4-2695-41ac-b91a-1159eaaa4956" {
		t.Errorf("requestId changed: %s", got.RequestID)
	}
	for k, want := range map[string]string{"price": "2695.02", "n": "2695", "m": "8130430.5", "note": "请加急处理", "run": "A08130430"} {
		if fmt.Sprint(x[k]) != want {
			t.Errorf("%s: %v, want %s kept", k, x[k], want)
		}
	}
	for _, k := range []string{"same", "code", "in", "tel"} {
		if s := fmt.Sprint(x[k]); strings.Contains(s, "加急") || strings.Contains(s, "08130430") || strings.Contains(s, "13812345678") {
			t.Errorf("%s: %v kept", k, x[k])
		}
	}
}

// Values too short to search for inside text (a staff code 0038, a
// customer code ZS1) are replaced where they stand as tokens of their own,
// and only there: never inside a number, a date, a word or an escape.
func TestShortIdentifiersAreReplacedAsTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		gone string // "" when the text must be kept as it is
	}{
		{"0038", "0038"},
		{"工号0038", "0038"},
		{"经办人 0038，客户ZS1", "0038"},
		{"经办人 0038，客户ZS1", "ZS1"},
		{"/staff/0038?c=ZS1&x=1", "0038"},
		{"/staff/0038?c=ZS1&x=1", "ZS1"},
		{"customer: ZS1.", "ZS1"},
		{`{"who":"0038"}`, "0038"},
		{"(0038)", "0038"},
		{"1.0038", ""},
		{"0038-2", ""},
		{"A0038 0038ab 20038 zs1 ZS12 ZS1_x x.ZS1 %0038", ""},
		{"ZS1.x", ""},
		{"2024年0038天", ""},
		{"uuid 4f23c6e4-0038-41ac", ""},
		{"12号仓, 共2件, 038", ""},
	}
	for _, tt := range tests {
		a := newTestAnonymizer(t, testKey)
		x, _ := json.Marshal(tt.text)
		body := []byte(`{"businessType":4010,"data":{"staffCode":"0038","customerCode":"ZS1","x":` + string(x) + `}}`)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Data map[string]any }
		mustUnmarshal(t, out, &got)
		s := fmt.Sprint(got.Data["x"])
		switch {
		case tt.gone == "" && s != tt.text:
			t.Errorf("%q became %q: common text corrupted", tt.text, s)
		case tt.gone != "" && strings.Contains(s, tt.gone):
			t.Errorf("%q survives in %q", tt.gone, s)
		}
		// --check, on the output with the text planted back, finds it.
		if tt.gone != "" {
			planted := bytes.Replace(body, []byte(`"0038","customerCode":"ZS1"`), []byte(fmt.Sprintf(`%q,"customerCode":%q`, got.Data["staffCode"], got.Data["customerCode"])), 1)
			if leaks := a.check(context.Background(), planted, 1); len(leaks) == 0 {
				t.Errorf("--check finds no leak in %s", planted)
			}
		}
	}
}

// Identifiers in the spellings an attacker (or an ERP) may choose: a
// percent-encoded name in a string or a URL of the body (upper- or
// lower-case hex), a mobile with its country code, an identity card or a
// known tax id in lower case. Each is replaced, the text around it kept,
// and --check finds each in the original.
func TestSpellingsOfIdentifiersAreReplaced(t *testing.T) {
	t.Parallel()
	const name = "上海鼎盛贸易有限公司"
	enc := url.QueryEscape(name)
	tests := []struct{ text, gone, kept string }{
		{"?c=" + enc + "&x=1", enc, "?c="},
		{"https://erp.example/c?n=" + enc, enc, "https://erp.example/c?n="},
		{strings.ToLower(enc), strings.ToLower(enc), ""},
		{"/customers/" + enc, enc, "/customers/"},
		{"+8613812345678", "13812345678", "+86"},
		{"tel:8613812345678", "13812345678", "tel:86"},
		{"0086 13812345678", "13812345678", "0086 "},
		{"id 11010519491231002x", "11010519491231002", "id "},
		{"tax 91310115ma1fl3xk9d.", "91310115ma1fl3xk9d", "tax "},
		{"call 138-1234-5678.", "1234-5678", "call 1"},
		{"call 138 1234 5678", "1234 5678", "call 1"},
		{"50% off, 13% vat", "", "50% off, 13% vat"},
		{"order 138-1234-56789 on 2024-1234-5678", "", "order 138-1234-56789 on 2024-1234-5678"},
		{"hash 8613812345678abc", "", "hash 8613812345678abc"},
	}
	for _, tt := range tests {
		a := newTestAnonymizer(t, testKey)
		x, _ := json.Marshal(tt.text)
		body := []byte(`{"businessType":4010,"data":{"customerName":"` + name + `","taxCode":"91310115MA1FL3XK9D","x":` + string(x) + `}}`)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Data map[string]any }
		mustUnmarshal(t, out, &got)
		s := fmt.Sprint(got.Data["x"])
		if tt.gone != "" && strings.Contains(s, tt.gone) || !strings.Contains(s, tt.kept) || tt.gone == "" && s != tt.text {
			t.Errorf("%q became %q", tt.text, s)
		}
		if tt.gone == "" {
			continue
		}
		// The output's fields with the original text planted back.
		planted := []byte(`{"businessType":4010,"data":{"customerName":` + string(mustJSON(t, got.Data["customerName"])) + `,"taxCode":` + string(mustJSON(t, got.Data["taxCode"])) + `,"x":` + string(x) + `}}`)
		if leaks := a.check(context.Background(), planted, 1); len(leaks) == 0 {
			t.Errorf("--check finds no leak in %s", planted)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// An identifying field that holds an array or an object where the spec has
// a string (a sender that wraps the value: customerName ["…"], staffName
// {"name": "…"}) still identifies someone: every string and number in it is
// replaced as the field's own value would be, so that neither the output
// nor --check keeps a company or a person no shape can tell. Anything else
// in the payload is kept byte for byte.
func TestIdentifyingFieldsOfAnotherTypeAreReplaced(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	body := []byte(`{"requestId":"r","businessType":4010,"data":{"customerName":["上海鼎盛贸易有限公司",["杭州恒远机械设备有限公司"]],"staffName":{"name":"欧阳娜娜","code":7},"taxCode":["91330106MA27W8Q173"],"currency":"CNY","items":[{"itemName":"轴承","relatedOrderCode":{"no":"CGDD202610110003"}}]}}`)
	out, _, err := a.Payload(body)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) {
		t.Fatalf("not JSON: %s", out)
	}
	for _, gone := range []string{"上海鼎盛贸易有限公司", "杭州恒远机械设备有限公司", "欧阳娜娜", "91330106MA27W8Q173", "CGDD202610110003"} {
		if bytes.Contains(out, []byte(gone)) {
			t.Errorf("%s survives in %s", gone, out)
		}
	}
	for _, kept := range []string{`"requestId":"r"`, `"currency":"CNY"`, `"itemName":"轴承"`, `"customerName":["`, `"staffName":{"name":"`, `"code":`} {
		if !bytes.Contains(out, []byte(kept)) {
			t.Errorf("%s not kept in %s", kept, out)
		}
	}
	again, _, err := newTestAnonymizer(t, testKey).Payload(body)
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("another run gave %s, want %s (%v)", again, out, err)
	}
}

// notesKept fails t unless each value, as an invoice's data.note, comes
// out of the anonymizer byte for byte as it went in: text that holds
// nobody's data.
func notesKept(t *testing.T, values ...string) {
	t.Helper()
	for _, v := range values {
		b, _ := json.Marshal(v)
		body := invoiceWith(`"note":` + string(b))
		out, _, err := newTestAnonymizer(t, testKey).Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != string(body) {
			t.Errorf("%s changed: %s", v, out)
		}
	}
}

// invoiceWith is an invoice payload whose data holds members (JSON
// object members, without the braces).
func invoiceWith(members string) []byte {
	return []byte(`{"requestId":"7f1c2d3e-1111-4a5b-9c8d-0123456789ab","businessType":4010,"data":{` + members + `}}`)
}

// anonymizedData is a's output for invoiceWith(members), and its data's
// members as strings.
func anonymizedData(t *testing.T, a *anonymizer, members string) (out []byte, data map[string]string) {
	t.Helper()
	out, _, err := a.Payload(invoiceWith(members))
	if err != nil {
		t.Fatal(err)
	}
	var p struct{ Data map[string]string }
	mustUnmarshal(t, out, &p)
	return out, p.Data
}

// plantedFound fails t unless --check finds an original in
// invoiceWith(members): an output an original was planted back into.
func plantedFound(t *testing.T, a *anonymizer, members string) {
	t.Helper()
	if planted := invoiceWith(members); len(a.check(context.Background(), planted, 1)) == 0 {
		t.Errorf("--check finds nothing in %s", planted)
	}
}
