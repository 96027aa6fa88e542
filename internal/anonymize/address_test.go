package anonymize

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/whsim/whsim/internal/capture"
)

// A street address in free text is replaced as a whole, from the region
// or the road's name to the room, the label before it and the text after
// it kept; text that merely has a 号 in it is kept byte for byte.
func TestStreetAddressesAreReplaced(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		gone       []string // what must not survive (nil: the text is kept)
		before     string   // what stays before it
		after      string   // and after it (its digits kept, or each written 9)
	}{
		{"full address with a room", "收货地址：浙江省杭州市西湖区文三路478号华星时代广场A座1201室，电话找前台",
			[]string{"浙江省", "杭州市", "西湖区", "文三路", "478号", "华星时代广场", "1201室"}, "收货地址：", "，电话找前台"},
		{"label glued to it", "送至上海市浦东新区张杨路88-1号3号楼502室", []string{"浦东新区", "张杨路", "88-1号", "502室"}, "送至", ""},
		{"a lane", "住址长宁区延安西路200弄12号", []string{"延安西路", "200弄12号", "长宁区"}, "住址", ""},
		{"a street and a door number only", "店在人民街15号。", []string{"人民街15号"}, "", "。"},
		{"full-width digits", "地址：北京市海淀区中关村大街２７号", []string{"中关村大街", "２７号"}, "地址：", ""},
		{"after a company's name (a company's stand-in)", "上海鼎盛贸易有限公司位于深圳市南山区科技园路9号", []string{"南山区", "科技园路9号", "鼎盛"}, "", ""},
		{"a hutong", "北京东城区南锣鼓巷胡同3号院", []string{"南锣鼓巷", "3号", "东城区"}, "", "号院"},
		{"two addresses", "文三路478号和延安西路200弄12号", []string{"文三路", "478号", "延安西路", "200弄12号"}, "", "号"},
		{"a place before it", "仓库在文三路478号，送货前电话", []string{"文三路478号"}, "仓库在", "，送货前电话"},
		{"where it goes before it", "送货至上海市浦东新区张江路88号", []string{"浦东新区", "张江路88号"}, "送货至", ""},
		{"where it goes before it, 往", "运往浙江省杭州市西湖区文三路478号", []string{"西湖区", "文三路478号"}, "运往", ""},
		{"where it goes before it, 到", "货物邮寄到上海市浦东新区张江路", []string{"浦东新区", "张江路"}, "货物邮寄到", ""},
		{"an amount after it", "文三路478号付款300元", []string{"文三路478号"}, "", "付款300元"},
		{"a customer after it", "文三路478号客户", []string{"文三路478号"}, "", "客户"},
		{"a staircase", "文三路478号3幢2单元501室", []string{"文三路478号", "501室"}, "", "单元999室"},
		// Without a door number: a road after its district, an estate's
		// building.
		{"a road after its district", "收货地址：上海市浦东新区张江路，谢谢", []string{"上海市", "浦东新区", "张江路"}, "收货地址：", "，谢谢"},
		{"a great street after its district", "位于北京市海淀区中关村大街", []string{"海淀区", "中关村大街"}, "位于", ""},
		{"a road after a county and a town", "地址松江区九亭镇涞寅路", []string{"松江区", "九亭镇", "涞寅路"}, "地址", ""},
		{"an estate's building", "地址：翠苑小区3栋", []string{"翠苑小区", "3栋"}, "地址：", ""},
		{"an estate's building and room", "地址：上海市浦东新区翠苑小区5幢2单元301室，电话", []string{"浦东新区", "翠苑小区", "301室"}, "地址：", "，电话"},
		{"a numbered building", "送至金色家园12号楼", []string{"金色家园12号楼"}, "送至", ""},
		// An address cut short: a road after its city (a province or a
		// city of the first rank before it), a door number without its 号,
		// and, after its label, anything that says a place below a region.
		{"a road after its city and province", "浙江省杭州市文三路", []string{"杭州市", "文三路"}, "", ""},
		{"a road after a city of the first rank", "送货到北京市中关村大街，谢谢", []string{"北京市", "中关村大街"}, "送货到", "，谢谢"},
		{"a door number without its 号", "上海市浦东新区张江路88，谢谢", []string{"浦东新区", "张江路88"}, "", "，谢谢"},
		{"a door number in parts without its 号", "江苏省苏州市工业园区星湖街328-2", []string{"工业园区", "星湖街328"}, "", ""},
		{"after its label, a road's name cut short", "地址：杭州市西湖区文三，电话找前台", []string{"西湖区文三"}, "地址：", "，电话找前台"},
		{"after its label, a park", "收货地址：广东省深圳市南山区科技园", []string{"南山区", "科技园"}, "收货地址：", ""},
		{"after its label, a door number without its 号", "住址：杭州市文三路478", []string{"杭州市", "文三路478"}, "住址：", ""},
		{"after its label, a road alone", "收货地址 文三路。", []string{"文三路"}, "收货地址 ", "。"},
		// 为 or 是 after a label is no part of the address, whichever
		// shape finds it: the stand-in, read again by --check, starts
		// where the original did.
		{"为 after its label, a door number", "公司地址为浙江省杭州市文三路478号，谢谢", []string{"杭州市", "文三路478号"}, "公司地址为", "，谢谢"},
		{"为 after its label, a region and digits", "公司地址为浙江省杭州市西湖区478，电话0571-88886666。", []string{"西湖区478"}, "公司地址为", "。"},
		{"是 after its label, a road cut short", "收货地址是杭州市五常街道路A0", []string{"五常街道路A0"}, "收货地址是", ""},
		{"为 after its label, an estate", "住址为翠苑小区3栋", []string{"翠苑小区3栋"}, "住址为", ""},
		// What names nobody stays as it was.
		{"a region after its label", "地址：浙江省杭州市西湖区，地址：余杭区五常街道", nil, "", ""},
		{"no place after its label", "地址：见附件，地址：同上，IP地址：192.168.1.1，在地址栏输入网址，地址：2026年3月18号更新", nil, "", ""},
		{"a 市 that is no city's", "超市旁边的小巷，上市后走老路，本市中山路，上海市场营销部金桥路，北京市民政局长安街，天津市政工程卫津路", nil, "", ""},
		{"a road and digits that are no door number", "浦东新区张江路8折，浦东新区张江路8元，浦东新区张江路3路车，浦东新区张江路8.5公里，浦东新区张江路123456", nil, "", ""},
		{"a district alone", "浦东新区的客户", nil, "", ""},
		{"a road with a district that is no place", "开发区路演，园区路线，工业区东路，华东区域销售路线，大区张经理路过", nil, "", ""},
		{"a road and the crossing", "上海市浦东新区张江路口", []string{"浦东新区", "张江路"}, "", "口"},
		{"a building with no estate", "共3栋楼，小区3栋，花园3栋", nil, "", ""},
		{"a document number", "批次SKD202603180001号已收", nil, "", ""},
		{"a number with no road", "第3号仓库，编号12号", nil, "", ""},
		{"a bus route", "坐3路12号站", nil, "", ""},
		{"a road with no door number", "沿人民路直行", nil, "", ""},
		{"a date", "2026年3月18号到货", nil, "", ""},
		{"parts of a machine", "更换线路3号和油路12号阀门，检查电路2号", nil, "", ""},
	}
	for _, tt := range tests {
		a := newTestAnonymizer(t, testKey)
		body, out, s := anonymizeFreeText(t, a, tt.text)
		if tt.gone == nil {
			if s != tt.text {
				t.Errorf("%s: %q became %q", tt.name, tt.text, s)
			}
			continue
		}
		for _, g := range tt.gone {
			if strings.Contains(s, g) {
				t.Errorf("%s: %q became %q, still holding %q", tt.name, tt.text, s, g)
			}
		}
		if !strings.HasPrefix(s, tt.before) || !strings.HasSuffix(s, tt.after) && !strings.HasSuffix(digitsTo9(s), tt.after) || !strings.ContainsAny(s, "路街巷弄同栋幢楼") {
			t.Errorf("%s: %q became %q, want %q before and %q after a stand-in address", tt.name, tt.text, s, tt.before, tt.after)
		}
		checkAgrees(t, a, tt.name, body, out)
	}
}

// What the free-text shapes find is found as well when a sender wrote it
// in JSON's \u escapes, and --check agrees.
func TestFreeTextShapesInJSONEscapes(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	var esc strings.Builder
	const text = "联系电话021-62345678，地址文三路478号，卡号６２２２０２１２３４５６７８９０１２８，账号：1001234509100123456"
	for _, r := range text {
		fmt.Fprintf(&esc, `\u%04x`, r)
	}
	body := []byte(`{"businessType":4010,"data":{"x":"` + esc.String() + `"}}`)
	out, _, err := a.Payload(body)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Data map[string]string }
	mustUnmarshal(t, out, &got)
	for _, gone := range []string{"62345678", "文三路478号", "６２２２０２１２３４５６７８９０１２８", "1001234509100123456"} {
		if strings.Contains(got.Data["x"], gone) {
			t.Errorf("%q survived: %s", gone, got.Data["x"])
		}
	}
	if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
		t.Errorf("--check finds %v in the output %s", leaks, out)
	}
	if leaks := a.check(context.Background(), body, 1); len(leaks) < 4 {
		t.Errorf("--check finds %v in the original, want the four", leaks)
	}
}

// digitsTo9 writes every ASCII digit of s as 9.
func digitsTo9(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '9'
		}
		return r
	}, s)
}

// Short addresses (a road and a one-digit door number) are many in a
// capture of a city's shops: each gets a stand-in of its own that is still
// an address of its kind of road, read back as one whole (so --check
// takes it for the stand-in it is), long after a hundred of them.
func TestShortAddressesDoNotRunOutOfStandIns(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	chars := []rune("文延淮南北中天教学莫东凤庆解体环秋古湖宝")
	seen := map[string]string{}
	for _, c1 := range chars {
		for _, c2 := range chars {
			for _, road := range []string{"路", "街"} {
				for door := 1; door <= 9; door += 4 {
					v := fmt.Sprintf("%c%c%s%d号", c1, c2, road, door)
					st := a.r.Replace(streetAddress, v)
					if start, end := addressAt(st, len(st)-len("号"), 0); start != 0 || end != len(st) || !strings.Contains(st, road) {
						t.Fatalf("%s became %q, not an address on a %s (after %d others)", v, st, road, len(seen))
					}
					if o, ok := seen[st]; ok {
						t.Fatalf("%s and %s share the stand-in %q", o, v, st)
					}
					seen[st] = v
				}
			}
		}
	}
}

// A field named for an address (收货地址, deliveryAddress, addr) labels the
// whole of its value: an address there, cut short or written with spaces,
// is replaced as a whole. A region alone, a value with no Chinese
// character (an IP or email address) and what names no place are kept
// byte for byte.
func TestAddressesUnderTheirFieldsNameAreReplaced(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key, value string
		gone             []string // what must not survive (nil: the value is kept)
	}{
		{"a road after its city", "收货地址", "杭州市文三路", []string{"杭州市", "文三路"}},
		{"written with spaces", "deliveryAddress", "浙江省 杭州市 西湖区 文三 478", []string{"杭州市", "西湖区", "文三", "478"}},
		{"a whole address", "addr", "浙江省杭州市西湖区文三路478号华星时代广场A座1201室", []string{"杭州市", "文三路", "华星时代广场", "1201"}},
		{"a park after its district", "注册地址", "深圳市南山区科技园", []string{"南山区", "科技园"}},
		// What names nobody stays as it was.
		{"a region alone", "收货地址", "浙江省杭州市西湖区", nil},
		{"an IP address", "ipAddress", "58.246.1.9", nil},
		{"an email address", "emailAddress", "ops@example.com", nil},
		{"no place", "地址", "见附件", nil},
		{"no such name", "addressee", "杭州市西湖区文三", nil},
	}
	for _, tt := range tests {
		a := newTestAnonymizer(t, testKey)
		key, _ := json.Marshal(tt.key)
		value, _ := json.Marshal(tt.value)
		body := []byte(`{"businessType":4010,"data":{"comments":"",` + string(key) + `:` + string(value) + `}}`)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Data map[string]string }
		mustUnmarshal(t, out, &got)
		s := got.Data[tt.key]
		if tt.gone == nil {
			if s != tt.value {
				t.Errorf("%s: %q became %q", tt.name, tt.value, s)
			}
			continue
		}
		for _, g := range tt.gone {
			if strings.Contains(s, g) {
				t.Errorf("%s: %q became %q, still holding %q", tt.name, tt.value, s, g)
			}
		}
		if !strings.Contains(s, "路") {
			t.Errorf("%s: %q became %q, no stand-in address", tt.name, tt.value, s)
		}
		checkAgrees(t, a, tt.name, body, out)
	}
}

// A query parameter named for an address or an account holds its value
// percent-encoded, as every non-ASCII or spaced value of a query is: it
// is labelled as the decoded value, replaced, and encoded again; --check
// agrees. Encoded, it used to be left as it was, and --check passed it.
func TestEncodedQueryValuesUnderTheirNamesAreReplaced(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, query, gone string }{
		{"an address cut short", "deliveryAddr=" + url.QueryEscape("杭州市文三路"), "文三"},
		{"an address, path-encoded", "收货地址=" + url.PathEscape("地址：杭州市西湖区文三"), "文三"},
		{"an account in groups", "account_no=" + url.QueryEscape("1001 2345 0910 0123 456"), "2345"},
	} {
		rec := &capture.Record{Time: time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC), Remote: "127.0.0.1:40000", Method: "POST",
			Path: "/h", Query: tt.query + "&businessType=CREATE_PURCHASE_ORDER_INVOICE",
			Headers: http.Header{"Content-Type": {"application/json"}}}
		rec.SetBody([]byte(`{"businessType":4010,"data":{"code":"CGFP202611010001"}}`))
		in, err := capture.Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		out, st := stream(t, newTestAnonymizer(t, testKey), in, Options{Check: true})
		if len(st.Leaks) != 0 {
			t.Errorf("%s: --check finds %+v in the output", tt.name, st.Leaks)
		}
		got, err := capture.Decode(bytes.TrimSpace(out))
		if err != nil {
			t.Fatal(err)
		}
		q, err := url.ParseQuery(got.Query)
		if err != nil {
			t.Fatalf("%s: the query %q no longer parses: %v", tt.name, got.Query, err)
		}
		name, _, _ := strings.Cut(tt.query, "=")
		if name, _ = url.QueryUnescape(name); len(q[name]) != 1 || strings.Contains(q[name][0], tt.gone) || q.Get("businessType") != "CREATE_PURCHASE_ORDER_INVOICE" {
			t.Errorf("%s: the query %q became %q, still holding %q", tt.name, tt.query, got.Query, tt.gone)
		}
		chk, err := newTestAnonymizer(t, testKey).stream(context.Background(), bytes.NewReader(in), io.Discard, Options{checkOnly: true})
		if err != nil || len(chk.Leaks) == 0 {
			t.Errorf("%s: a check of the original finds %+v (%v)", tt.name, chk.Leaks, err)
		}
	}
}

// An address is one datum wherever it stands: the whole value of a field
// named for an address (spaces, commas and brackets in it) and the same
// address after a label in a remark get one stand-in, whichever comes
// first. The label's search stops at a space or a comma; it took the part
// before it for an address of its own, gave it another stand-in and left
// the rest (华星时代广场A座1201室) in the clear, and --check passed it.
func TestAnAddressIsOneStandInWhereverItStands(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, value, gone string }{
		{"a space before the building", "浙江省杭州市西湖区文三路478号 华星时代广场A座1201室", "华星时代广场"},
		{"a comma before the building", "浙江省杭州市西湖区文三路478号，华星时代广场A座1201室", "华星时代广场"},
		{"the building in brackets", "上海市浦东新区张江路88号（金色家园3栋502室）", "金色家园"},
		{"cut short, then a space", "广东省深圳市南山区科技园 创新大厦B座", "创新大厦"},
	} {
		for _, fieldFirst := range []bool{true, false} {
			value, _ := json.Marshal(tt.value)
			remark, _ := json.Marshal("请核对收货地址：" + tt.value)
			members := []string{`"deliveryAddress":` + string(value), `"memo":` + string(remark)}
			if !fieldFirst {
				members[0], members[1] = members[1], members[0]
			}
			in := []byte(`{"businessType":4010,"data":{"comments":""}}` + "\n" +
				`{"businessType":4010,"data":{"comments":"",` + members[0] + `}}` + "\n" +
				`{"businessType":4010,"data":{"comments":"",` + members[1] + `}}` + "\n")
			out, st := stream(t, newTestAnonymizer(t, testKey), in, Options{Check: true})
			name := fmt.Sprintf("%s (field first %v)", tt.name, fieldFirst)
			if len(st.Leaks) != 0 {
				t.Errorf("%s: --check finds %+v in %s", name, st.Leaks, out)
			}
			var field, memo string
			for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
				var got struct{ Data map[string]string }
				mustUnmarshal(t, line, &got)
				field, memo = field+got.Data["deliveryAddress"], memo+got.Data["memo"]
			}
			if strings.Contains(field+memo, tt.gone) {
				t.Errorf("%s: %q is still in %q and %q", name, tt.gone, field, memo)
			}
			if memo != "请核对收货地址："+field {
				t.Errorf("%s: the field became %q, the remark %q: two stand-ins for one address", name, field, memo)
			}
		}
	}
}

// An address written with full-width digits or letters (文三路４７８号,
// Ａ座) is the same address as in ASCII: one stand-in, written back in
// full width where the original was. It got a stand-in of its own.
func TestAFullWidthAddressIsTheSameStandIn(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ ascii, wide string }{
		{"浙江省杭州市西湖区文三路478号", "浙江省杭州市西湖区文三路４７８号"},
		{"上海市浦东新区张江路88号华星时代广场A座1201室", "上海市浦东新区张江路８８号华星时代广场Ａ座１２０１室"},
		{"翠苑小区3栋201室", "翠苑小区３栋２０１室"},
		{"浙江省杭州市西湖区文三路478号 华星时代广场A座1201室", "浙江省杭州市西湖区文三路４７８号 华星时代广场Ａ座１２０１室"},
	} {
		for _, asciiFirst := range []bool{true, false} {
			a := newTestAnonymizer(t, testKey)
			f, _ := json.Marshal(tt.ascii)
			m, _ := json.Marshal("送至" + tt.wide)
			members := []string{`"收货地址":` + string(f), `"memo":` + string(m)}
			if !asciiFirst {
				members[0], members[1] = members[1], members[0]
			}
			in := []byte(`{"businessType":4010,"data":{"comments":"",` + members[0] + `,` + members[1] + `}}` + "\n")
			out, st := stream(t, a, in, Options{Check: true})
			if len(st.Leaks) != 0 {
				t.Errorf("%s: --check finds %+v in %s", tt.wide, st.Leaks, out)
			}
			var got struct{ Data map[string]string }
			mustUnmarshal(t, bytes.TrimSpace(out), &got)
			field, memo := got.Data["收货地址"], got.Data["memo"]
			var wide strings.Builder
			for _, r := range field {
				wide.WriteRune(fullWidth(r))
			}
			if field == tt.ascii || memo != "送至"+wide.String() {
				t.Errorf("%s: the field became %q, the full-width one %q: want %q", tt.wide, field, memo, "送至"+wide.String())
			}
		}
	}
}
