package anonymize

import (
	"context"
	"strings"
	"testing"
)

// A QQ number or a WeChat id after its label, or a wxid_ anywhere, is
// replaced by another of its form; what no label marks, a word after a
// label, an email's local part and a mobile (the mobile's own stand-in)
// are not taken for one.
func TestQQNumbersAndWeChatIDsAreReplaced(t *testing.T) {
	t.Parallel()
	checkFreeText(t, []freeTextRow{
		{"QQ and a colon", "QQ: 123456789 有事找我", "123456789", "QQ: 999999999 有事找我"},
		{"QQ号 glued", "联系QQ号987654321", "987654321", "联系QQ号999999999"},
		{"lower case qq, full-width colon", "qq：10001234", "10001234", "qq：99999999"},
		{"扣扣", "扣扣 2345678901", "2345678901", "扣扣 9999999999"},
		{"a wxid after 微信号", "微信号 wxid_abc123def456", "wxid_abc123def456", "微信号 wxid_aaa999aaa999"},
		{"a wxid alone", "加我wxid_k2j3h4g5f6 谢谢", "wxid_k2j3h4g5f6", "加我wxid_a9a9a9a9a9 谢谢"},
		{"vx and an id", "vx: zhangwei_88", "zhangwei_88", "vx: aaaaaaaa_99"},
		{"WeChat ID", "WeChat ID: Li-Na1990", "Li-Na1990", "WeChat ID: Aa-Aa9999"},
		{"微信 a QQ number", "微信 12345678", "12345678", "微信 99999999"},
		{"微信号 letters alone", "微信号：zhangwei", "zhangwei", "微信号：aaaaaaaa"},
		// A label in any case: people type weChat, wEchat, qQ, Vx.
		{"weChat", "weChat: zhangwei_88", "zhangwei_88", "weChat: aaaaaaaa_99"},
		{"wEchat id", "wEchat id：Li-Na1990", "Li-Na1990", "wEchat id：Aa-Aa9999"},
		{"qQ", "qQ 123456789", "123456789", "qQ 999999999"},
		{"WeiXin号", "WeiXin号 li_lei88", "li_lei88", "WeiXin号 aa_aaa99"},
		{"weChatId glued", "weChatId:zhang_wei88", "zhang_wei88", "weChatId:aaaaa_aaa99"},
		{"wX", "wX:zhang_wei88", "zhang_wei88", "wX:aaaaa_aaa99"},
		{"WECHAT No.", "WECHAT no. zhangwei", "zhangwei", "WECHAT no. aaaaaaaa"},
		// What is no such id stays.
		{"kept: a word after the label, any case", "weChat Pay 支付 WEChat payment wEchat-2000 qQ群", "", ""},
		{"kept: no label", "订单 123456789 已发货 zhangwei_88", "", ""},
		{"kept: a word after the label", "微信支付 WeChat Pay wechat payment vx-2000 QQ群", "", ""},
		{"kept: inside a word", "vxlan 12345678 wxidx qqmusic 88888888", "", ""},
		{"kept: a host", "见 qq.com 或 weixin.qq.com 官网", "", ""},
	}, matchesID)
}

// matchesID reports whether s has the form want, in which 9 stands for any
// digit and a for any lower-case letter, A for any capital.
func matchesID(s, want string) bool {
	if len(s) != len(want) {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch w, c := want[i], s[i]; {
		case w == '9' && isDigit(c), w == 'a' && c >= 'a' && c <= 'z', w == 'A' && c >= 'A' && c <= 'Z', w == c:
		default:
			return false
		}
	}
	return true
}

// A mobile after a WeChat label is the mobile's (one stand-in wherever it
// stands), and a field, query parameter or header named for a QQ number or
// a WeChat id labels its value, a JSON number too; the same id is the same
// stand-in in every place, and --check finds it in the original.
func TestQQAndWeChatFieldsAreReplaced(t *testing.T) {
	t.Parallel()
	body := `{"businessType":4010,"data":{"qq":"123456789","userQQ":234567890,"wechat_id":"zhang_wei88","微信号":"li-na-1990",` +
		`"note":"QQ 123456789 微信 zhang_wei88 vx 13812345678","url":"https://erp.example.cn/c?wxid=lina_77&qqNo=345678901","faqq":"123456789x","vx":"lina_1990","wx":"li_lei88"}}`
	a := newTestAnonymizer(t, testKey)
	out, _, err := a.Payload([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, orig := range []string{`"123456789"`, "QQ 123456789", "234567890", "zhang_wei88", "li-na-1990", "lina_77", "345678901", "13812345678", "lina_1990", "li_lei88"} {
		if strings.Contains(string(out), orig) {
			t.Errorf("%s is still in %s", orig, out)
		}
	}
	if !strings.Contains(string(out), `"faqq":"123456789x"`) || strings.Count(string(out), a.r.Replace(chatID, "123456789")) != 2 {
		t.Errorf("the QQ number is not one stand-in in both places: %s", out)
	}
	if got := a.r.Replace(mobile, "13812345678"); !strings.Contains(string(out), "vx "+got) {
		t.Errorf("a mobile after vx: want the mobile's stand-in %s in %s", got, out)
	}
	if leaks := a.check(context.Background(), out, 1); len(leaks) != 0 {
		t.Errorf("--check finds %v in the output %s", leaks, out)
	}
	if leaks := a.check(context.Background(), []byte(body), 1); len(leaks) == 0 {
		t.Errorf("--check finds nothing in the original")
	}
}
