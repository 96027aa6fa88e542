package anonymize

import (
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/fake"
)

// A QQ number or a WeChat id is how a customer's clerk is reached, and
// turns up in remarks, contact fields and notes beside a mobile:
// QQ: 123456789, 微信号 wxid_3k9x2m1q7z22, vx: zhangwei_88. Neither has a
// shape of its own that tells it from an order number or a word, but for
// the wxid_ of a WeChat id the app made up, found anywhere; the others are
// found after their label (QQ, QQ号, 扣扣, 微信, 微信号, WeChat, weixin,
// wx, vx, V信, a colon, 为 or 是 if written), or as the value of a field,
// query parameter or header named for one (qq, wechat, weixin, wxid, 微信号).
// A QQ number is 5 to 11 digits, the first not 0; a WeChat id 6 to 20
// letters, digits, "_" and "-", a letter first (a digit, "_" or "-" in it,
// or a colon or 号 after its label: WeChat Pay is no id), or a QQ number (a
// WeChat account may be one). A mobile there is the mobile's, so that it
// gets one stand-in wherever it stands.

// chatLabels are the labels sought in text, the longer first where one
// starts another; qq reports a QQ label. Their ASCII letters are matched in
// any case (hasPrefixFold): people type weChat, wEchat, qQ and Vx, and a
// list of case variants let every one it did not list through.
var chatLabels = [...]struct {
	l  string
	qq bool
}{
	{"qq号码", true}, {"qq号", true}, {"qq", true}, {"扣扣号", true}, {"扣扣", true},
	{"微信号码", false}, {"微信号", false}, {"微信", false}, {"wechat", false}, {"weixin", false},
	{"wx", false}, {"vx", false}, {"v信", false}, {"威信", false},
}

// hasPrefixFold reports whether s starts with prefix, ASCII letters in
// any case (prefix is in lower case); other bytes must be equal.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// chatLabelFirst reports whether c, a byte of text, can start one of
// chatLabels (微, 扣 and 威 by their lead byte; a switch: asked of every
// byte of every text).
func chatLabelFirst(c byte) bool {
	switch c {
	case 'Q', 'q', 'W', 'w', 'V', 'v', 0xE5, 0xE6:
		return true
	}
	return false
}

// wxidPrefix starts the WeChat ids the app made up, which no other text
// has: found anywhere.
const wxidPrefix = "wxid_"

// chatIDs returns s with each QQ number and WeChat id after its label,
// and each wxid_ anywhere, replaced by its stand-in, and the text between
// them searched by rest. In a check it returns s and records each as a
// leak.
func (p *pass) chatIDs(s string, rest func(string) string) string {
	var w *claimed // nil until something is claimed
	claim := func(start, end int) {
		if w == nil {
			w = &claimed{p: p, s: s, rest: rest}
		}
		w.claim(start, end, chatID, s[start:end], false)
	}
	for i := 0; i < len(s); {
		if !chatLabelFirst(s[i]) {
			i++
			continue
		}
		p.tick(1)
		if strings.HasPrefix(s[i:], wxidPrefix) && (i == 0 || !idChar(s[i-1])) {
			if end := idEnd(s, i); end-i > len(wxidPrefix)+3 && end-i <= 40 {
				claim(i, end)
				i = end
				continue
			}
		}
		start, end := chatIDAfterLabel(s, i)
		if start < 0 {
			i++
			continue
		}
		claim(start, end)
		i = end
	}
	if w == nil {
		return rest(s)
	}
	return w.text()
}

// chatIDAfterLabel returns the span of the QQ number or WeChat id written
// after a label at s[i] (-1s: no label there, or no id after it).
func chatIDAfterLabel(s string, i int) (start, end int) {
	for _, l := range chatLabels {
		if !hasPrefixFold(s[i:], l.l) {
			continue
		}
		after := i + len(l.l)
		// Set apart from the words around it (wxid, vxlan, qqmusic): no
		// letter or digit before it, no letter after it but ID or Id
		// (WeChatID, weChatId).
		if l.l[0] < 0x80 && (i > 0 && idChar(s[i-1]) || after < len(s) && isLetter(s[after]) && !strings.HasPrefix(s[after:], "ID") && !strings.HasPrefix(s[after:], "Id")) {
			return -1, -1
		}
		// Then ID, No. or 号 if written, which say an id follows.
		apart := strings.HasSuffix(l.l, "号")
		j := skipRunes(s, after, " ")
		for _, x := range [...]string{"id", "no.", "号码", "号", "#"} {
			if hasPrefixFold(s[j:], x) && (j+len(x) == len(s) || !isLetter(s[j+len(x)])) {
				after, apart = j+len(x), true
				break
			}
		}
		start = skipRunes(s, after, " ：:为是\u3000")
		apart = apart || strings.ContainsAny(s[after:start], "：:为是")
		end = idEnd(s, start)
		if r, _ := utf8.DecodeRuneInString(s[end:]); end < len(s) && (r == '@' || r == '.' && end+1 < len(s) && idChar(s[end+1])) {
			return -1, -1 // an email's local part, a host: theirs
		}
		return chatIDSpan(s, start, end, l.qq, apart)
	}
	return -1, -1
}

// chatIDSpan returns start and end when s[start:end] is a QQ number (qq)
// or a WeChat id written after its label (apart: a colon, a space or 号
// between), else -1s.
func chatIDSpan(s string, start, end int, qq, apart bool) (int, int) {
	v := s[start:end]
	switch {
	case len(v) >= 5 && len(v) <= 11 && allDigits(v) && v[0] != '0':
		if identifierClass(v) != "" {
			return -1, -1 // a mobile: the mobile's stand-in
		}
		return start, end
	case qq || len(v) < 6 || len(v) > 20 || !isLetter(v[0]):
		return -1, -1
	case apart || strings.ContainsAny(v, "0123456789_-"):
		return start, end
	}
	return -1, -1
}

// idEnd returns where the run of letters, digits, "_" and "-" at s[i]
// ends.
func idEnd(s string, i int) int {
	for i < len(s) && (idChar(s[i]) || s[i] == '-') {
		i++
	}
	return i
}

func idChar(c byte) bool { return wordChar(c) || c == '_' }

// chatKeySuffixes end the names of fields, parameters and headers that
// hold a QQ number or a WeChat id, folded to lower case without "_", "-"
// and spaces.
var chatKeySuffixes = [...]string{"qq", "qqno", "qqnumber", "qqid", "wechat", "wechatid", "wechatno", "weixin", "weixinid", "weixinhao", "wxid", "wxno", "wx", "vx", "微信", "微信号", "qq号", "qq号码"}

// chatKey reports whether name, a field's, a query parameter's or a
// header's, labels a QQ number or a WeChat id: it ends with one of
// chatKeySuffixes, a word of its own (userQQ, wechat_id, 微信号; not
// faqq).
func chatKey(name string) bool {
	if name == "" {
		return false
	}
	if name[len(name)-1] >= 0x80 {
		l := strings.ToLower(name)
		return strings.HasSuffix(l, "微信") || strings.HasSuffix(l, "微信号") || strings.HasSuffix(l, "qq号") || strings.HasSuffix(l, "qq号码")
	}
	k := foldKey(name)
	for _, l := range chatKeySuffixes {
		if l[0] < 0x80 && k.endsWithWord(l) {
			return true
		}
	}
	return false
}

// labelledChatID returns v, the value of a field, parameter or header
// named for a QQ number or a WeChat id, with the id at its start replaced;
// the rest of v is searched by rest.
func (p *pass) labelledChatID(v string, rest func(string) string) string {
	start := skipRunes(v, 0, " ：:\u3000")
	end := idEnd(v, start)
	if end < len(v) && (v[end] == '@' || v[end] == '.') {
		return rest(v)
	}
	if start, end = chatIDSpan(v, start, end, false, true); start < 0 {
		return rest(v)
	}
	w := &claimed{p: p, s: v, rest: rest}
	w.claim(start, end, chatID, v[start:end], false)
	return w.text()
}

// chatIDStandIn draws an id of the form of v: a wxid_ keeps its prefix, a
// QQ number stays digits with no 0 first, and each other character is
// another of its class.
func chatIDStandIn(f *fake.Faker, v string) string {
	keep := 0
	if strings.HasPrefix(v, wxidPrefix) {
		keep = len(wxidPrefix)
	}
	s := []byte(v[:keep] + sameShape(f, v[keep:], false))
	if s[keep] == '0' {
		s[keep] = '1' + byte(f.Rand().IntN(9))
	}
	return string(s)
}
