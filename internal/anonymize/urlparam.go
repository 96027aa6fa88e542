package anonymize

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// A URL written in text (a remark, a field the spec does not have, an
// answer's body) carries parameters as the call's own query does: in its
// query (…/ar?bankAccount=1202…), in its fragment (#acct=1202…, a page's
// route #/ar?deliveryAddr=…), and a form-encoded text is all parameters
// (amount=100&account_no=3100…). A parameter named for an account, an
// address or a person (contactName=张伟) labels its value there as it does in the call's query
// (labelledParam): the name is what tells an account from an order number,
// and no written label stands before the digits.

// urlParams returns s with the value of each parameter named for an account,
// an address or a person replaced as the call's query parameter's is, and the text
// between them searched by rest. In a check it returns s and records each
// one as a leak.
func (p *pass) urlParams(s string, rest func(string) string) string {
	if strings.IndexByte(s, '=') < 0 {
		return rest(s)
	}
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); {
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			break
		}
		eq += i
		p.tick(eq - i)
		i = eq + 1
		start := paramNameStart(s, eq)
		if start < 0 {
			continue
		}
		name := s[start:eq]
		if d, err := url.QueryUnescape(name); err == nil {
			name = d
		}
		if !p.a.labelsParam(name) {
			continue
		}
		end := eq + 1
		for end < len(s) && !strings.ContainsRune("&#;\"'<> \t\r\n", rune(s[end])) {
			end++
		}
		if end == eq+1 {
			continue
		}
		b.WriteString(rest(s[done : eq+1]))
		b.WriteString(p.labelledParam(name, s[eq+1:end]))
		done, i = end, end
	}
	return p.spliced(&b, s, done, rest)
}

// paramNameStart returns where the name of a parameter whose "=" is at
// s[eq] starts: after a "?", "&", "#" or ";", a space, or at the start of
// s; -1 when there is no name, or it is glued to other text (x.acct=).
// A name is letters, digits, Chinese characters and "_-.%".
func paramNameStart(s string, eq int) int {
	i := eq
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:i])
		if !(r < utf8.RuneSelf && (wordChar(byte(r)) || strings.ContainsRune("-._%", r)) || r >= utf8.RuneSelf && isHan(r)) {
			break
		}
		i -= n
	}
	if i == eq {
		return -1
	}
	if i > 0 && !strings.ContainsRune("?&#; \t\n/", rune(s[i-1])) {
		return -1
	}
	return i
}

// spliced ends a rewrite of s whose parts before done are in b: the rest
// of s after them, searched by rest, joined on; s as it was when no part
// was rewritten. A check (which only looks) returns s.
func (p *pass) spliced(b *strings.Builder, s string, done int, rest func(string) string) string {
	if done == 0 {
		return rest(s)
	}
	b.WriteString(rest(s[done:]))
	if p.check {
		return s
	}
	return b.String()
}
