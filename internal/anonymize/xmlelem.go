package anonymize

import (
	"strings"
	"unicode/utf8"
)

// A body that is not JSON is often XML (an older ERP's, a SOAP
// envelope's), and there an element's name says what its text is as a
// field's name does in JSON: <contactName>张伟</contactName>,
// <nsrsbh>310104710932064</nsrsbh>, <name>李娜</name>, <remark>陈静负责
// </remark>. An element named for a person, a company, a phone, a tax id,
// an account, an address, a QQ number or a WeChat id, or a remark, labels
// its text as the field of that name does (its name without a namespace's
// prefix: <ns:taxNo>); the text between the elements is searched as any
// text is.

// xmlElements returns s with the text of each element named for an
// identifier replaced as the value of a field so named is, and the text
// between them searched by rest. In a check it returns s and records each
// as a leak.
func (p *pass) xmlElements(s string, rest func(string) string) string {
	if !strings.Contains(s, "</") {
		return rest(s)
	}
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			break
		}
		lt += i
		p.tick(lt - i + 1)
		i = lt + 1
		name, open := xmlStartTag(s, lt)
		if open < 0 {
			continue
		}
		end := open + strings.IndexByte(s[open:], '<')
		if end < open || end == open || !strings.HasPrefix(s[end:], "</") {
			continue
		}
		if !labelsValue(name) && p.a.r.dict.keyClass(name, s[open:end], 0) == "" && p.a.identityKey(name) == "" {
			continue
		}
		b.WriteString(rest(s[done:open]))
		b.WriteString(p.labelled(name, s[open:end], rest))
		done, i = end, end
	}
	return p.spliced(&b, s, done, rest)
}

// xmlStartTag reads the start tag at s[lt] ("<", a name, attributes if
// any, ">") and returns its name, without a namespace's prefix, and
// where its content starts (-1: no start tag there).
func xmlStartTag(s string, lt int) (string, int) {
	i := lt + 1
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !(r < utf8.RuneSelf && (wordChar(byte(r)) || strings.ContainsRune("_-.:", r)) || r >= utf8.RuneSelf && isHan(r)) {
			break
		}
		i += n
	}
	if i == lt+1 || !isLetter(s[lt+1]) && s[lt+1] < utf8.RuneSelf && s[lt+1] != '_' {
		return "", -1
	}
	name := s[lt+1 : i]
	if c := strings.LastIndexByte(name, ':'); c >= 0 {
		name = name[c+1:]
	}
	gt := strings.IndexByte(s[i:], '>')
	if gt < 0 || name == "" || gt > 0 && s[i] != ' ' || strings.ContainsAny(s[i:i+gt], "<") || gt > 0 && s[i+gt-1] == '/' {
		return "", -1
	}
	return name, i + gt + 1
}

// labelsValue reports whether a field's, a parameter's or an element's
// name labels its value for labelled.
func labelsValue(name string) bool {
	return accountKey(name) || addressKey(name) || nameKey(name) || numberKey(name) != "" || chatKey(name) || remarkKey(name) || docKey(name)
}

// labelsParam reports whether a parameter's name (of the call's query, or
// of a URL or a form written in text) labels its value for labelled, as
// the same name does a field, a header or an element: the one list for
// both, so that no label is read in one and missed in the other.
func (a *anonymizer) labelsParam(name string) bool {
	return labelsValue(name) || wholeNameKey(name) || a.identityKey(name) != ""
}
