package anonymize

import (
	"strings"
	"testing"
)

// The field names of China's invoice interfaces (乐企, 查验, the Golden
// Tax systems) are pinyin initials: nsrsbh (纳税人识别号), gmfnsrsbh and
// xsfnsrsbh (the buyer's and seller's), gmfmc, xsfmc and nsrmc (their
// names), skr, fhr and kpr (收款人, 复核人, 开票人, printed on every VAT
// invoice). An ERP passes them on as they are, so they label their values
// as taxNo, customerName and contactName do.
func TestInvoiceInterfaceFieldNamesLabelTheirValues(t *testing.T) {
	t.Parallel()
	checkKeyedValues(t, []keyedValue{
		{"an old tax id", "nsrsbh", `"310104710932064"`, "310104710932064", `"999999999999999"`},
		{"a sole trader's id and two digits", "xsfnsrsbh", `"11010519491231002X08"`, "11010519491231002", `"99999999999999999999"`},
		{"an old tax id in capitals", "GMFNSRSBH", `"310104710932064"`, "310104710932064", `"999999999999999"`},
	})
	a := newTestAnonymizer(t, testKey)
	body := `{"businessType":4010,"data":{"gmfmc":"杭州恒远机械设备有限公司","xsfmc":"上海鼎盛贸易有限公司","nsrmc":"深圳市华拓电子科技有限公司","skr":"张伟","fhr":"李娜","kpr":"王芳","kpy":"赵磊","qskr":"x"}}`
	out, _, err := a.Payload([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, orig := range []string{"恒远", "鼎盛", "华拓", "张伟", "李娜", "王芳", "赵磊"} {
		if strings.Contains(string(out), orig) {
			t.Errorf("%s is still in %s", orig, out)
		}
	}
	if !strings.Contains(string(out), `"gmfmc":"`+a.r.Replace(companyName, "杭州恒远机械设备有限公司")+`"`) ||
		!strings.Contains(string(out), `"skr":"`+a.r.Replace(personName, "张伟")+`"`) {
		t.Errorf("want the company's and the person's stand-ins: %s", out)
	}
}
