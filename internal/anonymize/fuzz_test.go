package anonymize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/whsim/whsim/internal/capture"
	"github.com/whsim/whsim/internal/input"
)

func FuzzPayload(f *testing.F) {
	// Small seeds, as FuzzStream's (why there): seeded with the whole
	// fixtures, it ran 17 execs in 20 s, minimizing. TestPayload* and
	// the leak corpus take the fixtures.
	f.Add([]byte(`{"businessType":4010,"data":{"taxCode":"91310115MA1FL3XK9D","customerName":"上海某某有限公司","staffName":"王伟"}}`))
	f.Add([]byte(`{"data":{"收款单":{"客户名称":{"code":"02010001","name":"上海"}},"收款明细":[{"编号":"1"}]}}`))
	f.Add([]byte(`[{"data":{"taxCode":"0","staffName":"王"}},{"data":{"code":"SKD1"}}]`))
	f.Add([]byte(`{"data":{"收款单":{"客户名称":{"code":"02010001","name":"\u4e0a\u6d77"}}}}`))
	f.Add([]byte("{\"data\":{\"comments\":\"\xff\"}}"))
	f.Add([]byte(`{"data":{"taxCode":"91310115MA1FL3XK9D","x":"９１３１０１１５ＭＡ１ＦＬ３ＸＫ９Ｄ 138 1234-5678 9131 0115 MA1F L3XK 9D"}}`))
	// Encoded spellings: base64 of text and of a document, character
	// references, JSON escapes in text, percent-encoding twice.
	f.Add([]byte(`{"data":{"staffName":"王建国","a":"546L5bu65Zu9","b":"eyJzdGFmZk5hbWUiOiLnjovlu7rlm70ifQ==","c":"&#29579;&#x5efa;\\u56fd","d":"%25E7%258E%258B"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		// A fresh anonymizer each time: a shared one learns every input
		// and each run depends on those before it.
		a, err := New(testKey)
		if err != nil {
			t.Fatal(err)
		}
		out, repl, err := a.Payload(body)
		if err != nil {
			var se *syntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Column < 1 {
				t.Fatalf("error %v: want a SyntaxError with a position", err)
			}
			return
		}
		for _, x := range repl {
			if x.New == x.Old {
				t.Errorf("%s: %q kept", x.Path, x.Old)
			}
			if len(x.Old) >= minEcho && strings.Contains(x.New, x.Old) {
				t.Errorf("%s: stand-in %q holds the original %q", x.Path, x.New, x.Old)
			}
		}
		if json.Valid(body) && !json.Valid(out) {
			t.Fatalf("valid JSON in, invalid out: %q", out)
		}
		if len(repl) == 0 && !bytes.Equal(out, body) {
			t.Fatal("nothing replaced but the bytes changed")
		}
	})
}

func FuzzStream(f *testing.F) {
	// Small seeds, one of each kind of input: the fuzzer minimizes every
	// input it finds new coverage with, for up to a minute, trying to cut
	// each span of it (quadratic in its length), and what it finds is the
	// size of the seed it came from. Seeded with whole fixtures (2 KiB),
	// FuzzStream spent each -fuzztime minimizing its first find, at 0
	// execs/s. The fixtures themselves are FuzzPayload's seeds and
	// TestStream*'s inputs.
	f.Add([]byte(`{"capture":1,"query":"token=x","headers":{"Authorization":["Bearer t"]},"body":"{\"data\":{\"taxCode\":\"91310115MA1FL3XK9D\"}}"}` + "\n"))
	f.Add([]byte(`{"data":{"staffName":"王伟","comments":"138 1234 5678"}}` + "\n"))
	f.Add([]byte(`[{"data":{"code":"SKD1"}}]`))
	f.Add([]byte("{\"data\":{}}\n\n{\"data\":{\"staffName\":\"王伟\"}}\r\n"))
	f.Add([]byte(`{"capture":1,"headers":{"Content-Md5":["x"]},"body":"{\"data\":{\"staffName\":\"王伟\"}}","response":{"status":200,"headers":{"Content-Length":["9"]},"body":"546L5LyfCg==","bodyEncoding":"base64"}}` + "\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		// A fresh anonymizer each time: one shared by every input learnt
		// them all, so each run re-sorted a dictionary that only grew
		// (settle) and depended on the inputs before it. The fuzzer then
		// spent its minutes minimizing inputs it could not make behave
		// the same twice, at 0 execs/s.
		a, err := New(testKey)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		_, err = a.Stream(context.Background(), bytes.NewReader(in), &out, Options{Check: true})
		if err == nil {
			readsBack(t, out.Bytes())
			return
		}
		// Where: a record's place (InputError), or the place of an input
		// that is no JSON at all, said as every command says it
		// (input.FormatError; docs/concepts.md's table of inputs).
		var ie *InputError
		var fe *input.FormatError
		if !(errors.As(err, &ie) && ie.Line >= 1) && !(errors.As(err, &fe) && fe.Line >= 1) {
			t.Fatalf("error %v: want an InputError with a line, or a FormatError placed", err)
		}
	})
}

// FuzzFreeTextShapes puts any text in a field the spec does not have: what
// comes out is JSON, and --check finds no bank card, landline or mobile
// number, bank account, street address nor name in pinyin left in it that
// is not a stand-in the run wrote.
func FuzzFreeTextShapes(f *testing.F) {
	f.Add("卡号6222 0212 3456 7890 128，户名张三")
	f.Add("６２２２０２１２３４５６７８９０１２８ 6217-0012-3456-7893")
	f.Add("62170012-3456-7893-1234-567890123456 1784563214567891233 1742198400000")
	f.Add("tel 138 1234 5678 4111111111111111x")
	f.Add("电话（０２１）６２３４５６７８ 0571-8888666-12 400-810-8888 (010) 62345678")
	f.Add("送至上海市浦东新区张江路口，住翠苑小区5幢2单元301室 金色家园12号楼 华东区域销售路线 共3栋楼 小区3栋")
	f.Add("联系人 Zhang Wei, ZHANG Wei / Wei ZHANG <zw@x.cn> Hong Kong Long Range Li Na2 Wang Xiaoming.")
	f.Add("+86 21 6234 5678 (+86) 10-62345678 0086 571 8888 6666 +86 (0)755 2666 8888 ＋８６　２１　６２３４５６７８")
	f.Add("开户行及账号：中国工商银行上海市分行 1001 2345 0910 0123 456 账户余额 1234567890.50")
	f.Add("收货地址：浙江省杭州市西湖区文三路478号华星时代广场A座1201室，送至长宁区延安西路200弄12号和南锣鼓巷胡同３号院")
	f.Add("联系人张伟、李娜 经办人：欧阳娜娜签字 制单人:刘磊/陈静 联系人王经理 付款人：金蝶软件有限公司 联系人马上到")
	f.Add("账号 1202 0202 0990 0012 345 或 6217 0012 3456 7890 123、3100123456789012 / 4563 1234 5678 or 1001234509100123456")
	f.Add("QQ: 123456789 微信号 wxid_abc123def456 vx: zhangwei_88 WeChat ID: Li-Na1990 qq.com 扣扣2345678")
	f.Add("购买方名称：杭州恒远机械设备有限公司，发票开给和顺致远贸易有限公司 收到鸿运五金商行 本公司 <name>李娜</name><remark>陈静负责</remark>")
	f.Add("电话02162345678 传真：６２３４５６７８ Tel No. 057188886666-8001 税号310104710932064 Tax ID: 440300123456789 hotel 62345678")
	f.Add("发票号码：04400190011112345678 发票代码 044001900111 invoice no. 12345678 单据编号:SKD202612070001 订单号 PO-2026-000123 PO#4500012345 合同号：ＨＴ２０２６００１２ 单号 2026-03-18 reorder no. 1234")
	f.Fuzz(func(t *testing.T, text string) {
		a, err := New(testKey)
		if err != nil {
			t.Fatal(err)
		}
		x, _ := json.Marshal(text)
		out, _, err := a.Payload([]byte(`{"businessType":4010,"data":{"x":` + string(x) + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out) {
			t.Fatalf("valid JSON in, invalid out: %q", out)
		}
		for _, l := range a.check(context.Background(), out, 1) {
			if l.Kind == string(bankCard) || l.Kind == string(landline) || l.Kind == string(mobile) || l.Kind == string(streetAddress) || l.Kind == string(bankAccount) || l.Kind == string(pinyinName) || l.Kind == string(personName) || l.Kind == string(chatID) || l.Kind == string(companyName) || l.Kind == string(code) {
				t.Errorf("--check finds %s %s in %s (from %q)", l.Kind, l.Text, out, text)
			}
		}
	})
}

// FuzzRedigest makes any digest header's value again of a body: it never
// panics, and a value it makes again reads again as one (made of the same
// body, the same), so that a record anonymized twice keeps its digests.
func FuzzRedigest(f *testing.F) {
	f.Add("sha-256=:AAAA:, sha-512=:BBBB:", true)
	f.Add("SHA-256=abc,MD5=def", false)
	f.Add("unixsum=:1:", true)
	f.Add("sha=:,:", true)
	f.Add(" , =", false)
	f.Fuzz(func(t *testing.T, v string, sfv bool) {
		body := []byte(`{"a":1}`)
		once, ok := remakeDigests(v, body, sfv)
		if !ok {
			return
		}
		twice, ok := remakeDigests(once, body, sfv)
		if !ok || twice != once {
			t.Fatalf("%q made again is %q, which made again is %q (%v)", v, once, twice, ok)
		}
	})
}

// readsBack fails t unless out, a Stream's output, reads back as it was
// written: capture records (when it holds any) whose every body decodes
// as its bodyEncoding says.
func readsBack(t *testing.T, out []byte) {
	t.Helper()
	if !bytes.HasPrefix(out, []byte(`{"capture":`)) {
		return
	}
	rd := capture.NewReader(bytes.NewReader(out))
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("the output is no capture: %v\n%s", err, out)
		}
		if _, err := rec.RequestBody(); err != nil {
			t.Fatalf("a request body does not decode: %v\n%s", err, out)
		}
		if r := rec.Response; r != nil {
			if _, err := capture.DecodeBody(r.Body, r.BodyEncoding); err != nil {
				t.Fatalf("a response body does not decode: %v\n%s", err, out)
			}
		}
		if f := rec.Forward; f != nil && f.Body != "" {
			if _, err := capture.DecodeBody(f.Body, f.BodyEncoding); err != nil {
				t.Fatalf("a forward body does not decode: %v\n%s", err, out)
			}
		}
	}
}
