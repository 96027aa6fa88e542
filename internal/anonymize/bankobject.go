package anonymize

import (
	"bytes"
	"strings"
	"unsafe"
)

// A sender often writes a bank account as an object of its own, its number
// under a key that says nothing ({"bank":{"name":"中国工商银行杭州分行",
// "no":"1202…"}}, {"开户行":{"号码":…}}, {"account":{"id":…}}): the
// account's label is the object, its own key or its other keys (bank,
// bankName, 开户行, 账户, account), not the number's key. In such an
// object a value under a generic key (no, number, id, 号码, accountId) that
// is an account as one after its label in text is (accountAfter: 9 to 30
// digits, in groups too; a JSON number of as many) is replaced as an
// account is. Other keys there (a bank's code, an amount, a date, a
// document's serial number) keep their values: only the key that names
// nothing is read as the object's account, so that nothing else in a
// payment record is taken for one.

// objKind says what an object's keys, or the key it stands under, tell
// of the values in it: a bank's or an account's (bankObject, above), the
// goods' (goodsObject) or a company's (companyObject, keyclass.go).
type objKind uint8

const (
	bankObject objKind = 1 << iota
	goodsObject
	companyObject
	// base64Object: its "encoding" is "base64", so its "text" is a body
	// in base64 (a HAR's postData or content: harbody.go).
	base64Object
)

// objectKinds are the objects, by where they start, whose own key or one
// of whose keys tells what they are.
type objectKinds map[int]objKind

// see marks the object holding the key token t with what the key, or the
// key the object stands under, says it is.
func (b objectKinds) see(t *token) {
	path := t.path
	i := bytes.LastIndexByte(path, '.')
	// Views of the path's bytes, valid during this call: asked of every
	// key, a copy of each cost its allocation.
	view := func(b []byte) string {
		if len(b) == 0 {
			return ""
		}
		return unsafe.String(&b[0], len(b))
	}
	key := view(path[i+1:])
	parent := ""
	if i > 0 {
		pp := bytes.TrimRight(path[:i], "[]")
		parent = view(pp[bytes.LastIndexByte(pp, '.')+1:])
	}
	k := b[t.obj]
	if bankContextKey(key) || bankContextKey(parent) {
		k |= bankObject
	}
	if goodsSiblingKey(key) || goodsParentKey(parent) {
		k |= goodsObject
	}
	if companySiblingKey(key) || companyParentKey(parent) {
		k |= companyObject
	}
	if k != 0 {
		b[t.obj] = k
	}
}

// objectKindsOf walks b for the kinds of its objects, or returns nil when
// b's bytes hold no key that could tell one.
func (a *anonymizer) objectKindsOf(p *pass, b []byte) (objectKinds, error) {
	base64 := bytes.Contains(b, []byte(`"base64"`))
	if !mayHoldBankObject(b) && !mayHoldNamedObject(b) && !base64 {
		return nil, nil
	}
	kinds := objectKinds{}
	err := a.walk(p, b, func(t *token) {
		switch {
		case t.kind == keyToken:
			kinds.see(t)
		case base64 && t.kind == stringToken && lastKey(t.path) == "encoding" && t.view(b) == "base64":
			kinds[t.obj] |= base64Object
		}
	})
	return kinds, err
}

// mayHoldBankObject is a quick look for a key bankContextKey could
// accept, so that a payload without one is walked no more.
func mayHoldBankObject(b []byte) bool {
	for _, w := range [...]string{"bank", "Bank", "BANK", "ccount", "CCOUNT", "cct", "CCT", "开户", "银行", "账户", "帐户", "账号", "帐号"} {
		if bytes.Contains(b, []byte(w)) {
			return true
		}
	}
	return false
}

// bankContextKey reports whether an object's key, or the key it stands
// under, says the object is a bank's or an account's: it holds bank
// (bankName, openingBank, banks), account or acct as a word (not
// accounting or accountant), 开户 (开户行, 开户银行), 银行, 账户, 帐户,
// 账号 or 帐号.
func bankContextKey(k string) bool {
	if k == "" {
		return false
	}
	for _, w := range [...]string{"开户", "银行", "账户", "帐户", "账号", "帐号"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	// Asked of every key of a payload that may hold one: ASCII folded in
	// place, nothing allocated.
	for i := 0; i < len(k); i++ {
		switch {
		case hasPrefixFold(k[i:], "bank"):
			return true
		case hasPrefixFold(k[i:], "account"):
			if e := k[i+len("account"):]; !hasPrefixFold(e, "ing") && !hasPrefixFold(e, "ant") {
				return true
			}
		case hasPrefixFold(k[i:], "acct"):
			return true
		}
	}
	return false
}

// foldedIs reports whether name, folded as foldKey folds it (lower case,
// without "_", "-" and spaces), is one of list; a list's words beyond
// ASCII are compared as they are. Nothing is allocated: names are asked of
// every key.
func foldedIs(name string, list []string) bool {
	if name == "" {
		return false
	}
	if name[len(name)-1] >= 0x80 {
		for _, w := range list {
			if w == name {
				return true
			}
		}
		return false
	}
	k := foldKey(name)
	if k.n == len(k.rev) {
		return false // longer than any word of the lists
	}
	for _, w := range list {
		if w[0] < 0x80 && k.n == len(w) && k.endsWith(w) {
			return true
		}
	}
	return false
}

// bankGenericKeys are the keys, folded, under which a bank object holds its
// account: names that say nothing of their own.
var bankGenericKeys = [...]string{"no", "nr", "num", "number", "id", "value", "accountid", "acctid", "bankno", "banknum", "banknumber",
	"号码", "号", "账号", "帐号", "卡号"}

// bankGenericKey reports whether name is one of bankGenericKeys.
func bankGenericKey(name string) bool {
	if name == "" {
		return false
	}
	return foldedIs(name, bankGenericKeys[:])
}

// bankObjectValue returns v, a value under name in a bank object, with the
// account it is replaced (see above), or v. In a check it returns v and
// records the account as a leak.
func (p *pass) bankObjectValue(name, v string, number bool) string {
	if !bankGenericKey(name) || p.a.r.dict.isStandIn(v) {
		return v
	}
	if number {
		if !accountDigits(v) {
			return v
		}
		return p.accountNumber(v)
	}
	start, end, folded := accountAfter(v, 0, accountFill)
	if start != 0 || end != len(v) {
		return v
	}
	w := &claimed{p: p, s: v, rest: func(s string) string { return s }}
	claimAccounts(w, start, end, folded)
	return w.text()
}
