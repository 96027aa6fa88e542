package anonymize

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

// Fields the spec does not have, named for a company or a name (name,
// supplierName, 供应商, handler, createdBy) are replaced as the spec's own
// names are when the whole value is a person's or a company's; an item's
// name and a code under such keys are kept. A remark (remark, 备注, FNote)
// keeps its text, but a person's name in it is found where a remark
// writes one: the whole remark, or at its start or after a comma, then
// what was done.
func TestGenericFieldsThatNameSomeoneAreReplaced(t *testing.T) {
	t.Parallel()
	body := `{"businessType":4010,"data":{"code":"CGFP001","name":"李娜","contact":"王芳","remark":"陈静负责","备注":"刘洋经手，电话见群",` +
		`"经办人":"赵磊","handler":"孙丽","createdBy":"周杰伦","userName":"吴敏","FNote":"货已到，欧阳娜娜已确认，周强的单子",` +
		`"customer":{"code":"C001","name":"杭州恒远机械设备有限公司"},"supplierName":"深圳市华拓电子科技有限公司","供应商":"上海鼎盛贸易有限公司","客户名称":"金蝶软件有限公司",` +
		`"records":[{"itemName":"螺栓","name":"不锈钢六角螺栓","remark":"郭涛"}],` +
		`"note2":"李娜的单子","memo":"黄色款已到，周末不发货，请加急处理","fileName":"李娜.pdf","supplierCode":"GYS001","计量单位名称":"千克"}}`
	a := newTestAnonymizer(t, testKey)
	out, _, err := a.Payload([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Data map[string]any }
	mustUnmarshal(t, out, &got)
	for _, orig := range []string{"李娜", "王芳", "陈静", "刘洋", "赵磊", "孙丽", "周杰伦", "吴敏", "欧阳娜娜", "周强", "杭州恒远", "华拓", "鼎盛", "金蝶", "郭涛"} {
		if strings.Contains(string(out), orig) {
			t.Errorf("%s is still in %s", orig, out)
		}
	}
	if got.Data["name"] != a.r.Replace(personName, "李娜") {
		t.Errorf("name: %v, want the person's stand-in %s", got.Data["name"], a.r.Replace(personName, "李娜"))
	}
	for key, want := range map[string]string{"remark": "某某某负责", "备注": "某某某经手，电话见群", "FNote": "货已到，某某某已确认，某某某的单子"} {
		if s, _ := got.Data[key].(string); !matchesName(s, want) {
			t.Errorf("%s: %q, want the form %q", key, s, want)
		}
	}
	if c := got.Data["客户名称"]; c != a.r.Replace(companyName, "金蝶软件有限公司") {
		t.Errorf("客户名称: %v, want the company's stand-in (a company's, not a person's)", c)
	}
	if c := got.Data["customer"].(map[string]any)["name"]; c != a.r.Replace(companyName, "杭州恒远机械设备有限公司") {
		t.Errorf("customer.name: %v, want the company's stand-in", c)
	}
	for _, kept := range []string{`"itemName":"螺栓"`, `"name":"不锈钢六角螺栓"`, `"memo":"黄色款已到，周末不发货，请加急处理"`, `"supplierCode":"GYS001"`, `"code":"C001"`, `"计量单位名称":"千克"`} {
		if !strings.Contains(string(out), kept) {
			t.Errorf("%s was changed: %s", kept, out)
		}
	}
	if !json.Valid(out) {
		t.Fatalf("invalid JSON out: %s", out)
	}
	if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
		t.Errorf("--check finds %v in the output %s", leaks, out)
	}
}

// A query parameter, a header or a URL's parameter in text named for a
// company or a name labels its value whole as the field does, read
// decoded.
func TestGenericNamesInQueriesAndHeadersAreReplaced(t *testing.T) {
	t.Parallel()
	rec := &capture.Record{Time: time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC), Remote: "127.0.0.1:40000", Method: "POST",
		Path: "/hook", Query: "businessType=CREATE_PURCHASE_ORDER_INVOICE&name=%E6%9D%8E%E5%A8%9C&supplierName=%E9%B8%BF%E8%BF%90%E4%BA%94%E9%87%91",
		Headers: http.Header{"Content-Type": {"application/json"}, "X-User-Name": {"王芳"}}}
	body := `{"businessType":4010,"data":{"x":"见 https://erp.example.cn/po?userName=%E8%B5%B5%E7%A3%8A&id=1"}}`
	rec.SetBody([]byte(body))
	rec.Headers.Set("Content-Length", strconv.Itoa(len(body)))
	in, err := capture.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAnonymizer(t, testKey)
	out, st := stream(t, a, in, Options{Check: true})
	if len(st.Leaks) != 0 {
		t.Errorf("leaks %+v", st.Leaks)
	}
	for _, orig := range []string{"%E6%9D%8E%E5%A8%9C", "%E9%B8%BF%E8%BF%90", "王芳", "%E8%B5%B5%E7%A3%8A"} {
		if bytes.Contains(out, []byte(orig)) {
			t.Errorf("%s is still in %s", orig, out)
		}
	}
	if want := url.QueryEscape(a.r.Replace(personName, "李娜")); !bytes.Contains(out, []byte("&name="+want+"&")) {
		t.Errorf("want name=%s (the person's stand-in) in %s", want, out)
	}
}
