package anonymize

import (
	"strings"
	"unicode/utf8"

	"github.com/whsim/whsim/internal/fake"
)

// A company's bank account (对公账户) has no check digit and no issuer
// prefix: no shape tells it from an order number, so it is found by what
// people write before it. Every VAT invoice prints 开户行及账号, and a
// remark or a field the spec does not have says 收款账号：…, 账户 …, 卡号
// …; a note in English says account …, Acct No. …, A/C: …. After one of
// those words (账号 帐号 账户 帐户 卡号; account, acct or a/c in any of
// their usual cases, set apart from a word before them, then No., # or
// number if written), a colon or 为/是,
// and a bank's name ending in 行 (中国工商银行上海市分行) with a space or
// colon after it, a number of 9 to 30 digits (in groups of three or more
// with single spaces or hyphens, full-width too) is the account. It becomes
// other digits of the same form, the first not 0 where the original's was
// not; a number that is a bank card keeps a card's stand-in (bankcard.go).

// bankAccount is the class of an account number found after its label.
const bankAccount class = "bank account number"

var accountLabels = [...]string{"账号", "帐号", "账户", "帐户", "卡号", "银行卡", "信用卡", "借记卡"}

// textAccountLabels are the labels sought in text: the Chinese ones, the
// ends of a bank's name, and the English ones in their usual cases.
var textAccountLabels = [...]string{"账号", "帐号", "账户", "帐户", "卡号", "银行卡号", "信用卡号", "借记卡号", "银行卡", "信用卡", "借记卡",
	"银行", "分行", "支行", "工行", "农行", "中行", "建行", "交行", "招行", "信用社",
	"汇款至", "汇款到", "汇至", "汇到", "转账至", "转账到", "打款至", "打款到", "付款至", "付款到",
	"account", "Account", "ACCOUNT", "acct", "Acct", "ACCT", "a/c", "A/C", "card", "Card", "CARD", "remit to", "Remit to", "REMIT TO"}

// A card's own label (银行卡, 信用卡, 借记卡; card, card no.) says a card
// follows: there a card number whose check digit fails (a typo in
// production data, 6217…0123 for 6217…0122) is still someone's card, and
// is replaced as an account is. Written bare, such a number is kept: no
// shape tells it from a document's id or a serial.

// Where money is sent (汇款至, 转账至, 打款至, 付款至; remit to) is an
// account's label too: no amount, date or code is sent money to. Where it
// came from or went in (汇入, 转入) is not: 本月汇入 150000000 is an
// amount.

// A bank's name is the label an invoice's 开户行 line, or a remark, gives
// an account without 账号 (开户行：中国工商银行杭州分行 1202…, 工行
// 1202 0202 …): the digits right after its end (…银行, …分行, …支行, a
// big bank's short name, …信用社), a space, a colon or a comma between,
// as after any label. Words that end in 行 and name no bank (进行, 执行,
// 发行) are no label; a bank's name before other words (银行流水号
// 2026…) labels nothing.

// bankNameLabel reports whether label ends a bank's name.
func bankNameLabel(label string) bool {
	return strings.HasSuffix(label, "行") || label == "信用社"
}

// accounts returns s with each account number written after its label
// replaced and the text between them searched by rest. In a check it
// returns s and records each one as a leak.
func (p *pass) accounts(s string, rest func(string) string) string {
	if !strings.ContainsAny(s, "号户行社至到入卡cCtT") {
		return rest(s)
	}
	w := &claimed{p: p, s: s, rest: rest}
	for i := 0; i < len(s); {
		at, label := accountLabelAt(s, i)
		p.tick(at - i)
		if label == "" {
			break
		}
		after := at + len(label)
		if label[0] < 0x80 {
			after = englishAccountLabel(s, at, after)
		}
		start, end, folded := -1, -1, ""
		if after >= 0 {
			fill := accountFill
			if bankNameLabel(label) {
				fill += "，,"
			}
			start, end, folded = accountAfter(s, after, fill)
		}
		if start < 0 {
			i = at + len(label)
			continue
		}
		i = claimAccounts(w, start, end, folded)
	}
	return w.text()
}

// claimAccounts claims the account at s[start:end] (its digits folded)
// and each one listed after it, and returns where the last ends. One
// label often gives a company's accounts at two banks: 账号 1202… 或
// 6217…, 账户：1202…、3100…, acct 1202… or 3100…; a conjunction
// (或, 或者, 及, 和, 、, /, or, and) and the next account's own bank name
// may stand between them, and the next is found as one after a label is
// (9 to 30 digits, no amount or date).
func claimAccounts(w *claimed, start, end int, folded string) int {
	for {
		c := bankAccount
		if bankCardLike(folded) {
			c = bankCard
		}
		w.claim(start, end, c, folded, true)
		next := accountListNext(w.s, end)
		if next < 0 {
			return end
		}
		s2, e2, f2 := accountAfter(w.s, next, accountFill)
		if s2 < 0 {
			return end
		}
		start, end, folded = s2, e2, f2
	}
}

// accountListConjunctions join the accounts of one label's list (see
// claimAccounts); the English ones stand apart from the words around them.
var accountListConjunctions = [...]string{"或者", "或", "及", "和", "与", "、", "/", "／", "or", "OR", "and", "AND"}

// accountListNext returns where the next account of a list may start
// after one that ends at s[i] (past the spaces, a comma and the
// conjunction between them), or -1 when no conjunction follows.
func accountListNext(s string, i int) int {
	i = skipRunes(s, i, " \u3000")
	i = skipRunes(s, i, "，,")
	i = skipRunes(s, i, " \u3000")
	for _, c := range accountListConjunctions {
		if !strings.HasPrefix(s[i:], c) {
			continue
		}
		apart := (s[i-1] == ' ' || s[i-1] == ',') && i+len(c) < len(s) && s[i+len(c)] == ' '
		if isLetter(c[0]) && !apart {
			return -1
		}
		return i + len(c)
	}
	return -1
}

// accountLabelFirsts are the first characters of textAccountLabels.
const accountLabelFirsts = "账帐卡银分支工农中建交招信借汇转打付aArRcC"

// accountLabelAt returns where the first label of textAccountLabels at or
// after s[i] starts, and the label (len(s) and "": none). It reads each
// character once and tries the labels only at their first characters, so
// that the labels' number costs nothing per byte of a long text.
func accountLabelAt(s string, i int) (int, string) {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if strings.ContainsRune(accountLabelFirsts, r) {
			for _, l := range textAccountLabels {
				if strings.HasPrefix(s[i:], l) {
					return i, l
				}
			}
		}
		i += n
	}
	return len(s), ""
}

// englishAccountLabel returns where an English label found at s[at:end]
// ends with what people write after it (" No.", " #", " number"), or -1
// when it is part of another word (subaccount, accounts, Accountant).
func englishAccountLabel(s string, at, end int) int {
	if at > 0 && wordChar(s[at-1]) {
		return -1
	}
	i := end
	if i < len(s) && (s[i] == ' ' || s[i] == '.') {
		i++
	}
	for _, no := range []string{"number", "Number", "NUMBER", "No.", "no.", "NO.", "No", "no", "NO", "#"} {
		if strings.HasPrefix(s[i:], no) && (no == "#" || i+len(no) == len(s) || !isLetter(s[i+len(no)])) {
			return i + len(no)
		}
	}
	if end < len(s) && isLetter(s[end]) {
		return -1
	}
	return end
}

// accountAfter returns the span of the account number written after a
// label that ends at s[i], and its digits folded to ASCII (-1s: none).
func accountAfter(s string, i int, fill string) (start, end int, folded string) {
	i = skipRunes(s, i, fill)
	// The bank in brackets after the label (账号（工行）：…, 卡号(建行) …):
	// Chinese characters alone between them.
	if r, n := utf8.DecodeRuneInString(s[i:]); r == '（' || r == '(' {
		j := i + n
		for j < len(s) && j-i < 20*3 {
			c, m := utf8.DecodeRuneInString(s[j:])
			if (c == '）' || c == ')') && j > i+n {
				i = skipRunes(s, j+m, fill)
				break
			}
			if !isHan(c) {
				break
			}
			j += m
		}
	}
	// A bank's name, ending in 行, and a space or colon after it.
	if j := i; j < len(s) {
		for j < len(s) && j-i < 30*3 {
			r, n := utf8.DecodeRuneInString(s[j:])
			if !isHan(r) {
				break
			}
			j += n
			if r2, _ := utf8.DecodeRuneInString(s[j:]); r == '行' && j < len(s) && strings.ContainsRune(fill, r2) {
				i = skipRunes(s, j, fill)
				break
			}
		}
	}
	start = i
	var d []byte
	lastGroup, groups, fours := 0, 1, true
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if c, _, ok := foldRune(r); ok && isDigit(c) {
			d = append(d, c)
			lastGroup++
			i += n
			continue
		}
		// One separator between groups of three or more digits.
		if (r == ' ' || r == '-' || r == '－') && lastGroup >= 3 {
			if r2, _ := utf8.DecodeRuneInString(s[i+n:]); i+n < len(s) {
				if c, _, ok := foldRune(r2); ok && isDigit(c) {
					fours = fours && lastGroup == 4
					lastGroup = 0
					groups++
					i += n
					continue
				}
			}
		}
		break
	}
	end = i
	// Banks print an account in groups of four, and the last group is
	// what is left (1202 0202 0900 0123 45): one or two digits there
	// after two groups of four or more. Read as groups of three or more
	// alone, an 18-digit account so printed was kept after its label.
	shortTail := lastGroup > 0 && groups >= 3 && fours
	if len(d) < 9 || len(d) > 30 || lastGroup < 3 && !shortTail {
		return -1, -1, ""
	}
	// A letter or a decimal point after it: a code or an amount. A full
	// stop that ends a sentence (account 1001….) is none.
	if r, _ := utf8.DecodeRuneInString(s[end:]); end < len(s) {
		decimal := r == '.' && (end+1 < len(s) && !(s[end+1] == ' ' || s[end+1] == '"' || s[end+1] >= 0x80))
		if _, _, ok := foldRune(r); ok || r < 0x80 && isLetter(byte(r)) || decimal || r == '_' {
			return -1, -1, ""
		}
	}
	// A unit of money after it (账户：150000000 元): an amount.
	if r, _ := utf8.DecodeRuneInString(strings.TrimLeft(s[end:], " \u3000")); strings.ContainsRune("元万亿圆块", r) {
		return -1, -1, ""
	}
	return start, end, string(d)
}

// accountFill is what may stand between a label and its account: a
// space, a colon, 为 or 是.
const accountFill = " ：:为是\u3000"

// accountStandIn draws other digits of v's length, the first not 0 where
// v's is not. Anything else keeps its shape.
func accountStandIn(f *fake.Faker, v string) string {
	s := []byte(sameShape(f, v, false))
	if allDigits(v) && v[0] != '0' && s[0] == '0' {
		s[0] = '1' + byte(f.Rand().IntN(9))
	}
	// A stand-in that starts as a landline starts (0, or 4 and 8 of the
	// 400 and 800 numbers) may, once written in the original's groups,
	// read as one to --check, which claims landlines before accounts
	// (0842 60309927 941: an area code, then a local number): the user's
	// own anonymized file failed its check. Its first digit is drawn again
	// from those no landline starts with.
	if len(s) > 0 && strings.IndexByte("048", s[0]) >= 0 {
		const notLandline = "1235679"
		s[0] = notLandline[f.Rand().IntN(len(notLandline))]
	}
	return string(s)
}

// A field, a query parameter or a header named for an account (开户账号,
// 收款账户, bankAccount, account_no, X-Card-No) is the label of its value:
// a value that is an account number as one after a label in text is (see
// accountAfter: a bank's name may come first) is the account, wherever it
// stands. The name must end with the label: 账户余额 or accountBalance
// names an amount.

// accountKeySuffixes end the names of account fields, folded to lower
// case without "_", "-" and spaces.
var accountKeySuffixes = [...]string{"account", "accountno", "accountnumber", "acct", "acctno", "accno", "cardno", "cardnumber", "cardnum",
	"bankcard", "debitcard", "creditcard"}

// accountKey reports whether name, a field's, a query parameter's or a
// header's (or its end), labels an account number. A name that is card
// alone does too; idCard or cardType does not.
func accountKey(name string) bool {
	for _, l := range accountLabels {
		if strings.HasSuffix(name, l) {
			return true
		}
	}
	k := foldKey(name)
	return k.endsWithAny(accountKeySuffixes[:]) || k.n == len("card") && k.endsWith("card")
}

// foldedKey is the end of a field's, parameter's or header's name folded
// to lower case without "_", "-" and spaces, backwards (the longest
// suffix looked for is 13 bytes), and where a word starts in it (a
// capital, after "_", "-" or a space, or the name's start): contactTel,
// PHONE_NO. Names are asked of every value, so it allocates nothing.
type foldedKey struct {
	rev  [16]byte
	word [16]bool // word[i]: a word starts at rev[i]
	n    int
}

func foldKey(name string) foldedKey {
	var k foldedKey
	for i := len(name) - 1; i >= 0 && k.n < len(k.rev); i-- {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == ' ':
			if k.n > 0 {
				k.word[k.n-1] = true
			}
			continue
		case c >= 'A' && c <= 'Z':
			k.word[k.n] = true
			c += 'a' - 'A'
		}
		k.rev[k.n] = c
		k.n++
	}
	if k.n > 0 && k.n < len(k.rev) {
		k.word[k.n-1] = true // the name's start
	}
	return k
}

// endsWith says the folded name ends with l (ASCII, lower case).
func (k foldedKey) endsWith(l string) bool {
	return len(l) <= k.n && reversedPrefix(k.rev[:k.n], l)
}

// endsWithWord says the folded name ends with l, a word of its own:
// contactTel and PHONE_NO, not hotel.
func (k foldedKey) endsWithWord(l string) bool {
	return k.endsWith(l) && k.word[len(l)-1]
}

// endsWithAny says the folded name ends with one of suffixes.
func (k foldedKey) endsWithAny(suffixes []string) bool {
	for _, l := range suffixes {
		if k.endsWith(l) {
			return true
		}
	}
	return false
}

// reversedPrefix reports whether rev, a text backwards, starts with l
// backwards: whether the text ends with l.
func reversedPrefix(rev []byte, l string) bool {
	for i := 0; i < len(l); i++ {
		if rev[i] != l[len(l)-1-i] {
			return false
		}
	}
	return true
}

// labelled returns v, the value of a field, parameter or header named
// name, with the account number it is replaced when name labels one; the
// rest of v (all of it, when name labels none) is searched by rest. In a
// check it returns v and records the account as a leak.
func (p *pass) labelled(name, v string, rest func(string) string) string {
	if c := p.a.r.dict.keyClass(name, v, p.obj); c != "" {
		// A company's or a person's name under a name so named, whole
		// (keyclass.go): a query parameter's, a header's, an element's.
		w := &claimed{p: p, s: v, rest: rest}
		w.claim(0, len(v), c, v, false)
		return w.text()
	}
	if c := p.a.identityKey(name); c != "" && strings.TrimSpace(v) != "" {
		// A field of the spec's under its name: a parameter's, a header's.
		w := &claimed{p: p, s: v, rest: rest}
		w.claimWhole(c)
		return w.text()
	}
	if addressKey(name) {
		return p.labelledAddress(v, rest)
	}
	if nameKey(name) {
		return p.labelledName(v, rest)
	}
	if c := numberKey(name); c != "" {
		return p.labelledNumberValue(c, v, rest)
	}
	if chatKey(name) {
		return p.labelledChatID(v, rest)
	}
	if remarkKey(name) {
		return p.remarkNames(v, rest)
	}
	if docKey(name) {
		return p.labelledDocValue(v, rest)
	}
	if !accountKey(name) {
		return rest(v)
	}
	start, end, folded := accountAfter(v, 0, accountFill)
	if start < 0 {
		return rest(v)
	}
	w := &claimed{p: p, s: v, rest: rest}
	claimAccounts(w, start, end, folded)
	return w.text()
}

// labelledNumber is labelled for a JSON number: one of 9 to 30 digits
// under an account's name is the account, its stand-in a number of the
// same length. Any other is searched as number searches it.
func (p *pass) labelledNumber(name, v string) string {
	if c := numberKey(name); c != "" && !p.a.r.dict.isStandIn(v) {
		if _, _, folded := labelledNumberAfter(v, 0, c); folded != "" {
			if p.check {
				p.leak(string(c), v)
				return v
			}
			p.counts[c]++
			return p.a.numberStandIn(v, p.a.r.Replace(c, v))
		}
	}
	if chatKey(name) && !p.a.r.dict.isStandIn(v) {
		if start, _ := chatIDSpan(v, 0, len(v), true, true); start == 0 {
			if p.check {
				p.leak(string(chatID), v)
				return v
			}
			p.counts[chatID]++
			return p.a.numberStandIn(v, p.a.r.Replace(chatID, v))
		}
	}
	if docKey(name) {
		if n, ok := p.docNumber(v); ok {
			return n
		}
	}
	if !accountKey(name) || !accountDigits(v) || p.a.r.dict.isStandIn(v) {
		return p.number(name, v)
	}
	return p.accountNumber(v)
}

// accountDigits says whether v, a JSON number's text, can be an account's
// number: digits alone, 9 to 30 of them, no leading 0 (a number written
// with one is not an account's, and no JSON number has one).
func accountDigits(v string) bool {
	return allDigits(v) && len(v) >= 9 && len(v) <= 30 && v[0] != '0'
}

// accountNumber replaces v, a JSON number that its field says is an
// account's (accountDigits), by a number of its spelling: a card's
// stand-in where it has a card's shape, else an account's; under --check
// it is a leak.
func (p *pass) accountNumber(v string) string {
	c := bankAccount
	if bankCardLike(v) {
		c = bankCard
	}
	if p.check {
		p.leak(string(c), v)
		return v
	}
	p.counts[c]++
	return p.a.numberStandIn(v, p.a.r.Replace(c, v))
}
