package anonymize

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// A document number written after its label in free text (发票号码,
// 发票代码, 单据编号, 订单号, invoice no.) is replaced by a code's stand-in
// of its form; what only starts like such a label, or is no number after
// it (a date, an amount, a line's number), is kept byte for byte.
// Found by an44: every one of these survived, in a remark and anywhere else.
func TestDocumentNumbersAfterTheirLabelAreReplaced(t *testing.T) {
	t.Parallel()
	checkFreeText(t, []freeTextRow{
		{"a digital invoice's number", "发票号码：04400190011112345678", "04400190011112345678", "发票号码：99999999999999999999"},
		{"an invoice code", "发票代码 044001900111", "044001900111", "发票代码 999999999999"},
		{"invoice no.", "invoice no. 12345678", "12345678", "invoice no. 99999999"},
		{"Invoice No:", "请核对 Invoice No: 12345678，谢谢", "12345678", "请核对 Invoice No: 99999999，谢谢"},
		{"a dated document number", "单据编号:SKD202612070001", "SKD202612070001", "单据编号:SKD999999999999"},
		{"an order number in groups", "订单号 PO-2026-000123 已发货", "PO-2026-000123", "订单号 PO-9999-999999 已发货"},
		{"a receipt's number glued to its label", "收款单号SKD00000365", "SKD00000365", "收款单号SKD99999999"},
		{"PO#", "PO#4500012345 shipped", "4500012345", "PO#9999999999 shipped"},
		{"full-width", "合同号：ＨＴ２０２６００１２", "２０２６００１２", "合同号：ＨＴ９９９９９９９９"},
		{"an XML element so named", "<r><invoiceNo>12345678</invoiceNo><fpdm>044001900111</fpdm></r>", "12345678", "<r><invoiceNo>99999999</invoiceNo><fpdm>999999999999</fpdm></r>"},
		{"a form's field so named", "amount=100&orderNo=PO-2026-000123", "PO-2026-000123", "amount=100&orderNo=PO-9999-999999"},
		// What names no document stays as it was.
		{"dates, amounts, short numbers and words", "订单号 2026-03-18，发票号 1500.00，单号 12，订单号码未填，invoice note 12345678，reorder no. 12345678，单号 12345678元", "", ""},
		{"a word glued to it", "发票号码 04400190011112345678ab", "", ""},
	}, matchesForm)
}

// A field, query parameter, header or XML element named for a document
// number (invoiceNo, orderNumber, 发票号码, 单据编号) labels its value, a
// string or a JSON number, as the label does in text.
func TestDocumentNumbersUnderTheirFieldsNameAreReplaced(t *testing.T) {
	t.Parallel()
	checkKeyedValues(t, []keyedValue{
		{"invoiceNo as a JSON number", "invoiceNo", `12345678`, "12345678", `99999999`},
		{"a Chinese name", "发票号码", `"04400190011112345678"`, "04400190011112345678", `"99999999999999999999"`},
		{"orderNo", "orderNo", `"PO-2026-000123"`, "PO-2026-000123", `"PO-9999-999999"`},
		{"单据编号", "单据编号", `"SKD202612070001"`, "SKD202612070001", `"SKD999999999999"`},
		{"poNumber", "poNumber", `4500012345`, "4500012345", `9999999999`},
		{"the invoice interfaces' 发票号码", "fphm", `"12345678"`, "12345678", `"99999999"`},
		// What names nobody stays as it was.
		{"a line's number", "编号", `"1"`, "", ""},
		{"a word ending so", "reorderNo", `"12345678"`, "", ""},
		{"a batch", "批次号", `"L251225-01"`, "", ""},
	})
}

// A document number replaced after its label is the same stand-in where
// it stands bare elsewhere in the capture, before and after the label,
// and in a spec field of its own.
func TestALabelledDocumentNumberIsOneStandInAcrossTheInput(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	in := `{"businessType":4010,"data":{"comments":"","x":"见 04400190011112345678"}}` + "\n" +
		`{"businessType":4010,"data":{"comments":"","y":"发票号码：04400190011112345678"}}` + "\n" +
		`{"businessType":4010,"data":{"comments":"","z":"订单号 PO-2026-000123","items":[{"relatedOrderCode":"PO-2026-000123"}]}}` + "\n"
	var b bytes.Buffer
	st, err := a.Stream(context.Background(), strings.NewReader(in), &b, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	out, leaks := b.String(), st.Leaks
	if strings.Contains(out, "04400190011112345678") || strings.Contains(out, "PO-2026-000123") {
		t.Fatalf("a document number survived:\n%s", out)
	}
	inv := a.r.Replace(code, "04400190011112345678")
	if n := strings.Count(out, inv); n != 2 {
		t.Errorf("the invoice number's stand-in %s stands %d times, want 2:\n%s", inv, n, out)
	}
	po := a.r.Replace(code, "PO-2026-000123")
	if n := strings.Count(out, po); n != 2 {
		t.Errorf("the order number's stand-in %s stands %d times, want 2:\n%s", po, n, out)
	}
	if len(leaks) != 0 {
		t.Errorf("--check finds %v", leaks)
	}
}

// A query parameter or a form field named for a remark reads a name in it
// with no role before it as the same field of JSON, a header and an XML
// element do. Found by an44: ?remark=张伟已确认 (percent-encoded, as a
// query writes it) kept the name that X-Remark: 张伟已确认 lost.
func TestARemarkParametersNameIsReplacedAsAFieldsIs(t *testing.T) {
	t.Parallel()
	for _, q := range []string{
		"remark=%E5%BC%A0%E4%BC%9F%E5%B7%B2%E7%A1%AE%E8%AE%A4",
		"备注=%E5%BC%A0%E4%BC%9F%E5%B7%B2%E7%A1%AE%E8%AE%A4",
		"orderNo=PO-2026-000123",
	} {
		a := newTestAnonymizer(t, testKey)
		x, _ := json.Marshal("see http://erp/doc?" + q)
		body := []byte(`{"businessType":4010,"data":{"comments":"","x":` + string(x) + `}}`)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(out), "%E5%BC%A0%E4%BC%9F") || strings.Contains(string(out), "PO-2026-000123") {
			t.Errorf("%s: survived in %s", q, out)
		}
		checkAgrees(t, a, q, body, out)
	}
}

// A document number the run replaced, written elsewhere in another case
// (a URL's lower-case path, a name typed by hand), is the same number:
// its stand-in in that case. Found by an44: data.code CGFP202610160028
// was replaced, and cgfp202610160028 in a remark of the same payload was
// left as it was, --check passing it.
func TestAReplacedNumberInAnotherCaseIsItsStandIn(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	body := []byte(`{"businessType":4010,"data":{"code":"CGFP202610160028","comments":"","x":"见 /docs/cgfp202610160028 和 Cgfp202610160028，kept: abc123def"}}`)
	out, _, err := a.Payload(body)
	if err != nil {
		t.Fatal(err)
	}
	st := a.r.Replace(code, "CGFP202610160028")
	lower := strings.ToLower(st)
	want := `"x":"见 /docs/` + lower + ` 和 C` + lower[1:] + `，kept: abc123def"`
	if !strings.Contains(string(out), want) {
		t.Errorf("got %s, want %s", out, want)
	}
	checkAgrees(t, a, "another case", body, out)
}
