package anonymize

import (
	"encoding/json"
	"strings"
	"testing"
)

// A bank account written after its label (开户行及账号, 收款账号, 账户) is
// replaced by other digits of its form, whatever the bank's name between;
// numbers after other words, and amounts and codes after the label, are
// kept byte for byte.
func TestAccountNumbersAfterTheirLabelAreReplaced(t *testing.T) {
	t.Parallel()
	// Each row: its name, the text, what must not be left of it ("": the
	// text is kept), and the form it becomes (see matchesForm).
	checkFreeText(t, []freeTextRow{
		{"an invoice's 开户行及账号", "开户行及账号：中国工商银行上海市分行 1001234509100123456", "1001234509100123456", "开户行及账号：中国工商银行上海市分行 9999999999999999999"},
		{"in groups", "收款账号 1001 2345 0910 0123 456，户名上海鼎盛", "1001 2345 0910 0123 456", "收款账号 9999 9999 9999 9999 999，户名上海鼎盛"},
		// Banks print an account in groups of four; its last group is
		// what is left, one or two digits too.
		{"in groups of four, two digits last", "收款账号 1202 0202 0900 0123 45，户名上海鼎盛", "1202 0202 0900 0123 45", "收款账号 9999 9999 9999 9999 99，户名上海鼎盛"},
		{"after the bank's name, one digit last", "开户行及账号：中国工商银行杭州分行 1202-0202-0900-0123-4", "1202-0202-0900-0123-4", "开户行及账号：中国工商银行杭州分行 9999-9999-9999-9999-9"},
		{"with hyphens", "账户:3100-1234-5678-901", "3100-1234-5678-901", "账户:9999-9999-9999-999"},
		{"full-width", "帐号为３１００１２３４５６７８９０１", "３１００１２３４５６７８９０１", "帐号为９９９９９９９９９９９９９９９"},
		{"a bank's name and a colon", "账号：招商银行深圳分行：755912345610801。", "755912345610801", "账号：招商银行深圳分行：999999999999999。"},
		{"a card after 卡号", "卡号 6222 0212 3456 7890 128", "6222 0212 3456 7890 128", "卡号 9999 9999 9999 9999 999"},
		{"in English", "Please remit to account 1001234509100123456.", "1001234509100123456", "Please remit to account 9999999999999999999."},
		{"Acct No. in groups", "Acct No. 3100 1234 5678 901, Bank of China", "3100 1234 5678 901", "Acct No. 9999 9999 9999 999, Bank of China"},
		{"A/C and a colon", "A/C: 310012345678901", "310012345678901", "A/C: 999999999999999"},
		{"ACCOUNT NUMBER", "ACCOUNT NUMBER 755912345610801", "755912345610801", "ACCOUNT NUMBER 999999999999999"},
		{"the bank in brackets after the label", "账号（工行）：1202020209900012345", "1202020209900012345", "账号（工行）：9999999999999999999"},
		{"the bank in ASCII brackets, a card", "卡号(建行) 6217001234567890123，户名见附件", "6217001234567890123", "卡号(建行) 9999999999999999999，户名见附件"},
		{"accountNo glued", "accountNo:755912345610801", "755912345610801", "accountNo:999999999999999"},
		// A bank's name (…银行, …分行, …支行, 工行, 信用社) is the label
		// an invoice's 开户行 line or a remark gives an account without
		// 账号: the digits right after it, a space, a colon or a comma
		// between.
		{"after 开户行 and the bank's name", "开户行：中国工商银行杭州分行 1202020209900012345", "1202020209900012345", "开户行：中国工商银行杭州分行 9999999999999999999"},
		{"glued to the bank's name", "中国工商银行杭州分行1202020209900012345", "1202020209900012345", "中国工商银行杭州分行9999999999999999999"},
		{"a comma after the bank's name", "开户银行：中国建设银行上海分行，31001234567890123456", "31001234567890123456", "开户银行：中国建设银行上海分行，99999999999999999999"},
		{"a bank's short name in groups", "工行 1202 0202 0990 0012 345", "1202 0202 0990 0012 345", "工行 9999 9999 9999 9999 999"},
		{"a credit union", "农村信用社：101001234567890", "101001234567890", "农村信用社：999999999999999"},
		// Where money is sent (汇款至, 转账至, 打款至, 付款至; remit
		// to) is a label too: no amount, date or code goes there.
		{"after 汇款至", "汇款至 1202020209900012345", "1202020209900012345", "汇款至 9999999999999999999"},
		{"after 打款至, glued", "请打款至1202020209900012345，谢谢", "1202020209900012345", "请打款至9999999999999999999，谢谢"},
		{"remit to", "Please remit to 1001234509100123456.", "1001234509100123456", "Please remit to 9999999999999999999."},
		{"after 转账至 and the bank's name", "转账至中国银行上海分行：4563 1234 5678", "4563 1234 5678", "转账至中国银行上海分行：9999 9999 9999"},
		// Two or more accounts after one label, a conjunction between
		// (或, 、, /, or): each is an account.
		{"a second account after 或", "账号 1202 0202 0990 0012 345 或 1202 0202 0990 0054 321", "1202 0202 0990 0054 321", "账号 9999 9999 9999 9999 999 或 9999 9999 9999 9999 999"},
		{"a second card after 或", "账号 6222 0212 3456 7890 128 或 6217 0012 3456 7890 123", "6217 0012 3456 7890 123", "账号 9999 9999 9999 9999 999 或 9999 9999 9999 9999 999"},
		{"a second account after 或者 and its bank", "开户行：工行 1202020209900012345，或者建设银行：31001234567890123456", "31001234567890123456", "开户行：工行 9999999999999999999，或者建设银行：99999999999999999999"},
		{"three after 、", "账户：1202020209900012345、3100123456789012、4563 1234 5678", "4563 1234 5678", "账户：9999999999999999999、9999999999999999、9999 9999 9999"},
		{"the middle of three after /", "账户 1202020209900012345/3100123456789012/4563 1234 5678", "3100123456789012", "账户 9999999999999999999/9999999999999999/9999 9999 9999"},
		{"in English, after or", "acct 1202020209900012345 or 1202020209900054321.", "1202020209900054321", "acct 9999999999999999999 or 9999999999999999999."},
		{"an amount or a date after 或 stays", "账号 1202020209900012345 或 150000000 元，账号 3100123456789012 或 1500000000.00，账号 4563 1234 5678 和 2026-03-18", "1202020209900012345", "账号 9999999999999999999 或 150000000 元，账号 9999999999999999 或 1500000000.00，账号 9999 9999 9999 和 2026-03-18"},
		{"a number after other words stays", "账号 1202020209900012345 订单或 1202020209900054321, acct 3100123456789012 order 1202020209900054321", "1202020209900012345", "账号 9999999999999999999 订单或 1202020209900054321, acct 9999999999999999 order 1202020209900054321"},
		// A card number with a wrong check digit (a typo in production
		// data is still someone's card) after a card's own label.
		{"after 银行卡, a wrong check digit", "银行卡：6217001234567890123", "6217001234567890123", "银行卡：9999999999999999999"},
		{"refunded to a card", "退款至银行卡6217001234567890123，谢谢", "6217001234567890123", "退款至银行卡9999999999999999999，谢谢"},
		{"after 信用卡 in groups", "信用卡 6217 0012 3456 7890 123", "6217 0012 3456 7890 123", "信用卡 9999 9999 9999 9999 999"},
		{"after 借记卡", "借记卡号为6217001234567890123", "6217001234567890123", "借记卡号为9999999999999999999"},
		{"after 银行卡号", "银行卡号6217001234567890123", "6217001234567890123", "银行卡号9999999999999999999"},
		{"Card No.", "Card No. 6217001234567890123", "6217001234567890123", "Card No. 9999999999999999999"},
		{"card number and a colon", "card number: 6217 0012 3456 7890 123", "6217 0012 3456 7890 123", "card number: 9999 9999 9999 9999 999"},
		{"credit card", "paid by credit card 6217001234567890123.", "6217001234567890123", "paid by credit card 9999999999999999999."},
		// What names nobody stays as it was.
		{"a card's number written bare, or after other words", "6217001234567890123，批次 6217001234567890123，postcard 6217001234567890123, cards 6217001234567890123, 卡 150000000 元", "", ""},
		{"an amount or a date where money is sent", "汇款至 2026-03-18 前，转账至 150000000 元，汇入 1500000000.00，本月汇入 150000000，转入 150000000", "", ""},
		{"an amount, a serial or a date after a bank's name", "中国银行 1500000000 元，中国银行1500000000.00，工商银行流水号 202603180001234，建设银行 2026-03-18，银行 12345678", "", ""},
		{"words that end in 行 but name no bank", "进行 1202020209900012345，执行1202020209900012345，发行 1202020209900012345股", "", ""},
		{"English words that start so", "accounts 1001234509100123456, Accountant 1001234509100123456, subaccount 1001234509100123456", "", ""},
		{"English words after the label", "account balance 1001234509100123456, account Nov 2026", "", ""},
		{"an amount after account", "account: 1234567890.50, account 1234567890.x, account 1234567890.-", "", ""},
		{"an amount after 账户", "账户余额 1234567890.50 元", "", ""},
		{"an amount in 元 after the label", "转入账户：150000000 元，账户:2000000000万", "", ""},
		{"a short number", "账号 12345678", "", ""},
		{"words in brackets, then an amount", "账户（余额）：150000000 元，账号（见附件）", "", ""},
		{"a code after it", "账号 100123450910A", "", ""},
		{"no label", "批次 1001234509100123456", "", ""},
		{"the label and words", "账户名称：鼎盛贸易部", "", ""},
		{"groups of two", "账号 10 01 23 45 09 10", "", ""},
		{"groups of three, then two", "账号 100 123 450 910 12", "", ""},
	}, matchesForm)
}

// A field named for an account (开户账号, bankAccount, account_no) labels
// its value: an account number there, a string or a JSON number, is
// replaced as one after its label in text is. A field whose name only
// starts with the label (账户余额, accountBalance) and what is no account
// number are kept byte for byte.
func TestAccountNumbersUnderTheirFieldsNameAreReplaced(t *testing.T) {
	t.Parallel()
	checkKeyedValues(t, []keyedValue{
		{"a Chinese name", "开户账号", `"1001234509100123456"`, "1001234509100123456", `"9999999999999999999"`},
		{"an English name", "bankAccount", `"3100 1234 5678 901"`, "3100 1234 5678 901", `"9999 9999 9999 999"`},
		{"snake case, a JSON number", "payee_account_no", `310012345678901234`, "310012345678901234", `999999999999999999`},
		{"a bank's name first", "收款账户", `"中国工商银行上海市分行 1001234509100123456"`, "1001234509100123456", `"中国工商银行上海市分行 9999999999999999999"`},
		{"a card under its name", "cardNo", `"4111 1111 1111 1111"`, "4111 1111 1111 1111", `"4111 1199 9999 9999"`},
		{"a card with a wrong check digit", "bankCard", `"6217001234567890123"`, "6217001234567890123", `"9999999999999999999"`},
		{"a card, a JSON number", "card", `6217001234567890123`, "6217001234567890123", `9999999999999999999`},
		{"a debit card", "debit_card", `"6217 0012 3456 7890 123"`, "6217 0012 3456 7890 123", `"9999 9999 9999 9999 999"`},
		{"a card's Chinese name", "银行卡", `"6217001234567890123"`, "6217001234567890123", `"9999999999999999999"`},
		{"a credit card's Chinese name", "信用卡", `"6217001234567890123"`, "6217001234567890123", `"9999999999999999999"`},
		// What names nobody stays as it was.
		{"an identity card", "idCard", `"11010119900307123"`, "", ""},
		{"a card's kind or count", "cardType", `"6217001234567890123"`, "", ""},
		{"a balance", "账户余额", `"1234567890"`, "", ""},
		{"a balance, a JSON number", "accountBalance", `1234567890`, "", ""},
		{"a name under it", "accountName", `"鼎盛贸易部"`, "", ""},
		{"an amount under it", "account", `"123456789.50"`, "", ""},
		{"a short number", "账号", `"12345678"`, "", ""},
		{"no such name", "batch", `"1001234509100123456"`, "", ""},
	})
}

// keyedValue is a member of a payload's data, named key, holding value
// (as JSON): gone is what must not survive of it ("": the value is kept
// byte for byte), want the form of what it became (see matchesForm).
type keyedValue struct {
	name, key, value string
	gone, want       string
}

// checkKeyedValues anonymizes a payload holding each value under its key
// and checks what it became, and that --check agrees.
func checkKeyedValues(t *testing.T, tests []keyedValue) {
	t.Helper()
	for _, tt := range tests {
		a := newTestAnonymizer(t, testKey)
		key, _ := json.Marshal(tt.key)
		body := []byte(`{"businessType":4010,"data":{"comments":"",` + string(key) + `:` + tt.value + `}}`)
		out, _, err := a.Payload(body)
		if err != nil {
			t.Fatal(err)
		}
		var got struct{ Data map[string]json.RawMessage }
		mustUnmarshal(t, out, &got)
		s := string(got.Data[tt.key])
		if tt.gone == "" {
			if s != tt.value {
				t.Errorf("%s: %s became %s", tt.name, tt.value, s)
			}
			continue
		}
		if strings.Contains(s, tt.gone) || !matchesForm(s, tt.want) {
			t.Errorf("%s: %s became %s, want the form %s", tt.name, tt.value, s, tt.want)
		}
		checkAgrees(t, a, tt.name, body, out)
	}
}

// A URL's parameter named for an account or an address labels its value
// wherever the URL is written: in a remark or a field the spec does not
// have, in its query or its fragment (#acct=…, a page's route #/ar?…),
// percent-encoded or not, and in a form-encoded text (a=1&account_no=…),
// as a parameter of the call's own query does. Other parameters, and what
// is no account under an account's name, are kept byte for byte.
func TestAccountsAndAddressesInURLParametersAreReplaced(t *testing.T) {
	t.Parallel()
	checkFreeText(t, []freeTextRow{
		{"a URL's query", "见 https://erp.example.cn/ar?bankAccount=1202020209000123456&x=1", "1202020209000123456", "见 https://erp.example.cn/ar?bankAccount=9999999999999999999&x=1"},
		{"a URL's fragment", "https://erp.example.cn/ar/view#acct=1202020209000123456", "1202020209000123456", "https://erp.example.cn/ar/view#acct=9999999999999999999"},
		{"after other parameters in a fragment", "https://erp.example.cn/ar/view?id=1#tab=2&payee_account_no=1202020209000123456", "1202020209000123456", "https://erp.example.cn/ar/view?id=1#tab=2&payee_account_no=9999999999999999999"},
		{"a page's route", "https://erp.example.cn/#/ar?bankAccount=1202020209000123456", "1202020209000123456", "https://erp.example.cn/#/ar?bankAccount=9999999999999999999"},
		{"a percent-encoded URL's fragment", "https://erp.example.cn/ar?q=%E6%94%B6%E6%AC%BE#acct=1202020209000123456", "1202020209000123456", "https://erp.example.cn/ar?q=%E6%94%B6%E6%AC%BE#acct=9999999999999999999"},
		{"in groups, encoded", "https://erp.example.cn/ar?acct=1202+0202+0900+0123+456", "1202+0202+0900+0123+456", "https://erp.example.cn/ar?acct=9999+9999+9999+9999+999"},
		{"form-encoded text", "amount=100.00&account_no=3100123456789012", "3100123456789012", "amount=100.00&account_no=9999999999999999"},
		{"an address cut short", "https://erp.example.cn/ship#deliveryAddr=浙江省杭州市西湖区文三", "西湖区文三", ""},
		// What names nobody stays as it was.
		{"other parameters", "https://erp.example.cn/ar?ref=1202020209000123456#page=1202020209000123456", "", ""},
		{"a balance or an amount", "https://erp.example.cn/ar?accountBalance=1234567890&account=123456789.50&ipaddr=10.0.0.1", "", ""},
	}, func(s, want string) bool { return want == "" || matchesForm(s, want) })
}
