package anonymize

import (
	"strings"

	"github.com/whsim/whsim/internal/fake"
)

// An email address names a person (its local part: a name in pinyin, a
// mobile or QQ number) and a company (its domain), and turns up wherever
// a sender or a receiver put one: a header, a query, a field the spec does
// not have, a remark, an answer. No field of the spec holds one, so, as a
// mobile number, it is found by its shape wherever it stands.

// standInDomain is the domain of every stand-in address: RFC 2606 keeps it
// for examples, so it names nobody.
const standInDomain = "example.com"

// emails returns s with each email address replaced by its stand-in. In a
// check each one is recorded as a leak and blanked out, so the byte-wise
// search that follows does not report a mobile in it again. Addresses at
// the example domains (a stand-in among them) are left as they are.
func (p *pass) emails(s string) string {
	if strings.IndexByte(s, '@') < 0 {
		return s
	}
	var b strings.Builder // empty until something changes
	done := 0             // s[:done] is in b
	for i := 0; i < len(s); {
		at := strings.IndexByte(s[i:], '@')
		if at < 0 {
			break
		}
		at += i
		start, end := emailAt(s, at)
		if start < done || exampleDomain(s[at+1:end]) {
			i = at + 1
			continue
		}
		addr := s[start:end]
		b.WriteString(s[done:start])
		if p.check {
			p.leak(string(email), addr)
			b.WriteString(strings.Repeat(" ", len(addr)))
		} else {
			// Addresses are case-blind: one stand-in for every spelling.
			b.WriteString(p.a.r.Replace(email, strings.ToLower(addr)))
			p.counts[email]++
		}
		done, i = end, end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// emailAt returns where the address around the "@" at s[at] starts and
// ends, or -1s when it is none: a local part of letters, digits and
// "._+-", a domain of labels with a dot in it, ending in a top-level
// domain of two letters or more. A full stop after it ends a sentence.
func emailAt(s string, at int) (start, end int) {
	start = at
	for start > 0 && (wordChar(s[start-1]) || strings.IndexByte("._+-", s[start-1]) >= 0) {
		start--
	}
	end = at + 1
	for end < len(s) && (wordChar(s[end]) || s[end] == '.' || s[end] == '-') {
		end++
	}
	for end > at+1 && (s[end-1] == '.' || s[end-1] == '-') {
		end--
	}
	local, domain := s[start:at], s[at+1:end]
	dot := strings.LastIndexByte(domain, '.')
	if local == "" || local[0] == '.' || dot <= 0 || domain[0] == '-' || len(domain)-dot-1 < 2 {
		return -1, -1
	}
	for _, c := range []byte(domain[dot+1:]) {
		if !isLetter(c) {
			return -1, -1
		}
	}
	return start, end
}

// exampleDomain reports the domains RFC 2606 keeps for examples and tests,
// which name nobody: example.com, .net and .org and their subdomains, and
// the top-level domains example, test, invalid and localhost.
func exampleDomain(d string) bool {
	d = strings.ToLower(d)
	for _, suffix := range []string{"example.com", "example.net", "example.org"} {
		if d == suffix || strings.HasSuffix(d, "."+suffix) {
			return true
		}
	}
	for _, tld := range []string{".example", ".test", ".invalid", ".localhost"} {
		if strings.HasSuffix(d, tld) {
			return true
		}
	}
	return false
}

// emailStandIn is an address at standInDomain whose local part is ten
// lower-case letters and digits, a letter first: a run of digits glued to
// a letter is read as part of a word, never as a mobile or a code.
func emailStandIn(f *fake.Faker) string {
	const letters, alnum = "abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz0123456789"
	r := f.Rand()
	b := make([]byte, 0, 11+len(standInDomain))
	b = append(b, letters[r.IntN(len(letters))])
	for range 9 {
		b = append(b, alnum[r.IntN(len(alnum))])
	}
	return string(append(append(b, '@'), standInDomain...))
}
