package anonymize

import (
	"bytes"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// A capture holds fields the spec does not have, and ERPs name them the
// same way everywhere: a company's name (supplierName, 单位名称, 客户), a
// name (name, userName, 名字) that is a person's or a company's, a remark
// (remark, memo, 备注, 附言). A company's or a person's name there
// identifies as the spec's own names do, so it is replaced as those are,
// whole, in the first reading (an echo of it elsewhere is found too). A
// name is one only when the whole value is a person's name in characters
// (a common surname and one or two characters) or a company's (ending in
// its form: 有限公司, 集团, 商行...): an item's or a file's name is kept.
// A remark keeps its text, as any free text does, but a person's name in
// it is found with no role before it where a remark writes one: the whole
// remark (郭涛), or at its start or after a comma, then a word of what
// was done (陈静负责, 刘洋经手, 货已到，张伟签收).

// remarkKeySuffixes end the names of remark fields, folded to lower case
// without "_", "-" and spaces; remarkWords must be words of their own
// (FNote, note; not footnote).
var (
	remarkKeySuffixes = [...]string{"remark", "remarks", "comment", "comments", "memo", "备注", "附言", "留言", "批注", "说明", "摘要",
		// Other free text that writes a name as a remark does (张伟已确认,
		// 同意，孙丽经手): a description, a message, a reason, an opinion.
		"description", "desc", "content", "message", "msg", "reason", "opinion", "描述", "内容", "原因", "意见", "回复"}
	remarkWords = [...]string{"note", "notes"}
)

// companyKeySuffixes end the names of fields that hold a company's name.
var companyKeySuffixes = [...]string{"companyname", "company", "enterprisename", "corpname", "corporatename", "suppliername",
	"vendorname", "customername", "buyername", "sellername", "payername", "payeename", "orgname", "organizationname",
	"merchantname", "firmname",
	// The invoice interfaces' pinyin initials: 购买方, 销售方, 纳税人,
	// 购方, 销方, 购货单位, 销货单位 名称.
	"gmfmc", "xsfmc", "nsrmc", "gfmc", "xfmc", "ghdwmc", "xhdwmc", "公司名称", "单位名称", "企业名称", "客户名称", "供应商名称", "供应商", "客户",
	"购方名称", "销方名称", "购买方名称", "销售方名称", "付款单位", "收款单位", "往来单位", "开票单位", "付款方", "收款方", "公司"}

// genericNameKeys are the names of fields that hold a name of anything.
var genericNameKeys = [...]string{"name", "username", "nickname", "displayname", "名字", "名称"}

// companyForms end a company's name (组织形式, domain notes §5) or an
// office's.
var companyForms = [...]string{"公司", "集团", "商行", "厂", "店", "合作社", "事务所", "研究所", "工作室", "经营部", "门市部"}

// keyClass is the class of the value v of a field named name that the
// spec does not mark, or "" when it names nobody by its field. obj is what
// the object v stands in says of it (objectKinds): under a bare name key,
// a goods' name is nobody's, and a company's object names a company
// whatever its name looks like.
func (d *dict) keyClass(name, v string, obj objKind) class {
	if v == "" || name == "" {
		return ""
	}
	// Only Chinese text names a person or a company here: most values
	// are none, and are not asked about their field's name.
	han := strings.ContainsFunc(v, isHan)
	if !han {
		return ""
	}
	switch {
	case keyEnds(name, companyKeySuffixes[:], nil):
		// 计量单位名称 is a unit of measure's (千克), not a company's.
		if strings.Contains(name, "计量") {
			return ""
		}
		return companyName
	case genericNameKey(name):
		t := strings.TrimSpace(v)
		switch {
		case companyShaped(t):
			return companyName
		case obj&companyObject != 0:
			// 华润, 苏宁 beside a tax id or under supplier: a company's
			// name of a person's characters.
			return companyName
		case obj&goodsObject != 0:
			// 金龙 beside a price or under items: the goods' name.
			return ""
		case t == v && d.hanNameAt(v, 0) == len(v) && (d.knownName(v) || plausibleName(v)):
			return personName
		}
	}
	return ""
}

// wholeNameKey reports whether name, a field's, a query parameter's or a
// header's, may hold a company's or a person's name whole (keyClass).
func wholeNameKey(name string) bool {
	return name != "" && (keyEnds(name, companyKeySuffixes[:], nil) || genericNameKey(name))
}

// keyEnds reports whether name ends with one of suffixes (folded, for
// ASCII ones), or with one of words as a word of its own.
func keyEnds(name string, suffixes, words []string) bool {
	if name[len(name)-1] >= utf8.RuneSelf {
		for _, l := range suffixes {
			if l[0] >= utf8.RuneSelf && strings.HasSuffix(name, l) {
				return true
			}
		}
		return false
	}
	k := foldKey(name)
	for _, l := range suffixes {
		if l[0] < utf8.RuneSelf && k.endsWith(l) {
			return true
		}
	}
	for _, l := range words {
		if k.endsWithWord(l) {
			return true
		}
	}
	return false
}

// genericNameKey reports whether name is one of genericNameKeys (folded).
func genericNameKey(name string) bool {
	k := foldKey(name)
	for _, l := range genericNameKeys {
		if l[0] >= utf8.RuneSelf {
			if name == l {
				return true
			}
			continue
		}
		// name alone (an item's, a file's name end so too); username
		// at the end of a header's name too (X-User-Name).
		if k.n == len(l) && k.endsWith(l) || l != "name" && k.endsWithWord(l) {
			return true
		}
	}
	return false
}

// companyShaped reports whether v, Chinese, ends in a company's form and
// has a name before it (杭州恒远机械设备有限公司, not 公司 alone).
func companyShaped(v string) bool {
	for _, f := range companyForms {
		if strings.HasSuffix(v, f) && utf8.RuneCountInString(v)-utf8.RuneCountInString(f) >= 2 {
			return true
		}
	}
	return false
}

// remarkKey reports whether name, a field's, a query parameter's or a
// header's, labels a remark.
func remarkKey(name string) bool {
	return name != "" && keyEnds(name, remarkKeySuffixes[:], remarkWords[:])
}

// doneWords follow a person's name in a remark: what they did.
var doneWords = [...]string{"负责", "经手", "经办", "确认", "签字", "签收", "审核", "审批", "同意", "办理", "跟进", "处理",
	"提交", "收到", "来电", "电话", "手机", "联系", "要求", "已", "说", "的"}

// remarkSeparators end a clause of a remark: a name may start after one.
const remarkSeparators = " ，,、;；。.!！?？:：/（(）)\n\t\u3000"

// addressWords, in a remark, are followed by the person they address or
// hand something to: 请找刘洋处理, 交给王芳, 由张伟负责, 联系孙丽. A name
// after one is read as one at a clause's start is (remarkNameAt).
var addressWords = [...]string{"请找", "找", "交给", "转交", "转给", "通知", "联系", "告知", "抄送", "发给", "交由", "由", "请", "让"}

// addressWordAt returns the length of the word of addressWords at s[i]
// (0: none).
func addressWordAt(s string, i int) int {
	for _, w := range addressWords {
		if strings.HasPrefix(s[i:], w) {
			return len(w)
		}
	}
	return 0
}

// remarkNames returns v, the value of a field, parameter or header named
// for a remark, with each person's name in it replaced (see above) and
// the text between them searched by rest.
func (p *pass) remarkNames(v string, rest func(string) string) string {
	w := &claimed{p: p, s: v, rest: rest}
	d := p.a.r.dict
	for i := 0; i < len(v); {
		i = skipRunes(v, i, remarkSeparators)
		if end := d.remarkNameAt(v, i); end > 0 {
			w.claim(i, end, personName, v[i:end], false)
			i = end
		}
		// On to the next clause, taking the names after a word that
		// addresses someone on the way.
		for i < len(v) {
			r, n := utf8.DecodeRuneInString(v[i:])
			if strings.ContainsRune(remarkSeparators, r) {
				break
			}
			if k := addressWordAt(v, i); k > 0 {
				if end := d.remarkNameAt(v, i+k); end > 0 {
					w.claim(i+k, end, personName, v[i+k:end], false)
					i = end
					continue
				}
			}
			i += n
		}
		p.tick(1)
	}
	return w.text()
}

// remarkNameAt returns the end of the person's name that starts a clause
// of a remark at s[i], or -1: a name (hanNameAt) that ends the remark or
// its clause, or is followed by one of doneWords; a name of three
// characters that is not is tried as one of two (刘洋经手).
func (d *dict) remarkNameAt(s string, i int) int {
	end := d.hanNameAt(s, i)
	if end < 0 {
		return -1
	}
	follows := func(end int) bool {
		if !d.knownName(s[i:end]) && !plausibleName(s[i:end]) {
			return false
		}
		if end == len(s) {
			return true
		}
		if r, _ := utf8.DecodeRuneInString(s[end:]); strings.ContainsRune(remarkSeparators, r) {
			return true
		}
		for _, w := range doneWords {
			if strings.HasPrefix(s[end:], w) {
				return true
			}
		}
		return false
	}
	r := []rune(s[i:end])
	sl := 1
	if len(r) >= 2 && isCompoundSurname(string(r[:2])) {
		sl = 2
	}
	// Colours, goods and dates after a surname's character are no given
	// name (黄色款已到, 金属件已发, 周末已休).
	if strings.ContainsAny(string(r[sl:]), "色款件个台套批次号月日年末元吨箱包货") && !d.isOriginal(s[i:end]) {
		return -1
	}
	if follows(end) {
		return end
	}
	if len(r) == sl+2 {
		if short := end - utf8.RuneLen(r[len(r)-1]); follows(short) {
			return short
		}
	}
	return -1
}

// An object tells whose name its bare name key holds (objectKinds): the
// goods' when a sibling key says price, quantity, spec, model or
// brand, or it stands under items, goods, products, 商品, 物料; a
// company's when a sibling says tax id, credit code or legal person, or it
// stands under company, enterprise, supplier, vendor, 公司, 企业, 供应商.
// A customer, a buyer or a seller may be a person, and tells nothing.
var (
	goodsSiblingKeys  = [...]string{"price", "unitprice", "qty", "quantity", "sku", "spec", "specification", "model", "brand", "barcode", "itemcode", "goodscode", "productcode", "单价", "数量", "规格", "型号", "品牌", "条码", "物料编码", "商品编码"}
	goodsParentKeys   = [...]string{"items", "item", "goods", "good", "products", "product", "commodity", "commodities", "materials", "material", "skus", "商品", "物料", "货品", "产品", "商品明细"}
	companySibKeys    = [...]string{"taxno", "taxid", "taxcode", "taxnumber", "creditcode", "uscc", "socialcreditcode", "legalperson", "legalrepresentative", "legalrep", "registeredcapital", "nsrsbh", "税号", "统一社会信用代码", "信用代码", "法人", "法定代表人", "注册资本"}
	companyParentKeys = [...]string{"company", "enterprise", "supplier", "vendor", "corp", "corporation", "org", "organization", "firm", "merchant", "公司", "企业", "供应商", "单位", "商户"}
)

func goodsSiblingKey(k string) bool   { return foldedIs(k, goodsSiblingKeys[:]) }
func goodsParentKey(k string) bool    { return foldedIs(k, goodsParentKeys[:]) }
func companySiblingKey(k string) bool { return foldedIs(k, companySibKeys[:]) }
func companyParentKey(k string) bool  { return foldedIs(k, companyParentKeys[:]) }

// mayHoldNamedObject is a quick look for a bare name key and a key that
// could tell whose name it is, so that a payload without them is walked
// no more. It reads each key once, where its quote and colon close it
// (the words stand in values too: 公司 in every company's name).
func mayHoldNamedObject(b []byte) bool {
	bare, other := false, false
	for i := 0; i < len(b); {
		j := bytes.Index(b[i:], []byte(`":`))
		if j < 0 {
			break
		}
		e := i + j
		i = e + 2
		from := max(0, e-64)
		q := bytes.LastIndexByte(b[from:e], '"')
		if q < 0 || from+q+1 == e {
			continue
		}
		key := b[from+q+1 : e]
		k := unsafe.String(&key[0], len(key))
		switch {
		case genericNameKey(k):
			bare = true
		case goodsSiblingKey(k), goodsParentKey(k), companySiblingKey(k), companyParentKey(k):
			other = true
		}
		if bare && other {
			return true
		}
	}
	return false
}
