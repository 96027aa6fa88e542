package anonymize

import (
	"context"
	"strings"
	"testing"
)

// A body that is XML names its values by its elements as JSON does by its
// fields: an element named for a person, a company, a tax id, a phone, a
// QQ number, an address or a remark labels its text; another element, an
// item's name and the markup are kept byte for byte.
func TestXMLElementsLabelTheirText(t *testing.T) {
	t.Parallel()
	const xml = `<?xml version="1.0" encoding="UTF-8"?><receipt id="r1"><contactName>张伟</contactName><name>李娜</name>` +
		`<ns:nsrsbh>310104710932064</ns:nsrsbh><gmfmc>杭州恒远机械设备有限公司</gmfmc><tel>62345678</tel><qq>123456789</qq>` +
		`<deliveryAddress>浙江省杭州市西湖区文三</deliveryAddress><remark>陈静负责</remark><item><name>不锈钢六角螺栓</name><qty>12</qty></item>` +
		`<ref>1001234509100123456</ref><empty/></receipt>`
	a := newTestAnonymizer(t, testKey)
	body, out, s := anonymizeFreeText(t, a, xml)
	for _, orig := range []string{"张伟", "李娜", "310104710932064", "恒远", "62345678", "123456789<", "西湖区文三", "陈静"} {
		if strings.Contains(s, orig) {
			t.Errorf("%s is still in %s", orig, s)
		}
	}
	for _, kept := range []string{`<?xml version="1.0" encoding="UTF-8"?><receipt id="r1"><contactName>`, "</contactName><name>", "</ns:nsrsbh>",
		"<item><name>不锈钢六角螺栓</name><qty>12</qty></item><ref>1001234509100123456</ref><empty/></receipt>", "负责</remark>"} {
		if !strings.Contains(s, kept) {
			t.Errorf("%s is no longer in %s", kept, s)
		}
	}
	if !strings.Contains(s, "<name>"+a.r.Replace(personName, "李娜")+"</name>") {
		t.Errorf("<name>: want the person's stand-in in %s", s)
	}
	if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
		t.Errorf("--check finds %v in the output %s", leaks, out)
	}
	if leaks := a.check(context.Background(), body, 1); len(leaks) == 0 {
		t.Errorf("--check finds no leak in the original %s", body)
	}
}
