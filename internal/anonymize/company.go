package anonymize

import (
	"strings"
	"unicode/utf8"
)

// A company's name in free text (a remark, a note, a body that is not
// JSON: 开给杭州恒远机械设备有限公司, 购买方名称：上海鼎盛贸易有限公司,
// 卖方：博瑞信息科技（苏州）有限公司) names a customer as its field does,
// and has a form of its own: Chinese characters ending in its
// organisation's form (有限公司, 有限责任公司, 商行; domain notes §5). It is taken
// from the start of its run of characters (brackets too), after any
// label or verb that starts the run (购买方名称, 卖方, 开给, 致), and
// becomes a company's stand-in, the same as in a field of its own. 本公司,
// 贵公司, 分公司 and a form with fewer than two characters before it name
// no one and are kept.

// companyFormEnds end a company's name in text: the forms no ordinary
// phrase ends with (物流公司, 本集团 and 去商行 do: a form with a name of
// fewer than two characters before it is none).
var companyFormEnds = [...]string{"有限公司", "有限责任公司", "商行"}

// companyLeads start a run of characters before a company's name without
// being part of it: labels and verbs, the longer first where one ends
// another.
var companyLeads = [...]string{"购买方名称", "销售方名称", "购方名称", "销方名称", "公司名称", "单位名称", "客户名称", "供应商名称", "发票抬头",
	"购买方", "销售方", "付款单位", "收款单位", "开票单位", "付款方", "收款方", "供应商", "客户", "买方", "卖方", "购方", "销方",
	"名称", "抬头", "单位", "请联系", "联系", "开具给", "开给", "发给", "付给", "卖给", "寄给", "转给", "收到", "来自", "致", "给", "向", "与", "和", "由", "从", "为", "是", "对", "及", "请", "经"}

// companyNotNames start a run that ends in a company's form but names no
// company (本公司, 贵司's 贵公司, 分公司, 子公司).
const companyNotNames = "本贵我该此其分子总母各"

// companyNames returns s with each company's name in it replaced by its
// stand-in and the text between them searched by rest. In a check it
// returns s and records each one as a leak.
func (p *pass) companyNames(s string, rest func(string) string) string {
	if !strings.Contains(s, "公司") && !strings.Contains(s, "商行") {
		return rest(s)
	}
	w := &claimed{p: p, s: s, rest: rest}
	for i := 0; i < len(s); {
		at, form := len(s), ""
		for _, f := range companyFormEnds {
			if k := strings.Index(s[i:], f); k >= 0 && i+k < at {
				at, form = i+k, f
			}
		}
		p.tick(at - i)
		if form == "" {
			break
		}
		end := at + len(form)
		raw, start := companyStart(s, at, w.done)
		i = end
		// A name the run knows (a stand-in it wrote: 和顺…, 致远…) is
		// taken whole, though it starts with a verb's character.
		for pos := raw; pos < at; {
			if e := p.a.r.dict.m[s[pos:end]]; e != nil && (e.stand || e.orig && e.class == companyName) {
				start = pos
				break
			}
			_, n := utf8.DecodeRuneInString(s[pos:])
			pos += n
		}
		if start < 0 {
			continue
		}
		w.claim(start, end, companyName, s[start:end], false)
	}
	return w.text()
}

// companyStart returns where the run of characters (and brackets)
// before the company's form at s[at] starts (at most 30, never before
// floor), and where the company's name in it starts, after the labels and
// verbs that start the run (-1 when it names none).
func companyStart(s string, at, floor int) (raw, start int) {
	start = at
	for n := 0; start > floor && n < 30; n++ {
		r, size := utf8.DecodeLastRuneInString(s[:start])
		if !isHan(r) && !strings.ContainsRune("（）()", r) {
			break
		}
		start -= size
	}
	raw = start
	// A label or verb of two characters or more ends what is before the
	// name wherever it stands in the run (发票开给…); one of a single
	// character only at its start (和 and 为 stand inside names: 泰和).
	for _, l := range companyLeads {
		if utf8.RuneCountInString(l) < 2 {
			continue
		}
		if k := strings.LastIndex(s[start:at], l); k >= 0 && start+k+len(l) < at {
			start += k + len(l)
		}
	}
	for again := true; again; {
		again = false
		for _, l := range companyLeads {
			if strings.HasPrefix(s[start:at], l) && len(l) < at-start {
				start += len(l)
				again = true
				break
			}
		}
	}
	name := s[start:at]
	if r, _ := utf8.DecodeRuneInString(name); utf8.RuneCountInString(name) < 2 || strings.ContainsRune(companyNotNames, r) || !isHan(r) {
		return raw, -1
	}
	return raw, start
}
