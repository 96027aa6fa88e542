package anonymize

import (
	"strings"
	"unicode/utf8"
)

// A person's name in characters turns up in free text the spec does not
// mark (a 备注 of a header, a note in an item attribute, a header, a
// query), written after the word of the person's role: 联系人张伟,
// 经办人：李娜, 收货人 王建国, 制单人:刘磊、陈静. A name the run replaced
// in a field of its own (staffName) is found anywhere as an echo; one that
// only ever stands in text is found after its role, or under a field,
// query parameter or header named for it (联系人, 收货人姓名,
// contactName, linkman). A name there is a common surname (one
// character, or a compound one: 欧阳) and a given name of one or two
// characters; the given name ends at a character no name goes on with (张伟电话,
// 李娜签字, 刘磊和陈静) or after two. A surname with a title (王经理,
// 张先生, 李总), a word (联系人马上到, 负责人于3月) or a company after a
// role (付款人：金蝶软件) names no person and is kept (a company's name
// with its form, 金蝶软件有限公司, is found by company.go). The name becomes a person's stand-in, the same one it gets in a
// field of its own.

// nameLabels are the words of a person's role that a name follows, the
// longer first where one ends another (法定代表人 before 代表人).
var nameLabels = [...]string{"联系人", "联络人", "对接人", "经办人", "负责人", "收款人", "付款人", "交款人", "领款人",
	"收货人", "发货人", "签收人", "提货人", "送货人", "收件人", "寄件人", "接收人", "收票人", "验收人",
	"申请人", "审核人", "审批人", "复核人", "复核", "制单人", "开票人", "录入人", "创建人", "修改人",
	"业务员", "销售员", "采购员", "跟单员", "操作员", "收银员", "出纳", "客户经理",
	"法定代表人", "法人代表", "代表人", "法人", "姓名", "联系方式",
	// A bank account's holder, written with the account (开户行, 账号,
	// 户名): 账户名称 before 户名, which ends it.
	"账户名称", "户名", "开户人", "持卡人",
	// In English, set apart from the words around it (contacts, Contacted).
	"Contact", "contact", "CONTACT", "Attn", "ATTN"}

// colonRoles are roles written without 人 or 员 (经办：李娜, 审核：王芳,
// 制单:刘磊, as a form's footer prints them): a label only before a
// colon, as 经办 and 审核 are verbs too (审核通过), and the name after it
// must read as one with no role (plausibleName: 发货：周一 is a day).
var colonRoles = [...]string{"经办", "经手", "审核", "审批", "批准", "核准", "制单", "制表", "开票", "收款", "付款", "收货", "发货", "签收",
	"送货", "提货", "验收", "跟单", "对接", "负责", "联系", "录入", "申请", "仓管", "库管", "保管", "领料", "采购", "销售", "业务", "主管"}

// nameLabelFirst reports whether r is the first character of one of
// nameLabels or colonRoles (a switch: asked of every character of every
// text).
func nameLabelFirst(r rune) bool {
	switch r {
	case '联', '对', '经', '负', '收', '付', '交', '领', '发', '签', '提', '送', '寄', '接', '验', '申', '审', '复', '制', '开',
		'录', '创', '修', '业', '销', '采', '跟', '操', '出', '客', '法', '代', '姓', '账', '户', '持', '批', '核', '仓', '库', '保', '主',
		'C', 'c', 'A':
		return true
	}
	return false
}

// colonRoleAt returns the length of the role of colonRoles and its colon
// at s[i] (0: none).
func colonRoleAt(s string, i int) int {
	// Every role is two characters (six bytes): the colon after them is
	// looked at first, as most of their first characters (收, 发, 主, 业)
	// start other words of every text.
	j := i + 6
	if j >= len(s) {
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[j:])
	if r != '：' && r != ':' {
		return 0
	}
	for _, l := range colonRoles {
		if s[i:j] == l {
			return len(l) + n
		}
	}
	return 0
}

// hanSurnames are the surnames a name is found by: the common ones of the
// 2020 ranking, but for those that are words of their own before other
// text (于 as in 于3月, 向 as in 向客户).
const hanSurnames = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡" +
	"余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔汤" +
	"施牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳穆卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩佘池查麻苑迟邝"

// hanCompoundSurnames are the surnames of two characters.
var hanCompoundSurnames = [...]string{"欧阳", "上官", "司马", "诸葛", "东方", "皇甫", "尉迟", "公孙", "慕容", "司徒", "令狐", "夏侯"}

// nameTitles after a surname make it a way of addressing someone, not a
// name: 王经理, 张先生, 李总.
var nameTitles = [...]string{"先生", "女士", "小姐", "太太", "经理", "总监", "总", "老师", "师傅", "主任", "主管", "工", "姐", "哥", "老板", "阿姨", "处长", "科长", "部长", "同志"}

// notGiven are characters no given name starts or goes on with: words
// that follow a name (电话, 签字, 确认, 和), or that make the text after a
// label no name at all (马上, 于是).
const notGiven = "的了是在和与及或等已将于为上下电手签地部号请需不未无见同本均都也还再先后确联办负收付发提送申审制开复对业销采跟操出法姓户账帐人员面说表单栏处填写信息备注，。、：；（）"

// hanNames returns s with each name written after its role replaced by a
// person's stand-in and the text between them searched by rest. In a
// check it returns s and records each one as a leak.
func (p *pass) hanNames(s string, rest func(string) string) string {
	w := &claimed{p: p, s: s, rest: rest}
	for i := 0; i < len(s); {
		at, label := nameLabelAt(s, i)
		p.tick(at - i)
		if label == "" {
			break
		}
		if n := colonRoleAt(s, at); n > 0 {
			i = p.claimNames(w, at+n, true)
			continue
		}
		i = p.claimNames(w, at+len(label), false)
	}
	return w.text()
}

// claimNames claims the name written after a label that ends at s[i], and
// each one listed after it (联系人：张伟、李娜), and returns where the last
// ends (i when none is there). After a weak role (colonRoles) a name
// must read as one with no role before it.
func (p *pass) claimNames(w *claimed, i int, weak bool) int {
	s := w.s
	for first := true; ; first = false {
		var j int
		if first {
			// A role and its phone under one label (联系人/电话：张伟/138…,
			// 联系人及电话：, 联系人(电话)：) name the person first.
			for _, both := range phoneAfterRole {
				if strings.HasPrefix(s[i:], both) {
					i += len(both)
					break
				}
			}
			j = skipRunes(s, i, " ：:为是\u3000")
		} else {
			k := skipRunes(s, i, " \u3000")
			r, n := utf8.DecodeRuneInString(s[k:])
			if k == len(s) || !strings.ContainsRune("、/和及", r) {
				return i
			}
			j = skipRunes(s, k+n, " \u3000")
		}
		end := p.a.r.dict.hanNameAt(s, j)
		p.tick(j - i + 5*3)
		if end < 0 || weak && !p.a.r.dict.knownName(s[j:end]) && !plausibleName(s[j:end]) {
			return i
		}
		w.claim(j, end, personName, s[j:end], false)
		i = end
	}
}

// phoneAfterRole are the words that join a phone to a role's label.
var phoneAfterRole = [...]string{"/电话", "/手机", "/联系电话", "/联系方式", "及电话", "及手机", "及联系电话", "及联系方式", "和电话", "和手机",
	"、电话", "、手机", "(电话)", "(手机)", "（电话）", "（手机）"}

// skipRunes returns where the characters of set that start s[i:] end.
func skipRunes(s string, i int, set string) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !strings.ContainsRune(set, r) {
			break
		}
		i += n
	}
	return i
}

// nameLabelAt returns where the first label of nameLabels at or after s[i]
// starts, and the label (len(s) and "": none), trying the labels only at
// their first characters.
func nameLabelAt(s string, i int) (int, string) {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r >= 0x4e00 || r < utf8.RuneSelf && (i == 0 || !idChar(s[i-1]))) && nameLabelFirst(r) {
			for _, l := range nameLabels {
				if strings.HasPrefix(s[i:], l) && (l[0] >= utf8.RuneSelf || i+len(l) == len(s) || !isLetter(s[i+len(l)])) {
					return i, l
				}
			}
			if n := colonRoleAt(s, i); n > 0 {
				return i, s[i : i+n]
			}
		}
		i += n
	}
	return len(s), ""
}

// hanNameAt returns the end of the name in characters that starts at
// s[i], or -1 when none does. A name the run knows (a person's name it
// replaced, or a stand-in it wrote) is taken whole, so that a name is read
// the same in the input and, as its stand-in, in the output.
func (d *dict) hanNameAt(s string, i int) int {
	// The byte offsets of up to five characters of CJK from s[i].
	var off [6]int
	off[0] = i
	n := 0
	for j := i; n < 5 && j < len(s); n++ {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !isHan(r) {
			break
		}
		j += size
		off[n+1] = j
	}
	sl := 0
	switch {
	case n >= 2 && isCompoundSurname(s[i:off[2]]):
		sl = 2
	case n >= 1 && strings.Contains(hanSurnames, s[i:off[1]]):
		sl = 1
	default:
		return -1
	}
	for k := min(n, sl+2); k > sl; k-- {
		if e := d.m[s[i:off[k]]]; e != nil && (e.orig && e.class == personName || e.stand) {
			return off[k]
		}
	}
	if n == sl || orgAhead(s, i) {
		return -1
	}
	given := s[off[sl]:off[n]]
	for _, t := range nameTitles {
		if strings.HasPrefix(given, t) {
			return -1
		}
	}
	if strings.Contains(notGiven, s[off[sl]:off[sl+1]]) {
		return -1
	}
	if n == sl+1 || strings.Contains(notGiven, s[off[sl+1]:off[sl+2]]) || strings.ContainsAny(s[off[sl+1]:off[sl+2]], "先女总经老师主") {
		return off[sl+1]
	}
	return off[sl+2]
}

// orgWords in the characters after a role say they name a company, a
// bank or an office, not a person (付款人：金蝶软件有限公司, 收款人：华夏银行).
var orgWords = [...]string{"公司", "集团", "银行", "分行", "支行", "信用社", "工厂", "商行", "中心", "医院", "学校", "大学", "学院",
	"研究所", "事务所", "委员会", "管委会", "园区", "软件", "科技", "贸易", "实业", "有限"}

// orgAhead reports whether the run of CJK characters at s[i] (its first
// sixteen) holds one of orgWords.
func orgAhead(s string, i int) bool {
	j := i
	for n := 0; n < 16 && j < len(s); n++ {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !isHan(r) {
			break
		}
		j += size
	}
	for _, w := range orgWords {
		if strings.Contains(s[i:j], w) {
			return true
		}
	}
	return false
}

func isCompoundSurname(s string) bool {
	for _, c := range hanCompoundSurnames {
		if s == c {
			return true
		}
	}
	return false
}

// nameKeySuffixes end the names of fields, parameters and headers that
// hold a person's name, folded to lower case without "_", "-" and spaces.
var nameKeySuffixes = [...]string{"contact", "contactname", "contactperson", "linkman", "linkmanname",
	"consignee", "consigneename", "realname", "fullname", "personname",
	"accountholder", "accountholdername", "cardholder", "cardholdername",
	// The roles of an ERP's users, in English field names (handler,
	// createdBy, auditorName).
	"handler", "handlername", "operator", "operatorname", "applicant", "applicantname", "approver", "approvername",
	"auditor", "auditorname", "reviewer", "reviewername", "creator", "creatorname", "createdby", "createby",
	"updatedby", "updateby", "modifiedby", "modifier", "salesman", "salesmanname", "salesperson", "clerk", "cashier",
	"receiver", "receivername", "recipient", "recipientname", "sender", "sendername"}

// invoicePersonKeys are the names, in the invoice interfaces' pinyin
// initials, of the people every VAT invoice prints: 收款人, 复核人, 开票人,
// 开票员. Three letters say little: only the whole name is one.
var invoicePersonKeys = [...]string{"skr", "fhr", "kpr", "kpy"}

// nameKey reports whether name, a field's, a query parameter's or a
// header's, labels a person's name: it ends with a role (联系人,
// 收货人) or 姓名, or in English with contact, contactName, linkman. It is
// asked of every value's name, so it allocates nothing.
func nameKey(name string) bool {
	if name == "" {
		return false
	}
	if name[len(name)-1] >= 0x80 {
		role := strings.TrimSuffix(name, "姓名")
		for _, l := range nameLabels {
			if strings.HasSuffix(role, l) {
				return true
			}
		}
		return role != name // 姓名 alone
	}
	k := foldKey(name)
	for _, l := range invoicePersonKeys {
		if k.n == len(l) && k.endsWith(l) {
			return true
		}
	}
	return k.endsWithAny(nameKeySuffixes[:])
}

// labelledName returns v, the value of a field, parameter or header named
// for a person, with the names at its start replaced (张伟, 联系人 under
// 联系人 is 张伟、李娜); the rest of v is searched by rest.
func (p *pass) labelledName(v string, rest func(string) string) string {
	w := &claimed{p: p, s: v, rest: rest}
	p.claimNames(w, 0, false)
	return w.text()
}

// A name with no role before it (a remark's 张伟已确认, a name field's
// whole value) is read only when its given name is made of givenChars,
// the characters given names are drawn from, and it is none of
// surnameWords. Half the common words of a remark or an item's name start
// with a surname's character (谢谢, 金额, 单价, 方便, 高兴, 包邮; 毛巾,
// 白糖, 马桶, 黄金): taken for names, they became people's stand-ins, and
// then were replaced wherever they stood in the file, keys too. A name
// whose given name is of a rarer character is missed there (and found
// after its role, or where the run replaced it elsewhere).
const givenChars = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超霞平刚婷雪浩斌辉鹏华红玲萍燕琳波宁峰飞亮健俊鑫欣颖倩晨凯丹璐蕾琦" +
	"建国志晓东海秀英兰桂玉春梅文佳慧雅琴思远家豪乐永金凤立新小曦亚楠云振宇天少梦瑶轩然子涵怡雨桐诺嘉昊雯洁龙" +
	"宏鸿博彬成诚辰琛楚聪达德迪冬栋帆凡菲芬丰锋福富钢光广贵瀚航皓恒虹厚欢焕惠坚剑江娇锦进晶京菁君峻楷坤岚" +
	"莉莲良林霖凌露伦曼美萌淼铭鸣南妮凝琪淇祺骐茜乔勤青晴庆秋琼泉蓉荣瑞睿锐润若森山珊善深胜晟诗仕世淑舒帅" +
	"爽顺松素滔庭彤薇玮炜卫蔚武溪熙贤娴翔祥潇笑心星幸旭萱勋妍岩阳扬耀烨晔依宜艺毅逸奕音银莹盈映友语毓媛源" +
	"苑悦越跃芸韵泽展哲正峥智忠洲珠竹卓梓紫宗雄威彪虎鹤鹰骏腾瑜璇瑾璟钰铮莎菊荷芝芹茹蓓蕊兵旺生根宝喜杨" +
	"雷鹃娥翠俭禄寿亭洪涌滨冰雁姗婉婕嫣妙舟迅力晋炎焱珍珏瑛璋玥琬琰珂"

// surnameWords are words of a surname's character and givenChars that
// name nobody in a remark or as an item: places, seasons and sayings.
var surnameWords = [...]string{"黄金", "黄山", "黄河", "高清", "高新", "高兴", "高峰", "高明", "高达", "高山", "金华", "金山",
	"宁波", "宁静", "华东", "华南", "华中", "华北", "华夏", "华丽", "江南", "成立", "全新", "全国", "夏天", "白天", "白云",
	"付清", "黎明", "凌晨", "阳光", "卓越", "吉祥", "祝福", "安静", "安康", "安宁", "安心", "安顺", "沈阳", "方正", "石英",
	"万达", "雷达", "关心", "费心", "蓝天", "桂林", "龙华", "江海", "毛坯", "牛仔", "马达", "马云", "马力", "白银", "金银",
	"冷冰", "江滨", "海滨", "华亭"}

// plausibleName reports whether v, a surname (one character or a
// compound one) and a given name, reads as a person's name with no role
// to say so (see givenChars).
func plausibleName(v string) bool {
	for _, w := range surnameWords {
		if v == w {
			return false
		}
	}
	_, n := utf8.DecodeRuneInString(v)
	if len(v) >= 6 && isCompoundSurname(v[:6]) {
		n = 6
	}
	given := v[n:]
	if given == "" {
		return false
	}
	for _, r := range given {
		if !strings.ContainsRune(givenChars, r) {
			return false
		}
	}
	return true
}

// knownName reports whether v is a person's name the run replaced or a
// stand-in it wrote: found anywhere, whatever its characters.
func (d *dict) knownName(v string) bool {
	e := d.m[v]
	return e != nil && (e.orig && e.class == personName || e.stand)
}
