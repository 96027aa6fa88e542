package anonymize

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// matchesName reports whether s has the form want, in which 某 stands for
// any character of CJK and 9 for any digit (a name's stand-in is three
// characters, whatever the length of the name it replaced).
func matchesName(s, want string) bool {
	rs, ws := []rune(s), []rune(want)
	if len(rs) != len(ws) {
		return false
	}
	for i, w := range ws {
		switch r := rs[i]; {
		case w == '某' && isHan(r), w == '9' && r >= '0' && r <= '9', w == r:
		default:
			return false
		}
	}
	return true
}

// A person's name written after the word of their role (联系人张伟,
// 经办人：李娜) in a field the spec does not have is replaced by a
// person's stand-in; a surname with a title, and words after a role, are
// kept byte for byte.
func TestChineseNamesAfterTheirRoleAreReplaced(t *testing.T) {
	t.Parallel()
	checkFreeText(t, []freeTextRow{
		{"after 联系人", "联系人张伟 13812345678", "张伟", "联系人某某某 99999999999"},
		{"after 经办人 and a colon", "经办人：李娜；请尽快", "李娜", "经办人：某某某；请尽快"},
		{"three characters, a word after", "收货人 王建国电话021-62345678", "王建国", "收货人 某某某电话021-99999999"},
		{"two of them", "制单人:刘磊、陈静", "陈静", "制单人:某某某、某某某"},
		{"a compound surname", "法定代表人欧阳娜娜", "欧阳娜娜", "法定代表人某某某"},
		{"a name and what was done", "联系人张伟签字确认", "张伟", "联系人某某某签字确认"},
		{"a name in a sentence", "请联系业务员陈静，谢谢", "陈静", "请联系业务员某某某，谢谢"},
		// A bank account's holder, written beside the account as
		// 开户行, 账号 and 户名 go together.
		{"after 户名", "汇款至 6222021202012345678 户名 陈晓明", "陈晓明", "汇款至 9999999999999999999 户名 某某某"},
		{"after 户名 and a colon", "户名：陈晓明 开户行：招商银行", "陈晓明", "户名：某某某 开户行：招商银行"},
		{"after 账户名称", "账户名称：李雷；开户行：工行", "李雷", "账户名称：某某某；开户行：工行"},
		{"after 持卡人", "持卡人王芳", "王芳", "持卡人某某某"},
		{"after 开户人", "开户人 赵敏", "赵敏", "开户人 某某某"},
		// A role and its phone under one label, a contact's details, a
		// VAT invoice's 复核, and in English.
		{"a role and its phone", "联系人/电话：张伟/13812345678", "张伟", "联系人/电话：某某某/99999999999"},
		{"a role and its phone, 及", "联系人及电话：张伟 13812345678", "张伟", "联系人及电话：某某某 99999999999"},
		{"a role and its phone in brackets", "联系人(电话)：张伟(13812345678)", "张伟", "联系人(电话)：某某某(99999999999)"},
		{"a contact's details", "联系方式：张伟 13812345678", "张伟", "联系方式：某某某 99999999999"},
		{"a VAT invoice's 复核", "开票人:王芳 复核:李娜", "李娜", "开票人:某某某 复核:某某某"},
		{"in English", "Contact: 张伟, Attn 李娜", "张伟", "Contact: 某某某, Attn 某某某"},
		// A role without 人 or 员 is a label before a colon: 经办：李娜,
		// 审核：王芳，制单：刘磊.
		{"经办 and a colon", "经办：李娜", "李娜", "经办：某某某"},
		{"审核 and 制单", "审核：王芳，制单:刘磊", "王芳", "审核：某某某，制单:某某某"},
		{"仓管 and a space", "仓管： 陈静 已核对", "陈静", "仓管： 某某某 已核对"},
		// What names nobody stays as it was.
		{"a role without 人 and no colon, or a word after its colon", "经办李娜，审核通过，审核：已通过，发货：周一，收货：高兴，负责：马上处理", "", ""},
		{"English words", "Contacts 张伟 contacted 李娜, Attnx 王芳", "", ""},
		{"a surname and a title", "联系人：王经理，负责人张先生，审核人：李总，对接人刘工", "", ""},
		{"words after a role", "联系人马上到，负责人于3月离职，联系人电话，审核人：系统管理员，制单人：未知，联系人：admin，姓名：", "", ""},
		{"a role alone", "请填写联系人、收货人和经办人", "", ""},
		{"a company after a role", "付款人：金蝶软件，收款人：华夏银行，申请人张江高科技园区管委会", "", ""},
	}, matchesName)
}

// A name in free text that the run replaced in a field of its own
// (staffName) is the same stand-in there, after its role too, and the
// role's name is read to its known end (刘磊明天 is 刘磊, then 明天).
func TestAChineseNameAfterItsRoleIsItsFieldsStandIn(t *testing.T) {
	t.Parallel()
	a := newTestAnonymizer(t, testKey)
	body := []byte(`{"businessType":4010,"data":{"staffName":"刘磊","x":"联系人刘磊明天到"}}`)
	out, _, err := a.Payload(body)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Data map[string]string }
	mustUnmarshal(t, out, &got)
	if want := "联系人" + got.Data["staffName"] + "明天到"; got.Data["x"] != want {
		t.Errorf("x became %q, want %q", got.Data["x"], want)
	}
	checkAgrees(t, a, "the staff's name", body, out)
}

// A field, parameter or header named for a person (联系人, 收货人姓名,
// contactName, linkman) labels its value: a name there is replaced.
func TestChineseNamesUnderTheirFieldsNameAreReplaced(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, key, value string
		gone             string // "": the value is kept
		want             string // the form (see matchesName)
	}{
		{"a role", "联系人", "张伟", "张伟", "某某某"},
		{"a role and 姓名", "收货人姓名", "王建国", "王建国", "某某某"},
		{"camel case", "contactName", "李娜", "李娜", "某某某"},
		{"linkman", "linkman", "陈静 13812345678", "陈静", "某某某 99999999999"},
		{"two names", "对接人", "刘磊/陈静", "陈静", "某某某/某某某"},
		{"an account's holder", "户名", "陈晓明", "陈晓明", "某某某"},
		{"an account's holder in English", "accountHolder", "陈晓明", "陈晓明", "某某某"},
		{"a card's holder", "card_holder_name", "王芳", "王芳", "某某某"},
		// What names nobody stays as it was.
		{"a title", "联系人", "王经理", "", ""},
		{"a department", "经办人", "财务部", "", ""},
		{"no such name", "contactPhoneType", "张伟", "", ""},
	}
	for _, tt := range tests {
		a := newTestAnonymizer(t, testKey)
		key, _ := json.Marshal(tt.key)
		val, _ := json.Marshal(tt.value)
		body := []byte(`{"businessType":4010,"data":{"comments":"",` + string(key) + `:` + string(val) + `}}`)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Data map[string]string }
		mustUnmarshal(t, out, &got)
		s := got.Data[tt.key]
		if tt.gone == "" {
			if s != tt.value {
				t.Errorf("%s: %q became %q", tt.name, tt.value, s)
			}
			continue
		}
		if strings.Contains(s, tt.gone) || !matchesName(s, tt.want) {
			t.Errorf("%s: %q became %q, want the form %q", tt.name, tt.value, s, tt.want)
		}
		checkAgrees(t, a, tt.name, body, out)
	}
}

// A query parameter named for a person is read decoded, as one named for
// an account or an address is: a name there is percent-encoded.
func TestAChineseNameInAQueryParameterNamedForItIsReplaced(t *testing.T) {
	t.Parallel()
	checkFreeText(t, []freeTextRow{
		{"percent-encoded", "见 https://erp.example.cn/ar?contactName=%E9%99%88%E9%9D%99&x=1", "%E9%99%88%E9%9D%99", "见 https://erp.example.cn/ar?contactName=%E"},
		{"a form", "x=1&linkman=%E9%99%88%E9%9D%99", "%E9%99%88%E9%9D%99", "x=1&linkman=%E"},
	}, strings.HasPrefix)
}

// A name with no role before it is found only where a remark or a name
// field writes one, and there only a surname and a given name of the
// characters given names are made of: a word that starts with a surname's
// character (谢谢, 金额, 单价, 方便, 高兴, 黄金, 包邮; an item's name under
// name: 毛巾, 白糖, 马桶) is no person. Taken for one, it became a
// person's stand-in, and then was replaced wherever it stood in the file:
// in other texts, and as a key (金额 renamed to a person).
func TestWordsThatStartWithASurnameAreNoName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ key, value string }{
		{"memo", "谢谢"}, {"memo", "好的，谢谢"}, {"memo", "收到，谢谢！"}, {"memo", "高兴"},
		{"memo", "明天发，程序已更新"}, {"memo", "金额已确认"}, {"memo", "单价已确认"}, {"memo", "方便的话周一送"},
		{"memo", "黄金已到"}, {"memo", "包邮"}, {"memo", "周一，上午送"}, {"memo", "余额已确认"}, {"memo", "费用已确认"},
		{"memo", "项目已确认"}, {"备注", "辛苦，谢谢"}, {"remark", "麻烦，尽快"}, {"remark", "符合要求"}, {"note", "付清，谢谢"},
		{"remark", "全新，高清"}, {"remark", "宁波仓，华东区"}, {"remark", "白天送"},
		{"msg", "成功"}, {"content", "谢谢"}, {"reason", "金额有误"}, {"description", "黄金手链，包邮"}, {"name", "马力"},
		{"name", "毛巾"}, {"name", "白糖"}, {"name", "马桶"}, {"name", "龙头"}, {"name", "钱包"}, {"name", "黄金"}, {"name", "包装"}, {"name", "石英"},
	} {
		key, _ := json.Marshal(tt.key)
		val, _ := json.Marshal(tt.value)
		body := []byte(`{"businessType":4010,"data":{"comments":"",` + string(key) + `:` + string(val) + `,"金额":1,"x":"谢谢，金额、单价见附件"}}`)
		a := newTestAnonymizer(t, testKey)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != string(body) {
			t.Errorf("%s %q: %s became %s", tt.key, tt.value, body, out)
		}
	}
	// Names are still found there.
	for _, tt := range []struct{ key, value, want string }{
		{"memo", "张伟已确认", "某某某已确认"}, {"memo", "王芳", "某某某"}, {"备注", "货已到，李娜签收", "货已到，某某某签收"},
		{"remark", "陈静负责", "某某某负责"}, {"note", "欧阳娜娜", "某某某"}, {"memo", "刘洋经手", "某某某经手"},
		{"name", "李娜", "某某某"}, {"name", "王建国", "某某某"}, {"userName", "周杰", "某某某"}, {"name", "李雷", "某某某"},
		// Other free-text fields write names as a remark does.
		{"description", "张伟已确认", "某某某已确认"}, {"审批意见", "同意，孙丽经手", "同意，某某某经手"}, {"msg", "王芳已确认", "某某某已确认"},
		{"reason", "货损，赵敏签收", "货损，某某某签收"}, {"内容", "陈静负责", "某某某负责"},
	} {
		a := newTestAnonymizer(t, testKey)
		key, _ := json.Marshal(tt.key)
		val, _ := json.Marshal(tt.value)
		body := []byte(`{"businessType":4010,"data":{"comments":"",` + string(key) + `:` + string(val) + `}}`)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Data map[string]string }
		mustUnmarshal(t, out, &got)
		if s := got.Data[tt.key]; !matchesName(s, tt.want) {
			t.Errorf("%s %q became %q, want the form %q", tt.key, tt.value, s, tt.want)
		}
	}
}

// colonRoleAt reads a role's two characters and the colon after them:
// every role of colonRoles is two characters long.
func TestColonRolesAreTwoCharacters(t *testing.T) {
	t.Parallel()
	for _, l := range colonRoles {
		if len(l) != 6 || utf8.RuneCountInString(l) != 2 {
			t.Errorf("%q is not two characters", l)
		}
		if n := colonRoleAt(l+"：李娜", 0); n != len(l)+len("：") {
			t.Errorf("%q：: colonRoleAt %d", l, n)
		}
	}
}
